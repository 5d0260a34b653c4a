/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * write.c -- one thread's profile to one measurement file.
 *
 * Ordinary context, called with the thread's sampling stopped: at thread
 * exit, process exit, _exit and exec.  Uses mmap for memory and write(2)
 * through lib/fmt (no stdio, no malloc), so it also works in a fork child.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "cct/cct.h"
#include "fmt/fmt.h"
#include "monitor/mon_internal.h"
#include "monitor/mon_loadmap.h"
#include "monitor/mon_write.h"

#define MAX_MODULES 4096

struct write_ctx {
    struct fmt_writer *w;
    uint32_t nmods; /* modules written in the load map (ids below) */
    struct fmt_metric metrics[MON_MAX_EVENTS];
};

static int
write_node(const struct cct_node_view *v, void *arg)
{
    struct write_ctx *ctx = arg;
    struct fmt_node n;
    uint32_t nm = v->nmetrics < MON_MAX_EVENTS ? v->nmetrics : MON_MAX_EVENTS;

    memset(&n, 0, sizeof(n));
    n.id = v->id;
    n.parent = v->parent_id;
    n.kind = (uint32_t)v->kind;
    n.samples = v->samples;
    n.calls = v->calls;
    n.module = FMT_MODULE_NONE;
    n.offset = v->addr;
    if (v->kind != CCT_NODE_ROOT &&
        (mon_key_decode(v->addr, &n.module, &n.offset) < 0 || n.module >= ctx->nmods)) {
        n.module = FMT_MODULE_NONE;
        n.offset = mon_key_address(v->addr);
    }
    for (uint32_t i = 0; i < nm; i++) {
        ctx->metrics[i].event = v->metrics[i].event;
        ctx->metrics[i].value = v->metrics[i].value;
    }
    n.nmetrics = nm;
    n.metrics = ctx->metrics;
    return fmt_write_node(ctx->w, &n) < 0 ? -1 : 0;
}

static int
open_profile_file(const struct mon_thread *td, char *path, size_t size)
{
    for (unsigned gen = 0; gen < 10000; gen++) {
        int fd;

        snprintf(path, size, "%s/%s-%d-%u-%d-%u.cspm", mon_proc.outdir, mon_proc.progname,
                 (int)getpid(), td->thread_index, (int)td->tid, gen);
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    errno = EEXIST;
    return -1;
}

static void *
map_bytes(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    return p == MAP_FAILED ? NULL : p;
}

static uint64_t
thread_cpu_ns(const struct mon_thread *td)
{
    clockid_t clock;
    struct timespec ts;

    if (pthread_getcpuclockid(td->self, &clock) != 0 || clock_gettime(clock, &ts) < 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static const char *
mechanism_name(enum mon_mechanism m)
{
    return m == MON_MECH_PERF_TASK_CLOCK ? "perf-task-clock" : "posix-timer";
}

int
mon_write_profile(struct mon_thread *td)
{
    struct fmt_event events[MON_MAX_EVENTS];
    struct fmt_stat stats[MON_NOUTCOMES + 11 + MON_MAX_EVENTS + TRAMP_NCOUNTERS];
    char stat_names[MON_MAX_EVENTS][64];
    struct fmt_header h;
    struct write_ctx ctx;
    struct fmt_writer *w;
    struct fmt_module *fmods;
    struct mon_module *mods;
    char path[4096 + 512];
    size_t scratch_size, mods_size;
    void *scratch;
    uint32_t nmods, nstats = 0;
    int fd, rc = -1, err = 0;
    bool main_thread = td->thread_index == 0;

    mods_size = MAX_MODULES * (sizeof(*mods) + sizeof(*fmods));
    scratch_size = cct_walk_scratch_size(td->tree);
    w = map_bytes(sizeof(*w));
    mods = map_bytes(mods_size);
    scratch = map_bytes(scratch_size > 0 ? scratch_size : 1);
    if (w == NULL || mods == NULL || scratch == NULL) {
        err = ENOMEM;
        goto out_unmap;
    }
    fmods = (struct fmt_module *)(void *)(mods + MAX_MODULES);
    fd = open_profile_file(td, path, sizeof(path));
    if (fd < 0) {
        err = errno;
        goto out_unmap;
    }

    memset(&h, 0, sizeof(h));
    h.pid = (uint32_t)getpid();
    h.tid = (uint32_t)td->tid;
    h.thread_index = td->thread_index;
    h.rank = mon_proc.rank;
    h.start_ns = td->start_ns;
    h.end_ns = mon_clock_ns(CLOCK_REALTIME);
    h.cpu_ns = thread_cpu_ns(td);
    h.program = mon_proc.program;
    h.command = mon_proc.command;
    h.host = mon_proc.host;

    for (uint32_t i = 0; i < mon_proc.nevents; i++) {
        events[i].name = mon_proc.events[i].name;
        events[i].unit = "ns";
        events[i].mechanism = mechanism_name(mon_proc.events[i].mech);
        events[i].period = mon_proc.events[i].period_ns;
        events[i].display_scale = 1e-9;
        events[i].display_unit = "s";
    }

    nmods = mon_loadmap_copy(mods, MAX_MODULES);
    for (uint32_t i = 0; i < nmods; i++) {
        fmods[i].id = mods[i].id;
        fmods[i].epoch = mods[i].epoch;
        fmods[i].path = mods[i].path;
        fmods[i].build_id = mods[i].build_id_len ? mods[i].build_id : NULL;
        fmods[i].build_id_len = mods[i].build_id_len;
        fmods[i].load_bias = mods[i].load_bias;
        fmods[i].start = mods[i].start;
        fmods[i].end = mods[i].end;
    }

    /* Samples on threads csprof had no state for are reported in the main thread's file. */
    stats[nstats++] = (struct fmt_stat){"samples.recorded",
                                        td->counts[MON_SAMPLE_OK] + td->counts[MON_SAMPLE_PARTIAL]};
    stats[nstats++] = (struct fmt_stat){"samples.partial", td->counts[MON_SAMPLE_PARTIAL]};
    for (int o = MON_DROP_REENTERED; o < MON_NOUTCOMES; o++) {
        uint64_t v = td->counts[o] + (main_thread ? mon_process_count((enum mon_outcome)o) : 0);

        stats[nstats++] = (struct fmt_stat){mon_outcome_names[o], v};
    }
    for (uint32_t i = 0; i < mon_proc.nevents; i++) {
        snprintf(stat_names[i], sizeof(stat_names[i]), "event.%s.samples", mon_proc.events[i].name);
        stats[nstats++] = (struct fmt_stat){stat_names[i], td->event_samples[i]};
    }
    if (mon_proc.trampoline)
        for (int i = 0; i < TRAMP_NCOUNTERS; i++)
            stats[nstats++] = (struct fmt_stat){tramp_counter_names[i], td->tramp.counts[i]};
    stats[nstats++] = (struct fmt_stat){"timer.overruns", td->timer_overruns};
    if (main_thread) { /* process-wide: the load-map snapshots the stack walks read */
        stats[nstats++] = (struct fmt_stat){"loadmap.snapshots", mon_snapshot_count()};
        stats[nstats++] = (struct fmt_stat){"loadmap.walk_misses", mon_snapshot_misses()};
        stats[nstats++] = (struct fmt_stat){"loadmap.unserialized", mon_loader_lock_timeouts()};
    }
    stats[nstats++] = (struct fmt_stat){"cct.nodes", cct_size(td->tree)};
    stats[nstats++] = (struct fmt_stat){"arena.bytes", td->arena.bytes_mapped};

    ctx.w = w;
    ctx.nmods = nmods;
    if (fmt_writer_init(w, fd) < 0 || fmt_write_header(w, &h) < 0 ||
        fmt_write_events(w, events, mon_proc.nevents) < 0 ||
        fmt_write_loadmap(w, fmods, nmods) < 0 ||
        fmt_begin_cct(w, mon_loadmap_epoch(), cct_size(td->tree)) < 0 ||
        cct_walk(td->tree, write_node, &ctx, scratch) != 0 || fmt_end_cct(w) < 0 ||
        fmt_write_stats(w, stats, nstats) < 0 || fmt_writer_finish(w) < 0) {
        err = w->error == FMT_EIO && w->saved_errno ? w->saved_errno : EIO;
        close(fd);
        goto out_unmap;
    }
    if (close(fd) < 0) {
        err = errno;
        goto out_unmap;
    }
    rc = 0;
out_unmap:
    if (scratch != NULL)
        munmap(scratch, scratch_size > 0 ? scratch_size : 1);
    if (mods != NULL)
        munmap(mods, mods_size);
    if (w != NULL)
        munmap(w, sizeof(*w));
    errno = err;
    return rc;
}
