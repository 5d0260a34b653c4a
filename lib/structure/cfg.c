/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cfg.c -- control-flow graph of one procedure and its loops.
 *
 * The procedure's address ranges are decoded linearly (cfg.h's decoder
 * hook).  Basic blocks start at range starts, at jump targets inside the
 * procedure and after every instruction that does not fall through;
 * calls do not end blocks unless the callee does not return.  Edges:
 * fall-through, direct and conditional jumps, and indirect jumps through
 * a recognized jump table (the gcc/clang patterns
 *     jmp *TABLE(,%idx,8)               absolute entries (non-PIC)
 *     mov TABLE(,%idx,8),%r; jmp *%r
 *     lea TABLE(%rip),%b; movslq (%b,%idx,4),%r; add %b,%r; jmp *%r
 * bounded by the nearest preceding "cmp $N, ..." when there is one).
 * Other indirect jumps get no successors and are counted.  A direct jump
 * out of the procedure is a tail call.  Bytes that do not decode end their
 * block and are counted.  Loops are found with struct_find_loops().
 *
 * Tool code only; reentrant (all state is per call), never prints.
 */
#include <stdlib.h>
#include <string.h>

#include "structure/cfg.h"

#define TABLE_MAX_ENTRIES 4096 /* larger "tables" are not believed */
#define TABLE_SCAN_BACK   24   /* instructions searched for the table pattern */

bool
struct_name_noreturn(const char *name)
{
    static const char *const names[] = {
        "abort",
        "exit",
        "_exit",
        "_Exit",
        "quick_exit",
        "__stack_chk_fail",
        "__cxa_throw",
        "__cxa_rethrow",
        "__cxa_bad_cast",
        "__cxa_bad_typeid",
        "__cxa_throw_bad_array_new_length",
        "__cxa_call_unexpected",
        "_Unwind_Resume",
        "__assert_fail",
        "__assert_perror_fail",
        "__assert",
        "longjmp",
        "_longjmp",
        "siglongjmp",
        "__longjmp_chk",
        "pthread_exit",
        "err",
        "errx",
        "verr",
        "verrx",
        "__fortify_fail",
        "__chk_fail",
        "__libc_fatal",
        "_gfortran_stop_string",
        "_gfortran_error_stop_string",
        "_gfortran_error_stop_numeric",
        "_gfortran_runtime_error",
        "_gfortran_runtime_error_at",
        "_gfortran_os_error",
        "_gfortran_os_error_at",
        "__ubsan_handle_builtin_unreachable",
        "std::terminate()",
        "_ZSt9terminatev",
    };
    size_t len;
    const char *at;

    if (name == NULL)
        return false;
    at = strchr(name, '@'); /* "exit@plt", "exit@GLIBC_2.2.5" */
    len = at != NULL ? (size_t)(at - name) : strlen(name);
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
            return true;
    /* libstdc++'s std::__throw_* helpers, mangled or not. */
    return strncmp(name, "_ZSt", 4) == 0 ? strstr(name, "__throw_") != NULL
                                         : strncmp(name, "std::__throw_", 13) == 0;
}

struct builder {
    struct struct_decoder *d;
    const struct struct_cfg_env *env;
    const struct struct_range *r;
    size_t nr;
    struct struct_insn *insns;
    size_t ninsns, capinsns;
    uint64_t *leaders;
    size_t nleaders, capleaders;
    /* jump-table targets, flattened, with the jump's instruction index */
    struct jt {
        size_t insn;
        uint64_t target;
    } * jts;
    size_t njts, capjts;
    struct struct_cfg *out;
};

static int
grow(void **v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 64;
    void *nv = realloc(*v, ncap * size);

    if (nv == NULL)
        return STRUCT_ENOMEM;
    *v = nv;
    *cap = ncap;
    return 0;
}

static int
push_leader(struct builder *b, uint64_t a)
{
    if (grow((void **)&b->leaders, &b->capleaders, b->nleaders, sizeof(*b->leaders)) != 0)
        return STRUCT_ENOMEM;
    b->leaders[b->nleaders++] = a;
    return 0;
}

static bool
in_ranges(const struct struct_range *r, size_t n, uint64_t a)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (r[mid].hi <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && r[lo].lo <= a;
}

/* The image part holding @a, or NULL. */
static const struct struct_image_part *
part_at(const struct struct_cfg_env *env, uint64_t a)
{
    size_t lo = 0, hi = env->nparts;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (env->parts[mid].hi <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < env->nparts && env->parts[lo].lo <= a ? &env->parts[lo] : NULL;
}

const struct struct_entry *
struct_cfg_entry_at(const struct struct_cfg_env *env, uint64_t a)
{
    size_t lo = 0, hi = env->nentries;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (env->entries[mid].addr < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < env->nentries && env->entries[lo].addr == a ? &env->entries[lo] : NULL;
}

/* Read @size (4 or 8) little-endian bytes at @a from the image. */
static bool
read_image(const struct struct_cfg_env *env, uint64_t a, size_t size, int64_t *val)
{
    const struct struct_image_part *p = part_at(env, a);
    uint64_t v = 0;

    if (p == NULL || p->hi - a < size)
        return false;
    for (size_t i = 0; i < size; i++)
        v |= (uint64_t)p->bytes[a - p->lo + i] << (8 * i);
    if (size == 4)
        *val = (int32_t)(uint32_t)v;
    else
        *val = (int64_t)v;
    return true;
}

static bool
is_noreturn_call(const struct builder *b, const struct struct_insn *in)
{
    const struct struct_entry *e;

    if (in->kind != STRUCT_INSN_CALL)
        return false;
    e = struct_cfg_entry_at(b->env, in->target);
    return e != NULL && e->noreturn;
}

static bool
ends_block(const struct builder *b, const struct struct_insn *in)
{
    switch (in->kind) {
    case STRUCT_INSN_OTHER:
    case STRUCT_INSN_ICALL:
        return false;
    case STRUCT_INSN_CALL:
        return is_noreturn_call(b, in);
    default:
        return true;
    }
}

static int
decode_all(struct builder *b)
{
    for (size_t i = 0; i < b->nr; i++) {
        uint64_t a = b->r[i].lo;

        if (push_leader(b, a) != 0)
            return STRUCT_ENOMEM;
        while (a < b->r[i].hi) {
            const struct struct_image_part *p = part_at(b->env, a);
            struct struct_insn *in;
            uint64_t lim;

            if (grow((void **)&b->insns, &b->capinsns, b->ninsns, sizeof(*b->insns)) != 0)
                return STRUCT_ENOMEM;
            in = &b->insns[b->ninsns++];
            if (p == NULL || !p->exec) {
                /* No code bytes here (NOBITS, a gap, corrupt sizes): one BAD
                 * byte stands for the run up to the next executable part. */
                uint64_t next = b->r[i].hi;

                for (size_t k = 0; k < b->env->nparts; k++)
                    if (b->env->parts[k].exec && b->env->parts[k].lo > a) {
                        if (b->env->parts[k].lo < next)
                            next = b->env->parts[k].lo;
                        break;
                    }
                memset(in, 0, sizeof(*in));
                in->addr = a;
                in->len = 1;
                in->kind = STRUCT_INSN_BAD;
                b->out->bad_bytes += next - a - 1;
                if (push_leader(b, next) != 0)
                    return STRUCT_ENOMEM;
                a = next - 1; /* + len below */
            } else {
                lim = p->hi < b->r[i].hi ? p->hi : b->r[i].hi;
                struct_decode(b->d, p->bytes + (a - p->lo), (size_t)(lim - a), a, in);
            }
            if (in->kind == STRUCT_INSN_BAD)
                b->out->bad_bytes += in->len;
            a += in->len;
            if (a > b->r[i].hi) /* an instruction cannot cross the range: decode clipped it */
                a = b->r[i].hi;
            if (ends_block(b, in) && push_leader(b, a) != 0)
                return STRUCT_ENOMEM;
            if ((in->kind == STRUCT_INSN_JUMP || in->kind == STRUCT_INSN_CJUMP) &&
                in_ranges(b->r, b->nr, in->target) && push_leader(b, in->target) != 0)
                return STRUCT_ENOMEM;
        }
    }
    b->out->ninsns = b->ninsns;
    return 0;
}

/* Index of the instruction starting at @a, or SIZE_MAX. */
static size_t
insn_at(const struct builder *b, uint64_t a)
{
    size_t lo = 0, hi = b->ninsns;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (b->insns[mid].addr < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < b->ninsns && b->insns[lo].addr == a ? lo : SIZE_MAX;
}

/* Try to resolve the indirect jump at instruction @j through a jump table. */
static int
resolve_table(struct builder *b, size_t j)
{
    const struct struct_insn *jmp = &b->insns[j];
    uint64_t table = 0;
    size_t esize = 0, stop = j > TABLE_SCAN_BACK ? j - TABLE_SCAN_BACK : 0;
    bool relative = false;
    int64_t bound = -1;
    size_t n = 0, k;

    if (jmp->has_mem && !jmp->mem_rip && jmp->mem_base == 0 && jmp->mem_index != 0 &&
        jmp->mem_scale == 8) {
        table = (uint64_t)jmp->mem_disp;
        esize = 8;
        k = j;
    } else if (jmp->src_reg != 0) {
        uint16_t r = jmp->src_reg, base = 0;

        for (k = j; k-- > stop;) {
            const struct struct_insn *in = &b->insns[k];

            if (in->kind != STRUCT_INSN_OTHER || in->dst_reg != r)
                continue;
            if (in->op == STRUCT_OP_ADD && base == 0) {
                base = in->src_reg; /* r = entry + base */
                continue;
            }
            if (in->op == STRUCT_OP_ADD) /* add r, base may come either way round */
                break;
            if (in->op == STRUCT_OP_LOAD8 && base == 0 && !in->mem_rip && in->mem_base == 0 &&
                in->mem_index != 0 && in->mem_scale == 8) {
                table = (uint64_t)in->mem_disp;
                esize = 8;
            } else if (in->op == STRUCT_OP_LOAD4S && in->mem_index != 0 && in->mem_scale == 4 &&
                       in->mem_disp == 0 && (in->mem_base == base || in->mem_index == base)) {
                uint16_t tb = in->mem_base == base ? base : in->mem_index;

                for (size_t m = k; m-- > stop;) { /* the table base: lea tb, [rip + X] */
                    const struct struct_insn *l = &b->insns[m];

                    if (l->kind == STRUCT_INSN_OTHER && l->dst_reg == tb) {
                        if (l->op == STRUCT_OP_LEA && l->mem_rip) {
                            table = (uint64_t)l->mem_disp;
                            esize = 4;
                            relative = true;
                        }
                        break;
                    }
                }
            }
            break;
        }
    } else {
        return 0;
    }
    if (esize == 0)
        return 0;
    for (size_t m = k; m-- > stop;) { /* the bound: cmp idx, N; ja default */
        const struct struct_insn *in = &b->insns[m];

        if (in->op == STRUCT_OP_CMP && in->has_imm) {
            if (in->imm >= 0 && in->imm < TABLE_MAX_ENTRIES)
                bound = in->imm + 1;
            break;
        }
        if (in->kind != STRUCT_INSN_OTHER && in->kind != STRUCT_INSN_CJUMP)
            break;
    }
    for (int64_t i = 0; i < (bound >= 0 ? bound : TABLE_MAX_ENTRIES); i++) {
        int64_t v;
        uint64_t target;

        if (!read_image(b->env, table + (uint64_t)i * esize, esize, &v))
            break;
        target = relative ? table + (uint64_t)v : (uint64_t)v;
        if (!in_ranges(b->r, b->nr, target) || insn_at(b, target) == SIZE_MAX) {
            if (bound < 0)
                break; /* unbounded: the table ends at the first implausible entry */
            continue;
        }
        if (grow((void **)&b->jts, &b->capjts, b->njts, sizeof(*b->jts)) != 0 ||
            push_leader(b, target) != 0)
            return STRUCT_ENOMEM;
        b->jts[b->njts++] = (struct jt){j, target};
        n++;
    }
    if (n > 0)
        b->out->jump_tables++;
    return 0;
}

static int
u64_cmp(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;

    return a < b ? -1 : a > b;
}

static int
call_cmp(const void *pa, const void *pb)
{
    const struct struct_call *a = pa, *b = pb;

    return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* Block containing address @a (blocks sorted, disjoint), or -1. */
static int64_t
block_at(const struct struct_cfg *c, uint64_t a)
{
    size_t lo = 0, hi = c->nblocks;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (c->blocks[mid].hi <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < c->nblocks && c->blocks[lo].lo <= a ? (int64_t)lo : -1;
}

static int
add_call(struct struct_cfg *c, size_t *cap, const struct struct_insn *in, unsigned flags,
         uint64_t target)
{
    if (grow((void **)&c->calls, cap, c->ncalls, sizeof(*c->calls)) != 0)
        return STRUCT_ENOMEM;
    c->calls[c->ncalls++] = (struct struct_call){in->addr, in->addr + in->len, target, flags};
    return 0;
}

/* Is loop @anc an ancestor of (or equal to) loop @l in @loops? */
static bool
loop_contains(const struct struct_loops *loops, int32_t anc, int32_t l)
{
    for (; l >= 0; l = loops->loops[l].parent)
        if (l == anc)
            return true;
    return false;
}

int
struct_cfg_build(struct struct_decoder *d, const struct struct_cfg_env *env,
                 const struct struct_range *r, size_t n, uint64_t entry, struct struct_cfg *out)
{
    struct builder b = {.d = d, .env = env, .r = r, .nr = n, .out = out};
    uint32_t *first = NULL, *succ_off = NULL, *succ = NULL;
    size_t nsucc = 0, capsucc = 0, capcalls = 0, jt = 0;
    struct struct_loops loops = {0};
    struct struct_graph g;
    int64_t eb;
    int rc = STRUCT_ENOMEM;

    memset(out, 0, sizeof(*out));
    if (decode_all(&b) != 0)
        goto out;
    for (size_t i = 0; i < b.ninsns; i++)
        if (b.insns[i].kind == STRUCT_INSN_IJUMP) {
            size_t before = b.njts;

            if (resolve_table(&b, i) != 0)
                goto out;
            if (b.njts == before)
                out->unresolved_jumps++;
        }
    if (b.nleaders > 0)
        qsort(b.leaders, b.nleaders, sizeof(*b.leaders), u64_cmp);
    for (size_t i = 0; i < b.ninsns; i++)
        out->ncbranches += b.insns[i].kind == STRUCT_INSN_CJUMP;
    out->cbranches = malloc((out->ncbranches + 1) * sizeof(*out->cbranches));
    if (out->cbranches == NULL)
        goto out;
    out->ncbranches = 0;
    for (size_t i = 0; i < b.ninsns; i++)
        if (b.insns[i].kind == STRUCT_INSN_CJUMP)
            out->cbranches[out->ncbranches++] = b.insns[i].addr;

    /* Blocks: runs of instructions cut at leaders and at gaps. */
    first = malloc((b.ninsns + 1) * sizeof(*first));
    out->blocks = malloc((b.ninsns + 1) * sizeof(*out->blocks));
    if (first == NULL || out->blocks == NULL)
        goto out;
    for (size_t i = 0, li = 0; i < b.ninsns; i++) {
        uint64_t a = b.insns[i].addr;
        bool cut = i == 0 || b.insns[i - 1].addr + b.insns[i - 1].len != a ||
                   ends_block(&b, &b.insns[i - 1]);

        while (li < b.nleaders && b.leaders[li] < a)
            li++;
        if (li < b.nleaders && b.leaders[li] == a)
            cut = true;
        if (cut) {
            first[out->nblocks] = (uint32_t)i;
            out->blocks[out->nblocks++] = (struct struct_block){a, a, -1};
        }
        out->blocks[out->nblocks - 1].hi = a + b.insns[i].len;
    }
    first[out->nblocks] = (uint32_t)b.ninsns;

    /* Edges and call sites. */
    succ_off = malloc((out->nblocks + 1) * sizeof(*succ_off));
    if (succ_off == NULL)
        goto out;
    for (size_t k = 0; k < out->nblocks; k++) {
        const struct struct_insn *last = &b.insns[first[k + 1] - 1];
        bool fall = false;

        succ_off[k] = (uint32_t)nsucc;
        for (uint32_t i = first[k]; i < first[k + 1]; i++) {
            const struct struct_insn *in = &b.insns[i];

            if (in->kind == STRUCT_INSN_CALL || in->kind == STRUCT_INSN_ICALL) {
                unsigned fl = in->kind == STRUCT_INSN_ICALL ? STRUCT_CALL_INDIRECT : 0;

                if (is_noreturn_call(&b, in))
                    fl |= STRUCT_CALL_NORETURN;
                if (add_call(out, &capcalls, in, fl,
                             in->kind == STRUCT_INSN_CALL ? in->target : 0) != 0)
                    goto out;
            }
        }
        switch (last->kind) {
        case STRUCT_INSN_OTHER:
        case STRUCT_INSN_ICALL:
            fall = true;
            break;
        case STRUCT_INSN_CALL:
            fall = !is_noreturn_call(&b, last);
            break;
        case STRUCT_INSN_CJUMP:
            fall = true;
            /* fall through */
        case STRUCT_INSN_JUMP:
            if (in_ranges(r, n, last->target)) {
                int64_t t = block_at(out, last->target);

                if (t >= 0 && out->blocks[t].lo == last->target) {
                    if (grow((void **)&succ, &capsucc, nsucc, sizeof(*succ)) != 0)
                        goto out;
                    succ[nsucc++] = (uint32_t)t;
                }
            } else {
                const struct struct_entry *e = struct_cfg_entry_at(env, last->target);
                unsigned fl =
                    STRUCT_CALL_TAIL | (e != NULL && e->noreturn ? STRUCT_CALL_NORETURN : 0);

                if (add_call(out, &capcalls, last, fl, last->target) != 0)
                    goto out;
            }
            break;
        case STRUCT_INSN_IJUMP:
            while (jt < b.njts && b.jts[jt].insn < first[k + 1] - 1)
                jt++;
            for (; jt < b.njts && b.jts[jt].insn == first[k + 1] - 1; jt++) {
                int64_t t = block_at(out, b.jts[jt].target);

                if (t >= 0 && out->blocks[t].lo == b.jts[jt].target) {
                    if (grow((void **)&succ, &capsucc, nsucc, sizeof(*succ)) != 0)
                        goto out;
                    succ[nsucc++] = (uint32_t)t;
                }
            }
            break;
        default:
            break;
        }
        if (fall && k + 1 < out->nblocks && out->blocks[k + 1].lo == out->blocks[k].hi) {
            if (grow((void **)&succ, &capsucc, nsucc, sizeof(*succ)) != 0)
                goto out;
            succ[nsucc++] = (uint32_t)(k + 1);
        }
    }
    succ_off[out->nblocks] = (uint32_t)nsucc;
    if (out->ncalls > 1)
        qsort(out->calls, out->ncalls, sizeof(*out->calls), call_cmp);

    /* Loops. */
    eb = block_at(out, entry);
    g = (struct struct_graph){(uint32_t)out->nblocks, eb >= 0 ? (uint32_t)eb : 0, succ_off, succ};
    if (struct_find_loops(&g, &loops) != 0)
        goto out;
    if (loops.nloops > 0) {
        out->loops = calloc(loops.nloops, sizeof(*out->loops));
        if (out->loops == NULL)
            goto out;
        out->nloops = loops.nloops;
        for (size_t i = 0; i < loops.nloops; i++) {
            out->loops[i].parent = loops.loops[i].parent;
            out->loops[i].irreducible = loops.loops[i].irreducible;
        }
        for (size_t k = 0; k < out->nblocks; k++)
            out->blocks[k].loop = loops.innermost[k];
        /* Entry blocks: targets of edges from outside the loop, and the
         * procedure's entry block (entered by the caller). */
        for (size_t u = 0; u <= out->nblocks; u++) {
            size_t lo = u < out->nblocks ? succ_off[u] : 0,
                   hi = u < out->nblocks ? succ_off[u + 1] : 1;

            for (size_t i = lo; i < hi; i++) {
                uint32_t v = u < out->nblocks ? succ[i] : g.entry;
                int32_t from = u < out->nblocks ? loops.innermost[u] : -1;

                if (v >= out->nblocks)
                    continue;
                for (int32_t l = loops.innermost[v]; l >= 0; l = loops.loops[l].parent) {
                    if (loop_contains(&loops, l, from))
                        break;
                    if (struct_rvec_push(&out->loops[l].entries, out->blocks[v].lo,
                                         out->blocks[v].hi) != 0)
                        goto out;
                }
            }
        }
        for (size_t i = 0; i < out->nloops; i++)
            struct_rvec_normalize(&out->loops[i].entries);
    }
    rc = 0;
out:
    struct_loops_free(&loops);
    free(first);
    free(succ_off);
    free(succ);
    free(b.insns);
    free(b.leaders);
    free(b.jts);
    if (rc != 0)
        struct_cfg_free(out);
    return rc;
}

void
struct_cfg_free(struct struct_cfg *c)
{
    for (size_t i = 0; i < c->nloops; i++)
        struct_rvec_free(&c->loops[i].entries);
    free(c->loops);
    free(c->blocks);
    free(c->calls);
    free(c->cbranches);
    memset(c, 0, sizeof(*c));
}
