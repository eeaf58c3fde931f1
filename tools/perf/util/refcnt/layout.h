/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REFCNT_LAYOUT_H
#define __PERF_REFCNT_LAYOUT_H

#include <stddef.h>

/*
 * The sections a perf.data file's header announces, checked against the
 * file before perf_session reads them: perf's header code trusts them and
 * reads past the end of a truncated file (into libtraceevent, which
 * crashes on the event formats it gets). Returns 0, or -1 with what is
 * wrong in @why. A file of the other byte order, or without perf's magic,
 * is left to perf_session to refuse or swap.
 */
int refcnt_recording__check_layout(const char *path, char *why, size_t why_sz);

#endif /* __PERF_REFCNT_LAYOUT_H */
