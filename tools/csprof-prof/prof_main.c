/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prof_main.c -- csprof-prof's command line: read measurement files, merge
 * them, write the experiment database and print a summary; or dump
 * measurement files as text (--dump).  Built a second time with
 * CSPROF_PROF_MPI as csprof-prof-mpi, which merges over MPI processes
 * (prof_mpi.c) and writes the database on rank 0.
 *
 * Tool code: option parsing, the database directory's safety checks and
 * all printing; the analysis is lib/profile (profile.h).  Exit status: 0 on success (even when some measurement files
 * were skipped: they are reported), 1 when nothing could be read or the
 * database could not be written, 2 for a bad option or value.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libxml/parser.h>

#include "export/export.h"
#include "fmt/fmt.h"
#include "profile/profile.h"
#include "report/report.h"
#include "structure/structure.h"
#include "support/install.h"
#include "support/text.h"
#include "viewer/viewer.h"

#ifdef CSPROF_PROF_MPI
#    include "prof_mpi.h"
#endif

#define PROF_DEFAULT_DB "csprof-database"
#define PROF_MAX_TOP    1000000u
#define PROF_MAX_JOBS   64u /* -j N */
#define PROF_AUTO_JOBS  8u  /* default: the online CPUs, at most this many */

/* Exit statuses of the tool. */
enum prof_exit {
    PROF_EXIT_OK = 0,
    PROF_EXIT_FAIL = 1,  /* no readable measurement, DB refused or not written */
    PROF_EXIT_USAGE = 2, /* bad option or option value */
};

/* The command line (never seen by lib/profile, which gets a prof_config). */
struct prof_options {
    const char *db;
    bool force;
    bool verbose;
    bool quiet;
    bool full_summary; /* --summary full: every fact, one per line */
    bool top_set;      /* --top given */
    uint32_t top;
    unsigned jobs; /* -j N */
    enum prof_runs runs;
    bool runs_given; /* --runs: several runs may be merged (summed or kept apart) */
    const char **structs, **derived, **roots, **replace_old, **replace_new;
    size_t nstructs, nderived, nroots, nreplace;
    const char *refresh_viewer; /* --refresh-viewer DB */
    const char *diff_base;      /* --diff-viewer BASE_DB */
    bool db_given;              /* -o was given */
};

static void __attribute__((noreturn)) prof_die_oom(void)
{
    fputs("csprof-prof: out of memory\n", stderr);
    exit(PROF_EXIT_FAIL);
}

/* printf into a fresh string; the tool exits on allocation failure. */
static char *__attribute__((format(printf, 1, 2))) prof_xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;
    int rc;

    va_start(ap, fmt);
    rc = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (rc < 0)
        prof_die_oom();
    return s;
}

/* "csprof-prof: MESSAGE" with MESSAGE escaped (support/text.h): names cannot move the cursor. */
static void
prof_eprint(const char *msg)
{
    char *clean = malloc(text_escaped_size(msg));

    if (clean == NULL)
        prof_die_oom();
    text_escape(clean, msg);
    fprintf(stderr, "csprof-prof: %s\n", clean);
    free(clean);
}

static void
prof_usage(FILE *out)
{
    fputs("Usage: csprof-prof [-S STRUCT]... [-o DB] [--force] [--top N] [-M NAME=EXPR]...\n"
          "                   [-I DIR]... [--replace-path OLD=NEW]... [--runs sum|separate]\n"
          "                   MEASUREMENTS...\n"
          "       csprof-prof --dump FILE...\n"
          "       csprof-prof --refresh-viewer DB\n"
          "       csprof-prof --diff-viewer BASE_DB DB -o DIFF_DB\n"
          "\n"
          "Merge csprof measurement files into an experiment database DB/experiment.xml\n"
          "(schema: share/csprof/schemas/experiment.dtd) and print a summary.\n"
          "MEASUREMENTS are measurement files or directories (every *.cspm file inside).  Files\n"
          "that cannot be read are reported and skipped.  Measurements of several runs (csrun\n"
          "gives each run an id; files without one: each argument is a run) are refused\n"
          "unless --runs says how to combine them.\n"
          "\n"
          "  -S, --structure STRUCT  use the structure file STRUCT (from csprof-struct) for the\n"
          "                          load modules whose path or build-id it matches; the other\n"
          "                          modules are analyzed from their binaries; repeatable\n"
          "  -o, --output DB         database directory (default: " PROF_DEFAULT_DB ")\n"
          "  -f, --force             write into DB even if it exists and is not empty\n"
          "  -t, --top N             list the top N procedures and call paths (default 5;\n"
          "                          10 with --summary full)\n"
          "  -M, --metric NAME=EXPR  derived metric: + - * / ( ) min max sqrt log and metric\n"
          "                          names (CPUTIME, samples, calls, {ANY NAME}); repeatable\n"
          "  -I, --include DIR       copy source files found below DIR into DB/src; repeatable\n"
          "      --replace-path OLD=NEW  rewrite source paths starting with OLD first\n"
          "      --runs sum|separate  merge the measurements of several runs: one column per\n"
          "                          event, summed over the runs, or one column per event and\n"
          "                          run ('CPUTIME [run 2]'); without it several runs are refused\n"
          "  -j, --jobs N            read and merge with N threads (default: the online CPUs,\n"
          "                          at most 8); the database does not depend on N\n"
          "  -q, --quiet             print only the database path, not the summary\n"
          "      --summary short|full  the summary: one screen made by csprof-report's code\n"
          "                          (default: top procedures, hottest call paths, sample\n"
          "                          quality), or every fact on its own \"key: value\" line\n"
          "      --dump              print each measurement FILE as text and exit\n"
          "      --refresh-viewer DB rewrite DB/index.html and DB/viewer/ from DB and exit\n"
          "      --diff-viewer BASE_DB  write a differential viewer of BASE_DB -> DB into\n"
          "                          DIFF_DB (-o) and exit\n"
          "  -v, --verbose           print notes about load modules\n"
          "  -h, --help              print this help and exit\n"
          "  -V, --version           print the version and exit\n"
          "\n"
          "Exit status: 0 success, 1 nothing readable or DB not written, 2 usage error (several\n"
          "runs without --runs included).\n",
          out);
}

static double
prof_pct(double part, double whole)
{
    return whole != 0.0 ? 100.0 * part / whole : 0.0;
}

/*
 * "samples rooted at a thread entry": the share of samples whose call path
 * starts at an entry function, i.e. whose stack walk reached the thread's
 * root.  The others are partial, whether or not the monitor noticed: an
 * unwinder that stops at a frameless assembly leaf believes it is done.
 */
static void
prof_print_rooted(const struct prof_summary *s, FILE *out)
{
    uint64_t unrooted = s->samples - s->rooted_samples - s->unjudged_samples;
    uint64_t flagged = prof_summary_stat(s, "samples.partial");

    fprintf(out, "samples rooted at a process or thread entry: %.2f%% (%llu of %llu)\n",
            prof_pct((double)s->rooted_samples, (double)s->samples),
            (unsigned long long)s->rooted_samples, (unsigned long long)s->samples);
    fprintf(
        out,
        "samples not rooted (partial call paths): %llu (%llu whose walk reported stopping early "
        "(samples.partial), "
        "%llu more whose walk stopped early unnoticed)\n",
        (unsigned long long)unrooted, (unsigned long long)(flagged < unrooted ? flagged : unrooted),
        (unsigned long long)(unrooted > flagged ? unrooted - flagged : 0));
    if (s->unjudged_samples > 0)
        fprintf(out,
                "samples whose root cannot be judged (outermost frame in a file without "
                "structure): %llu\n",
                (unsigned long long)s->unjudged_samples);
}

/* The summary text: one "key: value" fact per line (format in lib/profile/prof_summary.c). */
static void
prof_summary_print(const struct prof_summary *s, FILE *out)
{
    /* Bytes (MEMALLOC, IO...) print as whole numbers; seconds and events with 6 decimals. */
    int rprec = strcmp(s->rank_unit, "bytes") == 0 ? 0 : 6;
    size_t i;

    fprintf(out, "measurement files: %zu read, %zu skipped\n", s->files_read, s->files_skipped);
    if (s->files_skipped > 0)
        fprintf(out, "%zu of %zu measurement files skipped\n", s->files_skipped, s->files);
    fprintf(out, "threads: %zu\n", s->threads);
    fprintf(out, "processes: %zu\n", s->processes);
    for (i = 0; i < s->nevents; i++)
        fprintf(out, "event %s: %.*f %s\n", s->events[i].name,
                strcmp(s->events[i].unit, "bytes") == 0 ? 0 : 6, s->events[i].total,
                s->events[i].unit);
    fprintf(out, "samples: %llu\n", (unsigned long long)s->samples);
    for (i = 0; i < s->nstats; i++)
        if (strncmp(s->stats[i].name, "samples.", 8) == 0)
            fprintf(out, "%s: %llu\n", s->stats[i].name, (unsigned long long)s->stats[i].value);
    fprintf(out, "samples at unknown addresses: %llu (%.2f%%)\n",
            (unsigned long long)s->unknown_samples,
            prof_pct((double)s->unknown_samples, (double)s->samples));
    prof_print_rooted(s, out);
    if (s->nchanged > 0) {
        fprintf(out,
                "modules changed since the measurement: %zu (%llu samples kept as "
                "module+0xOFFSET, not attributed to procedures)\n",
                s->nchanged, (unsigned long long)s->changed_samples);
        for (i = 0; i < s->nchanged; i++)
            fprintf(out, "  %s (%llu samples)\n", s->changed[i].why,
                    (unsigned long long)s->changed[i].samples);
    }
    if (s->samples_per_cpu_s >= 0)
        fprintf(out, "effective samples per CPU-second: %.1f\n", s->samples_per_cpu_s);
    else
        fprintf(out, "effective samples per CPU-second: unknown (no CPU time in headers)\n");
    trust_print(out, "", &s->trust, &s->verdict, false);
    fprintf(out, "top %u procedures by exclusive %s:\n", s->top, s->rank_name);
    for (i = 0; i < s->ntop_procs; i++)
        fprintf(out, "  %2zu %7.2f%%  %.*f %s  %s\n", i + 1,
                prof_pct(s->top_procs[i].value, s->rank_total), rprec, s->top_procs[i].value,
                s->rank_unit, s->top_procs[i].name);
    fprintf(out, "top %u call paths by inclusive %s:\n", s->top, s->rank_name);
    for (i = 0; i < s->ntop_paths; i++) {
        fprintf(out, "  %2zu %7.2f%%  %.*f %s  %s", i + 1,
                prof_pct(s->top_paths[i].value, s->rank_total), rprec, s->top_paths[i].value,
                s->rank_unit, s->top_paths[i].path);
        if (s->top_paths[i].calls >
            0) /* not the number of calls: docs/csprof-prof.md, "What calls (sampled) means" */
            fprintf(out, "  [%" PRIu64 " calls (sampled)]", s->top_paths[i].calls);
        fputc('\n', out);
    }
}

/*
 * MEMLEAK's samples are allocations sampled; its value, the bytes of those still allocated
 * when their thread's profile was written (docs/csrun.md, "Bytes").  One line says which is which.
 */
static void
prof_print_memleak(const struct prof_summary *s, FILE *out)
{
    for (size_t i = 0; i < s->nevents; i++) {
        uint64_t sampled = prof_summary_stat(s, "event.MEMLEAK.samples");

        if (strcmp(s->events[i].name, "MEMLEAK") != 0) /* not the columns of --runs separate */
            continue;
        if (s->events[i].total > 0)
            fprintf(out,
                    "%s: %" PRIu64 " allocations sampled; those still allocated when the profiles "
                    "were written stand for %.0f bytes: the leaks, by allocating context\n",
                    s->events[i].name, sampled, s->events[i].total);
        else
            fprintf(out,
                    "%s: %" PRIu64 " allocations sampled; none still allocated when the profiles "
                    "were written: no leak found\n",
                    s->events[i].name, sampled);
        break;
    }
}

/*
 * The default summary: one screen.  The top procedures and the hottest call
 * paths are csprof-report's flat and paths views of the database just
 * written (lib/report, lib/export: the same numbers as csprof-report), the
 * sample quality comes from the summary of lib/profile.
 */
static void
prof_print_screen(const struct prof_options *o, const struct prof_summary *s,
                  const struct rpt_db *db, const char *db_err, bool viewer, FILE *out)
{
    struct rpt_view_options vo = {.keep_inlines = true};
    struct exp_table_options to = {0};
    struct rpt_tree *t = NULL, *flat = NULL;
    const char *cols = getenv("COLUMNS");
    unsigned width = 100, rows = o->top_set ? o->top : 5;
    char err[512] = "", title[512];
    int col;

    if (cols != NULL && atoi(cols) >= 40 && atoi(cols) <= 1000)
        width = (unsigned)atoi(cols);
    if (db == NULL)
        snprintf(err, sizeof err, "%s", db_err);
    if (db == NULL || rpt_tree_build(db, &vo, NULL, &t, err, sizeof err) != RPT_OK) {
        fprintf(stderr, "csprof-prof: cannot read the database back for the summary: %s\n",
                err[0] ? err : "out of memory");
        goto out;
    }
    rpt_db_title(db, title, sizeof title);
    fprintf(out, "%s: %zu process%s, %zu thread%s, %llu samples", title, s->processes,
            s->processes == 1 ? "" : "es", s->threads, s->threads == 1 ? "" : "s",
            (unsigned long long)s->samples);
    for (size_t i = 0; i < s->nevents; i++)
        fprintf(out, "; %s %.4g %s", s->events[i].name, s->events[i].total, s->events[i].unit);
    fputc('\n', out);
    prof_print_memleak(s, out);
    if (s->files_skipped > 0)
        fprintf(out, "measurement files: %zu read, %zu skipped (see above)\n", s->files_read,
                s->files_skipped);
    fprintf(out,
            "sample quality: %.1f%% rooted at a process or thread entry, %llu partial, "
            "%llu at unknown addresses\n",
            prof_pct((double)s->rooted_samples, (double)s->samples),
            (unsigned long long)(s->samples - s->rooted_samples - s->unjudged_samples),
            (unsigned long long)s->unknown_samples);
    trust_print(out, "", &s->trust, &s->verdict, true);
    if (s->nchanged > 0)
        fprintf(out, "  %zu module(s) changed since the measurement: %llu samples unattributed\n",
                s->nchanged, (unsigned long long)s->changed_samples);
    col = rpt_tree_column(t, rpt_db_find_metric(db, NULL));
    if (col < 0)
        goto out;
    if (rpt_tree_flat_stored(t, &vo, RPT_FLAT_PROCEDURE, &flat) != RPT_OK &&
        rpt_tree_flat(t, RPT_FLAT_PROCEDURE, &flat) != RPT_OK)
        goto out;
    fputc('\n', out);
    to.format = EXP_TEXT;
    to.view = "flat";
    to.column = col;
    to.sort = EXP_SORT_EXCLUSIVE;
    to.max_depth = 1;
    to.limit = rows;
    to.width = width;
    export_table(flat, &to, out);
    fputc('\n', out);
    export_paths(t, col, rows, width, out);
    fprintf(out, "\nmore: csprof-report %s (--view top-down|bottom-up|flat|threads|paths)\n",
            o->db);
    if (viewer)
        fprintf(out, "viewer: open %s/index.html in a browser (from the file system)\n", o->db);
out:
    rpt_tree_free(flat);
    rpt_tree_free(t);
}

/* Print and forget the library's collected messages. */
static void
prof_print_messages(struct prof_ctx *ctx)
{
    static const char *const prefix[] = {"", "warning: ", "note: "};
    size_t i, n = prof_message_count(ctx);

    for (i = 0; i < n; i++) {
        enum prof_msg_level level;
        const char *m = prof_message(ctx, i, &level);

        fprintf(stderr, "csprof-prof: %s%s\n", prefix[level], m);
    }
    prof_clear_messages(ctx);
}

/* Print the library's error for status @rc (messages first). */
static void
prof_print_error(struct prof_ctx *ctx, int rc)
{
    const char *m = ctx != NULL ? prof_errmsg(ctx) : "";

    if (ctx != NULL)
        prof_print_messages(ctx);
    fprintf(stderr, "csprof-prof: %s\n", m[0] != '\0' ? m : prof_strerror(rc));
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
            prof_eprint(err[0] ? err : fmt_strerror(rc));
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
    char *src = NULL, *dst = NULL;
    char *final = NULL;
    FILE *in = NULL, *out = NULL;
    size_t n;
    int fd;

    if (csp_install_path("share/csprof/schemas/experiment.dtd", exe, sizeof exe) < 0)
        goto out_note;
    src = prof_xasprintf("%s", exe);
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

/*
 * Parse @arg as a decimal number in [@lo, @hi] (digits only: no sign, no
 * blanks) into *@out.  Returns 0, or -1 with *@out unchanged.
 */
static int
prof_parse_count(const char *arg, unsigned long lo, unsigned long hi, unsigned long *out)
{
    unsigned long v;
    char *end;

    if (arg[0] < '0' || arg[0] > '9')
        return -1;
    errno = 0;
    v = strtoul(arg, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* -j's default: the CPUs online, capped (each thread holds a partial tree). */
static unsigned
prof_default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);

    if (n < 1)
        return 1;
    return n > (long)PROF_AUTO_JOBS ? PROF_AUTO_JOBS : (unsigned)n;
}

static int
prof_parse_runs(const char *arg, enum prof_runs *runs)
{
    if (strcmp(arg, "sum") == 0)
        *runs = PROF_RUNS_SUM;
    else if (strcmp(arg, "separate") == 0)
        *runs = PROF_RUNS_SEPARATE;
    else
        return -1;
    return 0;
}

/* Parse the command line into @o; returns -1 to continue, else the exit status. */
static int
prof_parse_options(int argc, char **argv, struct prof_options *o, bool *dump)
{
    enum { OPT_DUMP = 256, OPT_REPLACE, OPT_RUNS, OPT_SUMMARY, OPT_REFRESH, OPT_DIFFVIEW };
    static const struct option longopts[] = {
        {"structure", required_argument, NULL, 'S'},
        {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, 'f'},
        {"top", required_argument, NULL, 't'},
        {"metric", required_argument, NULL, 'M'},
        {"include", required_argument, NULL, 'I'},
        {"replace-path", required_argument, NULL, OPT_REPLACE},
        {"runs", required_argument, NULL, OPT_RUNS},
        {"jobs", required_argument, NULL, 'j'},
        {"dump", no_argument, NULL, OPT_DUMP},
        {"refresh-viewer", required_argument, NULL, OPT_REFRESH},
        {"diff-viewer", required_argument, NULL, OPT_DIFFVIEW},
        {"quiet", no_argument, NULL, 'q'},
        {"summary", required_argument, NULL, OPT_SUMMARY},
        {"verbose", no_argument, NULL, 'v'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    size_t n = (size_t)argc + 1;
    const char *eq;
    unsigned long num;
    int c;

    o->structs = calloc(n, sizeof(*o->structs));
    o->derived = calloc(n, sizeof(*o->derived));
    o->roots = calloc(n, sizeof(*o->roots));
    o->replace_old = calloc(n, sizeof(*o->replace_old));
    o->replace_new = calloc(n, sizeof(*o->replace_new));
    if (!o->structs || !o->derived || !o->roots || !o->replace_old || !o->replace_new)
        prof_die_oom();
    opterr = 0; /* we print our own one-line messages */
    while ((c = getopt_long(argc, argv, ":S:o:ft:M:I:j:qvhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'S':
            o->structs[o->nstructs++] = optarg;
            break;
        case 'o':
            if (optarg[0] == '\0') {
                fputs("csprof-prof: -o: the database directory name is empty\n", stderr);
                return PROF_EXIT_USAGE;
            }
            o->db = optarg;
            o->db_given = true;
            break;
        case 'f':
            o->force = true;
            break;
        case 't':
            if (prof_parse_count(optarg, 0, PROF_MAX_TOP, &num) < 0) {
                fprintf(stderr, "csprof-prof: --top: '%s' is not a number from 0 to %u\n", optarg,
                        PROF_MAX_TOP);
                return PROF_EXIT_USAGE;
            }
            o->top = (uint32_t)num;
            o->top_set = true;
            break;
        case 'M':
            o->derived[o->nderived++] = optarg;
            break;
        case 'I':
            if (optarg[0] == '\0') {
                fputs("csprof-prof: -I: the source directory name is empty\n", stderr);
                return PROF_EXIT_USAGE;
            }
            o->roots[o->nroots++] = optarg;
            break;
        case OPT_REPLACE:
            eq = strchr(optarg, '=');
            if (eq == NULL || eq == optarg) {
                fprintf(stderr, "csprof-prof: --replace-path: '%s' is not OLD=NEW\n", optarg);
                return PROF_EXIT_USAGE;
            }
            o->replace_old[o->nreplace] = prof_xasprintf("%.*s", (int)(eq - optarg), optarg);
            o->replace_new[o->nreplace++] = eq + 1;
            break;
        case OPT_RUNS:
            if (prof_parse_runs(optarg, &o->runs) < 0) {
                fprintf(stderr, "csprof-prof: --runs: '%s' is not 'sum' or 'separate'\n", optarg);
                return PROF_EXIT_USAGE;
            }
            o->runs_given = true;
            break;
        case 'j':
            if (prof_parse_count(optarg, 1, PROF_MAX_JOBS, &num) < 0) {
                fprintf(stderr, "csprof-prof: --jobs: '%s' is not a number from 1 to %u\n", optarg,
                        PROF_MAX_JOBS);
                return PROF_EXIT_USAGE;
            }
            o->jobs = (unsigned)num;
            break;
        case OPT_DUMP:
            *dump = true;
            break;
        case OPT_REFRESH:
            o->refresh_viewer = optarg;
            break;
        case OPT_DIFFVIEW:
            o->diff_base = optarg;
            break;
        case 'q':
            o->quiet = true;
            break;
        case OPT_SUMMARY:
            if (strcmp(optarg, "short") != 0 && strcmp(optarg, "full") != 0) {
                fprintf(stderr, "csprof-prof: --summary: '%s' is not 'short' or 'full'\n", optarg);
                return PROF_EXIT_USAGE;
            }
            o->full_summary = strcmp(optarg, "full") == 0;
            break;
        case 'v':
            o->verbose = true;
            break;
        case 'h':
            prof_usage(stdout);
            return PROF_EXIT_OK;
        case 'V':
            printf("csprof-prof %s\n", CSPROF_VERSION);
            return PROF_EXIT_OK;
        case ':':
            fprintf(stderr, "csprof-prof: %s: option needs a value (try --help)\n",
                    argv[optind - 1]);
            return PROF_EXIT_USAGE;
        default:
            if (optopt != 0 && optopt < OPT_DUMP)
                fprintf(stderr, "csprof-prof: -%c: unknown option (try --help)\n", optopt);
            else
                fprintf(stderr, "csprof-prof: %s: unknown option (try --help)\n", argv[optind - 1]);
            return PROF_EXIT_USAGE;
        }
    }
    if (o->refresh_viewer != NULL && (o->diff_base != NULL || optind < argc)) {
        fputs("csprof-prof: --refresh-viewer takes one DB and no other argument\n", stderr);
        return PROF_EXIT_USAGE;
    }
    if (o->diff_base != NULL && (optind + 1 != argc || !o->db_given)) {
        fputs("csprof-prof: --diff-viewer BASE_DB needs one DB and -o DIFF_DB\n", stderr);
        return PROF_EXIT_USAGE;
    }
    if (optind >= argc && o->refresh_viewer == NULL) {
        fprintf(stderr, "csprof-prof: no %s given (try --help)\n",
                *dump ? "file to dump" : "measurement file or directory");
        return PROF_EXIT_USAGE;
    }
    return -1;
}

/* Write the viewer of @db (diff: @base -> @db) into @out; @db_read is @db already read (or
 * NULL).  -1 after printing why after @prefix. */
static int
prof_write_viewer(const char *db, const struct rpt_db *db_read, const char *base, const char *out,
                  const char *prefix)
{
    char err[512], msg[600];

    if (vw_write(db, db_read, base, out, err, sizeof err) < 0) {
        snprintf(msg, sizeof msg, "%s%s", prefix, err);
        prof_eprint(msg);
        return -1;
    }
    return 0;
}

/* Whether this process prints (csprof-prof-mpi: rank 0 alone). */
static bool
prof_prints(void)
{
#ifdef CSPROF_PROF_MPI
    return prof_mpi_rank() == 0;
#else
    return true;
#endif
}

/* Run @i as people read it: 'id 5f3a... (measurements, 2 files, 06:58:30)'. */
static void
prof_describe_run(const struct prof_ctx *ctx, size_t i, FILE *out)
{
    struct prof_run_info r;
    char when[32] = "";

    if (prof_run_info(ctx, i, &r) != PROF_OK)
        return;
    if (r.start_ns != 0) {
        time_t t = (time_t)(r.start_ns / 1000000000u);
        struct tm tm;

        if (localtime_r(&t, &tm) != NULL)
            strftime(when, sizeof when, ", started %Y-%m-%d %H:%M:%S", &tm);
    }
    fprintf(out, "run %zu = ", i + 1);
    if (r.id[0] != '\0')
        fprintf(out, "id %s", r.id);
    else
        fprintf(out, "files without a run id");
    fprintf(out, " (%s, %zu file%s%s)", r.where, r.files, r.files == 1 ? "" : "s", when);
}

/*
 * Measurements of several runs are merged only when --runs says how (docs/csrun.md, "Runs"): refuse
 * them otherwise, in one line naming the runs; with --runs, say what is merged.  Several
 * argument's files without a run id (older csprof) are summed as before: nothing tells
 * whether they are one run.  Returns 0, or -1 after refusing.
 */
static int
prof_check_runs(const struct prof_options *o, const struct prof_ctx *ctx)
{
    size_t n = prof_run_count(ctx), with_id = 0, shown = n < 4 ? n : 3;
    struct prof_run_info r;

    for (size_t i = 0; i < n; i++)
        if (prof_run_info(ctx, i, &r) == PROF_OK && r.id[0] != '\0')
            with_id++;
    if (n < 2 || (with_id == 0 && !o->runs_given))
        return 0;
    if (!prof_prints())
        return o->runs_given ? 0 : -1;
    if (!o->runs_given)
        fprintf(stderr, "csprof-prof: the measurements hold %zu runs: ", n);
    else
        fprintf(stderr, "csprof-prof: note: merged %zu runs, %s: ", n,
                o->runs == PROF_RUNS_SEPARATE ? "one column per run ('EVENT [run N]')"
                                              : "summed into one column per event");
    for (size_t i = 0; i < shown; i++) {
        fputs(i > 0 ? "; " : "", stderr);
        prof_describe_run(ctx, i, stderr);
    }
    if (shown < n)
        fprintf(stderr, "; and %zu more", n - shown);
    if (!o->runs_given)
        fputs("; merge them on purpose with --runs sum (one column per event) or --runs separate "
              "(one column per run), or give one run's files\n",
              stderr);
    else
        fputc('\n', stderr);
    return o->runs_given ? 0 : -1;
}

/* Analyze and write the database; returns the exit status. */
static int
prof_run(const struct prof_options *o, int nargs, char **args)
{
    char cache[PATH_MAX];
    /* The environment is read here, not in lib/profile. */
    struct prof_config cfg = {
        .verbose = o->verbose,
        .runs = o->runs,
        .jobs = o->jobs,
        .debug_dir = getenv("CSPROF_DEBUG_DIR"),
        .struct_cache_dir =
            struct_cache_dir(getenv("CSPROF_STRUCT_CACHE"), getenv("XDG_CACHE_HOME"),
                             getenv("HOME"), cache, sizeof(cache)),
    };
    struct prof_source_options src = {
        .roots = o->roots,
        .nroots = o->nroots,
        .replace_old = o->replace_old,
        .replace_new = o->replace_new,
        .nreplace = o->nreplace,
    };
    struct prof_summary summary;
    struct timespec t0, t1;
    struct prof_ctx *ctx = NULL;
    struct rpt_db *written = NULL; /* the database read back, for the viewer and summary */
    char db_err[512] = "";
    int status = PROF_EXIT_FAIL, rc, i;
    bool have_summary = false, viewer;
    size_t k;

    rc = prof_new(&cfg, &ctx);
    if (rc < 0)
        goto out_error;
    for (k = 0; k < o->nstructs; k++)
        if ((rc = prof_load_structure_file(ctx, o->structs[k])) < 0)
            goto out_error;
    for (i = 0; i < nargs; i++)
        if ((rc = prof_add_measurements(ctx, args[i])) < 0)
            goto out_error;
    if (prof_check_runs(o, ctx) < 0) {
        status = PROF_EXIT_USAGE;
        goto out_free;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
#ifdef CSPROF_PROF_MPI
    rc = prof_mpi_merge(ctx);
    if (prof_mpi_rank() != 0) { /* its part is with rank 0, which prints and writes */
        status = rc < 0 ? PROF_EXIT_FAIL : PROF_EXIT_OK;
        goto out_free;
    }
    if (rc < 0)
        goto out_error;
#else
    if ((rc = prof_merge(ctx)) < 0)
        goto out_error;
#endif
    clock_gettime(CLOCK_MONOTONIC, &t1);
    prof_print_messages(ctx);
    if (o->verbose)
        fprintf(stderr, "csprof-prof: note: measurement files read and merged in %.3f s (wall)\n",
                (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    for (k = 0; k < o->nderived; k++)
        if ((rc = prof_add_derived_metric(ctx, o->derived[k])) < 0) {
            status = PROF_EXIT_USAGE;
            goto out_error;
        }
    if ((rc = prof_finish(ctx)) < 0 || (rc = prof_summary_compute(ctx, o->top, &summary)) < 0)
        goto out_error;
    have_summary = true;

    if (mkdir(o->db, 0700) != 0 && errno != EEXIST) {
        fprintf(stderr, "csprof-prof: %s: cannot create the database directory: %s\n", o->db,
                strerror(errno));
        goto out_free;
    }
    if (prof_db_safe(o->db) < 0)
        goto out_free;
    if (o->nroots > 0 && (rc = prof_copy_sources(ctx, o->db, &src)) < 0)
        goto out_error;
    if ((rc = prof_write_database(ctx, &summary, o->db)) < 0)
        goto out_error;
    prof_print_messages(ctx);
    prof_copy_dtd(o->db, o->verbose);
    /* The viewer and the one-screen summary read the database back: once, for both. */
    if (rpt_db_read(o->db, &written, db_err, sizeof db_err) != RPT_OK)
        written = NULL;
    /* the database is complete without its viewer: a failure here is a warning */
    viewer = prof_write_viewer(o->db, written, NULL, o->db, "warning: viewer not written: ") == 0;
    if (!viewer)
        fprintf(stderr, "csprof-prof: note: retry with csprof-prof --refresh-viewer %s\n", o->db);

    printf("database: %s/experiment.xml\n", o->db);
    if (!o->quiet && o->full_summary)
        prof_summary_print(&summary, stdout);
    else if (!o->quiet)
        prof_print_screen(o, &summary, written, db_err[0] ? db_err : "out of memory", viewer,
                          stdout);
    status = fflush(stdout) == 0 ? PROF_EXIT_OK : PROF_EXIT_FAIL;
    goto out_free;

out_error:
    prof_print_error(ctx, rc);
out_free:
    rpt_db_free(written);
    if (have_summary)
        prof_summary_free(&summary);
    prof_free(ctx);
    return status;
}

int
main(int argc, char **argv)
{
    struct prof_options o = {.db = PROF_DEFAULT_DB, .top = 10, .jobs = prof_default_jobs()};
    bool dump = false;
    int status;
    size_t k;

#ifdef CSPROF_PROF_MPI
    if (prof_mpi_init(&argc, &argv) < 0)
        return PROF_EXIT_FAIL;
#endif
    status = prof_parse_options(argc, argv, &o, &dump);
    if (status >= 0)
        goto out_free;
    if (dump) {
        status = prof_dump_files(argv + optind, argc - optind);
        goto out_free;
    }
    LIBXML_TEST_VERSION
    status = PROF_EXIT_FAIL;
    if (o.refresh_viewer != NULL || o.diff_base != NULL) {
        if (o.refresh_viewer != NULL)
            status = prof_write_viewer(o.refresh_viewer, NULL, NULL, o.refresh_viewer, "");
        else
            status = prof_write_viewer(argv[optind], NULL, o.diff_base, o.db, "");
        status = status < 0 ? PROF_EXIT_FAIL : PROF_EXIT_OK;
        xmlCleanupParser();
        goto out_free;
    }
#ifdef CSPROF_PROF_MPI
    /* Rank 0 alone looks at (and writes) the database directory. */
    if (prof_mpi_bcast_int(prof_mpi_rank() == 0 ? prof_check_db(&o) : 0) == 0)
        status = prof_run(&o, argc - optind, argv + optind);
#else
    if (prof_check_db(&o) == 0)
        status = prof_run(&o, argc - optind, argv + optind);
#endif
    xmlCleanupParser();
out_free:
    for (k = 0; k < o.nreplace; k++)
        free((char *)o.replace_old[k]);
    free(o.structs);
    free(o.derived);
    free(o.roots);
    free(o.replace_old);
    free(o.replace_new);
#ifdef CSPROF_PROF_MPI
    prof_mpi_finalize();
#endif
    return status;
}
