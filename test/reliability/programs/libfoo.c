/* SPDX-License-Identifier: BSD-3-Clause */
/* libfoo.c -- a do-nothing library the user preloads (reliability row 35). */
int libfoo_marker(void);

int
libfoo_marker(void)
{
    return 42;
}
