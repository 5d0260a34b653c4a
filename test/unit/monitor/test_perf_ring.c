// SPDX-License-Identifier: BSD-3-Clause
// test_perf_ring.c -- the perf source's handler side (lib/monitor/source_perf_sig.c)
// against a ring buffer written here as the kernel writes it (perf_event_open(2),
// "MMAP layout"): a counter's charge is the count since the previous sample, records
// are consumed (data_tail reaches data_head), other record types are skipped, a record
// that wraps around the end of the data area is read whole, and a multiplexed
// interval is scaled by enabled/running time.  The task clock's charge is one period
// per sample record, at the sampled context for a user-mode record and at its [kernel]
// child for a kernel-mode one; lost records go to the ledger's dropped, periods the count
// shows without a record to its unplaced.  Built with ASan+UBSan when possible.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The test writes the process state the code under test reads: it plays process.c, the
 * state's one owner (mon_process.h). */
#define MON_PROCESS_OWNER 1
#include "csp_test.h"
#include "monitor/mon_internal.h"

struct mon_process mon_proc; /* the monitor's, unused by the code under test */
const struct mon_process *const mon_proc_ro = &mon_proc;

#define DATA_SIZE 256 /* small, so that records wrap */

static _Alignas(8) unsigned char buffer[4096 + DATA_SIZE];
static struct perf_event_mmap_page *pg = (struct perf_event_mmap_page *)buffer;

/* Append a record of @type (header misc @misc) with @n payload words at data_head, wrapping. */
static void
put_misc(uint32_t type, uint16_t misc, const uint64_t *words, size_t n)
{
    unsigned char rec[64];
    struct perf_event_header h = {
        .type = type, .misc = misc, .size = (uint16_t)(sizeof(h) + n * sizeof(uint64_t))};

    memcpy(rec, &h, sizeof(h));
    memcpy(rec + sizeof(h), words, n * sizeof(uint64_t));
    for (size_t i = 0; i < h.size; i++)
        buffer[4096 + (pg->data_head + i) % DATA_SIZE] = rec[i];
    pg->data_head += h.size;
}

static void
put(uint32_t type, const uint64_t *words, size_t n)
{
    put_misc(type, PERF_RECORD_MISC_USER, words, n);
}

static void
sample(uint64_t count, uint64_t enabled, uint64_t running)
{
    uint64_t w[3] = {count, enabled, running};

    put(PERF_RECORD_SAMPLE, w, 3);
}

/* The task clock: period 1000 ns.  'u'/'k': a user-/kernel-mode sample record at the next
 * count, 'l': a PERF_RECORD_LOST of one record.  Each record is charged the count since the
 * previous one. */
static const struct {
    const char *name;
    bool user_only; /* exclude_kernel: the event samples user mode only */
    const char *records;
    uint64_t counts[4]; /* the sample records' counts, in order */
    uint64_t user, kernel, dropped, unplaced;
} clock_cases[] = {
    {"one user-mode period", false, "u", {1000}, 1000, 0, 0, 0},
    {"two periods ended in a system call, then the signal",
     false,
     "kk",
     {2000, 3000},
     0,
     2000,
     0,
     0},
    {"a user period after a kernel one", false, "ku", {4000, 5000}, 1000, 1000, 0, 0},
    {"no record: an earlier signal took its period", false, "", {0}, 0, 0, 0, 0},
    {"user mode only: 3 periods in the kernel without records",
     true,
     "u",
     {9000},
     1000,
     0,
     0,
     3000},
    {"a lost record is dropped, not unplaced", false, "lu", {11000}, 1000, 0, 1000, 0},
    {"a late timer: the record stands for the time since the previous",
     false,
     "u",
     {12400},
     1400,
     0,
     0,
     0},
    {"user mode only: 1.4 periods is one late period, not a kernel one",
     true,
     "u",
     {13800},
     1400,
     0,
     0,
     0},
    {"user mode only: 2.6 periods are one late period and two unplaced",
     true,
     "u",
     {16400},
     600,
     0,
     0,
     2000},
};

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
    struct mon_charge charge;
    siginfo_t si;
    uint64_t enabled = 0, running = 0;
    int passed = 0, failed = 0;

    if (td == NULL)
        return 1;
    memset(&si, 0, sizeof(si));
    pg->data_offset = 4096;
    pg->data_size = DATA_SIZE;
    td->src[0].perf.fd = -1;
    td->src[0].perf.ring = pg;
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
        mon_perf_charge(td, 0, &si, &charge);
        got = charge.user;
        if (got == cases[c].want && charge.kernel == 0 && pg->data_tail == pg->data_head) {
            passed++;
        } else {
            failed++;
            printf("FAILED: %s: charged %llu, want %llu (tail %llu, head %llu)\n", cases[c].name,
                   (unsigned long long)got, (unsigned long long)cases[c].want,
                   (unsigned long long)pg->data_tail, (unsigned long long)pg->data_head);
        }
    }
    mon_proc.events[0].period = 1000;
    td->src[0].perf.last = 0;
    for (size_t c = 0; c < sizeof(clock_cases) / sizeof(clock_cases[0]); c++) {
        struct mon_ledger before = td->ledger[0];
        uint64_t dropped, unplaced;
        size_t k = 0;

        for (const char *r = clock_cases[c].records; *r != '\0'; r++) {
            if (*r == 'l') {
                uint64_t w[2] = {7, 1}; /* id, lost */

                put(PERF_RECORD_LOST, w, 2);
            } else {
                uint64_t w[3] = {clock_cases[c].counts[k++], 0, 0};

                put_misc(PERF_RECORD_SAMPLE,
                         *r == 'k' ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER, w, 3);
            }
        }
        mon_proc.events[0].attr.exclude_kernel = clock_cases[c].user_only;
        mon_task_clock_perf_charge(td, 0, &si, &charge);
        dropped = td->ledger[0].dropped - before.dropped;
        unplaced = td->ledger[0].unplaced - before.unplaced;
        if (charge.user == clock_cases[c].user && charge.kernel == clock_cases[c].kernel &&
            dropped == clock_cases[c].dropped && unplaced == clock_cases[c].unplaced &&
            pg->data_tail == pg->data_head) {
            passed++;
        } else {
            failed++;
            printf("FAILED: task clock, %s: user %llu kernel %llu dropped %llu unplaced %llu, "
                   "want %llu %llu %llu %llu\n",
                   clock_cases[c].name, (unsigned long long)charge.user,
                   (unsigned long long)charge.kernel, (unsigned long long)dropped,
                   (unsigned long long)unplaced, (unsigned long long)clock_cases[c].user,
                   (unsigned long long)clock_cases[c].kernel,
                   (unsigned long long)clock_cases[c].dropped,
                   (unsigned long long)clock_cases[c].unplaced);
        }
    }
    free(td);
    return csp_test_finish((long)(passed), (long)failed);
}
