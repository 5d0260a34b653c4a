// SPDX-License-Identifier: BSD-3-Clause
// test_perf_ring.c -- the perf source's handler side (lib/monitor/source_perf_sig.c)
// against a ring buffer written here as the kernel writes it (perf_event_open(2),
// "MMAP layout"): the charge is the count since the previous sample, records are
// consumed (data_tail reaches data_head), other record types are skipped, a record
// that wraps around the end of the data area is read whole, and a multiplexed
// interval is scaled by enabled/running time.  Built with ASan+UBSan when possible.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/mon_internal.h"

struct mon_process mon_proc; /* the monitor's, unused by the code under test */

#define DATA_SIZE 256 /* small, so that records wrap */

static _Alignas(8) unsigned char buffer[4096 + DATA_SIZE];
static struct perf_event_mmap_page *pg = (struct perf_event_mmap_page *)buffer;

/* Append a record of @type with @n payload words at data_head, wrapping. */
static void
put(uint32_t type, const uint64_t *words, size_t n)
{
    unsigned char rec[64];
    struct perf_event_header h = {
        .type = type, .misc = 0, .size = (uint16_t)(sizeof(h) + n * sizeof(uint64_t))};

    memcpy(rec, &h, sizeof(h));
    memcpy(rec + sizeof(h), words, n * sizeof(uint64_t));
    for (size_t i = 0; i < h.size; i++)
        buffer[4096 + (pg->data_head + i) % DATA_SIZE] = rec[i];
    pg->data_head += h.size;
}

static void
sample(uint64_t count, uint64_t enabled, uint64_t running)
{
    uint64_t w[3] = {count, enabled, running};

    put(PERF_RECORD_SAMPLE, w, 3);
}

static const struct {
    const char *name;
    int nsamples;          /* sample records written before the charge */
    uint64_t counts[3];    /* their counts; enabled/running advance by 1000/running_step */
    uint64_t running_step; /* 1000: never multiplexed */
    int lost_first;        /* a PERF_RECORD_LOST precedes the samples */
    uint64_t want;
} cases[] = {
    {"first sample", 1, {100}, 1000, 0, 100},
    {"two samples since the last charge: the newest counts", 2, {150, 300}, 1000, 0, 200},
    {"a lost record is skipped", 1, {350}, 1000, 1, 50},
    {"no record: read(2) fallback fails, nothing charged", 0, {0}, 1000, 0, 0},
    {"multiplexed a quarter of the time: scaled by 4", 1, {450}, 250, 0, 400},
    {"records wrap around the end of the data area", 3, {460, 470, 500}, 1000, 0, 50},
};

int
main(void)
{
    struct mon_thread *td = calloc(1, sizeof(*td));
    siginfo_t si;
    uint64_t enabled = 0, running = 0;
    int passed = 0, failed = 0;

    if (td == NULL)
        return 1;
    memset(&si, 0, sizeof(si));
    pg->data_offset = 4096;
    pg->data_size = DATA_SIZE;
    td->src[0].fd = -1;
    td->src[0].ring = pg;
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        uint64_t got;

        if (cases[c].lost_first) {
            uint64_t w[2] = {7, 3}; /* id, lost */

            put(PERF_RECORD_LOST, w, 2);
        }
        for (int i = 0; i < cases[c].nsamples; i++) {
            enabled += 1000;
            running += cases[c].running_step;
            sample(cases[c].counts[i], enabled, running);
        }
        got = mon_perf_charge(td, 0, &si);
        if (got == cases[c].want && pg->data_tail == pg->data_head) {
            passed++;
        } else {
            failed++;
            printf("FAILED: %s: charged %llu, want %llu (tail %llu, head %llu)\n", cases[c].name,
                   (unsigned long long)got, (unsigned long long)cases[c].want,
                   (unsigned long long)pg->data_tail, (unsigned long long)pg->data_head);
        }
    }
    free(td);
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
