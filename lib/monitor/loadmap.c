/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * loadmap.c -- the process's load map: every module seen since start.
 *
 * Refreshes come from dl_iterate_phdr(3) in the constructor, after each
 * dlopen and dlclose, after fork and before a profile is written -- never
 * from the signal handler (dl_iterate_phdr takes the loader's lock).
 * Modules are never removed from the load map: a profile may hold addresses
 * of a module dlclose'd since.  Each refresh that finds a new module starts
 * a new epoch, recorded on the module.  Each refresh also publishes the
 * snapshot of the modules mapped now, which signal context reads
 * (loadmap_sig.c, mon_loadmap.h); replaced snapshots are freed once no
 * sample reads one.
 * The vDSO's image is saved into the measurement directory so the tools
 * can name its functions (__vdso_clock_gettime...).
 * Ordinary (non-signal) context; one mutex guards the table.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_loadmap.h"
#include "support/bytes.h"
#include "support/sysio.h"
#include "support/vec.h"

static pthread_mutex_t loadmap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fmt_module *modules; /* malloc'ed array; paths and build-ids malloc'ed, kept */
static uint32_t nmodules;
static size_t capmodules;
static uint32_t current_epoch;
static bool snapshot_added; /* a module was added during the current snapshot */

/* The snapshot being built by a refresh: entries, then their phdrs and names, packed after. */
struct snap_build {
    struct mon_snap_module *ents; /* malloc'ed; dlpi_phdr/dlpi_name hold offsets into blob */
    uint32_t n;
    size_t cap;
    char *blob; /* malloc'ed: copies of program headers and names */
    size_t blob_len, blob_cap;
    bool failed; /* out of memory: keep the previous snapshot */
};

/* Shared with loadmap_sig.c (mon_loadmap.h). */
_Atomic(struct mon_snapshot *) mon_snapshot_current;
atomic_uint_fast64_t mon_snapshot_readers;
atomic_uint_fast64_t mon_snapshot_nmisses;
static uint64_t snapshots_published;

/* Modules each published snapshot added to the one before (loadmap_lock): to whom an address
 * sampled outside the snapshot belongs (mon_key_decode). */
struct snap_added {
    uint64_t seq; /* the snapshot that added it */
    uint32_t id;
};
static struct snap_added *added_log; /* malloc'ed */
static size_t nadded, capadded;
static struct mon_snapshot *retired; /* replaced, not yet freed (loadmap_lock) */

/* The GNU build-id note of a mapped module: a malloc'ed copy in m->build_id, or none (also when
 * out of memory, or longer than MON_BUILD_ID_MAX bytes). */
static void
read_build_id(struct dl_phdr_info *info, struct fmt_module *m)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        const char *p, *end;

        if (ph->p_type != PT_NOTE)
            continue;
        p = (const char *)(info->dlpi_addr + ph->p_vaddr);
        end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)(const void *)p;
            size_t namesz = (nh->n_namesz + 3) & ~(size_t)3;
            size_t descsz = (nh->n_descsz + 3) & ~(size_t)3;
            const char *name = p + sizeof(*nh);
            const char *desc = name + namesz;

            if (desc + descsz > end)
                break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0 &&
                nh->n_descsz > 0 && nh->n_descsz <= MON_BUILD_ID_MAX) {
                uint8_t *copy = malloc(nh->n_descsz);

                if (copy != NULL) {
                    memcpy(copy, desc, nh->n_descsz);
                    m->build_id = copy;
                    m->build_id_len = nh->n_descsz;
                }
                return;
            }
            p = desc + descsz;
        }
    }
}

/*
 * The vDSO has no file the tools could read: save its image (a complete ELF
 * object, mapped whole) into the measurement directory once, as
 * vdso-BUILDID.so, and name the module after that copy.  Returns the path
 * (static storage) or NULL to keep the loader's name.
 */
static const char *
save_vdso(uintptr_t lo, uintptr_t hi, const struct fmt_module *m)
{
    static char path[sizeof(mon_proc.outdir) + 160];
    char id[2 * MON_BUILD_ID_MAX + 1] = "nobuildid";
    int fd;

    if (m->build_id_len > 0)
        csp_hex(m->build_id, m->build_id_len, id, sizeof id);
    snprintf(path, sizeof(path), "%s/vdso-%s.so", mon_proc.outdir, id);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
    if (fd >= 0) {
        /* The kernel maps the whole image in full pages; PT_LOAD may stop short of the
         * section headers at its end. */
        const char *p = (const char *)lo;
        size_t left = ((hi + 4095) & ~(uintptr_t)4095) - lo;

        while (left > 0) {
            ssize_t n = csp_sys_write(fd, p, left);

            if (n <= 0) {
                close(fd);
                unlink(path);
                return NULL;
            }
            p += n;
            left -= (size_t)n;
        }
        close(fd);
    } else if (errno != EEXIST) {
        return NULL;
    }
    return path;
}

/* Append @len bytes to the blob, 8-byte aligned (program headers); returns their offset, or
 * SIZE_MAX when out of memory. */
static size_t
blob_add(struct snap_build *b, const void *p, size_t len)
{
    size_t at = (b->blob_len + 7) & ~(size_t)7;

    if (csp_vec_reserve(&b->blob, &b->blob_cap, at + len, 1) != 0)
        return SIZE_MAX;
    memcpy(b->blob + at, p, len);
    b->blob_len = at + len;
    return at;
}

/* Record module @id, mapped now at [lo, hi), in the snapshot being built. */
static void
snapshot_add(struct snap_build *b, const struct dl_phdr_info *info, size_t size, uint32_t id,
             uintptr_t lo, uintptr_t hi)
{
    struct mon_snap_module *e;
    const char *name = info->dlpi_name != NULL ? info->dlpi_name : "";
    size_t phdrs, names;

    if (b->failed)
        return;
    if (csp_vec_reserve(&b->ents, &b->cap, (size_t)b->n + 1, sizeof(*b->ents)) != 0) {
        b->failed = true;
        return;
    }
    phdrs = blob_add(b, info->dlpi_phdr, info->dlpi_phnum * sizeof(ElfW(Phdr)));
    names = blob_add(b, name, strlen(name) + 1);
    if (phdrs == SIZE_MAX || names == SIZE_MAX) {
        b->failed = true;
        return;
    }
    e = &b->ents[b->n++];
    memset(e, 0, sizeof(*e));
    memcpy(&e->info, info, size < sizeof(e->info) ? size : sizeof(e->info));
    e->info.dlpi_phdr = (const ElfW(Phdr) *)(uintptr_t)phdrs; /* fixed up in snapshot_publish */
    e->info.dlpi_name = (const char *)(uintptr_t)names;
    e->info.dlpi_tls_data = NULL;
    e->id = id;
    e->start = lo;
    e->end = hi;
}

/*
 * Pack the built snapshot into one block and make it the current one; free
 * the replaced snapshots if no sample reads any (else at a later refresh).
 * Called with loadmap_lock held.
 */
static void
snapshot_publish(struct snap_build *b)
{
    struct mon_snapshot *s, *old;
    size_t head = sizeof(*s) + b->n * sizeof(s->modules[0]);
    char *blob;

    if (b->failed)
        return;
    old = atomic_load(&mon_snapshot_current);
    if (old != NULL && old->nmodules == b->n) { /* unchanged (a dlopen of a loaded library) */
        uint32_t i = 0;

        while (i < b->n && old->modules[i].id == b->ents[i].id &&
               old->modules[i].start == b->ents[i].start && old->modules[i].end == b->ents[i].end)
            i++;
        if (i == b->n)
            return;
    }
    s = malloc(head + b->blob_len);
    if (s == NULL)
        return;
    s->retired_next = NULL;
    s->nmodules = b->n;
    blob = (char *)s + head;
    if (b->blob_len > 0)
        memcpy(blob, b->blob, b->blob_len);
    for (uint32_t i = 0; i < b->n; i++) {
        s->modules[i] = b->ents[i];
        s->modules[i].info.dlpi_phdr =
            (const ElfW(Phdr) *)(void *)(blob + (uintptr_t)b->ents[i].info.dlpi_phdr);
        s->modules[i].info.dlpi_name = blob + (uintptr_t)b->ents[i].info.dlpi_name;
    }
    s->seq = snapshots_published + 1;
    for (uint32_t i = 0; i < b->n; i++) { /* log what this snapshot adds */
        bool before = false;

        for (uint32_t j = 0; old != NULL && j < old->nmodules && !before; j++)
            before = old->modules[j].id == b->ents[i].id;
        if (before)
            continue;
        if (csp_vec_reserve(&added_log, &capadded, nadded + 1, sizeof(*added_log)) != 0)
            break; /* such samples fall back to mon_loadmap_lookup */
        added_log[nadded++] = (struct snap_added){s->seq, b->ents[i].id};
    }
    /* Sequentially consistent: a sample that counts itself a reader after the check below
     * loads the new pointer, so the retired ones are unreachable once readers is 0. */
    old = atomic_exchange(&mon_snapshot_current, s);
    snapshots_published++;
    if (old != NULL) {
        old->retired_next = retired;
        retired = old;
    }
    if (atomic_load(&mon_snapshot_readers) == 0) {
        while (retired != NULL) {
            struct mon_snapshot *next = retired->retired_next;

            free(retired);
            retired = next;
        }
    }
}

static int
add_module_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    const char *path = info->dlpi_name;
    struct snap_build *b = arg;
    struct fmt_module *m;
    bool is_vdso;

    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

        if (ph->p_type != PT_LOAD)
            continue;
        if (info->dlpi_addr + ph->p_vaddr < lo)
            lo = info->dlpi_addr + ph->p_vaddr;
        if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
            hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
    }
    if (lo >= hi)
        return 0;
    if (path == NULL || path[0] == '\0')
        path = mon_proc.program; /* the main program is reported without a name */
    is_vdso = info->dlpi_addr != 0 && info->dlpi_addr == getauxval(AT_SYSINFO_EHDR);
    for (uint32_t i = 0; i < nmodules; i++) /* the vDSO is known by the name of its copy */
        if (modules[i].load_bias == info->dlpi_addr && modules[i].start == lo &&
            (is_vdso || strcmp(modules[i].path, path) == 0)) {
            snapshot_add(b, info, size, modules[i].id, lo, hi);
            return 0;
        }
    if (csp_vec_reserve(&modules, &capmodules, (size_t)nmodules + 1, sizeof(*modules)) != 0) {
        b->failed = true;
        return 1; /* keep what we have; addresses there stay unmapped */
    }
    if (!snapshot_added && nmodules > 0)
        current_epoch++;
    snapshot_added = true;
    m = &modules[nmodules];
    memset(m, 0, sizeof(*m));
    m->path = strdup(path);
    if (m->path == NULL) {
        b->failed = true;
        return 1;
    }
    m->id = nmodules;
    m->epoch = current_epoch;
    m->load_bias = info->dlpi_addr;
    m->start = lo;
    m->end = hi;
    read_build_id(info, m);
    if (is_vdso) {
        const char *copy = save_vdso(lo, hi, m);

        if (copy != NULL) {
            free((char *)m->path);
            m->path = strdup(copy);
            if (m->path == NULL) {
                b->failed = true;
                return 1;
            }
        }
    }
    nmodules++;
    snapshot_add(b, info, size, m->id, lo, hi);
    return 0;
}

void
mon_loadmap_refresh(void)
{
    struct snap_build b;

    memset(&b, 0, sizeof(b));
    pthread_mutex_lock(&loadmap_lock);
    snapshot_added = false;
    mon_loader_dl_iterate_phdr(add_module_cb, &b);
    snapshot_publish(&b);
    pthread_mutex_unlock(&loadmap_lock);
    free(b.ents);
    free(b.blob);
}

void
mon_loadmap_after_fork(void)
{
    /* Only this thread runs now: locks other threads of the parent held stay held. */
    pthread_mutex_init(&loadmap_lock, NULL);
    mon_loader_lock_reset();
    atomic_store(&mon_snapshot_readers, 0); /* the readers were other threads of the parent */
    mon_loadmap_refresh();
}

uint64_t
mon_snapshot_misses(void)
{
    return atomic_load(&mon_snapshot_nmisses);
}

uint64_t
mon_snapshot_count(void)
{
    uint64_t n;

    pthread_mutex_lock(&loadmap_lock);
    n = snapshots_published;
    pthread_mutex_unlock(&loadmap_lock);
    return n;
}

uintptr_t
mon_key_address(uintptr_t key)
{
    return (uint64_t)key & MON_KEY_MODULE ? key : (uintptr_t)((uint64_t)key & MON_KEY_OFFSET);
}

/*
 * The first module added after snapshot @seq16 (a sequence number mod 2^16, taken as the
 * latest such) that contains @addr.  Returns 0 with *id and *offset, or -1.
 */
static int
lookup_after(uintptr_t addr, uint64_t seq16, uint32_t *id, uint64_t *offset)
{
    int found = -1;
    uint64_t seq;

    pthread_mutex_lock(&loadmap_lock);
    seq = snapshots_published - ((snapshots_published - seq16) & 0xffff);
    for (size_t i = 0; i < nadded && found < 0; i++) {
        const struct fmt_module *m = &modules[added_log[i].id];

        if (added_log[i].seq > seq && addr >= m->start && addr < m->end) {
            *id = m->id;
            *offset = addr - m->load_bias;
            found = 0;
        }
    }
    pthread_mutex_unlock(&loadmap_lock);
    return found;
}

int
mon_key_decode(uintptr_t key, uint32_t *id, uint64_t *offset)
{
    if (!((uint64_t)key & MON_KEY_MODULE)) {
        uintptr_t addr = (uintptr_t)((uint64_t)key & MON_KEY_OFFSET);

        if (lookup_after(addr, (uint64_t)key >> MON_KEY_ID_SHIFT, id, offset) == 0)
            return 0;
        return mon_loadmap_lookup(addr, id, offset);
    }
    if (((uint64_t)key & MON_KEY_MODULE) && ((uint64_t)key & MON_KEY_RAW) != MON_KEY_RAW) {
        *id = (uint32_t)(((uint64_t)key & ~MON_KEY_MODULE) >> MON_KEY_ID_SHIFT);
        *offset = (uint64_t)key & MON_KEY_OFFSET;
        return *id < mon_loadmap_size() ? 0 : -1;
    }
    return mon_loadmap_lookup(key, id, offset);
}

/* The module containing @addr, if only one ever did: after dlclose and dlopen a range may
 * hold several, and which one was mapped when the address was sampled is not known here
 * (samples taken through a snapshot carry their module in the key, see mon_key_decode). */
int
mon_loadmap_lookup(uintptr_t addr, uint32_t *id, uint64_t *offset)
{
    int found = -1;

    pthread_mutex_lock(&loadmap_lock);
    for (uint32_t i = 0; i < nmodules; i++) {
        if (addr >= modules[i].start && addr < modules[i].end) {
            if (found == 0) { /* a second one: ambiguous */
                found = -1;
                break;
            }
            *id = modules[i].id;
            *offset = addr - modules[i].load_bias;
            found = 0;
        }
    }
    pthread_mutex_unlock(&loadmap_lock);
    return found;
}

uint32_t
mon_loadmap_copy(struct fmt_module *out, uint32_t max)
{
    uint32_t n;

    pthread_mutex_lock(&loadmap_lock);
    n = nmodules < max ? nmodules : max;
    memcpy(out, modules, n * sizeof(*out));
    pthread_mutex_unlock(&loadmap_lock);
    return n;
}

uint32_t
mon_loadmap_size(void)
{
    uint32_t n;

    pthread_mutex_lock(&loadmap_lock);
    n = nmodules;
    pthread_mutex_unlock(&loadmap_lock);
    return n;
}

uint32_t
mon_loadmap_epoch(void)
{
    return current_epoch;
}
