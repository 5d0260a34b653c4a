/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * own_code.c -- csprof's own code (mon_nonlocal.h): the executable segments
 * of libcsprof.so, where a sample is dropped (MON_DROP_IN_MONITOR) and the
 * trampoline is never put, and the dynamic linker's, where the trampoline is
 * never put either.  Found once, in the constructor, with dladdr(3) and
 * dl_iterate_phdr(3); read from the handler.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdbool.h>
#include <stdint.h>

#include "monitor/mon_nonlocal.h"
#include "support/compiler.h"
#include "trampoline/tramp.h"

static struct {
    uintptr_t lo, hi;
} own_code[4];
static unsigned nown_code;

bool
mon_in_own_code(uintptr_t pc)
{
    for (unsigned i = 0; i < nown_code; i++)
        if (pc >= own_code[i].lo && pc < own_code[i].hi)
            return true;
    return false;
}

static int
add_own_code(struct dl_phdr_info *info, size_t size, void *base)
{
    CSP_UNUSED(size);
    if ((void *)info->dlpi_addr != base)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;

        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        tramp_avoid_range(lo, hi);
        if (nown_code < sizeof(own_code) / sizeof(own_code[0])) {
            own_code[nown_code].lo = lo;
            own_code[nown_code].hi = hi;
            nown_code++;
        }
    }
    return 1;
}

/*
 * csprof's own code never holds the trampoline either: an override could be
 * interrupted after it took the trampoline out and before the real function
 * (swapcontext, which saves its return address) runs.  Nor does the dynamic
 * linker's: its lazy-binding resolver ends by jumping to the function it
 * resolved with the caller's return slot in place, so a trampoline put there
 * would reach setjmp or dlsym as their return address (selfsave.S covers
 * the first; this keeps the window closed for every function).
 */
static int
add_code_of(struct dl_phdr_info *info, size_t size, void *base)
{
    CSP_UNUSED(size);
    if ((void *)info->dlpi_addr != base)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
            tramp_avoid_range(info->dlpi_addr + ph->p_vaddr,
                              info->dlpi_addr + ph->p_vaddr + ph->p_memsz);
    }
    return 1;
}

void
mon_own_code_init(void)
{
    void *loader_symbol = dlsym(RTLD_DEFAULT, "__tls_get_addr"); /* defined by ld.so only */
    Dl_info info;

    if (dladdr((void *)(uintptr_t)&mon_own_code_init, &info) != 0)
        dl_iterate_phdr(add_own_code, info.dli_fbase);
    if (loader_symbol != NULL && dladdr(loader_symbol, &info) != 0)
        dl_iterate_phdr(add_code_of, info.dli_fbase);
}
