/* SPDX-License-Identifier: BSD-3-Clause */
/* loader_locks_lib.c -- a library for loader_locks' dlopenx threads to load and unload. */
int loader_locks_probe(int x);

int
loader_locks_probe(int x)
{
    return x + 1;
}
