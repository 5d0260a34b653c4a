/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * debuginfo.c -- where a binary's DWARF comes from: the binary itself,
 * else its separate debug file, found by libdwfl's standard search
 * (dwfl_standard_find_debuginfo: DEBUGDIR/.build-id/xx/yyyy.debug, then
 * the .gnu_debuglink name in the binary's directory, its .debug/
 * subdirectory and DEBUGDIR/<binary's directory>), which accepts a
 * candidate only when its build-id matches or, for a binary without
 * one, when its CRC matches the .gnu_debuglink CRC; last, when the user
 * has configured debuginfod (DEBUGINFOD_URLS), libdwfl asks those servers
 * by build-id through elfutils' libdebuginfod (loaded by libdw when the
 * variable is set), which keeps what it fetched in its own cache
 * ($DEBUGINFOD_CACHE_PATH, else $XDG_CACHE_HOME/debuginfod_client).
 * DEBUGDIR is struct_options.debug_dir, default /usr/lib/debug.
 *
 * When none of it has DWARF, struct_debug_hint() says what was looked for
 * and what would name the binary: the Debian package that owns it, read
 * from dpkg's database as `dpkg -S` does, and that package's -dbgsym.
 * Tool code only.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>

#include "structure/binary_internal.h"

void
bin_open_dwarf(struct analysis *an)
{
    Dwfl_Callbacks cb = {
        .find_elf = dwfl_build_id_find_elf,
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .section_address = dwfl_offline_section_address,
    };
    char *path = NULL;
    Dwfl_Module *mod;
    Dwarf_Addr bias;

    an->dw = dwarf_begin_elf(an->elf, DWARF_C_READ, NULL);
    if (an->dw != NULL) {
        an->dw_own = true;
        return;
    }
    /* libdwfl's path syntax: ":" separated; "" is the binary's directory,
     * ".debug" its subdirectory, an absolute entry a debug root. */
    if (an->opt->debug_dir != NULL && an->opt->debug_dir[0] != '\0') {
        if (asprintf(&path, ":.debug:%s", an->opt->debug_dir) < 0)
            return;
        cb.debuginfo_path = &path;
    }
    an->dwfl = dwfl_begin(&cb);
    if (an->dwfl == NULL)
        goto out;
    /* The binary is reported by path: libdwfl opens its own descriptor. */
    mod = dwfl_report_elf(an->dwfl, an->m->root.name, an->path, -1, 0, false);
    if (mod == NULL || dwfl_report_end(an->dwfl, NULL, NULL) != 0)
        goto out_end;
    an->dw = dwfl_module_getdwarf(mod, &bias); /* addresses stay the file's: bias unused */
    if (an->dw != NULL)
        goto out;
out_end:
    dwfl_end(an->dwfl);
    an->dwfl = NULL;
out:
    free(path);
}

bool
struct_note_no_dwarf(const char *note)
{
    return note != NULL && (strcmp(note, bin_notes[BIN_NOTE_STRIPPED]) == 0 ||
                            strcmp(note, bin_notes[BIN_NOTE_NO_DWARF]) == 0);
}

/* The .gnu_debuglink file name of the binary at @path into @buf; false when it has none. */
static bool
debuglink_name(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    const char *name = NULL;
    GElf_Word crc;
    Elf *elf;

    if (fd < 0)
        return false;
    elf_version(EV_CURRENT);
    elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (elf != NULL && elf_kind(elf) == ELF_K_ELF)
        name = dwelf_elf_gnu_debuglink(elf, &crc);
    if (name != NULL)
        snprintf(buf, len, "%s", name);
    if (elf != NULL)
        elf_end(elf);
    close(fd);
    return name != NULL && buf[0] != '\0';
}

/*
 * The other name of @path on a merged-/usr system (Debian 12: /lib, /bin
 * and /sbin are links into /usr), where dpkg may list either: "/usr/lib/x"
 * for "/lib/x" and back.  False when there is none.
 */
static bool
usrmerge_alias(const char *path, char *buf, size_t len)
{
    static const char *const dirs[] = {"/bin/",   "/sbin/",  "/lib/",
                                       "/lib32/", "/lib64/", "/libx32/"};

    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        size_t n = strlen(dirs[i]);

        if (strncmp(path, "/usr", 4) == 0 && strncmp(path + 4, dirs[i], n) == 0)
            return (size_t)snprintf(buf, len, "%s", path + 4) < len;
        if (strncmp(path, dirs[i], n) == 0)
            return (size_t)snprintf(buf, len, "/usr%s", path) < len;
    }
    return false;
}

/* Does the dpkg file list @text of @n bytes (one path a line) hold the line @want? */
static bool
list_has(const char *text, size_t n, const char *want)
{
    size_t wl = strlen(want);
    const char *p = text, *end = text + n;

    while (p + wl <= end && (p = memmem(p, (size_t)(end - p), want, wl)) != NULL) {
        if ((p == text || p[-1] == '\n') && (p + wl == end || p[wl] == '\n'))
            return true;
        p++;
    }
    return false;
}

/*
 * The Debian package that owns the file at @path (or its real path, or their
 * merged-/usr aliases), as `dpkg -S` finds it: the file lists
 * ADMINDIR/info/PACKAGE[:ARCH].list, ADMINDIR being $DPKG_ADMINDIR (dpkg's
 * own variable) or /var/lib/dpkg.  Reading them directly (10 MB on a
 * development machine) costs tens of ms; running dpkg-query costs 250 ms.
 * False when no package owns it (or this is no dpkg system).
 */
static bool
dpkg_owner(const char *path, char *pkg, size_t len)
{
    const char *admin = getenv("DPKG_ADMINDIR");
    char want[4][PATH_MAX], dir[PATH_MAX], file[PATH_MAX + 256];
    size_t nwant = 0, cap = 0;
    char *text = NULL;
    struct dirent *e;
    bool found = false;
    DIR *d;

    if (admin == NULL || admin[0] == '\0')
        admin = "/var/lib/dpkg";
    if ((size_t)snprintf(dir, sizeof(dir), "%s/info", admin) >= sizeof(dir) ||
        (size_t)snprintf(want[0], sizeof(want[0]), "%s", path) >= sizeof(want[0]))
        return false;
    nwant = 1;
    if (realpath(path, want[1]) != NULL && strcmp(want[1], want[0]) != 0)
        nwant++;
    for (size_t i = 0, n = nwant; i < n; i++)
        if (usrmerge_alias(want[i], want[nwant], sizeof(want[nwant])))
            nwant++;
    d = opendir(dir);
    if (d == NULL)
        return false;
    while (!found && (e = readdir(d)) != NULL) {
        size_t nl = strlen(e->d_name), got;
        struct stat st;
        FILE *f;

        if (nl <= 5 || strcmp(e->d_name + nl - 5, ".list") != 0 ||
            (size_t)snprintf(file, sizeof(file), "%s/%s", dir, e->d_name) >= sizeof(file) ||
            (f = fopen(file, "r")) == NULL)
            continue;
        if (fstat(fileno(f), &st) == 0 && st.st_size > 0 && (size_t)st.st_size > cap) {
            char *t = realloc(text, (size_t)st.st_size);

            if (t != NULL) {
                text = t;
                cap = (size_t)st.st_size;
            }
        }
        got = text != NULL ? fread(text, 1, cap, f) : 0;
        fclose(f);
        for (size_t i = 0; i < nwant && !found; i++)
            found = list_has(text, got, want[i]);
        if (found) {
            size_t pl = nl - 5;
            const char *colon = memchr(e->d_name, ':', pl);

            if (colon != NULL)
                pl = (size_t)(colon - e->d_name); /* PACKAGE:ARCH.list */
            snprintf(pkg, len, "%.*s", (int)pl, e->d_name);
        }
    }
    closedir(d);
    free(text);
    return found && pkg[0] != '\0';
}

const char *
struct_debug_hint(const char *path, const char *build_id, const struct struct_options *opt,
                  char *buf, size_t len)
{
    const char *root = opt != NULL && opt->debug_dir != NULL && opt->debug_dir[0] != '\0'
                           ? opt->debug_dir
                           : "/usr/lib/debug";
    const char *urls = getenv("DEBUGINFOD_URLS");
    bool bid = build_id != NULL && strlen(build_id) > 2, debuginfod = urls != NULL && urls[0];
    char link[256] = "", pkg[256] = "";
    bool has_link = debuglink_name(path, link, sizeof(link));
    size_t n = 0;

    /* Debian names the debuglink after the build-id: the same file, said once. */
    if (has_link && bid && strncmp(link, build_id + 2, strlen(build_id + 2)) == 0 &&
        strcmp(link + strlen(build_id + 2), ".debug") == 0)
        has_link = false;

#define HINT_ADD(...)                                             \
    do {                                                          \
        if (n < len)                                              \
            n += (size_t)snprintf(buf + n, len - n, __VA_ARGS__); \
    } while (0)

    if (len == 0)
        return buf;
    buf[0] = '\0';
    if (bid || has_link) {
        HINT_ADD("looked for");
        if (bid)
            HINT_ADD(" %s/.build-id/%.2s/%s.debug", root, build_id, build_id + 2);
        if (has_link)
            HINT_ADD("%s its .gnu_debuglink %s", bid ? " and" : "", link);
        if (bid && debuginfod)
            HINT_ADD(", and asked debuginfod (DEBUGINFOD_URLS)");
    } else {
        HINT_ADD("it has neither a build-id nor a .gnu_debuglink, so no separate debug file "
                 "can be found for it");
    }
    if (dpkg_owner(path, pkg, sizeof(pkg)))
        HINT_ADD("; install %s-dbgsym (the debug symbols of Debian package %s)%s", pkg, pkg,
                 bid && !debuginfod ? ", or set DEBUGINFOD_URLS" : "");
    else
        HINT_ADD("; its debug file there, or a build with -g, would name it");
#undef HINT_ADD
    return buf;
}
