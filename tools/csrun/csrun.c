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
 * stderr (samples, partial and dropped samples, effective samples per
 * CPU-second against the rate asked for), then exits with the program's
 * status -- or dies of the program's signal.  Tool code: ordinary context.
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

struct run_totals {
    size_t files, unreadable, threads;
    size_t pids_seen;
    size_t blocked_threads;  /* the sampling signal was blocked when the thread ended */
    size_t fallback_threads; /* CPUTIME by a POSIX timer, no descriptor for the task clock */
    size_t starved_threads;  /* CPU time for >= 20 CPUTIME periods, < 10% of its samples
                                (recorded, or charged to a later one) */
    uint64_t starved_cpu_ns;
    size_t unsampled_threads;               /* blocked or starved (or both) */
    uint64_t unsampled_missing[MAX_EVENTS]; /* samples those threads' time called for, missing,
                                               that no other counter explains */
    uint64_t fallback_missing[MAX_EVENTS];  /* the same for the POSIX-timer fallbacks */
    uint64_t not_followed;                  /* execs whose environment dropped csprof */
    uint64_t untracked, untracked_cpu_ns;   /* threads alive at the end without a profile */
    uint32_t pids[1024];
    uint64_t recorded, partial, dropped, cpu_ns, wall_ns;
    uint64_t per_event_samples[MAX_EVENTS];
    uint64_t enabled_ns[MAX_EVENTS], running_ns[MAX_EVENTS]; /* perf events: multiplexing */
    uint64_t tail[MAX_EVENTS]; /* perf events: counted after threads' last samples (raw unit) */
    char mechanism[MAX_EVENTS][64];
    uint64_t overruns;   /* timer expirations merged into one signal (timer.overruns) */
    uint64_t unsampled;  /* perf periods that ended in the kernel (perf.unsampled_periods) */
    uint64_t handler_ns; /* time in the sampling handler (samples.handler_ns) */
};

/*
 * The CPUTIME periods of event @ev that thread profile @p counted after its
 * last sample (event.NAME.unsampled_tail, in ns): periods that ended in the
 * kernel with no sample after them to take their time.  0 for other kinds.
 */
static double
tail_periods(const struct fmt_profile *p, const struct evspec *ev)
{
    char name[sizeof(ev->name) + 32];

    if (ev->kind != EVSPEC_CPUTIME || ev->period == 0)
        return 0;
    snprintf(name, sizeof(name), "event.%.127s.unsampled_tail", ev->name);
    return (double)fmt_profile_stat(p, name) / 1e3 / (double)ev->period;
}

static void
add_profile(struct run_totals *t, const struct fmt_profile *p, const struct evspec *events,
            size_t nevents)
{
    bool seen = false, blocked, starved = false, fallback;
    /* this thread's samples that other counters already explain (print_shortfall) */
    uint64_t explained = fmt_profile_explained_samples(p);

    t->files++;
    t->threads++;
    for (size_t i = 0; i < t->pids_seen; i++)
        seen = seen || t->pids[i] == p->header.pid;
    if (!seen && t->pids_seen < sizeof(t->pids) / sizeof(t->pids[0]))
        t->pids[t->pids_seen++] = p->header.pid;
    t->recorded += fmt_profile_stat(p, "samples.recorded");
    t->partial += fmt_profile_stat(p, "samples.partial");
    for (uint32_t i = 0; i < p->nstats; i++)
        if (strncmp(p->stats[i].name, "samples.dropped.", 16) == 0)
            t->dropped += p->stats[i].value;
    t->cpu_ns += fmt_profile_sampled_cpu_ns(p); /* CPUTIME's rate applies to sampled time */
    t->not_followed += fmt_profile_stat(p, "exec.not_followed");
    t->untracked += fmt_profile_stat(p, "threads.untracked");
    t->untracked_cpu_ns += fmt_profile_stat(p, "threads.untracked.cpu_ns");
    blocked = fmt_profile_stat(p, "thread.sampling_blocked") != 0;
    t->blocked_threads += blocked;
    fallback = fmt_profile_stat(p, "thread.timer_fallback") != 0;
    t->fallback_threads += fallback;
    for (size_t e = 0; e < nevents; e++) {
        char name[sizeof(events[e].name) + 32];
        double expected;

        if (events[e].kind != EVSPEC_CPUTIME)
            continue;
        /* Only the CPU time while sampling was armed calls for samples. */
        expected = (double)fmt_profile_sampled_cpu_ns(p) / 1e3 / (double)events[e].period;
        if (expected < 20)
            continue;
        snprintf(name, sizeof(name), "event.%.31s.samples", events[e].name);
        /* A period that ended in the kernel is charged to the thread's next sample, an
         * expiration merged into one signal to that signal's: the thread was sampled.
         * (xz's main thread, mostly in read(2) and write(2), records 4-8 samples for
         * 20-40 ms of CPU time, the rest periods that ended in the kernel.)  Periods
         * after the last sample are not: with no sample after them, nothing shows that
         * the signal reached the thread. */
        if ((double)(fmt_profile_stat(p, name) + explained) < 0.1 * expected)
            starved = true;
    }
    if (starved) {
        t->starved_threads++;
        t->starved_cpu_ns += fmt_profile_sampled_cpu_ns(p);
    }
    t->unsampled_threads += blocked || starved;
    for (size_t e = 0; (blocked || starved || fallback) && e < nevents; e++) {
        char name[sizeof(events[e].name) + 32];
        uint64_t ns = events[e].kind == EVSPEC_CPUTIME ? fmt_profile_sampled_cpu_ns(p)
                      : p->header.end_ns > p->header.start_ns
                          ? p->header.end_ns - p->header.start_ns
                          : 0;
        double want = (double)ns / 1e3 / (double)events[e].period;
        double have;

        if (events[e].kind != EVSPEC_CPUTIME && events[e].kind != EVSPEC_REALTIME)
            continue;
        snprintf(name, sizeof(name), "event.%.31s.samples", events[e].name);
        /* (less what dropped samples, merged expirations and periods ended in the
         * kernel, before or after the last sample, explain: the shortfall line counts
         * each missing sample once) */
        have = (double)fmt_profile_stat(p, name) + (double)explained + tail_periods(p, &events[e]);
        /* a fallback timer fires at the scheduler tick, not at the requested rate */
        if (blocked || starved)
            t->unsampled_missing[e] += want > have ? (uint64_t)(want - have) : 0;
        else if (events[e].kind == EVSPEC_CPUTIME)
            t->fallback_missing[e] += want > have ? (uint64_t)(want - have) : 0;
    }
    if (p->header.end_ns > p->header.start_ns)
        t->wall_ns += p->header.end_ns - p->header.start_ns;
    for (size_t e = 0; e < nevents; e++) {
        char name[sizeof(events[e].name) + 32];

        snprintf(name, sizeof(name), "event.%.127s.samples", events[e].name);
        t->per_event_samples[e] += fmt_profile_stat(p, name);
        snprintf(name, sizeof(name), "event.%.127s.enabled_ns", events[e].name);
        t->enabled_ns[e] += fmt_profile_stat(p, name);
        snprintf(name, sizeof(name), "event.%.127s.running_ns", events[e].name);
        t->running_ns[e] += fmt_profile_stat(p, name);
        snprintf(name, sizeof(name), "event.%.127s.unsampled_tail", events[e].name);
        t->tail[e] += fmt_profile_stat(p, name);
        for (uint32_t i = 0; i < p->nevents; i++)
            if (strcmp(p->events[i].name, events[e].name) == 0)
                snprintf(t->mechanism[e], sizeof(t->mechanism[e]), "%s", p->events[i].mechanism);
    }
    t->overruns += fmt_profile_stat(p, "timer.overruns");
    t->unsampled += fmt_profile_stat(p, "perf.unsampled_periods");
    t->handler_ns += fmt_profile_stat(p, "samples.handler_ns");
}

/*
 * Where the samples that the requested rate of event @e calls for went, from
 * the profiles' counters only (dropped samples, merged timer expirations);
 * the rest is printed as unexplained, never guessed.  Only when fewer than
 * 80% of the expected samples were recorded.
 */
static void
print_shortfall(const struct run_totals *t, const struct evspec *ev, size_t e)
{
    bool cpu = ev->kind == EVSPEC_CPUTIME;
    double secs = (double)(cpu ? t->cpu_ns : t->wall_ns) / 1e9;
    double expected = secs * 1e6 / (double)ev->period;
    uint64_t got = t->per_event_samples[e], missing;
    /* periods counted after threads' last samples (print_tail) */
    uint64_t tail = cpu ? (uint64_t)((double)t->tail[e] / 1e3 / (double)ev->period) : 0;
    uint64_t explained = t->dropped + t->overruns + t->unsampled + tail + t->unsampled_missing[e] +
                         t->fallback_missing[e];

    /* A perf event has no expected rate; a byte event's samples follow the bytes, not time. */
    if (ev->kind == EVSPEC_PERF || ev->kind == EVSPEC_BYTES || secs <= 0.2 ||
        (double)got >= 0.8 * expected)
        return;
    missing = (uint64_t)expected > got ? (uint64_t)expected - got : 0;
    fprintf(stderr,
            "csprof: %s: %llu of the %llu samples expected are missing: %llu dropped, %llu timer "
            "expirations merged (timer.overruns), %llu periods ended in the kernel "
            "(perf.unsampled_periods: their time went to the next sample), %llu after threads' "
            "last samples (no sample followed to take their time: below), %llu in threads that "
            "could not be sampled (above), %llu in threads sampled by the POSIX-timer fallback "
            "(above), %llu not explained by any counter (csprof-prof's summary lists the "
            "reasons)\n",
            ev->name, (unsigned long long)missing, (unsigned long long)expected,
            (unsigned long long)t->dropped, (unsigned long long)t->overruns,
            (unsigned long long)t->unsampled, (unsigned long long)tail,
            (unsigned long long)t->unsampled_missing[e], (unsigned long long)t->fallback_missing[e],
            (unsigned long long)(missing > explained ? missing - explained : 0));
}

/*
 * What a perf event counted after each thread's last sample, when that is
 * more than one period: a period that ends in kernel mode takes no sample
 * and waits for the next one, so a thread that ends in the kernel (or in a
 * long system call) leaves a count that no calling context holds.
 */
static void
print_tail(const struct run_totals *t, const struct evspec *ev, size_t e)
{
    /* CPUTIME's period is in µs, its count in ns; a perf event's are both events */
    double scale = ev->kind == EVSPEC_CPUTIME ? 1e3 : 1;
    char amount[64];

    if (ev->freq || t->tail[e] == 0 || (double)t->tail[e] < scale * (double)ev->period)
        return; /* (a frequency has no period to compare with) */
    if (ev->kind == EVSPEC_CPUTIME)
        snprintf(amount, sizeof(amount), "%.3f s", (double)t->tail[e] / 1e9);
    else
        snprintf(amount, sizeof(amount), "%llu events", (unsigned long long)t->tail[e]);
    fprintf(stderr,
            "csprof: %s: %s counted after threads' last samples (periods that ended in the "
            "kernel wait for the next sample, and there was none): in no calling context "
            "(event.%s.unsampled_tail)\n",
            ev->name, amount, ev->name);
}

/*
 * A perf event's line: samples, and whether the kernel multiplexed its
 * counter (counted less time than it was enabled), in which case the values
 * were scaled by enabled/running time.
 */
static void
print_perf_event(const struct run_totals *t, const struct evspec *ev, size_t e)
{
    double share = t->enabled_ns[e] > 0 ? (double)t->running_ns[e] / (double)t->enabled_ns[e] : 1;

    fprintf(stderr, "csprof: %s@%s%llu (%s): %llu samples%s", ev->name, ev->freq ? "f" : "",
            ev->period, t->mechanism[e], (unsigned long long)t->per_event_samples[e],
            ev->freq ? "" : ", each charged the events counted since the previous one");
    if (share < 0.999)
        fprintf(stderr,
                "; multiplexed: the counter ran %.1f%% of the time it was enabled, values are "
                "scaled by enabled/running time\n",
                100 * share);
    else
        fprintf(stderr, "\n");
}

static void
print_summary(const char *dir, char **before, size_t nbefore, const struct evspec *events,
              size_t nevents)
{
    struct run_totals t;
    size_t nafter;
    char **after = list_profiles(dir, &nafter);

    memset(&t, 0, sizeof(t));
    for (size_t i = 0; i < nafter; i++) {
        char path[PATH_MAX + 256], err[512];
        struct fmt_record_set set;

        if (in_list(before, nbefore, after[i]))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, after[i]);
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
            add_profile(&t, set.profiles[k], events, nevents);
        fmt_record_set_free(&set);
    }
    free_list(after, nafter);
    if (t.files == 0) {
        fprintf(stderr, "csprof: no profile was written to %s (did the program run?)\n", dir);
        return;
    }
    fprintf(stderr, "csprof: %zu profile(s) from %zu process(es) in %s%s\n", t.files, t.pids_seen,
            dir, t.unreadable ? " (some unreadable, see above)" : "");
    fprintf(stderr,
            "csprof: %llu samples recorded (%llu partial), %llu dropped; %.1f µs per sample in "
            "csprof's handler\n",
            (unsigned long long)t.recorded, (unsigned long long)t.partial,
            (unsigned long long)t.dropped,
            t.recorded + t.dropped > 0
                ? (double)t.handler_ns / 1e3 / (double)(t.recorded + t.dropped)
                : 0.0);
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
    if (t.fallback_threads > 0)
        fprintf(stderr,
                "csprof: %zu thread(s) sampled by a POSIX CPU-time timer (scheduler-tick "
                "resolution) instead of the perf task-clock: the program had too few file "
                "descriptors to spare\n",
                t.fallback_threads);
    if (t.blocked_threads > 0 || t.starved_threads > 0)
        fprintf(stderr,
                "csprof: %zu thread(s) could not be sampled: %zu ended with the sampling signal "
                "blocked, %zu got under 10%% of the samples their %.3f CPU-seconds call for\n",
                t.unsampled_threads, t.blocked_threads, t.starved_threads,
                (double)t.starved_cpu_ns / 1e9);
    for (size_t e = 0; e < nevents; e++) {
        /* CPU time is sampled per CPU-second of the threads, real time per thread-second. */
        bool cpu = events[e].kind == EVSPEC_CPUTIME;
        double secs = (double)(cpu ? t.cpu_ns : t.wall_ns) / 1e9;
        double asked = 1e6 / (double)events[e].period;
        double got = secs > 0 ? (double)t.per_event_samples[e] / secs : 0;

        if (events[e].kind == EVSPEC_PERF) {
            print_perf_event(&t, &events[e], e);
            continue;
        }
        if (events[e].kind == EVSPEC_BYTES) { /* synchronous: samples follow the bytes, not time */
            fprintf(stderr, "csprof: %s@%llu (%s): %llu samples, one per %llu bytes on average\n",
                    events[e].name, events[e].period, t.mechanism[e],
                    (unsigned long long)t.per_event_samples[e], events[e].period);
            continue;
        }
        fprintf(stderr,
                "csprof: %s@%llu (%s): %.1f samples per %s-second over %.3f s "
                "(requested %.1f)%s\n",
                events[e].name, events[e].period, t.mechanism[e], got, cpu ? "CPU" : "thread", secs,
                asked,
                secs > 0.2 && got < 0.8 * asked
                    ? (t.blocked_threads > 0 || t.starved_threads > 0
                           ? " -- shortfall: threads without samples, see above; causes below"
                           : " -- shortfall, causes below")
                    : "");
    }
    for (size_t e = 0; e < nevents; e++)
        print_shortfall(&t, &events[e], e);
    for (size_t e = 0; e < nevents; e++)
        print_tail(&t, &events[e], e);
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
