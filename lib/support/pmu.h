/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmu.h -- perf_event encodings of hardware and kernel events, by libpfm4.
 *
 * Turns an event request of kind EVSPEC_PERF (a PAPI preset or a libpfm4
 * event name, lib/support/event_spec.h) into a struct perf_event_attr,
 * and answers whether this machine can sample it -- and if not, why, in
 * one line that names the reason and what to use instead.  PAPI presets
 * are looked up in a table per PMU family (Intel Skylake and Ice Lake
 * cores, AMD Zen 1/2 and Zen 3/4), written from libpfm4's event names;
 * everything else goes to pfm_get_os_event_encoding(PFM_OS_PERF_EVENT_EXT)
 * as is.  Used by csrun (to refuse before the program runs, and for -L)
 * and by the monitor's constructor (to open the events), so both encode
 * identically.  Ordinary context only: libpfm4 allocates.  Links libpfm.
 */
#ifndef CSP_PMU_H
#define CSP_PMU_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdio.h>

#include "support/event_spec.h"

/*
 * The libpfm4 event string of PAPI preset @preset (an evspec_presets name)
 * on the PMU libpfm4 calls @pmu ("skl", "icl", "amd64_fam17h_zen2", ...),
 * with the PMU prefix ("skl::L1D:REPLACEMENT").  Returns NULL when the
 * preset has no equivalent there, with a static reason in *why.
 * [not async-signal-safe]
 */
const char *pmu_preset_event(const char *pmu, const char *preset, const char **why);

/*
 * Name of the core PMU libpfm4 detects on this CPU (it honours
 * LIBPFM_FORCE_PMU), or NULL when there is none -- as in a VM without PMU
 * passthrough -- or libpfm4 cannot start; *why then says which.
 * [not async-signal-safe]
 */
const char *pmu_core_name(const char **why);

/*
 * Fill @attr (zeroed first) for sampling @ev (kind EVSPEC_PERF): type,
 * config, privilege bits from libpfm4, and sample_period or sample_freq
 * from the request.  Events counted in user space only, except the
 * software events that happen in the kernel (context switches, CPU
 * migrations), which count kernel time too.  Sampling-delivery fields
 * (sample_type, wakeup) are the caller's.  @encoding (may be NULL)
 * receives the libpfm4 string used.  Returns 0, or -1 with a one-line
 * reason in @why.  [not async-signal-safe]
 */
int pmu_encode(const struct evspec *ev, struct perf_event_attr *attr, char *encoding, size_t enclen,
               char *why, size_t whylen);

/*
 * Whether @ev can be sampled by this process on this machine: encode it
 * and open it once on the calling thread (perf_event_open(2), closed at
 * once).  Returns 0, or -1 with a one-line reason in @why: no PMU, the
 * kernel's errno, or perf_event_paranoid and the value that would allow
 * it -- followed by what to use instead.  [not async-signal-safe]
 */
int pmu_probe(const struct evspec *ev, char *why, size_t whylen);

/*
 * Print to @out the perf events this machine can sample, one a line,
 * marked "available" or "not available: REASON": the PAPI presets first,
 * then libpfm4's software events (perf::), then the events of the core
 * PMU when there is one.  [not async-signal-safe]
 */
void pmu_list(FILE *out);

#endif /* CSP_PMU_H */
