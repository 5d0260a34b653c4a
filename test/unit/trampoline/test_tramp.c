/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_tramp.c -- unit tests of lib/trampoline's C side, on a fake stack.
 *
 * The shadow-stack bookkeeping (install, remove, the return handler, a
 * non-local exit) is driven directly: return-address slots are elements of
 * an array, so every write the trampoline makes can be checked.  The
 * sampler's protocol (begin / reconcile / commit) is driven the same way,
 * by walks of a fake program stack that honour the walk's stop as
 * uw_backtrace does, and checked against the call-count invariant of
 * tramp.h: one call per return, at the returning call site.  The call
 * recogniser is checked on hand-assembled byte sequences.  The return-slot
 * check is run on a table of slots around a stack pointer and on real walks
 * (lib/unwind), including one from a signal handler and one that stops
 * glibc's setcontext halfway through its stack switch.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>

#include <cmocka.h>

#include "cct/cct.h"
#include "support/arena.h"
#include "trampoline/arch/tramp_arch.h"
#include "trampoline/tramp.h"
#include "unwind/uw.h"

/* ---- the call-instruction recogniser (Intel SDM vol. 2A, CALL) ---- */

static const struct {
    const char *name;
    uint8_t bytes[8]; /* the bytes just before the return address */
    size_t len;
    bool want;
} calls[] = {
    {"call rel32", {0xE8, 0x10, 0x20, 0x30, 0x40}, 5, true},
    {"call *%rax", {0xFF, 0xD0}, 2, true},
    {"call *%r11 (REX)", {0x41, 0xFF, 0xD3}, 3, true},
    {"call *8(%rax)", {0xFF, 0x50, 0x08}, 3, true},
    {"call *(%rsp) (SIB)", {0xFF, 0x14, 0x24}, 3, true},
    {"call *0x10(%rsp) (SIB+disp8)", {0xFF, 0x54, 0x24, 0x10}, 4, true},
    {"call *rip+disp32", {0xFF, 0x15, 1, 2, 3, 4}, 6, true},
    {"call *disp32(%rbx)", {0xFF, 0x93, 1, 2, 3, 4}, 6, true},
    {"call *disp32(%rsp) (SIB)", {0xFF, 0x94, 0x24, 1, 2, 3, 4}, 7, true},
    {"jmp *%rax is no call", {0xFF, 0xE0}, 2, false},
    {"add is no call", {0x48, 0x01, 0xC8}, 3, false},
    {"nops", {0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90, 0x90}, 8, false},
};

static void
test_follows_call(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
        uint8_t code[32];

        memset(code, 0x90, sizeof(code)); /* nop: no accidental call bytes before */
        memcpy(code + 16 - calls[i].len, calls[i].bytes, calls[i].len);
        if (tramp_arch_follows_call((uintptr_t)(code + 16)) != calls[i].want)
            fail_msg("%s: want %d", calls[i].name, calls[i].want);
    }
}

/* ---- shadow stack on a fake stack ---- */

struct fixture {
    struct arena arena;
    struct cct *tree;
    struct cct_node *nodes[4];
    struct tramp_frame shadow[8];
    struct tramp_thread tt;
    uintptr_t slots[4]; /* fake return-address slots, [0] outermost */
};

static const uintptr_t ras[4] = {0x401000, 0x402000, 0x403000, 0x404000};

static int
setup(void **state)
{
    static struct fixture f;
    uintptr_t ips[5] = {0x405000, ras[3], ras[2], ras[1], ras[0]}; /* leaf first */
    struct cct_node *all[5];

    memset(&f, 0, sizeof(f));
    arena_init_malloc(&f.arena, 1 << 16, 0);
    f.tree = cct_new(&f.arena, 1);
    assert_non_null(f.tree);
    assert_int_equal(cct_insert_path_nodes(f.tree, cct_root(f.tree), ips, 5, all), CCT_OK);
    tramp_thread_init(&f.tt, f.shadow, 8, true);
    for (int i = 0; i < 4; i++) {
        f.nodes[i] = all[4 - i];
        f.slots[i] = ras[i];
        f.shadow[i] = (struct tramp_frame){ras[i], (uintptr_t)&f.slots[i], f.nodes[i], true};
    }
    f.tt.depth = 4;
    tramp_set_self(&f.tt);
    *state = &f;
    return 0;
}

static int
teardown(void **state)
{
    struct fixture *f = *state;

    tramp_set_self(NULL);
    arena_destroy(&f->arena);
    return 0;
}

struct calls_seen {
    uintptr_t addr;
    uint64_t calls;
};

static int
collect_calls(const struct cct_node_view *v, void *arg)
{
    struct calls_seen *seen = arg;

    for (; seen->addr != 0; seen++)
        if (seen->addr == v->addr && v->kind == CCT_NODE_CALLSITE)
            seen->calls = v->calls;
    return 0;
}

/* The call count of the call-site node with address @ra in @tree (0 when none). */
static uint64_t
calls_in(struct cct *tree, uintptr_t ra)
{
    struct calls_seen seen[2] = {{ra, 0}, {0, 0}};
    static char scratch[1 << 16];

    assert_true(cct_walk_scratch_size(tree) <= sizeof(scratch));
    cct_walk(tree, collect_calls, seen, scratch);
    return seen[0].calls;
}

static uint64_t
calls_of(struct fixture *f, uintptr_t ra)
{
    return calls_in(f->tree, ra);
}

static void
test_install_and_remove(void **state)
{
    struct fixture *f = *state;

    assert_true(tramp_install_top(&f->tt));
    assert_int_equal(f->slots[3], tramp_address());
    assert_int_equal(f->tt.saved_ra, ras[3]);
    assert_false(tramp_install_top(&f->tt)); /* at most one trampoline */
    tramp_remove(&f->tt);
    assert_int_equal(f->slots[3], ras[3]);
    assert_int_equal(f->tt.slot, 0);
}

static void
test_install_refuses_stale_slot(void **state)
{
    struct fixture *f = *state;

    f->slots[3] = 0x12345; /* the frame is gone: the slot holds something else */
    assert_false(tramp_install_top(&f->tt));
    assert_int_equal(f->slots[3], 0x12345);
    f->shadow[3].installable = false;
    f->slots[3] = ras[3];
    assert_false(tramp_install_top(&f->tt)); /* a slot in a signal context */
    assert_int_equal(f->slots[3], ras[3]);
}

static void
test_return_pops_counts_and_moves_up(void **state)
{
    struct fixture *f = *state;
    uintptr_t target;

    assert_true(tramp_install_top(&f->tt));
    /* The frame whose slot is slots[3] returns: sp is one past the slot. */
    target = tramp_on_return((uintptr_t)&f->slots[3] + TRAMP_ARCH_SLOT_TO_SP);
    assert_int_equal(target, ras[3]);
    assert_int_equal(calls_of(f, ras[3]), 1);
    assert_int_equal(f->tt.depth, 3);
    assert_int_equal(f->slots[2], tramp_address()); /* moved one frame up */
    assert_int_equal(f->tt.saved_ra, ras[2]);
    target = tramp_on_return((uintptr_t)&f->slots[2] + TRAMP_ARCH_SLOT_TO_SP);
    assert_int_equal(target, ras[2]);
    assert_int_equal(calls_of(f, ras[2]), 1);
    assert_int_equal(f->tt.counts[TRAMP_FIRED], 2);
    assert_int_equal(f->tt.counts[TRAMP_RETURN_MISMATCH], 0);
}

static void
test_return_from_unknown_slot(void **state)
{
    struct fixture *f = *state;
    uintptr_t target;

    assert_true(tramp_install_top(&f->tt));
    /* Fired from another slot (a copied stack): still the saved address, state reset. */
    target = tramp_on_return((uintptr_t)&f->slots[1] + TRAMP_ARCH_SLOT_TO_SP);
    assert_int_equal(target, ras[3]);
    assert_int_equal(f->tt.counts[TRAMP_RETURN_MISMATCH], 1);
    assert_int_equal(f->tt.depth, 0);
    assert_int_equal(f->tt.slot, 0);
    assert_int_equal(calls_of(f, ras[3]), 0);
}

static void
test_nonlocal_exit_suspends(void **state)
{
    struct fixture *f = *state;

    assert_true(tramp_install_top(&f->tt));
    tramp_nonlocal_exit(&f->tt, 0x7000, true);
    assert_int_equal(f->slots[3], ras[3]); /* taken out of the stack */
    assert_int_equal(f->tt.depth, 0);
    assert_int_equal(f->tt.counts[TRAMP_NONLOCAL_EXITS], 1);
    f->tt.depth = 4;
    assert_false(tramp_install_top(&f->tt)); /* suspended */
    tramp_resume(&f->tt);
    assert_true(tramp_install_top(&f->tt));
    assert_false(f->tt.busy);
}

static void
test_leave_slot_of_self_saving_function(void **state)
{
    struct fixture *f = *state;

    assert_true(tramp_install_top(&f->tt));
    assert_false(tramp_leave_slot(&f->tt, (uintptr_t)&f->slots[2])); /* not where it is */
    assert_int_equal(f->slots[3], tramp_address());
    assert_false(tramp_leave_slot(NULL, (uintptr_t)&f->slots[3]));
    assert_true(tramp_leave_slot(&f->tt, (uintptr_t)&f->slots[3]));
    assert_int_equal(f->slots[3], ras[3]); /* setjmp will save the program's address */
    assert_int_equal(f->tt.slot, 0);
    assert_int_equal(f->tt.depth, 0);
    assert_int_equal(f->tt.counts[TRAMP_SELF_SAVING], 1);
    assert_false(f->tt.busy);
}

static void
test_remove_leaves_overwritten_slot(void **state)
{
    struct fixture *f = *state;

    assert_true(tramp_install_top(&f->tt));
    f->slots[3] = 0xdead; /* reused by newer frames after a longjmp */
    tramp_invalidate(&f->tt);
    assert_int_equal(f->slots[3], 0xdead);
    assert_int_equal(f->tt.depth, 0);
}

static void
test_contains_pc(void **state)
{
    (void)state;
    assert_true(tramp_contains_pc(tramp_address()));
    assert_false(tramp_contains_pc(tramp_address() - 1));
    assert_false(tramp_contains_pc((uintptr_t)&test_contains_pc));
}

/* ---- which slots may hold the trampoline, on real walks ---- */

#define WALK_MAX 64

struct walk {
    uintptr_t ips[WALK_MAX], sps[WALK_MAX], ra_locs[WALK_MAX];
    uint8_t sigframe[WALK_MAX];
    struct uw_backtrace bt;
};

static void
walk_from(struct walk *w, ucontext_t *uc)
{
    memset(w, 0, sizeof(*w));
    w->bt = (struct uw_backtrace){.ips = w->ips,
                                  .sps = w->sps,
                                  .ra_locs = w->ra_locs,
                                  .sigframe = w->sigframe,
                                  .max = WALK_MAX};
    (void)uw_backtrace(uc, &w->bt);
}

/* Check every frame of @w whose return address was read from memory.  Returns how many. */
static size_t
check_live_walk(const struct walk *w)
{
    size_t checked = 0;

    assert_true(w->bt.depth >= 3);
    for (size_t i = 1; i < w->bt.depth; i++) {
        if (w->ra_locs[i] == 0)
            continue;
        assert_true(tramp_is_return_slot(w->ra_locs[i], w->sps[i]));
        assert_int_equal(*(const uintptr_t *)w->ra_locs[i], w->ips[i]);
        checked++;
    }
    return checked;
}

/* Walk from here and check the frames while they are live.  Returns the count checked. */
static __attribute__((noinline)) size_t
walk_and_check_here(void)
{
    struct walk w;
    ucontext_t uc;
    size_t checked;

    getcontext(&uc);
    walk_from(&w, &uc);
    checked = check_live_walk(&w);
    __asm__ volatile("" ::: "memory"); /* keep this frame: no tail call */
    return checked;
}

/* Ordinary frames: every return address read from memory sits just below its caller's sp. */
static void
test_return_slots_of_ordinary_frames(void **state)
{
    (void)state;
    assert_true(walk_and_check_here() >= 2);
}

/*
 * The slot a call pushed is the one word just below the caller's stack
 * pointer (x86-64: the caller's sp is the slot's address + 8).  Any other
 * address is refused, whichever side of sp it lies on: a word further down
 * is a callee's local or a ucontext_t/jmp_buf copy, one at or above sp
 * belongs to the caller's own frame.
 */
static void
test_return_slot_is_only_the_adjacent_one(void **state)
{
    static uintptr_t stack[16];
    const uintptr_t sp = (uintptr_t)&stack[8];
    static const struct {
        const char *name;
        intptr_t ra_loc; /* relative to sp */
        bool want;
    } rows[] = {
        {"the word just below sp", -(intptr_t)TRAMP_ARCH_SLOT_TO_SP, true},
        {"two words below sp", -2 * (intptr_t)TRAMP_ARCH_SLOT_TO_SP, false},
        {"a page below sp", -4096, false},
        {"one byte off the slot", 1 - (intptr_t)TRAMP_ARCH_SLOT_TO_SP, false},
        {"sp itself", 0, false},
        {"a word above sp", (intptr_t)TRAMP_ARCH_SLOT_TO_SP, false},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        if (tramp_is_return_slot(sp + (uintptr_t)rows[i].ra_loc, sp) != rows[i].want)
            fail_msg("%s (sp%+" PRIdPTR "): want %d", rows[i].name, rows[i].ra_loc, rows[i].want);
    assert_false(tramp_is_return_slot(0, TRAMP_ARCH_SLOT_TO_SP)); /* no slot at all */
}

/*
 * The pc a signal interrupted is read from the ucontext_t of the kernel's
 * signal frame, which lies on the same stack below the interrupted stack
 * pointer (past the red zone), not in the word just below it.  A walk from
 * inside a handler reports that slot for the interrupted frame, and the
 * check must refuse it: a trampoline there would be jumped to by sigreturn.
 */
static struct {
    size_t found;               /* frames whose return address came from the kernel's slot */
    uintptr_t slot, ip, sp;     /* that slot, the interrupted pc and sp (the kernel's context) */
    uintptr_t walk_ip, walk_sp; /* the frame's pc and sp in the walk */
    size_t ordinary;            /* frames above it whose slot is the word below their caller's sp */
} in_handler;

static void
walk_in_handler(int sig, siginfo_t *si, void *ctx)
{
    static struct walk w;
    const ucontext_t *kuc = ctx;
    ucontext_t uc;

    (void)sig, (void)si;
    in_handler.slot = (uintptr_t)&kuc->uc_mcontext.gregs[REG_RIP];
    in_handler.ip = (uintptr_t)kuc->uc_mcontext.gregs[REG_RIP];
    in_handler.sp = (uintptr_t)kuc->uc_mcontext.gregs[REG_RSP];
    getcontext(&uc);
    walk_from(&w, &uc);
    for (size_t i = 1; i < w.bt.depth; i++) {
        if (w.ra_locs[i] != in_handler.slot)
            continue;
        in_handler.found++;
        in_handler.walk_ip = w.ips[i];
        in_handler.walk_sp = w.sps[i];
        for (size_t k = i + 1; k < w.bt.depth; k++)
            if (w.ra_locs[k] != 0 && tramp_is_return_slot(w.ra_locs[k], w.sps[k]))
                in_handler.ordinary++;
    }
}

static void
test_signal_frame_pc_is_no_return_slot(void **state)
{
    struct sigaction sa, old;

    (void)state;
    memset(&in_handler, 0, sizeof(in_handler));
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = walk_in_handler;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
    assert_int_equal(raise(SIGUSR1), 0);
    assert_int_equal(sigaction(SIGUSR1, &old, NULL), 0);
    assert_int_equal(in_handler.found, 1);
    assert_int_equal(in_handler.walk_ip, in_handler.ip);
    assert_int_equal(in_handler.walk_sp, in_handler.sp);
    /* the slot lies below the interrupted sp, but not just below it */
    assert_true(in_handler.slot + TRAMP_ARCH_SLOT_TO_SP < in_handler.sp);
    assert_false(tramp_is_return_slot(in_handler.slot, in_handler.sp));
    assert_true(in_handler.ordinary >= 2); /* raise's callers: this test, cmocka, ... */
}

/*
 * A sample that lands in glibc's setcontext just after it loaded the new
 * stack pointer: its unwind rules (sysdeps/unix/sysv/linux/x86_64/
 * setcontext.S, cfi_def_cfa %rdx and cfi_offset %rip) read the return
 * address from the ucontext_t, which setcontext then pushes onto the new
 * stack.  A trampoline put there would be left in the ucontext_t and jumped
 * to by the next setcontext of it, long after it moved (the crash seen in
 * CI).  The walk must report that slot, and the check must refuse it.
 */
static void
test_setcontext_mid_switch_is_no_return_slot(void **state)
{
    static uintptr_t new_stack[64];
    static ucontext_t target;
    const uint8_t *code = dlsym(RTLD_DEFAULT, "setcontext");
    volatile uintptr_t pc = 0; /* (getcontext returns twice: -Wclobbered) */
    ucontext_t uc;
    struct walk w;

    (void)state;
    assert_non_null(code);
    /* mov disp32(%rdx),%rsp: REX.W 8B, ModRM mod=10 reg=rsp rm=rdx */
    for (size_t i = 0; i + 7 <= 160 && pc == 0; i++)
        if (code[i] == 0x48 && code[i + 1] == 0x8B && code[i + 2] == 0xA2)
            pc = (uintptr_t)code + i + 7;
    if (pc == 0)
        fail_msg("this libc's setcontext does not load %%rsp with mov disp32(%%rdx): "
                 "update the test to its code");
    getcontext(&target);
    target.uc_mcontext.gregs[REG_RSP] = (greg_t)(uintptr_t)&new_stack[32];
    target.uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)&test_contains_pc;
    getcontext(&uc);
    uc.uc_mcontext.gregs[REG_RIP] = (greg_t)pc;
    uc.uc_mcontext.gregs[REG_RDX] = (greg_t)(uintptr_t)&target;
    uc.uc_mcontext.gregs[REG_RSP] = target.uc_mcontext.gregs[REG_RSP];
    walk_from(&w, &uc);
    assert_true(w.bt.depth >= 2);
    assert_int_equal(w.ips[0], pc);
    assert_int_equal(w.ips[1], (uintptr_t)&test_contains_pc);
    assert_int_equal(w.ra_locs[1], (uintptr_t)&target.uc_mcontext.gregs[REG_RIP]);
    assert_false(tramp_is_return_slot(w.ra_locs[1], w.sps[1]));
}

/* ---- the sampler's protocol on a fake program (tramp.h: begin / reconcile / commit) ---- */

/*
 * A fake program whose call chain has `levels` levels, 0 outermost: level L
 * called level L+1 from the call instruction ending at ra(L) (a real
 * "call rel32" in `code`, so tramp_is_return_address accepts it), and the
 * return address is stored at slot(L); the stack grows down, so inner
 * levels' slots are lower.
 */
#define PW_LEVELS 8

struct pwalk {
    struct arena arena;
    struct cct *tree;
    struct tramp_frame shadow[PW_LEVELS];
    struct tramp_thread tt;
    uint8_t code[8 * PW_LEVELS + 8];
    uintptr_t stk[2 * PW_LEVELS + 2];
    size_t levels;
    uintptr_t ips[PW_LEVELS], sps[PW_LEVELS], ra_locs[PW_LEVELS];
    uint8_t sigframe[PW_LEVELS];
    struct cct_node *nodes[PW_LEVELS];
    struct uw_backtrace bt;
};

static uintptr_t
pw_ra(struct pwalk *w, size_t level)
{
    return (uintptr_t)&w->code[8 * level + 5];
}

static uintptr_t *
pw_slot(struct pwalk *w, size_t level)
{
    return &w->stk[2 * (PW_LEVELS - level)];
}

/* The program calls down to @levels levels: the new callers' slots get their return addresses. */
static void
pw_call_to(struct pwalk *w, size_t levels)
{
    for (size_t l = w->levels > 0 ? w->levels - 1 : 0; l + 1 < levels; l++)
        *pw_slot(w, l) = pw_ra(w, l);
    w->levels = levels;
}

static int
pw_setup(void **state)
{
    static struct pwalk w;

    memset(&w, 0, sizeof(w));
    arena_init_malloc(&w.arena, 1 << 20, 0);
    w.tree = cct_new(&w.arena, 1);
    assert_non_null(w.tree);
    memset(w.code, 0x90, sizeof(w.code));
    for (size_t l = 0; l < PW_LEVELS; l++)
        w.code[8 * l] = 0xE8; /* call rel32, its displacement 0x90909090 */
    tramp_thread_init(&w.tt, w.shadow, PW_LEVELS, true);
    tramp_set_self(&w.tt);
    w.bt = (struct uw_backtrace){
        .ips = w.ips, .sps = w.sps, .ra_locs = w.ra_locs, .sigframe = w.sigframe, .max = PW_LEVELS};
    *state = &w;
    return 0;
}

static int
pw_teardown(void **state)
{
    struct pwalk *w = *state;

    tramp_set_self(NULL);
    arena_destroy(&w->arena);
    return 0;
}

/* uw_backtrace on the fake program: innermost level first, stopping at bt.stop_ip. */
static int
pw_walk(struct pwalk *w)
{
    size_t n = w->levels;

    w->bt.depth = 0;
    w->bt.stop_loc = 0;
    w->ips[0] = pw_ra(w, n - 1) - 3; /* somewhere in the innermost function */
    w->sps[0] = (uintptr_t)pw_slot(w, n - 1);
    w->bt.depth = 1;
    for (size_t i = 1; i < n; i++) {
        uintptr_t *slot = pw_slot(w, n - 1 - i);

        if (w->bt.stop_ip != 0 && *slot == w->bt.stop_ip) {
            w->bt.stop_loc = (uintptr_t)slot;
            return UW_STOPPED;
        }
        w->ips[i] = *slot;
        w->ra_locs[i] = (uintptr_t)slot;
        w->sps[i] = (uintptr_t)slot + TRAMP_ARCH_SLOT_TO_SP;
        w->sigframe[i] = 0;
        w->bt.depth = i + 1;
    }
    return UW_OK;
}

/* One sample as sample_sig.c takes it; returns the verdict it was inserted under. */
static enum tramp_walk
pw_sample(struct pwalk *w, struct arena *grow, uintptr_t lo, uintptr_t hi)
{
    struct cct_node *parent = NULL;
    enum tramp_walk walk;
    bool trampolining = tramp_sample_begin(&w->tt, w->sps[0], false, &w->bt.stop_ip);
    int rc;

    for (;;) {
        rc = pw_walk(w);
        walk = tramp_sample_reconcile(&w->tt, &w->bt, rc, trampolining, &parent);
        if (walk != TRAMP_WALK_AGAIN)
            break;
        w->bt.stop_ip = 0;
    }
    assert_true(walk == TRAMP_WALK_FULL || walk == TRAMP_WALK_SPLICE);
    assert_int_equal(cct_insert_path_nodes(w->tree,
                                           walk == TRAMP_WALK_SPLICE ? parent : cct_root(w->tree),
                                           w->ips, w->bt.depth, w->nodes),
                     CCT_OK);
    if (trampolining)
        tramp_sample_commit(&w->tt, &w->bt, w->nodes, walk, grow, lo, hi);
    return walk;
}

/* The innermost level returns: through the trampoline if its slot holds it. */
static void
pw_return(struct pwalk *w)
{
    uintptr_t *slot = pw_slot(w, w->levels - 2);

    if (*slot == tramp_address())
        assert_int_equal(tramp_on_return((uintptr_t)slot + TRAMP_ARCH_SLOT_TO_SP),
                         pw_ra(w, w->levels - 2));
    w->levels--;
}

static void
test_protocol_counts_each_return_once(void **state)
{
    struct pwalk *w = *state;
    struct cct_node *site2;

    pw_call_to(w, 4);
    assert_int_equal(pw_sample(w, &w->arena, 0, 0), TRAMP_WALK_FULL);
    site2 = w->nodes[1];                               /* the call site of level 2 */
    assert_int_equal(*pw_slot(w, 2), tramp_address()); /* the interrupted frame's return */
    assert_int_equal(tramp_count(&w->tt, TRAMP_INSTALLS), 1);
    assert_int_equal(tramp_count(&w->tt, TRAMP_FULL_WALKS), 1);
    pw_call_to(w, 6); /* two levels deeper: only they are walked */
    assert_int_equal(pw_sample(w, &w->arena, 0, 0), TRAMP_WALK_SPLICE);
    assert_int_equal(w->bt.depth, 3);
    assert_int_equal(*pw_slot(w, 2), pw_ra(w, 2)); /* moved: the old slot restored */
    assert_int_equal(*pw_slot(w, 4), tramp_address());
    assert_int_equal(tramp_count(&w->tt, TRAMP_PARTIAL_WALKS), 1);
    assert_int_equal(tramp_count(&w->tt, TRAMP_INSTALLS), 2);
    /* The spliced path hangs below the first sample's call site of level 2. */
    assert_ptr_equal(cct_node_parent(w->nodes[w->bt.depth - 1]), site2);
    for (int r = 0; r < 3; r++)
        pw_return(w);
    /* Levels 5, 4, 3 returned: one call each at the call sites in 4, 3, 2; none above. */
    assert_int_equal(calls_in(w->tree, pw_ra(w, 4)), 1);
    assert_int_equal(calls_in(w->tree, pw_ra(w, 3)), 1);
    assert_int_equal(calls_in(w->tree, pw_ra(w, 2)), 1);
    assert_int_equal(calls_in(w->tree, pw_ra(w, 1)), 0);
    assert_int_equal(*pw_slot(w, 1), tramp_address()); /* waiting for level 2 */
    assert_int_equal(tramp_count(&w->tt, TRAMP_FIRED), 3);
    assert_int_equal(tramp_count(&w->tt, TRAMP_RETURN_MISMATCH), 0);
    /* A sample now splices below level 1's call site, with nothing new but the leaf. */
    assert_int_equal(pw_sample(w, &w->arena, 0, 0), TRAMP_WALK_SPLICE);
    assert_int_equal(w->bt.depth, 1);
    assert_int_equal(*pw_slot(w, 1), tramp_address()); /* stays: no frame below it */
}

static void
test_protocol_misplaced_walks_again(void **state)
{
    struct pwalk *w = *state;

    pw_call_to(w, 4);
    pw_sample(w, &w->arena, 0, 0);
    *pw_slot(w, 2) = pw_ra(w, 2); /* the trampoline shows up one slot out (a copied stack) */
    *pw_slot(w, 1) = tramp_address();
    assert_int_equal(pw_sample(w, &w->arena, 0, 0), TRAMP_WALK_FULL);
    assert_int_equal(tramp_count(&w->tt, TRAMP_MISPLACED), 1);
    assert_int_equal(tramp_count(&w->tt, TRAMP_LOST), 0);
    assert_int_equal(*pw_slot(w, 1), pw_ra(w, 2));     /* fixed with the saved address */
    assert_int_equal(w->bt.depth, 4);                  /* the second walk was whole */
    assert_int_equal(*pw_slot(w, 2), tramp_address()); /* and reinstalled */
}

static void
test_protocol_lost_after_unwinding(void **state)
{
    struct pwalk *w = *state;

    pw_call_to(w, 5);
    pw_sample(w, &w->arena, 0, 0);
    assert_int_equal(*pw_slot(w, 3), tramp_address());
    w->levels = 2;           /* longjmp to level 1 */
    *pw_slot(w, 3) = 0x1234; /* the dead slot reused */
    assert_int_equal(pw_sample(w, &w->arena, 0, 0), TRAMP_WALK_FULL);
    assert_int_equal(tramp_count(&w->tt, TRAMP_LOST), 1);
    assert_int_equal(*pw_slot(w, 3), 0x1234); /* left alone */
    assert_int_equal(*pw_slot(w, 0), tramp_address());
}

static void
test_protocol_drops_walk_through_trampoline(void **state)
{
    struct pwalk *w = *state;
    struct cct_node *parent = NULL;

    pw_call_to(w, 4);
    pw_sample(w, &w->arena, 0, 0);
    pw_walk(w);
    w->ips[1] = tramp_address() + 1; /* interrupted inside tramp_on_return */
    assert_int_equal(tramp_sample_reconcile(&w->tt, &w->bt, UW_OK, true, &parent), TRAMP_WALK_DROP);
    assert_int_equal(*pw_slot(w, 2), tramp_address()); /* nothing changed */
    assert_true(tramp_sample_blocked(&w->tt, tramp_address()));
    assert_false(tramp_sample_blocked(&w->tt, pw_ra(w, 1)));
}

static void
test_protocol_begin(void **state)
{
    struct pwalk *w = *state;
    uintptr_t stop = 1;

    pw_call_to(w, 4);
    pw_sample(w, &w->arena, 0, 0);
    assert_true(tramp_sample_begin(&w->tt, 0x8000, false, &stop));
    assert_int_equal(stop, tramp_address());
    assert_false(tramp_sample_begin(&w->tt, 0x8000, true, &stop)); /* OpenMP: a plain walk */
    assert_int_equal(stop, 0);
    tramp_nonlocal_exit(&w->tt, 0x7000, true);
    assert_false(tramp_sample_begin(&w->tt, 0x6000, false, &stop)); /* still unwinding */
    assert_int_equal(stop, 0);
    assert_true(tramp_sample_begin(&w->tt, 0x7000, false, &stop)); /* back at the caller */
    assert_int_equal(stop, 0);
    tramp_sample_abandon(&w->tt);
    assert_false(tramp_enabled(&w->tt));
    assert_false(tramp_sample_begin(&w->tt, 0x7000, false, &stop));
}

static void
test_protocol_deep_and_out_of_stack(void **state)
{
    struct pwalk *w = *state;

    tramp_thread_init(&w->tt, w->shadow, 2, true); /* room for two: must grow */
    pw_call_to(w, 6);
    pw_sample(w, NULL, 0, 0); /* no arena: cannot grow, nothing installed */
    assert_int_equal(tramp_count(&w->tt, TRAMP_SHADOW_FULL), 1);
    assert_int_equal(*pw_slot(w, 4), pw_ra(w, 4));
    pw_sample(w, &w->arena, 0, 0);
    assert_int_equal(*pw_slot(w, 4), tramp_address());
    for (int r = 0; r < 4; r++)
        pw_return(w);
    assert_int_equal(calls_in(w->tree, pw_ra(w, 1)), 1); /* the grown stack kept level 1's node */
    assert_int_equal(tramp_count(&w->tt, TRAMP_RETURN_MISMATCH), 0);
    /* A stack whose top ends below the slots (a walk gone astray): never installed there. */
    tramp_invalidate(&w->tt);
    pw_call_to(w, 4);
    pw_sample(w, &w->arena, (uintptr_t)w->stk, (uintptr_t)pw_slot(w, 2));
    assert_int_equal(tramp_count(&w->tt, TRAMP_OUT_OF_STACK), 3);
    assert_int_equal(*pw_slot(w, 2), pw_ra(w, 2));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_follows_call),
        cmocka_unit_test(test_contains_pc),
        cmocka_unit_test(test_return_slots_of_ordinary_frames),
        cmocka_unit_test(test_return_slot_is_only_the_adjacent_one),
        cmocka_unit_test(test_signal_frame_pc_is_no_return_slot),
        cmocka_unit_test(test_setcontext_mid_switch_is_no_return_slot),
        cmocka_unit_test_setup_teardown(test_install_and_remove, setup, teardown),
        cmocka_unit_test_setup_teardown(test_install_refuses_stale_slot, setup, teardown),
        cmocka_unit_test_setup_teardown(test_return_pops_counts_and_moves_up, setup, teardown),
        cmocka_unit_test_setup_teardown(test_return_from_unknown_slot, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nonlocal_exit_suspends, setup, teardown),
        cmocka_unit_test_setup_teardown(test_remove_leaves_overwritten_slot, setup, teardown),
        cmocka_unit_test_setup_teardown(test_leave_slot_of_self_saving_function, setup, teardown),
        cmocka_unit_test_setup_teardown(test_protocol_counts_each_return_once, pw_setup,
                                        pw_teardown),
        cmocka_unit_test_setup_teardown(test_protocol_misplaced_walks_again, pw_setup, pw_teardown),
        cmocka_unit_test_setup_teardown(test_protocol_lost_after_unwinding, pw_setup, pw_teardown),
        cmocka_unit_test_setup_teardown(test_protocol_drops_walk_through_trampoline, pw_setup,
                                        pw_teardown),
        cmocka_unit_test_setup_teardown(test_protocol_begin, pw_setup, pw_teardown),
        cmocka_unit_test_setup_teardown(test_protocol_deep_and_out_of_stack, pw_setup, pw_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
