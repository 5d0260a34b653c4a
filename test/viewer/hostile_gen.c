/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hostile_gen.c -- measurement files with hostile strings that no compiler
 * writes, for the viewer's hostile-names test (test/viewer/hostile.sh).
 *
 * Test tool (ordinary process context).  Usage:
 *   hostile_gen OUTDIR BINARY SYMS
 * SYMS is `nm -S --defined-only BINARY` output.  Writes OUTDIR/hostile-0.cspm
 * with the lib/fmt writer: one thread whose header (program, command, host)
 * holds markup, a newline and invalid UTF-8; two events, CPUTIME and one
 * named "EV</script><img src=x onerror=window.__csprofPwned=7>"; two load
 * modules, BINARY (so the text symbols of SYMS, sampled once each below a
 * call site in the first of them, get their real names) and a ~4 KiB path
 * that does not exist and holds markup, a newline and invalid UTF-8, with a
 * call path of its own; and statistics.  Deterministic.  Exit status 0, or
 * 1 with one line on stderr.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmt/fmt.h"

#define MAX_SYMS 256

static struct fmt_writer writer;
static uint64_t sym_mid[MAX_SYMS];
static size_t nsyms;
static char module2[8192];

static void
die(const char *msg, const char *arg)
{
    fprintf(stderr, "hostile_gen: %s%s%s\n", arg != NULL ? arg : "", arg != NULL ? ": " : "", msg);
    exit(1);
}

/* The middle of every text symbol with a size (at most MAX_SYMS). */
static void
load_syms(const char *path)
{
    char line[8192];
    unsigned long long addr, size;
    char type;
    FILE *f = fopen(path, "r");

    if (f == NULL)
        die("cannot open", path);
    while (fgets(line, sizeof(line), f) != NULL && nsyms < MAX_SYMS) {
        if (sscanf(line, "%llx %llx %c", &addr, &size, &type) != 3)
            continue;
        if ((type != 'T' && type != 't') || size < 4)
            continue;
        sym_mid[nsyms++] = addr + size / 2;
    }
    fclose(f);
    if (nsyms < 2)
        die("fewer than 2 text symbols with a size", path);
}

int
main(int argc, char **argv)
{
    static const char host[] = "host<img src=x onerror=window.__csprofPwned=6>\n\xff";
    static const char command[] =
        "cmd \"'</script><script>window.__csprofPwned=6</script>\t\x1b[31m";
    static const struct fmt_stat stats[] = {{"samples.recorded", 0}, {"samples.partial", 0}};
    const struct fmt_event ev[2] = {
        {.name = "CPUTIME",
         .unit = "ns",
         .mechanism = "posix-timer",
         .period = 1000000,
         .display_scale = 1e-9,
         .display_unit = "s"},
        {.name = "EV</script><img src=x onerror=window.__csprofPwned=7>",
         .unit = "events<b>",
         .mechanism = "synthetic\n\xfe",
         .period = 1,
         .display_scale = 1,
         .display_unit = "ev</script>"}};
    struct fmt_module mods[2] = {{.id = 1, .start = 0x400000, .end = 0x500000},
                                 {.id = 2, .start = 0x700000, .end = 0x800000}};
    struct fmt_header hdr = {
        .pid = 4242, .tid = 4242, .rank = -1, .host = host, .command = command};
    struct fmt_stat st[2];
    struct fmt_metric m[2];
    char path[4096];
    uint64_t nnodes, i, total = 0;
    size_t len;
    int fd;

    if (argc != 4)
        die("usage: hostile_gen OUTDIR BINARY SYMS", NULL);
    load_syms(argv[3]);
    mods[0].path = argv[2];
    hdr.program = argv[2];
    len = (size_t)snprintf(module2, sizeof(module2), "%s",
                           "/nonexistent/<script>window.__csprofPwned=8</script>\n\xff\xfe/");
    while (len + 20 < 4200)
        len += (size_t)snprintf(module2 + len, sizeof(module2) - len, "lib</script>");
    snprintf(module2 + len, sizeof(module2) - len, ".so");
    mods[1].path = module2;

    /* root, a call site in the binary, a leaf per symbol; a call site and a leaf in module 2 */
    nnodes = 1 + 1 + nsyms + 2;
    for (i = 0; i < nsyms; i++)
        total += 1 + i % 5;
    total += 3;
    hdr.cpu_ns = total * 1000000;
    st[0] = stats[0];
    st[0].value = total;
    st[1] = stats[1];
    snprintf(path, sizeof(path), "%s/hostile-0.cspm", argv[1]);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        die("cannot create", path);
    fmt_writer_init(&writer, fd);
    fmt_write_header(&writer, &hdr);
    fmt_write_events(&writer, ev, 2);
    fmt_write_loadmap(&writer, mods, 2);
    fmt_begin_cct(&writer, 0, nnodes);
    {
        struct fmt_node root = {.id = 0, .kind = FMT_NODE_ROOT, .module = FMT_MODULE_NONE};
        struct fmt_node cs = {.id = 1,
                              .parent = 0,
                              .kind = FMT_NODE_CALLSITE,
                              .module = 1,
                              .offset = sym_mid[0],
                              .calls = 1};

        fmt_write_node(&writer, &root);
        fmt_write_node(&writer, &cs);
    }
    for (i = 0; i < nsyms; i++) {
        uint64_t s = 1 + i % 5;
        struct fmt_node n = {.id = 2 + i,
                             .parent = 1,
                             .kind = FMT_NODE_LEAF,
                             .module = 1,
                             .offset = sym_mid[i],
                             .samples = s,
                             .calls = 1,
                             .nmetrics = 2,
                             .metrics = m};

        m[0].event = 0;
        m[0].value = s * 1000000;
        m[1].event = 1;
        m[1].value = s * 7;
        fmt_write_node(&writer, &n);
    }
    {
        struct fmt_node cs = {
            .id = 2 + nsyms, .parent = 0, .kind = FMT_NODE_CALLSITE, .module = 2, .offset = 0x1234};
        struct fmt_node leaf = {.id = 3 + nsyms,
                                .parent = 2 + nsyms,
                                .kind = FMT_NODE_LEAF,
                                .module = 2,
                                .offset = 0x5678,
                                .samples = 3,
                                .nmetrics = 2,
                                .metrics = m};

        m[0].value = 3000000;
        m[1].value = 21;
        fmt_write_node(&writer, &cs);
        fmt_write_node(&writer, &leaf);
    }
    fmt_end_cct(&writer);
    fmt_write_stats(&writer, st, 2);
    if (fmt_writer_finish(&writer) < 0 || close(fd) != 0)
        die("write failed", path);
    printf("%s: %llu nodes, %llu samples\n", path, (unsigned long long)nnodes,
           (unsigned long long)total);
    return 0;
}
