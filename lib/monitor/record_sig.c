/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * record_sig.c -- one thread's profile as one record of the process's
 * measurement file (mon_write.h).
 *
 * Runs in the sampling handler (checkpoints) and in ordinary context (final
 * records, possibly from a fatal-signal path), so everything here is
 * async-signal-safe: memory comes from mmap, the load map from the
 * published copy (never the load-map mutex), strings are built by hand, and
 * bytes reach the file with one raw pwrite(2) system call (support/sysio.h:
 * not the IO override) at an offset reserved with an atomic add.  No malloc, no stdio, no lock, no new file descriptor (except
 * re-opening our own file if the program closed it).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cct/cct.h"
#include "fmt/fmt.h"
#include "monitor/mon_internal.h"
#include "monitor/mon_loadmap.h"
#include "monitor/mon_output.h"
#include "monitor/mon_sys.h"
#include "monitor/mon_write.h"
#include "support/sysio.h"

#define PAGE 4096u

struct rec_ctx {
    struct fmt_writer *w;
    const struct fmt_module *mods;
    uint32_t nmods;
    bool may_lock; /* ordinary context: the load map's full history may be consulted */
    struct fmt_metric metrics[MON_MAX_EVENTS];
};

static void *
map_bytes(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    return p == MAP_FAILED ? NULL : p;
}

static uint64_t
round_up(uint64_t n, uint64_t to)
{
    return (n + to - 1) / to * to;
}

/*
 * Working memory of a record: a few buffers kept for the life of the process
 * (taken with a compare-and-swap, so a handler that finds them all busy
 * maps its own), because unmapping memory in a multi-threaded process costs
 * an interrupt to every CPU it runs on, and short threads would pay it at
 * each exit.
 */
#define POOL_N     4
#define POOL_BYTES ((size_t)1 << 20)

static struct {
    atomic_int busy;
    void *_Atomic mem;
} pool[POOL_N];

/* @size bytes of zero-filled-or-reused memory; *@slot is the pool slot or -1 (mmap'd). */
static void *
work_get(size_t size, int *slot)
{
    *slot = -1;
    if (size <= POOL_BYTES)
        for (int i = 0; i < POOL_N; i++) {
            int expected = 0;
            void *m;

            if (!atomic_compare_exchange_strong(&pool[i].busy, &expected, 1))
                continue;
            m = atomic_load(&pool[i].mem);
            if (m == NULL) {
                m = map_bytes(POOL_BYTES);
                if (m == NULL) {
                    atomic_store(&pool[i].busy, 0);
                    break;
                }
                atomic_store(&pool[i].mem, m);
            }
            *slot = i;
            return m;
        }
    return map_bytes(size);
}

void
mon_record_after_fork(void)
{
    for (int i = 0; i < POOL_N; i++)
        atomic_store(&pool[i].busy, 0); /* buffers other threads held at fork: theirs no more */
}

static void
work_put(void *mem, size_t size, int slot)
{
    if (slot >= 0)
        atomic_store(&pool[slot].busy, 0);
    else
        munmap(mem, size);
}

/* Modules in the published load map now (it may grow before map_snapshot). */
static uint32_t
map_size(void)
{
    struct mon_map_buf *b = mon_out.map[atomic_load(&mon_out.map_active) & 1u];

    return b == NULL ? 0 : b->n <= MON_MAX_MODULES ? b->n : MON_MAX_MODULES;
}

/* Copy the published load map into @dst (room for @max modules, the first @max if it has
 * more); -1 if it kept changing. */
static int
map_snapshot(struct fmt_module *dst, uint32_t max, uint32_t *n)
{
    for (int tries = 0; tries < 8; tries++) {
        unsigned a = atomic_load(&mon_out.map_active) & 1u;
        struct mon_map_buf *b = mon_out.map[a];
        unsigned s1, s2;

        if (b == NULL)
            break;
        s1 = atomic_load(&b->seq);
        if (s1 & 1u)
            continue;
        *n = b->n <= max ? b->n : max;
        memcpy(dst, b->mods, *n * sizeof(*dst));
        atomic_thread_fence(memory_order_acquire);
        s2 = atomic_load(&b->seq);
        if (s1 == s2)
            return 0;
    }
    *n = 0;
    return -1;
}

/* Whether module @id is in the record's load map. */
static bool
module_written(const struct rec_ctx *ctx, uint32_t id)
{
    if (id < ctx->nmods && ctx->mods[id].id == id)
        return true; /* ids are handed out in order */
    for (uint32_t i = 0; i < ctx->nmods; i++)
        if (ctx->mods[i].id == id)
            return true;
    return false;
}

/*
 * Module and module-relative offset of a CCT node's address: a run-time
 * address is looked up in the published load map.  Where the load map hands
 * out CCT keys that already name the module (mon_loadmap.h defines
 * MON_KEY_MODULE), such a key is decoded here without the load-map mutex.
 * Returns false when no written module holds it.
 */
static bool
decode_key(struct rec_ctx *ctx, uint64_t addr, uint32_t *id, uint64_t *offset)
{
    uint64_t raw = addr & MON_KEY_OFFSET;
    bool found = false;

    if ((addr & MON_KEY_MODULE) != 0) { /* a module's key, or a raw one naming no module */
        uint32_t kid = (uint32_t)((addr & ~MON_KEY_MODULE) >> MON_KEY_ID_SHIFT);

        if ((addr & MON_KEY_RAW) == MON_KEY_RAW || !module_written(ctx, kid))
            return false;
        *id = kid;
        *offset = raw;
        return true;
    }
    /* An address taken outside a snapshot (it carries the snapshot's sequence number).  In
     * ordinary context the load map's history says which module appeared after that
     * snapshot; in a handler (checkpoints, fatal signals) only an address that a single
     * written module ever held is given one: a reused range is never guessed. */
    if (ctx->may_lock)
        return mon_key_decode((uintptr_t)addr, id, offset) == 0 && module_written(ctx, *id);
    for (uint32_t i = 0; i < ctx->nmods; i++) {
        const struct fmt_module *m = &ctx->mods[i];

        if (raw >= m->start && raw < m->end) {
            if (found)
                return false;
            *id = m->id;
            *offset = raw - m->load_bias;
            found = true;
        }
    }
    return found;
}

static int
rec_node(const struct cct_node_view *v, void *arg)
{
    struct rec_ctx *ctx = arg;
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
    if (v->kind != CCT_NODE_ROOT && !decode_key(ctx, v->addr, &n.module, &n.offset)) {
        n.module = FMT_MODULE_NONE;
        n.offset = v->addr & MON_KEY_MODULE ? v->addr : v->addr & MON_KEY_OFFSET;
    }
    for (uint32_t i = 0; i < nm; i++) {
        ctx->metrics[i].event = v->metrics[i].event;
        ctx->metrics[i].value = v->metrics[i].value;
    }
    n.nmetrics = nm;
    n.metrics = ctx->metrics;
    return fmt_write_node(ctx->w, &n) < 0 ? -1 : 0;
}

/* Whether our descriptor still names our file; if the program closed it (close_range) or
 * reused its number, re-open the file by path.  Returns the descriptor or -1. */
static int
output_fd(void)
{
    int fd = atomic_load(&mon_out.fd);
    struct stat st;
    int nfd, hi;

    if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == mon_out.dev && st.st_ino == mon_out.ino)
        return fd;
    if (mon_out.path[0] == '\0')
        return -1;
    nfd = open(mon_out.path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (nfd < 0)
        return -1;
    if (fstat(nfd, &st) != 0 || st.st_dev != mon_out.dev || st.st_ino != mon_out.ino) {
        close(nfd);
        return -1;
    }
    hi = fcntl(nfd, F_DUPFD_CLOEXEC, 1000);
    if (hi >= 0) {
        close(nfd);
        nfd = hi;
    }
    if (atomic_compare_exchange_strong(&mon_out.fd, &fd, nfd)) {
        atomic_fetch_add(&mon_out.reopened, 1);
        return nfd;
    }
    close(nfd); /* another thread re-opened it first */
    return atomic_load(&mon_out.fd);
}

static int
write_at(const uint8_t *p, uint64_t len, uint64_t off)
{
    int fd = output_fd();

    if (fd < 0)
        return -EBADF;
    while (len > 0) {
        ssize_t n = csp_sys_pwrite(fd, p, len, (off_t)off);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EIO;
        p += n;
        off += (uint64_t)n;
        len -= (uint64_t)n;
    }
    return 0;
}

/* Reserve @len bytes (rounded to the record alignment) at the end of the file. */
static uint64_t
reserve(uint64_t len)
{
    return atomic_fetch_add(&mon_out.end, round_up(len, 8));
}

/* Copy @a, @b then @c into @dst (room for @size), NUL-terminated. */
static void
concat3(char *dst, size_t size, const char *a, const char *b, const char *c)
{
    size_t n = 0;

    for (const char *s = a; *s && n + 1 < size; s++)
        dst[n++] = *s;
    for (const char *s = b; *s && n + 1 < size; s++)
        dst[n++] = *s;
    for (const char *s = c; *s && n + 1 < size; s++)
        dst[n++] = *s;
    dst[n] = '\0';
}

CSP_SIGSAFE int
mon_record_write(struct mon_thread *td, bool checkpoint)
{
    struct fmt_event events[MON_MAX_EVENTS];
    struct fmt_stat
        stats[MON_NOUTCOMES + 32 + (3 + MON_LEDGER_FIELDS) * MON_MAX_EVENTS + TRAMP_NCOUNTERS];
    struct fmt_header h;
    struct rec_ctx ctx;
    struct fmt_writer *w;
    struct fmt_module *mods; /* the published load map's records, copied */
    size_t fixed_size, scratch_size, nodes_size, total;
    uint64_t cap, len;
    uint8_t *mem;
    void *scratch, *work;
    uint32_t nmods = 0, nstats = 0, slot, maxmods = map_size() + 32, writer_stat;
    uint64_t t0, t1;
    int rc = -ENOMEM, wslot;
    bool main_thread = td->thread_index == 0;

    if (atomic_load(&mon_out.fd) < 0)
        return -EBADF;
    t0 = mon_clock_ns(CLOCK_THREAD_CPUTIME_ID); /* the writing thread's, maybe not td's */
    /* One block: writer, modules, walk scratch, then the record itself, whose size is
     * bounded from the sizes measurement-format.md gives. */
    if (maxmods > MON_MAX_MODULES)
        maxmods = MON_MAX_MODULES;
    scratch_size = round_up(cct_walk_scratch_size(td->tree) + 64, 64);
    fixed_size = round_up(sizeof(*w), 64) + round_up(maxmods * sizeof(*mods), 64) + scratch_size;
    nodes_size = (size_t)cct_size(td->tree) * (52 + 12 * (size_t)mon_proc.nevents);
    cap = 65536 + strlen(mon_proc.program) + strlen(mon_proc.command) + strlen(mon_proc.host) +
          nodes_size + (uint64_t)maxmods * (64 + 64 + 4096);
    total = round_up(fixed_size + cap, PAGE);
    work = work_get(total, &wslot);
    if (work == NULL)
        goto out_count;
    w = work;
    mods = (struct fmt_module *)(void *)((uint8_t *)w + round_up(sizeof(*w), 64));
    scratch = (uint8_t *)mods + round_up(maxmods * sizeof(*mods), 64);
    mem = (uint8_t *)scratch + scratch_size;
    cap = total - fixed_size;
    if (map_snapshot(mods, maxmods, &nmods) < 0)
        nmods = 0; /* kept changing: addresses stay absolute in this record */

    memset(&h, 0, sizeof(h));
    h.pid = (uint32_t)getpid();
    h.tid = (uint32_t)td->tid;
    h.thread_index = td->thread_index;
    h.rank = mon_proc.rank;
    h.generation = mon_proc.generation;
    h.start_ns = td->start_ns;
    h.end_ns = mon_clock_ns(CLOCK_REALTIME);
    h.cpu_ns = mon_thread_cpu_ns(td->tid);
    h.program = mon_proc.program;
    h.command = mon_proc.command;
    h.host = mon_proc.host;
    h.run_id = mon_proc.run_id;

    for (uint32_t i = 0; i < mon_proc.nevents; i++) {
        events[i].name = mon_proc.events[i].name;
        events[i].unit = mon_proc.events[i].unit;
        events[i].mechanism = mon_proc.events[i].mechanism;
        events[i].period = mon_proc.events[i].period;
        events[i].display_scale = mon_proc.events[i].display_scale;
        events[i].display_unit = mon_proc.events[i].display_unit;
    }

    /* Samples on threads csprof had no state for are reported in the main thread's record. */
    stats[nstats++] = (struct fmt_stat){"samples.recorded",
                                        td->counts[MON_SAMPLE_OK] + td->counts[MON_SAMPLE_PARTIAL]};
    stats[nstats++] = (struct fmt_stat){"samples.partial", td->counts[MON_SAMPLE_PARTIAL]};
    for (int o = MON_DROP_REENTERED; o < MON_NOUTCOMES; o++) {
        uint64_t v = td->counts[o] + (main_thread ? mon_process_count((enum mon_outcome)o) : 0);

        stats[nstats++] = (struct fmt_stat){mon_out.drop_stat[o - MON_DROP_REENTERED], v};
    }
    for (uint32_t i = 0; i < mon_proc.nevents && i < 8; i++) {
        stats[nstats++] = (struct fmt_stat){mon_out.event_stat[i], td->event_samples[i]};
        if (mon_proc.events[i].src == &mon_source_perf ||
            mon_proc.events[i].src == &mon_source_task_clock) {
            /* The event's time enabled and counting: running < enabled when multiplexed. */
            uint64_t enabled, running;

            mon_perf_times(td, i, &enabled, &running);
            stats[nstats++] = (struct fmt_stat){mon_out.event_enabled_stat[i], enabled};
            stats[nstats++] = (struct fmt_stat){mon_out.event_running_stat[i], running};
        }
        if (mon_proc.events[i].src != &mon_source_sync) {
            struct mon_ledger l;

            mon_source_ledger(td, i, &l);
            const uint64_t f[MON_LEDGER_FIELDS] = {l.measured, l.recorded, l.kernel, l.dropped,
                                                   l.unplaced, l.tail,     l.pending};
            for (int k = 0; k < MON_LEDGER_FIELDS; k++)
                stats[nstats++] = (struct fmt_stat){mon_out.event_ledger_stat[i][k], f[k]};
        }
    }
    if (mon_proc.trampoline)
        for (int i = 0; i < TRAMP_NCOUNTERS; i++)
            stats[nstats++] = (struct fmt_stat){tramp_counter_names[i], tramp_count(&td->tramp, i)};
    stats[nstats++] = (struct fmt_stat){"timer.overruns", td->timer_overruns};
    stats[nstats++] = (struct fmt_stat){"signals.merged", td->signals_merged};
    stats[nstats++] = (struct fmt_stat){"handler.signals", td->handler_signals};
    stats[nstats++] = (struct fmt_stat){"handler.timed", td->handler_timed};
    stats[nstats++] = (struct fmt_stat){"handler.timed_cpu_ns", td->handler_timed_ns};
    stats[nstats++] = (struct fmt_stat){"handler.first_cpu_ns", td->handler_first_ns};
    writer_stat = nstats; /* its value is set when the tree has been serialized */
    stats[nstats++] = (struct fmt_stat){"writer.cpu_ns", td->writer_cpu_ns};
    stats[nstats++] = (struct fmt_stat){"thread.sampling_blocked", td->sampling_blocked};
    stats[nstats++] = (struct fmt_stat){"thread.timer_fallback", mon_task_clock_fell_back(td)};
    stats[nstats++] = (struct fmt_stat){
        "thread.sampled_cpu_ns",
        td->armed_cpu_ns +
            (td->sources_armed ? mon_thread_cpu_ns(td->tid) - td->armed_cpu_start_ns : 0)};
    if (main_thread) {
        stats[nstats++] = (struct fmt_stat){"exec.not_followed", mon_process_exec_not_followed()};
        stats[nstats++] = (struct fmt_stat){"threads.untracked", mon_proc.threads_untracked};
        stats[nstats++] =
            (struct fmt_stat){"threads.untracked.cpu_ns", mon_proc.threads_untracked_cpu_ns};
    }
    stats[nstats++] = (struct fmt_stat){"cct.nodes", cct_size(td->tree)};
    stats[nstats++] = (struct fmt_stat){"arena.bytes", td->arena.bytes_mapped};
    stats[nstats++] = (struct fmt_stat){"unwind.frames_capacity", td->bt.max}; /* depth_sig.c */
    stats[nstats++] = (struct fmt_stat){"checkpoints.written", td->ckpt_written};
    stats[nstats++] = (struct fmt_stat){"checkpoints.failed", td->ckpt_failed};
    if (mon_proc.world_size > 0) /* the header has the rank; the world size goes here (mpi.c) */
        stats[nstats++] = (struct fmt_stat){"mpi.world_size", mon_proc.world_size};
    if (main_thread && !checkpoint && !atomic_load(&mon_out.map_frozen)) {
        /* Process-wide, about the load-map snapshots the stack walks read.  These take the
         * load-map mutex: never from a handler (checkpoints, fatal signals), where the
         * interrupted code may hold it (a deadlock seen under MPI_Init). */
        stats[nstats++] = (struct fmt_stat){"loadmap.snapshots", mon_snapshot_count()};
        stats[nstats++] = (struct fmt_stat){"loadmap.walk_misses", mon_snapshot_misses()};
        stats[nstats++] = (struct fmt_stat){"loadmap.unserialized", mon_loader_lock_timeouts()};
    }
    if (main_thread) {
        stats[nstats++] = (struct fmt_stat){"records.lost", atomic_load(&mon_out.lost)};
        stats[nstats++] = (struct fmt_stat){"output.reopened", atomic_load(&mon_out.reopened)};
    }

    ctx.w = w;
    ctx.mods = mods;
    ctx.nmods = nmods;
    ctx.may_lock = !checkpoint && !atomic_load(&mon_out.map_frozen);
    if (fmt_writer_init_mem(w, mem, cap) < 0 || fmt_write_header(w, &h) < 0 ||
        fmt_write_events(w, events, mon_proc.nevents) < 0 ||
        fmt_write_loadmap(w, mods, nmods) < 0 || fmt_begin_cct(w, 0, cct_size(td->tree)) < 0 ||
        cct_walk(td->tree, rec_node, &ctx, scratch) != 0 || fmt_end_cct(w) < 0) {
        rc = w->error == FMT_EIO && w->saved_errno ? -w->saved_errno : -EIO;
        goto out_put_work;
    }
    /* This record's own cost so far: all of it but the write(2) below. */
    t1 = mon_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    stats[writer_stat].value += t1 > t0 ? t1 - t0 : 0;
    if (fmt_write_stats(w, stats, nstats) < 0 ||
        fmt_write_record(w, checkpoint ? FMT_RECORD_CHECKPOINT : 0, td->record_seq) < 0 ||
        fmt_writer_finish(w) < 0) {
        rc = w->error == FMT_EIO && w->saved_errno ? -w->saved_errno : -EIO;
        goto out_put_work;
    }
    len = w->offset;
    td->record_seq++;
    if (!checkpoint) {
        rc = write_at(mem, len, reserve(len));
    } else {
        /* Two slots, used in turn, so a checkpoint cut off by a kill leaves the previous one
         * whole.  A slot too small for this one is replaced by a new one twice its size:
         * the thread's slots together stay under 8 times its largest checkpoint. */
        slot = (uint32_t)(td->ckpt_written & 1u);
        if (td->slot_cap[slot] < len) {
            td->slot_cap[slot] = round_up(2 * len, PAGE);
            td->slot_off[slot] = reserve(td->slot_cap[slot]);
        }
        rc = write_at(mem, len, td->slot_off[slot]);
    }
out_put_work:
    work_put(work, total, wslot);
out_count:
    if (rc < 0 && !checkpoint)
        atomic_fetch_add(&mon_out.lost, 1);
    t1 = mon_clock_ns(CLOCK_THREAD_CPUTIME_ID);
    td->writer_cpu_ns += t1 > t0 ? t1 - t0 : 0;
    return rc;
}

CSP_SIGSAFE void
mon_checkpoint_maybe(struct mon_thread *td)
{
    uint64_t now;

    if (mon_proc.flush_period_ns == 0)
        return;
    now = mon_clock_ns(CLOCK_MONOTONIC);
    if (now - td->ckpt_last_ns < mon_proc.flush_period_ns)
        return;
    td->ckpt_last_ns = now;
    if (mon_record_write(td, true) < 0)
        td->ckpt_failed++;
    else
        td->ckpt_written++;
}

/* The ledger's counter names (struct mon_ledger, in order). */
static const char *const ledger_suffix[MON_LEDGER_FIELDS] = {
    ".measured", ".recorded", ".kernel", ".dropped", ".unplaced", ".tail", ".pending",
};

void
mon_record_name_events(void)
{
    for (int k = 0; k < FMT_NDROP_REASONS; k++)
        concat3(mon_out.drop_stat[k], sizeof(mon_out.drop_stat[k]), "samples.dropped.",
                fmt_drop_reasons[k], "");
    for (uint32_t i = 0; i < mon_proc.nevents && i < 8; i++) {
        concat3(mon_out.event_stat[i], sizeof(mon_out.event_stat[i]), "event.",
                mon_proc.events[i].name, ".samples");
        concat3(mon_out.event_enabled_stat[i], sizeof(mon_out.event_enabled_stat[i]), "event.",
                mon_proc.events[i].name, ".enabled_ns");
        concat3(mon_out.event_running_stat[i], sizeof(mon_out.event_running_stat[i]), "event.",
                mon_proc.events[i].name, ".running_ns");
        for (int k = 0; k < MON_LEDGER_FIELDS; k++)
            concat3(mon_out.event_ledger_stat[i][k], sizeof(mon_out.event_ledger_stat[i][k]),
                    "event.", mon_proc.events[i].name, ledger_suffix[k]);
    }
}

void
mon_output_freeze_map(void)
{
    atomic_store(&mon_out.map_frozen, 1);
}
