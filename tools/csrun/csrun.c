/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * csrun.c -- launch a program with the csprof monitor preloaded.
 *
 *   csrun [-e EVENT[@PERIOD]]... [-o DIR] [--append] [-q] [--] program [args...]
 *   csrun -L [--available]
 *
 * Validates every option before the program starts (a bad one is one line
 * on stderr and exit status 2; the program is not run) -- a perf event is
 * opened once here, so one this machine cannot sample is refused with the
 * reason (lib/support/pmu.h) before the program runs --, refuses the same
 * way a program the monitor cannot be preloaded into (static, setuid,
 * setgid, file capabilities, 32-bit: see check_program), creates the
 * measurement directory -- and refuses one that holds another run's
 * measurement files, unless --append (check_other_runs) --, gives the run its
 * run id (make_run_id), sets CSPROF_* and appends libcsprof.so to
 * LD_PRELOAD, then runs the program as a child and waits for it.  When it
 * ends, csrun reads the profiles the run wrote and prints a summary to
 * stderr (samples per event and the rate they came at, and the trust
 * report of lib/trust: where each event's value went, csprof's own cost, a
 * verdict), then exits with the program's status -- or dies of the
 * program's signal.  Tool code: ordinary context.
 */
#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "fmt/fmt.h"
#include "support/event_spec.h"
#include "support/install.h"
#include "support/pmu.h"
#include "trust/trust.h"

#define MAX_EVENTS 8

static void
usage(FILE *out)
{
    fprintf(
        out,
        "usage: csrun [options] [--] program [args...]\n"
        "Profile a program: sample its call paths into per-thread profiles.\n\n"
        "  -e, --event EVENT[@PERIOD]  sample EVENT every PERIOD (repeatable; default CPUTIME@5000)\n"
        "                              EVENT: CPUTIME, REALTIME, a PAPI preset (PAPI_TOT_CYC...) or a\n"
        "                              libpfm4 name (perf::PAGE-FAULTS, INST_RETIRED:ANY_P...); PERIOD\n"
        "                              of a perf event: events between samples, or fFREQ (Hz)\n"
        "                              of MEMALLOC, MEMLEAK, IO, IO_READ, IO_WRITE: mean bytes\n"
        "                              between samples (512K by default; K, M, G suffixes)\n"
        "  -o, --output DIR            measurement directory (default: measurements); one that\n"
        "                              holds another run's files is refused\n"
        "      --append                add this run to a directory that holds another run's\n"
        "                              files (csprof-prof then needs --runs sum|separate)\n"
        "  -q, --quiet                 no summary after the run\n"
        "      --no-trampoline         full stack walks, no call counts (default: trampoline on)\n"
        "      --no-follow             profile only this process, not its forked or exec'd "
        "children\n"
        "  -L, --list-events           list the events, each available here or not (also -l);\n"
        "                              with --available, only those this machine can sample\n"
        "  -h, --help                  this help\n"
        "  -V, --version               version\n\n"
        "Events:\n");
    for (size_t i = 0; i < evspec_nevents; i++)
        fprintf(out, "  %-10s %s\n", evspec_events[i].name, evspec_events[i].what);
    fprintf(out, "  and perf events: csrun -L lists them, each marked available here or not\n");
    fprintf(out,
            "\nThen:\n"
            "  csprof-prof DIR -o DB         analyze the measurements into the database DB\n"
            "  csprof-report DB              its views in the terminal (--view, --help)\n"
            "  open DB/index.html            the viewer, in any browser, from the file system\n"
            "  (csprof-struct PROGRAM > PROGRAM.struct, then csprof-prof -S PROGRAM.struct ...,\n"
            "  is optional: csprof-prof analyzes every program and library itself)\n");
}

/* Edit distance of @a and @b, letters compared in any case (both under 64 bytes, else big). */
static size_t
name_distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b), row[64], prev, cur;

    if (n >= 64 || m >= 64)
        return SIZE_MAX;
    for (size_t j = 0; j <= m; j++)
        row[j] = j;
    for (size_t i = 1; i <= n; i++) {
        prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t sub =
                prev + (toupper((unsigned char)a[i - 1]) != toupper((unsigned char)b[j - 1]));

            cur = row[j];
            row[j] = sub < row[j] + 1 ? sub : row[j] + 1;
            if (row[j - 1] + 1 < row[j])
                row[j] = row[j - 1] + 1;
            prev = cur;
        }
    }
    return row[m];
}

/* The named event or PAPI preset closest to @name, when it is a likely typo (two edits at
 * most); NULL otherwise. */
static const char *
likely_event(const char *name)
{
    const char *best = NULL;
    size_t d, best_d = 3;

    for (size_t i = 0; i < evspec_nevents; i++)
        if ((d = name_distance(name, evspec_events[i].name)) < best_d) {
            best = evspec_events[i].name;
            best_d = d;
        }
    for (int i = 0; i < EVSPEC_NPRESETS; i++)
        if ((d = name_distance(name, evspec_presets[i].name)) < best_d) {
            best = evspec_presets[i].name;
            best_d = d;
        }
    return best;
}

/* Parse and check "NAME[@PERIOD]"; on error print one line and return -1. */
static int
parse_event(const char *spec, struct evspec *ev)
{
    char why[1536];
    const char *near;

    if (evspec_parse(spec, strlen(spec), ev, why, sizeof(why)) < 0) {
        fprintf(stderr, "csrun: -e '%s': %s (csrun -L lists the events)\n", spec, why);
        return -1;
    }
    if (ev->kind == EVSPEC_PERF && pmu_probe(ev, why, sizeof(why)) < 0) {
        /* Not a perf event either: a typo of a name csprof knows is no question of the PMU. */
        if (!ev->preset && strstr(ev->name, "::") == NULL &&
            (near = likely_event(ev->name)) != NULL) {
            fprintf(stderr,
                    "csrun: -e '%s': unknown event '%s': did you mean %s? (csrun -L lists the "
                    "events)\n",
                    spec, ev->name, near);
            return -1;
        }
        fprintf(stderr, "csrun: -e '%s': cannot sample %s on this machine: %s\n", spec, ev->name,
                why);
        return -1;
    }
    return 0;
}

/*
 * pmu_list()'s text with only the events available here: an entry line ("  NAME  not
 * available: ...") and the description lines under it ("  " and 31 blanks) are left out;
 * headings are kept, with "(none available here)" under a heading that keeps no entry.
 */
static void
print_available(FILE *out, const char *text)
{
    bool skipping = false, heading_open = false;

    while (*text != '\0') {
        size_t len = strcspn(text, "\n");
        bool entry = len > 2 && text[0] == ' ' && text[1] == ' ' && text[2] != ' ';
        bool detail = len > 2 && text[0] == ' ' && text[1] == ' ' && text[2] == ' ';

        if (entry)
            skipping = memmem(text, len, " not available", 14) != NULL;
        if (entry && !skipping)
            heading_open = false;
        if (!entry && !detail) { /* a heading, a blank line or the closing note */
            if (heading_open)
                fprintf(out, "  (none available here)\n");
            heading_open = len > 0 && text[len - 1] == ':';
            skipping = false;
        }
        if (!skipping)
            fprintf(out, "%.*s\n", (int)len, text);
        text += len + (text[len] == '\n');
    }
    if (heading_open)
        fprintf(out, "  (none available here)\n");
}

/* csrun -L: the time events, the byte events, then the perf events with their availability
 * here (@available_only: only the available ones). */
static int
list_events(FILE *out, bool available_only)
{
    char *perf = NULL;
    size_t perf_len = 0;
    FILE *mem;

    fprintf(out, "Time events (always available):\n");
    for (size_t i = 0; i < evspec_nevents; i++)
        if (evspec_events[i].kind != EVSPEC_BYTES)
            fprintf(out, "  %-28s %s\n", evspec_events[i].name, evspec_events[i].what);
    fprintf(out, "\nByte events (synchronous, always available):\n");
    for (size_t i = 0; i < evspec_nevents; i++)
        if (evspec_events[i].kind == EVSPEC_BYTES)
            fprintf(out, "  %-28s %s\n", evspec_events[i].name, evspec_events[i].what);
    fprintf(out, "\n");
    if (!available_only) {
        pmu_list(out);
        return 0;
    }
    mem = open_memstream(&perf, &perf_len);
    if (mem == NULL) {
        fprintf(stderr, "csrun: -L: %s\n", strerror(errno));
        return 1;
    }
    pmu_list(mem);
    if (fclose(mem) != 0) {
        free(perf);
        fprintf(stderr, "csrun: -L: out of memory\n");
        return 1;
    }
    print_available(out, perf);
    free(perf);
    return 0;
}

/*
 * What the ELF file @path asks of the loader: *class (ELFCLASS32/64),
 * *type (ET_EXEC/ET_DYN...) and its PT_INTERP into @interp ("" when it has
 * none: linked statically, or the loader itself).  Returns 1 for an ELF
 * file, 0 for anything else (a script: exec decides), -1 when unreadable.
 */
static int
read_elf_interp(const char *path, int *class, int *type, char *interp, size_t size)
{
    unsigned char ident[EI_NIDENT];
    Elf64_Ehdr eh;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc = -1;

    interp[0] = '\0';
    if (fd < 0)
        return -1;
    if (pread(fd, ident, sizeof(ident), 0) != (ssize_t)sizeof(ident) ||
        memcmp(ident, ELFMAG, SELFMAG) != 0) {
        rc = 0;
        goto out_close_fd;
    }
    *class = ident[EI_CLASS];
    rc = 1;
    if (*class != ELFCLASS64 || pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh))
        goto out_close_fd;
    *type = eh.e_type;
    for (unsigned i = 0; i < eh.e_phnum && i < 4096; i++) {
        Elf64_Phdr ph;

        if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (Elf64_Off)i * eh.e_phentsize)) !=
            (ssize_t)sizeof(ph))
            break;
        if (ph.p_type == PT_INTERP && ph.p_filesz > 0 && ph.p_filesz < size) {
            if (pread(fd, interp, ph.p_filesz, (off_t)ph.p_offset) != (ssize_t)ph.p_filesz)
                interp[0] = '\0';
            else
                interp[ph.p_filesz - 1] = '\0';
            break;
        }
    }
out_close_fd:
    close(fd);
    return rc;
}

/* The file execvp would run for @prog, into @out; false when there is none (exec reports it). */
static bool
find_program(const char *prog, char *out, size_t size)
{
    const char *path = getenv("PATH");

    if (strchr(prog, '/') != NULL) {
        snprintf(out, size, "%s", prog);
        return access(out, F_OK) == 0;
    }
    if (path == NULL)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path != '\0') {
        size_t len = strcspn(path, ":");
        struct stat st;

        snprintf(out, size, "%.*s%s%s", (int)len, path, len ? "/" : "", prog);
        if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
            return true;
        path += len;
        if (*path == ':')
            path++;
    }
    return false;
}

/*
 * Refuse, before it runs, a program the monitor cannot be preloaded into:
 * one the loader would run in secure-execution mode (ld.so(8): setuid or
 * setgid to someone else, or gaining file capabilities; the preload is then
 * ignored), one linked statically (no loader at all), or a 32-bit one.
 * Prints one line and returns -1; 0 when the program can be profiled or
 * when exec itself will report the problem.  Scripts are not inspected:
 * what they run is profiled if it can be.
 */
static int
check_program(const char *prog)
{
    char path[PATH_MAX], interp[PATH_MAX], self_interp[PATH_MAX], a[PATH_MAX], b[PATH_MAX];
    int class = 0, type = 0, self_class = 0, self_type = 0;
    bool nosuid = false;
    struct statvfs vfs;
    struct stat st;

    if (!find_program(prog, path, sizeof(path)) || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
        return 0;
    nosuid = statvfs(path, &vfs) == 0 && (vfs.f_flag & ST_NOSUID) != 0;
    if (!nosuid && (st.st_mode & S_ISUID) != 0 && st.st_uid != getuid()) {
        fprintf(stderr,
                "csrun: '%s' is setuid (owner uid %u): the loader runs it in secure mode and "
                "ignores LD_PRELOAD, so csprof cannot profile it (profile a copy without the "
                "setuid bit)\n",
                path, (unsigned)st.st_uid);
        return -1;
    }
    if (!nosuid && (st.st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP) &&
        st.st_gid != getgid()) {
        fprintf(stderr,
                "csrun: '%s' is setgid (group %u): the loader runs it in secure mode and ignores "
                "LD_PRELOAD, so csprof cannot profile it (profile a copy without the setgid "
                "bit)\n",
                path, (unsigned)st.st_gid);
        return -1;
    }
    if (!nosuid && getuid() != 0 && getxattr(path, "security.capability", NULL, 0) > 0) {
        fprintf(stderr,
                "csrun: '%s' has file capabilities (getcap shows them): the loader runs it in "
                "secure mode and ignores LD_PRELOAD, so csprof cannot profile it (profile a copy "
                "without capabilities)\n",
                path);
        return -1;
    }
    if (read_elf_interp(path, &class, &type, interp, sizeof(interp)) != 1)
        return 0;
    if (class != ELFCLASS64) {
        fprintf(stderr,
                "csrun: '%s' is a 32-bit executable: libcsprof.so is 64-bit and the loader "
                "would skip it, so csprof cannot profile it\n",
                path);
        return -1;
    }
    if (interp[0] != '\0' || (type != ET_EXEC && type != ET_DYN))
        return 0;
    /* No PT_INTERP: a static executable, or the loader run by hand ("ld.so PROGRAM"), which
     * honours LD_PRELOAD.  The loader is the one csrun itself names. */
    if (read_elf_interp("/proc/self/exe", &self_class, &self_type, self_interp,
                        sizeof(self_interp)) == 1 &&
        self_interp[0] != '\0' && realpath(self_interp, a) != NULL && realpath(path, b) != NULL &&
        strcmp(a, b) == 0)
        return 0;
    fprintf(stderr,
            "csrun: '%s' is statically linked: there is no dynamic loader to preload "
            "libcsprof.so, so csprof cannot profile it (link it dynamically)\n",
            path);
    return -1;
}

/* Directory of this executable, for finding ../lib/csprof/libcsprof.so. */
static int
find_monitor(char *out, size_t size)
{
    const char *env = getenv("CSPROF_LIB");

    if (env != NULL && env[0] != '\0') {
        snprintf(out, size, "%s", env);
    } else if (csp_install_path("lib/csprof/libcsprof.so", out, size) < 0) {
        fprintf(stderr,
                "csrun: cannot locate the monitor library beside csrun (/proc/self/exe): %s\n",
                strerror(errno));
        return -1;
    }
    if (access(out, R_OK) != 0) {
        fprintf(stderr, "csrun: monitor library %s: %s (set CSPROF_LIB to its path)\n", out,
                strerror(errno));
        return -1;
    }
    return 0;
}

static int
make_dir(const char *dir)
{
    char buf[PATH_MAX];
    struct stat st;

    if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf)) {
        fprintf(stderr, "csrun: -o '%s': path too long\n", dir);
        return -1;
    }
    for (char *p = buf + 1; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) < 0 && errno != EEXIST) {
            fprintf(stderr, "csrun: -o '%s': cannot create %s: %s\n", dir, buf, strerror(errno));
            return -1;
        }
        *p = '/';
    }
    /* Profiles hold command lines, paths and addresses: only the user may read them. */
    if (mkdir(buf, 0700) < 0 && errno != EEXIST) {
        fprintf(stderr, "csrun: -o '%s': cannot create it: %s\n", dir, strerror(errno));
        return -1;
    }
    if (lstat(buf, &st) == 0 && S_ISLNK(st.st_mode)) {
        fprintf(stderr, "csrun: -o '%s': is a symbolic link (csprof never writes through one)\n",
                dir);
        return -1;
    }
    if (lstat(buf, &st) < 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "csrun: -o '%s': exists and is not a directory\n", dir);
        return -1;
    }
    if (st.st_uid != geteuid()) {
        fprintf(stderr, "csrun: -o '%s': owned by another user (uid %u), not writing there\n", dir,
                (unsigned)st.st_uid);
        return -1;
    }
    if ((st.st_mode & (S_IWOTH | S_ISVTX)) == S_IWOTH) {
        fprintf(
            stderr,
            "csrun: -o '%s': writable by every user without the sticky bit, not writing there (chmod o-w)\n",
            dir);
        return -1;
    }
    if (access(buf, W_OK) != 0) {
        fprintf(stderr, "csrun: -o '%s': not writable: %s\n", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* FNV-1a, 64 bits, of @s continuing @h. */
static uint64_t
fnv1a(uint64_t h, const char *s)
{
    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

/* The start time of process @pid in clock ticks since boot (/proc/PID/stat field 22), or 0. */
static unsigned long long
process_start_ticks(pid_t pid)
{
    char path[64], buf[1024];
    unsigned long long ticks = 0;
    const char *p;
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    p = strrchr(buf, ')'); /* the command name may hold blanks and parentheses */
    for (int field = 2; p != NULL && field < 22; field++)
        p = strchr(p + 1, ' ');
    if (p != NULL)
        ticks = strtoull(p + 1, NULL, 10);
    return ticks;
}

/*
 * The run id every file of this run carries (docs/csrun.md, "Runs"), into @id:
 *  - CSPROF_RUN_ID when the environment has it (several csrun commands made one run);
 *  - under an MPI launcher (the rank variables the monitor reads, lib/monitor/mpi.c),
 *    "mpi-" and a hash of the job's identity, the same in every rank's csrun: Open MPI's
 *    and PMIx's job (PMIX_NAMESPACE, OMPI_MCA_ess_base_jobid and the job's random
 *    OMPI_MCA_orte_precondition_transports), Slurm's job step; with none of these (MPICH's
 *    hydra), the launching process (csrun's parent and its start time), one per host;
 *  - else 64 random bits, as 16 hex digits.
 * Returns 0, or -1 after printing why CSPROF_RUN_ID is refused.
 */
static int
make_run_id(char *id, size_t size)
{
    static const char *const job[] = {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid",
                                      "OMPI_MCA_orte_precondition_transports", "SLURM_JOB_ID",
                                      "SLURM_STEP_ID"};
    const char *given = getenv("CSPROF_RUN_ID");
    uint64_t h = 0xcbf29ce484222325ull, r;
    bool mpi, keyed = false;

    if (given != NULL && given[0] != '\0') {
        if (strlen(given) > FMT_RUN_ID_MAX || strspn(given, FMT_RUN_ID_CHARS) != strlen(given)) {
            fprintf(stderr,
                    "csrun: CSPROF_RUN_ID='%.80s': a run id is 1 to %d of A-Z a-z 0-9 . _ : -\n",
                    given, FMT_RUN_ID_MAX);
            return -1;
        }
        snprintf(id, size, "%s", given);
        return 0;
    }
    mpi = getenv("OMPI_COMM_WORLD_RANK") != NULL || getenv("PMI_RANK") != NULL ||
          (getenv("SLURM_PROCID") != NULL && getenv("SLURM_STEP_ID") != NULL);
    if (mpi) {
        for (size_t i = 0; i < sizeof(job) / sizeof(job[0]); i++) {
            const char *v = getenv(job[i]);

            if (v != NULL) {
                h = fnv1a(fnv1a(fnv1a(h, job[i]), "="), v);
                keyed = true;
            }
        }
        if (!keyed) {
            char parent[64];

            snprintf(parent, sizeof(parent), "%d@%llu", (int)getppid(),
                     process_start_ticks(getppid()));
            h = fnv1a(h, parent);
        }
        snprintf(id, size, "mpi-%016llx", (unsigned long long)h);
        return 0;
    }
    if (getrandom(&r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
        struct timespec ts;
        char seed[64];

        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(seed, sizeof(seed), "%lld.%ld.%d", (long long)ts.tv_sec, ts.tv_nsec,
                 (int)getpid());
        r = fnv1a(h, seed);
    }
    snprintf(id, size, "%016llx", (unsigned long long)r);
    return 0;
}

/*
 * Refuse (one line, -1) a measurement directory that holds measurement files of a run other
 * than @run_id: files of another run id, or written without one (csprof before run ids, a
 * monitor preloaded by hand).  Files whose first record cannot be read yet (being written by
 * another rank of this run, empty, damaged) hold no run to mix with and are not counted.
 */
static int
check_other_runs(const char *dir, const char *shown, const char *run_id)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    size_t other = 0;
    char first[FMT_RUN_ID_MAX + 1] = "", when[64] = "";
    uint64_t first_ns = 0;

    if (d == NULL)
        return 0;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        char path[PATH_MAX + 256], id[FMT_RUN_ID_MAX + 1];
        uint64_t start_ns = 0;

        if (len < 6 || strcmp(de->d_name + len - 5, ".cspm") != 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        if (fmt_peek_run_id(path, id, sizeof(id), &start_ns, NULL, 0) < 0 ||
            strcmp(id, run_id) == 0)
            continue;
        if (other++ == 0 || (start_ns != 0 && start_ns < first_ns)) {
            snprintf(first, sizeof(first), "%s", id);
            first_ns = start_ns;
        }
    }
    closedir(d);
    if (other == 0)
        return 0;
    if (first_ns != 0) {
        time_t t = (time_t)(first_ns / 1000000000u);
        struct tm tm;

        if (localtime_r(&t, &tm) != NULL)
            strftime(when, sizeof(when), ", started %Y-%m-%d %H:%M:%S", &tm);
    }
    fprintf(stderr,
            "csrun: -o '%s' holds %zu measurement file(s) of another run (%s%s%s): measure into "
            "another directory (-o DIR), remove them, or add this run to them on purpose "
            "(--append; csprof-prof then asks for --runs)\n",
            shown, other, first[0] != '\0' ? "run " : "written without a run id", first, when);
    return -1;
}

/* Names of the *.cspm files in @dir (malloc'ed list, NULL-terminated). */
static char **
list_profiles(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char **names = NULL;
    size_t n = 0, cap = 0;

    *count = 0;
    if (d == NULL)
        return NULL;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);

        if (len < 6 || strcmp(de->d_name + len - 5, ".cspm") != 0)
            continue;
        if (n + 1 >= cap) {
            char **grown = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof(*names));

            if (grown == NULL)
                break;
            names = grown;
        }
        names[n] = strdup(de->d_name);
        if (names[n] != NULL)
            n++;
    }
    closedir(d);
    if (names != NULL)
        names[n] = NULL;
    *count = n;
    return names;
}

static bool
in_list(char **list, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], name) == 0)
            return true;
    return false;
}

static void
free_list(char **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

/* What csrun adds up from the profiles besides the trust report (lib/trust). */
/* One record's thread: its process (pid << 32 | generation) and its index there. */
struct run_thread {
    uint64_t proc;
    uint32_t index;
};

struct run_totals {
    size_t files, unreadable;
    uint64_t not_followed;                /* execs whose environment dropped csprof */
    uint64_t untracked, untracked_cpu_ns; /* threads alive at the end without a profile */
    uint64_t wall_ns;                     /* threads' wall time (REALTIME's rate) */
    uint64_t enabled_ns[MAX_EVENTS], running_ns[MAX_EVENTS]; /* perf events: multiplexing */
    char mechanism[MAX_EVENTS][64];
    struct run_thread *procs; /* (pid << 32 | generation, thread index) of each record:
                                 processes and threads as csprof-prof counts them (an exec'd
                                 image is the same process, its thread the same thread) */
    size_t nprocs, procs_cap;
};

static int
cmp_thread(const void *a, const void *b)
{
    const struct run_thread *x = a, *y = b;

    if (x->proc != y->proc)
        return x->proc < y->proc ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The distinct processes and threads among @t's records (sorts them). */
static void
count_threads(struct run_totals *t, size_t *processes, size_t *threads)
{
    *processes = *threads = 0;
    qsort(t->procs, t->nprocs, sizeof(*t->procs), cmp_thread);
    for (size_t i = 0; i < t->nprocs; i++) {
        *processes += i == 0 || t->procs[i].proc != t->procs[i - 1].proc;
        *threads += i == 0 || cmp_thread(&t->procs[i], &t->procs[i - 1]) != 0;
    }
}

static void
add_profile(struct run_totals *t, struct trust_run *run, const struct fmt_profile *p,
            const struct evspec *events, size_t nevents)
{
    struct trust_thread th;

    if (t->nprocs == t->procs_cap) {
        size_t cap = t->procs_cap ? 2 * t->procs_cap : 64;
        struct run_thread *grown = realloc(t->procs, cap * sizeof(*grown));

        if (grown != NULL) {
            t->procs = grown;
            t->procs_cap = cap;
        }
    }
    if (t->nprocs < t->procs_cap)
        t->procs[t->nprocs++] = (struct run_thread){
            (uint64_t)p->header.pid << 32 | p->header.generation, p->header.thread_index};
    t->not_followed += fmt_profile_stat(p, "exec.not_followed");
    t->untracked += fmt_profile_stat(p, "threads.untracked");
    t->untracked_cpu_ns += fmt_profile_stat(p, "threads.untracked.cpu_ns");
    if (p->header.end_ns > p->header.start_ns)
        t->wall_ns += p->header.end_ns - p->header.start_ns;
    for (size_t e = 0; e < nevents; e++) {
        char name[sizeof(events[e].name) + 32];

        snprintf(name, sizeof(name), "event.%.127s.enabled_ns", events[e].name);
        t->enabled_ns[e] += fmt_profile_stat(p, name);
        snprintf(name, sizeof(name), "event.%.127s.running_ns", events[e].name);
        t->running_ns[e] += fmt_profile_stat(p, name);
        for (uint32_t i = 0; i < p->nevents; i++)
            if (strcmp(p->events[i].name, events[e].name) == 0)
                snprintf(t->mechanism[e], sizeof(t->mechanism[e]), "%s", p->events[i].mechanism);
    }
    if (trust_thread_read(p, &th) == 0)
        trust_run_add(run, &th);
}

/* The run's samples of the event named @name (every thread's), 0 when none. */
static uint64_t
event_samples(const struct trust_run *run, const char *name)
{
    uint64_t n = 0;

    for (uint32_t i = 0; i < run->nevents; i++)
        if (strcmp(run->ev[i].name, name) == 0)
            n += run->ev[i].samples;
    return n;
}

/* The run's value of the event named @name in its trees (raw unit), and in *periods the
 * periods its ledger recorded (samples' worth: merged timer expirations included). */
static uint64_t
event_value(const struct trust_run *run, const char *name, double *periods)
{
    uint64_t v = 0;

    *periods = 0;
    for (uint32_t i = 0; i < run->nevents; i++)
        if (strcmp(run->ev[i].name, name) == 0) {
            v += run->ev[i].tree_value;
            if (run->ev[i].has_ledger)
                *periods += trust_samples_of(&run->ev[i], (double)run->ev[i].l.recorded);
        }
    return v;
}

/* @bytes for people: "6.2 MiB" (binary units), into @buf. */
static const char *
human_bytes(uint64_t bytes, char *buf, size_t size)
{
    static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = 0;

    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, size, "%llu bytes", (unsigned long long)bytes);
    else
        snprintf(buf, size, "%.1f %s", v, unit[u]);
    return buf;
}

/*
 * One line per event: its samples, and the rate they came at.  A perf
 * event also says whether the kernel multiplexed its counter (counted less
 * time than it was enabled), in which case the values were scaled by
 * enabled/running time.
 */
static void
print_event(const struct run_totals *t, const struct trust_run *run, const struct evspec *ev,
            size_t e)
{
    uint64_t samples = event_samples(run, ev->name);

    if (ev->kind == EVSPEC_PERF) {
        double share =
            t->enabled_ns[e] > 0 ? (double)t->running_ns[e] / (double)t->enabled_ns[e] : 1;

        fprintf(stderr, "csprof: %s@%s%llu (%s): %llu samples", ev->name, ev->freq ? "f" : "",
                ev->period, t->mechanism[e], (unsigned long long)samples);
        if (share < 0.999)
            fprintf(stderr,
                    "; multiplexed: the counter ran %.1f%% of the time it was enabled, values "
                    "are scaled by enabled/running time",
                    100 * share);
        fprintf(stderr, "\n");
    } else if (strcmp(ev->name, "MEMLEAK") == 0) {
        /* Its samples are allocations sampled; its value, the sampled blocks still allocated
         * when their thread's profile was written (docs/csrun.md, "Bytes"). */
        double periods;
        uint64_t live = event_value(run, ev->name, &periods);
        char human[32];

        fprintf(stderr,
                "csprof: %s@%llu (%s): %llu allocations sampled (a sample point every %llu bytes "
                "allocated, on average); %s",
                ev->name, ev->period, t->mechanism[e], (unsigned long long)samples, ev->period,
                live == 0 ? "none still allocated when the profiles were written: no leak found\n"
                          : "");
        if (live > 0)
            fprintf(stderr,
                    "those still allocated when the profiles were written stand for %llu bytes "
                    "(%s): the leaks, by allocating context\n",
                    (unsigned long long)live, human_bytes(live, human, sizeof(human)));
    } else if (ev->kind == EVSPEC_BYTES) { /* synchronous: samples follow the bytes, not time */
        fprintf(stderr, "csprof: %s@%llu (%s): %llu samples, one per %llu bytes on average\n",
                ev->name, ev->period, t->mechanism[e], (unsigned long long)samples, ev->period);
    } else {
        /* CPU time is sampled per CPU-second of the threads, real time per thread-second. */
        bool cpu = ev->kind == EVSPEC_CPUTIME;
        double secs = (double)(cpu ? run->cpu_ns : t->wall_ns) / 1e9;

        double periods;

        event_value(run, ev->name, &periods);
        fprintf(stderr,
                "csprof: %s@%llu (%s): %llu samples, %.1f samples per %s-second over %.3f s "
                "(requested %.1f)",
                ev->name, ev->period, t->mechanism[e], (unsigned long long)samples,
                secs > 0 ? (double)samples / secs : 0.0, cpu ? "CPU" : "thread", secs,
                1e6 / (double)ev->period);
        /* A timer merges the expirations of a waiting thread into one signal, charged them
         * all: few samples, none missing (the trust report's ledger). */
        if (!cpu && periods > 1.5 * (double)samples && periods >= (double)samples + 10)
            fprintf(stderr,
                    "; they carry %.0f periods: a waiting thread's timer expirations are merged "
                    "into its next sample",
                    periods);
        fputc('\n', stderr);
    }
}

static void
print_summary(const char *dir, const char *run_id, char **before, size_t nbefore,
              const struct evspec *events, size_t nevents)
{
    struct run_totals t;
    struct trust_run run;
    size_t nthreads;
    struct trust_verdict verdict;
    size_t nafter;
    char **after = list_profiles(dir, &nafter);

    memset(&t, 0, sizeof(t));
    trust_run_init(&run);
    for (size_t i = 0; i < nafter; i++) {
        char path[PATH_MAX + 256], err[512];
        struct fmt_record_set set;

        if (in_list(before, nbefore, after[i]))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, after[i]);
        t.files++;
        /* One file per process, one record per thread (mon_write.h). */
        if (fmt_read_records(path, &set, err, sizeof(err)) < 0) {
            fprintf(stderr, "csprof: %s\n", err);
            t.unreadable++;
            continue;
        }
        if (set.damaged > 0) {
            fprintf(stderr, "csprof: %s\n", err);
            t.unreadable++;
        }
        for (size_t k = 0; k < set.nprofiles; k++)
            add_profile(&t, &run, set.profiles[k], events, nevents);
        fmt_record_set_free(&set);
    }
    free_list(after, nafter);
    if (run.threads == 0) {
        free(t.procs);
        fprintf(stderr, "csprof: no profile was written to %s (did the program run?)\n", dir);
        return;
    }
    count_threads(&t, &run.processes, &nthreads);
    free(t.procs);
    /* (threads and processes as csprof-prof counts them; a thread that exec'd has a profile
       per program) */
    if (nthreads == run.threads)
        fprintf(stderr, "csprof: %zu thread(s) in %zu process(es) profiled in %s (run %s)%s\n",
                nthreads, run.processes, dir, run_id,
                t.unreadable ? " (some files unreadable, see above)" : "");
    else
        fprintf(stderr,
                "csprof: %zu thread(s) in %zu process(es) profiled in %s (run %s; %zu profiles: "
                "one per program a thread ran)%s\n",
                nthreads, run.processes, dir, run_id, run.threads,
                t.unreadable ? " (some files unreadable, see above)" : "");
    if (t.untracked > 0)
        fprintf(stderr,
                "csprof: %llu thread(s) not profiled (created outside pthread_create, or while "
                "sampling was stopped): %.3f CPU-seconds\n",
                (unsigned long long)t.untracked, (double)t.untracked_cpu_ns / 1e9);
    if (t.not_followed > 0)
        fprintf(stderr,
                "csprof: %llu exec'd program(s) not followed: their environment dropped "
                "LD_PRELOAD's libcsprof.so or CSPROF_OUTDIR\n",
                (unsigned long long)t.not_followed);
    for (size_t e = 0; e < nevents; e++)
        print_event(&t, &run, &events[e], e);
    trust_judge(&run, &verdict);
    trust_print(stderr, "csprof: ", &run, &verdict, true);
}

/*
 * `csrun mpirun ...`: csrun outside the MPI launcher profiles the launcher
 * (and, through the environment it passes on, the ranks it starts on this
 * host only).  Say once which form is meant; the run goes on.
 */
static void
warn_if_launcher(const char *program)
{
    static const char *const launchers[] = {"mpirun",        "mpiexec",         "orterun",
                                            "mpiexec.hydra", "mpiexec.openmpi", "mpirun.openmpi",
                                            "mpiexec.mpich", "mpirun.mpich",    "srun",
                                            "prun",          "aprun",           "jsrun"};
    const char *base = strrchr(program, '/');

    base = base != NULL ? base + 1 : program;
    for (size_t i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++)
        if (strcmp(base, launchers[i]) == 0) {
            fprintf(
                stderr,
                "csrun: warning: '%s' is an MPI launcher: csrun profiles it, not the ranks of other hosts; put csrun inside it: %s [options] csrun [csrun options] app [args]\n",
                base, base);
            return;
        }
}

static pid_t child_pid;

static void
forward_signal(int sig)
{
    if (child_pid > 0)
        kill(child_pid, sig);
}

int
main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"event", required_argument, NULL, 'e'},
        {"output", required_argument, NULL, 'o'},
        {"quiet", no_argument, NULL, 'q'},
        {"list-events", no_argument, NULL, 'L'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {"no-trampoline", no_argument, NULL, 'T'},
        {"no-follow", no_argument, NULL, 'F'},
        {"append", no_argument, NULL, 'A'},
        {"available", no_argument, NULL, 'a'},
        {NULL, 0, NULL, 0},
    };
    struct evspec events[MAX_EVENTS];
    size_t nevents = 0, nbefore = 0;
    const char *outdir = "measurements";
    char monitor[PATH_MAX], absdir[PATH_MAX], evlist[MAX_EVENTS * 160] = "", preload[8192];
    char run_id[FMT_RUN_ID_MAX + 1];
    char **before;
    const char *old_preload;
    bool quiet = false, trampoline = true, follow = true, append = false, list = false;
    bool available = false;
    int opt, status, exec_pipe[2], exec_errno = 0;
    bool exec_failed;

    while ((opt = getopt_long(argc, argv, "+e:o:qlLhV", longopts, NULL)) != -1) {
        switch (opt) {
        case 'e':
            if (nevents == MAX_EVENTS) {
                fprintf(stderr, "csrun: -e '%s': at most %d events per run\n", optarg, MAX_EVENTS);
                return 2;
            }
            if (parse_event(optarg, &events[nevents]) < 0)
                return 2;
            for (size_t i = 0; i < nevents; i++)
                if (strcmp(events[i].name, events[nevents].name) == 0) {
                    fprintf(stderr, "csrun: -e '%s': event %s given twice\n", optarg,
                            events[i].name);
                    return 2;
                }
            nevents++;
            break;
        case 'o':
            if (optarg[0] == '\0') {
                fprintf(stderr, "csrun: -o: empty directory name\n");
                return 2;
            }
            outdir = optarg;
            break;
        case 'q':
            quiet = true;
            break;
        case 'T':
            trampoline = false;
            break;
        case 'F':
            follow = false;
            break;
        case 'A':
            append = true;
            break;
        case 'a':
            available = true;
            break;
        case 'l':
        case 'L':
            list = true;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("csrun (csprof) %s\n", CSPROF_VERSION);
            return 0;
        default:
            fprintf(stderr, "csrun: see csrun --help\n");
            return 2;
        }
    }
    if (available && !list) {
        fprintf(stderr, "csrun: --available goes with -L (csrun -L --available)\n");
        return 2;
    }
    if (list)
        return list_events(stdout, available);
    if (optind >= argc) {
        fprintf(stderr,
                "csrun: no program given (usage: csrun [options] [--] program [args...])\n");
        return 2;
    }
    if (nevents == 0) {
        snprintf(events[0].name, sizeof(events[0].name), "CPUTIME");
        events[0].kind = EVSPEC_CPUTIME;
        events[0].period = EVSPEC_DEFAULT_PERIOD_US;
        nevents = 1;
    }
    for (size_t i = 0; i < nevents; i++) {
        size_t len = strlen(evlist);

        if (len > 0 && len + 1 < sizeof(evlist))
            evlist[len++] = ',';
        if (evspec_format(&events[i], evlist + len, sizeof(evlist) - len) < 0) {
            fprintf(stderr, "csrun: too many or too long events\n");
            return 2;
        }
    }
    if (make_run_id(run_id, sizeof(run_id)) < 0 || check_program(argv[optind]) < 0 ||
        find_monitor(monitor, sizeof(monitor)) < 0 || make_dir(outdir) < 0 ||
        (!append && check_other_runs(outdir, outdir, run_id) < 0))
        return 2;
    if (!quiet)
        warn_if_launcher(argv[optind]);
    if (realpath(outdir, absdir) == NULL) {
        fprintf(stderr, "csrun: -o '%s': %s\n", outdir, strerror(errno));
        return 2;
    }
    old_preload = getenv("LD_PRELOAD");
    if (old_preload != NULL && old_preload[0] != '\0')
        snprintf(preload, sizeof(preload), "%s:%s", old_preload, monitor);
    else
        snprintf(preload, sizeof(preload), "%s", monitor);
    before = list_profiles(absdir, &nbefore);

    if (pipe2(exec_pipe, O_CLOEXEC) < 0) {
        fprintf(stderr, "csrun: pipe: %s\n", strerror(errno));
        return 2;
    }
    child_pid = fork();
    if (child_pid < 0) {
        fprintf(stderr, "csrun: fork: %s\n", strerror(errno));
        return 2;
    }
    if (child_pid == 0) {
        setenv("CSPROF_EVENTS", evlist, 1);
        setenv("CSPROF_OUTDIR", absdir, 1);
        setenv("LD_PRELOAD", preload, 1);
        setenv("CSPROF_TRAMPOLINE", trampoline ? "1" : "0", 1);
        setenv("CSPROF_FOLLOW", follow ? "1" : "0", 1);
        setenv("CSPROF_RUN_ID", run_id, 1);
        execvp(argv[optind], &argv[optind]);
        exec_errno = errno;
        fprintf(stderr, "csrun: cannot run '%s': %s\n", argv[optind], strerror(exec_errno));
        (void)!write(exec_pipe[1], &exec_errno, sizeof(exec_errno));
        _exit(exec_errno == ENOENT ? 127 : 126);
    }
    close(exec_pipe[1]);
    exec_failed = read(exec_pipe[0], &exec_errno, sizeof(exec_errno)) == sizeof(exec_errno);
    close(exec_pipe[0]);
    /* Like system(3): the terminal's interrupt reaches the child; we outlive it to report. */
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    signal(SIGTERM, forward_signal);
    signal(SIGHUP, forward_signal);
    while (waitpid(child_pid, &status, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "csrun: waitpid: %s\n", strerror(errno));
            return 2;
        }
    }
    if (!quiet && !exec_failed)
        print_summary(absdir, run_id, before, nbefore, events, nevents);
    free_list(before, nbefore);
    if (WIFSIGNALED(status)) {
        struct rlimit nocore = {0, 0};

        setrlimit(RLIMIT_CORE, &nocore); /* the child dumped core already if it was to */
        signal(WTERMSIG(status), SIG_DFL);
        raise(WTERMSIG(status));
        return 128 + WTERMSIG(status);
    }
    return WEXITSTATUS(status);
}
