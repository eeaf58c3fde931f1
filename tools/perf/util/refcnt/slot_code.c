// SPDX-License-Identifier: GPL-2.0
/*
 * The slots that references are stored to and loaded from, read from the
 * code around the calls of the refcount API: see slot_code.h.
 */
#include <errno.h>
#include <string.h>
#include <linux/kernel.h>

#include "slot_code.h"

#ifdef HAVE_LIBCAPSTONE_SUPPORT
#include <capstone/capstone.h>

/* How far from the call the store or the load may be, in instructions. */
#define SLOT_INSNS	12

const char *refcnt_x86_reg_name(x86_reg reg)
{
	static const struct { x86_reg reg; const char *name; } regs[] = {
		{ X86_REG_RAX, "%ax" }, { X86_REG_RBX, "%bx" }, { X86_REG_RCX, "%cx" },
		{ X86_REG_RDX, "%dx" }, { X86_REG_RSI, "%si" }, { X86_REG_RDI, "%di" },
		{ X86_REG_RBP, "%bp" }, { X86_REG_R8, "%r8" }, { X86_REG_R9, "%r9" },
		{ X86_REG_R10, "%r10" }, { X86_REG_R11, "%r11" }, { X86_REG_R12, "%r12" },
		{ X86_REG_R13, "%r13" }, { X86_REG_R14, "%r14" }, { X86_REG_R15, "%r15" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(regs); i++) {
		if (regs[i].reg == reg)
			return regs[i].name;
	}
	return NULL;
}

x86_reg refcnt_x86_reg64(x86_reg reg)
{
	/* each 64-bit register and its 32, 16 and 8-bit parts */
	static const x86_reg regs[][5] = {
		{ X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, X86_REG_AH },
		{ X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, X86_REG_BH },
		{ X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, X86_REG_CH },
		{ X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, X86_REG_DH },
		{ X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL, X86_REG_SIL },
		{ X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL, X86_REG_DIL },
		{ X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL, X86_REG_BPL },
		{ X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL, X86_REG_SPL },
		{ X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B, X86_REG_R8B },
		{ X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B, X86_REG_R9B },
		{ X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B, X86_REG_R10B },
		{ X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B, X86_REG_R11B },
		{ X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B, X86_REG_R12B },
		{ X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B, X86_REG_R13B },
		{ X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B, X86_REG_R14B },
		{ X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B, X86_REG_R15B },
	};

	for (size_t i = 0; reg != X86_REG_INVALID && i < ARRAY_SIZE(regs); i++) {
		for (size_t j = 0; j < ARRAY_SIZE(regs[i]); j++) {
			if (regs[i][j] == reg)
				return regs[i][0];
		}
	}
	return X86_REG_INVALID;
}

static bool reg__xmm(x86_reg reg)
{
	return reg >= X86_REG_XMM0 && reg <= X86_REG_XMM15;
}

/* Is @written @reg, or (@reg an xmm register) its ymm or zmm? */
static bool reg__writes(x86_reg written, x86_reg reg)
{
	if (!reg__xmm(reg))
		return refcnt_x86_reg64(written) == reg;
	return written == reg || written == X86_REG_YMM0 + (reg - X86_REG_XMM0) ||
	       written == X86_REG_ZMM0 + (reg - X86_REG_XMM0);
}

bool refcnt_x86_insn_writes(csh handle, const cs_insn *insn, x86_reg reg)
{
	cs_regs regs_read, regs_write;
	u8 nr_read, nr_write;

	if (cs_regs_access(handle, insn, regs_read, &nr_read, regs_write, &nr_write))
		return true;
	for (u8 i = 0; i < nr_write; i++) {
		if (reg__writes(regs_write[i], reg))
			return true;
	}
	return false;
}

static bool slot_insn__branches(csh handle, const cs_insn *insn)
{
	return cs_insn_group(handle, insn, X86_GRP_JUMP) ||
	       cs_insn_group(handle, insn, X86_GRP_CALL) ||
	       cs_insn_group(handle, insn, X86_GRP_RET) ||
	       cs_insn_group(handle, insn, X86_GRP_INT);
}

/* The base of a slot: a general register, or the stack pointer (a local). */
static const char *slot__base(x86_reg reg)
{
	return reg == X86_REG_RSP ? "%sp" : refcnt_x86_reg_name(reg);
}

/*
 * Is the slot at @base + @disp a local of the function's own frame, dead
 * once it returns: at the stack pointer or below the frame pointer
 * (perf builds with -fno-omit-frame-pointer; a function that uses %rbp as
 * a general register rarely addresses below it, and a slot told a local
 * only loses the overwrite evidence, pairing.h)?
 */
static bool slot__frame(x86_reg base, s64 disp)
{
	return base == X86_REG_RSP || (base == X86_REG_RBP && disp < 0);
}

/* A 64-bit register operand's register, or INVALID. */
static x86_reg op__reg64(const cs_x86_op *op)
{
	if (op->type != X86_OP_REG || op->size != 8)
		return X86_REG_INVALID;
	return refcnt_x86_reg64(op->reg);
}

/* A word of memory at a register plus a displacement: a slot. */
static bool op__slot(const cs_x86_op *op)
{
	return op->type == X86_OP_MEM && op->size == 8 && op->mem.segment == X86_REG_INVALID &&
	       op->mem.index == X86_REG_INVALID && slot__base(op->mem.base);
}

/* A word of static storage: %rip plus a displacement (a static variable). */
static bool op__static_word(const cs_x86_op *op)
{
	return op->type == X86_OP_MEM && op->size == 8 && op->mem.segment == X86_REG_INVALID &&
	       op->mem.index == X86_REG_INVALID && op->mem.base == X86_REG_RIP;
}

/*
 * A register holding the reference: a general one (lane 0), or a quadword
 * lane of an xmm register (GCC stores two adjacent pointer members with
 * one 16-byte move: movq %rcx,%xmm0; ...; punpcklqdq; movups %xmm0,(%r12)).
 */
struct slot_held {
	x86_reg	reg;
	u8	lane;
};

static int held__find(const struct slot_held *held, size_t nr, x86_reg reg, u8 lane)
{
	for (size_t h = 0; reg != X86_REG_INVALID && h < nr; h++) {
		if (held[h].reg == reg && held[h].lane == lane)
			return h;
	}
	return -1;
}

/* A 16-byte move of an xmm register to memory, each quadword a slot. */
static bool slot_insn__vector_store(const cs_insn *insn)
{
	const cs_x86 *x86 = &insn->detail->x86;
	const cs_x86_op *mem = &x86->operands[0];

	switch (insn->id) {
	case X86_INS_MOVUPS: case X86_INS_MOVDQU: case X86_INS_MOVAPS: case X86_INS_MOVDQA:
		break;
	default:
		return false;
	}
	return x86->op_count == 2 && mem->type == X86_OP_MEM && mem->size == 16 &&
	       mem->mem.segment == X86_REG_INVALID && mem->mem.index == X86_REG_INVALID &&
	       slot__base(mem->mem.base) && x86->operands[1].type == X86_OP_REG;
}

/*
 * Is @insn (at @i of @n) a store of what @held holds to a slot? Then @si.
 * A vector store is probed on the next instruction, where the slot is
 * there to read (no register to fetch a lane from).
 */
static bool slot__held_store(const cs_insn *insn, size_t i, size_t n,
			     const struct slot_held *held, size_t nr_held,
			     struct refcnt_slot_insn *si)
{
	const cs_x86 *x86 = &insn[i].detail->x86;
	const cs_x86_op *dst = &x86->operands[0];
	int lane = -1;

	if (insn[i].id == X86_INS_MOV && x86->op_count == 2 &&
	    (op__slot(dst) || op__static_word(dst))) {
		x86_reg src = op__reg64(&x86->operands[1]);

		if (held__find(held, nr_held, src, 0) < 0 || refcnt_x86_reg64(dst->mem.base) == src)
			return false;
		si->vaddr = insn[i].address;
		si->value = refcnt_x86_reg_name(src);
		si->store_value = si->value;
	} else if (slot_insn__vector_store(&insn[i]) && i + 1 < n &&
		   held__find(held, nr_held, refcnt_x86_reg64(dst->mem.base), 0) < 0) {
		for (u8 l = 0; l < 2 && lane < 0; l++) {
			if (held__find(held, nr_held, x86->operands[1].reg, l) >= 0)
				lane = l;
		}
		if (lane < 0)
			return false;
		si->vaddr = insn[i + 1].address;
		si->value = NULL;
		si->store_value = NULL;
	} else {
		return false;
	}
	si->op = REFCNT_SLOT__STORE;
	si->store = insn[i].address;
	si->static_word = dst->mem.base == X86_REG_RIP;
	if (si->static_word) {
		/* the probe's %ip is not the store's: the word's own address */
		si->base = "%ip";
		si->disp = insn[i].address + insn[i].size + dst->mem.disp;
		si->frame = false;
		return true;
	}
	si->base = slot__base(dst->mem.base);
	si->disp = dst->mem.disp + (lane > 0 ? 8 : 0);
	si->frame = slot__frame(dst->mem.base, si->disp);
	return true;
}

/*
 * Where @insn copies what holds the reference to, into @add (up to 2): a
 * mov to a register, a movq to an xmm's low lane, punpcklqdq's low lane
 * to the high one, an xmm copy. Returns how many.
 */
static size_t slot__held_copies(const cs_insn *insn, const struct slot_held *held,
				size_t nr_held, struct slot_held *add)
{
	const cs_x86 *x86 = &insn->detail->x86;
	x86_reg dst, src, dst64;
	size_t nr = 0;
	bool src_held;

	if (x86->op_count != 2 || x86->operands[0].type != X86_OP_REG ||
	    x86->operands[1].type != X86_OP_REG)
		return 0;
	dst = x86->operands[0].reg;
	src = x86->operands[1].reg;
	dst64 = op__reg64(&x86->operands[0]);
	src_held = held__find(held, nr_held, op__reg64(&x86->operands[1]), 0) >= 0;
	switch (insn->id) {
	case X86_INS_MOV:
		if (src_held && dst64 != X86_REG_INVALID)
			add[nr++] = (struct slot_held){ dst64, 0 };
		break;
	case X86_INS_MOVQ:
		if (src_held && reg__xmm(dst))
			add[nr++] = (struct slot_held){ dst, 0 };
		break;
	case X86_INS_PUNPCKLQDQ:
		if (reg__xmm(dst) && held__find(held, nr_held, dst, 0) >= 0)
			add[nr++] = (struct slot_held){ dst, 0 };
		if (reg__xmm(dst) && held__find(held, nr_held, src, 0) >= 0)
			add[nr++] = (struct slot_held){ dst, 1 };
		break;
	case X86_INS_MOVDQA: case X86_INS_MOVAPS:
		for (u8 l = 0; reg__xmm(dst) && l < 2; l++) {
			if (held__find(held, nr_held, src, l) >= 0)
				add[nr++] = (struct slot_held){ dst, l };
		}
		break;
	default:
		break;
	}
	return nr;
}

/*
 * What @insn does to what holds the reference: its copies hold it too;
 * anything else a register is written by loses it.
 */
static void slot__held_move(csh handle, const cs_insn *insn, struct slot_held *held,
			    size_t *nr_held, size_t max)
{
	struct slot_held add[2];
	size_t nr_add = slot__held_copies(insn, held, *nr_held, add);

	for (size_t h = 0; h < *nr_held;) {
		if (refcnt_x86_insn_writes(handle, insn, held[h].reg))
			held[h] = held[--*nr_held];
		else
			h++;
	}
	for (size_t a = 0; a < nr_add && *nr_held < max; a++)
		held[(*nr_held)++] = add[a];
}

/*
 * After the call returning at @insn[0]: the first store of %rax, or of a
 * register it was moved to, into a slot. Nothing before it may branch.
 */
static bool slot__store_after(csh handle, const cs_insn *insn, size_t n, x86_reg reg,
			      struct refcnt_slot_insn *si)
{
	struct slot_held held[2 * SLOT_INSNS + 1] = { { reg, 0 } };
	size_t nr_held = 1;

	for (size_t i = 0; i < n && i < SLOT_INSNS && nr_held; i++) {
		if (slot_insn__branches(handle, &insn[i]))
			return false;
		if (slot__held_store(insn, i, n, held, nr_held, si))
			return true;
		slot__held_move(handle, &insn[i], held, &nr_held, ARRAY_SIZE(held));
	}
	return false;
}

/* A conditional jump forward past @call: a NULL check that skips it. */
static bool slot_insn__skips(csh handle, const cs_insn *insn, const cs_insn *call)
{
	const cs_x86 *x86 = &insn->detail->x86;

	return cs_insn_group(handle, insn, X86_GRP_JUMP) && insn->id != X86_INS_JMP &&
	       x86->op_count == 1 && x86->operands[0].type == X86_OP_IMM &&
	       (u64)x86->operands[0].imm > call->address;
}

/*
 * Before the call at @insn[@call]: the load of its first argument (%rdi,
 * or a register moved to it) from a slot. Nothing between may branch but
 * a conditional jump past the call (if (map) map__put(map)), and then
 * only where the load is probed at the call: the event says the call ran.
 */
static bool slot__load_before(csh handle, const cs_insn *insn, size_t call,
			      struct refcnt_slot_insn *si)
{
	x86_reg want = X86_REG_RDI;
	bool skips = false;

	for (size_t k = 1; k <= call && k <= SLOT_INSNS; k++) {
		const cs_insn *in = &insn[call - k];
		const cs_x86 *x86 = &in->detail->x86;

		if (slot_insn__skips(handle, in, &insn[call])) {
			skips = true;
			continue;
		}
		if (slot_insn__branches(handle, in))
			return false;
		if (!refcnt_x86_insn_writes(handle, in, want))
			continue;
		if (in->id != X86_INS_MOV || x86->op_count != 2 ||
		    op__reg64(&x86->operands[0]) != want)
			return false;
		if (op__static_word(&x86->operands[1])) {
			/* a static variable's word: its address, whatever the probe's %ip */
			si->op = REFCNT_SLOT__LOAD;
			si->load = in->address;
			si->vaddr = insn[call].address;
			si->base = "%ip";
			si->disp = in->address + in->size + x86->operands[1].mem.disp;
			si->static_word = true;
			si->value = "%di";
			return true;
		}
		if (op__slot(&x86->operands[1])) {
			x86_reg base = x86->operands[1].mem.base;
			bool kept = true;

			/* the base still the slot's at the call: probe the call */
			for (size_t j = call - k; j < call && kept; j++)
				kept = !refcnt_x86_insn_writes(handle, &insn[j], base);
			if (skips && !kept)
				return false;
			si->op = REFCNT_SLOT__LOAD;
			si->load = in->address;
			si->vaddr = kept ? insn[call].address : in->address;
			si->base = slot__base(base);
			si->disp = x86->operands[1].mem.disp;
			si->value = kept ? "%di" : NULL;
			return true;
		}
		want = op__reg64(&x86->operands[1]);
		if (want == X86_REG_INVALID)
			return false;
	}
	return false;
}

/*
 * Does @insn restore the caller's frame pointer (pop %rbp, leave)? An
 * indirect jump right after it leaves the function (a tail call through a
 * pointer: ops->free(he) in hist_entry__delete()); a switch's jump table
 * jumps with the frame still there (perf builds with frame pointers).
 */
static bool slot_insn__leaves(const cs_insn *insn)
{
	const cs_x86 *x86 = &insn->detail->x86;

	if (insn->id == X86_INS_LEAVE)
		return true;
	return insn->id == X86_INS_POP && x86->op_count == 1 &&
	       x86->operands[0].type == X86_OP_REG && x86->operands[0].reg == X86_REG_RBP;
}

/* Does a direct jump of the @n instructions at @insn go to @addr? */
static bool slot__jumped_to(csh handle, const cs_insn *insn, size_t n, u64 addr)
{
	for (size_t i = 0; i < n; i++) {
		const cs_x86 *x86 = &insn[i].detail->x86;

		if (cs_insn_group(handle, &insn[i], X86_GRP_JUMP) && x86->op_count == 1 &&
		    x86->operands[0].type == X86_OP_IMM && (u64)x86->operands[0].imm == addr)
			return true;
	}
	return false;
}

/*
 * Can code reach (@lo, @hi] other than by falling through from @lo: a
 * direct jump into it, or an indirect one anywhere (a jump table), except
 * one that leaves the function (slot_insn__leaves(), and no path comes to
 * it but through the frame's restore)?
 */
static bool slot__entered(csh handle, const cs_insn *insn, size_t n, u64 lo, u64 hi)
{
	for (size_t i = 0; i < n; i++) {
		const cs_x86 *x86 = &insn[i].detail->x86;

		if (!cs_insn_group(handle, &insn[i], X86_GRP_JUMP))
			continue;
		if (x86->op_count != 1 || x86->operands[0].type != X86_OP_IMM) {
			if (i && slot_insn__leaves(&insn[i - 1]) &&
			    !slot__jumped_to(handle, insn, n, insn[i].address))
				continue;
			return true;
		}
		if ((u64)x86->operands[0].imm > lo && (u64)x86->operands[0].imm <= hi)
			return true;
	}
	return false;
}

/*
 * Does the kernel emulate @insn when a uprobe sits on it (a call or a jump
 * to an immediate target, no operand-size prefix: arch/x86's
 * branch_setup_xol_ops()), rather than single-step a copy of it?
 */
static bool slot_insn__emulated(const cs_insn *insn)
{
	const u8 *b = insn->bytes;

	if (b[0] == 0xe8 || b[0] == 0xe9 || b[0] == 0xeb || (b[0] >= 0x70 && b[0] <= 0x7f))
		return true;
	return insn->size >= 2 && b[0] == 0x0f && b[1] >= 0x80 && b[1] <= 0x8f;
}

/*
 * Can @insn write memory? A memory destination does (capstone 4 says
 * "read" of some: movups, movq, lock cmpxchg), but for the few that only
 * read it; so does a written memory operand elsewhere, and the stores
 * whose memory is implicit.
 */
static bool slot_insn__writes_memory(csh handle, const cs_insn *insn)
{
	const cs_x86 *x86 = &insn->detail->x86;

	switch (insn->id) {
	case X86_INS_STOSB: case X86_INS_STOSW: case X86_INS_STOSD: case X86_INS_STOSQ:
	case X86_INS_MOVSB: case X86_INS_MOVSW: case X86_INS_MOVSD: case X86_INS_MOVSQ:
	case X86_INS_MASKMOVDQU:
		return true;
	case X86_INS_LEA: case X86_INS_CMP: case X86_INS_TEST: case X86_INS_NOP:
	case X86_INS_PREFETCH: case X86_INS_PREFETCHNTA: case X86_INS_PREFETCHT0:
	case X86_INS_PREFETCHT1: case X86_INS_PREFETCHT2: case X86_INS_PREFETCHW:
		return false;
	default:
		break;
	}
	for (u8 i = 0; i < x86->op_count; i++) {
		if (x86->operands[i].type == X86_OP_MEM &&
		    (i == 0 || !x86->operands[i].access ||
		     (x86->operands[i].access & CS_AC_WRITE)))
			return true;
	}
	/* and pushes */
	return refcnt_x86_insn_writes(handle, insn, X86_REG_RSP);
}

/* The register a slot's base names ("%sp" is the stack pointer, "%ip" %rip). */
static x86_reg slot__base_reg(const char *base)
{
	if (!strcmp(base, "%sp"))
		return X86_REG_RSP;
	if (!strcmp(base, "%ip"))
		return X86_REG_RIP;
	for (int i = X86_REG_INVALID + 1; i < X86_REG_ENDING; i++) {
		if (refcnt_x86_reg_name(i) && !strcmp(refcnt_x86_reg_name(i), base))
			return i;
	}
	return X86_REG_INVALID;
}

/*
 * A store at @insn[@s] probed on the first instruction after it that the
 * kernel emulates, reading the slot there: no single step. Only if nothing
 * between writes memory or the slot's base or branches, and no jump enters
 * after the store.
 */
static void slot__defer_store(csh handle, const cs_insn *insn, size_t n, size_t s,
			      struct refcnt_slot_insn *si)
{
	x86_reg base = slot__base_reg(si->base);
	bool frame_gone = false;

	for (size_t j = s + 1; j < n && j <= s + SLOT_INSNS && base != X86_REG_INVALID; j++) {
		if (slot_insn__emulated(&insn[j])) {
			if (slot__entered(handle, insn, n, insn[s].address, insn[j].address))
				return;
			si->vaddr = insn[j].address;
			si->value = NULL;
			si->emulated = true;
			si->frame_gone = frame_gone;
			return;
		}
		/* a leave before a jump out: the frame pointer is the caller's there */
		frame_gone |= refcnt_x86_insn_writes(handle, &insn[j], X86_REG_RBP);
		if (slot_insn__branches(handle, &insn[j]) ||
		    refcnt_x86_insn_writes(handle, &insn[j], base) ||
		    slot_insn__writes_memory(handle, &insn[j]))
			return;
	}
}

/* The index of the instruction at @vaddr in @insn, from @from on; @n if none. */
static size_t slot__index(const cs_insn *insn, size_t n, size_t from, u64 vaddr)
{
	while (from < n && insn[from].address != vaddr)
		from++;
	return from;
}

static int slot__call(csh handle, const cs_insn *insn, size_t n, size_t i,
		      int (*kind)(u64 target, void *arg),
		      int (*found)(u64 target, const struct refcnt_slot_insn *si, void *arg),
		      void *arg)
{
	const cs_x86 *x86 = &insn[i].detail->x86;
	struct refcnt_slot_insn si = { .op = REFCNT_SLOT__NONE };
	u64 target;

	if (insn[i].id != X86_INS_CALL || x86->op_count != 1 ||
	    x86->operands[0].type != X86_OP_IMM)
		return 0;
	target = x86->operands[0].imm;
	switch (kind(target, arg)) {
	case REFCNT_SLOT__STORE:
		if (i + 1 >= n ||
		    !slot__store_after(handle, &insn[i + 1], n - i - 1, X86_REG_RAX, &si) ||
		    slot__entered(handle, insn, n, insn[i].address, si.vaddr)) {
			si.op = REFCNT_SLOT__NONE;
			break;
		}
		slot__defer_store(handle, insn, n, slot__index(insn, n, i + 1, si.store), &si);
		break;
	case REFCNT_SLOT__LOAD:
		/* from the load on, whether probed there or at the call */
		if (slot__load_before(handle, insn, i, &si) &&
		    slot__entered(handle, insn, n, si.load, insn[i].address))
			si.op = REFCNT_SLOT__NONE;
		break;
	default:
		return 0;
	}
	if (si.op == REFCNT_SLOT__NONE)
		return 0;
	si.call = insn[i].address + insn[i].size;
	return found(target, &si, arg);
}

/* Does @insn store to the word @mem names (the same base and displacement)? */
static bool slot_insn__stores_to(const cs_insn *insn, const cs_x86_op *mem)
{
	const cs_x86 *x86 = &insn->detail->x86;

	return insn->id == X86_INS_MOV && x86->op_count == 2 &&
	       x86->operands[0].type == X86_OP_MEM &&
	       x86->operands[0].mem.base == mem->mem.base &&
	       x86->operands[0].mem.index == X86_REG_INVALID &&
	       x86->operands[0].mem.disp == mem->mem.disp;
}

/*
 * Is the word @insn[@load] read from stored to in straight code after it,
 * before its base changes, up to a few instructions past the copy at
 * @insn[@copy]: a move (the source cleared), not a second pointer?
 */
static bool slot__moved(csh handle, const cs_insn *insn, size_t n, size_t load, size_t copy)
{
	const cs_x86_op *src = &insn[load].detail->x86.operands[1];

	for (size_t k = load + 1; k < n && k <= copy + SLOT_INSNS; k++) {
		if (k != copy && slot_insn__stores_to(&insn[k], src))
			return true;
		if (slot_insn__branches(handle, &insn[k]) ||
		    refcnt_x86_insn_writes(handle, &insn[k], src->mem.base))
			return false;
	}
	return false;
}

/* Is @insn a locked instruction on the object @reg points to (an inlined get)? */
static bool slot_insn__counts(const cs_insn *insn, x86_reg reg)
{
	const cs_x86 *x86 = &insn->detail->x86;

	for (int o = 0; x86->prefix[0] == X86_PREFIX_LOCK && o < x86->op_count; o++) {
		if (x86->operands[o].type == X86_OP_MEM &&
		    refcnt_x86_reg64(x86->operands[o].mem.base) == reg)
			return true;
	}
	return false;
}

/*
 * Is the pointer in @reg, stored at @insn[@i], counted right after: a
 * locked instruction on its object (an inlined get), or a call it is the
 * first argument of (a get), before the code branches?
 */
static bool slot__counted_after(csh handle, const cs_insn *insn, size_t n, size_t i, x86_reg reg)
{
	x86_reg arg = reg == X86_REG_RDI ? X86_REG_RDI : X86_REG_INVALID;

	for (size_t k = i + 1; k < n && k <= i + SLOT_INSNS; k++) {
		const cs_x86 *x86 = &insn[k].detail->x86;

		if (cs_insn_group(handle, &insn[k], X86_GRP_CALL))
			return arg == X86_REG_RDI;
		if (slot_insn__branches(handle, &insn[k]))
			return false;
		if (slot_insn__counts(&insn[k], reg))
			return true;
		if (insn[k].id == X86_INS_MOV && x86->op_count == 2 &&
		    op__reg64(&x86->operands[0]) == X86_REG_RDI)
			arg = op__reg64(&x86->operands[1]) == reg ? X86_REG_RDI : X86_REG_INVALID;
		else if (refcnt_x86_insn_writes(handle, &insn[k], X86_REG_RDI))
			arg = X86_REG_INVALID;
		if (refcnt_x86_insn_writes(handle, &insn[k], reg))
			return false;
	}
	return false;
}

/* @si: the copy stored at @insn[@i] from @reg, which @insn[@load] read from another word. */
static void slot__copy_fill(const cs_insn *insn, size_t i, size_t load, x86_reg reg,
			    struct refcnt_slot_insn *si)
{
	const cs_x86_op *dst = &insn[i].detail->x86.operands[0];

	memset(si, 0, sizeof(*si));
	si->op = REFCNT_SLOT__COPY;
	si->vaddr = insn[i].address;
	si->store = insn[i].address;
	si->call = insn[i].address;
	si->load = insn[load].address;
	si->value = refcnt_x86_reg_name(reg);
	si->store_value = si->value;
	si->base = slot__base(dst->mem.base);
	si->disp = dst->mem.disp;
	si->frame = slot__frame(dst->mem.base, si->disp);
}

/*
 * Is @insn[@i] a copy of a pointer, in @reg, from one word of memory to
 * another, neither a local of the frame (refcnt_slot_where: a local is
 * not followed): a store whose register the instructions just before
 * loaded from the other word, with no call, branch or locked instruction
 * (an inlined get) between, no jump into them, the word not cleared
 * after (a move) and the pointer not counted right after? Then @si.
 */
static bool slot__copy_at(csh handle, const cs_insn *insn, size_t n, size_t i, x86_reg reg,
			  struct refcnt_slot_insn *si)
{
	const cs_x86 *x86 = &insn[i].detail->x86;
	const cs_x86_op *dst = &x86->operands[0], *src;
	size_t j = i;

	if (insn[i].id != X86_INS_MOV || x86->op_count != 2 || !op__slot(dst) ||
	    op__reg64(&x86->operands[1]) != reg || refcnt_x86_reg64(dst->mem.base) == reg ||
	    slot__frame(dst->mem.base, dst->mem.disp))
		return false;
	while (j-- > 0 && i - j <= SLOT_INSNS) {
		const cs_insn *in = &insn[j];

		if (slot_insn__branches(handle, in) || in->detail->x86.prefix[0] == X86_PREFIX_LOCK)
			return false;
		if (refcnt_x86_insn_writes(handle, in, reg))
			break;
	}
	if (j == (size_t)-1 || i - j > SLOT_INSNS || insn[j].id != X86_INS_MOV ||
	    insn[j].detail->x86.op_count != 2 ||
	    op__reg64(&insn[j].detail->x86.operands[0]) != reg)
		return false;
	src = &insn[j].detail->x86.operands[1];
	if (!op__slot(src) || slot__frame(src->mem.base, src->mem.disp) ||
	    (src->mem.base == dst->mem.base && src->mem.disp == dst->mem.disp) ||
	    slot__entered(handle, insn, n, insn[j].address, insn[i].address) ||
	    slot__moved(handle, insn, n, j, i) || slot__counted_after(handle, insn, n, i, reg))
		return false;
	slot__copy_fill(insn, i, j, reg, si);
	return true;
}

/* A register a call leaves as it was (the x86-64 SysV ABI's callee-saved). */
static bool reg__callee_saved(x86_reg reg)
{
	static const x86_reg saved[] = {
		X86_REG_RBX, X86_REG_RBP, X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15,
	};

	for (size_t i = 0; i < ARRAY_SIZE(saved); i++) {
		if (saved[i] == reg)
			return true;
	}
	return false;
}

/*
 * The one instruction of the function (@n instructions) that writes @reg,
 * but for a prologue's save and an epilogue's restore (a pop of a register
 * the function pushes): its index, or @n if none or more than one (whose
 * value the register holds where is not known then).
 */
static size_t slot__only_write(csh handle, const cs_insn *insn, size_t n, x86_reg reg)
{
	bool saved = false;
	size_t def = n;

	for (size_t k = 0; k < n && !saved; k++) {
		const cs_x86 *x86 = &insn[k].detail->x86;

		saved = insn[k].id == X86_INS_PUSH && x86->op_count == 1 &&
			op__reg64(&x86->operands[0]) == reg;
	}
	for (size_t k = 0; k < n; k++) {
		if ((insn[k].id == X86_INS_POP && saved) ||
		    !refcnt_x86_insn_writes(handle, &insn[k], reg))
			continue;
		if (def < n)
			return n;
		def = k;
	}
	return def;
}

/* A locked instruction on the object @reg points to (an inlined get) in [@from, @to)? */
static bool slot__counted_between(const cs_insn *insn, size_t from, size_t to, x86_reg reg)
{
	for (size_t k = from; k < to; k++) {
		if (slot_insn__counts(&insn[k], reg))
			return true;
	}
	return false;
}

/*
 * Does the function store to the word @src names, or take its address
 * (zfree(&s->p)): a move of what it read from there, not a second pointer?
 * Only the same base register and displacement are told.
 */
static bool slot__word_touched(const cs_insn *insn, size_t n, const cs_x86_op *src)
{
	for (size_t k = 0; k < n; k++) {
		const cs_x86 *x86 = &insn[k].detail->x86;

		if (slot_insn__stores_to(&insn[k], src) ||
		    (insn[k].id == X86_INS_LEA && x86->op_count == 2 &&
		     x86->operands[1].type == X86_OP_MEM &&
		     x86->operands[1].mem.base == src->mem.base &&
		     x86->operands[1].mem.disp == src->mem.disp))
			return true;
	}
	return false;
}

/*
 * Is @insn[@i] a store of a pointer that a local keeps in callee-saved
 * register @reg across calls (DWARF says a variable of an audited pointer
 * type is there), loaded from another word of memory by the one
 * instruction of the function that writes @reg, before the store: a
 * borrowed pointer kept, with no get of its own (al->maps = maps, where
 * maps = thread__maps(thread) at the top)? Into a struct of its own frame
 * too (@si->frame), which its exit may put (node_al.map = map, then
 * addr_location__exit(&node_al)). Not if a locked instruction on
 * its object (an inlined get) lies between, the function touches the word
 * it was loaded from (a move), or the pointer is counted right after the
 * store. Then @si.
 */
static bool slot__kept_copy_at(csh handle, const cs_insn *insn, size_t n, size_t i, x86_reg reg,
			       struct refcnt_slot_insn *si)
{
	const cs_x86 *x86 = &insn[i].detail->x86;
	const cs_x86_op *dst = &x86->operands[0], *src;
	size_t def;

	if (!reg__callee_saved(reg) || reg == X86_REG_RBP || insn[i].id != X86_INS_MOV ||
	    x86->op_count != 2 || !op__slot(dst) || op__reg64(&x86->operands[1]) != reg ||
	    refcnt_x86_reg64(dst->mem.base) == reg)
		return false;
	def = slot__only_write(handle, insn, n, reg);
	if (def >= i || insn[def].id != X86_INS_MOV || insn[def].detail->x86.op_count != 2 ||
	    op__reg64(&insn[def].detail->x86.operands[0]) != reg)
		return false;
	src = &insn[def].detail->x86.operands[1];
	if (!op__slot(src) || slot__frame(src->mem.base, src->mem.disp) ||
	    refcnt_x86_reg64(src->mem.base) == reg ||
	    (src->mem.base == dst->mem.base && src->mem.disp == dst->mem.disp) ||
	    slot__counted_between(insn, def + 1, i, reg) || slot__word_touched(insn, n, src) ||
	    slot__counted_after(handle, insn, n, i, reg))
		return false;
	slot__copy_fill(insn, i, def, reg, si);
	return true;
}

/*
 * The copies in @range (@k of the ranges) of the function's @n
 * instructions, each to @found: a setter's first, a kept local's every one.
 */
static int slot__copies_in_range(csh handle, const cs_insn *insn, size_t n,
				 const struct refcnt_slot_range *range, size_t k,
				 int (*found)(size_t range, const struct refcnt_slot_insn *si,
					      void *arg),
				 void *arg)
{
	x86_reg r = slot__base_reg(range->reg);
	struct refcnt_slot_insn si;
	int err = 0;

	if (r == X86_REG_INVALID || r == X86_REG_RSP)
		return 0;
	for (size_t i = 0; i < n && !err; i++) {
		if (insn[i].address < range->lo || insn[i].address >= range->hi)
			continue;
		if (range->kept ? slot__kept_copy_at(handle, insn, n, i, r, &si) :
				  slot__copy_at(handle, insn, n, i, r, &si)) {
			err = found(k, &si, arg);
			if (!range->kept)
				break;
		}
	}
	return err;
}

/*
 * Decode @size bytes of x86-64 @code at @start, at most @count instructions
 * (0: all), with their details: how many, and the handle open (0 if none
 * could be decoded: nothing is open then).
 */
static size_t slot__decode(const u8 *code, size_t size, u64 start, size_t count,
			   csh *handle, cs_insn **insn)
{
	size_t n;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, handle) != CS_ERR_OK)
		return 0;
	cs_option(*handle, CS_OPT_DETAIL, CS_OPT_ON);
	n = cs_disasm(*handle, code, size, start, count, insn);
	if (!n)
		cs_close(handle);
	return n;
}

static void slot__decoded_free(csh *handle, cs_insn *insn, size_t n)
{
	cs_free(insn, n);
	cs_close(handle);
}

/*
 * A whole function, @n instructions from @start, decoded to its end
 * (@size bytes)? What capstone could not decode may jump anywhere.
 */
static bool slot__decoded_whole(const cs_insn *insn, size_t n, u64 start, size_t size)
{
	return n && insn[n - 1].address + insn[n - 1].size == start + size;
}

int refcnt_slot__copies(const u8 *code, size_t size, u64 start,
			const struct refcnt_slot_range *ranges, size_t nr,
			int (*found)(size_t range, const struct refcnt_slot_insn *si, void *arg),
			void *arg)
{
	cs_insn *insn;
	csh handle;
	size_t n = slot__decode(code, size, start, 0, &handle, &insn);
	int err = 0;

	for (size_t k = 0; slot__decoded_whole(insn, n, start, size) && k < nr && !err; k++) {
		if (ranges[k].lo >= start && ranges[k].hi <= start + size)
			err = slot__copies_in_range(handle, insn, n, &ranges[k], k, found, arg);
	}
	if (n)
		slot__decoded_free(&handle, insn, n);
	return err < 0 ? err : 0;
}

static int slot__copy_first(size_t range __maybe_unused, const struct refcnt_slot_insn *si,
			    void *arg)
{
	*(struct refcnt_slot_insn *)arg = *si;
	return 1;
}

bool refcnt_slot__copy_in(const u8 *code, size_t size, u64 start, u64 lo, u64 hi,
			  const char *reg, struct refcnt_slot_insn *si)
{
	const struct refcnt_slot_range range = { .lo = lo, .hi = hi, .reg = reg };

	si->op = REFCNT_SLOT__NONE;
	refcnt_slot__copies(code, size, start, &range, 1, slot__copy_first, si);
	return si->op == REFCNT_SLOT__COPY;
}

/*
 * @scan on the first @insns instructions of the @size bytes of @code at
 * @vaddr, for the pointer in register @reg (a uprobe name): @si is all
 * zero if it finds nothing.
 */
static bool slot__scan_reg(const u8 *code, size_t size, u64 vaddr, const char *reg,
			   size_t insns,
			   bool (*scan)(csh handle, const cs_insn *insn, size_t n, x86_reg reg,
					struct refcnt_slot_insn *si),
			   struct refcnt_slot_insn *si)
{
	x86_reg r = slot__base_reg(reg);
	bool found = false;
	cs_insn *insn;
	csh handle;
	size_t n;

	memset(si, 0, sizeof(*si));
	if (r == X86_REG_INVALID || r == X86_REG_RSP)
		return false;
	n = slot__decode(code, min_t(size_t, size, insns * 15), vaddr, insns, &handle, &insn);
	if (n) {
		found = scan(handle, insn, n, r, si);
		slot__decoded_free(&handle, insn, n);
	}
	if (!found)
		memset(si, 0, sizeof(*si));
	return found;
}

bool refcnt_slot__store_from(const u8 *code, size_t size, u64 vaddr, const char *reg,
			     struct refcnt_slot_insn *si)
{
	return slot__scan_reg(code, size, vaddr, reg, SLOT_INSNS, slot__store_after, si);
}

/* How far from its entry a setter's store may be, in instructions */
#define SLOT_PARAM_INSNS	32

/*
 * How @insn moves the stack pointer down (a push, a subtraction of a
 * constant): @depth grows by that; false if it writes it otherwise (an
 * alignment, a pop, a leave), where the depth is lost.
 */
static bool slot_insn__depth(csh handle, const cs_insn *insn, long *depth)
{
	const cs_x86 *x86 = &insn->detail->x86;

	if (insn->id == X86_INS_PUSH) {
		*depth += 8;
		return true;
	}
	if (insn->id == X86_INS_SUB && x86->op_count == 2 &&
	    x86->operands[0].type == X86_OP_REG && x86->operands[0].reg == X86_REG_RSP &&
	    x86->operands[1].type == X86_OP_IMM && x86->operands[1].imm >= 0) {
		*depth += x86->operands[1].imm;
		return true;
	}
	return !refcnt_x86_insn_writes(handle, insn, X86_REG_RSP);
}

/* After a call, only the callee-saved registers still hold what they held. */
static void held__call(struct slot_held *held, size_t *nr_held)
{
	for (size_t h = 0; h < *nr_held;) {
		if (!reg__callee_saved(held[h].reg))
			held[h] = held[--*nr_held];
		else
			h++;
	}
}

/*
 * Is the store at @insn's base a pointer the function was passed (@args:
 * the argument registers at its entry, and where it moved them), not the
 * one it stores (@held): a member of a struct its caller gave it, not an
 * array's entry, a local or the object itself?
 */
static bool slot__param_base(const cs_insn *insn, const struct slot_held *args, size_t nr_args,
			     const struct slot_held *held, size_t nr_held)
{
	x86_reg base = refcnt_x86_reg64(insn->detail->x86.operands[0].mem.base);

	return held__find(args, nr_args, base, 0) >= 0 && held__find(held, nr_held, base, 0) < 0;
}

static bool slot__param_store(csh handle, const cs_insn *insn, size_t n, x86_reg reg,
			      struct refcnt_slot_insn *si)
{
	struct slot_held held[2 * SLOT_PARAM_INSNS + 1] = { { reg, 0 } };
	struct slot_held args[2 * SLOT_PARAM_INSNS + 6] = {
		{ X86_REG_RDI, 0 }, { X86_REG_RSI, 0 }, { X86_REG_RDX, 0 },
		{ X86_REG_RCX, 0 }, { X86_REG_R8, 0 }, { X86_REG_R9, 0 },
	};
	size_t nr_held = 1, nr_args = 6;
	long depth = 0;

	for (size_t i = 0; i < n && i < SLOT_PARAM_INSNS && nr_held; i++) {
		if (cs_insn_group(handle, &insn[i], X86_GRP_CALL)) {
			held__call(held, &nr_held);
			held__call(args, &nr_args);
			continue;
		}
		if (slot_insn__branches(handle, &insn[i]))
			return false;
		if (slot__held_store(insn, i, n, held, nr_held, si) && !si->frame &&
		    !si->static_word && si->vaddr == insn[i].address &&
		    slot__param_base(&insn[i], args, nr_args, held, nr_held)) {
			si->op = REFCNT_SLOT__PARAM;
			si->call = si->store;
			si->ret_depth = depth;
			return true;
		}
		if (!slot_insn__depth(handle, &insn[i], &depth))
			return false;
		slot__held_move(handle, &insn[i], held, &nr_held, ARRAY_SIZE(held));
		slot__held_move(handle, &insn[i], args, &nr_args, ARRAY_SIZE(args));
	}
	return false;
}

bool refcnt_slot__param_store(const u8 *code, size_t size, u64 vaddr, const char *reg,
			      struct refcnt_slot_insn *si)
{
	return slot__scan_reg(code, size, vaddr, reg, SLOT_PARAM_INSNS, slot__param_store, si);
}

int refcnt_slot__scan(const u8 *code, size_t size, u64 start,
		      int (*kind)(u64 target, void *arg),
		      int (*found)(u64 target, const struct refcnt_slot_insn *si, void *arg),
		      void *arg)
{
	cs_insn *insn;
	csh handle;
	size_t n = slot__decode(code, size, start, 0, &handle, &insn);
	int err = 0;

	for (size_t i = 0; slot__decoded_whole(insn, n, start, size) && i < n && !err; i++)
		err = slot__call(handle, insn, n, i, kind, found, arg);
	if (n)
		slot__decoded_free(&handle, insn, n);
	return err < 0 ? err : 0;
}
#else
int refcnt_slot__copies(const u8 *code __maybe_unused, size_t size __maybe_unused,
			u64 start __maybe_unused,
			const struct refcnt_slot_range *ranges __maybe_unused,
			size_t nr __maybe_unused,
			int (*found)(size_t range, const struct refcnt_slot_insn *si,
				     void *arg) __maybe_unused,
			void *arg __maybe_unused)
{
	return 0;
}

bool refcnt_slot__copy_in(const u8 *code __maybe_unused, size_t size __maybe_unused,
			  u64 start __maybe_unused, u64 lo __maybe_unused, u64 hi __maybe_unused,
			  const char *reg __maybe_unused,
			  struct refcnt_slot_insn *si __maybe_unused)
{
	return false;
}

bool refcnt_slot__store_from(const u8 *code __maybe_unused, size_t size __maybe_unused,
			     u64 vaddr __maybe_unused, const char *reg __maybe_unused,
			     struct refcnt_slot_insn *si __maybe_unused)
{
	return false;
}

bool refcnt_slot__param_store(const u8 *code __maybe_unused, size_t size __maybe_unused,
			      u64 vaddr __maybe_unused, const char *reg __maybe_unused,
			      struct refcnt_slot_insn *si __maybe_unused)
{
	return false;
}

int refcnt_slot__scan(const u8 *code __maybe_unused, size_t size __maybe_unused,
		      u64 start __maybe_unused,
		      int (*kind)(u64 target, void *arg) __maybe_unused,
		      int (*found)(u64 target, const struct refcnt_slot_insn *si,
				   void *arg) __maybe_unused,
		      void *arg __maybe_unused)
{
	return 0;
}
#endif
