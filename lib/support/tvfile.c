/* SPDX-License-Identifier: BSD-3-Clause */
/* tvfile.c -- DB/thread-values.bin encoder and decoder (tvfile.h). */
#include "support/tvfile.h"

#include "support/bytes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void
tvf_put_header(unsigned char out[TVF_HEADER_SIZE], const struct tvf_header *h)
{
    memcpy(out, TVF_MAGIC, 8);
    csp_le_store32(out + 8, TVF_VERSION);
    csp_le_store32(out + 12, h->ncols);
    csp_le_store32(out + 16, h->nthreads);
    csp_le_store32(out + 20, h->nprocesses);
    csp_le_store64(out + 24, h->nnodes);
}

void
tvf_put_group(unsigned char out[TVF_GROUP_SIZE], const struct tvf_group *g)
{
    csp_le_store32(out, g->over);
    csp_le_store32(out + 4, g->index);
    csp_le_store32(out + 8, g->count);
}

size_t
tvf_put_entry(unsigned char out[TVF_ENTRY_MAX], const struct tvf_entry *e)
{
    uint32_t flags = e->excl == e->incl ? TVF_EXCL_IS_INCL : e->excl == 0.0 ? TVF_EXCL_ZERO : 0;

    csp_le_store32(out, e->node);
    csp_le_store32(out + 4, (e->column & TVF_COLUMN_MASK) | flags);
    csp_le_store_f64(out + 8, e->incl);
    if (flags != 0)
        return TVF_ENTRY_SIZE;
    csp_le_store_f64(out + TVF_ENTRY_SIZE, e->excl);
    return TVF_ENTRY_MAX;
}

int
tvf_read_header(struct tvf_reader *r, const unsigned char *buf, size_t len, struct tvf_header *h)
{
    r->base = r->p = buf;
    r->end = buf + len;
    r->left = 0;
    if (len < TVF_HEADER_SIZE || memcmp(buf, TVF_MAGIC, 8) != 0 ||
        csp_le_load32(buf + 8) != TVF_VERSION)
        return -1;
    h->ncols = csp_le_load32(buf + 12);
    h->nthreads = csp_le_load32(buf + 16);
    h->nprocesses = csp_le_load32(buf + 20);
    h->nnodes = csp_le_load64(buf + 24);
    r->p = buf + TVF_HEADER_SIZE;
    return 0;
}

int
tvf_next_entry(struct tvf_reader *r, struct tvf_entry *e)
{
    uint32_t cw;

    if (r->left == 0)
        return 0;
    if ((size_t)(r->end - r->p) < TVF_ENTRY_SIZE)
        return -1;
    cw = csp_le_load32(r->p + 4);
    if (!(cw & (TVF_EXCL_IS_INCL | TVF_EXCL_ZERO)) && (size_t)(r->end - r->p) < TVF_ENTRY_MAX)
        return -1;
    e->node = csp_le_load32(r->p);
    e->column = cw & TVF_COLUMN_MASK;
    e->incl = csp_le_load_f64(r->p + 8);
    if (cw & TVF_EXCL_IS_INCL)
        e->excl = e->incl;
    else if (cw & TVF_EXCL_ZERO)
        e->excl = 0;
    else
        e->excl = csp_le_load_f64(r->p + TVF_ENTRY_SIZE);
    r->p += (cw & (TVF_EXCL_IS_INCL | TVF_EXCL_ZERO)) ? TVF_ENTRY_SIZE : TVF_ENTRY_MAX;
    r->left--;
    return 1;
}

int
tvf_next_group(struct tvf_reader *r, struct tvf_group *g)
{
    struct tvf_entry skip;
    int rc;

    while ((rc = tvf_next_entry(r, &skip)) == 1)
        ;
    if (rc < 0)
        return -1;
    if (r->p == r->end)
        return 0;
    if ((size_t)(r->end - r->p) < TVF_GROUP_SIZE)
        return -1;
    g->over = csp_le_load32(r->p);
    g->index = csp_le_load32(r->p + 4);
    g->count = csp_le_load32(r->p + 8);
    r->p += TVF_GROUP_SIZE;
    r->left = g->count;
    return 1;
}

size_t
tvf_offset(const struct tvf_reader *r)
{
    return (size_t)(r->p - r->base);
}

int
tvf_load(const char *path, unsigned char **buf, size_t *len)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    unsigned char *b = NULL;
    int err = 0;

    *buf = NULL;
    *len = 0;
    if (f == NULL)
        return errno;
    if (fstat(fileno(f), &st) != 0) {
        err = errno;
    } else if ((b = malloc((size_t)st.st_size + 1)) == NULL) {
        err = ENOMEM;
    } else if (fread(b, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        err = EIO; /* a short read: the file changed or failed */
        free(b);
        b = NULL;
    }
    fclose(f);
    if (err == 0) {
        *buf = b;
        *len = (size_t)st.st_size;
    }
    return err;
}
