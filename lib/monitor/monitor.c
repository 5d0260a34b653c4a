/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * monitor.c -- life cycle of the monitor inside the profiled process.
 *
 * The constructor reads the configuration csrun left in the environment
 * (CSPROF_EVENTS, CSPROF_OUTDIR, CSPROF_SIGNAL, CSPROF_MEMORY_LIMIT),
 * installs the handlers and starts sampling the main thread before main().
 * Threads start sampling in their start routine (overrides.c) and write
 * their profile from a TLS-key destructor, however they exit; the process
 * writes every remaining profile at exit, _exit and exec; a fork child
 * starts a profile of its own.  Ordinary context: this file never runs
 * inside the sampling handler, and may allocate and lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cct/cct.h"
#include "monitor/mon_internal.h"
#include "monitor/mon_loadmap.h"
#include "monitor/mon_write.h"

struct mon_process mon_proc;

const char *const mon_outcome_names[MON_NOUTCOMES] = {
    [MON_SAMPLE_OK] = "samples.complete",
    [MON_SAMPLE_PARTIAL] = "samples.partial",
    [MON_DROP_REENTERED] = "samples.dropped.reentered",
    [MON_DROP_NO_THREAD] = "samples.dropped.no_thread",
    [MON_DROP_STOPPED] = "samples.dropped.stopped",
    [MON_DROP_NO_MEMORY] = "samples.dropped.no_memory",
    [MON_DROP_UNWIND_FAULT] = "samples.dropped.unwind_fault",
    [MON_DROP_NO_FRAMES] = "samples.dropped.no_frames",
    [MON_DROP_UNKNOWN_SOURCE] = "samples.dropped.unknown_source",
    [MON_DROP_IN_TRAMPOLINE] = "samples.dropped.in_trampoline",
    [MON_DROP_IN_MONITOR] = "samples.dropped.in_monitor",
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mon_thread *registry;
static pthread_key_t thread_key;
static size_t arena_limit = (size_t)1 << 30; /* bytes of CCT per thread */
static atomic_int finalized;

/* A warning from the monitor: to stderr, prefixed, once per cause. */
static void
mon_warn(const char *what, const char *detail)
{
    char line[512];
    int n = snprintf(line, sizeof(line), "csprof: %s%s%s\n", what, detail ? ": " : "",
                     detail ? detail : "");

    if (n > 0)
        (void)!write(STDERR_FILENO, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/*
 * Parse "NAME[@PERIOD]" (period in µs) into @e.  The same rules as csrun's;
 * csrun has validated them already, so an error here means the environment
 * was set by hand.  Returns 0 or -1.
 */
static int
parse_event(const char *spec, size_t len, struct mon_event *e)
{
    char buf[64];
    const char *at;
    char *end;
    unsigned long long period_us = 5000;

    if (len == 0 || len >= sizeof(buf))
        return -1;
    memcpy(buf, spec, len);
    buf[len] = '\0';
    at = strchr(buf, '@');
    if (at != NULL) {
        errno = 0;
        period_us = strtoull(at + 1, &end, 10);
        if (errno != 0 || *end != '\0' || end == at + 1 || period_us == 0 ||
            period_us > 60000000ull)
            return -1;
        buf[at - buf] = '\0';
    }
    memset(e, 0, sizeof(*e));
    if (strlen(buf) >= sizeof(e->name))
        return -1;
    memcpy(e->name, buf, strlen(buf) + 1);
    e->period_ns = period_us * 1000u;
    if (strcmp(buf, "CPUTIME") == 0) {
        const char *mech = getenv("CSPROF_CPUTIME_MECHANISM");

        e->clock = CLOCK_THREAD_CPUTIME_ID;
        /* CPU-time timers fire at the scheduler tick (>= 4 ms at CONFIG_HZ=250): for shorter
         * periods use the perf task-clock, which honours the rate. */
        if (mech != NULL && strcmp(mech, "posix") == 0)
            e->mech = MON_MECH_POSIX_TIMER;
        else if (mech != NULL && strcmp(mech, "perf") == 0)
            e->mech = MON_MECH_PERF_TASK_CLOCK;
        else
            e->mech = e->period_ns < 4000000u && mon_perf_task_clock_available()
                          ? MON_MECH_PERF_TASK_CLOCK
                          : MON_MECH_POSIX_TIMER;
    } else if (strcmp(buf, "REALTIME") == 0) {
        e->clock = CLOCK_MONOTONIC;
        e->mech = MON_MECH_POSIX_TIMER;
    } else {
        return -1;
    }
    return 0;
}

static int
parse_events(const char *list)
{
    const char *p = list;

    mon_proc.nevents = 0;
    while (*p != '\0') {
        size_t len = strcspn(p, ",");

        if (mon_proc.nevents == MON_MAX_EVENTS ||
            parse_event(p, len, &mon_proc.events[mon_proc.nevents]) < 0)
            return -1;
        mon_proc.nevents++;
        p += len;
        if (*p == ',')
            p++;
    }
    return mon_proc.nevents > 0 ? 0 : -1;
}

static void
read_identity(void)
{
    ssize_t n = readlink("/proc/self/exe", mon_proc.program, sizeof(mon_proc.program) - 1);
    const char *slash;
    int fd;

    mon_proc.program[n > 0 ? n : 0] = '\0';
    slash = strrchr(mon_proc.program, '/');
    slash = slash ? slash + 1 : mon_proc.program;
    /* The name goes into file names: keep it short. */
    snprintf(mon_proc.progname, sizeof(mon_proc.progname), "%.200s", slash);
    if (mon_proc.progname[0] == '\0')
        snprintf(mon_proc.progname, sizeof(mon_proc.progname), "unknown");
    gethostname(mon_proc.host, sizeof(mon_proc.host) - 1);
    fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        n = read(fd, mon_proc.command, sizeof(mon_proc.command) - 1);
        close(fd);
        if (n > 0) {
            for (ssize_t i = 0; i < n - 1; i++)
                if (mon_proc.command[i] == '\0')
                    mon_proc.command[i] = ' ';
            mon_proc.command[n] = '\0';
        }
    }
}

static void
thread_key_destructor(void *p)
{
    mon_thread_end(p);
}

struct mon_thread *
mon_thread_begin(void)
{
    struct mon_thread *td;
    int rc;

    td = mmap(NULL, sizeof(*td), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (td == MAP_FAILED)
        return NULL;
    td->tid = (pid_t)syscall(SYS_gettid);
    td->self = pthread_self();
    td->thread_index = atomic_fetch_add(&mon_proc.next_thread_index, 1);
    td->start_ns = mon_clock_ns(CLOCK_REALTIME);
    arena_init_mmap(&td->arena, (size_t)1 << 20, arena_limit);
    td->bt.max = CSP_MAX_FRAMES;
    td->bt.ips = arena_alloc(&td->arena, CSP_MAX_FRAMES * sizeof(uintptr_t));
    td->bt.ra_locs = arena_alloc(&td->arena, CSP_MAX_FRAMES * sizeof(uintptr_t));
    td->bt.sps = arena_alloc(&td->arena, CSP_MAX_FRAMES * sizeof(uintptr_t));
    td->bt.sigframe = arena_alloc(&td->arena, CSP_MAX_FRAMES);
    td->bt_nodes = arena_alloc(&td->arena, CSP_MAX_FRAMES * sizeof(*td->bt_nodes));
    td->bt_keys = arena_alloc(&td->arena, CSP_MAX_FRAMES * sizeof(uintptr_t));
    td->tree = cct_new(&td->arena, mon_proc.nevents);
    if (td->bt.ips == NULL || td->bt.ra_locs == NULL || td->bt.sps == NULL ||
        td->bt.sigframe == NULL || td->bt_nodes == NULL || td->bt_keys == NULL ||
        td->tree == NULL) {
        arena_destroy(&td->arena);
        munmap(td, sizeof(*td));
        return NULL;
    }
    if (mon_proc.trampoline) {
        struct tramp_frame *shadow =
            arena_alloc(&td->arena, CSP_MAX_FRAMES * sizeof(struct tramp_frame));

        tramp_thread_init(&td->tramp, shadow, CSP_MAX_FRAMES, shadow != NULL);
    } else {
        tramp_thread_init(&td->tramp, NULL, 0, false);
    }
    tramp_set_self(&td->tramp);
    atomic_store(&td->state, MON_THREAD_RUNNING);
    pthread_mutex_lock(&registry_lock);
    td->next = registry;
    registry = td;
    pthread_mutex_unlock(&registry_lock);
    mon_thread_set_self(td);
    pthread_setspecific(thread_key, td);
    rc = mon_sources_start(td);
    if (rc < 0)
        mon_warn("cannot start sampling this thread", strerror(-rc));
    return td;
}

struct mon_thread *
mon_thread_find(pthread_t t)
{
    struct mon_thread *found = NULL;

    pthread_mutex_lock(&registry_lock);
    for (struct mon_thread *td = registry; td != NULL && found == NULL; td = td->next)
        if (pthread_equal(td->self, t) && atomic_load(&td->state) == MON_THREAD_RUNNING)
            found = td;
    pthread_mutex_unlock(&registry_lock);
    return found;
}

/* Stop @td's sources and wait until no handler runs on it.  Bounded: a thread stuck in
 * the handler for a second is written anyway (its tree is consistent between samples). */
static void
quiesce(struct mon_thread *td)
{
    mon_sources_stop(td);
    for (int i = 0; i < 100000 && td->inside; i++)
        sched_yield();
}

/* Write @td's profile unless someone else has; safe to call from any thread. */
static void
write_once(struct mon_thread *td)
{
    int expected = MON_THREAD_RUNNING;

    if (!atomic_compare_exchange_strong(&td->state, &expected, MON_THREAD_WRITING))
        return;
    quiesce(td);
    if (mon_write_profile(td) < 0)
        mon_warn("could not write a profile", strerror(errno));
    atomic_store(&td->state, MON_THREAD_DONE);
}

void
mon_thread_end(struct mon_thread *td)
{
    if (td == NULL)
        return;
    mon_sources_stop(td);
    write_once(td);
}

void
mon_finalize_process(const char *why)
{
    struct mon_thread *self = mon_thread_self();

    CSP_UNUSED(why);
    if (atomic_exchange(&finalized, 1))
        return;
    atomic_store(&mon_proc.stopped, 1);
    atomic_thread_fence(memory_order_seq_cst);
    mon_loadmap_refresh();
    if (self != NULL)
        mon_sources_stop(self);
    pthread_mutex_lock(&registry_lock);
    for (struct mon_thread *td = registry; td != NULL; td = td->next)
        write_once(td);
    pthread_mutex_unlock(&registry_lock);
}

/* After fork (in the child) or a failed exec: this thread alone, a fresh profile. */
static void
restart_alone(bool forked)
{
    struct mon_thread *td = mon_thread_self();

    pthread_mutex_init(&registry_lock, NULL);
    registry = NULL;
    if (td != NULL) {
        if (forked)
            mon_sources_forget(td);
        else
            mon_sources_stop(td);
        /* The stack (a copy of the parent's) may hold the trampoline: restore it before
         * the state it returns through goes away. */
        tramp_invalidate(&td->tramp);
        tramp_set_self(NULL);
        mon_thread_set_self(NULL);
        pthread_setspecific(thread_key, NULL);
        /* The old tree is the parent's (or already written): drop our copy. */
        arena_destroy(&td->arena);
        munmap(td, sizeof(*td));
    }
    atomic_store(&mon_proc.next_thread_index, 0);
    atomic_store(&finalized, 0);
    atomic_store(&mon_proc.stopped, 0);
    mon_proc.start_ns = mon_clock_ns(CLOCK_REALTIME);
    read_identity();
    mon_thread_begin();
}

void
mon_restart_after_failed_exec(void)
{
    restart_alone(false);
}

static void
atfork_child(void)
{
    if (!mon_proc.active)
        return;
    mon_loadmap_after_fork();
    restart_alone(true);
}

__attribute__((constructor)) static void
mon_init(void)
{
    const char *events = getenv("CSPROF_EVENTS");
    const char *outdir = getenv("CSPROF_OUTDIR");
    const char *sig = getenv("CSPROF_SIGNAL");
    const char *limit = getenv("CSPROF_MEMORY_LIMIT");
    const char *tramp = getenv("CSPROF_TRAMPOLINE");
    const char *why = NULL;
    int rc;

    mon_resolve_real_functions();
    mon_proc.rank = -1;
    /* A real-time signal: deliveries from several sources queue instead of merging (a merged
     * perf overflow would never be re-armed), and the program keeps SIGPROF for itself. */
    mon_proc.signo = SIGRTMIN + 4;
    if (sig != NULL && atoi(sig) > 0 && atoi(sig) < NSIG)
        mon_proc.signo = atoi(sig);
    if (limit != NULL && strtoull(limit, NULL, 10) > 0)
        arena_limit = (size_t)strtoull(limit, NULL, 10);
    if (events == NULL || events[0] == '\0')
        events = "CPUTIME@5000";
    if (parse_events(events) < 0) {
        mon_warn("bad CSPROF_EVENTS, profiling disabled", events);
        return;
    }
    if (outdir == NULL || outdir[0] == '\0')
        outdir = "measurements";
    if (outdir[0] != '/' && getcwd(mon_proc.outdir, sizeof(mon_proc.outdir) - 256) != NULL)
        snprintf(mon_proc.outdir + strlen(mon_proc.outdir),
                 sizeof(mon_proc.outdir) - strlen(mon_proc.outdir), "/%s", outdir);
    else
        snprintf(mon_proc.outdir, sizeof(mon_proc.outdir), "%s", outdir);
    if (mkdir(mon_proc.outdir, 0777) < 0 && errno != EEXIST) {
        mon_warn("cannot create the measurement directory, profiling disabled", mon_proc.outdir);
        return;
    }
    read_identity();
    mon_proc.start_ns = mon_clock_ns(CLOCK_REALTIME);
    uw_init();
    mon_proc.trampoline = tramp == NULL || strcmp(tramp, "0") != 0;
    if (mon_proc.trampoline && !tramp_supported(&why)) {
        mon_warn("trampoline disabled, profiling continues without call counts", why);
        mon_proc.trampoline = false;
    }
    mon_loadmap_refresh();
    if (pthread_key_create(&thread_key, thread_key_destructor) != 0)
        return;
    rc = mon_signals_install();
    if (rc < 0) {
        mon_warn("cannot install the sampling signal handler", strerror(-rc));
        return;
    }
    pthread_atfork(NULL, NULL, atfork_child);
    mon_proc.active = true;
    mon_thread_begin();
}

__attribute__((destructor)) static void
mon_fini(void)
{
    if (mon_proc.active)
        mon_finalize_process("exit");
}
