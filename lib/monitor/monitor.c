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
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cct/cct.h"
#include "fmt/fmt.h"
#include "monitor/mon_internal.h"
#include "monitor/mon_loadmap.h"
#include "monitor/mon_sync.h"
#include "monitor/mon_write.h"
#include "support/event_spec.h"
#include "support/sysio.h"

struct mon_process mon_proc;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mon_thread *_Atomic registry;
static pthread_key_t thread_key;
static size_t arena_limit = (size_t)1 << 30; /* bytes of CCT per thread */
static atomic_int finalized;                 /* a thread has begun writing every profile */
static atomic_int finalize_done;             /* ... and has finished */
static volatile pid_t finalizer_tid;
/* The finalizer's own sampling state when a fatal signal writes the profiles: -1 read its
 * mask now; 0 or 1 whether the code the signal interrupted blocked the sampling signal. */
static volatile int finalizer_interrupted_blocked = -1;

/* A warning from the monitor: to stderr, prefixed, once per cause. */
static void
mon_warn(const char *what, const char *detail)
{
    char line[512];
    int n = snprintf(line, sizeof(line), "csprof: %s%s%s\n", what, detail ? ": " : "",
                     detail ? detail : "");

    if (n > 0)
        (void)!csp_sys_write(STDERR_FILENO, line,
                             (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/*
 * Parse "NAME[@PERIOD]" into @e with the grammar csrun checked already
 * (lib/support/event_spec.h), and choose its sample source (source.c), so
 * an error here means the environment was set by hand or the machine
 * cannot sample the event.  Returns 0 or -1 with the reason in @why.
 */
static int
parse_event(const char *spec, size_t len, struct mon_event *e, char *why, size_t whylen)
{
    struct evspec req;

    if (evspec_parse(spec, len, &req, why, whylen) < 0)
        return -1;
    return mon_source_configure(e, &req, why, whylen);
}

static int
parse_events(const char *list, char *why, size_t whylen)
{
    const char *p = list;

    mon_proc.nevents = 0;
    while (*p != '\0') {
        size_t len = strcspn(p, ",");

        if (mon_proc.nevents == MON_MAX_EVENTS) {
            snprintf(why, whylen, "more than %d events", MON_MAX_EVENTS);
            return -1;
        }
        if (parse_event(p, len, &mon_proc.events[mon_proc.nevents], why, whylen) < 0)
            return -1;
        mon_proc.nevents++;
        p += len;
        if (*p == ',')
            p++;
    }
    if (mon_proc.nevents == 0) {
        snprintf(why, whylen, "no event");
        return -1;
    }
    return 0;
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
        n = csp_sys_read(fd, mon_proc.command, sizeof(mon_proc.command) - 1);
        close(fd);
        if (n > 0) {
            for (ssize_t i = 0; i < n - 1; i++)
                if (mon_proc.command[i] == '\0')
                    mon_proc.command[i] = ' ';
            mon_proc.command[n] = '\0';
        }
    }
}

/* The calling thread's stack bounds (pthread_getattr_np(3)); 0, 0 when unknown. */
static void
read_stack_bounds(struct mon_thread *td)
{
    pthread_attr_t attr;
    void *addr;
    size_t size;

    td->stack_lo = td->stack_hi = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
        td->stack_lo = (uintptr_t)addr;
        td->stack_hi = (uintptr_t)addr + size;
    }
    pthread_attr_destroy(&attr);
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
    td->ckpt_last_ns = mon_clock_ns(CLOCK_MONOTONIC);
    read_stack_bounds(td);
    arena_init_mmap(&td->arena, (size_t)1 << 20, arena_limit);
    td->bt.max = CSP_INITIAL_FRAMES; /* deeper walks grow the arrays: mon_bt_grow */
    td->bt.grow = mon_bt_grow;
    td->bt.grow_arg = td;
    td->bt.ips = arena_alloc(&td->arena, CSP_INITIAL_FRAMES * sizeof(uintptr_t));
    td->bt.ra_locs = arena_alloc(&td->arena, CSP_INITIAL_FRAMES * sizeof(uintptr_t));
    td->bt.sps = arena_alloc(&td->arena, CSP_INITIAL_FRAMES * sizeof(uintptr_t));
    td->bt.sigframe = arena_alloc(&td->arena, CSP_INITIAL_FRAMES);
    td->bt_nodes = arena_alloc(&td->arena, CSP_INITIAL_FRAMES * sizeof(*td->bt_nodes));
    td->bt_keys = arena_alloc(&td->arena, CSP_INITIAL_FRAMES * sizeof(uintptr_t));
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
            arena_alloc(&td->arena, CSP_INITIAL_FRAMES * sizeof(struct tramp_frame));

        /* Grown by mon_shadow_reserve when a deeper stack is cached. */
        tramp_thread_init(&td->tramp, shadow, CSP_INITIAL_FRAMES, shadow != NULL);
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

/*
 * Whether @td's thread has the sampling signal blocked now: its own mask for the calling
 * thread, else the SigBlk line of /proc/self/task/TID/status (open/read only).  A thread
 * that kept it blocked got no samples; its profile says so (thread.sampling_blocked).
 */
static bool
thread_sampling_blocked(const struct mon_thread *td)
{
    char path[64], buf[2048];
    unsigned digit = (unsigned)mon_proc.signo - 1; /* bit of the signal in the hex mask */
    const char *line = NULL;
    ssize_t n;
    size_t len;
    int fd;

    if (td == mon_thread_self())
        return finalizer_interrupted_blocked >= 0 && finalizer_tid == td->tid
                   ? finalizer_interrupted_blocked == 1
                   : mon_mask_sampling_blocked();
    snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)td->tid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false; /* the thread has gone */
    n = csp_sys_read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    for (char *p = buf; p != NULL && line == NULL; p = strchr(p, '\n')) {
        p += *p == '\n';
        if (strncmp(p, "SigBlk:", 7) == 0)
            line = p + 7;
    }
    if (line == NULL)
        return false;
    while (*line == '\t' || *line == ' ')
        line++;
    len = strspn(line, "0123456789abcdef");
    if (digit / 4 >= len)
        return false;
    {
        char c = line[len - 1 - digit / 4];
        unsigned v = c <= '9' ? (unsigned)(c - '0') : (unsigned)(c - 'a' + 10);

        return (v >> (digit % 4)) & 1u;
    }
}

/* Write @td's profile unless someone else has; safe to call from any thread.  Returns
 * whether this call wrote it. */
static bool
write_once(struct mon_thread *td)
{
    int expected = MON_THREAD_RUNNING;

    if (!atomic_compare_exchange_strong(&td->state, &expected, MON_THREAD_WRITING))
        return false;
    quiesce(td);
    mon_sync_charge_leaks(td); /* MEMLEAK: its sampled blocks still live now */
    td->sampling_blocked = thread_sampling_blocked(td);
    if (mon_write_profile(td) < 0)
        mon_warn("could not write a profile", strerror(errno));
    atomic_store(&td->state, MON_THREAD_DONE);
    return true;
}

void
mon_thread_end(struct mon_thread *td)
{
    if (td == NULL)
        return;
    mon_sources_stop(td);
    if (write_once(td)) {
        /* The thread is exiting and its profile is written: give its tree's memory back, so
         * that thousands of short threads do not pile up.  Nothing reads the arena of a
         * thread in state DONE (the handler drops its samples first); the trampoline is
         * taken out of the stack before its shadow stack goes. */
        tramp_invalidate(&td->tramp);
        arena_destroy(&td->arena);
        td->tree = NULL;
    }
}

/*
 * Count the threads alive now that csprof has no state for (made by a raw
 * clone, by glibc internally, or while sampling was stopped), and their
 * CPU time, into mon_proc (written in the main thread's profile).  System
 * calls only (getdents64), so it also runs from a signal handler.  Threads
 * that have already ended are not seen.
 */
static void
count_untracked_threads(void)
{
    char buf[4096];
    long nread;
    int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (fd < 0)
        return;
    while ((nread = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
        for (long off = 0; off < nread;) {
            struct {
                uint64_t ino;
                int64_t off;
                unsigned short reclen;
                unsigned char type;
                char name[];
            } *de = (void *)(buf + off);
            long tid = strtol(de->name, NULL, 10);
            bool known = false;

            off += de->reclen;
            if (tid <= 0)
                continue;
            for (struct mon_thread *td = atomic_load(&registry); td != NULL && !known;
                 td = td->next)
                known = td->tid == tid;
            if (!known) {
                mon_proc.threads_untracked++;
                mon_proc.threads_untracked_cpu_ns += mon_thread_cpu_ns((pid_t)tid);
            }
        }
    }
    close(fd);
}

/*
 * Write every thread's profile.  From a signal handler (@from_signal), the
 * load map is not refreshed (dl_iterate_phdr takes the loader's lock) and
 * the registry lock is only tried: the interrupted code may hold it, and
 * the list is safe to walk without it (threads are only prepended, a
 * thread's block is never freed while the process runs).
 */
static void
finalize_all(bool from_signal)
{
    struct mon_thread *self = mon_thread_self();
    bool locked = false;

    atomic_store(&mon_proc.stopped, 1);
    atomic_thread_fence(memory_order_seq_cst);
    if (!from_signal)
        mon_loadmap_refresh();
    else
        atomic_store(&mon_out.map_frozen, 1); /* writers must not take the load-map mutex */
    if (self != NULL)
        mon_sources_stop(self);
    if (!from_signal) {
        pthread_mutex_lock(&registry_lock);
        locked = true;
    } else {
        for (int i = 0; i < 1000 && !locked; i++) {
            locked = pthread_mutex_trylock(&registry_lock) == 0;
            if (!locked)
                sched_yield();
        }
    }
    count_untracked_threads();
    for (struct mon_thread *td = atomic_load(&registry); td != NULL; td = td->next)
        write_once(td);
    /* A thread may be writing its own profile (it was exiting): before the process dies,
     * let it finish (2 s at most), or its file is cut short. */
    for (struct mon_thread *td = atomic_load(&registry); from_signal && td != NULL; td = td->next)
        for (int i = 0; i < 2000 && td != self && atomic_load(&td->state) == MON_THREAD_WRITING;
             i++) {
            struct timespec ms = {0, 1000000};

            nanosleep(&ms, NULL);
        }
    if (locked)
        pthread_mutex_unlock(&registry_lock);
    atomic_store(&finalize_done, 1);
}

void
mon_finalize_process(const char *why)
{
    sigset_t all, old;
    int expected = 0;

    CSP_UNUSED(why);
    if (!atomic_compare_exchange_strong(&finalized, &expected, 1))
        return;
    finalizer_tid = (pid_t)syscall(SYS_gettid);
    /* A fatal signal arriving now waits until the profiles are written (signals.c).  The
     * sampling signal stays open: samples are dropped now, and the thread's own mask is
     * what thread_sampling_blocked reports. */
    sigfillset(&all);
    sigdelset(&all, mon_proc.signo);
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, &old, (size_t)(_NSIG / 8));
    finalize_all(false);
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, (size_t)(_NSIG / 8));
}

void
mon_finalize_from_signal(int sig, const sigset_t *interrupted_mask)
{
    int expected = 0;
    pid_t me = (pid_t)syscall(SYS_gettid);

    CSP_UNUSED(sig);
    if (!mon_proc.active)
        return;
    if (atomic_compare_exchange_strong(&finalized, &expected, 1)) {
        if (interrupted_mask != NULL)
            finalizer_interrupted_blocked = sigismember(interrupted_mask, mon_proc.signo) == 1;
        finalizer_tid = me;
        finalize_all(true);
        return;
    }
    /* Another thread is writing: let it finish (bounded: 10 s) before the process dies. */
    for (int i = 0; i < 10000 && finalizer_tid != me && !atomic_load(&finalize_done); i++) {
        struct timespec ms = {0, 1000000};

        nanosleep(&ms, NULL);
    }
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
    atomic_store(&finalize_done, 0);
    finalizer_tid = 0;
    finalizer_interrupted_blocked = -1;
    mon_proc.threads_untracked = 0;
    mon_proc.threads_untracked_cpu_ns = 0;
    atomic_store(&mon_proc.stopped, 0);
    mon_proc.start_ns = mon_clock_ns(CLOCK_REALTIME);
    read_identity();
    if (forked) {
        mon_proc.generation = 0;
        if (mon_output_after_fork() < 0)
            mon_warn("cannot create this process's measurement file", strerror(errno));
    } else {
        mon_proc.generation++; /* same pid, same file: records tell the profiles apart */
    }
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
    struct mon_thread *td = mon_thread_self();

    if (!mon_proc.active)
        return;
    mon_loadmap_after_fork(); /* the loader locks another thread held are free in the child */
    if (mon_proc.follow) {
        restart_alone(true);
        return;
    }
    /* Not following: the child runs unprofiled and writes nothing. */
    mon_proc.active = false;
    atomic_store(&mon_proc.stopped, 1);
    if (td != NULL) {
        mon_sources_forget(td);
        tramp_invalidate(&td->tramp);
        tramp_set_self(NULL);
        mon_thread_set_self(NULL);
        pthread_setspecific(thread_key, NULL);
    }
}

/*
 * CSPROF_FOLLOW=0: take libcsprof out of LD_PRELOAD (entries are separated
 * by ':' or blanks, ld.so(8)), so that exec'd programs -- by any route:
 * exec*, posix_spawn, system -- run unprofiled.  The program sees the
 * LD_PRELOAD it would have had without csrun.
 */
static void
stop_following(void)
{
    const char *old = getenv("LD_PRELOAD");
    char *kept;
    size_t n = 0;

    if (old == NULL)
        return;
    kept = malloc(strlen(old) + 1);
    if (kept == NULL)
        return;
    for (const char *p = old; *p != '\0';) {
        size_t len = strcspn(p, ": \t");
        const char *slash = memrchr(p, '/', len);
        const char *base = slash != NULL ? slash + 1 : p;

        if (len > 0 && strncmp(base, "libcsprof", 9) != 0) {
            if (n > 0)
                kept[n++] = ':';
            memcpy(kept + n, p, len);
            n += len;
        }
        p += len;
        p += *p != '\0';
    }
    kept[n] = '\0';
    if (n == 0)
        unsetenv("LD_PRELOAD");
    else
        setenv("LD_PRELOAD", kept, 1);
    free(kept);
}

/* quick_exit(3) skips destructors and calls the real _exit from inside libc: registered in
 * the constructor, this runs after every at_quick_exit handler of the program. */
static void
quick_exit_hook(void)
{
    if (mon_proc.active)
        mon_finalize_process("quick_exit");
}

/*
 * The monitor's set-up, once per process: from the constructor, or earlier
 * when another library's constructor creates a thread before ours has run
 * (ld.so runs the preloaded library's constructor after those of the
 * program's libraries).  Calls made during set-up on the same thread return
 * at once.
 */
static void mon_setup(void);

static atomic_int init_state; /* 0: not begun, 1: in progress, 2: done */
static atomic_int init_tid;

void
mon_ensure_initialized(void)
{
    int expected = 0;
    int me = (int)syscall(SYS_gettid);

    if (atomic_load(&init_state) == 2)
        return;
    if (atomic_compare_exchange_strong(&init_state, &expected, 1)) {
        atomic_store(&init_tid, me);
        mon_setup();
        atomic_store(&init_state, 2);
        return;
    }
    while (atomic_load(&init_state) != 2 && atomic_load(&init_tid) != me)
        sched_yield();
}

__attribute__((constructor)) static void
mon_init(void)
{
    mon_ensure_initialized();
}

static void
mon_setup(void)
{
    const char *events = getenv("CSPROF_EVENTS");
    const char *outdir = getenv("CSPROF_OUTDIR");
    const char *sig = getenv("CSPROF_SIGNAL");
    const char *limit = getenv("CSPROF_MEMORY_LIMIT");
    const char *tramp = getenv("CSPROF_TRAMPOLINE");
    const char *follow = getenv("CSPROF_FOLLOW");
    const char *eintr = getenv("CSPROF_EINTR_SAFE");
    const char *flush = getenv("CSPROF_FLUSH_MS");
    const char *drop = getenv("CSPROF_DEBUG_DROP_EVERY");
    const char *run_id = getenv("CSPROF_RUN_ID");
    const char *why = NULL;
    char reason[4096 + 256];
    char why_events[1024];
    int rc;

    mon_resolve_real_functions();
    /* Secure-execution mode (ld.so(8): setuid, setgid, file capabilities): the loader should
     * have ignored the preload; if the monitor got in anyway (a trusted directory, a link),
     * a privileged process must not create files where the caller says.  Stay inactive. */
    if (getauxval(AT_SECURE) != 0) {
        mon_warn("secure-execution mode (setuid, setgid or capabilities): profiling disabled, "
                 "nothing is written",
                 NULL);
        return;
    }
    mon_mpi_rank_from_env();
    mon_proc.follow = follow == NULL || strcmp(follow, "0") != 0;
    mon_proc.eintr_safe = eintr == NULL || strcmp(eintr, "0") != 0;
    if (!mon_proc.follow)
        stop_following();
    /* A real-time signal: deliveries from several sources queue instead of merging (a merged
     * perf overflow would never be re-armed), and the program keeps SIGPROF for itself. */
    mon_proc.signo = SIGRTMIN + 4;
    if (sig != NULL && atoi(sig) > 0 && atoi(sig) < NSIG)
        mon_proc.signo = atoi(sig);
    if (limit != NULL && strtoull(limit, NULL, 10) > 0)
        arena_limit = (size_t)strtoull(limit, NULL, 10);
    if (drop != NULL && strtoull(drop, NULL, 10) > 0)
        mon_proc.debug_drop_every = strtoull(drop, NULL, 10);
    if (events == NULL || events[0] == '\0')
        events = "CPUTIME@5000";
    if (parse_events(events, why_events, sizeof(why_events)) < 0) {
        mon_warn("bad CSPROF_EVENTS, profiling disabled", why_events);
        return;
    }
    mon_sync_init();
    if (outdir == NULL || outdir[0] == '\0')
        outdir = "measurements";
    if (outdir[0] != '/' && getcwd(mon_proc.outdir, sizeof(mon_proc.outdir) - 256) != NULL)
        snprintf(mon_proc.outdir + strlen(mon_proc.outdir),
                 sizeof(mon_proc.outdir) - strlen(mon_proc.outdir), "/%s", outdir);
    else
        snprintf(mon_proc.outdir, sizeof(mon_proc.outdir), "%s", outdir);
    /* Checkpoints of running threads: every second unless CSPROF_FLUSH_MS says (0 = never). */
    mon_proc.flush_period_ns = 1000000000u;
    if (flush != NULL && flush[0] != '\0')
        mon_proc.flush_period_ns = strtoull(flush, NULL, 10) * 1000000u;
    read_identity();
    /* csrun's run id goes into every file of the run (docs/csrun.md, "Runs"); one csrun could not
     * have made is ignored, so the files read as written without one. */
    mon_proc.run_id[0] = '\0';
    if (run_id != NULL && run_id[0] != '\0' && strlen(run_id) < sizeof(mon_proc.run_id) &&
        strspn(run_id, FMT_RUN_ID_CHARS) == strlen(run_id))
        snprintf(mon_proc.run_id, sizeof(mon_proc.run_id), "%s", run_id);
    else if (run_id != NULL && run_id[0] != '\0')
        mon_warn("CSPROF_RUN_ID is not a run id (up to 64 of A-Z a-z 0-9 . _ : -): the files "
                 "carry none",
                 NULL);
    if (mon_output_open(mon_proc.outdir, reason, sizeof(reason)) < 0) {
        mon_warn("no measurement file, profiling disabled", reason);
        return;
    }
    mon_proc.start_ns = mon_clock_ns(CLOCK_REALTIME);
    mon_unwind_init();
    mon_proc.trampoline = tramp == NULL || strcmp(tramp, "0") != 0;
    if (mon_proc.trampoline && !tramp_supported(&why)) {
        mon_warn("trampoline disabled, profiling continues without call counts", why);
        mon_proc.trampoline = false;
    }
    mon_loadmap_refresh();
    mon_output_publish_loadmap();
    if (pthread_key_create(&thread_key, thread_key_destructor) != 0)
        return;
    rc = mon_signals_install();
    if (rc < 0) {
        mon_warn("cannot install the sampling signal handler", strerror(-rc));
        return;
    }
    pthread_atfork(NULL, NULL, atfork_child);
    at_quick_exit(quick_exit_hook);
    mon_proc.active = true;
    /* A mask inherited across exec may block the sampling signal. */
    if (mon_mask_sampling_blocked())
        mon_mask_set_program_blocks(true);
    mon_mask_unblock_sampling();
    mon_thread_begin();
}

__attribute__((destructor)) static void
mon_fini(void)
{
    if (mon_proc.active)
        mon_finalize_process("exit");
}
