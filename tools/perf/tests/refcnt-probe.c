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
