/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * main.c -- csprof-struct: recover the program structure of one ELF
 * binary (procedures, inlined calls, loops, call sites and statements
 * with their address ranges; bloop, [HPCView] §2.3 and §3) and write it as
 * a csprof structure file.
 *
 *   csprof-struct [-o FILE] [-n] [-j N] [-v] BINARY
 *
 * Exit status: 0 on success (also for stripped binaries and binaries
 * without DWARF, which give procedures only and one note on stderr that
 * names the debug file looked for and the Debian -dbgsym package),
 * 1 when BINARY or FILE cannot be used (one line on stderr), 2 on a usage
 * error.  Tool code: runs outside the profiled program.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "structure/structure.h"

#define PROG "csprof-struct"

static void
usage(FILE *f)
{
    fprintf(f,
            "usage: %s [-o FILE] [-n] [-j N] [-d DIR] [-v] BINARY\n"
            "Write the program structure of the ELF executable or shared library BINARY\n"
            "(load module, files, procedures, inlined calls, loops, call sites and\n"
            "statements, with address ranges) as XML to standard output or FILE.\n"
            "\n"
            "  -o, --output FILE  write to FILE instead of standard output\n"
            "  -n, --no-normalize emit the raw object-code loop structure (no fusing of\n"
            "                     split loops, no sinking of hoisted statements)\n"
            "  -j, --jobs N       decode procedures with N threads (default: all cores);\n"
            "                     the output does not depend on N\n"
            "  -d, --debug-dir DIR  root of separate debug files (DIR/.build-id/xx/\n"
            "                     yyyy.debug, DIR/<binary's directory>/<debuglink>);\n"
            "                     default $CSPROF_DEBUG_DIR, else /usr/lib/debug; then\n"
            "                     debuginfod servers when DEBUGINFOD_URLS is set\n"
            "  -v, --verbose      print a summary of what was found on standard error\n"
            "  -h, --help         show this help and exit\n"
            "  -V, --version      show the version and exit\n",
            PROG);
}

struct counts {
    size_t n[CSP_SCOPE_NKINDS];
};

static void
count_scopes(const struct struct_scope *s, struct counts *c)
{
    c->n[s->kind]++;
    for (const struct struct_scope *k = s->first_child; k != NULL; k = k->next_sibling)
        count_scopes(k, c);
}

/*
 * Run again (execv of /proc/self/exe, same argv) with glibc's malloc
 * tunables glibc.malloc.hugetlb=1 (heap growth madvised MADV_HUGEPAGE:
 * transparent huge pages) and glibc.malloc.top_pad=64 MB (the heap grows
 * in 64 MB steps) added to GLIBC_TUNABLES, which glibc reads only at
 * start-up.  The analysis keeps ~150 MB of small malloc blocks of a large
 * library live; on 4 KB pages their TLB misses and page faults cost ~15 %
 * of its CPU time (bench/struct, pyenv libpython: least of 5, 1.27 s ->
 * 1.10 s), for ~10 MB more peak RSS.  Not done when GLIBC_TUNABLES
 * already names glibc.malloc.hugetlb (the second run, or the user's
 * choice), nor under any LD_PRELOAD (valgrind, csrun: a tool watching
 * this process would lose it).  Returns only when it does not run again
 * (or execv failed: then the environment is as it was).  Not thread-safe:
 * call first in main.
 */
static void
rerun_with_huge_heap(char **argv)
{
    static const char add[] = "glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864";
    const char *old = getenv("GLIBC_TUNABLES");
    size_t n = old != NULL ? strlen(old) : 0;
    char *val;

    if (getenv("LD_PRELOAD") != NULL ||
        (old != NULL && strstr(old, "glibc.malloc.hugetlb") != NULL))
        return;
    val = malloc(n + sizeof(add) + 1);
    if (val == NULL)
        return;
    if (old != NULL && n > 0) {
        memcpy(val, old, n);
        val[n++] = ':';
    }
    memcpy(val + n, add, sizeof(add));
    if (setenv("GLIBC_TUNABLES", val, 1) == 0) {
        execv("/proc/self/exe", argv);
        if (old != NULL)
            (void)setenv("GLIBC_TUNABLES", old, 1);
        else
            (void)unsetenv("GLIBC_TUNABLES");
    }
    free(val);
}

int
main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'}, {"no-normalize", no_argument, NULL, 'n'},
        {"jobs", required_argument, NULL, 'j'},   {"debug-dir", required_argument, NULL, 'd'},
        {"verbose", no_argument, NULL, 'v'},      {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},      {NULL, 0, NULL, 0},
    };
    struct struct_options opt = {0};
    struct struct_module *m = NULL;
    const struct struct_stats *st;
    const char *outpath = NULL, *note = NULL, *binary;
    char err[1024];
    FILE *out = stdout;
    int c, rc;

    rerun_with_huge_heap(argv);
    opt.debug_dir = getenv("CSPROF_DEBUG_DIR"); /* the tool's input, passed on explicitly */
    while ((c = getopt_long(argc, argv, "o:nj:d:vhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            outpath = optarg;
            break;
        case 'n':
            opt.no_normalize = 1;
            break;
        case 'j': {
            char *end = NULL;
            long j;

            errno = 0;
            j = strtol(optarg, &end, 10);
            if (errno != 0 || end == optarg || *end != '\0' || j < 1 || j > 1024) {
                fprintf(stderr, "%s: -j %s: expected a number of threads from 1 to 1024\n", PROG,
                        optarg);
                return 2;
            }
            opt.jobs = (int)j;
            break;
        }
        case 'd':
            opt.debug_dir = optarg;
            break;
        case 'v':
            opt.verbose = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("%s %s\n", PROG, CSPROF_VERSION);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "%s: %s\n", PROG,
                optind == argc ? "missing BINARY argument"
                               : "expected exactly one BINARY argument");
        usage(stderr);
        return 2;
    }
    binary = argv[optind];

    rc = struct_analyze(binary, &opt, &m, &note, err, sizeof(err));
    if (rc != 0) {
        fprintf(stderr, "%s: %s\n", PROG, err[0] ? err : struct_strerror(rc));
        return 1;
    }
    if (struct_note_no_dwarf(note)) { /* one line: what is missing, and what would name it */
        char hint[2048];

        fprintf(stderr, "%s: %s: note: %s; %s\n", PROG, binary, note,
                struct_debug_hint(binary, struct_module_build_id(m), &opt, hint, sizeof(hint)));
    } else if (note != NULL) {
        fprintf(stderr, "%s: %s: note: %s\n", PROG, binary, note);
    }
    st = struct_module_stats(m);
    if (st->bad_bytes > 0)
        fprintf(stderr, "%s: %s: warning: %zu bytes of code did not decode as instructions\n", PROG,
                binary, st->bad_bytes);
    if (opt.verbose) {
        struct counts cnt = {{0}};

        count_scopes(struct_module_root(m), &cnt);
        fprintf(stderr,
                "%s: %s: %zu files, %zu procedures, %zu inlined calls, %zu loops, %zu call sites,"
                " %zu statements (build-id %s)\n",
                PROG, struct_module_path(m), cnt.n[CSP_SCOPE_FILE], cnt.n[CSP_SCOPE_PROC],
                cnt.n[CSP_SCOPE_INLINE], cnt.n[CSP_SCOPE_LOOP], cnt.n[CSP_SCOPE_CALL],
                cnt.n[CSP_SCOPE_STMT],
                struct_module_build_id(m)[0] ? struct_module_build_id(m) : "none");
        fprintf(stderr,
                "%s: %s: decoded %zu instructions; %zu object-code loops (%zu irreducible);"
                " %zu jump tables; %zu computed gotos; %zu unresolved indirect jumps;"
                " %zu undecodable bytes\n",
                PROG, binary, st->instructions, st->loops, st->irreducible, st->jump_tables,
                st->label_jumps, st->unresolved_jumps, st->bad_bytes);
    }

    if (outpath != NULL) {
        out = fopen(outpath, "w");
        if (out == NULL) {
            fprintf(stderr, "%s: %s: cannot create: %s\n", PROG, outpath, strerror(errno));
            goto out_fail;
        }
    }
    rc = struct_write_xml(out, &m, 1);
    if (outpath != NULL && fclose(out) != 0 && rc == 0)
        rc = STRUCT_EIO;
    if (rc != 0) {
        fprintf(stderr, "%s: %s: cannot write: %s\n", PROG, outpath ? outpath : "standard output",
                struct_strerror(rc));
        if (outpath != NULL)
            unlink(outpath);
        goto out_fail;
    }
    struct_module_free(m);
    return 0;
out_fail:
    struct_module_free(m);
    return 1;
}
