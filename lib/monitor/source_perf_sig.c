/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source_perf_sig.c -- the handler's side of the perf_event source.
 *
 * Runs in signal context: reads the event's ring buffer (memory shared with
 * the kernel, ordered by the acquire/release protocol of
 * perf_event_open(2), "data_head" and "data_tail"), and calls read(2) and
 * ioctl(2) only when the ring cannot serve.  Each sample record carries
 * PERF_SAMPLE_READ's {count, time enabled, time running} and, in its
 * header, the mode (user or kernel) the period ended in.
 */
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "monitor/mon_internal.h"
#include "support/sysio.h"

bool
mon_perf_owns(const struct mon_thread *td, uint32_t ev, const siginfo_t *si)
{
    /* fasync signals carry POLL_IN (or POLL_HUP for the last of a refresh) and the fd. */
    return si->si_code > 0 && td->src[ev].perf.fd >= 0 && si->si_fd == td->src[ev].perf.fd;
}

/* Copy @n bytes at ring offset @off (wrapping at @size) to @out. */
static void
ring_copy(const unsigned char *data, uint64_t size, uint64_t off, void *out, size_t n)
{
    size_t first = (size_t)(size - off % size);

    if (first > n)
        first = n;
    memcpy(out, data + off % size, first);
    memcpy((unsigned char *)out + first, data, n - first);
}

/* What the ring held since the previous signal. */
struct ring_scan {
    uint64_t newest[3]; /* the newest sample record's {count, enabled, running} */
    uint64_t records;   /* sample records */
    /* The task clock: the count since the previous record, summed by the mode each record's
     * period ended in; and the periods a user-mode-only clock skipped in the kernel. */
    uint64_t user, kernel, unplaced;
    uint64_t lost; /* records the kernel could not write (PERF_RECORD_LOST) */
};

/*
 * Consume the ring's records into @r, counting each sample record's count
 * from the previous one (from @last for the first).  @user_only: the event
 * samples user mode only, so a record's count also holds the periods that
 * ended in the kernel since the previous one (to the nearest period: the
 * timer fires a little late), which go to r->unplaced.  Returns false when
 * no sample record was waiting.  The reader's side of perf_event_open(2)'s
 * protocol: data_head read with acquire order, data_tail stored with
 * release order.
 */
static bool
ring_scan(struct perf_event_mmap_page *pg, uint64_t last, uint64_t period, bool user_only,
          struct ring_scan *r)
{
    const unsigned char *data = (const unsigned char *)pg + pg->data_offset;
    uint64_t size = pg->data_size;
    uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = pg->data_tail;

    memset(r, 0, sizeof(*r));
    while (tail + sizeof(struct perf_event_header) <= head) {
        struct perf_event_header h;

        ring_copy(data, size, tail, &h, sizeof(h));
        if (h.size < sizeof(h) || tail + h.size > head)
            break; /* not a record we can trust: skip to the head */
        if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + 3 * sizeof(uint64_t)) {
            uint64_t delta;

            ring_copy(data, size, tail + sizeof(h), r->newest, 3 * sizeof(uint64_t));
            delta = r->newest[0] > last ? r->newest[0] - last : 0;
            last = r->newest[0];
            r->records++;
            if ((h.misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_USER) {
                r->kernel += delta;
            } else {
                uint64_t skipped = user_only && period > 0 && delta >= period + period / 2
                                       ? ((delta + period / 2) / period - 1) * period
                                       : 0;

                r->unplaced += skipped;
                r->user += delta - skipped;
            }
        } else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 2 * sizeof(uint64_t)) {
            uint64_t idl[2]; /* {id, lost} */

            ring_copy(data, size, tail + sizeof(h), idl, sizeof(idl));
            r->lost += idl[1];
        }
        tail += h.size;
    }
    __atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
    return r->records > 0;
}

uint64_t
mon_perf_drain(struct mon_thread *td, uint32_t ev)
{
    struct mon_perf_thread *s = &td->src[ev].perf;
    struct ring_scan r;

    if (s->ring == NULL || s->ring->data_size == 0 || !ring_scan(s->ring, s->last, 0, false, &r))
        return s->last;
    return r.newest[0] > s->last ? r.newest[0] : s->last;
}

/*
 * A perf counter: the count since the previous charged sample.  When the
 * kernel multiplexed the counter (running < enabled over the interval), the
 * count it saw is scaled by enabled/running for that interval, the estimate
 * perf stat makes (perf_event_open(2), "read_format").
 */
void
mon_perf_charge(struct mon_thread *td, uint32_t ev, const siginfo_t *si, struct mon_charge *c)
{
    struct mon_perf_thread *s = &td->src[ev].perf;
    struct ring_scan r;
    uint64_t v[3], delta, d_enabled, d_running;

    CSP_UNUSED(si);
    c->user = c->kernel = 0;
    if (s->ring != NULL && s->ring->data_size != 0 && ring_scan(s->ring, s->last, 0, false, &r)) {
        memcpy(v, r.newest, sizeof(v));
    } else if (s->ring != NULL && s->ring->data_size != 0) {
        return; /* its records were taken by an earlier signal's sample */
    } else if (csp_sys_read(s->fd, v, sizeof(v)) != (ssize_t)sizeof(v)) {
        return;
    }
    delta = v[0] > s->last ? v[0] - s->last : 0;
    d_enabled = v[1] > s->enabled_ns ? v[1] - s->enabled_ns : 0;
    d_running = v[2] > s->running_ns ? v[2] - s->running_ns : 0;
    s->last = v[0];
    s->enabled_ns = v[1];
    s->running_ns = v[2];
    if (d_running > 0 && d_enabled > d_running)
        delta = (uint64_t)((double)delta * (double)d_enabled / (double)d_running);
    c->user = delta;
}

/*
 * CPUTIME's task clock: each sample record stands for the CPU time since
 * the previous record, at the sampled context, or at its [kernel] child for
 * a record whose period ended in kernel mode.  A record made in the kernel
 * signals the thread on its way back to user mode, so the interrupted
 * instruction is where the system call (or page fault) was made.  When the
 * event samples user mode only (perf_event_paranoid above 1 without
 * CAP_PERFMON), a period that ends in the kernel makes no record: the
 * periods a record's count holds beyond its own go to the ledger's
 * `unplaced`, never to the user code that happens to run next.  The
 * periods of records the kernel lost go to the ledger's `dropped`.
 */
void
mon_task_clock_perf_charge(struct mon_thread *td, uint32_t ev, const siginfo_t *si,
                           struct mon_charge *c)
{
    struct mon_perf_thread *s = &td->src[ev].perf;
    const struct mon_event *e = &mon_proc.events[ev];
    struct ring_scan r;

    CSP_UNUSED(si);
    c->user = c->kernel = 0;
    if (s->ring != NULL && s->ring->data_size != 0) {
        if (!ring_scan(s->ring, s->last, e->period, e->attr.exclude_kernel, &r))
            return; /* its records were taken by an earlier signal's sample */
    } else {
        /* No ring (perf_event_mlock_kb spent): the count alone, as one user-mode record. */
        memset(&r, 0, sizeof(r));
        if (csp_sys_read(s->fd, r.newest, sizeof(r.newest)) != (ssize_t)sizeof(r.newest))
            return;
        r.records = 1;
        r.user = r.newest[0] > s->last ? r.newest[0] - s->last : 0;
        if (e->attr.exclude_kernel && e->period > 0 && r.user >= e->period + e->period / 2) {
            r.unplaced = ((r.user + e->period / 2) / e->period - 1) * e->period;
            r.user -= r.unplaced;
        }
    }
    s->last = r.newest[0];
    /* A lost record's period is in the next record's count: it was no sample's. */
    r.lost *= e->period;
    if (r.lost > r.user + r.kernel)
        r.lost = r.user + r.kernel;
    if (r.lost > r.user) {
        r.kernel -= r.lost - r.user;
        r.user = 0;
    } else {
        r.user -= r.lost;
    }
    td->ledger[ev].dropped += r.lost;
    td->ledger[ev].unplaced += r.unplaced;
    c->user = r.user;
    c->kernel = r.kernel;
}

void
mon_perf_rearm(struct mon_thread *td, uint32_t ev, const siginfo_t *si)
{
    /* POLL_HUP: the last overflow of a refresh; the kernel has disabled the event. */
    if (si->si_code == POLL_HUP && td->src[ev].perf.fd >= 0)
        ioctl(td->src[ev].perf.fd, PERF_EVENT_IOC_REFRESH, (int)mon_proc.events[ev].perf_refresh);
}

int
mon_perf_fd(const struct mon_thread *td, uint32_t ev)
{
    return td->src[ev].perf.fd;
}

void
mon_perf_times(const struct mon_thread *td, uint32_t ev, uint64_t *enabled_ns, uint64_t *running_ns)
{
    *enabled_ns = td->src[ev].perf.enabled_ns;
    *running_ns = td->src[ev].perf.running_ns;
}

uint64_t
mon_perf_ledger_tail(const struct mon_thread *td, uint32_t ev, struct mon_ledger *out)
{
    const struct mon_perf_thread *s = &td->src[ev].perf;
    uint64_t v[3] = {0, 0, 0};

    /* (records waiting in the ring stay there: their signal may yet come) */
    if (csp_sys_read(s->fd, v, sizeof(v)) == (ssize_t)sizeof(v))
        out->tail += v[0] > s->last ? v[0] - s->last : 0;
    return v[0];
}

/* A perf counter still open: its count is what it measured. */
void
mon_perf_ledger(const struct mon_thread *td, uint32_t ev, struct mon_ledger *out)
{
    if (td->src[ev].perf.fd >= 0)
        out->measured += mon_perf_ledger_tail(td, ev, out);
}
