/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * monitor.c -- the monitor's entry points inside the profiled process.
 *
 * The constructor reads the configuration csrun left in the environment
 * (process.c), installs the handlers and starts sampling the main thread
 * before main(); the destructor and quick_exit write every profile.  The
 * rest of the life cycle has its own files: the process state (process.c),
 * the thread registry, each thread's start and end and the writing of the
 * profiles (thread.c), fork and exec (forkexec.c).  Ordinary context: this
 * file never runs inside the sampling handler, and may allocate and lock.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_loadmap.h"
#include "monitor/mon_real.h"
#include "monitor/mon_signals.h"
#include "monitor/mon_sync.h"
#include "monitor/mon_sys.h"
#include "monitor/mon_write.h"

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
    char reason[4096 + 256];
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
    mon_process_configure_follow();
    if (!mon_proc.follow)
        mon_stop_following();
    if (mon_process_configure(mon_sync_init) < 0)
        return;
    if (mon_output_open(mon_proc.outdir, reason, sizeof(reason)) < 0) {
        mon_warn("no measurement file, profiling disabled", reason);
        return;
    }
    mon_process_set_start();
    mon_unwind_init();
    mon_process_configure_trampoline();
    mon_loadmap_refresh();
    mon_output_publish_loadmap();
    if (mon_threads_init() < 0)
        return;
    rc = mon_signals_install();
    if (rc < 0) {
        mon_warn("cannot install the sampling signal handler", strerror(-rc));
        return;
    }
    pthread_atfork(NULL, NULL, mon_atfork_child);
    at_quick_exit(quick_exit_hook);
    mon_process_activate();
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
