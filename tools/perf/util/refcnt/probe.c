// SPDX-License-Identifier: GPL-2.0
/*
 * Resolve and install the uprobes of perf refcnt.
 *
 * Out-of-line functions come from the ELF symbol table: an entry probe
 * fetches the object from the first argument register and the call site
 * from the return address on the stack; a return probe (born) fetches the
 * returned object. Inlined copies come from DWARF (DW_TAG_inlined_subroutine
 * whose origin is a spec function): the object is the copy's first formal
 * parameter, fetched where its location is a general register or memory.
 * perf probe stops at the first copy whose parameter lives elsewhere (e.g.
 * an SSE register), and probes one function at a time; this walks DWARF
 * once for all functions and picks, per copy, the first address of the
 * copy where the pointer can be fetched, so no copy is left out silently.
 */
#include <ctype.h>
#include <dirent.h>
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdw.h>
#ifdef HAVE_LIBCAPSTONE_SUPPORT
#include <capstone/capstone.h>
#endif
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/zalloc.h>
#include <dwarf-regs.h>

#include "../debug.h"
#include "../debuginfo.h"
#include "../dwarf-aux.h"
#include "../probe-event.h"
#include "../probe-file.h"
#include "../strlist.h"
#include "handoff.h"
#include "probe.h"
#include "slot_code.h"

/*
 * What an entry uprobe fetches, per ELF machine, as DWARF register numbers
 * that perf's own tables name (get_dwarf_regstr(), arch/<arch>/util): the
 * object is the first argument, and the call site is the return address
 * at the top of the stack. Another architecture is one more row, once its
 * return address is found (arm64 keeps it in x30, not on the stack) and
 * resolver__refcnt_access() reads its instructions.
 */
struct refcnt_arch {
	u16		e_machine;
	const char	*name;
	unsigned int	arg0;		/* the first argument's register */
	unsigned int	sp;		/* the stack pointer */
};

static const struct refcnt_arch refcnt_archs[] = {
	{ EM_X86_64, "x86_64", /* %di */ 5, /* %sp */ 7 },
};

/* A spec function, looked up by name while walking ELF and DWARF. */
struct refcnt_func {
	const char	*name;
	u8		type;
	u8		op;
	bool		found;
	u64		start, end;	/* its out-of-line body, if any */
};

/*
 * An inlined copy of a function that is passed a pointer to an audited
 * type in a register, or a local variable of that type that a function
 * keeps in one, and may store it (slot_code.h: REFCNT_SLOT__COPY).
 */
struct refcnt_setter {
	struct refcnt_slot_range range;	/* its code where the pointer is in a register */
	u64		start, end;	/* the function it is inlined in */
	u8		type;
};

/*
 * A function out of line that is passed a pointer to an audited type in a
 * register at its entry, and may store it (REFCNT_SLOT__PARAM: a setter).
 */
struct refcnt_param {
	u64		start, end;	/* the function */
	const char	*reg;		/* a uprobe name: where the pointer is at @start */
	u8		type;
};

struct refcnt_resolver {
	struct refcnt_probes	*rp;
	struct refcnt_func	*funcs;
	int			nr_funcs;
	int			live_offset[REFCNT_TYPE__MAX_NR];
	Elf			*elf;
	GElf_Ehdr		ehdr;
	const char		*arg0_reg;	/* uprobe name of the first argument */
	Dwarf			*dwarf;
	Dwarf_CFI		*cfi;
	Dwarf_Addr		bias;
	struct strlist		*uncover;	/* functions to treat as uncovered */
	bool			at_entry;	/* move no probe: where it starts */
	/* while slots are scanned: which functions return a reference (lookups) */
	struct refcnt_handoff	*handoff;
	/* and whether the function scanned has a .cold part, which may jump back in */
	bool			scan_cold;
	/* inlined copies that may store a pointer they are passed (with slots) */
	struct refcnt_setter	*setters;
	int			nr_setters;
	/* and functions out of line that may (with slots) */
	struct refcnt_param	*params;
	int			nr_params, alloc_params;
};

static struct refcnt_func *resolver__find(struct refcnt_resolver *r, const char *name)
{
	for (int i = 0; name && i < r->nr_funcs; i++) {
		if (!strcmp(r->funcs[i].name, name))
			return &r->funcs[i];
	}
	return NULL;
}

static int resolver__init_funcs(struct refcnt_resolver *r, unsigned long type_mask)
{
	int n = 0;

	r->funcs = calloc(refcnt_type_specs__nr * REFCNT_OP__MAX * REFCNT_SPEC__MAX_FUNCS,
			  sizeof(*r->funcs));
	if (!r->funcs)
		return -ENOMEM;

	for (unsigned int t = 0; t < refcnt_type_specs__nr; t++) {
		if (!(type_mask & (1UL << t)))
			continue;
		r->live_offset[t] = -1;
		for (int op = 0; op < REFCNT_OP__MAX; op++) {
			for (int i = 0; i < REFCNT_SPEC__MAX_FUNCS; i++) {
				const char *fn = refcnt_type_specs[t].funcs[op][i];

				if (!fn)
					break;
				r->funcs[n].name = fn;
				r->funcs[n].type = t;
				r->funcs[n].op = op;
				n++;
			}
		}
	}
	r->nr_funcs = n;
	return 0;
}

static struct refcnt_probe *probes__add(struct refcnt_probe **array, int *nr)
{
	struct refcnt_probe *p = reallocarray(*array, *nr + 1, sizeof(**array));

	if (!p)
		return NULL;
	*array = p;
	p = &p[(*nr)++];
	memset(p, 0, sizeof(*p));
	p->live_offset = -1;
	return p;
}

int refcnt_elf__file_offset(Elf *elf, u64 vaddr, u64 *offset)
{
	size_t nr;

	if (elf_getphdrnum(elf, &nr))
		return -1;
	for (size_t i = 0; i < nr; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_filesz) {
			*offset = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -1;
}

static int resolver__file_offset(struct refcnt_resolver *r, u64 vaddr, u64 *offset)
{
	return refcnt_elf__file_offset(r->elf, vaddr, offset);
}

static void resolver__past_null(struct refcnt_resolver *r, struct refcnt_probe *p, u64 end);

/* Out-of-line functions: entry probes, or return probes for born. */
static int resolver__scan_symtab(struct refcnt_resolver *r)
{
	Elf_Scn *scn = NULL;
	bool has_symtab = false;

	while ((scn = elf_nextscn(r->elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		has_symtab = true;
		data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize; i++) {
			struct refcnt_func *fn;
			struct refcnt_probe *p;
			GElf_Sym sym;

			if (!gelf_getsym(data, i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    !sym.st_value || sym.st_shndx == SHN_UNDEF)
				continue;
			fn = resolver__find(r, elf_strptr(r->elf, sh.sh_link, sym.st_name));
			if (!fn)
				continue;

			p = probes__add(&r->rp->probes, &r->rp->nr);
			if (!p)
				return -ENOMEM;
			fn->found = true;
			fn->start = sym.st_value;
			fn->end = sym.st_value + sym.st_size;
			p->type = fn->type;
			p->op = fn->op;
			p->func = fn->name;
			p->vaddr = sym.st_value;
			if (fn->op == REFCNT_OP__BORN) {
				p->obj.kind = REFCNT_LOC__RETVAL;
			} else {
				p->obj.kind = REFCNT_LOC__REG;
				p->obj.reg = r->arg0_reg;
			}
			if (resolver__file_offset(r, p->vaddr, &p->offset)) {
				pr_err("%s: %s at %#" PRIx64 " is in no executable segment\n",
				       r->rp->exe, fn->name, p->vaddr);
				return -EINVAL;
			}
			resolver__past_null(r, p, fn->end);
		}
	}
	return has_symtab ? 0 : -ENOENT;
}

/*
 * Where a DWARF location expression puts a pointer, as a uprobe can fetch
 * it: a general register, or memory at a register plus an offset (the frame
 * base being the CFA, found in the CFI).
 */
static bool resolver__loc(struct refcnt_resolver *r, Dwarf_Op *ops, size_t nops,
			  Dwarf_Addr pc, struct refcnt_loc *loc)
{
	unsigned int regn;
	long offset = 0;
	const char *reg;

	if (nops != 1)
		return false;

	switch (ops[0].atom) {
	case DW_OP_reg0 ... DW_OP_reg31:
		regn = ops[0].atom - DW_OP_reg0;
		loc->kind = REFCNT_LOC__REG;
		break;
	case DW_OP_regx:
		regn = ops[0].number;
		loc->kind = REFCNT_LOC__REG;
		break;
	case DW_OP_breg0 ... DW_OP_breg31:
		regn = ops[0].atom - DW_OP_breg0;
		offset = ops[0].number;
		loc->kind = REFCNT_LOC__MEM;
		break;
	case DW_OP_fbreg: {
		Dwarf_Frame *frame = NULL;
		Dwarf_Op *cfa_ops;
		size_t cfa_nops;
		bool ok;

		/* the frame base of -O2/-O3 code is DW_OP_call_frame_cfa */
		if (!r->cfi || dwarf_cfi_addrframe(r->cfi, pc, &frame))
			return false;
		ok = !dwarf_frame_cfa(frame, &cfa_ops, &cfa_nops) && cfa_nops == 1 &&
		     cfa_ops[0].atom >= DW_OP_breg0 && cfa_ops[0].atom <= DW_OP_breg31;
		if (ok) {
			regn = cfa_ops[0].atom - DW_OP_breg0;
			offset = cfa_ops[0].number + ops[0].number;
		}
		free(frame);
		if (!ok)
			return false;
		loc->kind = REFCNT_LOC__MEM;
		break;
	}
	default:
		return false;
	}

	/* only general purpose registers can be fetched by a uprobe */
	reg = regn <= 16 ? get_dwarf_regstr(regn, r->ehdr.e_machine) : NULL;
	if (!reg || !strcmp(reg, "%ip")) {
		loc->kind = REFCNT_LOC__NONE;
		return false;
	}
	loc->reg = reg;
	loc->offset = offset;
	return true;
}

/*
 * The first address of an inlined copy where its parameter can be fetched:
 * the copy's entry if possible, else the start of the first location-list
 * range inside the copy that holds it in a register or in memory.
 */
static bool resolver__param_loc(struct refcnt_resolver *r, Dwarf_Die *inl,
				Dwarf_Die *param, Dwarf_Addr entry,
				Dwarf_Addr *pc, struct refcnt_loc *loc)
{
	Dwarf_Addr base, start, end;
	Dwarf_Attribute attr;
	ptrdiff_t off = 0;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr(param, DW_AT_location, &attr))
		return false;

	if (dwarf_getlocation_addr(&attr, entry, &ops, &nops, 1) == 1 &&
	    resolver__loc(r, ops, nops, entry, loc)) {
		*pc = entry;
		return true;
	}

	while ((off = dwarf_getlocations(&attr, off, &base, &start, &end, &ops, &nops)) > 0) {
		Dwarf_Addr at = start > entry ? start : entry;

		if (at >= end || dwarf_haspc(inl, at) != 1)
			continue;
		if (resolver__loc(r, ops, nops, at, loc)) {
			*pc = at;
			return true;
		}
	}
	return false;
}

#ifdef HAVE_LIBCAPSTONE_SUPPORT
/* The code bytes of the binary at @vaddr, up to the end of their section. */
static const u8 *resolver__code(struct refcnt_resolver *r, u64 vaddr, size_t *size)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(r->elf, scn)) != NULL) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) ||
		    vaddr < sh.sh_addr || vaddr >= sh.sh_addr + sh.sh_size)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			return NULL;
		*size = sh.sh_addr + sh.sh_size - vaddr;
		return (const u8 *)data->d_buf + (vaddr - sh.sh_addr);
	}
	return NULL;
}

/*
 * Where DWARF cannot say where the object is (an SSE register, an
 * expression such as array[i]), the copy's first access to the refcount
 * member names it: in "mov 0x28(%rcx),%edx" or "lock cmpxchg %esi,0x28(%rcx)"
 * the object is %rcx. Probe that instruction, before it runs.
 */
static bool resolver__refcnt_access(struct refcnt_resolver *r, Dwarf_Die *inl,
				    int live_offset, Dwarf_Addr *pc, struct refcnt_loc *loc)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	bool found = false;
	csh handle;

	if (live_offset < 0 || r->ehdr.e_machine != EM_X86_64 ||
	    cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK)
		return false;
	cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);

	while (!found && (off = dwarf_ranges(inl, off, &base, &start, &end)) > 0) {
		const u8 *code;
		size_t size, n;
		cs_insn *insn;

		code = resolver__code(r, start, &size);
		if (!code)
			continue;
		n = cs_disasm(handle, code, min(size, (size_t)(end - start)), start, 0, &insn);
		for (size_t i = 0; !found && i < n; i++) {
			cs_x86 *x86 = &insn[i].detail->x86;

			for (int k = 0; k < x86->op_count; k++) {
				cs_x86_op *op = &x86->operands[k];

				if (op->type != X86_OP_MEM || op->mem.disp != live_offset ||
				    op->mem.index != X86_REG_INVALID ||
				    !refcnt_x86_reg_name(op->mem.base))
					continue;
				loc->kind = REFCNT_LOC__REG;
				loc->reg = refcnt_x86_reg_name(op->mem.base);
				loc->offset = 0;
				*pc = insn[i].address;
				found = true;
				break;
			}
		}
		if (n)
			cs_free(insn, n);
	}
	cs_close(&handle);
	return found;
}

/*
 * Does @insn leave the object in register @obj and memory alone: a test or
 * a compare (flags only), or a move into another register?
 */
static bool insn__keeps(const cs_insn *insn, const char *obj)
{
	const cs_x86 *x86 = &insn->detail->x86;
	x86_reg dst;

	switch (insn->id) {
	case X86_INS_TEST:
	case X86_INS_CMP:
		return true;
	case X86_INS_MOV:
		if (x86->op_count != 2 || x86->operands[0].type != X86_OP_REG)
			return false;
		dst = refcnt_x86_reg64(x86->operands[0].reg);
		return dst != X86_REG_INVALID && refcnt_x86_reg_name(dst) &&
		       strcmp(refcnt_x86_reg_name(dst), obj);
	default:
		return false;
	}
}

/*
 * A direct jump the kernel emulates rather than single-steps
 * (branch_setup_xol_ops(): jmp and jcc, rel8 or rel32, no 0x66 prefix;
 * not loop nor jrcxz).
 */
static bool insn__emulated_jump(const cs_insn *insn)
{
	const cs_x86 *x86 = &insn->detail->x86;

	if (x86->op_count != 1 || x86->operands[0].type != X86_OP_IMM || insn->bytes[0] == 0x66)
		return false;
	switch (insn->id) {
	case X86_INS_JMP: case X86_INS_JAE: case X86_INS_JA: case X86_INS_JBE:
	case X86_INS_JB: case X86_INS_JE: case X86_INS_JGE: case X86_INS_JG:
	case X86_INS_JLE: case X86_INS_JL: case X86_INS_JNE: case X86_INS_JNO:
	case X86_INS_JNP: case X86_INS_JNS: case X86_INS_JO: case X86_INS_JP:
	case X86_INS_JS:
		return true;
	default:
		return false;
	}
}

/*
 * Can the code at @code (@size bytes at @start) reach [@lo, @hi] other than
 * by falling through: a direct jump or call into it, or any indirect jump
 * (a jump table)? Code capstone cannot decode to its end counts as yes.
 */
static bool code__jumps_into(csh handle, const u8 *code, size_t size, u64 start, u64 lo, u64 hi)
{
	cs_insn *insn;
	size_t n = cs_disasm(handle, code, size, start, 0, &insn);
	bool entered = !n || insn[n - 1].address + insn[n - 1].size != start + size;

	for (size_t i = 0; !entered && i < n; i++) {
		const cs_x86 *x86 = &insn[i].detail->x86;
		bool call = cs_insn_group(handle, &insn[i], X86_GRP_CALL);

		if (!call && !cs_insn_group(handle, &insn[i], X86_GRP_JUMP))
			continue;
		/* an indirect call returns after itself, not into the range */
		if (x86->op_count == 1 && x86->operands[0].type != X86_OP_IMM)
			entered = !call;
		else
			entered = x86->op_count != 1 || ((u64)x86->operands[0].imm >= lo &&
							 (u64)x86->operands[0].imm <= hi);
	}
	if (n)
		cs_free(insn, n);
	return entered;
}

/* code__jumps_into() of the binary's code in [@start, @end); unreadable: yes. */
static bool resolver__jumps_into(struct refcnt_resolver *r, csh handle, u64 start, u64 end,
				 u64 lo, u64 hi)
{
	size_t size;
	const u8 *code = resolver__code(r, start, &size);

	return !code || code__jumps_into(handle, code, min_t(size_t, size, end - start), start,
					 lo, hi);
}

/* resolver__jumps_into() of @addr, by any code of function @sp (DWARF). */
static bool resolver__entered_at(struct refcnt_resolver *r, csh handle, Dwarf_Die *sp, u64 addr)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;
	bool entered = false;

	while (!entered && (off = dwarf_ranges(sp, off, &base, &start, &end)) > 0)
		entered = resolver__jumps_into(r, handle, start, end, addr, addr);
	return entered || off < 0;
}

/*
 * An inlined get's probe on an instruction the kernel must single-step
 * out of line (some 16 us a hit here) moves onto the direct jump right
 * after it, which the kernel emulates (some 1 us): "test %rcx,%rcx; je"
 * (the NULL check), "mov 0x28(%rcx),%edx; jmp" (into the cmpxchg loop).
 * The event stays the same: only one instruction is passed over, one that
 * keeps the object where it is and memory as it is, so the object and the
 * live count read before the count changes are the same; the jump is the
 * copy's own (DWARF) and nothing in its function jumps to it, so it runs
 * exactly when the instruction before it does (but for a fault in that
 * one, which the get would have taken too).
 */
static void resolver__onto_branch(struct refcnt_resolver *r, struct refcnt_probe *p,
				  Dwarf_Die *inl, Dwarf_Die *sp)
{
	const u8 *code;
	cs_insn *insn;
	size_t size, n;
	csh handle;

	if (r->at_entry || p->obj.kind != REFCNT_LOC__REG || !sp ||
	    r->ehdr.e_machine != EM_X86_64 ||
	    cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK)
		return;
	cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
	code = resolver__code(r, p->vaddr, &size);
	n = code ? cs_disasm(handle, code, min_t(size_t, size, 32), p->vaddr, 2, &insn) : 0;
	if (n == 2 && insn__keeps(&insn[0], p->obj.reg) && insn__emulated_jump(&insn[1]) &&
	    dwarf_haspc(inl, insn[1].address) > 0 &&
	    !resolver__entered_at(r, handle, sp, insn[1].address) &&
	    !resolver__file_offset(r, insn[1].address, &p->offset)) {
		p->vaddr = insn[1].address;
		p->on_branch = true;
	}
	if (n)
		cs_free(insn, n);
	cs_close(&handle);
}

/* Is @insn "<mnemonic> %@a,%@b" (registers, 64-bit)? */
static bool insn__regs(const cs_insn *insn, unsigned int id, x86_reg a, x86_reg b)
{
	const cs_x86 *x86 = &insn->detail->x86;

	return insn->id == id && x86->op_count == 2 &&
	       x86->operands[0].type == X86_OP_REG && x86->operands[0].reg == a &&
	       x86->operands[1].type == X86_OP_REG && x86->operands[1].reg == b;
}

/* The kernel emulates a direct call too (branch_setup_xol_ops(): 0xe8). */
static bool insn__emulated(const cs_insn *insn)
{
	return insn__emulated_jump(insn) ||
	       (insn->id == X86_INS_CALL && insn->bytes[0] == 0xe8 && insn->size == 5);
}

/*
 * Can the probe pass over @insn: no branch, no lock, no write to the
 * object's register, to %rbp, or to memory but the frame's (%rsp, %rbp)?
 * The object and its count then read the same after it.
 */
static bool insn__passable(csh handle, const cs_insn *insn, x86_reg obj)
{
	const cs_x86 *x86 = &insn->detail->x86;

	if (cs_insn_group(handle, insn, X86_GRP_JUMP) ||
	    cs_insn_group(handle, insn, X86_GRP_CALL) ||
	    cs_insn_group(handle, insn, X86_GRP_RET) || cs_insn_group(handle, insn, X86_GRP_INT) ||
	    x86->prefix[0] == X86_PREFIX_LOCK ||
	    refcnt_x86_insn_writes(handle, insn, obj) ||
	    refcnt_x86_insn_writes(handle, insn, X86_REG_RBP))
		return false;
	for (int i = 0; i < x86->op_count; i++) {
		const cs_x86_op *op = &x86->operands[i];

		if (op->type == X86_OP_MEM && (op->access & CS_AC_WRITE) &&
		    op->mem.base != X86_REG_RSP && op->mem.base != X86_REG_RBP)
			return false;
	}
	return true;
}

/*
 * After "push %rbp; mov %rsp,%rbp", the straight code to the first
 * instruction the kernel emulates past "test %rdi,%rdi; je": its index in
 * @insn, or 0. Nothing on the way may branch, nor write the object's
 * register or %rbp.
 */
static size_t insns__past_null(csh handle, const cs_insn *insn, size_t n, x86_reg obj)
{
	bool tested = false;

	if (n < 5 || !insn__regs(&insn[1], X86_INS_MOV, X86_REG_RBP, X86_REG_RSP) ||
	    insn[0].id != X86_INS_PUSH || insn[0].detail->x86.operands[0].reg != X86_REG_RBP)
		return 0;
	for (size_t i = 2; i < n; i++) {
		if (tested) {
			if (insn[i].id != X86_INS_JE || !insn__emulated_jump(&insn[i]))
				return 0;
			/* the NULL path leaves forward, past what follows */
			if ((u64)insn[i].detail->x86.operands[0].imm <= insn[i].address)
				return 0;
			for (size_t k = i + 1; k < n; k++) {
				if (insn__emulated(&insn[k]))
					return k;
				if (!insn__passable(handle, &insn[k], obj))
					return 0;
			}
			return 0;
		}
		tested = insn__regs(&insn[i], X86_INS_TEST, obj, obj);
		if (!tested && !insn__passable(handle, &insn[i], obj))
			return 0;
	}
	return 0;
}

u64 refcnt_probe__past_null(const u8 *code, size_t size, u64 vaddr)
{
	size_t n, k = 0;
	cs_insn *insn;
	csh handle;
	u64 at = 0;

	if (cs_open(CS_ARCH_X86, CS_MODE_64, &handle) != CS_ERR_OK)
		return 0;
	cs_option(handle, CS_OPT_DETAIL, CS_OPT_ON);
	n = cs_disasm(handle, code, min_t(size_t, size, 96), vaddr, 24, &insn);
	if (n)
		k = insns__past_null(handle, insn, n, X86_REG_RDI);
	if (k && !code__jumps_into(handle, code, size, vaddr, insn[2].address, insn[k].address))
		at = insn[k].address;
	if (n)
		cs_free(insn, n);
	cs_close(&handle);
	return at;
}

/*
 * perf gets and puts NULL freely (a million puts in one perf report), and
 * a probe at the entry traps for each, though the recording filters them
 * out. Where refcnt_probe__past_null() finds the spot, the probe of a get
 * or put of [@p->vaddr, @end) moves onto it: it runs once per call on an
 * object only, and the kernel emulates it. Its fetches are the same: the
 * object is still in its register, the return address (the site) is at
 * 8(%rbp), and the frame pointer chain gives the caller that the kernel
 * adds to a callchain taken at an entry.
 */
static void resolver__past_null(struct refcnt_resolver *r, struct refcnt_probe *p, u64 end)
{
	size_t size = 0;
	const u8 *code;
	u64 at, offset;

	if (r->at_entry || (p->op != REFCNT_OP__GET && p->op != REFCNT_OP__PUT) ||
	    p->obj.kind != REFCNT_LOC__REG || strcmp(p->obj.reg, "%di") ||
	    r->ehdr.e_machine != EM_X86_64 || end <= p->vaddr)
		return;
	code = resolver__code(r, p->vaddr, &size);
	if (!code)
		return;
	at = refcnt_probe__past_null(code, min_t(u64, size, end - p->vaddr), p->vaddr);
	if (at && !resolver__file_offset(r, at, &offset)) {
		p->vaddr = at;
		p->offset = offset;
		p->past_null = true;
	}
}
#else
u64 refcnt_probe__past_null(const u8 *code __maybe_unused, size_t size __maybe_unused,
			    u64 vaddr __maybe_unused)
{
	return 0;
}

static void resolver__past_null(struct refcnt_resolver *r __maybe_unused,
				struct refcnt_probe *p __maybe_unused, u64 end __maybe_unused)
{
}

static void resolver__onto_branch(struct refcnt_resolver *r __maybe_unused,
				  struct refcnt_probe *p __maybe_unused,
				  Dwarf_Die *inl __maybe_unused, Dwarf_Die *sp __maybe_unused)
{
}

static bool resolver__refcnt_access(struct refcnt_resolver *r __maybe_unused,
				    Dwarf_Die *inl __maybe_unused,
				    int live_offset __maybe_unused,
				    Dwarf_Addr *pc __maybe_unused,
				    struct refcnt_loc *loc __maybe_unused)
{
	return false;
}
#endif

/* Does function @sp return a pointer to the structure of @type? */
static bool resolver__returns_type(Dwarf_Die *sp, u8 type)
{
	Dwarf_Die ptr;

	return die_get_real_type(sp, &ptr) && refcnt_die__pointed_type(&ptr, 1) == type;
}

/*
 * An inlined constructor has no return of its own; the function it is
 * inlined in does, and returns the new object when it returns the type
 * (cpu_map__trim_new() returns what the inlined perf_cpu_map__alloc()
 * made). Probe that return instead, once per function.
 */
static int resolver__add_outer_born(struct refcnt_resolver *r, struct refcnt_func *fn,
				    Dwarf_Die *sp, bool *added)
{
	const char *name = dwarf_diename(sp);
	struct refcnt_probe *p;
	Dwarf_Addr entry;
	u64 offset;

	*added = false;
	if (!sp || !name || !resolver__returns_type(sp, fn->type) || die_entrypc(sp, &entry) ||
	    resolver__file_offset(r, entry, &offset))
		return 0;
	for (int i = 0; i < r->rp->nr; i++) {
		if (r->rp->probes[i].vaddr == entry && r->rp->probes[i].op == REFCNT_OP__BORN) {
			*added = true;	/* another copy in the same function */
			return 0;
		}
	}
	p = probes__add(&r->rp->probes, &r->rp->nr);
	if (!p)
		return -ENOMEM;
	p->type = fn->type;
	p->op = REFCNT_OP__BORN;
	p->func = fn->name;
	p->moved = true;
	p->in_func = strdup(name);
	p->vaddr = entry;
	p->offset = offset;
	p->obj.kind = REFCNT_LOC__RETVAL;
	*added = true;
	return 0;
}

/* The lowest REFCNT_COPY_RANGES ends of an inlined copy's address ranges, in order. */
static void die__copy_ends(Dwarf_Die *inl, u64 *ends)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t off = 0;

	while ((off = dwarf_ranges(inl, off, &base, &start, &end)) > 0) {
		/* insert @end in order, the highest falls off */
		for (int i = 0; i < REFCNT_COPY_RANGES; i++) {
			if (ends[i] && ends[i] <= end)
				continue;
			memmove(&ends[i + 1], &ends[i],
				(REFCNT_COPY_RANGES - 1 - i) * sizeof(*ends));
			ends[i] = end;
			break;
		}
	}
}

static int resolver__add_inlined(struct refcnt_resolver *r, struct refcnt_func *fn,
				 Dwarf_Die *inl, Dwarf_Die *sp)
{
	const char *in_func = sp ? dwarf_diename(sp) : NULL;
	struct refcnt_probe *p, tmp = { .live_offset = -1 };
	Dwarf_Die param;
	Dwarf_Addr entry, pc = 0;
	const char *file;
	bool ok = false;

	if (die_entrypc(inl, &entry))
		return 0;	/* no code left of this copy */
	/*
	 * A copy inside the function's own out-of-line body (GCC describes
	 * perf 6.1's thread__put so): its entry probe already sees each call.
	 */
	if (entry >= fn->start && entry < fn->end) {
		fn->found = true;
		return 0;
	}

	if (fn->op == REFCNT_OP__BORN) {
		int err = resolver__add_outer_born(r, fn, sp, &ok);

		if (err || ok) {
			fn->found = true;
			return err;
		}
	}

	tmp.type = fn->type;
	tmp.op = fn->op;
	tmp.func = fn->name;
	tmp.inlined = true;
	tmp.vaddr = entry;

	if (r->uncover && strlist__has_entry(r->uncover, fn->name))
		goto uncovered;

	/* born needs the returned object: an inlined copy has no return */
	if (fn->op != REFCNT_OP__BORN && dwarf_child(inl, &param) == 0) {
		do {
			if (dwarf_tag(&param) == DW_TAG_formal_parameter) {
				ok = resolver__param_loc(r, inl, &param, entry, &pc, &tmp.obj);
				break;
			}
		} while (dwarf_siblingof(&param, &param) == 0);
	}

	/*
	 * Past the copy's entry, the first address DWARF names may be in the
	 * retry loop of refcount_inc_not_zero(), run again on every failed
	 * cmpxchg: the copy's first read of the count, before that loop, runs
	 * once per call. Prefer it.
	 */
	if ((!ok || pc != entry) && fn->op != REFCNT_OP__BORN) {
		struct refcnt_loc loc;
		Dwarf_Addr at;

		if (resolver__refcnt_access(r, inl, r->live_offset[fn->type], &at, &loc)) {
			pc = at;
			tmp.obj = loc;
			ok = true;
		}
	}

	if (ok) {
		tmp.vaddr = pc;
		tmp.moved = pc != entry;
		ok = !resolver__file_offset(r, pc, &tmp.offset);
	}
	if (ok && fn->op == REFCNT_OP__GET)
		resolver__onto_branch(r, &tmp, inl, sp);
uncovered:
	if (!ok) {
		/* probed without the object, to count the operations missed */
		tmp.obj.kind = REFCNT_LOC__NONE;
		tmp.vaddr = entry;
		tmp.moved = false;
		tmp.has_offset = !resolver__file_offset(r, entry, &tmp.offset);
	}

	die__copy_ends(inl, tmp.copy_ends);
	tmp.in_func = in_func ? strdup(in_func) : NULL;
	file = die_get_call_file(inl);
	tmp.call_file = file ? strdup(file) : NULL;
	tmp.call_line = die_get_call_lineno(inl);

	if (ok)
		p = probes__add(&r->rp->probes, &r->rp->nr);
	else
		p = probes__add(&r->rp->uncovered, &r->rp->nr_uncovered);
	if (!p)
		return -ENOMEM;
	*p = tmp;
	fn->found = true;
	return 0;
}

/* The element size of the flexible array the structure at @die ends in, or 0. */
static int die__flexible_array_elem(Dwarf_Die *die)
{
	Dwarf_Die child, last, type, sub, elem;
	bool found = false;

	if (dwarf_child(die, &child))
		return false;
	do {
		if (dwarf_tag(&child) == DW_TAG_member) {
			last = child;
			found = true;
		}
	} while (!dwarf_siblingof(&child, &child));
	if (!found || !die_get_real_type(&last, &type) || dwarf_tag(&type) != DW_TAG_array_type ||
	    dwarf_child(&type, &sub) || dwarf_hasattr(&sub, DW_AT_upper_bound) ||
	    dwarf_hasattr(&sub, DW_AT_count) || !die_get_real_type(&type, &elem))
		return 0;
	return max(dwarf_bytesize(&elem), 0);
}

/*
 * The arrays of pointers of @spec in the structure at @die, with their
 * lengths' members: none unless all of them are members of it.
 */
static void die__arrays(Dwarf_Die *die, const struct refcnt_type_spec *spec,
			struct refcnt_scan_type *st)
{
	Dwarf_Die member;
	Dwarf_Word offs;
	u32 nr = 0;

	st->nr_arrays = 0;
	if (!spec->arrays_nr || !die_find_member(die, spec->arrays_nr, &member) ||
	    die_get_data_member_location(&member, &offs))
		return;
	st->array_nr_offset = offs;
	if (!spec->arrays_alloc || !die_find_member(die, spec->arrays_alloc, &member) ||
	    die_get_data_member_location(&member, &offs))
		return;
	st->array_alloc_offset = offs;
	for (int i = 0; i < REFCNT_SPEC__MAX_ARRAYS && spec->arrays[i]; i++) {
		if (!die_find_member(die, spec->arrays[i], &member) ||
		    die_get_data_member_location(&member, &offs))
			return;
		st->array_offset[nr++] = offs;
	}
	st->nr_arrays = nr;
}

static void resolver__struct(struct refcnt_resolver *r, Dwarf_Die *die)
{
	const char *name = dwarf_diename(die);
	Dwarf_Die member;
	Dwarf_Word offs;

	if (!name || dwarf_hasattr(die, DW_AT_declaration))
		return;
	for (unsigned int t = 0; t < refcnt_type_specs__nr; t++) {
		const struct refcnt_type_spec *spec = &refcnt_type_specs[t];

		if (spec->tail_struct && !strcmp(spec->tail_struct, name) &&
		    dwarf_bytesize(die) > 0)
			r->rp->scan_types[t].tail_size = dwarf_bytesize(die);

		if (!(r->rp->type_mask & (1UL << t)) || r->live_offset[t] >= 0 ||
		    strcmp(spec->struct_name, name))
			continue;
		if (die_find_member(die, spec->member, &member) &&
		    !die_get_data_member_location(&member, &offs)) {
			struct refcnt_scan_type *st = &r->rp->scan_types[t];
			int size = dwarf_bytesize(die);

			r->live_offset[t] = offs;	/* refcount_t's counter is first */
			st->size = size > 0 ? size : 0;
			st->refcnt_offset = offs;
			/* a flexible array: of the length in nr_member, or any */
			st->elem_size = die__flexible_array_elem(die);
			st->nr_offset = -1;
			if (st->elem_size && spec->nr_member &&
			    die_find_member(die, spec->nr_member, &member) &&
			    !die_get_data_member_location(&member, &offs))
				st->nr_offset = offs;
			die__arrays(die, spec, st);
		}
	}
}

/*
 * Where, in [@lo, @hi) of a function at [@start, @end), the parameter
 * @param of type @type (or a local variable, @kept) is in a register (its
 * location list): a setter's code that may store it, or the function's.
 */
static int resolver__add_setter_locs(struct refcnt_resolver *r, Dwarf_Die *param, int type,
				     u64 lo, u64 hi, u64 start, u64 end, bool kept)
{
	Dwarf_Addr base, from, to;
	Dwarf_Attribute attr;
	struct refcnt_loc loc;
	ptrdiff_t off = 0;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr(param, DW_AT_location, &attr))
		return 0;
	for (int i = 0; i < 16 &&
	     (off = dwarf_getlocations(&attr, off, &base, &from, &to, &ops, &nops)) > 0; i++) {
		struct refcnt_setter *set;

		from = max(from, lo);
		to = min(to, hi);
		if (from >= to || !resolver__loc(r, ops, nops, from, &loc) ||
		    loc.kind != REFCNT_LOC__REG)
			continue;
		set = realloc(r->setters, (r->nr_setters + 1) * sizeof(*set));
		if (!set)
			return -ENOMEM;
		r->setters = set;
		r->setters[r->nr_setters++] = (struct refcnt_setter){
			.range = { .lo = from, .hi = to, .reg = loc.reg, .kept = kept },
			.start = start, .end = end, .type = type,
		};
	}
	return 0;
}

/* Each range of inlined copy @inl inside [@start, @end), for @param of @type. */
static int resolver__add_setter_ranges(struct refcnt_resolver *r, Dwarf_Die *inl,
				       Dwarf_Die *param, int type, u64 start, u64 end)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	int err = 0;

	for (int i = 0; !err && i < 64 && (off = dwarf_ranges(inl, off, &base, &lo, &hi)) > 0;
	     i++) {
		if (lo < hi && lo >= start && hi <= end)
			err = resolver__add_setter_locs(r, param, type, lo, hi, start, end, false);
	}
	return err;
}

/*
 * An inlined copy of a function outside the refcount API, in @sp, that is
 * passed a pointer to an audited type: a setter, if its code stores it
 * from the register the parameter is in there (resolver__setter_slots()).
 */
static int resolver__add_setter(struct refcnt_resolver *r, Dwarf_Die *inl, Dwarf_Die *sp)
{
	Dwarf_Die param, origin, type;
	Dwarf_Addr start, end;
	Dwarf_Attribute attr;
	int err = 0;

	if (!sp || dwarf_lowpc(sp, &start) || dwarf_highpc(sp, &end) || dwarf_child(inl, &param))
		return 0;
	do {
		int t;

		if (dwarf_tag(&param) != DW_TAG_formal_parameter ||
		    !dwarf_attr(&param, DW_AT_abstract_origin, &attr) ||
		    !dwarf_formref_die(&attr, &origin) || !die_get_real_type(&origin, &type))
			continue;
		t = refcnt_die__pointed_type(&type, 1);
		if (t >= 0 && (r->rp->type_mask & (1UL << t)))
			err = resolver__add_setter_ranges(r, inl, &param, t, start, end);
	} while (!err && dwarf_siblingof(&param, &param) == 0);
	return err;
}

/*
 * A local variable @var of function @sp, outside the refcount API, that
 * points to an audited type: where it is in a register, the code that may
 * store it, a borrowed pointer kept (refcnt_slot_range's kept).
 */
static int resolver__add_local(struct refcnt_resolver *r, Dwarf_Die *var, Dwarf_Die *sp)
{
	Dwarf_Die origin, type, *typed;
	Dwarf_Addr start, end;
	Dwarf_Attribute attr;
	int t;

	if (!sp || dwarf_lowpc(sp, &start) || dwarf_highpc(sp, &end) ||
	    resolver__find(r, dwarf_diename(sp)))
		return 0;
	typed = dwarf_attr(var, DW_AT_abstract_origin, &attr) &&
		dwarf_formref_die(&attr, &origin) ? &origin : var;
	if (!die_get_real_type(typed, &type))
		return 0;
	t = refcnt_die__pointed_type(&type, 1);
	if (t < 0 || !(r->rp->type_mask & (1UL << t)))
		return 0;
	return resolver__add_setter_locs(r, var, t, start, end, start, end, true);
}

/* Where @param of a function out of line is at its entry @start: a register's uprobe name. */
static const char *resolver__param_reg(struct refcnt_resolver *r, Dwarf_Die *param, u64 start)
{
	Dwarf_Attribute attr;
	struct refcnt_loc loc;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr(param, DW_AT_location, &attr) ||
	    dwarf_getlocation_addr(&attr, start, &ops, &nops, 1) != 1 ||
	    !resolver__loc(r, ops, nops, start, &loc) || loc.kind != REFCNT_LOC__REG)
		return NULL;
	return loc.reg;
}

/*
 * A function out of line in @sp, outside the refcount API: each of its
 * parameters that points to an audited type, where it is at the entry
 * (resolver__param_slots() finds whether the function stores it).
 */
static int resolver__add_params(struct refcnt_resolver *r, Dwarf_Die *sp)
{
	Dwarf_Die param, origin, type, *typed;
	Dwarf_Attribute attr;
	Dwarf_Addr start, end;

	if (dwarf_lowpc(sp, &start) || dwarf_highpc(sp, &end) || dwarf_child(sp, &param))
		return 0;
	do {
		struct refcnt_param *p;
		const char *reg;
		int t;

		if (dwarf_tag(&param) != DW_TAG_formal_parameter)
			continue;
		/* a concrete copy's parameter names its type through its origin */
		typed = dwarf_attr(&param, DW_AT_abstract_origin, &attr) &&
			dwarf_formref_die(&attr, &origin) ? &origin : &param;
		if (!die_get_real_type(typed, &type))
			continue;
		t = refcnt_die__pointed_type(&type, 1);
		if (t < 0 || !(r->rp->type_mask & (1UL << t)))
			continue;
		reg = resolver__param_reg(r, &param, start);
		if (!reg)
			continue;
		if (r->nr_params == r->alloc_params) {
			int alloc = r->alloc_params ? 2 * r->alloc_params : 64;

			p = reallocarray(r->params, alloc, sizeof(*p));
			if (!p)
				return -ENOMEM;
			r->params = p;
			r->alloc_params = alloc;
		}
		r->params[r->nr_params++] = (struct refcnt_param){
			.start = start, .end = end, .reg = reg, .type = t,
		};
	} while (dwarf_siblingof(&param, &param) == 0);
	return 0;
}

/* Walk one CU's DIEs, depth first, knowing the enclosing function. */
static int resolver__walk(struct refcnt_resolver *r, Dwarf_Die *die, Dwarf_Die *sp)
{
	Dwarf_Die child;
	int ret = 0;

	do {
		Dwarf_Die *fn_die = sp;
		struct refcnt_func *fn;

		switch (dwarf_tag(die)) {
		case DW_TAG_structure_type:
			resolver__struct(r, die);
			continue;	/* inlined code is not found in types */
		case DW_TAG_subprogram:
			if (!dwarf_hasattr(die, DW_AT_low_pc) && !dwarf_hasattr(die, DW_AT_ranges))
				continue;	/* abstract or declaration */
			fn_die = die;
			if (r->rp->want_slots && !resolver__find(r, dwarf_diename(die))) {
				ret = resolver__add_params(r, die);
				if (ret)
					return ret;
			}
			break;
		case DW_TAG_inlined_subroutine:
			fn = resolver__find(r, dwarf_diename(die));
			if (fn)
				ret = resolver__add_inlined(r, fn, die, sp);
			else if (r->rp->want_slots)
				ret = resolver__add_setter(r, die, sp);
			if (ret)
				return ret;
			break;
		case DW_TAG_lexical_block:
			break;
		case DW_TAG_variable:
			if (r->rp->want_slots) {
				ret = resolver__add_local(r, die, sp);
				if (ret)
					return ret;
			}
			continue;
		default:
			continue;
		}

		if (dwarf_child(die, &child) == 0) {
			ret = resolver__walk(r, &child, fn_die);
			if (ret)
				return ret;
		}
	} while (dwarf_siblingof(die, die) == 0);

	return ret;
}

static int resolver__scan_dwarf(struct refcnt_resolver *r)
{
	Dwarf_Off off = 0, next;
	size_t hdr;

	while (dwarf_nextcu(r->dwarf, off, &next, &hdr, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, child;

		if (dwarf_offdie(r->dwarf, off + hdr, &cu) && dwarf_child(&cu, &child) == 0) {
			int ret = resolver__walk(r, &child, NULL);

			if (ret)
				return ret;
		}
		off = next;
	}
	return 0;
}

#ifdef HAVE_LIBCAPSTONE_SUPPORT
/* The spec function out of line at @start: a get's, a born's or a put's. */
static const struct refcnt_func *resolver__func_at(const struct refcnt_resolver *r, u64 start)
{
	for (int i = 0; i < r->nr_funcs; i++) {
		if (r->funcs[i].found && r->funcs[i].start == start &&
		    (r->rp->type_mask & (1UL << r->funcs[i].type)))
			return &r->funcs[i];
	}
	return NULL;
}

/*
 * The audited type whose reference a call of the function at @target
 * returns: a lookup's (maps__find()), which its caller may store where it
 * keeps it; -1 if none. The DWARF return type says so; an accessor returns
 * a pointer it took no reference on, which the engine tells apart: no get
 * of its thread came back through that call.
 */
static int resolver__lookup_type(const struct refcnt_resolver *r, u64 target)
{
	u16 types = refcnt_handoff__returns(r->handoff, target) & r->rp->type_mask;

	return types ? __builtin_ctz(types) : -1;
}

static int slot__kind(u64 target, void *arg)
{
	const struct refcnt_func *fn = resolver__func_at(arg, target);

	if (!fn)
		return resolver__lookup_type(arg, target) >= 0 ? REFCNT_SLOT__STORE
							       : REFCNT_SLOT__NONE;
	if (fn->op == REFCNT_OP__GET || fn->op == REFCNT_OP__BORN)
		return REFCNT_SLOT__STORE;
	return fn->op == REFCNT_OP__PUT ? REFCNT_SLOT__LOAD : REFCNT_SLOT__NONE;
}

/* Does a probe of an operation sit in (@lo, @hi]: would its event come first? */
static bool resolver__probed_in(const struct refcnt_resolver *r, u64 lo, u64 hi)
{
	for (int i = 0; i < r->rp->nr; i++) {
		if (r->rp->probes[i].vaddr > lo && r->rp->probes[i].vaddr <= hi)
			return true;
	}
	for (int i = 0; i < r->rp->nr_uncovered; i++) {
		if (r->rp->uncovered[i].vaddr > lo && r->rp->uncovered[i].vaddr <= hi)
			return true;
	}
	return false;
}

static int slot__add(struct refcnt_resolver *r, u8 type, u8 op, const char *func,
		     const struct refcnt_slot_insn *found)
{
	struct refcnt_slot_insn store = *found, *si = &store;
	struct refcnt_probe *p;
	u64 offset;

	/*
	 * A store probed past itself: not where another probe's event would
	 * come between the get's and its own, nor where a .cold part may jump
	 * in (the scan sees no jump from there). Then on the store, or none.
	 */
	if (si->op == REFCNT_SLOT__STORE && si->vaddr != si->store &&
	    (r->scan_cold || resolver__probed_in(r, si->store, si->vaddr))) {
		if (!si->store_value)
			return 0;
		si->vaddr = si->store;
		si->value = si->store_value;
		si->emulated = false;
		si->frame_gone = false;
	}
	if (resolver__file_offset(r, si->vaddr, &offset))
		return 0;
	/* a function under two names (an alias) is scanned twice: one probe */
	for (int i = 0; i < r->rp->nr_slots; i++) {
		if (r->rp->slots[i].vaddr == si->vaddr && r->rp->slots[i].type == type &&
		    r->rp->slots[i].slot.op == si->op)
			return 0;
	}
	p = probes__add(&r->rp->slots, &r->rp->nr_slots);
	if (!p)
		return -ENOMEM;
	p->type = type;
	p->op = op;
	p->func = func;
	p->vaddr = si->vaddr;
	p->offset = offset;
	p->slot = *si;
	p->has_offset = true;
	return 0;
}

static int slot__found(u64 target, const struct refcnt_slot_insn *si, void *arg)
{
	struct refcnt_resolver *r = arg;
	const struct refcnt_func *fn = resolver__func_at(r, target);
	int type;

	if (fn)
		return slot__add(r, fn->type, fn->op, fn->name, si);
	type = resolver__lookup_type(r, target);
	return type >= 0 ? slot__add(r, type, REFCNT_OP__GET, NULL, si) : 0;
}

/*
 * Where an inlined get's result goes: the store of its object's register
 * right after the copy's code (after its count's increment loop).
 */
static int resolver__inline_slots(struct refcnt_resolver *r)
{
	for (int i = 0; i < r->rp->nr; i++) {
		const struct refcnt_probe *p = &r->rp->probes[i];
		struct refcnt_slot_insn si;
		const u8 *code = NULL;
		size_t size;
		int err;

		if (!p->inlined || p->op != REFCNT_OP__GET || p->obj.kind != REFCNT_LOC__REG)
			continue;
		/* from the first end past the probe where the object is stored: its join */
		for (int k = 0; k < REFCNT_COPY_RANGES && p->copy_ends[k]; k++) {
			if (p->copy_ends[k] <= p->vaddr)
				continue;
			code = resolver__code(r, p->copy_ends[k], &size);
			if (code && refcnt_slot__store_from(code, size, p->copy_ends[k],
							    p->obj.reg, &si))
				break;
			code = NULL;
		}
		if (!code)
			continue;
		si.call = p->vaddr;	/* an inlined copy's site is its probe */
		err = slot__add(r, p->type, p->op, p->func, &si);
		if (err)
			return err;
	}
	return 0;
}

static int setter__cmp(const void *pa, const void *pb)
{
	const struct refcnt_setter *a = pa, *b = pb;

	return a->start < b->start ? -1 : a->start > b->start;
}

/* The setters of one function (@arg): one of them, @range, stores a copy. */
struct setter_group {
	struct refcnt_resolver		*r;
	const struct refcnt_setter	*first;
};

static int setter__copy_found(size_t range, const struct refcnt_slot_insn *si, void *arg)
{
	struct setter_group *g = arg;
	const struct refcnt_setter *set = &g->first[range];

	if (!(g->r->rp->type_mask & (1UL << set->type)))
		return 0;
	return slot__add(g->r, set->type, REFCNT_OP__GET, NULL, si);
}

/*
 * Where the setters store a pointer read from another struct, with no get:
 * a borrowed pointer kept (REFCNT_SLOT__COPY). Each function that has
 * setters is disassembled once for all of them.
 */
static int resolver__setter_slots(struct refcnt_resolver *r)
{
	struct refcnt_slot_range *ranges;
	int err = 0;

	ranges = calloc(r->nr_setters ?: 1, sizeof(*ranges));
	if (!ranges)
		return -ENOMEM;
	qsort(r->setters, r->nr_setters, sizeof(*r->setters), setter__cmp);
	for (int i = 0, k; !err && i < r->nr_setters; i = k) {
		struct setter_group g = { .r = r, .first = &r->setters[i] };
		const u8 *code;
		size_t size;

		for (k = i; k < r->nr_setters && r->setters[k].start == g.first->start; k++)
			ranges[k - i] = r->setters[k].range;
		code = resolver__code(r, g.first->start, &size);
		if (code && size >= g.first->end - g.first->start)
			err = refcnt_slot__copies(code, g.first->end - g.first->start,
						  g.first->start, ranges, k - i,
						  setter__copy_found, &g);
	}
	free(ranges);
	return err;
}

/* Is there a slot probe at @vaddr already? */
static bool resolver__slot_at(const struct refcnt_resolver *r, u64 vaddr)
{
	for (int i = 0; i < r->rp->nr_slots; i++) {
		if (r->rp->slots[i].vaddr == vaddr)
			return true;
	}
	return false;
}

/*
 * Where the functions out of line that are passed a pointer to an audited
 * type store it first, if they do (a setter: REFCNT_SLOT__PARAM); not
 * where a get's store is probed (an inlined get leaves its result in the
 * register it was passed): that store keeps the get's reference.
 */
static int resolver__param_slots(struct refcnt_resolver *r)
{
	int err = 0;

	for (int i = 0; !err && i < r->nr_params; i++) {
		const struct refcnt_param *p = &r->params[i];
		struct refcnt_slot_insn si;
		const u8 *code;
		size_t size;

		code = resolver__code(r, p->start, &size);
		if (code && p->end > p->start &&
		    refcnt_slot__param_store(code, min_t(size_t, size, p->end - p->start),
					     p->start, p->reg, &si) &&
		    !resolver__slot_at(r, si.vaddr))
			err = slot__add(r, p->type, REFCNT_OP__GET, NULL, &si);
	}
	return err;
}

/*
 * One symbol table's functions: the names of their .cold parts (@pass 0,
 * into @cold), then their slots (@pass 1).
 */
static int resolver__scan_slot_symtab(struct refcnt_resolver *r, Elf_Scn *scn,
				      struct strlist *cold, int pass)
{
	Elf_Data *data;
	GElf_Shdr sh;
	int err = 0;

	if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB || !sh.sh_entsize)
		return 0;
	data = elf_getdata(scn, NULL);
	for (size_t i = 0; !err && data && i < sh.sh_size / sh.sh_entsize; i++) {
		const char *name, *dot;
		const u8 *code;
		GElf_Sym sym;
		size_t size;

		if (!gelf_getsym(data, i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    !sym.st_value || !sym.st_size || sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(r->elf, sh.sh_link, sym.st_name) ?: "";
		if (pass == 0) {
			dot = strstr(name, ".cold");
			if (dot && dot != name) {
				char *base = strndup(name, dot - name);

				err = base ? strlist__add(cold, base) : -ENOMEM;
				free(base);
				err = err == -EEXIST ? 0 : err;
			}
			continue;
		}
		code = resolver__code(r, sym.st_value, &size);
		if (!code)
			continue;
		r->scan_cold = strlist__has_entry(cold, name);
		err = refcnt_slot__scan(code, min_t(size_t, size, sym.st_size), sym.st_value,
					slot__kind, slot__found, r);
	}
	return err;
}

/*
 * The slots of the references the out-of-line gets, borns and puts take
 * and release, at their calls in every function of the symbol table, and
 * of the inlined gets.
 */
static int resolver__scan_slots(struct refcnt_resolver *r)
{
	struct strlist *cold;
	Elf_Scn *scn = NULL;
	int err = resolver__inline_slots(r) ?: resolver__setter_slots(r);

	if (err)
		return err;

	r->handoff = refcnt_handoff__new(r->rp->exe);
	cold = strlist__new(NULL, NULL);
	if (!cold)
		err = -ENOMEM;
	for (int pass = 0; !err && pass < 2; pass++) {
		while (!err && (scn = elf_nextscn(r->elf, scn)) != NULL)
			err = resolver__scan_slot_symtab(r, scn, cold, pass);
	}
	if (!err)
		err = resolver__param_slots(r);
	strlist__delete(cold);
	refcnt_handoff__delete(r->handoff);
	r->handoff = NULL;
	return err;
}
#else
static int resolver__scan_slots(struct refcnt_resolver *r __maybe_unused)
{
	return 0;
}
#endif

static int probe__cmp(const void *a, const void *b)
{
	const struct refcnt_probe *pa = a, *pb = b;

	if (pa->type != pb->type)
		return pa->type - pb->type;
	if (pa->op != pb->op)
		return pa->op - pb->op;
	return pa->vaddr < pb->vaddr ? -1 : pa->vaddr > pb->vaddr;
}

static int refcnt_probes__name(struct refcnt_probes *rp)
{
	int seq = 0;

	qsort(rp->probes, rp->nr, sizeof(*rp->probes), probe__cmp);
	for (int i = 0; i < rp->nr; i++) {
		struct refcnt_probe *p = &rp->probes[i];
		const char *type = refcnt_type_specs[p->type].name;

		if (i && (p->type != p[-1].type || p->op != p[-1].op))
			seq = 0;
		if (asprintf(&p->event, "%s__%s__%d", type, refcnt_op__name(p->op), seq++) < 0)
			return -ENOMEM;
	}
	/* slots: named by their address and what they are, the same */
	for (int i = 0; i < rp->nr_slots; i++) {
		struct refcnt_probe *p = &rp->slots[i];

		if (asprintf(&p->event, "%s__%s" REFCNT_SLOT_SUFFIX "__%c%" PRIx64,
			     refcnt_type_specs[p->type].name,
			     p->slot.op == REFCNT_SLOT__COPY ? REFCNT_COPY_OP :
			     p->slot.op == REFCNT_SLOT__PARAM ? REFCNT_PARAM_OP :
			     refcnt_op__name(p->op),
			     p->slot.op == REFCNT_SLOT__STORE ? REFCNT_STORE_PREFIX[0] :
			     p->slot.op == REFCNT_SLOT__COPY ? REFCNT_COPY_PREFIX[0] :
			     p->slot.op == REFCNT_SLOT__PARAM ? REFCNT_PARAM_PREFIX[0] :
			     REFCNT_LOAD_PREFIX[0],
			     p->vaddr) < 0)
			return -ENOMEM;
	}
	/* uncovered copies: named by their address, see refcnt_event_name__parse() */
	for (int i = 0; i < rp->nr_uncovered; i++) {
		struct refcnt_probe *p = &rp->uncovered[i];

		if (asprintf(&p->event, "%s__%s__" REFCNT_UNCOVERED_PREFIX "%" PRIx64,
			     refcnt_type_specs[p->type].name, refcnt_op__name(p->op),
			     p->vaddr) < 0)
			return -ENOMEM;
	}
	return 0;
}

static void probe__exit(struct refcnt_probe *p);

/* The registers of the audited binary's architecture, or a one-line error. */
static int resolver__arch(struct refcnt_resolver *r)
{
	char supported[64] = "";
	size_t len = 0;

	for (size_t i = 0; i < ARRAY_SIZE(refcnt_archs); i++) {
		const struct refcnt_arch *a = &refcnt_archs[i];

		if (a->e_machine == r->ehdr.e_machine &&
		    r->ehdr.e_ident[EI_CLASS] == ELFCLASS64) {
			r->arg0_reg = get_dwarf_regstr(a->arg0, a->e_machine);
			r->rp->sp_reg = get_dwarf_regstr(a->sp, a->e_machine);
			if (r->arg0_reg && r->rp->sp_reg)
				return 0;
		}
		len += scnprintf(supported + len, sizeof(supported) - len, "%s%s",
				 i ? ", " : "", a->name);
	}
	pr_err("%s is a binary for ELF machine %u (%d-bit): perf refcnt record supports %s only\n",
	       r->rp->exe, r->ehdr.e_machine,
	       r->ehdr.e_ident[EI_CLASS] == ELFCLASS64 ? 64 : 32, supported);
	return -ENOTSUP;
}

int refcnt_probes__resolve(struct refcnt_probes *rp, const char *exe,
			   unsigned long type_mask, const char *uncover, bool at_entry)
{
	struct refcnt_resolver r = { .rp = rp, .at_entry = at_entry };
	struct debuginfo *dinfo = NULL;
	bool want_slots = rp->want_slots;
	int fd, ret;

	memset(rp, 0, sizeof(*rp));
	rp->want_slots = want_slots;
	if (uncover) {
		r.uncover = strlist__new(uncover, NULL);
		if (!r.uncover)
			return -ENOMEM;
	}
	rp->exe = strdup(exe);
	rp->type_mask = type_mask;
	if (!rp->exe || resolver__init_funcs(&r, type_mask))
		return -ENOMEM;

	fd = open(exe, O_RDONLY);
	if (fd < 0) {
		ret = -errno;
		pr_err("Cannot open %s: %s\n", exe, strerror(errno));
		goto out;
	}
	elf_version(EV_CURRENT);
	/*
	 * Read, not mapped: the uprobes another recording has registered on
	 * this binary are int3s in every mapping of it that may execute, a
	 * read-only one included, and the code disassembled here would be
	 * theirs (resolver__refcnt_access() then misses the copy's access).
	 */
	r.elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!r.elf || !gelf_getehdr(r.elf, &r.ehdr)) {
		pr_err("%s is not an ELF file: give the perf binary to audit with -x\n", exe);
		ret = -EINVAL;
		goto out_close;
	}

	ret = resolver__arch(&r);
	if (ret)
		goto out_close;

	ret = resolver__scan_symtab(&r);
	if (ret == -ENOENT) {
		pr_err("%s has no symbol table (stripped?): build perf with symbols, e.g. make -C tools/perf EXTRA_CFLAGS=-g\n",
		       exe);
		goto out_close;
	} else if (ret) {
		goto out_close;
	}

	dinfo = debuginfo__new(exe);
	if (dinfo) {
		r.dwarf = dinfo->dbg;
		r.bias = dinfo->bias;
		r.cfi = dwarf_getcfi_elf(r.elf);
		rp->has_dwarf = true;
		ret = resolver__scan_dwarf(&r);
		if (ret)
			goto out_close;
	} else {
		pr_warning("%s has no DWARF: inlined gets and puts cannot be probed; build perf with EXTRA_CFLAGS=-g to audit them\n",
			   exe);
	}

	/* every function of every type asked for must be there */
	for (int i = 0; i < r.nr_funcs; i++) {
		const struct refcnt_type_spec *spec = &refcnt_type_specs[r.funcs[i].type];

		if (r.funcs[i].found || !(rp->type_mask & (1UL << r.funcs[i].type)))
			continue;
		if (!rp->has_dwarf) {
			/* only inlined (map__get): its copies are in DWARF alone */
			pr_warning("perf refcnt: %s() is inlined only and %s has no DWARF: type %s is left out; build perf with EXTRA_CFLAGS=-g to audit it\n",
				   r.funcs[i].name, exe, spec->name);
			rp->type_mask &= ~(1UL << r.funcs[i].type);
			continue;
		}
		pr_err("%s: no %s() for type %s: not a perf 6.12 binary, or built without symbols and -g (EXTRA_CFLAGS=-g); leave the type out with -t\n",
		       exe, r.funcs[i].name, spec->name);
		ret = -ENOENT;
		goto out_close;
	}
	if (!rp->type_mask) {
		pr_err("%s: none of the types asked for can be audited: build perf with symbols and EXTRA_CFLAGS=-g\n",
		       exe);
		ret = -ENOENT;
		goto out_close;
	}
	/* drop the probes of the types left out */
	for (int i = 0, n = rp->nr; i < n; i++) {
		if (rp->type_mask & (1UL << rp->probes[i].type))
			continue;
		probe__exit(&rp->probes[i]);
		rp->probes[i--] = rp->probes[--n];
		rp->nr = n;
	}

	for (int i = 0; i < rp->nr; i++)
		rp->probes[i].live_offset = r.live_offset[rp->probes[i].type];
	if (rp->want_slots && r.ehdr.e_machine == EM_X86_64) {
		ret = resolver__scan_slots(&r);
		if (ret)
			goto out_close;
		if (refcnt_heap_probe__resolve(&rp->heap))
			pr_warning("perf refcnt: --slots cannot find free() in the C library: a holder freed without its puts will not be told\n");
	}
	ret = refcnt_probes__name(rp);

out_close:
	if (r.cfi)
		dwarf_cfi_end(r.cfi);
	if (r.elf)
		elf_end(r.elf);
	debuginfo__delete(dinfo);
	close(fd);
out:
	strlist__delete(r.uncover);
	free(r.funcs);
	free(r.setters);
	free(r.params);
	return ret;
}

static void probe__exit(struct refcnt_probe *p)
{
	zfree(&p->in_func);
	zfree(&p->call_file);
	zfree(&p->event);
}

void refcnt_probes__exit(struct refcnt_probes *rp)
{
	for (int i = 0; i < rp->nr; i++)
		probe__exit(&rp->probes[i]);
	for (int i = 0; i < rp->nr_uncovered; i++)
		probe__exit(&rp->uncovered[i]);
	for (int i = 0; i < rp->nr_slots; i++)
		probe__exit(&rp->slots[i]);
	zfree(&rp->slots);
	rp->nr_slots = 0;
	zfree(&rp->probes);
	zfree(&rp->uncovered);
	zfree(&rp->exe);
	zfree(&rp->group);
	refcnt_heap_probe__exit(&rp->heap);
}

int refcnt_probes__count_nop5(const struct refcnt_probes *rp)
{
	/* nopl 0x0(%rax,%rax,1), the one nop the kernel optimizes */
	static const u8 nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	int fd = open(rp->exe, O_RDONLY | O_CLOEXEC), nr = 0;

	if (fd < 0)
		return -errno;
	for (int i = 0; i < rp->nr; i++) {
		u8 insn[sizeof(nop5)];

		if (pread(fd, insn, sizeof(insn), rp->probes[i].offset) == sizeof(insn) &&
		    !memcmp(insn, nop5, sizeof(nop5)))
			nr++;
	}
	close(fd);
	return nr;
}

/* "<reg>", "+off(<reg>)" or "$retval" with @deref extra dereferences. */
static int probe__fetch(struct probe_trace_arg *arg, const struct refcnt_loc *loc,
			long member, bool deref_member)
{
	struct probe_trace_arg_ref **ref = &arg->ref;

	arg->value = strdup(loc->kind == REFCNT_LOC__RETVAL ? "$retval" : loc->reg);
	if (!arg->value)
		return -ENOMEM;
	/* references are applied innermost last: build outermost first */
	if (deref_member) {
		*ref = zalloc(sizeof(**ref));
		if (!*ref)
			return -ENOMEM;
		(*ref)->offset = member;
		ref = &(*ref)->next;
	}
	if (loc->kind == REFCNT_LOC__MEM) {
		*ref = zalloc(sizeof(**ref));
		if (!*ref)
			return -ENOMEM;
		(*ref)->offset = loc->offset;
	}
	return 0;
}

static void tev__exit(struct probe_trace_event *tev)
{
	for (int i = 0; i < tev->nargs; i++) {
		struct probe_trace_arg_ref *ref = tev->args[i].ref, *next;

		for (; ref; ref = next) {
			next = ref->next;
			free(ref);
		}
		zfree(&tev->args[i].value);
	}
	zfree(&tev->args);
}

static int refcnt_probe__add(int fd, const struct refcnt_probes *rp, struct refcnt_probe *p)
{
	const char *exe = rp->exe, *group = rp->group;
	struct probe_trace_event tev = {
		.event = p->event,
		.group = (char *)group,
		.uprobes = true,
		.point = {
			.module = (char *)exe,
			.address = p->offset,
			.retprobe = p->op == REFCNT_OP__BORN && !p->inlined,
		},
	};
	/* the return address: at the entry on top of the stack, past it above the frame */
	struct refcnt_loc sp = { .kind = REFCNT_LOC__MEM, .reg = rp->sp_reg };
	struct refcnt_loc bp = { .kind = REFCNT_LOC__MEM, .reg = "%bp", .offset = 8 };
	int ret = -ENOMEM;

	tev.args = calloc(3, sizeof(*tev.args));
	if (!tev.args)
		return -ENOMEM;

	/* an uncovered copy: its hits are counted, the object is unknown */
	if (p->obj.kind == REFCNT_LOC__NONE)
		goto add;

	tev.args[0].name = (char *)"obj";
	tev.args[0].type = (char *)"x64";
	if (probe__fetch(&tev.args[tev.nargs++], &p->obj, 0, false))
		goto out;

	if (p->live_offset >= 0) {
		tev.args[tev.nargs].name = (char *)"live";
		tev.args[tev.nargs].type = (char *)"s32";
		if (probe__fetch(&tev.args[tev.nargs++], &p->obj, p->live_offset, true))
			goto out;
	}

	/* the call site: the return address an entry probe finds on the stack */
	if (!p->inlined && p->op != REFCNT_OP__BORN) {
		tev.args[tev.nargs].name = (char *)"site";
		tev.args[tev.nargs].type = (char *)"x64";
		if (probe__fetch(&tev.args[tev.nargs++], p->past_null ? &bp : &sp, 0, false))
			goto out;
	}

add:
	ret = probe_file__add_event(fd, &tev);
out:
	tev__exit(&tev);
	return ret;
}

/* A slot or free() probe's argument: @value ("%bx", "\\-8"), dereferenced at @deref if set. */
static int slot_arg(struct probe_trace_event *tev, const char *name, const char *type,
		    const char *value, const long *deref)
{
	struct probe_trace_arg *arg = &tev->args[tev->nargs++];

	arg->name = (char *)name;
	arg->type = (char *)type;
	arg->value = strdup(value);
	if (!arg->value)
		return -ENOMEM;
	if (deref) {
		arg->ref = zalloc(sizeof(*arg->ref));
		if (!arg->ref)
			return -ENOMEM;
		arg->ref->offset = *deref;
	}
	return 0;
}

/*
 * @value dereferenced @nr times, at @derefs' offsets in turn: "+8(+0(%bp))"
 * is { 0, 8 }. Returns 0 or -ENOMEM.
 */
static int slot_arg_chain(struct probe_trace_event *tev, const char *name, const char *value,
			  const long *derefs, int nr)
{
	struct probe_trace_arg *arg = &tev->args[tev->nargs];
	struct probe_trace_arg_ref **next;
	int err = slot_arg(tev, name, "x64", value, nr ? &derefs[0] : NULL);

	/* the first applied is the arg's ref, each next one is applied to its result */
	next = err || !nr ? NULL : &arg->ref->next;
	for (int i = 1; next && i < nr; i++) {
		*next = zalloc(sizeof(**next));
		if (!*next)
			return -ENOMEM;
		(*next)->offset = derefs[i];
		next = &(*next)->next;
	}
	return err;
}

/*
 * The frames above a store's function, for a slot that is no local of its
 * own (refcnt_event.slot_home): the frame pointer chain, REFCNT_SLOT_FRAMES
 * of them, and the return address in each frame's function.
 */
static int slot_probe__frames(struct probe_trace_event *tev)
{
	long derefs[REFCNT_SLOT_FRAMES + 1] = { 0 };
	int err = 0;

	for (int k = 0; k <= REFCNT_SLOT_FRAMES && !err; k++)
		err = slot_arg_chain(tev, refcnt_slot_fp_fields[k], "%bp", derefs, k);
	for (int k = 1; k <= REFCNT_SLOT_FRAMES && !err; k++) {
		/* the return address is the word above the saved frame pointer */
		derefs[k - 1] = sizeof(u64);
		err = slot_arg_chain(tev, refcnt_slot_ret_fields[k], "%bp", derefs, k);
		derefs[k - 1] = 0;
	}
	return err;
}

long refcnt_slot_probe__disp(const struct refcnt_probe *p)
{
	return p->slot.static_word ? p->slot.disp - (long)p->vaddr : p->slot.disp;
}

/*
 * A slot probe fetches the reference (the register stored, or the word
 * loaded), the slot's base and displacement, where the call is from the
 * probe (rel: the site, its return address, is the probe's ip + rel), and
 * whether a store's slot is a local of its own frame (frame: 1) or static
 * storage (2: its base the probe's %ip); for a store to another slot,
 * while its function's frame pointer is its own (not emulated at a jump
 * after a leave), the frames above.
 */
static int slot_probe__add(int fd, const struct refcnt_probes *rp, struct refcnt_probe *p)
{
	struct probe_trace_event tev = {
		.event = p->event,
		.group = rp->group,
		.uprobes = true,
		.point = { .module = rp->exe, .address = p->offset },
	};
	long slot_disp = refcnt_slot_probe__disp(p);
	const char *frame = p->slot.static_word ? "\\2" : p->slot.frame ? "\\1" : "\\0";
	char disp[32], rel[32];
	int ret = -ENOMEM;

	tev.args = calloc(5 + 2 * REFCNT_SLOT_FRAMES + 1, sizeof(*tev.args));
	if (!tev.args)
		return -ENOMEM;
	snprintf(disp, sizeof(disp), "\\%ld", slot_disp);
	snprintf(rel, sizeof(rel), "\\%ld", (long)(p->slot.call - p->vaddr));
	if (p->slot.value ? slot_arg(&tev, "obj", "x64", p->slot.value, NULL) :
	    slot_arg(&tev, "obj", "x64", p->slot.base, &slot_disp))
		goto out;
	if (slot_arg(&tev, "slot", "x64", p->slot.base, NULL) ||
	    slot_arg(&tev, "disp", "s64", disp, NULL) ||
	    slot_arg(&tev, "rel", "s64", rel, NULL) ||
	    slot_arg(&tev, "frame", "u8", frame, NULL))
		goto out;
	if (p->slot.op == REFCNT_SLOT__STORE && !p->slot.frame_gone && !p->slot.frame &&
	    !p->slot.static_word && slot_probe__frames(&tev))
		goto out;
	/* a setter's caller: its return address, where its pushes left it */
	if (p->slot.op == REFCNT_SLOT__PARAM &&
	    slot_arg(&tev, REFCNT_PARAM_RET_FIELD, "x64", rp->sp_reg, &p->slot.ret_depth))
		goto out;
	ret = probe_file__add_event(fd, &tev);
out:
	tev__exit(&tev);
	return ret;
}

/*
 * The probe on free() (heap_probe.h): the block, its chunk's size word
 * before it, and the return addresses at the entry and in the caller's
 * frame.
 */
static int heap_probe__add(int fd, const struct refcnt_probes *rp)
{
	static const long size_word = -8, ret = 0, frame_ret = 8;
	struct probe_trace_event tev = {
		.event = (char *)REFCNT_FREE_EVENT,
		.group = rp->group,
		.uprobes = true,
		.point = { .module = rp->heap.lib, .address = rp->heap.offset },
	};
	int err = -ENOMEM;

	tev.args = calloc(4, sizeof(*tev.args));
	if (!tev.args)
		return -ENOMEM;
	if (!slot_arg(&tev, "block", "x64", "%di", NULL) &&
	    !slot_arg(&tev, "size", "u64", "%di", &size_word) &&
	    !slot_arg(&tev, "site", "x64", rp->sp_reg, &ret) &&
	    !slot_arg(&tev, "up", "x64", "%bp", &frame_ret))
		err = probe_file__add_event(fd, &tev);
	tev__exit(&tev);
	return err;
}

/* Register @probes (those with a file offset) in rp->group; < 0 on error. */
static int probes__install(int fd, struct refcnt_probes *rp, struct refcnt_probe *probes, int nr)
{
	for (int i = 0; i < nr; i++) {
		struct refcnt_probe *p = &probes[i];
		int ret;

		if (p->obj.kind == REFCNT_LOC__NONE && !p->has_offset)
			continue;	/* uncovered, and not even probeable */
		ret = p->slot.op ? slot_probe__add(fd, rp, p) : refcnt_probe__add(fd, rp, p);
		if (ret < 0) {
			pr_err("Cannot add uprobe %s:%s at %s:%#" PRIx64 ": %s\n", rp->group,
			       p->event, rp->exe, p->offset, strerror(-ret));
			return ret;
		}
		rp->nr_installed++;
	}
	return 0;
}

int refcnt_probes__install(struct refcnt_probes *rp, const char *group)
{
	int fd, ret = 0;

	fd = probe_file__open(PF_FL_UPROBE | PF_FL_RW);
	if (fd < 0)
		return fd;

	rp->group = strdup(group);
	if (!rp->group) {
		close(fd);
		return -ENOMEM;
	}

	ret = probes__install(fd, rp, rp->probes, rp->nr);
	if (ret >= 0)
		ret = probes__install(fd, rp, rp->uncovered, rp->nr_uncovered);
	if (ret >= 0)
		ret = probes__install(fd, rp, rp->slots, rp->nr_slots);
	/* evidence beside the probes: without it, what needs it is not told */
	if (ret >= 0 && rp->heap.lib) {
		int err = heap_probe__add(fd, rp);

		if (err < 0) {
			pr_warning("perf refcnt: cannot probe free() in %s: %s; a holder freed without its puts will not be told\n",
				   rp->heap.lib, strerror(-err));
			refcnt_heap_probe__exit(&rp->heap);
		} else {
			rp->nr_installed++;
		}
	}
	close(fd);

	if (ret < 0)
		refcnt_probes__uninstall(rp);
	return ret < 0 ? ret : 0;
}

static int probes__del_group(int fd, const char *group, struct strlist *rawlist)
{
	struct strlist *names = strlist__new(NULL, NULL);
	struct str_node *ent;
	size_t len = strlen(group);
	int ret, nr = 0;

	if (!names)
		return -ENOMEM;

	/* "p:group/event path:offset args" -> "group:event" */
	strlist__for_each_entry(ent, rawlist) {
		const char *s = strchr(ent->s, ':');
		char name[256];
		char *sp;

		if (!s || strncmp(s + 1, group, len) || s[1 + len] != '/')
			continue;
		snprintf(name, sizeof(name), "%s", s + 1);
		sp = strchr(name, ' ');
		if (sp)
			*sp = '\0';
		name[len] = ':';
		strlist__add(names, name);
		nr++;
	}
	ret = probe_file__del_strlist(fd, names);
	strlist__delete(names);
	return ret < 0 ? ret : nr;
}

int refcnt_probes__remove_group(const char *group)
{
	struct strlist *raw;
	int fd, ret;

	fd = probe_file__open(PF_FL_UPROBE | PF_FL_RW);
	if (fd < 0)
		return fd;
	raw = probe_file__get_rawlist(fd);
	ret = raw ? probes__del_group(fd, group, raw) : -ENOMEM;
	strlist__delete(raw);
	close(fd);
	return ret;
}

int refcnt_probes__uninstall(struct refcnt_probes *rp)
{
	int ret;

	if (!rp->group || !rp->nr_installed)
		return 0;

	ret = refcnt_probes__remove_group(rp->group);
	if (ret >= 0)
		rp->nr_installed = 0;
	return ret < 0 ? ret : 0;
}

/*
 * Is the guardian of a recorder's group refcnt_<pid> still ending its
 * events (guardian.h)? It is named refcnt-<pid>.
 */
static bool group__guardian_alive(int pid)
{
	char want[32], comm[32], path[300];
	DIR *proc = opendir("/proc");
	struct dirent *d;
	bool alive = false;

	if (!proc)
		return false;
	snprintf(want, sizeof(want), "refcnt-%d\n", pid);
	while (!alive && (d = readdir(proc))) {
		ssize_t n;
		int fd;

		if (!isdigit(d->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		alive = n == (ssize_t)strlen(want) && !memcmp(comm, want, n);
	}
	closedir(proc);
	return alive;
}

/* Is the recorder that owns group refcnt_<pid>, or its guardian, still running? */
static bool group__owner_alive(const char *group)
{
	char path[64], cmd[4096];
	ssize_t n;
	int pid, fd;

	if (sscanf(group, REFCNT_GROUP_PREFIX "%d", &pid) != 1 || pid <= 0)
		return true;	/* not ours to remove */
	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return group__guardian_alive(pid);
	n = read(fd, cmd, sizeof(cmd) - 1);
	close(fd);
	if (n <= 0)
		return group__guardian_alive(pid);
	/* a reused pid: is it a perf refcnt record? */
	for (ssize_t i = 0; i < n; i++) {
		if (cmd[i] == '\0')
			cmd[i] = ' ';
	}
	cmd[n] = '\0';
	return strstr(cmd, "refcnt") || group__guardian_alive(pid);
}

int refcnt_probes__remove_stale(void)
{
	struct strlist *raw, *groups;
	struct str_node *ent;
	int fd, removed = 0;

	fd = probe_file__open(PF_FL_UPROBE | PF_FL_RW);
	if (fd < 0)
		return fd;
	raw = probe_file__get_rawlist(fd);
	groups = strlist__new(NULL, NULL);
	if (!raw || !groups)
		goto out;

	strlist__for_each_entry(ent, raw) {
		char group[128];

		if (sscanf(ent->s, "%*c:%127[^/]", group) == 1 &&
		    strstarts(group, REFCNT_GROUP_PREFIX))
			strlist__add(groups, group);
	}
	strlist__for_each_entry(ent, groups) {
		int nr;

		if (group__owner_alive(ent->s))
			continue;
		nr = probes__del_group(fd, ent->s, raw);
		if (nr > 0) {
			pr_warning("Removed %d uprobes left behind by a perf refcnt record that was killed (group %s)\n",
				   nr, ent->s);
			removed += nr;
		}
	}
out:
	strlist__delete(groups);
	strlist__delete(raw);
	close(fd);
	return removed;
}
