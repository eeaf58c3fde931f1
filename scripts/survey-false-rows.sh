# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by scripts/survey.sh (and its test, scripts/test-survey.sh): the
# judgement of a report's second and third bug rows. Needs $top, the
# repository (for scripts/sanitizer-top.awk).

# The second and third certain bug rows of $1's report (kind, type and
# function, as the judge groups them) that the sanitizer's run does not
# back, as the judge backs the first: a leak row if LSan names its
# function for leaked references of its type, or, for a leak's owner
# ("its owner's": the caller that never put a lookup's result), if its
# function is on the stacks of such leaks; a double put, over-release or
# use after put row never when LSan reported leaks: ASan stops at its
# first error, so its report had none. Prints them, ";" between; nothing
# if none. After a first row that agrees with an ASan error, the others
# are not judged: LSan did not run, and ASan reported only that error.
false_rows() {
	local dir=$1 said=$2 kind type func why backed sep=""

	[ "${said%% *}" = leak ] || return 0
	awk -F, '($1 == "leak" || $1 == "over-release" || $1 == "double put" ||
		  $1 == "use after put") && $6 == 0 && !(($1 FS $2 FS $5) in seen) {
			seen[$1 FS $2 FS $5] = 1
			if (++n > 1 && n <= 3)
				print $1 FS $2 FS $5 FS $11
		}' "$dir/audit/findings" |
	while IFS=, read -r kind type func why; do
		backed=
		if [ "$kind" = leak ]; then
			backed=$(sanitizer_backs "$dir" "$type" "$func" "$func")
			[ -n "$backed" ] || [ "$why" != "its owner's" ] ||
				backed=$(sanitizer_backs "$dir" "$type" "$func" "")
		fi
		[ -n "$backed" ] && continue
		printf '%s%s %s %s' "$sep" "$kind" "$type" "$func"
		sep="; "
	done
}

# Did leaked references of type $2 have function $3 on their stack, among
# those LSan names at function $4 (any if empty), in $1's sanitizer run?
sanitizer_backs() {
	awk -v status=0 -v also="$3" -v under="$4" -f "${top:?}/scripts/sanitizer-top.awk" \
		"$1/asan/report" 2> /dev/null |
		awk -v t="$2" '$1 == "also" && $2 == "leak" && $3 == t && $5 > 0 { print "y"; exit }'
}
