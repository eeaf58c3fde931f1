// SPDX-License-Identifier: GPL-2.0
/*
 * perf refcnt records with -z: its findings at exit come from the last
 * events of the recording. A compressed push whose output overflows one
 * record must leave nothing in the zstd stream when it returns, or the end
 * of the recording is lost (patches/0003).
 */
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <perf/event.h>

#include "../util/compress.h"
#include "../util/debug.h"
#include "tests.h"
#include "refcnt-tests.h"

#define ZSTD_TEST_SRC		(256 * 1024)	/* over one zstd block of 128 KiB */
#define ZSTD_TEST_RECORD	(16 * 1024)	/* a record's room for compressed bytes */

#ifdef HAVE_ZSTD_SUPPORT
/* What perf record writes before each compressed chunk: a header. */
static size_t zstd_test__header(void *record, size_t increment)
{
	struct perf_record_compressed *event = record;

	if (increment) {
		event->header.size += increment;
		return increment;
	}
	event->header.type = PERF_RECORD_COMPRESSED;
	event->header.size = sizeof(*event);
	return sizeof(*event);
}

/* Decompress the records in @buf, @size bytes, into @out: how many bytes came out. */
static size_t zstd_test__inflate(struct zstd_data *z, u8 *buf, size_t size, u8 *out,
				 size_t out_size)
{
	size_t done = 0;

	for (size_t off = 0; off + sizeof(struct perf_record_compressed) <= size;) {
		struct perf_record_compressed *event = (void *)(buf + off);
		size_t hdr = sizeof(*event);

		if (event->header.type != PERF_RECORD_COMPRESSED || event->header.size < hdr)
			break;
		done += zstd_decompress_stream(z, buf + off + hdr, event->header.size - hdr,
					       out + done, out_size - done);
		off += event->header.size;
	}
	return done;
}

int test__refcnt_zstd_end(struct test_suite *test __maybe_unused, int subtest __maybe_unused)
{
	size_t dst_size = 2 * ZSTD_TEST_SRC;
	u8 *src = malloc(ZSTD_TEST_SRC), *dst = malloc(dst_size);
	u8 *out = malloc(ZSTD_TEST_SRC);
	struct zstd_data comp = { 0 }, decomp = { 0 };
	int ret = TEST_FAIL;
	ssize_t n;
	size_t got;
	u32 x = 2463534242U;

	if (!src || !dst || !out || zstd_init(&comp, 1) || zstd_init(&decomp, 0))
		goto out;
	/* xorshift: what no compressor shrinks, so the output overflows a record */
	for (size_t i = 0; i < ZSTD_TEST_SRC; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		src[i] = x;
	}
	n = zstd_compress_stream_to_records(&comp, dst, dst_size, src, ZSTD_TEST_SRC,
					    ZSTD_TEST_RECORD, zstd_test__header);
	if (n <= 0) {
		pr_debug("compressing %d bytes failed\n", ZSTD_TEST_SRC);
		goto out;
	}
	got = zstd_test__inflate(&decomp, dst, n, out, ZSTD_TEST_SRC);
	pr_debug("%d bytes in, %zd compressed, %zu back out\n", ZSTD_TEST_SRC, n, got);
	if (got != ZSTD_TEST_SRC || memcmp(src, out, got)) {
		pr_debug("the records hold %zu of the %d bytes pushed: the end is lost\n",
			 got, ZSTD_TEST_SRC);
		goto out;
	}
	ret = TEST_OK;
out:
	zstd_fini(&comp);
	zstd_fini(&decomp);
	free(src);
	free(dst);
	free(out);
	return ret;
}
#else
int test__refcnt_zstd_end(struct test_suite *test __maybe_unused, int subtest __maybe_unused)
{
	return TEST_SKIP;	/* perf built without zstd: nothing compressed */
}
#endif
