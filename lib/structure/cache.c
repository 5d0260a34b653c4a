/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * cache.c -- a cache of analyzed modules keyed by GNU build-id, so that
 * csprof-prof does not analyze libc and the other system libraries again
 * in every run (hpcstruct keeps such a cache too).
 *
 * An entry is a structure file CACHE/<build-id>-n<no_normalize>.struct
 * followed, after its root element, by one XML comment holding the key:
 *   <!-- csprof-cache 1 VERSION SIZE MTIME_SEC MTIME_NSEC NOTE PATHHASH -->
 * (file size and modification time of the binary, the struct_analyze
 * note index, a hash of its canonical path).  An entry is trusted only
 * when the binary still has the build-id, size, time and path recorded,
 * the module read back carries the same build-id and path, and the
 * csprof version matches.  Entries are written to a temporary file in
 * the cache directory and renamed into place: readers see a whole old
 * entry or a whole new one, never a partial one, whatever runs at once.
 * Tool code only.  Cache problems are never errors: the module is then
 * analyzed as without a cache.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <gelf.h>

#include "structure/binary_internal.h"
#include "support/bytes.h"
#include "support/hashmap.h"

#define CACHE_FORMAT "1"
#define KEY_TAG      "<!-- csprof-cache " CACHE_FORMAT " "

/* What identifies the analyzed binary; an entry is used only when all of it matches. */
struct cache_key {
    char build_id[2 * 64 + 1];
    long long size, mtime_sec, mtime_nsec;
    unsigned note;
    uint64_t path_hash;
};

const char *
struct_cache_dir(const char *setting, const char *xdg_cache_home, const char *home, char *buf,
                 size_t len)
{
    int n;

    if (setting != NULL && (setting[0] == '\0' || strcmp(setting, "off") == 0))
        return NULL;
    if (setting != NULL && strcmp(setting, "default") != 0)
        n = snprintf(buf, len, "%s", setting);
    else if (xdg_cache_home != NULL && xdg_cache_home[0] == '/') {
        n = snprintf(buf, len, "%s/csprof", xdg_cache_home);
    } else if (home != NULL && home[0] == '/') {
        n = snprintf(buf, len, "%s/.cache/csprof", home);
    } else {
        return NULL;
    }
    return n > 0 && (size_t)n < len ? buf : NULL;
}

/* The binary's build-id as lowercase hex into @hex; false when it has none. */
static bool
file_build_id(const char *path, char *hex, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    const void *p;
    ssize_t n = 0;
    Elf *elf;

    if (fd < 0)
        return false;
    elf_version(EV_CURRENT);
    elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (elf != NULL && elf_kind(elf) == ELF_K_ELF)
        n = dwelf_elf_gnu_build_id(elf, &p);
    if (n > 0 && (size_t)n * 2 < len)
        csp_hex(p, (size_t)n, hex, len);
    else
        n = 0;
    if (elf != NULL)
        elf_end(elf);
    close(fd);
    return n > 0;
}

/* Read the key comment at the end of entry @f; false when there is none. */
static bool
read_key(const char *entry, struct cache_key *k, char *version, size_t vlen)
{
    char buf[1024], *p;
    FILE *f = fopen(entry, "r");
    long end;
    size_t n;

    if (f == NULL)
        return false;
    if (fseek(f, 0, SEEK_END) != 0 || (end = ftell(f)) < 0 ||
        fseek(f, end > (long)sizeof(buf) - 1 ? end - (long)sizeof(buf) + 1 : 0, SEEK_SET) != 0) {
        fclose(f);
        return false;
    }
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    p = strstr(buf, KEY_TAG);
    if (p == NULL)
        return false;
    if (vlen < 64)
        return false;
    return sscanf(p + strlen(KEY_TAG), "%63s %lld %lld %lld %u %" SCNx64 " -->", version, &k->size,
                  &k->mtime_sec, &k->mtime_nsec, &k->note, &k->path_hash) == 6;
}

/* Has a debug file for @bid appeared under the debug root? (An entry without DWARF is stale then.) */
static bool
debug_file_exists(const struct struct_options *opt, const char *bid)
{
    const char *root =
        opt->debug_dir != NULL && opt->debug_dir[0] != '\0' ? opt->debug_dir : "/usr/lib/debug";
    char path[PATH_MAX];

    if (strlen(bid) < 4)
        return false;
    snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", root, bid, bid + 2);
    return access(path, R_OK) == 0;
}

/*
 * Is debuginfod configured (DEBUGINFOD_URLS)?  Then an entry made without
 * DWARF is not trusted either: libdwfl asks the servers again, and their
 * answers (found or not) are kept in libdebuginfod's own cache.
 */
static bool
debuginfod_configured(void)
{
    const char *urls = getenv("DEBUGINFOD_URLS");

    return urls != NULL && urls[0] != '\0';
}

/* mkdir -p @dir (mode 0700 for what it creates: the cache describes the user's files). */
static int
make_dirs(const char *dir)
{
    char tmp[PATH_MAX];
    size_t len = strlen(dir);

    if (len == 0 || len >= sizeof(tmp))
        return -1;
    memcpy(tmp, dir, len + 1);
    for (char *p = tmp + 1; *p != '\0'; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0700) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(tmp, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

/* Write @m with key @k to @entry through a temporary file and rename(2). */
static void
store(const char *dir, const char *entry, struct struct_module *m, const struct cache_key *k)
{
    char tmp[PATH_MAX];
    FILE *f;
    int fd;

    if (make_dirs(dir) != 0 ||
        snprintf(tmp, sizeof(tmp), "%s/.tmp-%s.XXXXXX", dir, k->build_id) >= (int)sizeof(tmp))
        return;
    fd = mkstemp(tmp);
    if (fd < 0)
        return;
    f = fdopen(fd, "w");
    if (f == NULL) {
        close(fd);
        goto out_unlink;
    }
    if (struct_write_xml(f, &m, 1) != 0 ||
        fprintf(f, KEY_TAG "%s %lld %lld %lld %u %" PRIx64 " -->\n", CSPROF_VERSION, k->size,
                k->mtime_sec, k->mtime_nsec, k->note, k->path_hash) < 0) {
        fclose(f);
        goto out_unlink;
    }
    if (fclose(f) != 0 || rename(tmp, entry) != 0)
        goto out_unlink;
    return;
out_unlink:
    unlink(tmp);
}

static unsigned
note_index(const char *note)
{
    for (unsigned i = 1; i < BIN_NOTES; i++)
        if (note == bin_notes[i])
            return i;
    return BIN_NOTE_NONE;
}

/* A cached module for key @k from @entry, or NULL. */
static struct struct_module *
lookup(const struct struct_options *opt, const char *entry, const char *real,
       const struct cache_key *k, unsigned *note)
{
    struct struct_module *m = NULL;
    struct cache_key got = {0};
    char version[64], err[256];

    if (!read_key(entry, &got, version, sizeof(version)) || strcmp(version, CSPROF_VERSION) != 0 ||
        got.size != k->size || got.mtime_sec != k->mtime_sec || got.mtime_nsec != k->mtime_nsec ||
        got.path_hash != k->path_hash || got.note >= BIN_NOTES ||
        (got.note != BIN_NOTE_NONE && debug_file_exists(opt, k->build_id)) ||
        ((got.note == BIN_NOTE_STRIPPED || got.note == BIN_NOTE_NO_DWARF) &&
         debuginfod_configured()))
        return NULL;
    if (struct_read_xml_stream(entry, &m, err, sizeof(err)) != 0)
        return NULL;
    if (strcmp(struct_module_build_id(m), k->build_id) != 0 ||
        strcmp(struct_module_path(m), real) != 0) {
        struct_module_free(m);
        return NULL;
    }
    *note = got.note;
    return m;
}

int
struct_analyze_cached(const char *path, const struct struct_options *opt,
                      struct struct_module **out, const char **note, char *err, size_t errlen)
{
    struct cache_key k = {0};
    char real[PATH_MAX], entry[PATH_MAX];
    struct stat before, after;
    const char *n2 = NULL;
    int rc;

    if (opt == NULL || opt->cache_dir == NULL || opt->cache_dir[0] == '\0' ||
        stat(path, &before) != 0 || !S_ISREG(before.st_mode) || realpath(path, real) == NULL ||
        !file_build_id(path, k.build_id, sizeof(k.build_id)))
        return struct_analyze(path, opt, out, note, err, errlen);
    k.size = (long long)before.st_size;
    k.mtime_sec = (long long)before.st_mtim.tv_sec;
    k.mtime_nsec = (long long)before.st_mtim.tv_nsec;
    k.path_hash = csp_hash_str(real);
    if (snprintf(entry, sizeof(entry), "%s/%s-n%d.struct", opt->cache_dir, k.build_id,
                 opt->no_normalize ? 1 : 0) >= (int)sizeof(entry))
        return struct_analyze(path, opt, out, note, err, errlen);
    *out = lookup(opt, entry, real, &k, &k.note);
    if (*out != NULL) {
        if (note != NULL)
            *note = k.note != BIN_NOTE_NONE ? bin_notes[k.note] : NULL;
        return 0;
    }
    rc = struct_analyze(path, opt, out, &n2, err, errlen);
    if (note != NULL)
        *note = n2;
    if (rc != 0)
        return rc;
    k.note = note_index(n2);
    /* Store only what surely describes the file: unchanged meanwhile, same build-id. */
    if (stat(path, &after) == 0 && after.st_size == before.st_size &&
        after.st_mtim.tv_sec == before.st_mtim.tv_sec &&
        after.st_mtim.tv_nsec == before.st_mtim.tv_nsec &&
        strcmp(struct_module_build_id(*out), k.build_id) == 0)
        store(opt->cache_dir, entry, *out, &k);
    return 0;
}
