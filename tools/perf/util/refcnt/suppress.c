// SPDX-License-Identifier: GPL-2.0
/*
 * Suppression files for perf refcnt report (suppress.h).
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/zalloc.h>

#include "findings.h"
#include "suppress.h"

/* @a and @b name the same kind: case, and dashes or underscores for spaces, aside */
static bool kind__same(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char ca = (*a == '-' || *a == '_') ? ' ' : tolower(*a);
		char cb = (*b == '-' || *b == '_') ? ' ' : tolower(*b);

		if (ca != cb)
			return false;
	}
	return !*a && !*b;
}

int refcnt_finding_kind__parse(const char *name, bool bugs)
{
	if (bugs && !strcmp(name, "bugs"))
		return REFCNT_FINDING__MAX;
	for (int k = 0; k < REFCNT_FINDING__MAX; k++) {
		if (kind__same(name, refcnt_finding_kind__name(k)))
			return k;
	}
	return -1;
}

int refcnt_finding_kinds__parse(const char *list, u32 *mask, char *bad, size_t bad_sz)
{
	char *copy = strdup(list), *tok, *saveptr = NULL;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	*mask = 0;
	for (tok = strtok_r(copy, ",", &saveptr); tok; tok = strtok_r(NULL, ",", &saveptr)) {
		int k = refcnt_finding_kind__parse(strim(tok), true);

		if (k < 0) {
			snprintf(bad, bad_sz, "%s", strim(tok));
			err = -EINVAL;
			break;
		}
		if (k < REFCNT_FINDING__MAX) {
			*mask |= 1U << k;
			continue;
		}
		for (k = 0; k < REFCNT_FINDING__MAX; k++) {
			if (refcnt_finding__is_bug(k))
				*mask |= 1U << k;
		}
	}
	free(copy);
	if (!err && !*mask) {
		snprintf(bad, bad_sz, "%s", list);
		err = -EINVAL;
	}
	return err;
}

static int suppressions__add(struct refcnt_suppressions *sup, int kind, const char *pattern)
{
	struct refcnt_suppression *s = realloc(sup->s, (sup->nr + 1) * sizeof(*s));

	if (!s)
		return -ENOMEM;
	sup->s = s;
	s = &sup->s[sup->nr];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->pattern = strdup(pattern);
	if (!s->pattern)
		return -ENOMEM;
	sup->nr++;
	return 0;
}

int refcnt_suppressions__parse(struct refcnt_suppressions *sup, const char *text, int *line)
{
	char *copy = strdup(text), *cur, *next;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	*line = 0;
	for (cur = copy; cur && !err; cur = next) {
		char *colon, *kind, *pattern;
		int k;

		next = strchr(cur, '\n');
		if (next)
			*next++ = '\0';
		(*line)++;
		if (strchr(cur, '#'))
			*strchr(cur, '#') = '\0';
		kind = strim(cur);
		if (!*kind)
			continue;
		colon = strchr(kind, ':');
		if (!colon) {
			err = -EINVAL;
			break;
		}
		*colon = '\0';
		pattern = strim(colon + 1);
		k = refcnt_finding_kind__parse(strim(kind), false);
		if (k < 0 || !*pattern) {
			err = -EINVAL;
			break;
		}
		err = suppressions__add(sup, k, pattern);
	}
	free(copy);
	return err;
}

int refcnt_suppressions__read(struct refcnt_suppressions *sup, const char *path, int *line)
{
	FILE *fp = fopen(path, "r");
	char *text = NULL;
	size_t size = 0;
	ssize_t len;
	int err;

	*line = 0;
	if (!fp)
		return -errno;
	len = getdelim(&text, &size, '\0', fp);
	err = ferror(fp) ? -EIO : 0;
	fclose(fp);
	if (!err && len > 0)
		err = refcnt_suppressions__parse(sup, text, line);
	free(text);
	return err;
}

void refcnt_suppressions__exit(struct refcnt_suppressions *sup)
{
	for (u32 i = 0; i < sup->nr; i++)
		zfree(&sup->s[i].pattern);
	zfree(&sup->s);
	sup->nr = 0;
}

struct refcnt_suppression *
refcnt_suppressions__match(const struct refcnt_suppressions *sup,
			   enum refcnt_finding_kind kind, const char * const *frames, u32 nr)
{
	for (u32 i = 0; i < sup->nr; i++) {
		if (sup->s[i].kind != kind)
			continue;
		for (u32 f = 0; f < nr; f++) {
			if (frames[f] && !fnmatch(sup->s[i].pattern, frames[f], 0))
				return &sup->s[i];
		}
	}
	return NULL;
}
