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
 * 1 with one line on stderr.  The strings are this file's; symbols, tree and
 * writer are test/gen/gen.h's.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gen.h"

#define MAX_SYMS 256

static uint64_t sym_mid[MAX_SYMS];
static size_t nsyms;
static char module2[8192];

/* The middle of every text symbol with a size (at most MAX_SYMS). */
static void
load_syms(const char *path)
{
    struct gen_syms t = {0};
    size_t i;

    gen_syms_load(&t, path, 1);
    for (i = 0; i < t.n && nsyms < MAX_SYMS; i++)
        if ((t.v[i].type == 'T' || t.v[i].type == 't') && t.v[i].size >= 4)
            sym_mid[nsyms++] = t.v[i].addr + t.v[i].size / 2;
    gen_syms_free(&t);
    if (nsyms < 2)
        gen_die("%s: fewer than 2 text symbols with a size", path);
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
    struct gen_cct cct;
    char path[4096];
    uint64_t i, total = 0;
    uint32_t cs, leaf;
    size_t len;

    gen_set_name("hostile_gen");
    if (argc != 4)
        gen_die("usage: hostile_gen OUTDIR BINARY SYMS");
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
    gen_cct_init(&cct, 2);
    cs = gen_cct_add(&cct, 0, FMT_NODE_CALLSITE, 1, sym_mid[0]);
    cct.nodes[cs].calls = 1;
    for (i = 0; i < nsyms; i++) {
        uint64_t s = 1 + i % 5;

        leaf = gen_cct_add(&cct, cs, FMT_NODE_LEAF, 1, sym_mid[i]);
        cct.nodes[leaf].samples = s;
        cct.nodes[leaf].calls = 1;
        gen_cct_values(&cct, leaf)[0] = s * 1000000;
        gen_cct_values(&cct, leaf)[1] = s * 7;
        total += s;
    }
    cs = gen_cct_add(&cct, 0, FMT_NODE_CALLSITE, 2, 0x1234);
    leaf = gen_cct_add(&cct, cs, FMT_NODE_LEAF, 2, 0x5678);
    cct.nodes[leaf].samples = 3;
    gen_cct_values(&cct, leaf)[0] = 3000000;
    gen_cct_values(&cct, leaf)[1] = 21;
    total += 3;
    hdr.cpu_ns = total * 1000000;
    st[0] = stats[0];
    st[0].value = total;
    st[1] = stats[1];
    snprintf(path, sizeof(path), "%s/hostile-0.cspm", argv[1]);
    gen_file_open(path, &hdr, ev, 2, mods, 2, cct.nnodes);
    gen_file_cct(&cct, 2);
    gen_file_close(st, 2);
    printf("%s: %llu nodes, %llu samples\n", path, (unsigned long long)cct.nnodes,
           (unsigned long long)total);
    gen_cct_free(&cct);
    return 0;
}
