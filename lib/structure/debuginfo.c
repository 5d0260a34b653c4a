/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * debuginfo.c -- where a binary's DWARF comes from: the binary itself,
 * else its separate debug file, found by libdwfl's standard search
 * (dwfl_standard_find_debuginfo: DEBUGDIR/.build-id/xx/yyyy.debug, then
 * the .gnu_debuglink name in the binary's directory, its .debug/
 * subdirectory and DEBUGDIR/<binary's directory>), which accepts a
 * candidate only when its build-id matches or, for a binary without
 * one, when its CRC matches the .gnu_debuglink CRC.  DEBUGDIR is
 * struct_options.debug_dir, default /usr/lib/debug.  Tool code only.
 */
#include <stdio.h>
#include <stdlib.h>

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
