/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * write.c -- the process's measurement file: opening it safely, publishing
 * the load map the record writer reads, and a thread's final record.
 *
 * Ordinary context: the constructor, a fork child, thread and process exit.
 * The directory is opened with O_NOFOLLOW and must belong to this user;
 * the file is created relative to it with O_CREAT|O_EXCL|O_NOFOLLOW, mode
 * 0600, and both descriptors move to a high number with close-on-exec, so
 * the program neither sees nor exhausts them.  After this, writing a
 * profile needs no file descriptor and no malloc (record_sig.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_loadmap.h"
#include "monitor/mon_output.h"
#include "monitor/mon_sys.h"
#include "monitor/mon_write.h"

struct mon_output mon_out = {.fd = -1, .dirfd = -1};

static pthread_mutex_t publish_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t published_size = UINT32_MAX, published_epoch;

static int
move_high(int fd)
{
    return mon_fd_high(fd, false);
}

/* Create this process's file in the directory; names PROG-PID.cspm, then PROG-PID-N.cspm
 * (PROG-rRANK-PID... for an MPI rank: mon_mpi_file_name). */
static int
create_file(void)
{
    int pid = (int)getpid();

    for (unsigned n = 0; n < 1000; n++) {
        int fd;

        mon_mpi_file_name(mon_out.name, sizeof(mon_out.name), pid, n);
        fd = openat(mon_out.dirfd, mon_out.name,
                    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0 || errno != EEXIST) {
            snprintf(mon_out.path, sizeof(mon_out.path), "%s/%s", mon_proc.outdir, mon_out.name);
            return fd;
        }
    }
    errno = EEXIST;
    return -1;
}

static int
adopt_file(int fd)
{
    struct stat st;

    if (fstat(fd, &st) < 0) {
        close(fd);
        return -1;
    }
    mon_out.dev = st.st_dev;
    mon_out.ino = st.st_ino;
    atomic_store(&mon_out.end, 0);
    atomic_store(&mon_out.lost, 0);
    atomic_store(&mon_out.reopened, 0);
    return fd;
}

int
mon_output_open(const char *outdir, char *why, size_t whylen)
{
    struct stat st;
    int dfd, fd;

    if (mkdir(outdir, 0700) < 0 && errno != EEXIST) {
        snprintf(why, whylen, "%s: cannot create the directory: %s", outdir, strerror(errno));
        return -1;
    }
    dfd = open(outdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) {
        int err = errno;

        if (lstat(outdir, &st) == 0 && S_ISLNK(st.st_mode))
            snprintf(why, whylen, "%s: is a symbolic link (csprof never writes through one)",
                     outdir);
        else
            snprintf(why, whylen, "%s: %s", outdir, strerror(err));
        return -1;
    }
    if (fstat(dfd, &st) < 0) {
        snprintf(why, whylen, "%s: %s", outdir, strerror(errno));
        close(dfd);
        return -1;
    }
    if (st.st_uid != geteuid() || (st.st_mode & (S_IWOTH | S_ISVTX)) == S_IWOTH) {
        if (st.st_uid != geteuid())
            snprintf(why, whylen, "%s: owned by another user (uid %u), not writing there", outdir,
                     (unsigned)st.st_uid);
        else
            snprintf(
                why, whylen,
                "%s: writable by every user without the sticky bit, not writing there (chmod o-w)",
                outdir);
        close(dfd);
        return -1;
    }
    mon_out.dirfd = move_high(dfd);
    fd = create_file();
    if (fd < 0 || (fd = adopt_file(fd)) < 0) {
        snprintf(why, whylen, "%s/%s: cannot create the measurement file: %s", outdir, mon_out.name,
                 strerror(errno));
        return -1;
    }
    atomic_store(&mon_out.fd, move_high(fd));
    for (int i = 0; i < 2; i++) {
        void *p = mmap(NULL, sizeof(struct mon_map_buf), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

        mon_out.map[i] = p == MAP_FAILED ? NULL : p;
    }
    mon_record_name_events();
    return 0;
}

int
mon_output_after_fork(void)
{
    int old = atomic_load(&mon_out.fd), fd;

    pthread_mutex_init(&publish_lock, NULL);
    mon_record_after_fork();
    fd = create_file();
    if (fd < 0 && errno == EMFILE && old >= 0) {
        /* Every slot taken: the parent's file descriptor is ours to give up. */
        close(old);
        old = -1;
        fd = create_file();
    }
    if (fd < 0 || (fd = adopt_file(fd)) < 0) {
        atomic_store(&mon_out.fd, -1);
        return -1;
    }
    if (old >= 0 && dup3(fd, old, O_CLOEXEC) == old) {
        close(fd);
        fd = old;
    } else {
        fd = move_high(fd);
    }
    atomic_store(&mon_out.fd, fd);
    return 0;
}

void
mon_output_publish_loadmap(void)
{
    struct mon_map_buf *b;
    uint32_t size, epoch;
    unsigned next;

    /* Never wait: a publication in progress (perhaps on this very thread, interrupted by a
     * fatal signal) is as good as ours. */
    if (pthread_mutex_trylock(&publish_lock) != 0)
        return;
    size = mon_loadmap_size();
    epoch = mon_loadmap_epoch();
    if (size == published_size && epoch == published_epoch)
        goto out_unlock;
    next = (atomic_load(&mon_out.map_active) + 1u) & 1u;
    b = mon_out.map[next];
    if (b == NULL)
        goto out_unlock;
    atomic_fetch_add(&b->seq, 1); /* odd: being written */
    atomic_thread_fence(memory_order_release);
    b->n = mon_loadmap_copy(b->mods, MON_MAX_MODULES);
    atomic_thread_fence(memory_order_release);
    atomic_fetch_add(&b->seq, 1);
    atomic_store(&mon_out.map_active, next);
    published_size = size;
    published_epoch = epoch;
out_unlock:
    pthread_mutex_unlock(&publish_lock);
}

int
mon_write_profile(struct mon_thread *td)
{
    int rc;

    if (!atomic_load(&mon_out.map_frozen))
        mon_output_publish_loadmap();
    rc = mon_record_write(td, false);
    if (rc < 0) {
        errno = -rc;
        return -1;
    }
    return 0;
}

int
mon_output_rename(const char *name)
{
    char path[sizeof(mon_out.path)];
    sigset_t block, old;

    if (atomic_load(&mon_out.fd) < 0 || mon_out.dirfd < 0 || strcmp(name, mon_out.name) == 0 ||
        strlen(name) >= sizeof(mon_out.name))
        return 0;
    /* Never replace another process's file (RENAME_NOREPLACE semantics by hand). */
    if (faccessat(mon_out.dirfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0 ||
        renameat(mon_out.dirfd, mon_out.name, mon_out.dirfd, name) < 0)
        return -1;
    snprintf(path, sizeof(path), "%s/%s", mon_proc.outdir, name);
    /* The handler re-opens mon_out.path when the program has closed our descriptor: keep it
     * from reading a half-copied name on this thread. */
    sigemptyset(&block);
    sigaddset(&block, mon_proc.signo);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    snprintf(mon_out.name, sizeof(mon_out.name), "%s", name);
    memcpy(mon_out.path, path, sizeof(path));
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return 1;
}
