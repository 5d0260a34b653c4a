/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmu.c -- PAPI presets and libpfm4 names to perf_event_attr; can this
 * machine sample them, and if not, why.
 *
 * The preset tables map each PAPI preset to one libpfm4 event string per
 * PMU family.  PAPI itself defines some presets as sums of several events
 * (derived presets); csprof samples one counter per metric, so each row
 * names the single event (with unit masks ORed) closest to the preset's
 * meaning, and docs/csrun.md's events table says what each one counts.  Names
 * come from libpfm4's tables (showevtinfo), codes are checked against the
 * vendors' manuals by test/unit/support/test_pmu.c.  Ordinary context.
 */
#include "support/pmu.h"

#include <errno.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* One PMU family: the libpfm4 PMU names it covers, and an event string per preset (NULL:
 * none, reason in why_none), in evspec_presets order. */
struct preset_table {
    const char *family;
    const char *const *pmus;
    const char *ev[EVSPEC_NPRESETS];
    const char *why_none;
};

static const char *const intel_skl[] = {"skl", NULL};
static const char *const intel_icl[] = {"icl", "icx", NULL};
static const char *const amd_zen2[] = {"amd64_fam17h_zen2", NULL};
static const char *const amd_zen34[] = {"amd64_fam19h_zen3", "amd64_fam19h_zen4", NULL};

#define AMD_L3_WHY                                                                            \
    "AMD Zen counts L3 misses only in the L3 PMU (amd_l3), shared by a core complex and not " \
    "per thread"

static const struct preset_table tables[] = {
    {"Intel Skylake",
     intel_skl,
     {"UNHALTED_CORE_CYCLES", "INSTRUCTION_RETIRED", "L1D:REPLACEMENT", "ICACHE_64B:IFTAG_MISS",
      "L2_RQSTS:MISS", "LONGEST_LAT_CACHE:MISS", "DTLB_LOAD_MISSES:WALK_COMPLETED",
      "BR_INST_RETIRED:ALL_BRANCHES", "BR_MISP_RETIRED:ALL_BRANCHES",
      "FP_ARITH:SCALAR_DOUBLE:SCALAR_SINGLE:128B_PACKED_DOUBLE:128B_PACKED_SINGLE:256B_PACKED_"
      "DOUBLE:256B_PACKED_SINGLE",
      "FP_ARITH:128B_PACKED_DOUBLE:128B_PACKED_SINGLE:256B_PACKED_DOUBLE:256B_PACKED_SINGLE",
      "UOPS_ISSUED:STALL_CYCLES"},
     NULL},
    {"Intel Ice Lake",
     intel_icl,
     {"UNHALTED_CORE_CYCLES", "INSTRUCTION_RETIRED", "L1D:REPLACEMENT", "ICACHE_64B:IFTAG_MISS",
      "L2_LINES_IN:ALL", "LONGEST_LAT_CACHE:MISS", "DTLB_LOAD_MISSES:WALK_COMPLETED",
      "BR_INST_RETIRED:ALL_BRANCHES", "BR_MISP_RETIRED:ALL_BRANCHES", NULL, "FP_ARITH:VECTOR",
      "UOPS_ISSUED:STALL_CYCLES"},
     "libpfm4's Ice Lake table takes one FP_ARITH unit mask per event: sample FP_ARITH:SCALAR "
     "and FP_ARITH:VECTOR as two events"},
    {"AMD Zen 2",
     amd_zen2,
     {"CYCLES_NOT_IN_HALT", "RETIRED_INSTRUCTIONS",
      "REQUESTS_TO_L2_GROUP1:RD_BLK_L:RD_BLK_X:LS_RD_BLK_C_S:CHANGE_TO_X",
      "REQUESTS_TO_L2_GROUP1:CACHEABLE_IC_READ",
      "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_X:LS_RD_BLK_C:IC_FILL_MISS", NULL,
      "L1_DTLB_MISS:TLB_RELOAD_1G_L2_MISS:TLB_RELOAD_2M_L2_MISS:TLB_RELOAD_COALESCED_PAGE_MISS:"
      "TLB_RELOAD_4K_L2_MISS",
      "RETIRED_BRANCH_INSTRUCTIONS", "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED",
      "RETIRED_SSE_AVX_FLOPS:ANY", "RETIRED_MMX_FP_INSTRUCTIONS:SSE_INSTR", "RETIRED_UOPS:c=1:i"},
     AMD_L3_WHY},
    {"AMD Zen 3/4",
     amd_zen34,
     {"CYCLES_NOT_IN_HALT", "RETIRED_INSTRUCTIONS",
      "REQUESTS_TO_L2_GROUP1:RD_BLK_L:RD_BLK_X:LS_RD_BLK_C_S:CHANGE_TO_X",
      "REQUESTS_TO_L2_GROUP1:CACHEABLE_IC_READ",
      "CORE_TO_L2_CACHEABLE_REQUEST_ACCESS_STATUS:LS_RD_BLK_X:LS_RD_BLK_C:IC_FILL_MISS", NULL,
      "L1_DTLB_MISS:TLB_RELOAD_1G_L2_MISS:TLB_RELOAD_2M_L2_MISS:TLB_RELOAD_COALESCED_PAGE_MISS:"
      "TLB_RELOAD_4K_L2_MISS",
      "RETIRED_BRANCH_INSTRUCTIONS", "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED",
      "RETIRED_SSE_AVX_FLOPS:ANY", "RETIRED_MMX_FP_INSTRUCTIONS:SSE_INSTR", "RETIRED_OPS:c=1:i"},
     AMD_L3_WHY},
};

/* Any other Intel core PMU: the architectural events (Intel SDM vol. 3B, 20.2.1). */
static const struct preset_table intel_arch = {
    "Intel (architectural events only)",
    NULL,
    {"UNHALTED_CORE_CYCLES", "INSTRUCTION_RETIRED", NULL, NULL, NULL, "LLC_MISSES", NULL,
     "BRANCH_INSTRUCTIONS_RETIRED", "MISPREDICTED_BRANCH_RETIRED", NULL, NULL, NULL},
    "csprof has a table for this preset on Intel Skylake and Ice Lake only (libpfm4 names "
    "serve elsewhere: csrun -L)"};

static int pfm_state; /* 0: not tried, 1: initialised, -1: failed */
static int pfm_err;

static bool
pmu_init(const char **why)
{
    if (pfm_state == 0) {
        pfm_err = pfm_initialize();
        pfm_state = pfm_err == PFM_SUCCESS ? 1 : -1;
    }
    if (pfm_state < 0 && why != NULL)
        *why = pfm_strerror(pfm_err);
    return pfm_state > 0;
}

/* The present core PMU: its libpfm4 info, or false. */
static bool
core_pmu(pfm_pmu_info_t *out)
{
    pfm_pmu_t p;
    bool found = false;

    pfm_for_all_pmus(p)
    {
        pfm_pmu_info_t pi;

        memset(&pi, 0, sizeof(pi));
        pi.size = sizeof(pi);
        if (pfm_get_pmu_info(p, &pi) != PFM_SUCCESS || !pi.is_present ||
            pi.type != PFM_PMU_TYPE_CORE)
            continue;
        /* ix86arch is present beside the model's own PMU: take the model's when there is one. */
        if (!found || strcmp(out->name, "ix86arch") == 0) {
            *out = pi;
            found = true;
        }
    }
    return found;
}

const char *
pmu_core_name(const char **why)
{
    static char name[64];
    pfm_pmu_info_t pi;

    if (!pmu_init(why))
        return NULL;
    if (!core_pmu(&pi)) {
        if (why != NULL)
            *why = "no hardware PMU: libpfm4 finds no core PMU on this CPU (a virtual machine "
                   "without PMU passthrough counts software events only)";
        return NULL;
    }
    snprintf(name, sizeof(name), "%s", pi.name);
    return name;
}

static const struct preset_table *
table_of(const char *pmu, const char *desc)
{
    for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
        for (const char *const *p = tables[t].pmus; *p != NULL; p++)
            if (strcmp(*p, pmu) == 0)
                return &tables[t];
    if (desc != NULL && strncmp(desc, "Intel", 5) == 0)
        return &intel_arch;
    return NULL;
}

/* Description of libpfm4 PMU @pmu, or NULL. */
static const char *
pmu_desc(const char *pmu)
{
    pfm_pmu_t p;

    pfm_for_all_pmus(p)
    {
        pfm_pmu_info_t pi;

        memset(&pi, 0, sizeof(pi));
        pi.size = sizeof(pi);
        if (pfm_get_pmu_info(p, &pi) == PFM_SUCCESS && strcmp(pi.name, pmu) == 0)
            return pi.desc;
    }
    return NULL;
}

const char *
pmu_preset_event(const char *pmu, const char *preset, const char **why)
{
    static char out[512];
    int i = evspec_preset_index(preset);
    const struct preset_table *t;

    if (i < 0) {
        *why = "not a PAPI preset csprof knows";
        return NULL;
    }
    t = table_of(pmu, pmu_init(NULL) ? pmu_desc(pmu) : NULL);
    if (t == NULL) {
        *why = "csprof has no PAPI preset table for this PMU (libpfm4 names serve: csrun -L)";
        return NULL;
    }
    if (t->ev[i] == NULL) {
        *why = t->why_none;
        return NULL;
    }
    snprintf(out, sizeof(out), "%s::%s", pmu, t->ev[i]);
    return out;
}

/* perf_event_open(2) has no glibc wrapper. */
static int
perf_open(struct perf_event_attr *attr)
{
    return (int)syscall(SYS_perf_event_open, attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* libpfm4's encoding of @name at default privilege levels @plm into @attr. */
static int
encode_name(const char *name, int plm, struct perf_event_attr *attr)
{
    pfm_perf_encode_arg_t arg;

    memset(attr, 0, sizeof(*attr));
    memset(&arg, 0, sizeof(arg));
    arg.size = sizeof(arg);
    arg.attr = attr;
    return pfm_get_os_event_encoding(name, plm, PFM_OS_PERF_EVENT_EXT, &arg);
}

/* Software events that happen inside the kernel: counted in user mode only they are 0. */
static bool
kernel_side(const struct perf_event_attr *attr)
{
    return attr->type == PERF_TYPE_SOFTWARE && (attr->config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
                                                attr->config == PERF_COUNT_SW_CPU_MIGRATIONS);
}

int
pmu_encode(const struct evspec *ev, struct perf_event_attr *attr, char *encoding, size_t enclen,
           char *why, size_t whylen)
{
    const char *name = ev->name, *reason = NULL;
    int rc;

    if (!pmu_init(&reason)) {
        snprintf(why, whylen, "libpfm4 cannot start: %s", reason);
        return -1;
    }
    if (ev->preset) {
        const char *pmu = pmu_core_name(&reason);

        if (pmu == NULL) {
            snprintf(why, whylen, "%s", reason);
            return -1;
        }
        name = pmu_preset_event(pmu, ev->name, &reason);
        if (name == NULL) {
            snprintf(why, whylen, "no %s on this CPU's PMU (%s): %s", ev->name, pmu, reason);
            return -1;
        }
    }
    rc = encode_name(name, PFM_PLM3, attr);
    if (rc == PFM_SUCCESS && kernel_side(attr))
        rc = encode_name(name, PFM_PLM0 | PFM_PLM3, attr);
    if (rc != PFM_SUCCESS) {
        const char *hint = "";

        if (rc == PFM_ERR_NOTFOUND && pmu_core_name(NULL) == NULL)
            hint = " (this machine has no hardware PMU, so libpfm4 knows only its software "
                   "events, perf::)";
        snprintf(why, whylen, "libpfm4 cannot encode '%s': %s%s", name, pfm_strerror(rc), hint);
        return -1;
    }
    if (encoding != NULL)
        snprintf(encoding, enclen, "%s", name);
    attr->size = sizeof(*attr);
    attr->freq = ev->freq;
    attr->sample_period = ev->period; /* the same field as sample_freq */
    attr->disabled = 1;
    return 0;
}

/* perf_event_paranoid(5), or -100 when unreadable. */
static int
paranoid_level(void)
{
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
    int v = -100;

    if (f != NULL) {
        if (fscanf(f, "%d", &v) != 1)
            v = -100;
        fclose(f);
    }
    return v;
}

#define PMU_INSTEAD \
    "use CPUTIME instead, or a software event (csrun -L lists what this machine can sample)"

int
pmu_probe(const struct evspec *ev, char *why, size_t whylen)
{
    struct perf_event_attr attr;
    char reason[1024];
    int fd, err, level;

    if (pmu_encode(ev, &attr, NULL, 0, reason, sizeof(reason)) < 0) {
        snprintf(why, whylen, "%s; %s", reason, PMU_INSTEAD);
        return -1;
    }
    fd = perf_open(&attr);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    err = errno;
    level = paranoid_level();
    switch (err) {
    case EACCES:
    case EPERM:
        if (level > (attr.exclude_kernel ? 2 : 1))
            snprintf(why, whylen,
                     "the kernel refused it (%s): perf_event_paranoid is %d, counting %s needs "
                     "%d or less (sysctl kernel.perf_event_paranoid=%d) or CAP_PERFMON; %s",
                     strerror(err), level,
                     attr.exclude_kernel ? "a thread's user-space events"
                                         : "an event that happens in the kernel",
                     attr.exclude_kernel ? 2 : 1, attr.exclude_kernel ? 2 : 1, PMU_INSTEAD);
        else
            snprintf(why, whylen, "the kernel refused it (%s, perf_event_paranoid is %d); %s",
                     strerror(err), level, PMU_INSTEAD);
        break;
    case ENOENT:
    case ENODEV:
    case EOPNOTSUPP:
        snprintf(why, whylen, "the kernel cannot sample it here (%s: %s); %s",
                 err == ENOENT   ? "ENOENT"
                 : err == ENODEV ? "ENODEV"
                                 : "EOPNOTSUPP",
                 pmu_core_name(NULL) == NULL ? "this machine has no hardware PMU"
                                             : "no PMU driver or no overflow interrupt for it",
                 PMU_INSTEAD);
        break;
    default:
        snprintf(why, whylen, "the kernel refused it: perf_event_open: %s (errno %d); %s",
                 strerror(err), err, PMU_INSTEAD);
        break;
    }
    return -1;
}

/* One line of the list: NAME, then available or why not. */
static void
list_line(FILE *out, const char *name, const char *encoding, const char *what)
{
    struct evspec ev;
    char why[1024];
    bool ok;

    if (evspec_parse(name, strlen(name), &ev, why, sizeof(why)) < 0) {
        fprintf(out, "  %-28s not available: %s\n", name, why);
        return;
    }
    ok = pmu_probe(&ev, why, sizeof(why)) == 0;
    if (ok) {
        fprintf(out, "  %-28s available%s%s%s\n", name, encoding ? " (" : "",
                encoding ? encoding : "", encoding ? ")" : "");
    } else {
        char *semi = strstr(why, "; use CPUTIME");

        if (semi != NULL)
            *semi = '\0'; /* the advice is said once, below */
        fprintf(out, "  %-28s not available: %s\n", name, why);
    }
    if (what != NULL && *what != '\0')
        fprintf(out, "  %-28s   %s\n", "", what);
}

void
pmu_list(FILE *out)
{
    const char *why = NULL, *core;
    pfm_pmu_info_t pi;
    pfm_pmu_t p;

    if (!pmu_init(&why)) {
        fprintf(out, "Perf events: none (libpfm4 cannot start: %s)\n", why);
        return;
    }
    core = pmu_core_name(&why);
    fprintf(out, "PAPI presets (hardware counters; core PMU: %s):\n", core ? core : why);
    for (int i = 0; i < EVSPEC_NPRESETS; i++) {
        const char *enc = NULL, *none = NULL;

        if (core == NULL) { /* the reason is in the heading: say it once */
            fprintf(out, "  %-28s not available: no hardware PMU\n  %-28s   %s\n",
                    evspec_presets[i].name, "", evspec_presets[i].what);
            continue;
        }
        enc = pmu_preset_event(core, evspec_presets[i].name, &none);
        list_line(out, evspec_presets[i].name, enc, evspec_presets[i].what);
    }
    pfm_for_all_pmus(p)
    {
        memset(&pi, 0, sizeof(pi));
        pi.size = sizeof(pi);
        if (pfm_get_pmu_info(p, &pi) != PFM_SUCCESS || !pi.is_present ||
            strcmp(pi.name, "perf_raw") == 0)
            continue;
        fprintf(out, "\nlibpfm4 events of PMU %s (%s):\n", pi.name, pi.desc);
        for (int e = pi.first_event; e != -1; e = pfm_get_event_next(e)) {
            pfm_event_info_t ei;
            char name[256];

            memset(&ei, 0, sizeof(ei));
            ei.size = sizeof(ei);
            if (pfm_get_event_info(e, PFM_OS_PERF_EVENT_EXT, &ei) != PFM_SUCCESS)
                continue;
            snprintf(name, sizeof(name), "%s::%s", pi.name, ei.name);
            list_line(out, name, NULL, NULL);
        }
    }
    fprintf(out, "\nPERIOD of a perf event: events between samples (NAME@100000), or a "
                 "frequency (NAME@f1000, samples per second; the default).\n");
}
