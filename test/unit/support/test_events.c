// SPDX-License-Identifier: BSD-3-Clause
// test_events.c -- the event grammar (support/event_spec.h) and the PAPI
// preset encodings (support/pmu.h).  Every preset is encoded on Intel
// Skylake, Ice Lake (client and server) and AMD Zen 2, 3 and 4 with
// libpfm4's forced-PMU mode (LIBPFM_FORCE_PMU), so no hardware PMU is
// needed; event select, unit mask, counter mask and invert bits are checked
// against the vendors' manuals (Intel SDM vol. 3B ch. 19-20, AMD PPR for
// family 17h/19h "Core Performance Monitor Counters").
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/event_spec.h"
#include "support/pmu.h" /* linux/perf_event.h before libpfm4's copy of it */

#include "csp_test.h"
#include <perfmon/pfmlib_perf_event.h>

static int passed, failed;

static void
expect(int ok, const char *what, const char *detail)
{
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAILED: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    }
}

static const struct {
    const char *spec;
    int ok;
    enum evspec_kind kind;
    unsigned long long period;
    int freq;
    const char *why; /* substring of the reason when refused */
} grammar[] = {
    {"CPUTIME", 1, EVSPEC_CPUTIME, EVSPEC_DEFAULT_PERIOD_US, 0, NULL},
    {"REALTIME@1000", 1, EVSPEC_REALTIME, 1000, 0, NULL},
    {"CPUTIME@10", 0, EVSPEC_CPUTIME, 0, 0, "smallest period"},
    {"CPUTIME@f100", 0, EVSPEC_CPUTIME, 0, 0, "microseconds"},
    {"PAPI_TOT_CYC", 1, EVSPEC_PERF, EVSPEC_DEFAULT_FREQ_HZ, 1, NULL},
    {"PAPI_TOT_CYC@1000000", 1, EVSPEC_PERF, 1000000, 0, NULL},
    {"PAPI_L1_DCM@f500", 1, EVSPEC_PERF, 500, 1, NULL},
    {"PAPI_NOPE", 0, EVSPEC_PERF, 0, 0, "unknown PAPI preset"},
    {"perf::PAGE-FAULTS@100", 1, EVSPEC_PERF, 100, 0, NULL},
    {"INST_RETIRED:ANY_P@2000003", 1, EVSPEC_PERF, 2000003, 0, NULL},
    {"UOPS_ISSUED:ANY:c=1:i@f10", 1, EVSPEC_PERF, 10, 1, NULL},
    {"perf::PAGE-FAULTS@0", 0, EVSPEC_PERF, 0, 0, "number of events"},
    {"perf::PAGE-FAULTS@f0", 0, EVSPEC_PERF, 0, 0, "number of events"},
    {"perf::PAGE-FAULTS@f1000000", 0, EVSPEC_PERF, 0, 0, "highest frequency"},
    {"perf::PAGE-FAULTS@x", 0, EVSPEC_PERF, 0, 0, "fFREQ"},
    {"perf::PAGE-FAULTS@", 0, EVSPEC_PERF, 0, 0, "empty"},
    {"bad name!", 0, EVSPEC_PERF, 0, 0, "unknown event"},
    {"@100", 0, EVSPEC_PERF, 0, 0, "missing"},
    {"MEMALLOC", 1, EVSPEC_BYTES, EVSPEC_DEFAULT_PERIOD_BYTES, 0, NULL},
    {"MEMLEAK@4096", 1, EVSPEC_BYTES, 4096, 0, NULL},
    {"IO@64K", 1, EVSPEC_BYTES, 65536, 0, NULL},
    {"IO_WRITE@2M", 1, EVSPEC_BYTES, 2097152, 0, NULL},
    {"IO_READ@0", 0, EVSPEC_BYTES, 0, 0, "out of range"},
    {"MEMALLOC@2048G", 0, EVSPEC_BYTES, 0, 0, "out of range"},
    {"MEMALLOC@f10", 0, EVSPEC_BYTES, 0, 0, "not a number of bytes"},
    {"MEMALLOC@12Q", 0, EVSPEC_BYTES, 0, 0, "not a number of bytes"},
};

static void
test_grammar(void)
{
    for (size_t i = 0; i < sizeof(grammar) / sizeof(grammar[0]); i++) {
        struct evspec ev, back;
        char why[256] = "", text[256];
        int rc = evspec_parse(grammar[i].spec, strlen(grammar[i].spec), &ev, why, sizeof(why));

        if (!grammar[i].ok) {
            expect(rc < 0 && strstr(why, grammar[i].why) != NULL, grammar[i].spec, why);
            continue;
        }
        expect(rc == 0 && ev.kind == grammar[i].kind && ev.period == grammar[i].period &&
                   ev.freq == (grammar[i].freq != 0),
               grammar[i].spec, why);
        /* What csrun passes to the monitor parses to the same request. */
        expect(evspec_format(&ev, text, sizeof(text)) > 0 &&
                   evspec_parse(text, strlen(text), &back, why, sizeof(why)) == 0 &&
                   back.kind == ev.kind && back.period == ev.period && back.freq == ev.freq &&
                   strcmp(back.name, ev.name) == 0,
               "format round trip", text);
    }
}

/* Manual values: event select, unit mask, counter mask, invert (PERF_TYPE_RAW config bits
 * 0-7, 8-15, 24-31, 23 on both vendors; AMD's event select bits 8-11 sit at 32-35). */
struct code {
    const char *preset;
    unsigned evsel, umask, cmask, inv;
};
static const struct {
    const char *pmu;
    int intel;
    struct code codes[EVSPEC_NPRESETS];
} models[] = {
    {"skl",
     1,
     {{"PAPI_TOT_CYC", 0x3c, 0x00, 0, 0},
      {"PAPI_TOT_INS", 0xc0, 0x00, 0, 0},
      {"PAPI_L1_DCM", 0x51, 0x01, 0, 0},
      {"PAPI_L1_ICM", 0x83, 0x02, 0, 0},
      {"PAPI_L2_TCM", 0x24, 0x3f, 0, 0},
      {"PAPI_L3_TCM", 0x2e, 0x41, 0, 0},
      {"PAPI_TLB_DM", 0x08, 0x0e, 0, 0},
      {"PAPI_BR_INS", 0xc4, 0x00, 0, 0},
      {"PAPI_BR_MSP", 0xc5, 0x00, 0, 0},
      {"PAPI_FP_OPS", 0xc7, 0x3f, 0, 0},
      {"PAPI_VEC_INS", 0xc7, 0x3c, 0, 0},
      {"PAPI_STL_ICY", 0x0e, 0x01, 1, 1}}},
    {"icl",
     1,
     {{"PAPI_TOT_CYC", 0x3c, 0x00, 0, 0},
      {"PAPI_TOT_INS", 0xc0, 0x00, 0, 0},
      {"PAPI_L1_DCM", 0x51, 0x01, 0, 0},
      {"PAPI_L1_ICM", 0x83, 0x02, 0, 0},
      {"PAPI_L2_TCM", 0xf1, 0x1f, 0, 0},
      {"PAPI_L3_TCM", 0x2e, 0x41, 0, 0},
      {"PAPI_TLB_DM", 0x08, 0x0e, 0, 0},
      {"PAPI_BR_INS", 0xc4, 0x00, 0, 0},
      {"PAPI_BR_MSP", 0xc5, 0x00, 0, 0},
      {"PAPI_VEC_INS", 0xc7, 0xfc, 0, 0},
      {"PAPI_STL_ICY", 0x0e, 0x01, 1, 1}}},
    {"icx", 1, {{"PAPI_TOT_CYC", 0x3c, 0x00, 0, 0}, {"PAPI_VEC_INS", 0xc7, 0xfc, 0, 0}}},
    {"amd64_fam17h_zen2",
     0,
     {{"PAPI_TOT_CYC", 0x76, 0x00, 0, 0},
      {"PAPI_TOT_INS", 0xc0, 0x00, 0, 0},
      {"PAPI_L1_DCM", 0x60, 0xe8, 0, 0},
      {"PAPI_L1_ICM", 0x60, 0x10, 0, 0},
      {"PAPI_L2_TCM", 0x64, 0x19, 0, 0},
      {"PAPI_TLB_DM", 0x45, 0xf0, 0, 0},
      {"PAPI_BR_INS", 0xc2, 0x00, 0, 0},
      {"PAPI_BR_MSP", 0xc3, 0x00, 0, 0},
      {"PAPI_FP_OPS", 0x03, 0x0f, 0, 0},
      {"PAPI_VEC_INS", 0xcb, 0x04, 0, 0},
      {"PAPI_STL_ICY", 0xc1, 0x00, 1, 1}}},
    {"amd64_fam19h_zen3",
     0,
     {{"PAPI_TOT_CYC", 0x76, 0x00, 0, 0},
      {"PAPI_TOT_INS", 0xc0, 0x00, 0, 0},
      {"PAPI_BR_INS", 0xc2, 0x00, 0, 0},
      {"PAPI_BR_MSP", 0xc3, 0x00, 0, 0},
      {"PAPI_TLB_DM", 0x45, 0xf0, 0, 0},
      {"PAPI_STL_ICY", 0xc1, 0x00, 1, 1}}},
    {"amd64_fam19h_zen4",
     0,
     {{"PAPI_TOT_CYC", 0x76, 0x00, 0, 0}, {"PAPI_TOT_INS", 0xc0, 0x00, 0, 0}}},
};

static const struct code *
code_of(size_t m, const char *preset)
{
    for (size_t i = 0; i < EVSPEC_NPRESETS && models[m].codes[i].preset != NULL; i++)
        if (strcmp(models[m].codes[i].preset, preset) == 0)
            return &models[m].codes[i];
    return NULL;
}

static void
test_model(size_t m)
{
    const char *pmu = models[m].pmu, *why = NULL, *core;
    unsigned long long configs[EVSPEC_NPRESETS];
    size_t nconfigs = 0;
    char what[256];

    setenv("LIBPFM_FORCE_PMU", pmu, 1);
    expect(pfm_initialize() == PFM_SUCCESS, "pfm_initialize with LIBPFM_FORCE_PMU", pmu);
    core = pmu_core_name(&why);
    expect(core != NULL && strcmp(core, pmu) == 0, "the forced PMU is the core PMU",
           core ? core : why);
    for (int p = 0; p < EVSPEC_NPRESETS; p++) {
        const char *name = evspec_presets[p].name;
        struct perf_event_attr attr;
        const struct code *c = code_of(m, name);
        char why2[512] = "", enc[256];
        struct evspec ev;
        int rc;

        snprintf(what, sizeof(what), "%s %s", pmu, name);
        evspec_parse(name, strlen(name), &ev, why2, sizeof(why2));
        rc = pmu_encode(&ev, &attr, enc, sizeof(enc), why2, sizeof(why2));
        if (!models[m].intel && strcmp(name, "PAPI_L3_TCM") == 0) {
            /* No per-thread L3 miss counter on Zen: refused, with the reason. */
            expect(rc < 0 && strstr(why2, "L3 PMU") != NULL, what, why2);
            continue;
        }
        if (models[m].intel && strcmp(name, "PAPI_FP_OPS") == 0 && strcmp(pmu, "skl") != 0) {
            /* Ice Lake: no single FP_ARITH encoding of all widths in libpfm4; refused, why. */
            expect(rc < 0 && strstr(why2, "FP_ARITH:SCALAR") != NULL, what, why2);
            continue;
        }
        expect(rc == 0 && attr.type == PERF_TYPE_RAW && attr.exclude_kernel && attr.freq &&
                   attr.sample_freq == EVSPEC_DEFAULT_FREQ_HZ,
               what, rc == 0 ? enc : why2);
        if (rc != 0)
            continue;
        for (size_t k = 0; k < nconfigs; k++)
            expect(configs[k] != attr.config, "presets encode differently", what);
        configs[nconfigs++] = attr.config;
        if (c != NULL) {
            unsigned evsel = (unsigned)(attr.config & 0xff) |
                             (models[m].intel ? 0 : (unsigned)((attr.config >> 32) & 0xf) << 8);
            char got[512];

            snprintf(got, sizeof(got), "%s: evsel %#x umask %#x cmask %u inv %u (config %#llx)",
                     enc, evsel, (unsigned)(attr.config >> 8) & 0xff,
                     (unsigned)(attr.config >> 24) & 0xff, (unsigned)(attr.config >> 23) & 1,
                     (unsigned long long)attr.config);
            expect(evsel == c->evsel && ((attr.config >> 8) & 0xff) == c->umask &&
                       ((attr.config >> 24) & 0xff) == c->cmask &&
                       ((attr.config >> 23) & 1) == c->inv,
                   what, got);
        }
    }
}

int
main(void)
{
    test_grammar();
    /* libpfm4 reads LIBPFM_FORCE_PMU once per process: one child per model. */
    for (size_t m = 0; m < sizeof(models) / sizeof(models[0]); m++) {
        int fds[2], counts[2] = {0, 1}, status;
        pid_t pid;

        fflush(stdout);
        if (pipe(fds) < 0 || (pid = fork()) < 0) {
            expect(0, "fork", models[m].pmu);
            continue;
        }
        if (pid == 0) {
            close(fds[0]);
            passed = failed = 0;
            test_model(m);
            counts[0] = passed;
            counts[1] = failed;
            fflush(stdout);
            _exit(write(fds[1], counts, sizeof(counts)) == (ssize_t)sizeof(counts) ? 0 : 1);
        }
        close(fds[1]);
        if (read(fds[0], counts, sizeof(counts)) != (ssize_t)sizeof(counts))
            counts[0] = 0, counts[1] = 1;
        close(fds[0]);
        waitpid(pid, &status, 0);
        passed += counts[0];
        failed += counts[1];
    }
    /* A PMU with no table: the Intel architectural events still serve the first presets. */
    {
        const char *why = NULL;

        expect(pmu_preset_event("hsw", "PAPI_TOT_CYC", &why) != NULL, "hsw PAPI_TOT_CYC", why);
        expect(pmu_preset_event("hsw", "PAPI_L1_DCM", &why) == NULL && why != NULL,
               "hsw PAPI_L1_DCM refused with a reason", why);
    }
    return csp_test_finish((long)(passed), (long)failed);
}
