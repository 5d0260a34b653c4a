/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bytes.h -- the byte-level primitives every file format of csprof shares:
 * little-endian integers and doubles in and out of byte buffers (the
 * measurement file, thread-values.bin, ELF and DWARF sections of an x86-64
 * or aarch64 binary), and bytes as lowercase hexadecimal (build-ids).
 *
 * All functions are pure: no allocation, no errno, no locks; the caller
 * owns every buffer and guarantees its size.  [async-signal-safe]
 */
#ifndef CSP_BYTES_H
#define CSP_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The little-endian integer of the @n (at most 8) bytes at @p.  [async-signal-safe] */
static inline uint64_t
csp_le_load(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t v = 0;

    for (size_t i = 0; i < n && i < 8; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}

/* The little-endian 32-bit integer at @p (4 bytes).  [async-signal-safe] */
static inline uint32_t
csp_le_load32(const void *p)
{
    return (uint32_t)csp_le_load(p, 4);
}

/* The little-endian 64-bit integer at @p (8 bytes).  [async-signal-safe] */
static inline uint64_t
csp_le_load64(const void *p)
{
    return csp_le_load(p, 8);
}

/* The IEEE 754 double whose bits are the little-endian 64-bit integer at @p.  [async-signal-safe] */
static inline double
csp_le_load_f64(const void *p)
{
    uint64_t v = csp_le_load64(p);
    double d;

    memcpy(&d, &v, sizeof d);
    return d;
}

/* Write the low @n (at most 8) bytes of @v at @p, least significant first.  [async-signal-safe] */
static inline void
csp_le_store(void *p, uint64_t v, size_t n)
{
    uint8_t *b = p;

    for (size_t i = 0; i < n && i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

/* Write @v at @p as 4 little-endian bytes.  [async-signal-safe] */
static inline void
csp_le_store32(void *p, uint32_t v)
{
    csp_le_store(p, v, 4);
}

/* Write @v at @p as 8 little-endian bytes.  [async-signal-safe] */
static inline void
csp_le_store64(void *p, uint64_t v)
{
    csp_le_store(p, v, 8);
}

/* Write the bits of @d at @p as 8 little-endian bytes.  [async-signal-safe] */
static inline void
csp_le_store_f64(void *p, double d)
{
    uint64_t v;

    memcpy(&v, &d, sizeof v);
    csp_le_store64(p, v);
}

/*
 * Write the @n bytes at @p as lowercase hexadecimal (two digits a byte, the
 * first byte first: a build-id as `file`, `readelf -n` and debuginfod spell
 * it) into @out of @outlen bytes, NUL-terminated.  Writes as many whole bytes
 * as fit; returns the number of digits written (2 * @n when all fit).
 * [async-signal-safe]
 */
static inline size_t
csp_hex(const void *p, size_t n, char *out, size_t outlen)
{
    static const char digits[] = "0123456789abcdef";
    const uint8_t *b = p;
    size_t k = 0;

    if (outlen == 0)
        return 0;
    for (size_t i = 0; i < n && k + 2 < outlen; i++) {
        out[k++] = digits[b[i] >> 4];
        out[k++] = digits[b[i] & 0xf];
    }
    out[k] = '\0';
    return k;
}

#endif /* CSP_BYTES_H */
