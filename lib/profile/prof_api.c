/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prof_api.c -- the public entry points of lib/profile (profile.h): context
 * life cycle, errors and messages, and the guarded calls into the pipeline.
 *
 * Tool code; never prints, never exits.  Each entry point runs its work
 * under PROF_GUARD, so an allocation failure anywhere below returns
 * PROF_ENOMEM here.
 */
#include <stdlib.h>
#include <string.h>

#include "profile_internal.h"
#include "structure/structure.h"

static int
prof_new_impl(const struct prof_config *cfg, struct prof_ctx **out)
{
    struct prof_ctx *ctx = prof_xmalloc(sizeof(*ctx));

    memset(ctx, 0, sizeof(*ctx)); /* freeable before init completes */
    *out = ctx;
    prof_ctx_init(ctx, cfg);
    return 0;
}

int
prof_new(const struct prof_config *cfg, struct prof_ctx **out)
{
    *out = NULL;
    PROF_GUARD(NULL, prof_new_impl(cfg, out));
}

void
prof_free(struct prof_ctx *ctx)
{
    if (ctx == NULL)
        return;
    prof_ctx_free(ctx);
    free(ctx);
}

const char *
prof_strerror(int status)
{
    switch (status) {
    case PROF_OK:
        return "success";
    case PROF_ENOMEM:
        return "out of memory";
    case PROF_EIO:
        return "input/output error";
    case PROF_EINVAL:
        return "invalid input";
    case PROF_ENODATA:
        return "no readable measurement file";
    case PROF_ESTATE:
        return "called out of order";
    default:
        return "unknown error";
    }
}

const char *
prof_errmsg(const struct prof_ctx *ctx)
{
    if (ctx == NULL || ctx->errmsg == NULL)
        return ctx == NULL ? "out of memory" : "";
    return ctx->errmsg;
}

size_t
prof_message_count(const struct prof_ctx *ctx)
{
    return ctx->nmsgs;
}

const char *
prof_message(const struct prof_ctx *ctx, size_t i, enum prof_msg_level *level)
{
    if (i >= ctx->nmsgs)
        return NULL;
    if (level != NULL)
        *level = ctx->msgs[i].level;
    return ctx->msgs[i].text;
}

void
prof_clear_messages(struct prof_ctx *ctx)
{
    size_t i;

    for (i = 0; i < ctx->nmsgs; i++)
        free(ctx->msgs[i].text);
    ctx->nmsgs = 0;
}

static int
prof_load_structure_impl(struct prof_ctx *ctx, const char *path)
{
    struct struct_module **mods = NULL;
    char err[512] = "";
    size_t n = 0, i;
    int rc;

    rc = struct_read_xml(path, &mods, &n, err, sizeof(err));
    if (rc < 0)
        return prof_fail(ctx, PROF_EINVAL, "%s", err[0] ? err : struct_strerror(rc));
    for (i = 0; i < n; i++) {
        char *file = prof_xstrdup(path);

        prof_grow(&ctx->structs, &ctx->structs_cap, ctx->nstructs + 1, sizeof(*ctx->structs));
        ctx->structs[ctx->nstructs].sm = mods[i];
        ctx->structs[ctx->nstructs].file = file;
        ctx->structs[ctx->nstructs].used = false;
        ctx->nstructs++;
        mods[i] = NULL;
    }
    free(mods);
    return 0;
}

int
prof_load_structure_file(struct prof_ctx *ctx, const char *path)
{
    PROF_GUARD(ctx, prof_load_structure_impl(ctx, path));
}

static int
prof_add_measurements_impl(struct prof_ctx *ctx, const char *arg)
{
    size_t first = ctx->ninputs;
    size_t n = prof_collect_inputs(ctx, arg, 0);

    prof_assign_runs(ctx, first, arg);
    return (int)n;
}

int
prof_add_measurements(struct prof_ctx *ctx, const char *arg)
{
    if (ctx->finished)
        return prof_fail(ctx, PROF_ESTATE, "%s: measurements added after prof_finish()", arg);
    PROF_GUARD(ctx, prof_add_measurements_impl(ctx, arg));
}

static int
prof_merge_impl(struct prof_ctx *ctx)
{
    prof_merge_inputs(ctx);
    return prof_merge_end(ctx);
}

int
prof_merge(struct prof_ctx *ctx)
{
    if (ctx->finished)
        return prof_fail(ctx, PROF_ESTATE, "prof_merge() after prof_finish()");
    PROF_GUARD(ctx, prof_merge_impl(ctx));
}

int
prof_merge_part(struct prof_ctx *ctx, size_t part, size_t nparts, void **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    if (ctx->finished)
        return prof_fail(ctx, PROF_ESTATE, "prof_merge_part() after prof_finish()");
    if (nparts == 0 || part >= nparts)
        return prof_fail(ctx, PROF_EINVAL, "part %zu of %zu: no such part", part, nparts);
    PROF_GUARD(ctx, prof_merge_part_impl(ctx, part, nparts, buf, len));
}

int
prof_merge_parts(struct prof_ctx *ctx, const void *const *bufs, const size_t *lens, size_t nparts)
{
    if (ctx->finished)
        return prof_fail(ctx, PROF_ESTATE, "prof_merge_parts() after prof_finish()");
    PROF_GUARD(ctx, prof_merge_parts_impl(ctx, bufs, lens, nparts));
}

static int
prof_finish_impl(struct prof_ctx *ctx)
{
    prof_tree_compute(&ctx->tree, (uint32_t)ctx->nevents);
    prof_stats_groups_compute(ctx); /* statistics: while writing (prof_stats_accumulate) */
    prof_flat_compute(ctx);
    prof_derived_compute(ctx);
    ctx->finished = true;
    return 0;
}

int
prof_finish(struct prof_ctx *ctx)
{
    if (ctx->finished)
        return prof_fail(ctx, PROF_ESTATE, "prof_finish() called twice");
    PROF_GUARD(ctx, prof_finish_impl(ctx));
}
