// SPDX-License-Identifier: GPL-2.0
/*
 * The reference counted types of perf 6.12 that perf refcnt audits.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/zalloc.h>

#include "slot_code.h"
#include "spec.h"

const struct refcnt_type_spec refcnt_type_specs[] = {
	{
		.name = "dso", .struct_name = "dso", .member = "refcnt",
		.funcs = {
			[REFCNT_OP__BORN] = { "dso__new_id" },
			[REFCNT_OP__GET]  = { "dso__get" },
			[REFCNT_OP__PUT]  = { "dso__put" },
			[REFCNT_OP__DIES] = { "dso__delete" },
		},
		.wrappers = { "__dso__zput" },
	},
	{
		.name = "map", .struct_name = "map", .member = "refcnt",
		.tail_struct = "kmap",	/* map__new2() of a kernel dso */
		.funcs = {
			[REFCNT_OP__BORN] = { "map__new", "map__new2", "map__clone" },
			[REFCNT_OP__GET]  = { "map__get" },
			[REFCNT_OP__PUT]  = { "map__put" },
			[REFCNT_OP__DIES] = { "map__delete" },
		},
		.wrappers = { "__map__zput" },
	},
	{
		.name = "maps", .struct_name = "maps", .member = "refcnt",
		/* __maps__remove() leaves the last slot of each as it was */
		.arrays = { "maps_by_address", "maps_by_name" },
		.arrays_nr = "nr_maps", .arrays_alloc = "nr_maps_allocated",
		.funcs = {
			[REFCNT_OP__BORN] = { "maps__new" },
			[REFCNT_OP__GET]  = { "maps__get" },
			[REFCNT_OP__PUT]  = { "maps__put" },
			[REFCNT_OP__DIES] = { "maps__delete" },
		},
		.wrappers = { "__maps__zput" },
	},
	{
		.name = "thread", .struct_name = "thread", .member = "refcnt",
		.funcs = {
			[REFCNT_OP__BORN] = { "thread__new" },
			[REFCNT_OP__GET]  = { "thread__get" },
			[REFCNT_OP__PUT]  = { "thread__put" },
			[REFCNT_OP__DIES] = { "thread__delete" },
		},
		.wrappers = { "__thread__zput" },
	},
	{
		.name = "nsinfo", .struct_name = "nsinfo", .member = "refcnt",
		.funcs = {
			[REFCNT_OP__BORN] = { "nsinfo__new", "nsinfo__copy" },
			[REFCNT_OP__GET]  = { "nsinfo__get" },
			[REFCNT_OP__PUT]  = { "nsinfo__put" },
			[REFCNT_OP__DIES] = { "nsinfo__delete" },
		},
		.wrappers = { "__nsinfo__zput" },
	},
	{
		.name = "cpu_map", .struct_name = "perf_cpu_map", .member = "refcnt",
		.nr_member = "nr",
		.funcs = {
			[REFCNT_OP__BORN] = { "perf_cpu_map__alloc" },
			[REFCNT_OP__GET]  = { "perf_cpu_map__get" },
			[REFCNT_OP__PUT]  = { "perf_cpu_map__put" },
			[REFCNT_OP__DIES] = { "cpu_map__delete" },
		},
	},
};

const unsigned int refcnt_type_specs__nr = ARRAY_SIZE(refcnt_type_specs);

static const char * const refcnt_op_names[REFCNT_OP__MAX] = {
	[REFCNT_OP__BORN] = "born",
	[REFCNT_OP__GET]  = "get",
	[REFCNT_OP__PUT]  = "put",
	[REFCNT_OP__DIES] = "dies",
};

const char *refcnt_op__name(enum refcnt_op op)
{
	return op < REFCNT_OP__MAX ? refcnt_op_names[op] : "?";
}

int refcnt_op__from_name(const char *name)
{
	for (int op = 0; op < REFCNT_OP__MAX; op++) {
		if (!strcmp(name, refcnt_op_names[op]))
			return op;
	}
	return -1;
}

const char *refcnt_type_specs__names(void)
{
	static char names[REFCNT_TYPE__MAX_NR * 16];

	if (!names[0]) {
		size_t len = 0;

		for (unsigned int i = 0; i < refcnt_type_specs__nr && len < sizeof(names); i++)
			len += scnprintf(names + len, sizeof(names) - len, "%s%s", i ? "," : "",
					 refcnt_type_specs[i].name);
	}
	return names;
}

const struct refcnt_type_spec *refcnt_type_spec__find(const char *name)
{
	for (unsigned int i = 0; i < refcnt_type_specs__nr; i++) {
		if (!strcmp(refcnt_type_specs[i].name, name))
			return &refcnt_type_specs[i];
	}
	return NULL;
}

bool refcnt_type_specs__has_func(const char *name)
{
	for (unsigned int t = 0; name && t < refcnt_type_specs__nr; t++) {
		const struct refcnt_type_spec *spec = &refcnt_type_specs[t];

		for (int op = 0; op < REFCNT_OP__MAX; op++) {
			for (int i = 0; i < REFCNT_SPEC__MAX_FUNCS && spec->funcs[op][i]; i++) {
				if (!strcmp(spec->funcs[op][i], name))
					return true;
			}
		}
		for (int i = 0; i < REFCNT_SPEC__MAX_FUNCS && spec->wrappers[i]; i++) {
			if (!strcmp(spec->wrappers[i], name))
				return true;
		}
	}
	return false;
}

int refcnt_type_spec__index(const struct refcnt_type_spec *spec)
{
	return spec - refcnt_type_specs;
}

int refcnt_type_specs__parse(const char *list, unsigned long *mask,
			     char *bad, unsigned int bad_sz)
{
	char *copy, *tok, *saveptr = NULL;
	int err = 0;

	*mask = 0;
	if (!list || !strcmp(list, "all")) {
		*mask = (1UL << refcnt_type_specs__nr) - 1;
		return 0;
	}

	copy = strdup(list);
	if (!copy)
		return -ENOMEM;

	for (tok = strtok_r(copy, ",", &saveptr); tok;
	     tok = strtok_r(NULL, ",", &saveptr)) {
		const struct refcnt_type_spec *spec;

		tok = strim(tok);
		if (!strcmp(tok, "all")) {
			*mask |= (1UL << refcnt_type_specs__nr) - 1;
			continue;
		}
		spec = refcnt_type_spec__find(tok);
		if (!spec) {
			if (bad)
				snprintf(bad, bad_sz, "%s", tok);
			err = -1;
			break;
		}
		*mask |= 1UL << refcnt_type_spec__index(spec);
	}

	if (!err && !*mask) {
		if (bad)
			snprintf(bad, bad_sz, "%s", list);
		err = -1;
	}
	free(copy);
	return err;
}

int refcnt_event_name__parse(const char *name, int *type, int *op, u64 *uncovered)
{
	char buf[64], *sep, *opname, *seq;
	const struct refcnt_type_spec *spec;
	bool slot = false;

	snprintf(buf, sizeof(buf), "%s", name);
	sep = strstr(buf, "__");
	if (!sep)
		return -1;
	*sep = '\0';
	opname = sep + 2;
	seq = strstr(opname, "__");
	*uncovered = 0;
	if (seq) {
		*seq = '\0';
		seq += 2;
		if (strstarts(seq, REFCNT_UNCOVERED_PREFIX)) {
			char *end;

			*uncovered = strtoull(seq + 1, &end, 16);
			if (*end || !*uncovered)
				return -1;
		}
	}

	/* a slot probe's op: the operation's name and REFCNT_SLOT_SUFFIX */
	if (strlen(opname) > strlen(REFCNT_SLOT_SUFFIX) &&
	    !strcmp(opname + strlen(opname) - strlen(REFCNT_SLOT_SUFFIX), REFCNT_SLOT_SUFFIX)) {
		opname[strlen(opname) - strlen(REFCNT_SLOT_SUFFIX)] = '\0';
		slot = true;
	}
	spec = refcnt_type_spec__find(buf);
	/* a copy's or a setter's slot probe: no operation (REFCNT_COPY_OP) */
	*op = slot && (!strcmp(opname, REFCNT_COPY_OP) || !strcmp(opname, REFCNT_PARAM_OP)) ?
	      REFCNT_OP__GET : refcnt_op__from_name(opname);
	if (!spec || *op < 0)
		return -1;
	*type = refcnt_type_spec__index(spec);
	return 0;
}

int refcnt_event_name__slot(const char *name)
{
	const char *seq = strstr(name, "__");
	char *end;

	seq = seq ? strstr(seq + 2, "__") : NULL;
	if (!seq || seq - name < (long)strlen(REFCNT_SLOT_SUFFIX) ||
	    strncmp(seq - strlen(REFCNT_SLOT_SUFFIX), REFCNT_SLOT_SUFFIX,
		    strlen(REFCNT_SLOT_SUFFIX)) ||
	    !seq[2] || !seq[3] || !strtoull(seq + 3, &end, 16) || *end)
		return REFCNT_SLOT__NONE;
	if (seq[2] == REFCNT_STORE_PREFIX[0])
		return REFCNT_SLOT__STORE;
	if (seq[2] == REFCNT_COPY_PREFIX[0])
		return REFCNT_SLOT__COPY;
	if (seq[2] == REFCNT_PARAM_PREFIX[0])
		return REFCNT_SLOT__PARAM;
	return seq[2] == REFCNT_LOAD_PREFIX[0] ? REFCNT_SLOT__LOAD : REFCNT_SLOT__NONE;
}

const char * const refcnt_slot_fp_fields[REFCNT_SLOT_FRAMES + 1] = {
	"fp0", "fp1", "fp2", "fp3",
};

const char * const refcnt_slot_ret_fields[REFCNT_SLOT_FRAMES + 1] = {
	NULL, "ret1", "ret2", "ret3",
};

/* The functions that only free what they are given: a free() they call is their caller's. */
static const char * const refcnt_free_wrappers[] = {
	"__zfree",	/* tools/lib/zalloc.c: zfree() */
};

bool refcnt_free_wrapper(const char *func)
{
	for (unsigned int i = 0; func && i < ARRAY_SIZE(refcnt_free_wrappers); i++) {
		if (!strcmp(func, refcnt_free_wrappers[i]))
			return true;
	}
	return false;
}
