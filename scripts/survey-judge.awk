# SPDX-License-Identifier: GPL-2.0
#
# make survey's judge: does perf refcnt's report of a command agree with
# what the sanitizer (ASan with RC_CHK, LSan at exit) said of the same
# command? Input: the report's findings (perf refcnt report -x,). Set:
#
#   -v sanitizer="LINE"  what scripts/sanitizer-top.awk printed of the
#                        sanitizer's run: "" (nothing), "leak TYPE FUNC N
#                        ALL", "use after free TYPE FUNC - -", "double free
#                        TYPE FUNC - -" or "crash ERROR FUNC"
#   -v also="LINES"      optional: what sanitizer-top.awk -v also=FUNC
#                        -v under=SFUNC printed of the same report, FUNC
#                        being the function of the first bug row of a first
#                        judgement, SFUNC the sanitizer's function, its lines
#                        joined by ";": "also leak TYPE FUNC N" says that N
#                        leaked references of TYPE have FUNC on their stack
#   -v audit=STATUS      ok (the command ended, by itself or of a signal:
#                        a crash may be what the bug does), "exit N" (the
#                        command failed: its output says nothing of the
#                        refcounts of what it should have done), failed
#                        (no recording or no report: the input is empty)
#                        or killed (the audit ran out of time)
#
# Prints one line, "VERDICT<TAB>ROW": ROW is perf refcnt's first bug row
# ("kind type function references", "-" if none), VERDICT one of
#
#   agree          both say nothing, or both name the same kind of bug,
#                  type and function (below)
#   disagree       they name different bugs, or only one names a bug
#   uncertain      perf refcnt's only bug rows are uncertain ones (lost
#                  events, a partial scan...), or it found counts that
#                  do not match (mismatch) where the sanitizer found
#                  nothing: it claims nothing either way
#   no-verdict:WHY the sanitizer's run crashed or was killed (its first
#                  refcount error may be past the crash), or the audit
#                  failed or was killed: never counted as agreement
#
# The kinds that agree: a leak with a leak (at the function LSan names,
# or at one on the stacks of the leaks of that type it names there: perf
# refcnt names a leak's owner, the caller that never put what a lookup
# returned, where LSan names the get in the lookup); a use after free with a use
# after put, an over-release or a double put; a double free with a
# double put, an over-release or a use after put. The function: for a
# leak, the site perf refcnt names; for a double free, where ASan names
# the extra put, that site too; for a use after free, where ASan names
# the put that freed the object, the report's freed-by field, or the
# site of a double put or over-release (the put after it). The first bug
# row is the first certain one: the report sorts certain rows before
# uncertain ones of a kind, but not across kinds. Its count is that of
# every row of the same kind, type and site (a site's rows are split by
# why it is the site).

BEGIN {
	FS = ","
	split(sanitizer, said, " ")
	skind = said[1]
	if (skind == "use" || skind == "double") {
		skind = said[1] " " said[2] " " said[3]
		if (said[1] == "double")
			skind = "double free"
		stype = said[1] == "double" ? said[3] : said[4]
		sfunc = said[1] == "double" ? said[4] : said[5]
	} else {
		stype = said[2]
		sfunc = said[3]
	}
}

function bug(kind) {
	return kind == "leak" || kind == "over-release" || kind == "double put" ||
	       kind == "use after put"
}

bug($1) && $6 == 0 && first == "" {
	first = $1 " " $2 " " $5
	fkind = $1; ftype = $2; ffunc = $5; ffreed = $7; fwhy = $11
}
bug($1) && $6 == 0 && $1 " " $2 " " $5 == first {
	frefs += $3
}
$1 == "mismatch" {
	mismatch = 1
}
bug($1) && $6 != 0 && uncertain == "" {
	uncertain = "uncertain " $1 " " $2 " " $5 " " $3
}

function kinds_agree(s, r) {
	if (s == "leak")
		return r == "leak"
	if (s == "use after free" || s == "double free")
		return r == "use after put" || r == "over-release" || r == "double put"
	return 0
}

# Is the first row a leak's owner (the caller that never put a lookup's
# result), on the stack of the leak the sanitizer names? A row at another
# frame of that stack for another reason is no agreement.
function on_leak_stack(   n, i, w, lines) {
	if (fwhy != "its owner's")
		return 0
	n = split(also, lines, ";")
	for (i = 1; i <= n; i++) {
		split(lines[i], w, " ")
		if (w[1] == "also" && w[2] == "leak" && w[3] == ftype && w[4] == ffunc && w[5] > 0)
			return 1
	}
	return 0
}

function functions_agree() {
	if (skind == "use after free")
		return sfunc == ffreed || (fkind != "use after put" && sfunc == ffunc)
	return sfunc == ffunc || (skind == "leak" && on_leak_stack())
}

END {
	row = first != "" ? first " " frefs : (uncertain != "" ? uncertain : "-")
	if (audit ~ /^exit [0-9]+$/) {
		verdict = "no-verdict:the command failed (" audit ")"
	} else if (audit == "killed" || audit == "failed") {
		verdict = "no-verdict:the audit " (audit == "killed" ? "was killed" : "failed")
	} else if (audit != "ok") {
		verdict = "no-verdict:the audit's status is unknown (" audit ")"
	} else if (said[1] == "crash") {
		verdict = "no-verdict:the sanitizer's run crashed (" said[2] " in " said[3] ")"
	} else if (sanitizer != "" && skind != "leak" && skind != "use after free" &&
		   skind != "double free") {
		verdict = "no-verdict:the sanitizer's line is not understood"
	} else if (sanitizer == "") {
		if (first != "")
			verdict = "disagree"
		else
			verdict = uncertain != "" || mismatch ? "uncertain" : "agree"
	} else if (first == "") {
		verdict = uncertain != "" ? "uncertain" : "disagree"
	} else if (kinds_agree(skind, fkind) && stype == ftype && functions_agree()) {
		verdict = "agree"
	} else {
		verdict = "disagree"
	}
	printf "%s\t%s\n", verdict, row
}
