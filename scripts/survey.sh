#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make survey: perf's own commands, each run twice, under perf refcnt
# record on the normal perf and as the same perf built with ASan (RC_CHK:
# every reference an allocation of its own; LSan at exit). The sanitizer
# is the oracle of what really leaked or was used after its last put; the
# survey says, one line per command, what it found first, perf refcnt's
# first bug row and whether the two agree (scripts/survey-judge.awk), then
# the totals. A first row that agrees is not enough: a certain bug row
# among the first three that the sanitizer does not back (false_rows())
# is a false row, and the verdict disagree. The commands are tools/perf/tests/refcnt-survey/commands;
# the recordings they read are made here, by the normal perf.
#
# Usage: survey.sh PERF ASAN_PERF OUTDIR [NAME...]
#   PERF records and reports, and is the perf audited; ASAN_PERF is its
#   ASan build (make asan). NAMEs pick commands (default: all); "check"
#   picks those marked check. Each run is bounded (REFCNT_SURVEY_TIMEOUT,
#   default 300 s), a TUI command is quit after REFCNT_SURVEY_TUI_SECONDS
#   (default 5). REFCNT_SURVEY_RECORD_OPTS are more perf refcnt record
#   options for every audit (--max-stack 8).
#
# Exits 0 when every verdict is agree, or what the command list expects;
# a command without a verdict (a run that failed or was killed) fails the
# survey unless the list expects it (perf crashes there, not of a
# refcount), as does any other unexpected verdict. An expected
# disagreement (a defect of perf refcnt the list explains) that agrees
# on this run's input is said, not failed: whether the bug shows, or how,
# may depend on the input.
set -uo pipefail

perf=$(realpath "${1:?usage: survey.sh PERF ASAN_PERF OUTDIR [NAME...]}")
asan=$(realpath "${2:?ASAN_PERF}")
out=${3:?OUTDIR}
shift 3
top=$(cd "$(dirname "$0")/.." && pwd)
list=$top/tools/perf/tests/refcnt-survey/commands
limit=${REFCNT_SURVEY_TIMEOUT:-300}
tui_seconds=${REFCNT_SURVEY_TUI_SECONDS:-5}
read -r -a record_opts <<< "${REFCNT_SURVEY_RECORD_OPTS:-}"

if [ "$(id -u)" -ne 0 ]; then
	echo "survey: needs root (uprobes for the audits): run it as root" >&2
	exit 1
fi
for p in "$perf" "$asan"; do
	[ -x "$p" ] || { echo "survey: no perf at $p: run make build asan first" >&2; exit 1; }
done
mkdir -p "$out/inputs"
out=$(realpath "$out")
in=$out/inputs

# input NAME: make the recording NAME.data that commands read as @NAME,
# unless it is made; fails if it cannot be (said once). It is made in a
# directory of its own and moved in place whole: an interrupted survey
# leaves no partial recording for the next to take.
input() {
	local name=$1 tmp=$in/.$1 events=/sys/kernel/tracing/available_events contend
	local work=("$perf" test -w noploop 1) msg=("$perf" bench sched messaging -g 2 -l 10)

	[ -s "$in/$name.data" ] && return 0
	[ -z "${unmade[$name]:-}" ] || return 1
	[ -r "$events" ] || events=/sys/kernel/debug/tracing/available_events
	# readers of one tracefs file contend on a mutex of the kernel image:
	# perf lock looks up the kernel symbol of each such lock
	contend="for i in 1 2 3; do (for j in \$(seq 30); do cat $events; done > /dev/null) & done; wait"
	case $name in
	ag)	set -- "$perf" record -q -a -g -e cpu-clock -o ag.data -- "${work[@]}" ;;
	ag2)	set -- "$perf" record -q -a -e cpu-clock -o ag2.data -- "${work[@]}" ;;
	fp)	set -- "$perf" record -q -g -e cpu-clock -o fp.data -- "${work[@]}" ;;
	dwarf)	set -- "$perf" record -q --call-graph dwarf -e cpu-clock -o dwarf.data -- "${work[@]}" ;;
	sched)	set -- "$perf" sched record -o sched.data -- "${msg[@]}" ;;
	lock)	set -- "$perf" lock record -o lock.data -- bash -c "$contend" ;;
	kmem)	set -- "$perf" kmem record -o kmem.data -- "${msg[@]}" ;;
	kwork)	set -- "$perf" kwork record -o kwork.data -- bash -c "sync; sleep 1" ;;
	trace)	set -- "$perf" trace record -o trace.data -- ls ;;
	tc)	set -- bash -c "'$perf' timechart -o /dev/null record -- ${msg[*]} && mv perf.data tc.data" ;;
	*)	echo "survey: no recording $name is made: see the list's ARGS" >&2
		unmade[$name]=1
		return 1 ;;
	esac
	rm -rf "$tmp"
	mkdir -p "$tmp"
	if (cd "$tmp" && timeout -k 10 "$limit" "$@" < /dev/null > "$name.log" 2>&1) &&
	   [ -s "$tmp/$name.data" ]; then
		mv "$tmp/$name.data" "$in/$name.data"
		rm -rf "$tmp"
		return 0
	fi
	echo "survey: cannot record $name: see $tmp/$name.log" >&2
	unmade[$name]=1
	return 1
}

# inputs REST: make the recordings the arguments REST read; prints the
# first that cannot be made
inputs() {
	local words w

	read -ra words <<< "$1"
	for w in "${words[@]}"; do
		case $w in
		@OUT|@perf)	;;
		@*)		input "${w#@}" || { echo "${w#@}"; return 1; } ;;
		esac
	done
}

# args ARGS: the command's arguments, one a line, @NAME made a path, @OUT
# "out" (each run has a directory of its own: the two runs at once do not
# write the same file) and @perf the audited perf itself
args() {
	local rest=$1 a

	xargs printf '%s\n' <<< "$rest" | while IFS= read -r a; do
		case $a in
		@OUT)	a=out ;;
		@perf)	a=$perf ;;
		@*)	a=$in/${a#@}.data ;;
		esac
		# not echo: -e, -n and -E are arguments of perf too
		printf '%s\n' "$a"
	done
}

# in_terminal MODE STATUS-FILE CMD...: CMD in a terminal of its own, the
# keys of MODE (tui:KEY,KEY) sent, then q until it ends; its exit status
# in STATUS-FILE (none if it had to be killed)
in_terminal() {
	local mode=$1 status=$2 keys k i session

	# the sanitizer's run and the audit have a terminal each
	session=perf-refcnt-survey-$$-$(basename "$(dirname "$status")")

	shift 2
	rm -f "$status"
	tmux -L "$socket" new-session -d -s "$session" -x 160 -y 50 -c "$PWD" \
		"$(printf '%q ' "$@") 2> $(printf '%q' "$status.err"); echo \$? > $(printf '%q' "$status")"
	sleep "$tui_seconds"
	IFS=, read -ra keys <<< "${mode#tui:}"
	[ "$mode" = tui ] && keys=()
	for k in "${keys[@]}"; do
		tmux -L "$socket" send-keys -t "$session" "$k" 2> /dev/null
		sleep 1
	done
	for i in $(seq "$limit"); do
		tmux -L "$socket" has-session -t "$session" 2> /dev/null || break
		[ $((i % 5)) -eq 1 ] && tmux -L "$socket" send-keys -t "$session" q 2> /dev/null
		sleep 1
	done
	tmux -L "$socket" kill-session -t "$session" 2> /dev/null
	[ -s "$status" ] || return 137
	return "$(cat "$status")"
}

# run DIR MODE CMD...: CMD in DIR, bounded, stderr in DIR/stderr; returns
# its exit status, 137 if it had to be killed
run() {
	local dir=$1 mode=$2 rc=0

	shift 2
	if [ "$mode" = stdio ]; then
		# the shell's own line about a death by a signal: not on stderr
		{ (cd "$dir" && timeout -k 10 "$limit" "$@" < /dev/null > /dev/null \
			2> "$dir/stderr"); } 2> /dev/null || rc=$?
		[ $rc -ne 124 ] || rc=137
		return $rc
	fi
	(cd "$dir" && in_terminal "$mode" "$dir/status" "$@") || rc=$?
	cat "$dir/status.err" > "$dir/stderr" 2> /dev/null
	return $rc
}

# sanitize DIR MODE ARGS...: the ASan perf runs the command; prints what
# sanitizer-top.awk makes of its report
sanitize() {
	local dir=$1/asan mode=$2 rc=0

	shift 2
	mkdir -p "$dir"
	rm -f "$dir"/log.*
	run "$dir" "$mode" env ASAN_OPTIONS="log_path=$dir/log" "$asan" "$@" || rc=$?
	cat "$dir"/log.* "$dir/stderr" > "$dir/report" 2> /dev/null
	awk -v status="$rc" -f "$top/scripts/sanitizer-top.awk" "$dir/report"
}

# audit DIR MODE ARGS...: perf refcnt record of the command, its report's
# findings in DIR/audit/findings; prints ok, "exit N", failed or killed
# (survey-judge.awk's audit status)
audit() {
	local dir=$1/audit mode=$2 rc=0

	shift 2
	mkdir -p "$dir"
	rm -f "$dir/refcnt.data" "$dir/findings"
	run "$dir" "$mode" "$perf" refcnt record "${record_opts[@]}" -o "$dir/refcnt.data" \
		-- "$perf" "$@" || rc=$?
	echo "$rc" > "$dir/exit-status"
	# perf refcnt record exits as the command did: of its signal (the
	# bug may do that: judged), or with its status (it failed: not)
	if [ $rc -eq 137 ]; then
		: > "$dir/findings"
		echo killed
	elif [ ! -s "$dir/refcnt.data" ] ||
	     ! timeout -k 10 "$limit" "$perf" refcnt report -i "$dir/refcnt.data" -x, \
		> "$dir/findings" 2> "$dir/report.err"; then
		: > "$dir/findings"
		echo failed
	elif [ $rc -ne 0 ] && { [ $rc -le 128 ] || [ $rc -gt 192 ]; }; then
		echo "exit $rc"
	else
		echo ok
	fi
}

# expected NAME: the verdict the list expects of NAME
expected() {
	awk -v name="$1" '
		$1 == name { found = 1; want = "agree"; next }
		found && /^#  expect: / { want = $3; sub(/:$/, "", want) }
		found { exit }
		END { print want }' "$list"
}

selected() {
	local name=$1 check=$2 n

	[ ${#picks[@]} -eq 0 ] && return 0
	for n in "${picks[@]}"; do
		[ "$n" = "$name" ] && return 0
		[ "$n" = check ] && [ "$check" = check ] && return 0
	done
	return 1
}

picks=("$@")
# the TUI commands' terminals: a tmux server of the survey's own, whose
# environment is the survey's, not that of a server someone else started
socket=perf-refcnt-survey-$$
# however the survey ends: what it still runs (the sanitizer's run in
# the background, and all below it; perf refcnt record's guardian
# removes the uprobes of a recorder killed so), and its terminals
kill_tree() {
	local child

	for child in $(pgrep -P "$1"); do
		kill_tree "$child"
	done
	kill -KILL "$1" 2> /dev/null
}
end_runs() {
	local child

	for child in $(pgrep -P $$); do
		kill_tree "$child"
	done
	tmux -L "$socket" kill-server 2> /dev/null
}
trap end_runs EXIT
trap 'exit 130' INT TERM

declare -A total unmade
failed=0
commands=0
# false_rows(): the rows among the first three the sanitizer does not back
. "$top/scripts/survey-false-rows.sh"

judged=0
bugs=0
start=$SECONDS
printf '%-22s %-46s %-46s %s\n' command "sanitizer (ASan+RC_CHK, LSan)" \
	"perf refcnt's first bug row" verdict
# the list read first: no command run may share its file offset
mapfile -t lines < "$list"
for line in "${lines[@]}"; do
	read -r name check mode rest <<< "$line"
	case ${name:-} in ''|'#'*) continue ;; esac
	selected "$name" "$check" || continue
	commands=$((commands + 1))
	if ! missing=$(inputs "$rest"); then
		printf '%-22s %-46s %-46s %s\n' "$name" - - "skip: no recording $missing"
		total[skip]=$((${total[skip]:-0} + 1))
		judged=$((judged + 1))
		continue
	fi
	dir=$out/$name
	mkdir -p "$dir"
	mapfile -t argv < <(args "$rest")
	# the two runs at once: the ASan perf is another binary, which the
	# audit's uprobes do not touch, and it computes while the audit
	# waits for its probes to close
	sanitize "$dir" "$mode" "${argv[@]}" > "$dir/sanitizer-said" &
	sanitizer=$!
	status=$(audit "$dir" "$mode" "${argv[@]}")
	wait $sanitizer
	said=$(cat "$dir/sanitizer-said")
	IFS=$'\t' read -r verdict row < <(awk -v sanitizer="$said" -v audit="$status" \
		-f "$top/scripts/survey-judge.awk" "$dir/audit/findings")
	# a leak at another function than LSan's: is it on the stack of
	# the leaks LSan names there (the owner that never put what a
	# lookup returned)?
	if [ "$verdict" = disagree ] && [ "${row%% *}" = leak ] && [ "${said%% *}" = leak ]; then
		also=$(awk -v status=0 -v also="$(echo "$row" | awk '{ print $3 }')" \
			-v under="$(echo "$said" | awk '{ print $3 }')" \
			-f "$top/scripts/sanitizer-top.awk" "$dir/asan/report" | paste -sd';')
		IFS=$'\t' read -r verdict row < <(awk -v sanitizer="$said" -v audit="$status" \
			-v also="$also" -f "$top/scripts/survey-judge.awk" "$dir/audit/findings")
	fi
	# the first row agrees: the next two must not be false ones
	if [ "$verdict" = agree ] && [ -n "$said" ]; then
		false_row=$(false_rows "$dir" "$said")
		if [ -n "$false_row" ]; then
			verdict=disagree
			echo "    $name: a false row in the top 3: $false_row"
		fi
	fi
	# no line from the judge is no verdict, never a hole in the totals
	[ -n "$verdict" ] || verdict="no-verdict:the judge said nothing"
	want=$(expected "$name")
	printf '%-22s %-46s %-46s %s\n' "$name" "${said:-nothing}" "$row" "$verdict"
	case $verdict in
	no-verdict:*)	key=no-verdict ;;
	*)		key=$verdict ;;
	esac
	total[$key]=$((${total[$key]:-0} + 1))
	[ "$key" != agree ] || [ -z "$said" ] || bugs=$((bugs + 1))
	# an expected no-verdict is the sanitizer's run crashing (perf's own
	# crash, not of a refcount), never a failed or killed audit
	[ "$want" != no-verdict ] || [[ $verdict == "no-verdict:the sanitizer's run crashed"* ]] ||
		want="no-verdict: the sanitizer's run crashing"
	if [ "$key" = agree ] && [ "$want" = disagree ]; then
		# a known defect that the input did not show (perf lock needs
		# contention on a lock of the kernel image; perf annotate may
		# crash before or after a refcount event on the object it freed)
		echo "    $name: agrees on this input; the list says why it may not"
	elif [ "$key" != "$want" ]; then
		failed=$((failed + 1))
		echo "    $name: expected $want" >&2
	fi
	judged=$((judged + 1))
done

echo "survey: $commands commands: ${total[agree]:-0} agree ($bugs on a bug the sanitizer" \
     "found), ${total[disagree]:-0} disagree, ${total[uncertain]:-0} uncertain," \
     "${total[no-verdict]:-0} without a verdict, ${total[skip]:-0} skipped (no recording)," \
     "in $((SECONDS - start)) s; $failed not as the list expects"
# an error that ends the loop early must not pass for a short list
if [ "$judged" -ne "$commands" ]; then
	echo "survey: only $judged of $commands commands judged: the survey stopped early" >&2
	exit 1
fi
[ $commands -gt 0 ] && [ $failed -eq 0 ]
