/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prof_gen.c -- write a synthetic measurement file with the lib/fmt writer,
 * for the csprof-prof tests.
 *
 * Test tool (ordinary process context).  Usage: prof_gen SPEC OUT.cspm
 * SPEC is a text file, one directive per line ('#' starts a comment):
 *
 *   header pid=P tid=T index=I rank=R gen=G cpu_ns=N start_ns=N end_ns=N
 *          program=PATH command=WORD host=NAME        (all optional)
 *   event NAME UNIT MECHANISM PERIOD DISPLAY_SCALE DISPLAY_UNIT
 *   module ID PATH [BUILD_ID_HEX]
 *   syms NMFILE          symbols of the last module: `nm -S --defined-only` output
 *                        (`nm -D` version suffixes such as @@GLIBC_2.2.5 are dropped)
 *   path F1 F2 ... FN = SAMPLES [V0 [V1 ...]] [calls=C]
 *       a sampled call path, outermost frame first; FN is the leaf.
 *       Frames: NAME (middle of symbol NAME, searched in the syms of every
 *       module in the order given), NAME+0xK, 0xK (an offset in the last
 *       module), @0xK (FMT_MODULE_NONE).
 *       SAMPLES is added to the leaf's sample count, Vi (raw unit) to the
 *       leaf's value of event i; calls=C adds C call edges to the last call
 *       site (FN-1).
 *   stat NAME VALUE
 *
 * The CCT is built with shared prefixes exactly as the monitor's would be:
 * interior frames are call-site nodes keyed by address, the last frame a
 * leaf node (test/gen's gen_cct; the symbol tables and the writer are
 * test/gen/gen.h's too: this file is the spec language).  Exit status 0 on
 * success, 1 on any error (one line on stderr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

#define GEN_MAX_EVENTS  8
#define GEN_MAX_MODULES 8
#define GEN_MAX_NODES   4096
#define GEN_MAX_SYMS    16384
#define GEN_MAX_STATS   32

static struct fmt_header hdr = {.rank = -1};
static struct fmt_event events[GEN_MAX_EVENTS];
static uint32_t nevents;
static struct fmt_module modules[GEN_MAX_MODULES];
static uint8_t build_ids[GEN_MAX_MODULES][64];
static uint32_t nmodules;
static struct gen_syms syms;
static struct gen_cct cct;
static struct fmt_stat stats[GEN_MAX_STATS];
static uint32_t nstats;

static void
load_syms(const char *path)
{
    if (nmodules == 0)
        gen_die("%s: syms before any module", path);
    gen_syms_load(&syms, path, modules[nmodules - 1].id);
    if (syms.n > GEN_MAX_SYMS)
        gen_die("%s: too many symbols", path);
}

/* Resolve one frame token to (module, offset). */
static void
resolve(const char *tok, uint32_t *module, uint64_t *offset)
{
    char name[256];
    const char *plus;
    const struct gen_sym *s;

    if (tok[0] == '@') {
        *module = FMT_MODULE_NONE;
        *offset = strtoull(tok + 1, NULL, 0);
        return;
    }
    if (nmodules == 0)
        gen_die("frame %s before any module", tok);
    if (tok[0] == '0' && tok[1] == 'x') {
        *module = modules[nmodules - 1].id;
        *offset = strtoull(tok, NULL, 0);
        return;
    }
    plus = strchr(tok, '+');
    snprintf(name, sizeof(name), "%.*s", plus ? (int)(plus - tok) : (int)strlen(tok), tok);
    s = gen_syms_find(&syms, name);
    if (s == NULL)
        gen_die("symbol %s not found", name);
    *module = s->module;
    *offset = plus ? s->addr + strtoull(plus + 1, NULL, 0) : s->addr + s->size / 2;
}

static void
add_path(char *rest)
{
    char *frames[256], *tok, *save = NULL;
    uint32_t cur = 0, last_call = 0;
    uint32_t nf = 0, i, module, ev = 0;
    uint64_t offset;
    char *eq = strchr(rest, '=');

    if (eq == NULL)
        gen_die("path without '='");
    *eq = '\0';
    for (tok = strtok_r(rest, " \t", &save); tok != NULL; tok = strtok_r(NULL, " \t", &save))
        if (nf < 256)
            frames[nf++] = tok;
    if (nf == 0)
        gen_die("empty path");
    for (i = 0; i < nf; i++) {
        resolve(frames[i], &module, &offset);
        cur = gen_cct_child(&cct, cur, i + 1 < nf ? FMT_NODE_CALLSITE : FMT_NODE_LEAF, module,
                            offset);
        if (cct.nnodes > GEN_MAX_NODES)
            gen_die("too many nodes");
        if (i + 1 < nf)
            last_call = cur;
    }
    save = NULL;
    tok = strtok_r(eq + 1, " \t\n", &save);
    if (tok == NULL)
        gen_die("path without a sample count");
    cct.nodes[cur].samples += strtoull(tok, NULL, 0);
    while ((tok = strtok_r(NULL, " \t\n", &save)) != NULL) {
        if (strncmp(tok, "calls=", 6) == 0) {
            if (last_call == 0)
                gen_die("calls= on a path without call sites");
            cct.nodes[last_call].calls += strtoull(tok + 6, NULL, 0);
        } else if (ev < GEN_MAX_EVENTS) {
            gen_cct_values(&cct, cur)[ev++] += strtoull(tok, NULL, 0);
        }
    }
}

/* Replace a header string; a later spec line wins. */
static void
set_string(const char **dst, const char *v)
{
    free((char *)*dst);
    *dst = gen_xstrdup(v);
}

static void
parse_header(char *rest)
{
    char *tok, *save = NULL;

    for (tok = strtok_r(rest, " \t\n", &save); tok != NULL; tok = strtok_r(NULL, " \t\n", &save)) {
        char *v = strchr(tok, '=');

        if (v == NULL)
            gen_die("header field %s without '='", tok);
        *v++ = '\0';
        if (strcmp(tok, "pid") == 0)
            hdr.pid = (uint32_t)strtoul(v, NULL, 0);
        else if (strcmp(tok, "tid") == 0)
            hdr.tid = (uint32_t)strtoul(v, NULL, 0);
        else if (strcmp(tok, "index") == 0)
            hdr.thread_index = (uint32_t)strtoul(v, NULL, 0);
        else if (strcmp(tok, "rank") == 0)
            hdr.rank = (int32_t)strtol(v, NULL, 0);
        else if (strcmp(tok, "gen") == 0)
            hdr.generation = (uint32_t)strtoul(v, NULL, 0);
        else if (strcmp(tok, "cpu_ns") == 0)
            hdr.cpu_ns = strtoull(v, NULL, 0);
        else if (strcmp(tok, "start_ns") == 0)
            hdr.start_ns = strtoull(v, NULL, 0);
        else if (strcmp(tok, "end_ns") == 0)
            hdr.end_ns = strtoull(v, NULL, 0);
        else if (strcmp(tok, "program") == 0)
            set_string(&hdr.program, v);
        else if (strcmp(tok, "command") == 0)
            set_string(&hdr.command, v);
        else if (strcmp(tok, "host") == 0)
            set_string(&hdr.host, v);
        else
            gen_die("unknown header field %s", tok);
    }
}

static void
parse_spec(const char *path)
{
    char line[4096], w[6][256];
    FILE *f = fopen(path, "r");

    if (f == NULL)
        gen_die("%s: cannot open", path);
    while (fgets(line, sizeof(line), f) != NULL) {
        char *hash = strchr(line, '#'), *rest;
        unsigned long long u;
        double d;
        int n;

        if (hash != NULL)
            *hash = '\0';
        if (sscanf(line, "%255s%n", w[0], &n) != 1)
            continue;
        rest = line + n;
        if (strcmp(w[0], "header") == 0) {
            parse_header(rest);
        } else if (strcmp(w[0], "event") == 0) {
            struct fmt_event *e = &events[nevents];

            if (nevents == GEN_MAX_EVENTS || sscanf(rest, "%255s %255s %255s %llu %lf %255s", w[1],
                                                    w[2], w[3], &u, &d, w[4]) != 6)
                gen_die("bad event line: %s", line);
            e->name = gen_xstrdup(w[1]);
            e->unit = gen_xstrdup(w[2]);
            e->mechanism = gen_xstrdup(w[3]);
            e->period = u;
            e->display_scale = d;
            e->display_unit = gen_xstrdup(w[4]);
            nevents++;
        } else if (strcmp(w[0], "module") == 0) {
            struct fmt_module *m = &modules[nmodules];
            int k = sscanf(rest, "%llu %255s %255s", &u, w[1], w[2]);
            size_t i;

            if (nmodules == GEN_MAX_MODULES || k < 2)
                gen_die("bad module line: %s", line);
            m->id = (uint32_t)u;
            m->path = gen_xstrdup(w[1]);
            m->start = 0x400000ull * (nmodules + 1);
            m->end = m->start + 0x100000;
            m->load_bias = m->start;
            if (k == 3) {
                for (i = 0; i + 1 < strlen(w[2]) && i / 2 < sizeof(build_ids[0]); i += 2) {
                    unsigned int byte;

                    sscanf(w[2] + i, "%2x", &byte);
                    build_ids[nmodules][i / 2] = (uint8_t)byte;
                }
                m->build_id = build_ids[nmodules];
                m->build_id_len = (uint32_t)(i / 2);
            }
            nmodules++;
        } else if (strcmp(w[0], "syms") == 0) {
            if (sscanf(rest, "%255s", w[1]) != 1)
                gen_die("bad syms line");
            load_syms(w[1]);
        } else if (strcmp(w[0], "path") == 0) {
            add_path(rest);
        } else if (strcmp(w[0], "stat") == 0) {
            if (nstats == GEN_MAX_STATS || sscanf(rest, "%255s %llu", w[1], &u) != 2)
                gen_die("bad stat line: %s", line);
            stats[nstats].name = gen_xstrdup(w[1]);
            stats[nstats].value = u;
            nstats++;
        } else {
            gen_die("%s: unknown directive %s", path, w[0]);
        }
    }
    fclose(f);
}

int
main(int argc, char **argv)
{
    gen_set_name("prof_gen");
    if (argc != 3)
        gen_die("usage: prof_gen SPEC OUT.cspm");
    gen_cct_init(&cct, GEN_MAX_EVENTS);
    parse_spec(argv[1]);
    gen_file_open(argv[2], &hdr, events, nevents, modules, nmodules, cct.nnodes);
    gen_file_cct(&cct, nevents);
    gen_file_close(stats, nstats);
    free((char *)hdr.program); /* strings the spec set (NULL otherwise) */
    free((char *)hdr.command);
    free((char *)hdr.host);
    gen_cct_free(&cct);
    gen_syms_free(&syms);
    return 0;
}
