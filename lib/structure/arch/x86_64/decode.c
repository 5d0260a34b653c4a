/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * decode.c (x86_64) -- the instruction decoder hook of cfg.h on Capstone
 * (libcapstone 4, http://www.capstone-engine.org/lang_c.html): classifies
 * each instruction by its control flow and extracts the few operand facts
 * jump-table recognition needs.  Reached through struct_arch_x86_64
 * (arch.h), which decoder.c picks for EM_X86_64 modules.
 *
 * Tool code only.  One decoder per thread (a Capstone handle is not
 * shared); never prints.
 */
#include <capstone/capstone.h>
#include <stdlib.h>
#include <string.h>

#include <elf.h>

#include "structure/arch/arch.h"
#include "structure/cfg.h"

struct x86_64_decoder {
    csh cs; /* with operand details (CS_OPT_DETAIL) */
    cs_insn *insn;
    csh fast; /* without: mnemonic, operand text and length only */
    cs_insn *finsn;
};

static void *
x86_64_open(void)
{
    struct x86_64_decoder *d = calloc(1, sizeof(*d));

    if (d == NULL)
        return NULL;
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->cs) != CS_ERR_OK) {
        free(d);
        return NULL;
    }
    if (cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK ||
        (d->insn = cs_malloc(d->cs)) == NULL) {
        cs_close(&d->cs);
        free(d);
        return NULL;
    }
    if (cs_open(CS_ARCH_X86, CS_MODE_64, &d->fast) != CS_ERR_OK) {
        cs_free(d->insn, 1);
        cs_close(&d->cs);
        free(d);
        return NULL;
    }
    if ((d->finsn = cs_malloc(d->fast)) == NULL) {
        cs_close(&d->fast);
        cs_free(d->insn, 1);
        cs_close(&d->cs);
        free(d);
        return NULL;
    }
    return d;
}

static void
x86_64_close(void *state)
{
    struct x86_64_decoder *d = state;

    if (d == NULL)
        return;
    cs_free(d->insn, 1);
    cs_close(&d->cs);
    cs_free(d->finsn, 1);
    cs_close(&d->fast);
    free(d);
}

static uint16_t
x86_64_reg64(void *state, uint16_t reg)
{
    /* Families of the 16 general registers: 64, 32, 16, 8-bit low names. */
    static const uint16_t fam[16][4] = {
        {X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL},
        {X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL},
        {X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL},
        {X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL},
        {X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL},
        {X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL},
        {X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL},
        {X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL},
        {X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B},
        {X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B},
        {X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B},
        {X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B},
        {X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B},
        {X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B},
        {X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B},
        {X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B},
    };

    (void)state;
    if (reg == X86_REG_INVALID)
        return 0;
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 4; j++)
            if (fam[i][j] == reg)
                return fam[i][0];
    return reg;
}

static void
set_mem(struct x86_64_decoder *d, const cs_x86_op *op, struct struct_insn *out)
{
    out->has_mem = true;
    out->mem_rip = op->mem.base == X86_REG_RIP;
    out->mem_base = out->mem_rip ? 0 : x86_64_reg64(d, (uint16_t)op->mem.base);
    out->mem_index = x86_64_reg64(d, (uint16_t)op->mem.index);
    out->mem_scale = (uint8_t)op->mem.scale;
    out->mem_disp = op->mem.disp;
    if (out->mem_rip)
        out->mem_disp += (int64_t)(out->addr + out->len);
}

/*
 * Kind of the instructions that their id alone classifies: far jumps and
 * calls (indirect), returns, and those with no fall-through; OTHER for
 * the rest.
 */
static enum struct_insn_kind
id_kind(unsigned id)
{
    switch (id) {
    case X86_INS_LJMP:
        return STRUCT_INSN_IJUMP;
    case X86_INS_LCALL:
        return STRUCT_INSN_ICALL;
    case X86_INS_RET:
    case X86_INS_RETF:
    case X86_INS_RETFQ:
    case X86_INS_IRET:
    case X86_INS_IRETD:
    case X86_INS_IRETQ:
    case X86_INS_SYSRET:
    case X86_INS_SYSEXIT:
        return STRUCT_INSN_RET;
    case X86_INS_HLT:
    case X86_INS_UD2:
    case X86_INS_UD2B:
    case X86_INS_UD0:
    case X86_INS_INT3:
        return STRUCT_INSN_HALT;
    default:
        return STRUCT_INSN_OTHER;
    }
}

/*
 * Decode the instruction at @code with handle @h into @in and start @out:
 * address, length, and the kind when the id alone gives it (BAD with
 * length 1 when the bytes do not decode).  True when the caller must still
 * classify it (@out->kind is OTHER).
 */
static bool
decode_one(csh h, cs_insn *in, const uint8_t *code, size_t size, uint64_t addr,
           struct struct_insn *out)
{
    const uint8_t *p = code;
    uint64_t a = addr;

    memset(out, 0, sizeof(*out));
    out->addr = addr;
    if (size == 0 || !cs_disasm_iter(h, &p, &size, &a, in)) {
        out->len = 1;
        out->kind = STRUCT_INSN_BAD;
        return false;
    }
    out->len = in->size;
    out->kind = id_kind(in->id);
    return out->kind == STRUCT_INSN_OTHER;
}

static void
x86_64_decode(void *state, const uint8_t *code, size_t size, uint64_t addr, struct struct_insn *out)
{
    struct x86_64_decoder *d = state;
    cs_insn *in = d->insn;
    const cs_x86 *x;

    if (!decode_one(d->cs, in, code, size, addr, out))
        return;
    x = &in->detail->x86;
    switch (in->id) {
    case X86_INS_JMP:
        if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
            out->kind = STRUCT_INSN_JUMP;
            out->target = (uint64_t)x->operands[0].imm;
        } else {
            out->kind = STRUCT_INSN_IJUMP;
            if (x->op_count == 1 && x->operands[0].type == X86_OP_MEM)
                set_mem(d, &x->operands[0], out);
            else if (x->op_count == 1 && x->operands[0].type == X86_OP_REG)
                out->src_reg = x86_64_reg64(d, (uint16_t)x->operands[0].reg);
        }
        return;
    case X86_INS_CALL:
        if (x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
            out->kind = STRUCT_INSN_CALL;
            out->target = (uint64_t)x->operands[0].imm;
        } else {
            out->kind = STRUCT_INSN_ICALL;
            if (x->op_count == 1 && x->operands[0].type == X86_OP_MEM)
                set_mem(d, &x->operands[0], out);
        }
        return;
    default:
        break;
    }
    if (cs_insn_group(d->cs, in, X86_GRP_JUMP)) { /* jcc, loop*, jrcxz */
        out->kind = x->op_count == 1 && x->operands[0].type == X86_OP_IMM ? STRUCT_INSN_CJUMP
                                                                          : STRUCT_INSN_IJUMP;
        if (out->kind == STRUCT_INSN_CJUMP)
            out->target = (uint64_t)x->operands[0].imm;
        return;
    }
    /* Data flow facts for jump tables (two operands: dst, src). */
    if (x->op_count != 2 || x->operands[0].type != X86_OP_REG)
        return;
    out->dst_reg = x86_64_reg64(d, (uint16_t)x->operands[0].reg);
    switch (in->id) {
    case X86_INS_LEA:
        if (x->operands[1].type == X86_OP_MEM) {
            out->op = STRUCT_OP_LEA;
            set_mem(d, &x->operands[1], out);
        }
        break;
    case X86_INS_MOVSXD:
        if (x->operands[1].type == X86_OP_MEM && x->operands[1].size == 4) {
            out->op = STRUCT_OP_LOAD4S;
            set_mem(d, &x->operands[1], out);
        }
        break;
    case X86_INS_MOV:
        if (x->operands[1].type == X86_OP_MEM && x->operands[1].size == 8) {
            out->op = STRUCT_OP_LOAD8;
            set_mem(d, &x->operands[1], out);
        } else if (x->operands[1].type == X86_OP_REG) {
            out->op = STRUCT_OP_MOV;
            out->src_reg = x86_64_reg64(d, (uint16_t)x->operands[1].reg);
        }
        break;
    case X86_INS_ADD:
        if (x->operands[1].type == X86_OP_REG) {
            out->op = STRUCT_OP_ADD;
            out->src_reg = x86_64_reg64(d, (uint16_t)x->operands[1].reg);
        }
        break;
    case X86_INS_CMP:
        if (x->operands[1].type == X86_OP_IMM) {
            out->op = STRUCT_OP_CMP;
            out->has_imm = true;
            out->imm = x->operands[1].imm;
        }
        break;
    default:
        out->op = STRUCT_OP_NONE;
        break;
    }
}

/*
 * The operand text of a direct branch is its target, printed by Capstone's
 * Intel printer as 0x-prefixed hexadecimal (decimal up to 9).  Sets *@v
 * when @s is exactly such a number.
 */
static bool
branch_target(const char *s, uint64_t *v)
{
    uint64_t x = 0;
    int base = 10;

    if (s[0] == '0' && s[1] == 'x') {
        base = 16;
        s += 2;
    }
    if (*s == '\0')
        return false;
    for (; *s != '\0'; s++) {
        unsigned dgt;

        if (*s >= '0' && *s <= '9')
            dgt = (unsigned)(*s - '0');
        else if (base == 16 && *s >= 'a' && *s <= 'f')
            dgt = (unsigned)(*s - 'a' + 10);
        else
            return false;
        if (x > (UINT64_MAX - dgt) / (uint64_t)base)
            return false;
        x = x * (uint64_t)base + dgt;
    }
    *v = x;
    return true;
}

/*
 * Is @id in Capstone 4's X86_GRP_JUMP, less jmp and ljmp: the conditional
 * jumps, jcxz/jecxz/jrcxz and xbegin?  (Capstone 4 leaves loop, loope
 * and loopne out of the group, so x86_64_decode() does too.)
 */
static bool
is_cjump(unsigned id)
{
    switch (id) {
    case X86_INS_JAE:
    case X86_INS_JA:
    case X86_INS_JBE:
    case X86_INS_JB:
    case X86_INS_JCXZ:
    case X86_INS_JECXZ:
    case X86_INS_JE:
    case X86_INS_JGE:
    case X86_INS_JG:
    case X86_INS_JLE:
    case X86_INS_JL:
    case X86_INS_JNE:
    case X86_INS_JNO:
    case X86_INS_JNP:
    case X86_INS_JNS:
    case X86_INS_JO:
    case X86_INS_JP:
    case X86_INS_JRCXZ:
    case X86_INS_JS:
    case X86_INS_XBEGIN: /* the abort handler is a branch target */
        return true;
    default:
        return false;
    }
}

/*
 * struct_decode_flow(): decode without operand details; direct branches
 * take their target from the operand text; indirect branches and lea are
 * decoded again with details.
 */
static void
x86_64_decode_flow(void *state, const uint8_t *code, size_t size, uint64_t addr,
                   struct struct_insn *out)
{
    struct x86_64_decoder *d = state;
    cs_insn *in = d->finsn;

    if (!decode_one(d->fast, in, code, size, addr, out))
        return;
    switch (in->id) {
    case X86_INS_JMP:
        if (branch_target(in->op_str, &out->target)) {
            out->kind = STRUCT_INSN_JUMP;
            return;
        }
        break;
    case X86_INS_CALL:
        if (branch_target(in->op_str, &out->target)) {
            out->kind = STRUCT_INSN_CALL;
            return;
        }
        break;
    case X86_INS_LEA:
        break;
    default:
        if (!is_cjump(in->id)) {
            out->no_facts = true;
            return;
        }
        if (branch_target(in->op_str, &out->target)) {
            out->kind = STRUCT_INSN_CJUMP;
            return;
        }
        break;
    }
    x86_64_decode(state, code, size, addr, out); /* details needed */
}

const struct struct_arch_ops struct_arch_x86_64 = {
    .machine = EM_X86_64,
    .name = "x86-64",
    .reloc_relative = R_X86_64_RELATIVE,
    .open = x86_64_open,
    .close = x86_64_close,
    .decode = x86_64_decode,
    .decode_flow = x86_64_decode_flow,
    .reg64 = x86_64_reg64,
};
