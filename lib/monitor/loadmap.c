/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * loadmap.c -- the process's load map: every module seen since start.
 *
 * Snapshots come from dl_iterate_phdr(3) in the constructor, after each
 * dlopen and before a profile is written -- never from the signal handler
 * (dl_iterate_phdr takes the loader's lock).  Modules are never removed: a
 * profile may hold addresses of a module dlclose'd since.  Each snapshot
 * that finds a new module starts a new epoch, recorded on the module.
 * The vDSO's image is saved into the measurement directory so the tools
 * can name its functions (__vdso_clock_gettime...).
 * Ordinary (non-signal) context; one mutex guards the table.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_loadmap.h"

static pthread_mutex_t loadmap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mon_module *modules; /* malloc'ed array */
static uint32_t nmodules, capmodules;
static uint32_t current_epoch;
static bool snapshot_added; /* a module was added during the current snapshot */

static void
read_build_id(struct dl_phdr_info *info, struct mon_module *m)
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
                nh->n_descsz <= sizeof(m->build_id)) {
                memcpy(m->build_id, desc, nh->n_descsz);
                m->build_id_len = nh->n_descsz;
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
save_vdso(uintptr_t lo, uintptr_t hi, const struct mon_module *m)
{
    static char path[sizeof(mon_proc.outdir) + 160];
    char id[2 * sizeof(m->build_id) + 1] = "nobuildid";
    int fd;

    for (uint32_t i = 0; i < m->build_id_len; i++)
        snprintf(id + 2 * i, 3, "%02x", m->build_id[i]);
    snprintf(path, sizeof(path), "%s/vdso-%s.so", mon_proc.outdir, id);
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
    if (fd >= 0) {
        /* The kernel maps the whole image in full pages; PT_LOAD may stop short of the
         * section headers at its end. */
        const char *p = (const char *)lo;
        size_t left = ((hi + 4095) & ~(uintptr_t)4095) - lo;

        while (left > 0) {
            ssize_t n = write(fd, p, left);

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

static int
add_module_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    const char *path = info->dlpi_name;
    struct mon_module *m;
    bool is_vdso;

    CSP_UNUSED(size);
    CSP_UNUSED(arg);
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
            (is_vdso || strcmp(modules[i].path, path) == 0))
            return 0;
    if (nmodules == capmodules) {
        uint32_t cap = capmodules ? capmodules * 2 : 32;
        struct mon_module *grown = realloc(modules, cap * sizeof(*grown));

        if (grown == NULL)
            return 1; /* keep what we have; addresses there stay unmapped */
        modules = grown;
        capmodules = cap;
    }
    if (!snapshot_added && nmodules > 0)
        current_epoch++;
    snapshot_added = true;
    m = &modules[nmodules];
    memset(m, 0, sizeof(*m));
    m->path = strdup(path);
    if (m->path == NULL)
        return 1;
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
            if (m->path == NULL)
                return 1;
        }
    }
    nmodules++;
    return 0;
}

void
mon_loadmap_refresh(void)
{
    pthread_mutex_lock(&loadmap_lock);
    snapshot_added = false;
    dl_iterate_phdr(add_module_cb, NULL);
    pthread_mutex_unlock(&loadmap_lock);
}

/* Newest module containing @addr wins: after dlclose+dlopen a range may be reused. */
int
mon_loadmap_lookup(uintptr_t addr, uint32_t *id, uint64_t *offset)
{
    int found = -1;

    pthread_mutex_lock(&loadmap_lock);
    for (uint32_t i = nmodules; i-- > 0;) {
        if (addr >= modules[i].start && addr < modules[i].end) {
            *id = modules[i].id;
            *offset = addr - modules[i].load_bias;
            found = 0;
            break;
        }
    }
    pthread_mutex_unlock(&loadmap_lock);
    return found;
}

uint32_t
mon_loadmap_copy(struct mon_module *out, uint32_t max)
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
