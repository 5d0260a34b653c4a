/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * csrun.c -- launch a program with the csprof monitor preloaded.
 *
 *   csrun [-e EVENT[@PERIOD]]... [-o DIR] [-q] [--] program [args...]
 *   csrun -L
 *
 * Validates every option before the program starts (a bad one is one line
 * on stderr and exit status 2; the program is not run) -- a perf event is
 * opened once here, so one this machine cannot sample is refused with the
 * reason (lib/support/pmu.h) before the program runs --, refuses the same
 * way a program the monitor cannot be preloaded into (static, setuid,
 * setgid, file capabilities, 32-bit: see check_program), creates the
 * measurement directory, sets CSPROF_* and appends libcsprof.so to
 * LD_PRELOAD, then runs the program as a child and waits for it.  When it
 * ends, csrun reads the profiles the run wrote and prints a summary to
 * stderr (samples per event and the rate they came at, and the trust
 * report of lib/trust: where each event's value went, csprof's own cost, a
 * verdict), then exits with the program's status -- or dies of the
 * program's signal.  Tool code: ordinary context.
 */
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
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fmt/fmt.h"
#include "support/event_spec.h"
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
        "  -o, --output DIR            measurement directory (default: measurements)\n"
        "  -q, --quiet                 no summary after the run\n"
        "      --no-trampoline         full stack walks, no call counts (default: trampoline on)\n"
        "      --no-follow             profile only this process, not its forked or exec'd "
        "children\n"
        "  -L, --list-events           list the events this machine can sample (also -l)\n"
        "  -h, --help                  this help\n"
        "  -V, --version               version\n\n"
        "Events:\n");
    for (size_t i = 0; i < evspec_nevents; i++)
        fprintf(out, "  %-10s %s\n", evspec_events[i].name, evspec_events[i].what);
    fprintf(out, "  and perf events: csrun -L lists them, each marked available here or not\n");
    fprintf(out, "\nThen: csprof-struct PROGRAM > PROGRAM.struct; "
                 "csprof-prof -S PROGRAM.struct DIR -o DATABASE\n");
}

/* Parse and check "NAME[@PERIOD]"; on error print one line and return -1. */
static int
parse_event(const char *spec, struct evspec *ev)
{
    char why[1536];

    if (evspec_parse(spec, strlen(spec), ev, why, sizeof(why)) < 0) {
        fprintf(stderr, "csrun: -e '%s': %s (csrun -L lists the events)\n", spec, why);
        return -1;
    }
    if (ev->kind == EVSPEC_PERF && pmu_probe(ev, why, sizeof(why)) < 0) {
        fprintf(stderr, "csrun: -e '%s': cannot sample %s on this machine: %s\n", spec, ev->name,
                why);
        return -1;
    }
    return 0;
}

/* csrun -L: the time events, the byte events, then the perf events with their availability
 * here. */
static void
list_events(FILE *out)
{
    fprintf(out, "Time events (always available):\n");
    for (size_t i = 0; i < evspec_nevents; i++)
        if (evspec_events[i].kind != EVSPEC_BYTES)
            fprintf(out, "  %-28s %s\n", evspec_events[i].name, evspec_events[i].what);
    fprintf(out, "\nByte events (synchronous, always available):\n");
    for (size_t i = 0; i < evspec_nevents; i++)
        if (evspec_events[i].kind == EVSPEC_BYTES)
            fprintf(out, "  %-28s %s\n", evspec_events[i].name, evspec_events[i].what);
    fprintf(out, "\n");
    pmu_list(out);
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
    char exe[PATH_MAX];
    ssize_t n;
    char *slash;

    if (env != NULL && env[0] != '\0') {
        snprintf(out, size, "%s", env);
    } else {
        n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
        if (n < 0) {
            fprintf(stderr, "csrun: cannot locate myself (/proc/self/exe): %s\n", strerror(errno));
            return -1;
        }
        exe[n] = '\0';
        slash = strrchr(exe, '/');
        if (slash != NULL)
            *slash = '\0';
        if (snprintf(out, size, "%.4000s/../lib/csprof/libcsprof.so", exe) >= (int)size) {
            fprintf(stderr, "csrun: path of csrun too long\n");
            return -1;
        }
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
struct run_totals {
    size_t files, unreadable;
    uint64_t not_followed;                /* execs whose environment dropped csprof */
    uint64_t untracked, untracked_cpu_ns; /* threads alive at the end without a profile */
    uint64_t wall_ns;                     /* threads' wall time (REALTIME's rate) */
    uint64_t enabled_ns[MAX_EVENTS], running_ns[MAX_EVENTS]; /* perf events: multiplexing */
    char mechanism[MAX_EVENTS][64];
    uint64_t *procs; /* (pid << 32 | generation) of each record: processes as csprof-prof
                        counts them (an exec'd image is the same process) */
    size_t nprocs, procs_cap;
};

static int
cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return x < y ? -1 : x > y;
}

/* The distinct processes among @t's records. */
static size_t
count_processes(struct run_totals *t)
{
    size_t n = 0;

    qsort(t->procs, t->nprocs, sizeof(*t->procs), cmp_u64);
    for (size_t i = 0; i < t->nprocs; i++)
        n += i == 0 || t->procs[i] != t->procs[i - 1];
    return n;
}

static void
add_profile(struct run_totals *t, struct trust_run *run, const struct fmt_profile *p,
            const struct evspec *events, size_t nevents)
{
    struct trust_thread th;

    if (t->nprocs == t->procs_cap) {
        size_t cap = t->procs_cap ? 2 * t->procs_cap : 64;
        uint64_t *grown = realloc(t->procs, cap * sizeof(*grown));

        if (grown != NULL) {
            t->procs = grown;
            t->procs_cap = cap;
        }
    }
    if (t->nprocs < t->procs_cap)
        t->procs[t->nprocs++] = (uint64_t)p->header.pid << 32 | p->header.generation;
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
    } else if (ev->kind == EVSPEC_BYTES) { /* synchronous: samples follow the bytes, not time */
        fprintf(stderr, "csprof: %s@%llu (%s): %llu samples, one per %llu bytes on average\n",
                ev->name, ev->period, t->mechanism[e], (unsigned long long)samples, ev->period);
    } else {
        /* CPU time is sampled per CPU-second of the threads, real time per thread-second. */
        bool cpu = ev->kind == EVSPEC_CPUTIME;
        double secs = (double)(cpu ? run->cpu_ns : t->wall_ns) / 1e9;

        fprintf(stderr,
                "csprof: %s@%llu (%s): %llu samples, %.1f samples per %s-second over %.3f s "
                "(requested %.1f)\n",
                ev->name, ev->period, t->mechanism[e], (unsigned long long)samples,
                secs > 0 ? (double)samples / secs : 0.0, cpu ? "CPU" : "thread", secs,
                1e6 / (double)ev->period);
    }
}

static void
print_summary(const char *dir, char **before, size_t nbefore, const struct evspec *events,
              size_t nevents)
{
    struct run_totals t;
    struct trust_run run;
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
    run.processes = count_processes(&t);
    free(t.procs);
    fprintf(stderr, "csprof: %zu thread profile(s) from %zu process(es) in %s%s\n", run.threads,
            run.processes, dir, t.unreadable ? " (some files unreadable, see above)" : "");
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
        {NULL, 0, NULL, 0},
    };
    struct evspec events[MAX_EVENTS];
    size_t nevents = 0, nbefore = 0;
    const char *outdir = "measurements";
    char monitor[PATH_MAX], absdir[PATH_MAX], evlist[MAX_EVENTS * 160] = "", preload[8192];
    char **before;
    const char *old_preload;
    bool quiet = false, trampoline = true, follow = true;
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
        case 'l':
        case 'L':
            list_events(stdout);
            return 0;
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
    if (check_program(argv[optind]) < 0 || find_monitor(monitor, sizeof(monitor)) < 0 ||
        make_dir(outdir) < 0)
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
        print_summary(absdir, before, nbefore, events, nevents);
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
