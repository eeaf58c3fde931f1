// SPDX-License-Identifier: GPL-2.0
/*
 * One disabled CPU-wide event per uprobe event, so that the kernel keeps
 * the breakpoints in forked children: see pin.h.
 */
#include <errno.h>
#include <string.h>
#include <perf/cpumap.h>
#include <internal/xyarray.h>

#include "../debug.h"
#include "../evlist.h"
#include "../evsel.h"
#include "../parse-events.h"
#include "pin.h"

struct evlist *refcnt_pins__open(const char *event)
{
	struct parse_events_error err;
	struct perf_cpu_map *cpus;
	struct evlist *pins;
	struct evsel *evsel;
	int ret = -ENOMEM;

	pins = evlist__new();
	cpus = perf_cpu_map__new_online_cpus();
	if (!pins || !cpus)
		goto out_err;

	parse_events_error__init(&err);
	ret = parse_events(pins, event, &err);
	parse_events_error__exit(&err);
	if (ret)
		goto out_err;

	evlist__for_each_entry(pins, evsel) {
		evsel->core.attr.disabled = 1;
		/* on one CPU: the filter counts events, not CPUs */
		ret = evsel__open_per_cpu(evsel, cpus, 0);
		if (ret)
			goto out_err;
	}
	perf_cpu_map__put(cpus);
	return pins;

out_err:
	pr_warning("perf refcnt: cannot open the events that keep the uprobes in forked children (%s): a forked process may stop being recorded when a thread exits\n",
		   strerror(ret < 0 ? -ret : ret));
	perf_cpu_map__put(cpus);
	evlist__delete(pins);
	return NULL;
}

int refcnt_pins__fds(struct evlist *pins, int *fds, int max)
{
	struct evsel *evsel;
	int nr = 0;

	if (!pins)
		return 0;
	evlist__for_each_entry(pins, evsel) {
		int fd = evsel->core.fd ? *(int *)xyarray__entry(evsel->core.fd, 0, 0) : -1;

		if (fd >= 0 && nr < max)
			fds[nr++] = fd;
	}
	return nr;
}
