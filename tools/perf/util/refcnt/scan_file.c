// SPDX-License-Identifier: GPL-2.0
/*
 * The scan at exit as a feature section of the recording: see scan_file.h.
 * perf has no API to add a section to a written perf.data: the feature
 * table follows the data, so the section's entry is added at its end (the
 * last bit is the last entry) and the sections after it move by one entry.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/bitmap.h>
#include <linux/zalloc.h>

#include "../header.h"
#include "scan_file.h"

#define REFCNT_SCAN_FEAT	(HEADER_FEAT_BITS - 1)

int refcnt_scan__append(const char *path, const struct refcnt_scan *scan)
{
	size_t objs = scan->result.nr_objects * sizeof(*scan->objects);
	size_t freed = scan->result.nr_freed * sizeof(*scan->freed);
	struct perf_file_header h;
	struct perf_file_section *table;
	struct stat st;
	u64 table_off, rest, nr;
	u8 *buf = NULL;
	int fd, err = -EIO;

	fd = open(path, O_RDWR);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || pread(fd, &h, sizeof(h), 0) != sizeof(h) ||
	    test_bit(REFCNT_SCAN_FEAT, h.adds_features))
		goto out;
	nr = bitmap_weight(h.adds_features, HEADER_FEAT_BITS);
	table_off = h.data.offset + h.data.size;
	if (table_off + nr * sizeof(*table) > (u64)st.st_size)
		goto out;
	rest = st.st_size - table_off;
	/* the table, one more entry, the sections, ours */
	buf = malloc(rest + sizeof(*table) + sizeof(scan->result) + objs + freed);
	if (!buf) {
		err = -ENOMEM;
		goto out;
	}
	if (pread(fd, buf, nr * sizeof(*table), table_off) != (ssize_t)(nr * sizeof(*table)) ||
	    pread(fd, buf + (nr + 1) * sizeof(*table), rest - nr * sizeof(*table),
		  table_off + nr * sizeof(*table)) != (ssize_t)(rest - nr * sizeof(*table)))
		goto out;
	table = (struct perf_file_section *)buf;
	for (u64 i = 0; i < nr; i++)
		table[i].offset += sizeof(*table);
	table[nr].offset = st.st_size + sizeof(*table);
	table[nr].size = sizeof(scan->result) + objs + freed;
	memcpy(buf + rest + sizeof(*table), &scan->result, sizeof(scan->result));
	if (objs)
		memcpy(buf + rest + sizeof(*table) + sizeof(scan->result), scan->objects, objs);
	if (freed)
		memcpy(buf + rest + sizeof(*table) + sizeof(scan->result) + objs, scan->freed,
		       freed);
	if (pwrite(fd, buf, rest + table[nr].size + sizeof(*table), table_off) !=
	    (ssize_t)(rest + table[nr].size + sizeof(*table)))
		goto out;
	__set_bit(REFCNT_SCAN_FEAT, h.adds_features);
	if (pwrite(fd, &h, sizeof(h), 0) == sizeof(h))
		err = 0;
out:
	free(buf);
	close(fd);
	return err;
}

int refcnt_scan__read(const char *path, struct refcnt_scan *scan, char *why, size_t why_sz)
{
	struct perf_file_header h;
	struct perf_file_section sec;
	struct stat st;
	size_t objs, freed;
	u64 nr;
	int fd, err = -EINVAL;

	memset(scan, 0, sizeof(*scan));
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 1;
	if (pread(fd, &h, sizeof(h), 0) != sizeof(h) ||
	    !test_bit(REFCNT_SCAN_FEAT, h.adds_features)) {
		err = 1;
		goto out;
	}
	nr = bitmap_weight(h.adds_features, HEADER_FEAT_BITS);
	if (pread(fd, &sec, sizeof(sec), h.data.offset + h.data.size + (nr - 1) * sizeof(sec)) !=
	    sizeof(sec) || sec.size < sizeof(scan->result) ||
	    pread(fd, &scan->result, sizeof(scan->result), sec.offset) != sizeof(scan->result)) {
		snprintf(why, why_sz, "its scan at exit is cut off");
		goto out;
	}
	objs = (size_t)scan->result.nr_objects * sizeof(*scan->objects);
	freed = (size_t)scan->result.nr_freed * sizeof(*scan->freed);
	/* what the file says is checked against the file before it is believed */
	if (scan->result.magic != REFCNT_SCAN_MAGIC || scan->result.status >= REFCNT_SCAN__MAX ||
	    sec.size - sizeof(scan->result) != objs + freed || fstat(fd, &st) ||
	    sec.offset > (u64)st.st_size || sec.size > (u64)st.st_size - sec.offset) {
		snprintf(why, why_sz, "its scan at exit is damaged");
		goto out;
	}
	if (objs) {
		scan->objects = malloc(objs);
		if (!scan->objects) {
			err = -ENOMEM;
			goto out;
		}
		if (pread(fd, scan->objects, objs, sec.offset + sizeof(scan->result)) !=
		    (ssize_t)objs) {
			snprintf(why, why_sz, "its scan at exit is cut off");
			zfree(&scan->objects);
			goto out;
		}
	}
	/* more words of freed memory than a scan keeps: evidence beside the objects, lost alone */
	if (scan->result.nr_freed > REFCNT_SCAN_FREED_MAX) {
		scan->result.nr_freed = 0;
		freed = 0;
	}
	if (freed) {
		scan->freed = malloc(freed);
		if (!scan->freed) {
			zfree(&scan->objects);
			err = -ENOMEM;
			goto out;
		}
		if (pread(fd, scan->freed, freed, sec.offset + sizeof(scan->result) + objs) !=
		    (ssize_t)freed) {
			snprintf(why, why_sz, "its scan at exit is cut off");
			zfree(&scan->objects);
			zfree(&scan->freed);
			goto out;
		}
	}
	err = 0;
out:
	if (err) {
		memset(&scan->result, 0, sizeof(scan->result));
		scan->result.nr_objects = 0;
	}
	close(fd);
	return err;
}
