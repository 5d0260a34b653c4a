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
 * An indirect jump no table explains goes to every address-taken label
 * of the procedure (computed goto: code addresses that the module's data
 * or a rip-relative lea of the procedure holds), and only when there is
 * none does it get no successors and is counted.  Indirect jumps reach
 * their targets through a virtual node (one per table, one for the
 * computed gotos), so an interpreter's dispatch is one loop headed there.
 * A direct jump out of the procedure is a tail call.  Bytes that do not
 * decode end their block and are counted.  Loops are found with
 * struct_find_loops(); virtual nodes are in no block.
 *
 * Tool code only; reentrant (all state is per call), never prints.
 */
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "structure/cfg.h"
#include "support/bytes.h"
#include "support/search.h"
#include "support/sort.h"
#include "support/vec.h"

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
        uint64_t table; /* the table's address */
    } * jts;
    size_t njts, capjts;
    /* computed gotos: the jumps (instruction indexes, ascending) and the
     * address-taken labels they may reach (sorted) */
    size_t *ljumps;
    size_t nljumps;
    uint64_t *labels;
    size_t nlabels;
    struct struct_cfg *out;
};

static int
push_leader(struct builder *b, uint64_t a)
{
    if (csp_vec_reserve(&b->leaders, &b->capleaders, b->nleaders + 1, sizeof(*b->leaders)) != 0)
        return STRUCT_ENOMEM;
    b->leaders[b->nleaders++] = a;
    return 0;
}

static bool
in_ranges(const struct struct_range *r, size_t n, uint64_t a)
{
    return csp_range_find(r, n, sizeof(*r), a) >= 0;
}

/* The image part holding @a, or NULL. */
static const struct struct_image_part *
part_at(const struct struct_cfg_env *env, uint64_t a)
{
    ptrdiff_t i = csp_range_find(env->parts, env->nparts, sizeof(*env->parts), a);

    return i >= 0 ? &env->parts[i] : NULL;
}

const struct struct_entry *
struct_cfg_entry_at(const struct struct_cfg_env *env, uint64_t a)
{
    size_t i = csp_lower_bound_u64(env->entries, env->nentries, sizeof(*env->entries),
                                   offsetof(struct struct_entry, addr), a);

    return i < env->nentries && env->entries[i].addr == a ? &env->entries[i] : NULL;
}

/* Read @size (4 or 8) little-endian bytes at @a from the image. */
static bool
read_image(const struct struct_cfg_env *env, uint64_t a, size_t size, int64_t *val)
{
    const struct struct_image_part *p = part_at(env, a);
    uint64_t v = 0;

    if (p == NULL || p->hi - a < size)
        return false;
    v = csp_le_load(p->bytes + (a - p->lo), size);
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

            if (csp_vec_reserve(&b->insns, &b->capinsns, b->ninsns + 1, sizeof(*b->insns)) != 0)
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
                struct_decode_flow(b->d, p->bytes + (a - p->lo), (size_t)(lim - a), a, in);
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
    size_t i = csp_lower_bound_u64(b->insns, b->ninsns, sizeof(*b->insns),
                                   offsetof(struct struct_insn, addr), a);

    return i < b->ninsns && b->insns[i].addr == a ? i : SIZE_MAX;
}

/*
 * Decode again, with their jump-table facts, the instructions of [@lo, @hi)
 * that decode_all() decoded without them (struct_decode_flow()).
 */
static void
decode_facts(struct builder *b, size_t lo, size_t hi)
{
    for (size_t k = lo; k < hi; k++) {
        struct struct_insn *in = &b->insns[k];
        const struct struct_image_part *p;

        if (!in->no_facts)
            continue;
        p = part_at(b->env, in->addr);
        if (p != NULL && p->exec && p->hi - in->addr >= in->len)
            struct_decode(b->d, p->bytes + (in->addr - p->lo), in->len, in->addr, in);
        in->no_facts = false;
    }
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

    decode_facts(b, stop, j);
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
        if (csp_vec_reserve(&b->jts, &b->capjts, b->njts + 1, sizeof(*b->jts)) != 0 ||
            push_leader(b, target) != 0)
            return STRUCT_ENOMEM;
        b->jts[b->njts++] = (struct jt){j, target, table};
        n++;
    }
    if (n > 0)
        b->out->jump_tables++;
    return 0;
}

/* Is @a a possible target of a computed goto: an instruction start of the
 * procedure that no jump table reaches and that no procedure is entered at? */
static bool
is_label(const struct builder *b, uint64_t a)
{
    return in_ranges(b->r, b->nr, a) && insn_at(b, a) != SIZE_MAX &&
           struct_cfg_entry_at(b->env, a) == NULL;
}

/*
 * The procedure's address-taken labels: code addresses inside it that
 * env->code_refs holds or that a rip-relative lea computes, less jump-table
 * targets (resolved tables explain those) and procedure entries (function
 * pointers).  Sorted, unique; *out is malloc'ed (NULL when none).
 */
static int
collect_labels(const struct builder *b, uint64_t **out, size_t *nout)
{
    uint64_t *v = NULL, *tt = NULL;
    size_t n = 0, cap = 0, ntt = 0, k = 0;
    int rc = STRUCT_ENOMEM;

    *out = NULL;
    *nout = 0;
    for (size_t i = 0; i < b->nr; i++) {
        const uint64_t *refs = b->env->code_refs;
        size_t j = csp_lower_bound_u64(refs, b->env->ncode_refs, sizeof(*refs), 0, b->r[i].lo);

        for (; j < b->env->ncode_refs && refs[j] < b->r[i].hi; j++)
            if (is_label(b, refs[j])) {
                if (csp_vec_reserve(&v, &cap, n + 1, sizeof(*v)) != 0)
                    goto out;
                v[n++] = refs[j];
            }
    }
    for (size_t i = 0; i < b->ninsns; i++) {
        const struct struct_insn *in = &b->insns[i];

        if (in->kind == STRUCT_INSN_OTHER && in->op == STRUCT_OP_LEA && in->mem_rip &&
            is_label(b, (uint64_t)in->mem_disp)) {
            if (csp_vec_reserve(&v, &cap, n + 1, sizeof(*v)) != 0)
                goto out;
            v[n++] = (uint64_t)in->mem_disp;
        }
    }
    if (n == 0)
        return 0;
    if (b->njts > 0) {
        tt = malloc(b->njts * sizeof(*tt));
        if (tt == NULL)
            goto out;
        for (size_t i = 0; i < b->njts; i++)
            tt[ntt++] = b->jts[i].target;
        ntt = csp_sort_unique_u64(tt, ntt);
    }
    n = csp_sort_unique_u64(v, n);
    for (size_t i = 0, t = 0; i < n; i++) { /* v less tt */
        while (t < ntt && tt[t] < v[i])
            t++;
        if (t < ntt && tt[t] == v[i])
            continue;
        v[k++] = v[i];
    }
    *out = v;
    *nout = k;
    v = NULL;
    rc = 0;
out:
    free(v);
    free(tt);
    return rc;
}

/*
 * Resolve the indirect jumps: through jump tables first (b->jts, by jump);
 * those that remain are computed gotos when the procedure has address-taken
 * labels (b->ljumps, b->labels), else unresolved.
 */
static int
resolve_indirect(struct builder *b)
{
    size_t *unresolved = NULL, nun = 0;

    for (size_t i = 0; i < b->ninsns; i++)
        if (b->insns[i].kind == STRUCT_INSN_IJUMP) {
            size_t before = b->njts;

            if (resolve_table(b, i) != 0)
                goto fail;
            if (b->njts > before)
                continue;
            if (unresolved == NULL &&
                (unresolved = malloc(b->ninsns * sizeof(*unresolved))) == NULL)
                goto fail;
            unresolved[nun++] = i;
        }
    if (nun > 0 && collect_labels(b, &b->labels, &b->nlabels) != 0)
        goto fail;
    for (size_t l = 0; l < b->nlabels; l++)
        if (push_leader(b, b->labels[l]) != 0)
            goto fail;
    if (b->nlabels == 0) {
        b->out->unresolved_jumps += nun;
        free(unresolved);
        return 0;
    }
    b->out->label_jumps += nun;
    b->ljumps = unresolved;
    b->nljumps = nun;
    return 0;
fail:
    free(unresolved);
    return STRUCT_ENOMEM;
}

/* Keep @v if it is the address of code in @parts. */
static int
push_code_ref(const struct struct_image_part *parts, size_t nparts, uint64_t v, uint64_t **out,
              size_t *n, size_t *cap)
{
    ptrdiff_t i = csp_range_find(parts, nparts, sizeof(*parts), v);

    if (i < 0 || !parts[i].exec)
        return 0;
    if (csp_vec_reserve(out, cap, *n + 1, sizeof(**out)) != 0)
        return STRUCT_ENOMEM;
    (*out)[(*n)++] = v;
    return 0;
}

int
struct_cfg_code_refs(Elf *elf, const struct struct_image_part *parts, size_t nparts, uint64_t **out,
                     size_t *nout)
{
    uint64_t *v = NULL;
    size_t n = 0, cap = 0;
    Elf_Scn *scn = NULL;
    GElf_Ehdr eh;

    *out = NULL;
    *nout = 0;
    if (gelf_getehdr(elf, &eh) == NULL)
        return 0;
    if (eh.e_type == ET_EXEC) {
        for (size_t i = 0; i < nparts; i++) {
            if (parts[i].exec)
                continue;
            for (uint64_t a = (parts[i].lo + 7) & ~(uint64_t)7; a + 8 <= parts[i].hi; a += 8) {
                uint64_t w = 0;

                memcpy(&w, parts[i].bytes + (a - parts[i].lo), 8); /* little-endian host */
                if (push_code_ref(parts, nparts, w, &v, &n, &cap) != 0)
                    goto fail;
            }
        }
    }
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        Elf_Data *d;

        if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_RELA || sh.sh_entsize == 0)
            continue;
        d = elf_getdata(scn, NULL);
        if (d == NULL)
            continue;
        for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Rela rel;

            if (gelf_getrela(d, (int)i, &rel) == NULL)
                break;
            if (struct_arch_reloc_relative(eh.e_machine, (unsigned)GELF_R_TYPE(rel.r_info)) &&
                push_code_ref(parts, nparts, (uint64_t)rel.r_addend, &v, &n, &cap) != 0)
                goto fail;
        }
    }
    *out = v;
    *nout = csp_sort_unique_u64(v, n);
    return 0;
fail:
    free(v);
    return STRUCT_ENOMEM;
}

#define SORT_CALLS_LESS(a, b) ((a)->addr < (b)->addr)
CSP_SORT_DEFINE(sort_calls, struct struct_call, SORT_CALLS_LESS)

/* Block containing address @a (blocks sorted, disjoint), or -1. */
static int64_t
block_at(const struct struct_cfg *c, uint64_t a)
{
    return csp_range_find(c->blocks, c->nblocks, sizeof(*c->blocks), a);
}

static int
add_call(struct struct_cfg *c, size_t *cap, const struct struct_insn *in, unsigned flags,
         uint64_t target)
{
    if (csp_vec_reserve(&c->calls, cap, c->ncalls + 1, sizeof(*c->calls)) != 0)
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

/* The control-flow graph under construction: blocks are nodes 0 .. nblocks-1;
 * then, when the procedure has computed gotos, their dispatch node; then one
 * node per jump table, which the jumps through it go to and which goes to
 * its targets (so a table of an interpreter's handlers, each of which jumps
 * through it, heads one loop instead of making them all one another's). */
struct graph_build {
    uint32_t *first; /* first instruction of each block, and ninsns */
    uint32_t *succ_off, *succ;
    size_t nsucc, capsucc, capcalls;
    uint32_t dispatch; /* the dispatch node, or UINT32_MAX */
    uint64_t *tables;  /* addresses of the resolved jump tables, sorted, unique */
    size_t ntables;
    uint32_t first_table; /* node of tables[0] */
    uint32_t nnodes;
};

/* The node of the jump table at @table. */
static uint32_t
table_node(const struct graph_build *gb, uint64_t table)
{
    return gb->first_table +
           (uint32_t)csp_lower_bound_u64(gb->tables, gb->ntables, sizeof(*gb->tables), 0, table);
}

static int
add_succ(struct graph_build *gb, uint32_t v)
{
    if (csp_vec_reserve(&gb->succ, &gb->capsucc, gb->nsucc + 1, sizeof(*gb->succ)) != 0)
        return STRUCT_ENOMEM;
    gb->succ[gb->nsucc++] = v;
    return 0;
}

/* Add the edge to the block starting at @a, if there is one. */
static int
add_succ_at(struct graph_build *gb, const struct struct_cfg *out, uint64_t a)
{
    int64_t t = block_at(out, a);

    return t >= 0 && out->blocks[t].lo == a ? add_succ(gb, (uint32_t)t) : 0;
}

/* Basic blocks: runs of instructions cut at leaders and at gaps. */
static int
build_blocks(struct builder *b, struct graph_build *gb)
{
    struct struct_cfg *out = b->out;

    if (b->nleaders > 0)
        csp_sort_u64(b->leaders, b->nleaders);
    gb->first = malloc((b->ninsns + 1) * sizeof(*gb->first));
    out->blocks = malloc((b->ninsns + 1) * sizeof(*out->blocks));
    if (gb->first == NULL || out->blocks == NULL)
        return STRUCT_ENOMEM;
    for (size_t i = 0, li = 0; i < b->ninsns; i++) {
        uint64_t a = b->insns[i].addr;
        bool cut = i == 0 || b->insns[i - 1].addr + b->insns[i - 1].len != a ||
                   ends_block(b, &b->insns[i - 1]);

        while (li < b->nleaders && b->leaders[li] < a)
            li++;
        if (li < b->nleaders && b->leaders[li] == a)
            cut = true;
        if (cut) {
            gb->first[out->nblocks] = (uint32_t)i;
            out->blocks[out->nblocks++] = (struct struct_block){a, a, -1};
        }
        out->blocks[out->nblocks - 1].hi = a + b->insns[i].len;
    }
    gb->first[out->nblocks] = (uint32_t)b->ninsns;
    gb->dispatch = b->nljumps > 0 ? (uint32_t)out->nblocks : UINT32_MAX;
    gb->tables = malloc((b->njts + 1) * sizeof(*gb->tables));
    if (gb->tables == NULL)
        return STRUCT_ENOMEM;
    for (size_t i = 0; i < b->njts; i++)
        gb->tables[gb->ntables++] = b->jts[i].table;
    gb->ntables = csp_sort_unique_u64(gb->tables, gb->ntables);
    gb->first_table = (uint32_t)out->nblocks + (gb->dispatch != UINT32_MAX);
    gb->nnodes = gb->first_table + (uint32_t)gb->ntables;
    return 0;
}

/* The call sites of block @k, and the successors its last instruction gives. */
static int
block_edges(struct builder *b, struct graph_build *gb, size_t k, size_t *jt, size_t *lj)
{
    struct struct_cfg *out = b->out;
    uint32_t last_i = gb->first[k + 1] - 1;
    const struct struct_insn *last = &b->insns[last_i];
    bool fall = false;

    for (uint32_t i = gb->first[k]; i <= last_i; i++) {
        const struct struct_insn *in = &b->insns[i];

        if (in->kind == STRUCT_INSN_CALL || in->kind == STRUCT_INSN_ICALL) {
            unsigned fl = in->kind == STRUCT_INSN_ICALL ? STRUCT_CALL_INDIRECT : 0;

            if (is_noreturn_call(b, in))
                fl |= STRUCT_CALL_NORETURN;
            if (add_call(out, &gb->capcalls, in, fl,
                         in->kind == STRUCT_INSN_CALL ? in->target : 0) != 0)
                return STRUCT_ENOMEM;
        }
    }
    switch (last->kind) {
    case STRUCT_INSN_OTHER:
    case STRUCT_INSN_ICALL:
        fall = true;
        break;
    case STRUCT_INSN_CALL:
        fall = !is_noreturn_call(b, last);
        break;
    case STRUCT_INSN_CJUMP:
        fall = true;
        __attribute__((fallthrough));
    case STRUCT_INSN_JUMP:
        if (in_ranges(b->r, b->nr, last->target)) {
            if (add_succ_at(gb, out, last->target) != 0)
                return STRUCT_ENOMEM;
        } else {
            const struct struct_entry *e = struct_cfg_entry_at(b->env, last->target);
            unsigned fl = STRUCT_CALL_TAIL | (e != NULL && e->noreturn ? STRUCT_CALL_NORETURN : 0);

            if (add_call(out, &gb->capcalls, last, fl, last->target) != 0)
                return STRUCT_ENOMEM;
        }
        break;
    case STRUCT_INSN_IJUMP:
        while (*jt < b->njts && b->jts[*jt].insn < last_i)
            (*jt)++;
        if (*jt < b->njts && b->jts[*jt].insn == last_i &&
            add_succ(gb, table_node(gb, b->jts[*jt].table)) != 0)
            return STRUCT_ENOMEM;
        while (*lj < b->nljumps && b->ljumps[*lj] < last_i)
            (*lj)++;
        if (*lj < b->nljumps && b->ljumps[*lj] == last_i && add_succ(gb, gb->dispatch) != 0)
            return STRUCT_ENOMEM;
        break;
    default:
        break;
    }
    if (fall && k + 1 < out->nblocks && out->blocks[k + 1].lo == out->blocks[k].hi)
        return add_succ(gb, (uint32_t)(k + 1));
    return 0;
}

/*
 * Edges and call sites.  A computed goto goes to the dispatch node, which
 * goes to every address-taken label: one node instead of jumps x labels
 * edges, and the interpreter loop it makes is headed by the dispatch.
 */
static int
build_edges(struct builder *b, struct graph_build *gb)
{
    struct struct_cfg *out = b->out;
    size_t jt = 0, lj = 0, nodes = gb->nnodes;
    uint64_t *targets = NULL;

    gb->succ_off = malloc((nodes + 1) * sizeof(*gb->succ_off));
    if (gb->succ_off == NULL)
        return STRUCT_ENOMEM;
    for (size_t k = 0; k < out->nblocks; k++) {
        gb->succ_off[k] = (uint32_t)gb->nsucc;
        if (block_edges(b, gb, k, &jt, &lj) != 0)
            return STRUCT_ENOMEM;
    }
    if (gb->dispatch != UINT32_MAX) {
        gb->succ_off[gb->dispatch] = (uint32_t)gb->nsucc;
        for (size_t l = 0; l < b->nlabels; l++)
            if (add_succ_at(gb, out, b->labels[l]) != 0)
                return STRUCT_ENOMEM;
    }
    if (gb->ntables > 0 && (targets = malloc(b->njts * sizeof(*targets))) == NULL)
        return STRUCT_ENOMEM;
    for (size_t t = 0; t < gb->ntables; t++) {
        size_t n = 0;

        gb->succ_off[gb->first_table + t] = (uint32_t)gb->nsucc;
        for (size_t i = 0; i < b->njts; i++)
            if (b->jts[i].table == gb->tables[t])
                targets[n++] = b->jts[i].target;
        n = csp_sort_unique_u64(targets, n);
        for (size_t i = 0; i < n; i++)
            if (add_succ_at(gb, out, targets[i]) != 0) {
                free(targets);
                return STRUCT_ENOMEM;
            }
    }
    free(targets);
    gb->succ_off[nodes] = (uint32_t)gb->nsucc;
    if (out->ncalls > 1)
        sort_calls(out->calls, out->ncalls);
    return 0;
}

/* Record, for each loop containing node @v but not node @from, that it is
 * entered at @v (at the blocks inside it that @v goes to, when @v is a
 * dispatch or table node). */
static int
add_loop_entry(struct struct_cfg *out, const struct struct_loops *loops,
               const struct graph_build *gb, uint32_t v, int32_t from)
{
    for (int32_t l = loops->innermost[v]; l >= 0; l = loops->loops[l].parent) {
        if (loop_contains(loops, l, from))
            break;
        if (v < out->nblocks) {
            if (struct_rvec_push(&out->loops[l].entries, out->blocks[v].lo, out->blocks[v].hi) != 0)
                return STRUCT_ENOMEM;
            continue;
        }
        for (uint32_t i = gb->succ_off[v]; i < gb->succ_off[v + 1]; i++) {
            uint32_t w = gb->succ[i];

            if (loop_contains(loops, l, loops->innermost[w]) &&
                struct_rvec_push(&out->loops[l].entries, out->blocks[w].lo, out->blocks[w].hi) != 0)
                return STRUCT_ENOMEM;
        }
    }
    return 0;
}

/*
 * The loops of graph @g, with their entry blocks (targets of edges from
 * outside the loop, and the procedure's entry block, entered by the caller)
 * and back edges (the conditional and indirect jumps from inside the loop
 * to its header).
 */
static int
find_loops(struct builder *b, const struct graph_build *gb, const struct struct_graph *g)
{
    struct struct_cfg *out = b->out;
    struct struct_loops loops = {0};
    int rc = STRUCT_ENOMEM;

    if (struct_find_loops(g, &loops) != 0)
        return STRUCT_ENOMEM;
    if (loops.nloops == 0) {
        struct_loops_free(&loops);
        return 0;
    }
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
    if (add_loop_entry(out, &loops, gb, g->entry, -1) != 0)
        goto out;
    for (uint32_t u = 0; u < g->n; u++)
        for (uint32_t i = g->succ_off[u]; i < g->succ_off[u + 1]; i++) {
            uint32_t v = g->succ[i];
            int32_t l = loops.innermost[v];

            if (add_loop_entry(out, &loops, gb, v, loops.innermost[u]) != 0)
                goto out;
            /* a back edge: a jump from u inside the loop v heads */
            for (; l >= 0 && u < out->nblocks; l = loops.loops[l].parent) {
                const struct struct_insn *last = &b->insns[gb->first[u + 1] - 1];

                if (last->kind != STRUCT_INSN_CJUMP && last->kind != STRUCT_INSN_IJUMP)
                    break;
                if (loops.loops[l].header != v)
                    continue;
                if (loop_contains(&loops, l, loops.innermost[u]) &&
                    struct_rvec_push(&out->loops[l].back_edges, last->addr,
                                     last->addr + last->len) != 0)
                    goto out;
                break;
            }
        }
    for (size_t i = 0; i < out->nloops; i++) {
        struct_rvec_normalize(&out->loops[i].entries);
        struct_rvec_normalize(&out->loops[i].back_edges);
    }
    rc = 0;
out:
    struct_loops_free(&loops);
    return rc;
}

static void
cbranches(struct builder *b)
{
    struct struct_cfg *out = b->out;

    out->ncbranches = 0;
    for (size_t i = 0; i < b->ninsns; i++)
        if (b->insns[i].kind == STRUCT_INSN_CJUMP)
            out->cbranches[out->ncbranches++] = b->insns[i].addr;
}

int
struct_cfg_build(struct struct_decoder *d, const struct struct_cfg_env *env,
                 const struct struct_range *r, size_t n, uint64_t entry, struct struct_cfg *out)
{
    struct builder b = {.d = d, .env = env, .r = r, .nr = n, .out = out};
    struct graph_build gb = {0};
    struct struct_graph g;
    int64_t eb;
    int rc = STRUCT_ENOMEM;

    memset(out, 0, sizeof(*out));
    if (decode_all(&b) != 0 || resolve_indirect(&b) != 0)
        goto out;
    out->cbranches = malloc((b.ninsns + 1) * sizeof(*out->cbranches));
    if (out->cbranches == NULL)
        goto out;
    cbranches(&b);
    if (build_blocks(&b, &gb) != 0 || build_edges(&b, &gb) != 0)
        goto out;
    eb = block_at(out, entry);
    g = (struct struct_graph){gb.nnodes, eb >= 0 ? (uint32_t)eb : 0, gb.succ_off, gb.succ};
    if (out->nblocks > 0 && find_loops(&b, &gb, &g) != 0)
        goto out;
    rc = 0;
out:
    free(gb.first);
    free(gb.tables);
    free(gb.succ_off);
    free(gb.succ);
    free(b.insns);
    free(b.leaders);
    free(b.jts);
    free(b.ljumps);
    free(b.labels);
    if (rc != 0)
        struct_cfg_free(out);
    return rc;
}

void
struct_cfg_free(struct struct_cfg *c)
{
    for (size_t i = 0; i < c->nloops; i++) {
        struct_rvec_free(&c->loops[i].entries);
        struct_rvec_free(&c->loops[i].back_edges);
    }
    free(c->loops);
    free(c->blocks);
    free(c->calls);
    free(c->cbranches);
    memset(c, 0, sizeof(*c));
}

int
struct_cfg_env_scan(Elf *elf, struct struct_cfg_env *env)
{
    GElf_Ehdr eh;
    uint64_t *refs = NULL;
    int rc;

    env->machine = gelf_getehdr(elf, &eh) != NULL ? eh.e_machine : EM_X86_64;
    rc = struct_cfg_code_refs(elf, env->parts, env->nparts, &refs, &env->ncode_refs);
    env->code_refs = refs;
    return rc;
}
