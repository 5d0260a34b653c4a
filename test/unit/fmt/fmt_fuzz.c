/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fmt_fuzz.c -- libFuzzer target for the measurement-file reader: every
 * input is read as one profile image (fmt_read_buffer, then printed by
 * fmt_dump into /dev/null) and as a whole measurement file of records
 * (fmt_read_records on a memfd, through /proc/self/fd/N, the path a
 * user's file takes).  A crash, hang, leak or sanitizer report is a bug;
 * a read error (bad magic, truncation, a corrupt record) is an expected
 * outcome.  Built and run for a bounded time by fmt_fuzz.sh (ctest
 * unit_fmt_fuzz).  Test code.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fmt/fmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fmt_profile *p = NULL;
    struct fmt_record_set set;
    char err[512], path[64];
    int fd;

    if (fmt_read_buffer(data, size, "fuzz", &p, err, sizeof(err)) == 0) {
        FILE *devnull = fopen("/dev/null", "w");

        if (devnull) {
            fmt_dump(p, devnull);
            fclose(devnull);
        }
        fmt_profile_free(p);
    }
    fd = memfd_create("fmt_fuzz", MFD_CLOEXEC);
    if (fd < 0)
        return 0;
    if (write(fd, data, size) == (ssize_t)size) {
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        if (fmt_read_records(path, &set, err, sizeof(err)) == 0)
            fmt_record_set_free(&set);
    }
    close(fd);
    return 0;
}
