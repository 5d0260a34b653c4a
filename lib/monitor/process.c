/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * process.c -- the process state's one owner (mon_process.h).
 *
 * The configuration csrun left in the environment is read here, once, in
 * the constructor (monitor.c calls mon_process_configure*); the fields that
 * change while the program runs (stopped, thread indices, exec and
 * untracked-thread counts, the MPI rank, the generation after a failed
 * exec, the fork child's new profile) change only through the functions
 * below (the atomic ones, which the signal handler reads, in process_sig.c).
 * Every other file sees a const view (mon_proc_ro).
 */
#define MON_PROCESS_OWNER 1

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmt/fmt.h"
#include "monitor/mon_internal.h"
#include "monitor/mon_process.h"
#include "monitor/mon_sys.h"
#include "support/event_spec.h"
#include "support/sysio.h"

struct mon_process mon_proc;
const struct mon_process *const mon_proc_ro = &mon_proc;

void
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

void
mon_process_configure_follow(void)
{
    const char *follow = getenv("CSPROF_FOLLOW");
    const char *eintr = getenv("CSPROF_EINTR_SAFE");

    mon_proc.follow = follow == NULL || strcmp(follow, "0") != 0;
    mon_proc.eintr_safe = eintr == NULL || strcmp(eintr, "0") != 0;
}

int
mon_process_configure(void (*after_events)(void))
{
    const char *events = getenv("CSPROF_EVENTS");
    const char *outdir = getenv("CSPROF_OUTDIR");
    const char *sig = getenv("CSPROF_SIGNAL");
    const char *limit = getenv("CSPROF_MEMORY_LIMIT");
    const char *flush = getenv("CSPROF_FLUSH_MS");
    const char *drop = getenv("CSPROF_DEBUG_DROP_EVERY");
    const char *run_id = getenv("CSPROF_RUN_ID");
    char why_events[1024];

    /* A real-time signal: deliveries from several sources queue instead of merging (a merged
     * perf overflow would never be re-armed), and the program keeps SIGPROF for itself. */
    mon_proc.signo = SIGRTMIN + 4;
    if (sig != NULL && atoi(sig) > 0 && atoi(sig) < NSIG)
        mon_proc.signo = atoi(sig);
    mon_proc.arena_limit = (size_t)1 << 30;
    if (limit != NULL && strtoull(limit, NULL, 10) > 0)
        mon_proc.arena_limit = (size_t)strtoull(limit, NULL, 10);
    if (drop != NULL && strtoull(drop, NULL, 10) > 0)
        mon_proc.debug_drop_every = strtoull(drop, NULL, 10);
    if (events == NULL || events[0] == '\0')
        events = "CPUTIME@5000";
    if (parse_events(events, why_events, sizeof(why_events)) < 0) {
        mon_warn("bad CSPROF_EVENTS, profiling disabled", why_events);
        return -1;
    }
    if (after_events != NULL)
        after_events();
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
    return 0;
}

void
mon_process_set_start(void)
{
    mon_proc.start_ns = mon_clock_ns(CLOCK_REALTIME);
}

void
mon_process_configure_trampoline(void)
{
    const char *tramp = getenv("CSPROF_TRAMPOLINE");
    const char *why = NULL;

    mon_proc.trampoline = tramp == NULL || strcmp(tramp, "0") != 0;
    if (mon_proc.trampoline && !tramp_supported(&why)) {
        mon_warn("trampoline disabled, profiling continues without call counts", why);
        mon_proc.trampoline = false;
    }
}

void
mon_process_activate(void)
{
    mon_proc.active = true;
}

void
mon_process_deactivate(void)
{
    mon_proc.active = false;
    mon_process_stop();
}

void
mon_process_set_rank(int32_t rank, uint32_t world_size)
{
    mon_proc.rank = rank;
    mon_proc.world_size = world_size;
}

void
mon_process_count_untracked(uint64_t cpu_ns)
{
    mon_proc.threads_untracked++;
    mon_proc.threads_untracked_cpu_ns += cpu_ns;
}

void
mon_process_restart(bool forked)
{
    mon_process_restart_counts();
    mon_proc.threads_untracked = 0;
    mon_proc.threads_untracked_cpu_ns = 0;
    mon_proc.start_ns = mon_clock_ns(CLOCK_REALTIME);
    read_identity();
    if (forked)
        mon_proc.generation = 0;
    else
        mon_proc.generation++; /* same pid, same file: records tell the profiles apart */
}
