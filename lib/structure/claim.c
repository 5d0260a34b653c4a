/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * claim.c -- which procedure candidate owns each address.  Candidates
 * come from DWARF, ELF symbols and .eh_frame FDEs, in that order of
 * trust; each source only claims addresses the sources before it left
 * free.  Tool code only.
 */
#include <stddef.h>
#include <stdlib.h>

#include "structure/binary_internal.h"
#include "support/search.h"

/* Start of the first range of @r that begins after @addr, or UINT64_MAX. */
static uint64_t
ranges_next_start(const struct struct_range *r, size_t n, uint64_t addr)
{
    size_t i = csp_upper_bound_u64(r, n, sizeof(*r), offsetof(struct struct_range, lo), addr);

    return i < n ? r[i].lo : UINT64_MAX;
}

struct flat {
    uint64_t lo, hi;
    size_t cand;
};

static int
flat_cmp(const void *pa, const void *pb)
{
    const struct flat *a = pa, *b = pb;

    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi > b->hi ? -1 : 1;
    return a->cand < b->cand ? -1 : a->cand > b->cand;
}

/*
 * Give each candidate of source @src the addresses no earlier candidate
 * (of this or an earlier source) claimed; @claimed grows accordingly.
 * DWARF procedures keep what is left of each range; symbol and FDE
 * procedures are dropped when their start is taken and end where the next
 * claimed range starts.
 */
int
struct_claim(struct analysis *an, enum cand_source src, struct struct_rvec *claimed)
{
    struct flat *v;
    size_t n = 0, k = 0;
    uint64_t max_end = 0;

    for (size_t i = 0; i < an->ncands; i++)
        if (an->cands[i].src == src)
            n += an->cands[i].raw.n;
    v = malloc((n ? n : 1) * sizeof(*v));
    if (v == NULL)
        return STRUCT_ENOMEM;
    for (size_t i = 0; i < an->ncands; i++)
        if (an->cands[i].src == src)
            for (size_t j = 0; j < an->cands[i].raw.n; j++)
                v[k++] = (struct flat){an->cands[i].raw.v[j].lo, an->cands[i].raw.v[j].hi, i};
    qsort(v, n, sizeof(*v), flat_cmp);
    for (size_t i = 0; i < n; i++) {
        struct cand *c = &an->cands[v[i].cand];
        uint64_t lo = v[i].lo, hi = v[i].hi;

        if (src == SRC_DWARF) {
            if (lo < max_end)
                lo = max_end;
        } else {
            uint64_t next;

            if (lo < max_end || struct_ranges_contain(claimed->v, claimed->n, lo))
                continue;
            next = ranges_next_start(claimed->v, claimed->n, lo);
            if (hi > next)
                hi = next;
        }
        if (lo < hi) {
            if (struct_rvec_push(&c->final, lo, hi) != 0)
                goto nomem;
            if (hi > max_end)
                max_end = hi;
        }
    }
    for (size_t i = 0; i < an->ncands; i++) {
        struct cand *c = &an->cands[i];

        if (c->src != src)
            continue;
        struct_rvec_normalize(&c->final);
        for (size_t j = 0; j < c->final.n; j++)
            if (struct_rvec_push(claimed, c->final.v[j].lo, c->final.v[j].hi) != 0)
                goto nomem;
    }
    struct_rvec_normalize(claimed);
    free(v);
    return 0;
nomem:
    free(v);
    return STRUCT_ENOMEM;
}
