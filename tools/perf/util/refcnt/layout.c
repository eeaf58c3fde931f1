// SPDX-License-Identifier: GPL-2.0
/*
 * Is a perf.data file whole? perf's header code does not check.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/bitmap.h>

#include "../header.h"
#include "layout.h"

#define PERF_MAGIC2	0x32454c4946524550ULL	/* "PERFILE2" */

static bool section__fits(const struct perf_file_section *s, u64 size)
{
	return s->offset <= size && s->size <= size - s->offset;
}

int refcnt_recording__check_layout(const char *path, char *why, size_t why_sz)
{
	struct perf_file_header h;
	struct perf_file_section feat;
	struct stat st;
	u64 size, table;
	int fd, nr, ret = -1;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;	/* perf_session says why */
	if (fstat(fd, &st) || pread(fd, &h, sizeof(h), 0) != sizeof(h) ||
	    h.magic != PERF_MAGIC2 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	size = st.st_size;

	if (!section__fits(&h.attrs, size)) {
		snprintf(why, why_sz, "its event attributes end past its %" PRIu64 " bytes", size);
		goto out;
	}
	if (!section__fits(&h.data, size)) {
		snprintf(why, why_sz, "truncated: %" PRIu64 " bytes, events up to %" PRIu64,
			 size, h.data.offset + h.data.size);
		goto out;
	}
	/* the feature sections' table follows the data */
	nr = bitmap_weight(h.adds_features, HEADER_FEAT_BITS);
	table = h.data.offset + h.data.size;
	if (table + nr * sizeof(feat) > size) {
		snprintf(why, why_sz, "truncated: its feature sections are cut off");
		goto out;
	}
	for (int i = 0; i < nr; i++) {
		if (pread(fd, &feat, sizeof(feat), table + i * sizeof(feat)) != sizeof(feat) ||
		    !section__fits(&feat, size)) {
			snprintf(why, why_sz, "damaged: feature section %d past the end",
				 i);
			goto out;
		}
	}
	ret = 0;
out:
	close(fd);
	return ret;
}
