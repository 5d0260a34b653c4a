/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prof_source.c -- copy the program's source files into DB/src/ for the
 * source views, from allowed directories only.
 *
 * Tool code; never prints.  File names come from DWARF, which anyone who
 * hands us a binary controls (reliability.md rows 33-34): "../../etc/passwd",
 * absolute paths, names through symbolic links.  A file is copied only when
 *   - after --replace-path, its name (relative names: joined to each -I root
 *     in turn) normalizes lexically ("." and ".." removed) to a path below
 *     the real path of a -I root;
 *   - realpath() of that path is the path itself: no symbolic link anywhere
 *     on the way, so nothing outside the root can be reached through one;
 *   - it opens, one component at a time from the root with O_NOFOLLOW
 *     (openat), as a regular file of at most 64 MiB: a link planted after
 *     the check fails the open rather than leading out of the root.
 * The copy is DB/src/<root index>/<path below the root>, each component
 * reduced to [A-Za-z0-9._+-] (others become '_'), created with O_EXCL |
 * O_NOFOLLOW in directories we create ourselves.  The database's file
 * names are escaped (support/text.h: a control byte is "\xNN"): the file
 * is looked up by its raw name, the escapes decoded, then (not found) by
 * the name as stored, which may literally hold "\xNN".  Refused files are
 * reported one message each; files not found are counted in one note.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "profile_internal.h"

#define PROF_SRC_MAX_BYTES (64u << 20)

/* Lexically normalized absolute @path (a fresh string): no "", ".", ".." components. */
static char *
prof_normalize(const char *path)
{
    size_t n = strlen(path), o = 0;
    char *out = prof_xmalloc(n + 2);
    const char *p = path;

    out[o++] = '/';
    while (*p != '\0') {
        const char *end = strchr(p, '/');
        size_t len = end != NULL ? (size_t)(end - p) : strlen(p);

        if (len == 0 || (len == 1 && p[0] == '.')) {
            /* skip */
        } else if (len == 2 && p[0] == '.' && p[1] == '.') {
            while (o > 1 && out[o - 1] != '/')
                o--;
            if (o > 1)
                o--; /* the slash before the removed component */
            while (o > 1 && out[o - 1] != '/')
                o--;
            if (o > 1 && out[o - 1] == '/')
                o--;
            out[o] = '\0';
            if (o == 0)
                out[o++] = '/';
        } else {
            if (o > 1 || out[0] != '/' || o != 1)
                out[o++] = '/';
            memcpy(out + o, p, len);
            o += len;
        }
        p += len;
        if (*p == '/')
            p++;
    }
    out[o] = '\0';
    if (o > 1 && out[o - 1] == '/')
        out[o - 1] = '\0';
    return out;
}

/* Is @path @root itself or below it?  Both normalized. */
static bool
prof_below(const char *path, const char *root)
{
    size_t n = strlen(root);

    if (strcmp(root, "/") == 0)
        return true;
    return strncmp(path, root, n) == 0 && path[n] == '/';
}

/* Make directory @path (and its parents below @base), refusing symbolic links. */
static int
prof_mkdirs(const char *base, const char *rel)
{
    char *path = prof_xasprintf("%s/%s", base, rel);
    char *p = path + strlen(base) + 1;
    int rc = 0;

    for (;;) {
        char *slash = strchr(p, '/');
        struct stat st;

        if (slash != NULL)
            *slash = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST) {
            rc = -1;
            break;
        }
        if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
            rc = -1;
            break;
        }
        if (slash == NULL)
            break;
        *slash = '/';
        p = slash + 1;
    }
    free(path);
    return rc;
}

/* Copy the open file @in to a new file @dst.  Returns 0 or -1. */
static int
prof_copy_fd(int in, const char *dst)
{
    char buf[65536];
    int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    ssize_t n;
    int rc = 0;

    if (out < 0)
        return -1;
    while ((n = read(in, buf, sizeof(buf))) > 0)
        if (write(out, buf, (size_t)n) != n) {
            rc = -1;
            break;
        }
    if (n < 0)
        rc = -1;
    if (close(out) != 0)
        rc = -1;
    if (rc < 0)
        unlink(dst);
    return rc;
}

/* "src/K/a/b.c" with every component sanitized. */
static char *
prof_src_name(size_t root, const char *rel)
{
    char *name = prof_xasprintf("src/%zu/%s", root, rel), *c;

    for (c = name + 4; *c != '\0'; c++) {
        unsigned char ch = (unsigned char)*c;

        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '.' || ch == '_' || ch == '+' || ch == '-' || ch == '/'))
            *c = '_';
    }
    return name;
}

enum prof_src_outcome { SRC_COPIED, SRC_NOT_FOUND, SRC_REFUSED };

/*
 * Open @rel ("/a/b.c") below the directory @root one component at a time
 * with O_NOFOLLOW, so that a symbolic link put anywhere on the way after
 * the realpath() check still fails the open (ELOOP or ENOTDIR) instead of
 * leading out of the root.  Returns the descriptor or -1 with errno set.
 */
static int
prof_open_below(const char *root, const char *rel)
{
    int dirfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd = -1;
    char comp[NAME_MAX + 1];

    while (dirfd >= 0) {
        const char *end;
        size_t len;
        int next, saved;

        while (*rel == '/')
            rel++;
        end = strchr(rel, '/');
        len = end != NULL ? (size_t)(end - rel) : strlen(rel);
        if (len == 0 || len > NAME_MAX) {
            errno = ENOENT;
            break;
        }
        memcpy(comp, rel, len);
        comp[len] = '\0';
        rel += len;
        if (end == NULL) { /* the file itself */
            fd = openat(dirfd, comp, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
            break;
        }
        next = openat(dirfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        saved = errno;
        close(dirfd);
        errno = saved;
        dirfd = next;
    }
    if (dirfd >= 0) {
        int saved = errno;

        close(dirfd);
        errno = saved;
    }
    return fd;
}

/*
 * Try candidate @cand (absolute, normalized) against the roots; copy it when
 * allowed.  *@why receives a static reason when refused.
 */
static enum prof_src_outcome
prof_try_source(struct prof_ctx *ctx, const char *dir, char **roots, size_t nroots,
                const char *cand, uint32_t file, const char **why)
{
    char real[PATH_MAX];
    enum prof_src_outcome res = SRC_REFUSED;
    char *name = NULL, *dst = NULL, *slash;
    size_t r;
    struct stat st;
    int fd;

    for (r = 0; r < nroots; r++)
        if (prof_below(cand, roots[r]))
            break;
    if (r == nroots) {
        *why = "outside the -I directories";
        return SRC_REFUSED;
    }
    if (realpath(cand, real) == NULL)
        return SRC_NOT_FOUND;
    if (strcmp(real, cand) != 0) {
        *why = "a symbolic link is on its path";
        return SRC_REFUSED;
    }
    fd = prof_open_below(roots[r], cand + strlen(roots[r]));
    if (fd < 0) {
        *why = errno == ELOOP || errno == ENOTDIR ? "a symbolic link is on its path"
                                                  : "cannot be opened";
        return errno == ENOENT ? SRC_NOT_FOUND : SRC_REFUSED;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        *why = "not a regular file";
        goto out_close;
    }
    if ((uint64_t)st.st_size > PROF_SRC_MAX_BYTES) {
        *why = "larger than 64 MiB";
        goto out_close;
    }
    name = prof_src_name(r, cand + strlen(roots[r]) + (strcmp(roots[r], "/") != 0));
    for (int k = 1; k < 100; k++) { /* two names sanitized alike: name~2, name~3, ... */
        slash = strrchr(name, '/');
        *slash = '\0';
        if (prof_mkdirs(dir, name) != 0) {
            *slash = '/';
            *why = "its copy's directory cannot be created";
            goto out_close;
        }
        *slash = '/';
        free(dst);
        dst = prof_xasprintf("%s/%s", dir, name);
        if (prof_copy_fd(fd, dst) == 0) {
            res = SRC_COPIED;
            break;
        }
        if (errno != EEXIST) {
            *why = "its copy cannot be written";
            goto out_close;
        }
        if (lseek(fd, 0, SEEK_SET) != 0)
            goto out_close;
        {
            char *next = prof_xasprintf("%s~%d", k == 1 ? name : name, k + 1);

            if (k > 1) { /* drop the previous ~N */
                char *tilde = strrchr(name, '~');

                free(next);
                *tilde = '\0';
                next = prof_xasprintf("%s~%d", name, k + 1);
            }
            free(name);
            name = next;
        }
    }
    if (res == SRC_COPIED) {
        ctx->file_src[file] = name;
        name = NULL;
    } else {
        *why = "too many files of the same sanitized name";
    }
out_close:
    close(fd);
    free(name);
    free(dst);
    return res;
}

/* @name with the first matching --replace-path prefix replaced (a fresh string). */
static char *
prof_replace_path(const char *name, const struct prof_source_options *opt)
{
    size_t i;

    for (i = 0; i < opt->nreplace; i++) {
        size_t n = strlen(opt->replace_old[i]);

        if (n > 0 && strncmp(name, opt->replace_old[i], n) == 0)
            return prof_xasprintf("%s%s", opt->replace_new[i], name + n);
    }
    return prof_xstrdup(name);
}

/*
 * @name with every "\xNN" (two lowercase hex digits, as text_escape() writes
 * them) turned back into its byte: the file's name on disk.  A fresh string.
 */
static char *
prof_unescape(const char *name)
{
    static const char hex[] = "0123456789abcdef";
    char *out = prof_xmalloc(strlen(name) + 1), *o = out;

    while (*name != '\0') {
        const char *h, *l;

        if (name[0] == '\\' && name[1] == 'x' && name[2] != '\0' &&
            (h = strchr(hex, name[2])) != NULL && name[3] != '\0' &&
            (l = strchr(hex, name[3])) != NULL && (h - hex) * 16 + (l - hex) != 0) {
            *o++ = (char)((h - hex) * 16 + (l - hex));
            name += 4;
        } else
            *o++ = *name++;
    }
    *o = '\0';
    return out;
}

/*
 * Look file @file up by its name on disk @name (after --replace-path; a
 * relative name is tried below each root in turn) and copy it.
 */
static enum prof_src_outcome
prof_find_source(struct prof_ctx *ctx, const char *dir, char **roots, size_t nroots,
                 const char *fname, uint32_t file, const struct prof_source_options *opt,
                 const char **why)
{
    char *name = prof_replace_path(fname, opt);
    enum prof_src_outcome res = SRC_NOT_FOUND;
    size_t r;

    if (name[0] == '/') {
        char *cand = prof_normalize(name);

        res = prof_try_source(ctx, dir, roots, nroots, cand, file, why);
        free(cand);
    } else {
        for (r = 0; r < nroots && res != SRC_COPIED; r++) {
            char *joined = prof_xasprintf("%s/%s", roots[r], name);
            char *cand = prof_normalize(joined);
            const char *w = *why;
            enum prof_src_outcome one = prof_try_source(ctx, dir, roots, nroots, cand, file, &w);

            if (one == SRC_COPIED || (one == SRC_REFUSED && res != SRC_COPIED)) {
                res = one;
                *why = w;
            }
            free(cand);
            free(joined);
        }
    }
    free(name);
    return res;
}

static int
prof_copy_sources_impl(struct prof_ctx *ctx, const char *dir, const struct prof_source_options *opt)
{
    char **roots = prof_xcalloc(opt->nroots + 1, sizeof(*roots));
    size_t i, r, nroots = 0, copied = 0, missing = 0, refused = 0;
    char *srcdir = prof_xasprintf("%s/src", dir);
    char real[PATH_MAX];
    int rc = 0;

    for (r = 0; r < opt->nroots; r++) {
        if (realpath(opt->roots[r], real) == NULL) {
            prof_msg(ctx, PROF_MSG_WARNING, "-I %s: %s (no sources copied from it)", opt->roots[r],
                     strerror(errno));
            roots[nroots++] = prof_xstrdup("/nonexistent/\x01"); /* keeps root indices stable */
            continue;
        }
        roots[nroots++] = prof_xstrdup(real);
    }
    if (mkdir(srcdir, 0755) != 0 && errno != EEXIST) {
        rc = prof_fail(ctx, PROF_EIO, "%s: cannot create: %s", srcdir, strerror(errno));
        goto out_free;
    }
    if (ctx->file_src == NULL)
        ctx->file_src = prof_xcalloc(ctx->nfiles + 1, sizeof(*ctx->file_src));
    for (i = 0; i < ctx->nfiles; i++) {
        const char *fname = ctx->strs.strs[ctx->files[i].name];
        char *raw = prof_unescape(fname);
        const char *why = "not found";
        enum prof_src_outcome res =
            prof_find_source(ctx, dir, roots, nroots, raw, (uint32_t)i, opt, &why);

        /* a name that literally holds "\xNN" (text.h): also try it as stored */
        if (res == SRC_NOT_FOUND && strcmp(raw, fname) != 0)
            res = prof_find_source(ctx, dir, roots, nroots, fname, (uint32_t)i, opt, &why);
        free(raw);
        if (res == SRC_COPIED)
            copied++;
        else if (res == SRC_REFUSED) {
            refused++;
            prof_msg(ctx, PROF_MSG_WARNING, "source %s not copied: %s", fname, why);
        } else
            missing++;
    }
    if (missing > 0)
        prof_msg(ctx, PROF_MSG_NOTE,
                 "%zu source file(s) not found below the -I directories (not copied)", missing);
    rc = copied > (size_t)INT32_MAX ? INT32_MAX : (int)copied;
    (void)refused;
out_free:
    for (r = 0; r < nroots; r++)
        free(roots[r]);
    free(roots);
    free(srcdir);
    return rc;
}

int
prof_copy_sources(struct prof_ctx *ctx, const char *dir, const struct prof_source_options *opt)
{
    PROF_GUARD(ctx, prof_copy_sources_impl(ctx, dir, opt));
}
