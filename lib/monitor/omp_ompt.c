/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * omp_ompt.c -- the OpenMP tools interface (OMPT, OpenMP 5.0 section 4.2)
 * for LLVM's libomp: csprof is the tool that the runtime finds at start-up.
 *
 * A runtime built with OMPT calls ompt_start_tool, the first one in the
 * process's global scope: libcsprof.so (preloaded) defines it, ahead of
 * libomp's weak default.  Its initializer keeps the runtime's entry point
 * ompt_get_state, which the OpenMP specification makes async-signal-safe:
 * the sampling handler asks it what the interrupted thread is doing
 * (working, waiting at a barrier or taskwait, idle) and names the waiting
 * (omp_sig.c).  Creation contexts do not need OMPT: the overrides of
 * __kmpc_fork_call and __kmpc_omp_task_alloc (omp.c) record them with or
 * without it.  When OMP_TOOL_LIBRARIES names other tools, csprof declines
 * (the runtime then loads those, as without csprof) and falls back to its
 * own heuristics for waiting.  The OMPT types are declared here from the
 * specification (the header omp-tools.h ships only with clang).
 * Ordinary context (the runtime's initialization).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_loadmap.h"
#include "monitor/mon_omp.h"

/* OpenMP 5.0, 4.4: the types csprof uses. */
typedef union {
    uint64_t value;
    void *ptr;
} ompt_data_t;
typedef void (*ompt_interface_fn_t)(void);
typedef ompt_interface_fn_t (*ompt_function_lookup_t)(const char *name);
typedef int (*ompt_initialize_t)(ompt_function_lookup_t lookup, int initial_device_num,
                                 ompt_data_t *tool_data);
typedef void (*ompt_finalize_t)(ompt_data_t *tool_data);
typedef struct {
    ompt_initialize_t initialize;
    ompt_finalize_t finalize;
    ompt_data_t tool_data;
} ompt_start_tool_result_t;

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version);

mon_ompt_get_state_fn *_Atomic mon_ompt_get_state;
uint32_t mon_ompt_module = UINT32_MAX;

static int
initialize(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data)
{
    ompt_interface_fn_t f = lookup("ompt_get_state");
    mon_ompt_get_state_fn *get;
    uint32_t id;
    uint64_t off;
    uintptr_t addr;

    (void)initial_device_num;
    (void)tool_data;
    if (f == NULL)
        return 0; /* 0: the runtime runs without a tool */
    memcpy(&get, &f, sizeof(get));
    memcpy(&addr, &f, sizeof(addr));
    /* The runtime's module: a waiting thread's innermost frames lie in it (omp_sig.c). */
    if (mon_loadmap_lookup(addr, &id, &off) == 0)
        mon_ompt_module = id;
    atomic_store(&mon_ompt_get_state, get);
    return 1;
}

static void
finalize(ompt_data_t *tool_data)
{
    (void)tool_data;
    atomic_store(&mon_ompt_get_state, NULL);
}

/*
 * Called by the OpenMP runtime once, when it initializes.  Returns the
 * tool's initializer and finalizer, or NULL (no tool) when csprof is not
 * profiling this process or the user named other tools.
 */
CSP_EXPORT ompt_start_tool_result_t *
ompt_start_tool(unsigned int omp_version, const char *runtime_version)
{
    static ompt_start_tool_result_t result = {initialize, finalize, {0}};
    const char *others = getenv("OMP_TOOL_LIBRARIES");
    const char *want = getenv("CSPROF_OMPT");

    (void)omp_version;
    (void)runtime_version;
    if (!mon_proc.active || (others != NULL && others[0] != '\0') ||
        (want != NULL && strcmp(want, "0") == 0))
        return NULL;
    return &result;
}
