/* SPDX-License-Identifier: BSD-3-Clause */
/* tramp_asm.h (x86_64) -- frame layout of tramp_entry, shared by assembly and C. */
#ifndef CSP_TRAMP_ASM_H
#define CSP_TRAMP_ASM_H

#define TRAMP_OFF_XMM0   0
#define TRAMP_OFF_XMM1   16
#define TRAMP_OFF_RAX    32
#define TRAMP_OFF_RCX    40
#define TRAMP_OFF_RDX    48
#define TRAMP_OFF_RSI    56
#define TRAMP_OFF_RDI    64
#define TRAMP_OFF_R8     72
#define TRAMP_OFF_R9     80
#define TRAMP_OFF_R10    88
#define TRAMP_OFF_R11    96
#define TRAMP_OFF_TARGET 104 /* the real return address, popped by the final ret */
#define TRAMP_FRAME_SIZE 112 /* entry %rsp - 112 is 16-aligned when entry %rsp is */

#endif /* CSP_TRAMP_ASM_H */
