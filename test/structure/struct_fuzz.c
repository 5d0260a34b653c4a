/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * struct_fuzz.c -- libFuzzer target for csprof-struct's front end: the
 * ELF reader, DWARF reader, PLT and .eh_frame parsers, the instruction
 * decoder and CFG/loop builder (struct_analyze), and the XML writer.
 *
 * Each input is written to a memfd and analyzed through /proc/self/fd/N,
 * the same path a user's file takes.  Any crash, hang or sanitizer report
 * is a bug; an analysis error (bad ELF) is an expected outcome.  Built and
 * run for a bounded time by struct_fuzz.sh (ctest struct_fuzz).  Test code.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "structure/structure.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct struct_options opt = {.jobs = 1};
    struct struct_module *m = NULL;
    char path[64], err[512];
    int fd = memfd_create("struct_fuzz", MFD_CLOEXEC);
    FILE *devnull;

    if (fd < 0)
        return 0;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        return 0;
    }
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    if (struct_analyze(path, &opt, &m, NULL, err, sizeof(err)) == 0) {
        devnull = fopen("/dev/null", "w");
        if (devnull != NULL) {
            (void)struct_write_xml(devnull, &m, 1);
            fclose(devnull);
        }
        (void)struct_lookup(m, 0x1000);
        struct_module_free(m);
    }
    close(fd);
    return 0;
}
