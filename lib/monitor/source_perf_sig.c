/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * source_perf_sig.c -- the handler's side of the perf_event source.
 *
 * Runs in signal context: reads the event's ring buffer (memory shared with
 * the kernel, ordered by the acquire/release protocol of
 * perf_event_open(2), "data_head" and "data_tail"), and calls read(2) and
 * ioctl(2) only when the ring cannot serve.
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
    return si->si_code > 0 && td->src[ev].fd >= 0 && si->si_fd == td->src[ev].fd;
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

/*
 * Consume the ring's records; the newest sample's {count, enabled, running}
 * into v.  Returns false when no sample record was waiting.
 */
static bool
ring_newest(struct perf_event_mmap_page *pg, uint64_t v[3])
{
    const unsigned char *data = (const unsigned char *)pg + pg->data_offset;
    uint64_t size = pg->data_size;
    uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = pg->data_tail;
    bool found = false;

    while (tail + sizeof(struct perf_event_header) <= head) {
        struct perf_event_header h;

        ring_copy(data, size, tail, &h, sizeof(h));
        if (h.size < sizeof(h) || tail + h.size > head)
            break; /* not a record we can trust: skip to the head */
        if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(h) + 3 * sizeof(uint64_t)) {
            ring_copy(data, size, tail + sizeof(h), v, 3 * sizeof(uint64_t));
            found = true;
        }
        tail += h.size;
    }
    __atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
    return found;
}

/*
 * The count since the previous charged sample.  When the kernel
 * multiplexed the counter (running < enabled over the interval), the count
 * it saw is scaled by enabled/running for that interval, the estimate perf
 * stat makes (perf_event_open(2), "read_format").
 */
uint64_t
mon_perf_charge(struct mon_thread *td, uint32_t ev, const siginfo_t *si)
{
    struct mon_source_thread *s = &td->src[ev];
    uint64_t v[3], delta, d_enabled, d_running;

    CSP_UNUSED(si);
    if (s->ring == NULL || s->ring->data_size == 0 || !ring_newest(s->ring, v)) {
        if (csp_sys_read(s->fd, v, sizeof(v)) != (ssize_t)sizeof(v))
            return 0;
    }
    delta = v[0] > s->last ? v[0] - s->last : 0;
    d_enabled = v[1] > s->enabled_ns ? v[1] - s->enabled_ns : 0;
    d_running = v[2] > s->running_ns ? v[2] - s->running_ns : 0;
    /* Each period that elapsed since the last sample but this one ended without a
     * sample: in kernel mode (the event samples user mode only, but a task clock
     * counts kernel time too) or throttled.  Its count is charged to this sample. */
    if (mon_proc.events[ev].period > 0 && delta >= 2 * mon_proc.events[ev].period)
        td->perf_unsampled += delta / mon_proc.events[ev].period - 1;
    s->last = v[0];
    s->enabled_ns = v[1];
    s->running_ns = v[2];
    if (d_running > 0 && d_enabled > d_running)
        delta = (uint64_t)((double)delta * (double)d_enabled / (double)d_running);
    return delta;
}

void
mon_perf_rearm(struct mon_thread *td, uint32_t ev, const siginfo_t *si)
{
    /* POLL_HUP: the last overflow of a refresh; the kernel has disabled the event. */
    if (si->si_code == POLL_HUP && td->src[ev].fd >= 0)
        ioctl(td->src[ev].fd, PERF_EVENT_IOC_REFRESH, (int)mon_proc.events[ev].perf_refresh);
}
