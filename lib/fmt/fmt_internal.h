/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fmt_internal.h -- layout constants shared by the measurement-file writer
 * (fmt_write_sig.c, runs in the profiled process, async-signal-safe) and
 * reader (fmt_read.c, tools only).
 *
 * The numbers here ARE the file format: share/schemas/measurement-format.md
 * describes every one of them, and changing any of them needs a new major
 * version (FMT_VERSION in fmt.h).
 */
#ifndef CSP_FMT_INTERNAL_H
#define CSP_FMT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "support/compiler.h"

/* Minor version written at byte 12.  Minor versions only add section kinds
 * that older readers may skip; a reader accepts any minor of its major. */
#define FMT_VERSION_MINOR 2u

#define FMT_FILE_HEADER_SIZE    16u /* magic[8], u32 major, u32 minor */
#define FMT_SECTION_HEADER_SIZE 16u /* u32 kind, u32 flags, u64 payload length */
#define FMT_NODE_FIXED_SIZE     52u /* a CCT node without its metrics */
#define FMT_METRIC_SIZE         12u /* u32 event, u64 value */
#define FMT_END_PAYLOAD_SIZE    12u /* u64 file length, u32 crc32 */
#define FMT_RECORD_PAYLOAD_SIZE 12u /* u32 flags, u64 sequence number */
#define FMT_RECORD_ALIGN        8u  /* records of a multi-record file start at multiples of 8 */

/* Smallest encodings of table entries (all strings empty): bounds for counts. */
#define FMT_EVENT_MIN_SIZE  32u /* 4 strings, u64 period, f64 display_scale */
#define FMT_MODULE_MIN_SIZE 40u /* u32 id, u32 epoch, path, build-id, 3 x u64 */
#define FMT_STAT_MIN_SIZE   12u /* name, u64 value */

/* Length written into a section header until the section is closed; a file
 * cut off inside that section therefore reads as truncated. */
#define FMT_LENGTH_PENDING UINT64_MAX

/* Section flag: a reader that does not know this section kind must reject
 * the file (FMT_EVERSION) instead of skipping the section.  v1 writers set
 * no flags; other bits are reserved, written 0 and ignored. */
#define FMT_SECTION_REQUIRED 1u

enum fmt_section_kind {
    FMT_SEC_IDENT = 1,   /* struct fmt_header */
    FMT_SEC_EVENTS = 2,  /* event table */
    FMT_SEC_LOADMAP = 3, /* load modules */
    FMT_SEC_CCT = 4,     /* u32 epoch, u64 node count, nodes */
    FMT_SEC_STATS = 5,   /* named counters */
    FMT_SEC_END = 6,     /* u64 file length, u32 crc32 of all earlier payloads; last */
    FMT_SEC_RECORD = 7,  /* minor 1, optional: u32 flags, u64 sequence number */
    FMT_SEC_RUN = 8,     /* minor 2, optional, right after IDENT: str run id */
};

/*
 * CRC-32 (ISO-HDLC / IEEE 802.3, reflected polynomial 0xEDB88320, the one
 * zlib's crc32() computes) of @n bytes at @p, continuing @crc; start with 0.
 * crc32(crc32(0, a), b) == crc32(0, a || b).  [async-signal-safe]
 */
CSP_SIGSAFE uint32_t fmt_crc32(uint32_t crc, const void *p, size_t n);

#endif /* CSP_FMT_INTERNAL_H */
