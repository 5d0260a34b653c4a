/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prof_main.c -- csprof-prof's command line: read measurement files, merge
 * them, write the experiment database and print a summary; or dump
 * measurement files as text (--dump).
 *
 * Tool code.  Exit status: 0 on success (even when some measurement files
 * were skipped: they are reported), 1 when nothing could be read or the
 * database could not be written, 2 for a bad option or value.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>

#include "fmt/fmt.h"
#include "prof_internal.h"
#include "structure/structure.h"

#define PROF_DEFAULT_DB "csprof-database"
#define PROF_MAX_TOP    1000000u

static void
prof_usage(FILE *out)
{
    fputs("Usage: csprof-prof [-S STRUCT]... [-o DB] [--force] [--top N] MEASUREMENTS...\n"
          "       csprof-prof --dump FILE...\n"
          "\n"
          "Merge csprof measurement files into an experiment database DB/experiment.xml\n"
          "(schema: share/csprof/schemas/experiment.dtd) and print a summary.\n"
          "MEASUREMENTS are measurement files or directories (every *.cspm file inside).\n"
          "Files that cannot be read are reported and skipped.\n"
          "\n"
          "  -S, --structure STRUCT  use the structure file STRUCT (from csprof-struct) for the\n"
          "                          load modules whose path or build-id it matches; the other\n"
          "                          modules are analyzed from their binaries; repeatable\n"
          "  -o, --output DB         database directory (default: " PROF_DEFAULT_DB ")\n"
          "  -f, --force             write into DB even if it exists and is not empty\n"
          "  -t, --top N             list the top N procedures and call paths (default 10)\n"
          "      --dump              print each measurement FILE as text and exit\n"
          "  -v, --verbose           print notes about load modules\n"
          "  -h, --help              print this help and exit\n"
          "  -V, --version           print the version and exit\n"
          "\n"
          "Exit status: 0 success, 1 nothing readable or DB not written, 2 usage error.\n",
          out);
}

static int
prof_dump_files(char **files, int n)
{
    int i, status = PROF_EXIT_OK;

    for (i = 0; i < n; i++) {
        struct fmt_record_set set;
        char err[1024] = "";
        int rc;

        rc = fmt_read_records(files[i], &set, err, sizeof(err));
        if (rc == FMT_OK && set.nprofiles == 0) {
            fprintf(stderr, "csprof-prof: %s\n", err[0] ? err : "no profile in this file");
            status = PROF_EXIT_FAIL;
            fmt_record_set_free(&set);
            continue;
        }
        if (rc < 0) {
            prof_eprintf("%s", err[0] ? err : fmt_strerror(rc));
            status = PROF_EXIT_FAIL;
            continue;
        }
        if (set.damaged > 0)
            fprintf(stderr, "csprof-prof: warning: %zu damaged record(s) skipped: %s\n",
                    set.damaged, err);
        if (n > 1)
            printf("%s==> %s <==\n", i > 0 ? "\n" : "", files[i]);
        fflush(stdout);
        for (size_t k = 0; k < set.nprofiles; k++)
            if (fmt_dump(set.profiles[k], stdout) < 0) {
                fprintf(stderr, "csprof-prof: %s: cannot write the dump: %s\n", files[i],
                        strerror(errno));
                status = PROF_EXIT_FAIL;
            }
        fmt_record_set_free(&set);
    }
    if (fflush(stdout) != 0)
        status = PROF_EXIT_FAIL;
    return status;
}

/* 1 if @dir exists and holds any entry, 0 if empty or absent, -1 on error. */
static int
prof_dir_nonempty(const char *dir)
{
    struct dirent *de;
    DIR *d = opendir(dir);
    int found = 0;

    if (d == NULL)
        return errno == ENOENT ? 0 : -1;
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
            found = 1;
            break;
        }
    closedir(d);
    return found;
}

/* Refuse an existing non-empty DB unless --force.  Returns 0 or prints and returns -1. */
static int
prof_check_db(const struct prof_options *opt)
{
    struct stat st;
    int rc;

    if (lstat(opt->db, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        fprintf(stderr, "csprof-prof: %s: %s\n", opt->db, strerror(errno));
        return -1;
    }
    if (S_ISLNK(st.st_mode)) {
        fprintf(stderr, "csprof-prof: %s: is a symbolic link (csprof never writes through one)\n",
                opt->db);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "csprof-prof: %s: exists and is not a directory\n", opt->db);
        return -1;
    }
    rc = prof_dir_nonempty(opt->db);
    if (rc < 0) {
        fprintf(stderr, "csprof-prof: %s: cannot read directory: %s\n", opt->db, strerror(errno));
        return -1;
    }
    if (rc > 0 && !opt->force) {
        fprintf(stderr,
                "csprof-prof: %s: database directory exists and is not empty (use --force to "
                "overwrite)\n",
                opt->db);
        return -1;
    }
    return 0;
}

/*
 * The database directory as it is now: not a symbolic link, ours, not writable by every
 * user; so nobody else can plant a link in it.  A stale experiment.xml.tmp (which the XML
 * writer would open, following links) is removed.  Returns 0 or prints and returns -1.
 */
static int
prof_db_safe(const char *db)
{
    struct stat st;
    char *tmp;
    int fd = open(db, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

    if (fd < 0 || fstat(fd, &st) != 0) {
        fprintf(stderr, "csprof-prof: %s: %s\n", db,
                errno == ELOOP ? "is a symbolic link (csprof never writes through one)"
                               : strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    if (st.st_uid != geteuid() || (st.st_mode & (S_IWOTH | S_ISVTX)) == S_IWOTH) {
        fprintf(stderr, "csprof-prof: %s: %s, not writing there\n", db,
                st.st_uid != geteuid() ? "owned by another user"
                                       : "writable by every user without the sticky bit");
        return -1;
    }
    tmp = prof_xasprintf("%s/experiment.xml.tmp", db);
    unlink(tmp);
    free(tmp);
    return 0;
}

/* Copy share/csprof/schemas/experiment.dtd next to experiment.xml (best effort). */
static void
prof_copy_dtd(const char *db, bool verbose)
{
    char exe[PATH_MAX], buf[8192];
    char *src = NULL, *dst = NULL, *slash;
    char *final = NULL;
    FILE *in = NULL, *out = NULL;
    ssize_t len;
    size_t n;
    int fd;

    len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (len <= 0)
        goto out_note;
    exe[len] = '\0';
    slash = strrchr(exe, '/');
    if (slash == NULL)
        goto out_note;
    *slash = '\0';
    src = prof_xasprintf("%s/../share/csprof/schemas/experiment.dtd", exe);
    in = fopen(src, "r");
    if (in == NULL)
        goto out_note;
    /* A new file renamed over the old name: a planted symbolic link is replaced, never
     * written through. */
    dst = prof_xasprintf("%s/experiment.dtd.tmp", db);
    unlink(dst);
    fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (out == NULL) {
        if (fd >= 0)
            close(fd);
        goto out_note;
    }
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            break;
    if (fclose(out) != 0 || ferror(in)) {
        out = NULL;
        unlink(dst);
        goto out_note;
    }
    out = NULL;
    final = prof_xasprintf("%s/experiment.dtd", db);
    if (rename(dst, final) != 0) {
        unlink(dst);
        goto out_note;
    }
    goto out_close;

out_note:
    if (out != NULL)
        fclose(out);
    out = NULL;
    if (verbose)
        fprintf(stderr, "csprof-prof: note: %s: experiment.dtd not copied into the database\n",
                src != NULL ? src : "share/csprof/schemas");
out_close:
    if (in != NULL)
        fclose(in);
    free(src);
    free(dst);
    free(final);
}

static int
prof_parse_top(const char *arg, uint32_t *top)
{
    unsigned long v;
    char *end;

    if (arg[0] < '0' || arg[0] > '9')
        return -1;
    errno = 0;
    v = strtoul(arg, &end, 10);
    if (errno != 0 || *end != '\0' || v > PROF_MAX_TOP)
        return -1;
    *top = (uint32_t)v;
    return 0;
}

int
main(int argc, char **argv)
{
    enum { OPT_DUMP = 256 };
    static const struct option longopts[] = {
        {"structure", required_argument, NULL, 'S'},
        {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, 'f'},
        {"top", required_argument, NULL, 't'},
        {"dump", no_argument, NULL, OPT_DUMP},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    const char **structs = NULL;
    size_t nstructs = 0, structs_cap = 0, i;
    struct prof_summary summary;
    struct prof_ctx ctx;
    bool dump = false;
    char *xml = NULL;
    int c, status = PROF_EXIT_FAIL;

    prof_ctx_init(&ctx);
    ctx.opt.db = PROF_DEFAULT_DB;
    opterr = 0; /* we print our own one-line messages */
    while ((c = getopt_long(argc, argv, ":S:o:ft:vhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'S':
            prof_grow(&structs, &structs_cap, nstructs + 1, sizeof(*structs));
            structs[nstructs++] = optarg;
            break;
        case 'o':
            if (optarg[0] == '\0') {
                fputs("csprof-prof: -o: the database directory name is empty\n", stderr);
                status = PROF_EXIT_USAGE;
                goto out_free;
            }
            ctx.opt.db = optarg;
            break;
        case 'f':
            ctx.opt.force = true;
            break;
        case 't':
            if (prof_parse_top(optarg, &ctx.opt.top) < 0) {
                fprintf(stderr, "csprof-prof: --top: '%s' is not a number from 0 to %u\n", optarg,
                        PROF_MAX_TOP);
                status = PROF_EXIT_USAGE;
                goto out_free;
            }
            break;
        case OPT_DUMP:
            dump = true;
            break;
        case 'v':
            ctx.opt.verbose = true;
            break;
        case 'h':
            prof_usage(stdout);
            status = PROF_EXIT_OK;
            goto out_free;
        case 'V':
            printf("csprof-prof %s\n", CSPROF_VERSION);
            status = PROF_EXIT_OK;
            goto out_free;
        case ':':
            fprintf(stderr, "csprof-prof: %s: option needs a value (try --help)\n",
                    argv[optind - 1]);
            status = PROF_EXIT_USAGE;
            goto out_free;
        default:
            if (optopt != 0 && optopt < OPT_DUMP)
                fprintf(stderr, "csprof-prof: -%c: unknown option (try --help)\n", optopt);
            else
                fprintf(stderr, "csprof-prof: %s: unknown option (try --help)\n", argv[optind - 1]);
            status = PROF_EXIT_USAGE;
            goto out_free;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "csprof-prof: no %s given (try --help)\n",
                dump ? "file to dump" : "measurement file or directory");
        status = PROF_EXIT_USAGE;
        goto out_free;
    }
    if (dump) {
        status = prof_dump_files(argv + optind, argc - optind);
        goto out_free;
    }

    LIBXML_TEST_VERSION
    if (prof_check_db(&ctx.opt) < 0)
        goto out_free;
    for (i = 0; i < nstructs; i++)
        if (prof_load_structure_file(&ctx, structs[i]) < 0)
            goto out_free;
    for (c = optind; c < argc; c++)
        prof_collect_inputs(&ctx, argv[c]);
    for (i = 0; i < ctx.ninputs; i++)
        prof_merge_input(&ctx, i);
    if (ctx.nread == 0) {
        fprintf(stderr, "csprof-prof: no readable measurement file (%zu of %zu skipped)\n",
                ctx.nskipped, ctx.ninputs);
        goto out_free;
    }
    if (ctx.npartial > 0)
        fprintf(stderr,
                "csprof-prof: warning: partial data: %zu thread(s) have only a checkpoint (the "
                "run was killed or is still running); their profiles end early\n",
                ctx.npartial);
    if (ctx.opt.verbose)
        for (i = 0; i < ctx.nstructs; i++)
            if (!ctx.structs[i].used)
                fprintf(stderr, "csprof-prof: note: %s: module %s matches no measured module\n",
                        ctx.structs[i].file, struct_module_path(ctx.structs[i].sm));

    prof_tree_compute(&ctx.tree, (uint32_t)ctx.nevents);
    prof_summary_compute(&ctx, &summary);

    if (mkdir(ctx.opt.db, 0700) != 0 && errno != EEXIST) {
        fprintf(stderr, "csprof-prof: %s: cannot create the database directory: %s\n", ctx.opt.db,
                strerror(errno));
        goto out_free_summary;
    }
    if (prof_db_safe(ctx.opt.db) < 0)
        goto out_free_summary;
    xml = prof_xasprintf("%s/experiment.xml", ctx.opt.db);
    if (prof_write_experiment(&ctx, &summary, xml) < 0)
        goto out_free_summary;
    prof_copy_dtd(ctx.opt.db, ctx.opt.verbose);

    printf("database: %s\n", xml);
    prof_summary_print(&ctx, &summary, stdout);
    status = fflush(stdout) == 0 ? PROF_EXIT_OK : PROF_EXIT_FAIL;

out_free_summary:
    prof_summary_free(&summary);
out_free:
    free(xml);
    free(structs);
    prof_ctx_free(&ctx);
    xmlCleanupParser();
    return status;
}
