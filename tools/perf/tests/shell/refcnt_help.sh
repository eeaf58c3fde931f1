#!/bin/bash
# refcnt help: the man page, -h, and bash completion of refcnt
# SPDX-License-Identifier: GPL-2.0
#
# 'perf help refcnt' renders the man page the build made, 'perf refcnt -h'
# and 'perf refcnt report -h' list the subcommands and options, and perf's
# bash completion completes refcnt, its subcommands and their options.

set -u

# shellcheck source=lib/refcnt.sh
. "$(dirname "$0")"/lib/refcnt.sh
refcnt_test_init "refcnt help"

# the man page, through man when there is one: what the user gets
if command -v man > /dev/null; then
	MANPAGER=cat MANWIDTH=100 perf help refcnt > "$tmpdir/man" 2>&1
	for want in "perf-refcnt - Audit the reference counts" "^RECORD OPTIONS" \
		    "^REPORT OPTIONS" "^DIFF OPTIONS" "^OUTPUT" "^DIFF OUTPUT" "^LIMITATIONS" \
		    "^EXIT STATUS" "--uncover" "--tui"; do
		grep -qe "$want" "$tmpdir/man" || fail "perf help refcnt: no '$want'"
	done
	grep -q "^OUTPUT" "$tmpdir/man" && echo "refcnt help: man page: $(grep -c . "$tmpdir/man") lines"
else
	echo "refcnt help: man is not installed: the man page is not checked"
fi

perf refcnt -h > "$tmpdir/h" 2>&1
grep -q "perf refcnt \[<options>\] {record|report|diff}" "$tmpdir/h" || fail "perf refcnt -h: $(head -n 2 "$tmpdir/h")"
perf refcnt report -h > "$tmpdir/h" 2>&1
for want in "--stdio" "--tui" "--history" "--field-separator"; do
	grep -qe "$want" "$tmpdir/h" || fail "perf refcnt report -h: no $want"
done

# bash completion, as perf-completion.sh does it at a TAB: the script
# beside the tests in a source tree, or in the source of an out-of-tree build
# of the perf under test or of the audited one
completion=
for f in "$(dirname "$(readlink -f "$0")")/../../perf-completion.sh" \
	 "$(dirname "$(readlink -f "$perf")")/../src/tools/perf/perf-completion.sh" \
	 "$(dirname "$(readlink -f "$target")")/../src/tools/perf/perf-completion.sh" \
	 /etc/bash_completion.d/perf; do
	if [ -f "$f" ]; then
		completion=$f
		break
	fi
done
if [ -n "$completion" ]; then
	# the completion script is written for interactive shells, not set -u
	set +u
	# shellcheck disable=SC1090
	. "$completion"
	complete_words() {
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE="$*"
		COMP_POINT=${#COMP_LINE}
		COMPREPLY=()
		_perf
		echo "${COMPREPLY[*]}"
	}
	check_completion() {
		local want=$1 got

		shift
		got=$(complete_words "$@")
		if [[ " $got " != *" $want "* ]]; then
			fail "completion of '$*': '$got', no '$want'"
		else
			echo "refcnt help: '$*' completes to: $got"
		fi
	}
	# the perf under test completes: it is the command typed
	check_completion refcnt "$perf" ref
	check_completion report "$perf" refcnt re
	check_completion --uncover "$perf" refcnt record --unc
	check_completion --call-graph "$perf" refcnt record --call
	check_completion --tui "$perf" refcnt report --t
	check_completion diff "$perf" refcnt d
	check_completion --field-separator "$perf" refcnt diff --fi
else
	fail "no perf-completion.sh beside the tests or the perf under test"
fi
exit $err
