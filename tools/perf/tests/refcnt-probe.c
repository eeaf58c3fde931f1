// SPDX-License-Identifier: GPL-2.0
/*
 * perf test refcnt: where record places a probe, on fixed code. A get or
 * put moves past its NULL check only where its probe then runs once per
 * call on an object and reads the same object and count.
 */
#include <string.h>
#include <linux/kernel.h>

#include "tests.h"
#include "debug.h"
#include "refcnt-tests.h"
#include "util/refcnt/probe.h"

#define FN	0x1a5e90ULL

/*
 * perf 6.12's map__put(), as gcc 12 -O2 -g builds it: the frame, the
 * stack protector, "test %rdi,%rdi; je" to the return, then
 * "mov 0x28(%rdi),%edx; jmp" into the cmpxchg loop. The probe goes on
 * that jmp, at +0x1f.
 */
static const u8 map_put[] = {
	0x55,					/* push %rbp */
	0x48, 0x89, 0xe5,			/* mov %rsp,%rbp */
	0x48, 0x83, 0xec, 0x10,			/* sub $0x10,%rsp */
	0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00, /* mov %fs:0x28,%rax */
	0x48, 0x89, 0x45, 0xf8,			/* mov %rax,-0x8(%rbp) */
	0x31, 0xc0,				/* xor %eax,%eax */
	0x48, 0x85, 0xff,			/* +0x17 test %rdi,%rdi */
	0x74, 0x25,				/* +0x1a je +0x41 */
	0x8b, 0x57, 0x28,			/* +0x1c mov 0x28(%rdi),%edx */
	0xeb, 0x1b,				/* +0x1f jmp +0x3c */
	0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00, /* nopl 0x0(%rax) */
	0x8d, 0x4a, 0xff,			/* +0x28 lea -0x1(%rdx),%ecx */
	0x39, 0xca,				/* cmp %ecx,%edx */
	0x72, 0x12,				/* jb +0x41 */
	0x89, 0xd0,				/* mov %edx,%eax */
	0xf0, 0x0f, 0xb1, 0x4f, 0x28,		/* lock cmpxchg %ecx,0x28(%rdi) */
	0x39, 0xc2,				/* cmp %eax,%edx */
	0x74, 0x1e,				/* je +0x58 */
	0x89, 0xc2,				/* mov %eax,%edx */
	0x83, 0xfa, 0xff,			/* +0x3c cmp $0xffffffff,%edx */
	0x75, 0xe7,				/* jne +0x28 */
	0x48, 0x8b, 0x45, 0xf8,			/* +0x41 mov -0x8(%rbp),%rax */
	0x64, 0x48, 0x2b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00, /* sub %fs:0x28,%rax */
	0x75, 0x21,				/* jne +0x71 */
	0xc9,					/* leave */
	0xc3,					/* ret */
	0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00,	/* nopw 0x0(%rax,%rax,1) */
	0x85, 0xc9,				/* +0x58 test %ecx,%ecx */
	0x75, 0xe5,				/* jne +0x41 */
	0x48, 0x8b, 0x45, 0xf8,			/* mov -0x8(%rbp),%rax */
	0x64, 0x48, 0x2b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00, /* sub %fs:0x28,%rax */
	0x75, 0x06,				/* jne +0x71 */
	0xc9,					/* leave */
	0xe9, 0x3f, 0xff, 0xff, 0xff,		/* jmp map__delete */
	0xe8, 0x5a, 0xe9, 0xe9, 0xff,		/* +0x71 call __stack_chk_fail */
};

/* map__put() with @len bytes at @off replaced by @bytes: where its probe goes */
static u64 past_null_with(size_t off, const u8 *bytes, size_t len)
{
	u8 code[sizeof(map_put)];

	memcpy(code, map_put, sizeof(code));
	memcpy(code + off, bytes, len);
	return refcnt_probe__past_null(code, sizeof(code), FN);
}

int test__refcnt_probe_past_null(struct test_suite *test __maybe_unused,
				 int subtest __maybe_unused)
{
	/* the NULL path leaving backward, to the frame's set up */
	static const u8 je_back[] = { 0x74, 0xe4 };
	/* the loop's jne back to the mov passed over (+0x1c), not to +0x28 */
	static const u8 loop_into[] = { 0x75, 0xdb };
	/* the object's register written: mov 0x28(%rdi),%edi */
	static const u8 writes_rdi[] = { 0x8b, 0x7f, 0x28 };
	/* the count written before the probe: lock incl 0x28(%rdi); nop */
	static const u8 lock_inc[] = { 0xf0, 0xff, 0x47, 0x28, 0x90 };
	/* no frame: the push %rbp a nop */
	static const u8 no_frame[] = { 0x90 };

#ifndef HAVE_LIBCAPSTONE_SUPPORT
	/* a perf without capstone keeps its probes at the entries */
	return TEST_SKIP;
#endif
	TEST_ASSERT_VAL("map__put: on the jmp after the count's read",
			refcnt_probe__past_null(map_put, sizeof(map_put), FN) == FN + 0x1f);
	TEST_ASSERT_VAL("a NULL check that jumps back",
			!past_null_with(0x1a, je_back, sizeof(je_back)));
	TEST_ASSERT_VAL("a jump into what is passed over",
			!past_null_with(0x3f, loop_into, sizeof(loop_into)));
	TEST_ASSERT_VAL("the object's register written",
			!past_null_with(0x1c, writes_rdi, sizeof(writes_rdi)));
	TEST_ASSERT_VAL("the count written", !past_null_with(0x1c, lock_inc, sizeof(lock_inc)));
	TEST_ASSERT_VAL("no frame", !past_null_with(0, no_frame, sizeof(no_frame)));
	TEST_ASSERT_VAL("code cut short", !refcnt_probe__past_null(map_put, 0x1e, FN));
	return TEST_OK;
}

#define GET_FN	(FN + 0x100)
#define PUT_FN	(FN + 0x200)

/*
 * A get whose result goes to a struct member, then a put of another
 * member: "call get; mov %rax,0x10(%rbx)", "mov 0x18(%rbx),%rdi; call put".
 */
static const u8 store_load[] = {
	0xe8, 0xfb, 0x00, 0x00, 0x00,		/* +0x0 call GET_FN */
	0x48, 0x89, 0x43, 0x10,			/* +0x5 mov %rax,0x10(%rbx) */
	0x48, 0x8b, 0x7b, 0x18,			/* +0x9 mov 0x18(%rbx),%rdi */
	0xe8, 0xee, 0x01, 0x00, 0x00,		/* +0xd call PUT_FN */
	0xc3,					/* +0x12 ret */
	0xcc,					/* +0x13 int3 */
};

struct slot_seen {
	struct refcnt_slot_insn si[4];
	int nr;
};

static int slot_kind(u64 target, void *arg __maybe_unused)
{
	if (target == GET_FN)
		return REFCNT_SLOT__STORE;
	return target == PUT_FN ? REFCNT_SLOT__LOAD : REFCNT_SLOT__NONE;
}

static int slot_found(u64 target __maybe_unused, const struct refcnt_slot_insn *si, void *arg)
{
	struct slot_seen *seen = arg;

	if (seen->nr < (int)ARRAY_SIZE(seen->si))
		seen->si[seen->nr] = *si;
	seen->nr++;
	return 0;
}

static int kept_found(size_t range __maybe_unused, const struct refcnt_slot_insn *si, void *arg)
{
	return slot_found(0, si, arg);
}

/* The slots in store_load with @len bytes at @off replaced by @bytes. */
static int slots_with(size_t off, const u8 *bytes, size_t len, struct slot_seen *seen)
{
	u8 code[sizeof(store_load)];

	memcpy(code, store_load, sizeof(code));
	memcpy(code + off, bytes, len);
	memset(seen, 0, sizeof(*seen));
	return refcnt_slot__scan(code, sizeof(code), FN, slot_kind, slot_found, seen);
}

#ifdef HAVE_LIBCAPSTONE_SUPPORT
/*
 * A get's result stored with the member next to it in one 16-byte move,
 * as GCC vectorizes two adjacent assignments (fill_callchain_info()):
 * call get; mov %rax,%rcx; mov 0x18(%r13),%rax; movq %rcx,%xmm0;
 * movq %rax,%xmm1; punpcklqdq %xmm1,%xmm0; movups %xmm0,0x10(%r12);
 * mov 0x20(%r13),%rdx; mov %rdx,0x20(%r12); ret
 */
static const u8 vector_low[] = {
	0xe8, 0xfb, 0x00, 0x00, 0x00,		/* +0x0 call GET_FN */
	0x48, 0x89, 0xc1,			/* +0x5 mov %rax,%rcx */
	0x49, 0x8b, 0x45, 0x18,			/* +0x8 mov 0x18(%r13),%rax */
	0x66, 0x48, 0x0f, 0x6e, 0xc1,		/* +0xc movq %rcx,%xmm0 */
	0x66, 0x48, 0x0f, 0x6e, 0xc8,		/* +0x11 movq %rax,%xmm1 */
	0x66, 0x0f, 0x6c, 0xc1,			/* +0x16 punpcklqdq %xmm1,%xmm0 */
	0x41, 0x0f, 0x11, 0x44, 0x24, 0x10,	/* +0x1a movups %xmm0,0x10(%r12) */
	0x49, 0x8b, 0x55, 0x20,			/* +0x20 mov 0x20(%r13),%rdx */
	0x49, 0x89, 0x54, 0x24, 0x20,		/* +0x24 mov %rdx,0x20(%r12) */
	0xc3,					/* +0x29 ret */
};

/* The result in the high lane: its slot is the second quadword. */
static const u8 vector_high[] = {
	0xe8, 0xfb, 0x00, 0x00, 0x00,		/* +0x0 call GET_FN */
	0x49, 0x8b, 0x4d, 0x18,			/* +0x5 mov 0x18(%r13),%rcx */
	0x66, 0x48, 0x0f, 0x6e, 0xc1,		/* +0x9 movq %rcx,%xmm0 */
	0x66, 0x48, 0x0f, 0x6e, 0xc8,		/* +0xe movq %rax,%xmm1 */
	0x66, 0x0f, 0x6c, 0xc1,			/* +0x13 punpcklqdq %xmm1,%xmm0 */
	0x41, 0x0f, 0x11, 0x44, 0x24, 0x10,	/* +0x17 movups %xmm0,0x10(%r12) */
	0xc3,					/* +0x1d ret */
};

/* The result stored into the object itself: not a slot */
static const u8 vector_into_object[] = {
	0xe8, 0xfb, 0x00, 0x00, 0x00,		/* +0x0 call GET_FN */
	0x66, 0x48, 0x0f, 0x6e, 0xc0,		/* +0x5 movq %rax,%xmm0 */
	0x0f, 0x11, 0x40, 0x10,			/* +0xa movups %xmm0,0x10(%rax) */
	0xc3,					/* +0xe ret */
};

static int slots_of(const u8 *code, size_t len, struct slot_seen *seen)
{
	memset(seen, 0, sizeof(*seen));
	return refcnt_slot__scan(code, len, FN, slot_kind, slot_found, seen);
}

/*
 * store_load ending in an indirect jump: a tail call once the frame
 * pointer is restored (pop %rbp; jmp *%rax), else a switch's jump table
 * that may enter anywhere (nop; jmp *%rax)
 */
static const u8 tail_call[] = {
	0xe8, 0xfb, 0x00, 0x00, 0x00,		/* +0x0 call GET_FN */
	0x48, 0x89, 0x43, 0x10,			/* +0x5 mov %rax,0x10(%rbx) */
	0x48, 0x8b, 0x7b, 0x18,			/* +0x9 mov 0x18(%rbx),%rdi */
	0xe8, 0xee, 0x01, 0x00, 0x00,		/* +0xd call PUT_FN */
	0x5d,					/* +0x12 pop %rbp (or nop) */
	0xff, 0xe0,				/* +0x13 jmp *%rax */
	0xc3,					/* +0x15 ret (or jmp +0x13) */
	0xcc,
};

static int test__refcnt_probe_tail_call_slots(struct test_suite *test __maybe_unused)
{
	u8 code[sizeof(tail_call)];
	struct slot_seen seen;

	TEST_ASSERT_VAL("scan", !slots_of(tail_call, sizeof(tail_call), &seen));
	TEST_ASSERT_VAL("a tail call through a pointer enters nowhere", seen.nr == 2 &&
			seen.si[1].op == REFCNT_SLOT__LOAD && seen.si[1].vaddr == FN + 0xd);

	memcpy(code, tail_call, sizeof(code));
	code[0x12] = 0x90;
	TEST_ASSERT_VAL("scan", !slots_of(code, sizeof(code), &seen));
	TEST_ASSERT_VAL("a jump table may enter anywhere: no slot", !seen.nr);

	/* another path comes to the jump past the frame's restore: jmp +0x13 */
	memcpy(code, tail_call, sizeof(code));
	code[0x15] = 0xeb;
	code[0x16] = 0xfc;
	TEST_ASSERT_VAL("scan", !slots_of(code, sizeof(code), &seen));
	TEST_ASSERT_VAL("a jump to the tail call: no slot", !seen.nr);
	return TEST_OK;
}

/*
 * A setter inlined at +0x7 passed a pointer read from another struct:
 * push %rbp; mov %rsp,%rbp; mov (%rax),%rdx; mov %rdx,(%rbx); pop %rbp; ret
 */
static const u8 copy_plain[] = {
	0x55, 0x48, 0x89, 0xe5, 0x48, 0x8b, 0x10, 0x48, 0x89, 0x13, 0x5d, 0xc3,
};

/* an inlined get between: lock incl (%rdx) */
static const u8 copy_counted[] = {
	0x55, 0x48, 0x89, 0xe5, 0x48, 0x8b, 0x10, 0xf0, 0xff, 0x02, 0x48, 0x89, 0x13,
	0x5d, 0xc3,
};

/* the source cleared after: movq $0,(%rax), a move */
static const u8 copy_moved[] = {
	0x55, 0x48, 0x89, 0xe5, 0x48, 0x8b, 0x10, 0x48, 0x89, 0x13,
	0x48, 0xc7, 0x00, 0x00, 0x00, 0x00, 0x00, 0x5d, 0xc3,
};

/* read from a local, where a reference taken before may wait: mov -0x8(%rbp),%rdx */
static const u8 copy_local[] = {
	0x55, 0x48, 0x89, 0xe5, 0x48, 0x8b, 0x55, 0xf8, 0x48, 0x89, 0x13, 0x5d, 0xc3,
};

/* counted right after: mov %rdx,%rdi; call +0 (a get of it) */
static const u8 copy_then_get[] = {
	0x55, 0x48, 0x89, 0xe5, 0x48, 0x8b, 0x10, 0x48, 0x89, 0x13,
	0x48, 0x89, 0xd7, 0xe8, 0x00, 0x00, 0x00, 0x00, 0x5d, 0xc3,
};

/* counted right after by an inlined get: lock incl (%rdx) */
static const u8 copy_then_inc[] = {
	0x55, 0x48, 0x89, 0xe5, 0x48, 0x8b, 0x10, 0x48, 0x89, 0x13,
	0xf0, 0xff, 0x02, 0x5d, 0xc3,
};

/* stored to a local: mov %rdx,-0x10(%rbp) */
static const u8 copy_into_local[] = {
	0x55, 0x48, 0x89, 0xe5, 0x48, 0x8b, 0x10, 0x48, 0x89, 0x55, 0xf0, 0x5d, 0xc3,
};

/*
 * A put past a NULL check: mov 0x18(%rbx),%rdi; test %rdi,%rdi; je +5
 * (past the call); call PUT_FN; ret
 */
static const u8 null_checked[] = {
	0x48, 0x8b, 0x7b, 0x18, 0x48, 0x85, 0xff, 0x74, 0x05,
	0xe8, 0xf2, 0x01, 0x00, 0x00, 0xc3,
};

/* the same, the jump back to the load (a loop): je -9 */
static const u8 null_looped[] = {
	0x48, 0x8b, 0x7b, 0x18, 0x48, 0x85, 0xff, 0x74, 0xf7,
	0xe8, 0xf2, 0x01, 0x00, 0x00, 0xc3,
};

static bool copy_of(const u8 *code, size_t len, struct refcnt_slot_insn *si)
{
	return refcnt_slot__copy_in(code, len, FN, FN, FN + len, "%dx", si);
}

static int test__refcnt_probe_copy_slots(struct test_suite *test __maybe_unused)
{
	struct refcnt_slot_insn si;
	struct slot_seen seen;

	TEST_ASSERT_VAL("scan", !slots_of(null_checked, sizeof(null_checked), &seen));
	TEST_ASSERT_VAL("a load past a NULL check, probed at the call", seen.nr == 1 &&
			seen.si[0].op == REFCNT_SLOT__LOAD && seen.si[0].load == FN &&
			seen.si[0].vaddr == FN + 0x9 && !strcmp(seen.si[0].value, "%di") &&
			!strcmp(seen.si[0].base, "%bx") && seen.si[0].disp == 0x18);
	TEST_ASSERT_VAL("scan", !slots_of(null_looped, sizeof(null_looped), &seen));
	TEST_ASSERT_VAL("no load across a jump back", seen.nr == 0);

	TEST_ASSERT_VAL("a pointer copied from a struct to another",
			copy_of(copy_plain, sizeof(copy_plain), &si) &&
			si.op == REFCNT_SLOT__COPY && si.vaddr == FN + 0x7 &&
			si.load == FN + 0x4 && !strcmp(si.base, "%bx") && si.disp == 0 &&
			!strcmp(si.value, "%dx") && !si.frame);
	TEST_ASSERT_VAL("not another register",
			!refcnt_slot__copy_in(copy_plain, sizeof(copy_plain), FN, FN,
					      FN + sizeof(copy_plain), "%cx", &si));
	TEST_ASSERT_VAL("not past the copy's code",
			!refcnt_slot__copy_in(copy_plain, sizeof(copy_plain), FN, FN + 0xa,
					      FN + sizeof(copy_plain), "%dx", &si));
	TEST_ASSERT_VAL("not with a get between",
			!copy_of(copy_counted, sizeof(copy_counted), &si));
	TEST_ASSERT_VAL("not a move", !copy_of(copy_moved, sizeof(copy_moved), &si));
	TEST_ASSERT_VAL("not with a get right after",
			!copy_of(copy_then_get, sizeof(copy_then_get), &si));
	TEST_ASSERT_VAL("not with an inlined get right after",
			!copy_of(copy_then_inc, sizeof(copy_then_inc), &si));
	TEST_ASSERT_VAL("not from a local", !copy_of(copy_local, sizeof(copy_local), &si));
	TEST_ASSERT_VAL("not into a local",
			!copy_of(copy_into_local, sizeof(copy_into_local), &si));
	return TEST_OK;
}

/*
 * A borrowed pointer kept across a call in a callee-saved register, then
 * stored on one branch (thread__find_map(): maps = thread__maps(thread)
 * at the top, al->maps = maps further down, with no get).
 */
static const u8 kept_local[] = {
	0x55, 0x48, 0x89, 0xe5, 0x41, 0x57, 0x53,	/* +0x0 push %rbp; mov %rsp,%rbp; ... */
	0x48, 0x89, 0xd3,				/* +0x7 mov %rdx,%rbx */
	0x4c, 0x8b, 0x3f,				/* +0xa mov (%rdi),%r15 */
	0x4c, 0x89, 0xff,				/* +0xd mov %r15,%rdi */
	0xe8, 0xeb, 0x01, 0x00, 0x00,			/* +0x10 call FN+0x200 */
	0x48, 0x85, 0xc0, 0x74, 0x04,			/* +0x15 test %rax,%rax; je +0x1e */
	0x4c, 0x89, 0x7b, 0x08,				/* +0x1a mov %r15,0x8(%rbx) */
	0x5b, 0x41, 0x5f, 0x5d, 0xc3,			/* +0x1e pop %rbx; pop %r15; ... */
};

/* the same, then passed to a call right after the store: counted there (a get) */
static const u8 kept_counted[] = {
	0x55, 0x48, 0x89, 0xe5, 0x41, 0x57, 0x53, 0x48, 0x89, 0xd3,
	0x4c, 0x8b, 0x3f, 0x4c, 0x89, 0xff, 0xe8, 0xeb, 0x01, 0x00, 0x00,
	0x48, 0x85, 0xc0, 0x74, 0x0c,
	0x4c, 0x89, 0x7b, 0x08,				/* +0x1a mov %r15,0x8(%rbx) */
	0x4c, 0x89, 0xff, 0xe8, 0xda, 0x01, 0x00, 0x00,	/* +0x1e mov %r15,%rdi; call */
	0x5b, 0x41, 0x5f, 0x5d, 0xc3,
};

/* Each store that kept_local (@code, with @len bytes at @off replaced by @bytes) keeps. */
static int kept_with(const u8 *code, size_t size, size_t off, const u8 *bytes, size_t len,
		     const char *reg, struct slot_seen *seen)
{
	const struct refcnt_slot_range range = {
		.lo = FN, .hi = FN + size, .reg = reg, .kept = true,
	};
	u8 patched[64];

	if (size > sizeof(patched) || off + len > size)
		return -1;
	memcpy(patched, code, size);
	if (len)
		memcpy(patched + off, bytes, len);
	memset(seen, 0, sizeof(*seen));
	return refcnt_slot__copies(patched, size, FN, &range, 1, kept_found, seen);
}

static int test__refcnt_probe_kept_slots(struct test_suite *test __maybe_unused)
{
	static const u8 second_def[] = { 0x49, 0x89, 0xc7 };	/* mov %rax,%r15 */
	static const u8 source_stored[] = { 0x48, 0x89, 0x1f };	/* mov %rbx,(%rdi) */
	/* mov -0x8(%rbp),%r15; xchg %ax,%ax */
	static const u8 from_frame[] = { 0x4c, 0x8b, 0x7d, 0xf8, 0x66, 0x90 };
	/* lock incl (%r15); nopl 0x0(%rax): an inlined get in place of the call */
	static const u8 counted[] = { 0xf0, 0x41, 0xff, 0x07, 0x0f, 0x1f, 0x40, 0x00 };
	/* lea (%rdi),%rdi: the word's address taken (zfree(&t->maps)) */
	static const u8 address_taken[] = { 0x48, 0x8d, 0x3f };
	/* mov %r15,-0x8(%rbp): into a struct of its own frame (node_al.map = map) */
	static const u8 into_frame[] = { 0x4c, 0x89, 0x7d, 0xf8 };
	struct slot_seen seen;
	size_t size = sizeof(kept_local);

	TEST_ASSERT_VAL("scan", !kept_with(kept_local, size, 0, NULL, 0, "%r15", &seen));
	TEST_ASSERT_VAL("a pointer loaded once, kept across a call, stored on a branch",
			seen.nr == 1 && seen.si[0].op == REFCNT_SLOT__COPY &&
			seen.si[0].vaddr == FN + 0x1a && seen.si[0].load == FN + 0xa &&
			!strcmp(seen.si[0].base, "%bx") && seen.si[0].disp == 8 &&
			!strcmp(seen.si[0].value, "%r15") && !seen.si[0].frame);
	TEST_ASSERT_VAL("scan", !kept_with(kept_local, size, 0, NULL, 0, "%r12", &seen));
	TEST_ASSERT_VAL("not another register", seen.nr == 0);
	TEST_ASSERT_VAL("scan", !kept_with(kept_local, size, 0x1a, into_frame, 4, "%r15", &seen));
	TEST_ASSERT_VAL("into its own frame: a copy there too, told so",
			seen.nr == 1 && seen.si[0].vaddr == FN + 0x1a && seen.si[0].frame &&
			!strcmp(seen.si[0].base, "%bp") && seen.si[0].disp == -8);
	TEST_ASSERT_VAL("scan", !kept_with(kept_local, size, 0xd, counted, 8, "%r15", &seen));
	TEST_ASSERT_VAL("not with an inlined get between", seen.nr == 0);
	TEST_ASSERT_VAL("scan", !kept_with(kept_local, size, 0xd, address_taken, 3, "%r15",
					   &seen));
	TEST_ASSERT_VAL("not where the word it was read from is passed on", seen.nr == 0);
	TEST_ASSERT_VAL("scan", !kept_with(kept_local, size, 0xd, second_def, 3, "%r15", &seen));
	TEST_ASSERT_VAL("not a register written twice", seen.nr == 0);
	TEST_ASSERT_VAL("scan", !kept_with(kept_local, size, 0xd, source_stored, 3, "%r15",
					   &seen));
	TEST_ASSERT_VAL("not where the word it was read from is stored to", seen.nr == 0);
	TEST_ASSERT_VAL("scan", !kept_with(kept_local, size, 0xa, from_frame, 6, "%r15", &seen));
	TEST_ASSERT_VAL("not a pointer read from a local", seen.nr == 0);
	TEST_ASSERT_VAL("scan", !kept_with(kept_counted, sizeof(kept_counted), 0, NULL, 0,
					   "%r15", &seen));
	TEST_ASSERT_VAL("not with a call on it right after", seen.nr == 0);
	return TEST_OK;
}

/*
 * A get's result kept in a static variable, then the put of what it held
 * before: call get; mov %rax,0x1000(%rip); mov 0x2000(%rip),%rdi; call put
 */
static const u8 static_word[] = {
	0xe8, 0xfb, 0x00, 0x00, 0x00,			/* +0x0 call GET_FN */
	0x48, 0x89, 0x05, 0x00, 0x10, 0x00, 0x00,	/* +0x5 mov %rax,0x1000(%rip) */
	0x48, 0x8b, 0x3d, 0x00, 0x20, 0x00, 0x00,	/* +0xc mov 0x2000(%rip),%rdi */
	0xe8, 0xe8, 0x01, 0x00, 0x00,			/* +0x13 call PUT_FN */
	0xc3,						/* +0x18 ret */
};

/*
 * A setter, dso__set_nsinfo(dso, nsi) as perf 6.12 builds it: nsi kept in
 * %r12 across the put of the old one, then stored over it.
 */
static const u8 setter[] = {
	0x55,						/* +0x0 push %rbp */
	0x48, 0x89, 0xe5,				/* +0x1 mov %rsp,%rbp */
	0x41, 0x54,					/* +0x4 push %r12 */
	0x49, 0x89, 0xf4,				/* +0x6 mov %rsi,%r12 */
	0x53,						/* +0x9 push %rbx */
	0x48, 0x89, 0xfb,				/* +0xa mov %rdi,%rbx */
	0x48, 0x83, 0xec, 0x10,				/* +0xd sub $0x10,%rsp */
	0x48, 0x8b, 0xbf, 0xe0, 0x00, 0x00, 0x00,	/* +0x11 mov 0xe0(%rdi),%rdi */
	0x48, 0x89, 0x45, 0xe8,				/* +0x18 mov %rax,-0x18(%rbp) */
	0xe8, 0x00, 0x00, 0x00, 0x00,			/* +0x1c call */
	0x4c, 0x89, 0xa3, 0xe0, 0x00, 0x00, 0x00,	/* +0x21 mov %r12,0xe0(%rbx) */
	0xc3,						/* +0x28 ret */
};

static int test__refcnt_probe_param_slots(struct test_suite *test __maybe_unused)
{
	/* the store first: mov %rsi,0xe0(%rdi); ret */
	static const u8 leaf[] = { 0x48, 0x89, 0xb7, 0xe0, 0x00, 0x00, 0x00, 0xc3 };
	/* a spill to its frame only: mov %rsi,-0x8(%rbp); ret */
	static const u8 spill[] = { 0x48, 0x89, 0x75, 0xf8, 0xc3 };
	/* held in a register a call clobbers: mov %rsi,%rax; call; mov %rax,(%rdi) */
	static const u8 clobbered[] = {
		0x48, 0x89, 0xf0, 0xe8, 0x00, 0x00, 0x00, 0x00, 0x48, 0x89, 0x07, 0xc3,
	};
	/* a jump before the store: je +0; mov %rsi,(%rdi) */
	static const u8 jump[] = { 0x74, 0x00, 0x48, 0x89, 0x37, 0xc3 };
	/* into what a member points to: mov 0x8(%rdi),%rax; mov %rsi,(%rax) */
	static const u8 pointed[] = { 0x48, 0x8b, 0x47, 0x08, 0x48, 0x89, 0x30, 0xc3 };
	/* into the object itself: mov %rsi,0x8(%rsi) */
	static const u8 itself[] = { 0x48, 0x89, 0x76, 0x08, 0xc3 };
	/* the stack pointer aligned: and $-16,%rsp; mov %rsi,(%rdi) */
	static const u8 aligned[] = { 0x48, 0x83, 0xe4, 0xf0, 0x48, 0x89, 0x37, 0xc3 };
	struct refcnt_slot_insn si;

	TEST_ASSERT_VAL("a setter's store after a call, held in a callee-saved register",
			refcnt_slot__param_store(setter, sizeof(setter), FN, "%si", &si) &&
			si.op == REFCNT_SLOT__PARAM && si.vaddr == FN + 0x21 &&
			si.store == FN + 0x21 && si.call == si.store &&
			!strcmp(si.base, "%bx") && si.disp == 0xe0 && !strcmp(si.value, "%r12") &&
			!si.frame && si.ret_depth == 40);
	TEST_ASSERT_VAL("at its entry, the return address on top",
			refcnt_slot__param_store(leaf, sizeof(leaf), FN, "%si", &si) &&
			si.vaddr == FN && !strcmp(si.base, "%di") && !strcmp(si.value, "%si") &&
			si.ret_depth == 0);
	TEST_ASSERT_VAL("not the parameter it does not store",
			!refcnt_slot__param_store(leaf, sizeof(leaf), FN, "%dx", &si));
	TEST_ASSERT_VAL("not a spill to its frame",
			!refcnt_slot__param_store(spill, sizeof(spill), FN, "%si", &si));
	TEST_ASSERT_VAL("not past a call that clobbers it",
			!refcnt_slot__param_store(clobbered, sizeof(clobbered), FN, "%si", &si));
	TEST_ASSERT_VAL("not past a jump",
			!refcnt_slot__param_store(jump, sizeof(jump), FN, "%si", &si));
	TEST_ASSERT_VAL("not into memory no parameter points to",
			!refcnt_slot__param_store(pointed, sizeof(pointed), FN, "%si", &si));
	TEST_ASSERT_VAL("not into the object itself",
			!refcnt_slot__param_store(itself, sizeof(itself), FN, "%si", &si));
	TEST_ASSERT_VAL("not where the return address is lost",
			!refcnt_slot__param_store(aligned, sizeof(aligned), FN, "%si", &si));
	return TEST_OK;
}

static int test__refcnt_probe_vector_slots(struct test_suite *test __maybe_unused)
{
	struct refcnt_slot_insn si;
	struct slot_seen seen;

	struct refcnt_probe p = { .vaddr = FN + 0x13 };

	TEST_ASSERT_VAL("scan", !slots_of(static_word, sizeof(static_word), &seen));
	pr_debug("%d slots, the store probed at %#" PRIx64 ", the load at %#" PRIx64 "\n",
		 seen.nr, seen.si[0].vaddr, seen.si[1].vaddr);
	TEST_ASSERT_VAL("a store to a static variable: its address, %ip the base",
			seen.nr == 2 && seen.si[0].op == REFCNT_SLOT__STORE &&
			seen.si[0].store == FN + 0x5 && seen.si[0].static_word &&
			!strcmp(seen.si[0].base, "%ip") &&
			seen.si[0].disp == (long)(FN + 0xc + 0x1000) && !seen.si[0].frame);
	TEST_ASSERT_VAL("a load from a static variable, probed at the put's call",
			seen.si[1].op == REFCNT_SLOT__LOAD && seen.si[1].static_word &&
			seen.si[1].vaddr == FN + 0x13 && !strcmp(seen.si[1].base, "%ip") &&
			seen.si[1].disp == (long)(FN + 0x13 + 0x2000) &&
			!strcmp(seen.si[1].value, "%di"));
	/* the probe's %ip plus what it fetches is the word, wherever it sits */
	p.slot = seen.si[1];
	TEST_ASSERT_VAL("the load probe adds the word's distance from itself",
			refcnt_slot_probe__disp(&p) == 0x2000);
	p.slot = seen.si[0];
	p.vaddr = seen.si[0].vaddr;
	TEST_ASSERT_VAL("the store probe too",
			(u64)(p.vaddr + refcnt_slot_probe__disp(&p)) == FN + 0xc + 0x1000);

	TEST_ASSERT_VAL("scan", !slots_of(vector_low, sizeof(vector_low), &seen));
	TEST_ASSERT_VAL("a vector store of the result, probed after it", seen.nr == 1 &&
			seen.si[0].op == REFCNT_SLOT__STORE && seen.si[0].store == FN + 0x1a &&
			seen.si[0].vaddr == FN + 0x20 && !strcmp(seen.si[0].base, "%r12") &&
			seen.si[0].disp == 0x10 && !seen.si[0].value);
	TEST_ASSERT_VAL("scan", !slots_of(vector_high, sizeof(vector_high), &seen));
	TEST_ASSERT_VAL("the high lane's slot", seen.nr == 1 && seen.si[0].store == FN + 0x17 &&
			seen.si[0].vaddr == FN + 0x1d && seen.si[0].disp == 0x18);
	TEST_ASSERT_VAL("scan", !slots_of(vector_into_object, sizeof(vector_into_object), &seen));
	TEST_ASSERT_VAL("no slot in the object itself", seen.nr == 0);
	TEST_ASSERT_VAL("after an inlined get's copy",
			refcnt_slot__store_from(vector_low + 8, sizeof(vector_low) - 8, FN + 8,
						"%cx", &si) &&
			si.store == FN + 0x1a && si.vaddr == FN + 0x20 && si.disp == 0x10 &&
			!si.value);
	TEST_ASSERT_VAL("not a register the copy does not hold",
			!refcnt_slot__store_from(vector_low + 8, sizeof(vector_low) - 8, FN + 8,
						 "%si", &si));
	return TEST_OK;
}
#endif

int test__refcnt_probe_slots(struct test_suite *test __maybe_unused, int subtest __maybe_unused)
{
	/* the result moved to %r12 first, then stored: mov %rax,%r12; mov %r12,(%rbp) */
	static const u8 moved[] = { 0x49, 0x89, 0xc4, 0x4c, 0x89, 0x65, 0x00 };
	/* the result's register overwritten before any store: xor %eax,%eax; nop */
	static const u8 lost[] = { 0x31, 0xc0, 0x90, 0x90 };
	/* a path that joins at the put's call: jmp back to +0xd, in place of the ret */
	static const u8 jump_in[] = { 0xeb, 0xf9 };
	/* the load overwrites its base: mov 0x18(%rdi),%rdi */
	static const u8 base_lost[] = { 0x48, 0x8b, 0x7f, 0x18 };
	/* a branch between the load and the put: je +0; nop */
	static const u8 branch[] = { 0x74, 0x00, 0x90, 0x90 };
	/* another member stored in place of the load: mov %rcx,0x18(%rbx) */
	static const u8 store_other[] = { 0x48, 0x89, 0x4b, 0x18 };
	/* the store's base written in place of the load: mov 0x18(%rbx),%rbx */
	static const u8 base_moved[] = { 0x48, 0x8b, 0x5b, 0x18 };
	/* the slot overwritten by a vector move capstone calls a read: movups %xmm0,0x10(%rbx) */
	static const u8 vector_over[] = { 0x0f, 0x11, 0x43, 0x10 };
	/* a part of the base written: setne %bl; nop */
	static const u8 base_part[] = { 0x0f, 0x95, 0xc3, 0x90 };
	/* the result stored to a local: mov %rax,-0x18(%rbp); mov %rax,(%rsp) */
	static const u8 frame_local[] = { 0x48, 0x89, 0x45, 0xe8 };
	static const u8 stack_local[] = { 0x48, 0x89, 0x04, 0x24 };
	struct slot_seen seen;

#ifndef HAVE_LIBCAPSTONE_SUPPORT
	/* a perf without capstone finds no slot */
	return TEST_SKIP;
#else
	TEST_ASSERT_VAL("scan", !slots_with(0, store_load, 1, &seen));
	TEST_ASSERT_VAL("a store and a load", seen.nr == 2);
	TEST_ASSERT_VAL("the store, probed at the put's call",
			seen.si[0].op == REFCNT_SLOT__STORE && seen.si[0].store == FN + 0x5 &&
			seen.si[0].vaddr == FN + 0xd &&
			seen.si[0].call == FN + 0x5 && !strcmp(seen.si[0].base, "%bx") &&
			seen.si[0].disp == 0x10 && !seen.si[0].value && !seen.si[0].frame);
	TEST_ASSERT_VAL("the load, probed at the call", seen.si[1].op == REFCNT_SLOT__LOAD &&
			seen.si[1].vaddr == FN + 0xd && seen.si[1].call == FN + 0x12 &&
			!strcmp(seen.si[1].base, "%bx") && seen.si[1].disp == 0x18 &&
			!strcmp(seen.si[1].value, "%di"));

	TEST_ASSERT_VAL("scan", !slots_with(9, base_lost, sizeof(base_lost), &seen));
	TEST_ASSERT_VAL("the load, probed where its base is", seen.nr == 2 &&
			seen.si[1].vaddr == FN + 0x9 && !strcmp(seen.si[1].base, "%di") &&
			seen.si[1].disp == 0x18 && !seen.si[1].value);

	TEST_ASSERT_VAL("scan", !slots_with(9, store_other, sizeof(store_other), &seen));
	TEST_ASSERT_VAL("a store probed on itself when memory is written after it",
			seen.nr == 1 && seen.si[0].vaddr == FN + 0x5 &&
			!strcmp(seen.si[0].value, "%ax"));

	TEST_ASSERT_VAL("scan", !slots_with(9, base_moved, sizeof(base_moved), &seen));
	TEST_ASSERT_VAL("a store probed on itself when its base is written after it",
			seen.nr == 1 && seen.si[0].vaddr == FN + 0x5 &&
			!strcmp(seen.si[0].value, "%ax"));

	TEST_ASSERT_VAL("scan", !slots_with(9, vector_over, sizeof(vector_over), &seen));
	TEST_ASSERT_VAL("a store probed on itself when a vector move writes its slot after it",
			seen.nr == 1 && seen.si[0].vaddr == FN + 0x5 &&
			!strcmp(seen.si[0].value, "%ax"));

	TEST_ASSERT_VAL("scan", !slots_with(9, base_part, sizeof(base_part), &seen));
	TEST_ASSERT_VAL("a store probed on itself when a part of its base is written after it",
			seen.nr == 1 && seen.si[0].vaddr == FN + 0x5 &&
			!strcmp(seen.si[0].value, "%ax"));

	TEST_ASSERT_VAL("scan", !slots_with(5, moved, sizeof(moved), &seen));
	TEST_ASSERT_VAL("a copy of the result stored", seen.nr == 1 &&
			seen.si[0].store == FN + 0x8 && !strcmp(seen.si[0].base, "%bp") &&
			seen.si[0].disp == 0 && !seen.si[0].frame);

	TEST_ASSERT_VAL("scan", !slots_with(5, frame_local, sizeof(frame_local), &seen));
	TEST_ASSERT_VAL("below the frame pointer: a local of its frame", seen.nr == 2 &&
			!strcmp(seen.si[0].base, "%bp") && seen.si[0].disp == -0x18 &&
			seen.si[0].frame);
	TEST_ASSERT_VAL("scan", !slots_with(5, stack_local, sizeof(stack_local), &seen));
	TEST_ASSERT_VAL("at the stack pointer: a local of its frame", seen.nr == 2 &&
			!strcmp(seen.si[0].base, "%sp") && seen.si[0].frame);

	TEST_ASSERT_VAL("scan", !slots_with(5, lost, sizeof(lost), &seen));
	TEST_ASSERT_VAL("no store of an overwritten result", seen.nr == 1 &&
			seen.si[0].op == REFCNT_SLOT__LOAD);

	TEST_ASSERT_VAL("scan", !slots_with(9, branch, sizeof(branch), &seen));
	TEST_ASSERT_VAL("no load across a branch; the store probed on the branch",
			seen.nr == 1 && seen.si[0].op == REFCNT_SLOT__STORE &&
			seen.si[0].vaddr == FN + 0x9 && !seen.si[0].value);

	TEST_ASSERT_VAL("scan", !slots_with(0x12, jump_in, sizeof(jump_in), &seen));
	TEST_ASSERT_VAL("no load where a jump enters between it and the call, the store on itself",
			seen.nr == 1 && seen.si[0].op == REFCNT_SLOT__STORE &&
			seen.si[0].vaddr == FN + 0x5);
	return test__refcnt_probe_vector_slots(test) ?: test__refcnt_probe_copy_slots(test) ?:
	       test__refcnt_probe_param_slots(test) ?: test__refcnt_probe_tail_call_slots(test) ?:
	       test__refcnt_probe_kept_slots(test);
#endif
}
