/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_SCAN_FILE_H
#define __PERF_REFCNT_SCAN_FILE_H

#include "scan.h"

/*
 * The scan at exit in the recording: a feature section of its own, on the
 * last feature bit. perf reads only the features it knows
 * (perf_header__process_sections() stops at HEADER_LAST_FEATURE), so perf
 * script and perf report read the file as before.
 */

/* Append @scan to the perf.data file @path. Returns 0 or a negative error. */
int refcnt_scan__append(const char *path, const struct refcnt_scan *scan);

/*
 * Read the scan of the perf.data file @path into @scan: 0, 1 if the file
 * has none, or -EINVAL with what is wrong in @why for a damaged one.
 */
int refcnt_scan__read(const char *path, struct refcnt_scan *scan, char *why, size_t why_sz);

#endif /* __PERF_REFCNT_SCAN_FILE_H */
