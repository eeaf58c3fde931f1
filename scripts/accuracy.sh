#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make accuracy: does perf refcnt name the function that holds a refcount
# bug in real perf? Each variant under tools/perf/tests/refcnt-accuracy/
# is a small patch that seeds one bug into perf. It is built from the same
# tree as build/perf, incrementally: in a mount namespace, overlays put a
# copy-on-write layer over the source and object trees, the patch goes into
# it, and make rebuilds what the patch touches (an object file or two and
# the link). The clean trees are never written. The variant then runs a
# real perf command under perf refcnt record, and the report's top bug row
# must name the variant's function, type and kind. So must the first bug
# row of perf refcnt diff of the clean perf's recording and the variant's:
# two builds of perf on the same command, compared by names, and its
# --fail-on=bugs must exit 23. The first function of the diff's balance
# (the most changed references per call) is shown beside it.
#
# A variant's header (before its diff) says what to run and what to find:
#   Audit: report | script | annotate | stat | top | <perf arguments>
#			(arguments: @input is the recorded input, quotes
#			group words: test -F "Lookup mmap thread")
#   Expect: <finding> <type> <function>
#   Changed: <function>...	(optional, default: Expect's function) every
#			function the patch changes
#   Set: dev | heldout	(optional; default tuned: 01 to 10, which the
#			attribution was fitted to) heldout variants are the
#			figure of merit: never tune the attribution on them
#   Shape: <word>	(optional) the shape of bug it seeds
#   Sanitizer: <type> <function>	(optional) what the sanitizer names
#			where it cannot name the function (LSan names where a
#			leaked reference was taken, never the teardown that
#			forgot to put it)
#   Held: yes		(optional) the top row's objects hold others that
#			only leaked objects reach (held by a leak)
#
# A variant passes when the report's first bug row is of Expect's kind and
# type and names Expect's function or one the patch changes (the function
# that holds the bug: a variant's build may keep out of line what the
# clean build inlines into Expect's), and no certain bug row among its
# first three blames a function that the patch did not change (a false
# second row is a defect too).
#
# Usage: accuracy.sh PERF SRC OBJ OUTDIR [VARIANT...]
#   PERF is the perf refcnt that records and reports (and the clean target);
#   SRC and OBJ are its trees; PERF_MAKE_FLAGS says how they were built.
#   VARIANTs are names (01-extra-get...) or patch files; default: all,
#   or those of the set ACCURACY_SET names (dev or heldout).
#   Prints one line per variant, then a total per set; fails unless all
#   pass.
#
# With ACCURACY_ASAN_OBJ (the object tree of the same source built with
# ACCURACY_ASAN_CFLAGS, AddressSanitizer: make asan), each variant is built
# a second time from it and runs the same command: with ASan, perf's
# RC_CHK gives each reference an allocation of its own, so LeakSanitizer
# names the function whose get was never put, and ASan the put that freed
# a reference under its user. What the sanitizer names (and, for leaks, how
# many of the leaked references it puts there, against perf refcnt's count)
# is printed under the variant, and it must name the function the variant
# expects: the sanitizer judges the expectation. The clean ASan perf must
# report nothing on each command.
#
# ACCURACY_RECORD_OPTS are more perf refcnt record options for every audit
# (--max-stack 8: what shorter callchains cost the attribution).
set -euo pipefail

perf=$(realpath "${1:?usage: accuracy.sh PERF SRC OBJ OUTDIR [VARIANT...]}")
src=$(realpath "${2:?SRC}")
obj=$(realpath "${3:?OBJ}")
out=${4:?OUTDIR}
shift 4
top=$(cd "$(dirname "$0")/.." && pwd)
variants_dir=$top/tools/perf/tests/refcnt-accuracy
flags=${PERF_MAKE_FLAGS:?PERF_MAKE_FLAGS: how perf was built}
# top runs this long under the audit
top_seconds=${REFCNT_ACCURACY_TOP_SECONDS:-8}
asan_obj=${ACCURACY_ASAN_OBJ:-}
asan_cflags=${ACCURACY_ASAN_CFLAGS:--g -fsanitize=address -fno-omit-frame-pointer}
# how build/perf was built (make's PERF_CFLAGS)
perf_cflags=${ACCURACY_CFLAGS:--g}
read -r -a record_opts <<< "${ACCURACY_RECORD_OPTS:-}"
[ -z "$asan_obj" ] || asan_obj=$(realpath "$asan_obj")

if [ "$(id -u)" -ne 0 ]; then
	echo "accuracy: needs root (mount namespaces for the builds, uprobes for the audits)" >&2
	exit 1
fi
mkdir -p "$out"
out=$(realpath "$out")

# again FILE: with ACCURACY_REREPORT=1, FILE is kept from the last run
# (a recording, a sanitizer's log): reuse it. The recordings are then only
# reported again, by PERF: what a change of the report does, in minutes.
rereport=${ACCURACY_REREPORT:-}
again() {
	[ "$rereport" = 1 ] && [ -s "$1" ] && { [[ $1 != *.log ]] || [ -s "$1.status" ]; }
}

# header FIELD PATCH: the value of "FIELD: value" in the patch's header
header() {
	awk -v field="$1:" '/^---/ { exit } $1 == field { sub(/^[^:]*: */, ""); print; exit }' "$2"
}

# set_of PATCH: the set a variant is in
set_of() {
	local set

	set=$(header Set "$1")
	echo "${set:-tuned}"
}

variants=()
if [ $# -eq 0 ]; then
	for v in "$variants_dir"/*.patch; do
		[ -n "${ACCURACY_SET:-}" ] && [ "$(set_of "$v")" != "$ACCURACY_SET" ] && continue
		variants+=("$v")
	done
	[ ${#variants[@]} -gt 0 ] ||
		{ echo "accuracy: no variant in set '${ACCURACY_SET:-}'" >&2; exit 1; }
else
	for v in "$@"; do
		[ -f "$v" ] || v=$variants_dir/${v%.patch}.patch
		[ -f "$v" ] || { echo "accuracy: no variant $v" >&2; exit 1; }
		variants+=("$(realpath "$v")")
	done
fi

# build NAME PATCH [DIR OBJ CFLAGS]: the variant's perf, as DIR/perf
# (default $out/NAME), from the object tree OBJ built with EXTRA_CFLAGS
# CFLAGS (default: build/perf's)
build() {
	local name=$1 patch=$2 dir=${3:-$out/$1} tree=${4:-$obj} cflags=${5:-$perf_cflags}

	rm -rf "$dir"
	mkdir -p "$dir"/upper/src "$dir"/upper/obj "$dir"/work/src "$dir"/work/obj
	# shellcheck disable=SC2086
	if ! unshare --mount --propagation private bash -euc '
		mount -t overlay overlay -o "lowerdir=$1,upperdir=$3/upper/src,workdir=$3/work/src" "$1"
		mount -t overlay overlay -o "lowerdir=$2,upperdir=$3/upper/obj,workdir=$3/work/obj" "$2"
		patch -p1 -s -d "$1" < "$4"
		make -s -C "$1/tools/perf" $5 O="$2" EXTRA_CFLAGS="$6"
		cp "$2/perf" "$3/perf"' build "$src" "$tree" "$dir" "$patch" "$flags" "$cflags" \
		> "$dir/build.log" 2>&1; then
		echo "accuracy: $name does not build: see $dir/build.log" >&2
		tail -n 5 "$dir/build.log" >&2
		return 1
	fi
	# the layers hold the variant's objects: only its perf is kept
	rm -rf "$dir"/upper "$dir"/work
}

# command_args COMMAND: the arguments of perf that run COMMAND, one a line
command_args() {
	case $1 in
	report)		printf '%s\n' report --stdio -i "$out/input.data" ;;
	script)		printf '%s\n' script -i "$out/input.data" ;;
	annotate)	printf '%s\n' annotate --stdio -i "$out/input.data" ;;
	stat)		printf '%s\n' stat -e cycles -- true ;;
	*)		xargs printf '%s\n' <<< "$1" | sed "s|^@input\$|$out/input.data|" ;;
	esac
}

# key COMMAND: a name for COMMAND's clean run, as a file name
key() {
	tr -c 'A-Za-z0-9\n-' _ <<< "$1"
}

# in_terminal CMDLINE: run a TUI in a terminal of its own, q after a while;
# up to a minute for it to exit (perf top deletes its entries, the recorder
# scans and writes: a killed recorder leaves no recording)
in_terminal() {
	local session=perf-refcnt-accuracy-$$

	tmux new-session -d -s "$session" -x 120 -y 40 "$1"
	sleep "$top_seconds"
	tmux send-keys -t "$session" q 2> /dev/null || true
	for _ in $(seq 600); do
		tmux has-session -t "$session" 2> /dev/null || break
		sleep 0.1
	done
	tmux kill-session -t "$session" 2> /dev/null || true
}

# sanitize PERF COMMAND LOG: run COMMAND with PERF built with ASan, its
# report in LOG; print what it names first: "kind type function objects
# all" (objects: the leaked ones it puts at function, all: every direct
# leak), "crash error function" if it crashed (any other error of the
# sanitizer, a signal), or nothing if it reports nothing
sanitize() {
	local target=$1 command=$2 log=$3 args rc=0

	if again "$log"; then
		rc=$(cat "$log.status" 2> /dev/null || echo 0)
	elif [ "$command" = top ]; then
		in_terminal "ASAN_OPTIONS=log_path=$log.top $target top -z -d 1"
		cat "$log".top.* > "$log" 2> /dev/null || : > "$log"
		rm -f "$log".top.*
	else
		mapfile -t args < <(command_args "$command")
		"$target" "${args[@]}" > /dev/null 2> "$log" || rc=$?
	fi
	echo "$rc" > "$log.status"
	awk -v status="$rc" -f "$top/scripts/sanitizer-top.awk" "$log"
}

# sanitizer_said LINE: sanitize's LINE for the table; a crash is no verdict
sanitizer_said() {
	local kind error func

	read -r kind error func _ <<< "$1"
	if [ "$kind" = crash ]; then
		echo "the sanitizer run crashed: $error in $func"
	else
		echo "${1:-nothing}"
	fi
}

# audit NAME PERF COMMAND: record COMMAND run by PERF (a perf), write the
# report's findings to $out/NAME/findings (-x,)
audit() {
	local name=$1 target=$2 command=$3 dir=$out/$1 args

	mkdir -p "$dir"
	if [ -n "$rereport" ] && [ -s "$dir/refcnt.data" ]; then
		set --
		command=again
	fi
	case $command in
	again)	;;
	top)
		in_terminal "$perf refcnt record ${record_opts[*]} -o $dir/refcnt.data -- $target top -z -d 1 2> $dir/record.err"
		set -- ;;
	'')
		echo "accuracy: $name: no Audit: line" >&2
		return 1 ;;
	*)
		mapfile -t args < <(command_args "$command")
		set -- "${args[@]}" ;;
	esac
	# the command may fail, or crash: the bug may do that (perf record then
	# dies of the same signal)
	if [ $# -gt 0 ]; then
		local rc=0

		( "$perf" refcnt record "${record_opts[@]}" -o "$dir/refcnt.data" -- "$target" "$@" \
			> /dev/null 2> "$dir/record.err"; exit $? ) 2> /dev/null || rc=$?
		[ "$rc" -le 128 ] || echo "    $name: the audited perf died of signal $((rc - 128))"
	fi
	if ! "$perf" refcnt report -i "$dir/refcnt.data" -x, > "$dir/findings" 2> "$dir/report.err"; then
		echo "accuracy: $name: no report: $(tail -n 1 "$dir/report.err")" >&2
		return 1
	fi
}

# bug_rows FILE: the findings that are bugs, in the report's order
# A function that GCC cloned (foo.isra.0, foo.constprop.0, foo.part.0,
# foo.cold) is that function: its rows name it by the clone's symbol, as
# perf report does; the variants' headers by the function's own name.
unclone='function unclone(f) { while (sub(/\.(isra|constprop|part|cold|lto_priv)(\.[0-9]+)*$/, "", f)); return f }'

# A use after put row is judged by the put that freed the object (its
# seventh field, the report's "the put that freed it"), as ASan's use
# after free names the free and as the survey judges it
# (survey-judge.awk): where the use is, is the symptom. Its fifth and
# seventh fields are swapped here; with no such put known ("-") it names
# no function.
bug_rows() {
	awk -F, -v OFS=, "$unclone"'
		$1 == "leak" || $1 == "over-release" || $1 == "double put" ||
		$1 == "use after put" {
			$5 = unclone($5); $7 = unclone($7)
			if ($1 == "use after put") { t = $5; $5 = $7; $7 = t }
			print }' "$1"
}

# The input is the whole machine for a second, while a process with a
# second thread runs (perf test -w thloop): the report of every input then
# meets a thread that is not its process's leader (thread__init_maps()'s
# pid != tid branch), whatever else runs on the machine. An input kept from
# a run that recorded it otherwise (input.how says how) is recorded again,
# unless the recordings made of it are only reported again.
input_how="record -a -g -- perf test -w thloop 1"
if [ ! -s "$out/input.data" ] ||
   { [ "$rereport" != 1 ] && [ "$(cat "$out/input.how" 2> /dev/null)" != "$input_how" ]; }; then
	"$perf" record -q -a -g -o "$out/input.data" -- "$perf" test -w thloop 1 \
		> /dev/null 2>&1 || { echo "accuracy: cannot record the input" >&2; exit 1; }
	echo "$input_how" > "$out/input.how"
fi

pass=0
failed=0
diff_top=()
start=$SECONDS
declare -A clean_done
# diff_rows NAME COMMAND: the first bug row of perf refcnt diff of the
# clean perf's recording of COMMAND and NAME's, "kind type site", then the
# first function of its balance; "- -" unless --fail-on=bugs says the
# variant made bugs worse (exit 23)
diff_rows() {
	local d=$out/$1/diff rc=0

	"$perf" refcnt diff -x, --fail-on=bugs "$out/clean-$(key "$2")/refcnt.data" \
		"$out/$1/refcnt.data" > "$d" 2> "$d.err" || rc=$?
	[ $rc -eq 23 ] || { echo "- -"; return; }
	awk -F, "$unclone"'
		$1 == "finding" && $2 != "gone" && ($3 == "leak" || $3 == "over-release" ||
		$3 == "double put" || $3 == "use after put") { print $3 " " $4 " " unclone($5); exit }' "$d"
	awk -F, "$unclone"' $1 == "balance" { print unclone($4); exit }' "$d"
}

# judge NAME PATCH COMMAND: the variant built with ASan runs COMMAND; what
# it names must be the type and function the variant expects, or the type,
# with that function on the stacks of what it names (the caller that never
# put a lookup's result is on the stack of the lookup's get). For leaks,
# how many leaked references each puts there, of all it found leaked.
judge() {
	local name=$1 patch=$2 command=$3 kind type func n all mine also
	local said=nothing ok=0

	if again "$out/$name/asan.log" ||
	   build "$name" "$patch" "$out/$name/asan" "$asan_obj" "$asan_cflags"; then
		read -r kind type func n all <<< "$(sanitize "$out/$name/asan/perf" "$command" \
			"$out/$name/asan.log" | sed 's/use after free/use_after_free/; s/double free/double_free/')"
		if [ "${kind:-}" = crash ]; then
			said=$(sanitizer_said "$kind $type $func")
		elif [ -n "${kind:-}" ]; then
			said="${kind//_/ } $type $func"
			[ "$type $func" = "$want_type $want_func" ] && ok=1
			# a teardown that skips a put is on no stack of the leak
			[ "$type $func" = "$(header Sanitizer "$patch")" ] && ok=1
			# a caller that never put a lookup's result: on its stack
			also=$(awk -v also="$want_func" -f "$top/scripts/sanitizer-top.awk" \
				"$out/$name/asan.log" | awk -v t="$want_type" \
				-v k="$([ "$want_kind" = leak ] && echo leak || echo error)" \
				'$2 == k && $3 == t { print $5 }')
			if [ $ok -eq 0 ] && [ -n "$also" ]; then
				ok=1
				said="$said, $also with $want_func on the stack"
			fi
		fi
		if [ "${kind:-}" = leak ]; then
			mine=$(awk -F, -v t="$want_type" -v f="$want_func" "$unclone"' $1 == "leak" {
				all += $3; if ($2 == t && unclone($5) == f) n += $3 }
				END { printf "%d of %d", n, all }' "$out/$name/findings")
			said=$(printf '%-48s %s of %s; perf refcnt %s' "$said" "$n" "$all" "$mine")
		fi
	fi
	printf '%-44s %s\n' "  asan + lsan (RC_CHK)" "$said"
	[ $ok -eq 1 ]
}

# false_rows ROWS CHANGED: the sites of the certain bug rows among the first
# three of ROWS that are no function of the list CHANGED
false_rows() {
	awk -F, -v changed="$2" 'BEGIN { n = split(changed, c, " "); for (i = 1; i <= n; i++) ok[c[i]] = 1 }
		NR <= 3 && $6 == 0 && !($5 in ok) { printf "%s%s %s %s", sep, $1, $2, $5; sep = "; " }' <<< "$1"
}

# row_names ROW "KIND TYPE" FUNCS: is ROW ("kind type function") of KIND and
# TYPE, naming one of FUNCS: Expect's function, or one the patch changes
# (a function the variant's build keeps out of line, where the Expect
# written for the clean build's inlining names its caller)
row_names() {
	local func=${1##* }

	[ "${1% *}" = "$2" ] && [[ " $3 " == *" $func "* ]]
}

# The clean perf audited is a copy kept with the recordings, as each
# variant's is: its recordings name no build id, and a report again
# (ACCURACY_REREPORT) after a rebuild of build/perf would read the sites
# of the binary that ran against the new one's symbols.
clean_perf=$out/perf
again "$clean_perf" || cp "$perf" "$clean_perf" || exit 1

declare -A set_pass set_all
printf '%-34s %-9s %-48s %5s %6s %s\n' variant audit "top bug row" rank secs result
for patch in "${variants[@]}"; do
	name=$(basename "$patch" .patch)
	command=$(header Audit "$patch")
	set=$(set_of "$patch")
	read -r want_kind want_type want_func <<< "$(header Expect "$patch" | sed 's/double put/double_put/; s/use after put/use_after_put/')"
	want_kind=${want_kind//_/ }
	t0=$SECONDS
	result=FAIL
	top_row=-
	rank=-
	clean=clean-$(key "$command")
	if [ -z "${clean_done[$clean]:-}" ]; then
		# the clean perf on the same command: no bug row; no report is no verdict
		if audit "$clean" "$clean_perf" "$command"; then
			bugs=$(bug_rows "$out/$clean/findings" | wc -l)
			clean_rows="$bugs bug rows"
		else
			bugs=1
			clean_rows="no report"
		fi
		clean_done[$clean]=1
		if [ -n "$asan_obj" ]; then
			said=$(sanitize "$asan_obj/perf" "$command" "$out/$clean/asan.log")
			[ -z "$said" ] || bugs=$((bugs + 1))
		fi
		printf '%-34s %-9s %-48s %5s %6s %s\n' "clean" "${command%% *}" "$clean_rows" - \
			$((SECONDS - t0)) "$([ "$bugs" -eq 0 ] && echo pass || echo FAIL)"
		[ -z "$asan_obj" ] || printf '%-44s %s\n' "  asan + lsan (RC_CHK)" \
			"$(sanitizer_said "$said")"
		[ "$command" = "${command%% *}" ] || echo "    clean: perf $command"
		if [ "$bugs" -eq 0 ]; then pass=$((pass + 1)); else failed=$((failed + 1)); fi
		t0=$SECONDS
	fi
	if { again "$out/$name/refcnt.data" || build "$name" "$patch"; } &&
	   audit "$name" "$out/$name/perf" "$command"; then
		rows=$(bug_rows "$out/$name/findings")
		# no pipes: a reader that is done early must not kill the script
		# (pipefail, set -e) with its writer's SIGPIPE
		top_row=$(awk -F, 'NR == 1 { print $1 " " $2 " " $5 }' <<< "$rows")
		rank=$(awk -F, -v f="$want_func" '$5 == f && !r { r = NR } END { if (r) print r }' \
			<<< "$rows")
		rank=${rank:--}
		row_names "$top_row" "$want_kind $want_type" "$want_func $(header Changed "$patch")" &&
			result=pass
		false_rows=$(false_rows "$rows" "$want_func $(header Changed "$patch")")
		if [ -n "$false_rows" ]; then
			result=FAIL
			echo "    $name: a certain row of the first three blames what it did not change: $false_rows"
		fi
		held=$(awk -F, 'NR == 1 { print $10 + 0 }' <<< "$rows")
		if [ "$(header Held "$patch")" = yes ] && [ "$held" -eq 0 ]; then
			result=FAIL
			echo "    $name: the top row holds no object held by a leak"
		fi
		mapfile -t diff_top < <(diff_rows "$name" "$command")
		row_names "${diff_top[0]:-}" "$want_kind $want_type" \
			"$want_func $(header Changed "$patch")" || result=FAIL
	fi
	printf '%-34s %-9s %-48s %5s %6s %s\n' "$name" "${command%% *}" "${top_row:--}" "$rank" \
		$((SECONDS - t0)) "$result"
	if [ ${#diff_top[@]} -gt 0 ]; then
		printf '%-34s %-9s %-48s %s\n' "  diff with clean" "" "${diff_top[0]:--}" \
			"balance: ${diff_top[1]:--}"
	fi
	diff_top=()
	if [ -n "$asan_obj" ] && [ -s "$out/$name/findings" ]; then
		judge "$name" "$patch" "$command" || result=FAIL
	fi
	[ "$result" = pass ] || echo "    wanted: $want_kind $want_type $want_func"
	if [ "$result" = pass ]; then pass=$((pass + 1)); else failed=$((failed + 1)); fi
	set_all[$set]=$((${set_all[$set]:-0} + 1))
	[ "$result" != pass ] || set_pass[$set]=$((${set_pass[$set]:-0} + 1))
done
for set in tuned dev heldout; do
	[ -z "${set_all[$set]:-}" ] ||
		echo "accuracy: $set: ${set_pass[$set]:-0} of ${set_all[$set]} variants pass"
done
echo "accuracy: $pass passed, $failed failed, in $((SECONDS - start)) s"
[ "$failed" -eq 0 ]
