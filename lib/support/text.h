/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * text.h -- names from binaries and measurement files made safe to print.
 *
 * Symbol names, file names and command lines are bytes: they may hold
 * invalid UTF-8, control characters (a newline, an escape sequence) or
 * code points XML 1.0 cannot carry.  Every output (structure XML,
 * experiment XML, terminal summaries) writes such a name through
 * text_escape(): each offending byte becomes the four characters "\xNN",
 * so the result is valid UTF-8, a valid XML 1.0 attribute value, and one
 * line that moves no terminal cursor.  Clean names are unchanged, and the
 * escaping is idempotent (an escaped name is clean).  A backslash is not
 * escaped, so a name that literally contains "\x41" reads the same as an
 * escaped 'A' byte would; no compiler emits such names.  Escaping the
 * backslash of such a lookalike ("\x5c") would break idempotency (the
 * escape is itself a lookalike, so names already escaped by csprof-struct
 * would change again in csprof-prof); readers that need the raw bytes
 * decode the escapes and, failing that, use the name as stored
 * (csprof-prof -I, lib/profile/prof_source.c).
 *
 * Tool code (uses no allocation itself, but is not meant for signal context).
 */
#ifndef CSP_TEXT_H
#define CSP_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * True if @s needs no escaping: valid UTF-8 (shortest form, no surrogates),
 * only XML 1.0 characters, and no C0 control, DEL or C1 control
 * (U+0080..U+009F, which some terminals obey as CSI and friends).
 * [not async-signal-safe: not meant for signal context, though it calls nothing]
 */
bool text_clean(const char *s);

/* Bytes text_escape() writes for @s, the terminating NUL included (at most 4 * strlen + 1). */
size_t text_escaped_size(const char *s);

/*
 * Write @s into @dst (text_escaped_size(@s) bytes) with every byte of an
 * offending sequence replaced by "\xNN" (lowercase hex).  Returns the
 * number of bytes replaced (0 when @s was clean).  [not async-signal-safe]
 */
size_t text_escape(char *dst, const char *s);

/* The last component of @path (after its last '/'), pointing into @path; "" for NULL.
 * [async-signal-safe] */
const char *text_basename(const char *path);

/*
 * @name shortened for a terminal as perf and pprof shorten C++ and Rust
 * names: every template argument list and function parameter list that is
 * not empty becomes "<…>" or "(…)" (U+2026), at every level
 * ("std::vector<int>::push_back(int const&)" -> "std::vector<…>::push_back(…)").
 * A '<' counts as a bracket only after a name character, a '(' also after
 * a '>' or an operator, so "(anonymous namespace)", "<lambda>", "</script>"
 * and "loop at x.c:3" stay whole; the
 * symbols of operator<, operator<<, operator() and operator-> are never read
 * as brackets; an unclosed bracket is copied as is.  Writes at most @size
 * bytes (NUL included, cut to fit) to @dst; returns the number of lists
 * elided (0: @dst is @name).  [not async-signal-safe]
 */
size_t text_short_name(char *dst, size_t size, const char *name);

#endif /* CSP_TEXT_H */
