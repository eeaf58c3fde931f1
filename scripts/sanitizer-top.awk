# SPDX-License-Identifier: GPL-2.0
#
# What an ASan perf's report names first, for make accuracy: one line,
# "kind type function objects all", or nothing when it reports nothing.
#
# perf built with ASan has RC_CHK: every get allocates an indirection and
# every put frees it. A leaked reference is a direct leak allocated by the
# get (LeakSanitizer), an extra put a double free or the free under a use
# after free (AddressSanitizer stops at the first). The function named is
# the first frame of the stack that is not the allocator nor the refcount
# API (the functions perf refcnt probes, util/refcnt/spec.c), taken out to
# the function it is inlined in, as perf refcnt names a site; the type is
# that of the API function below it (map__new() taking an nsinfo reference
# is the function, not the API). For leaks, the function that leaked
# the most objects, with their count and that of all direct leaks. With
# no direct leak of a reference, the same of the indirect ones (references
# only leaked memory holds: the holder that leaked is no refcounted
# object but a hist entry, a callchain node...), the line ending in
# "indirect".
#
# kind: leak, double free, use after free (the put that freed it).
#
# Any other error of the sanitizer (SEGV, heap-buffer-overflow...), one of
# those two whose stacks name no refcount API, a fatal error of the
# sanitizer itself or, with -v status=N (the exit status of the run), a
# death by a signal (128 + N) is a crash: "crash error function", the
# first frame of the error's stack that is not the sanitizer's ("-" if
# none); an exit status other than 0, 1 and 23 (the sanitizer's), with no
# error, is "crash exit-N -", the run failed. A crash is never "nothing".
# Ties between functions go to the first in the C locale's order.
#
# With -v also=FUNCTION, only "also leak|error type FUNCTION n" lines: how
# many references of each type leaked (direct, else indirect), or were
# freed twice or under a use (error), with FUNCTION on the stack (a caller
# that never put what a lookup returned is on the stack of the lookup's
# get). With -v under=NAMED too, only the stacks that name NAMED count
# (the function the sanitizer's line names).

function api(f) {
	return f ~ /^(__interceptor_|__interceptor_trampoline_)/ ||
	       f ~ /^(malloc|calloc|realloc|free|strdup|zalloc)$/ ||
	       f ~ /^(dso|map|maps|thread|nsinfo|perf_cpu_map|cpu_map)__(get|put|zput|new|new_id|new2|clone|copy|alloc|delete|refcnt)$/
}

function type_of(f) {
	sub(/__[a-z_0-9]*$/, "", f)
	return f == "perf_cpu_map" || f == "cpu_map" ? "cpu_map" : f
}

# the stack read so far: nr frames, pc[] and fn[]; sets where and type
function name_stack(   i) {
	where = type = ""
	for (i = 1; i < nr; i++) {
		# the API function that allocated or freed, and its callers of its type
		if (api(fn[i]) && (type == "" || type_of(fn[i]) == type)) {
			type = type_of(fn[i])
			continue
		}
		if (type == "")
			continue
		while (i + 1 < nr && pc[i + 1] == pc[i])
			i++
		where = fn[i]
		return
	}
}

# with -v also=F: the references of each type that leaked (or were freed
# twice, or freed under a use) with F on the stack of the get or put, at or
# above the function named
function count_also(   i) {
	if (under != "" && where != under)
		return
	for (i = 0; i < nr; i++) {
		if (fn[i] != also)
			continue
		if (stack == "leak") {
			also_leak[type] += leaked
			also_direct = 1
		} else if (stack == "indirect")
			also_indirect[type] += leaked
		else if (stack == "error" || stack == "freed")
			also_error[type]++
		return
	}
}

function end_stack() {
	if (!nr || stack == "")
		return
	name_stack()
	if (also != "" && where != "")
		count_also()
	if (stack == "leak" && where != "") {
		key = type " " where
		objects[key] += leaked
		total += leaked
	} else if (stack == "indirect" && where != "") {
		key = type " " where
		indirect[key] += leaked
		indirect_total += leaked
	} else if (stack == want && where != "" && error_line == "") {
		error_line = error " " type " " where " - -"
	}
	nr = 0
	stack = ""
}

/^==[0-9]+==ERROR: AddressSanitizer: heap-use-after-free/ {
	error = "use after free"; want = "freed"; asan_error = "heap-use-after-free"
}
/^==[0-9]+==ERROR: AddressSanitizer: attempting double-free/ {
	end_stack(); error = "double free"; want = "error"; stack = "error"; nr = 0
	asan_error = "double-free"; next
}
# any other error: a crash, its name up to " on " or " (", and its stack
/^==[0-9]+==ERROR: AddressSanitizer: / && asan_error == "" {
	end_stack()
	asan_error = $0
	sub(/.*AddressSanitizer: /, "", asan_error)
	sub(/ on .*| \(.*|: .*/, "", asan_error)
	gsub(/ /, "-", asan_error)
	stack = "crash"; nr = 0; next
}
/^==[0-9]+==(AddressSanitizer CHECK failed|LeakSanitizer has encountered a fatal error)/ {
	end_stack(); asan_error = $1 ~ /Leak/ ? "LeakSanitizer-fatal-error" : "CHECK-failed"; next
}
/^Direct leak of / {
	end_stack(); stack = "leak"; leaked = $7; nr = 0; next
}
/^Indirect leak of / {
	end_stack(); stack = "indirect"; leaked = $7; nr = 0; next
}
/^(previously allocated by |SUMMARY: |READ of |WRITE of )/ {
	end_stack(); next
}
/^freed by thread / {
	end_stack(); stack = "freed"; nr = 0; next
}
/^ *#[0-9]+ 0x[0-9a-f]+ in / && stack != "" {
	if (stack == "crash" && crash_where == "" && $4 !~ /^(__interceptor_|__asan|__sanitizer)/)
		crash_where = $4
	pc[nr] = $2
	fn[nr] = $4
	nr++
	next
}
/^ *$/ { end_stack() }

function print_also(kind, counts,   t) {
	for (t in counts)
		print "also", kind, t, also, counts[t]
}

END {
	end_stack()
	if (also != "") {
		print_also("error", also_error)
		print_also("leak", also_leak)
		if (!also_direct)
			print_also("leak", also_indirect)
		exit
	}
	if (error_line != "") {
		print error_line
		exit
	}
	if (asan_error != "") {
		print "crash", asan_error, crash_where != "" ? crash_where : "-"
		exit
	}
	if (status > 128 && status <= 128 + 64) {
		print "crash", "signal-" (status - 128), "-"
		exit
	}
	# ASan's and LSan's own: 1 (an error, a leak), 23 (a leak); another
	# is perf's own failure, which says nothing of what it did not do
	if (status != "" && status != 0 && status != 1 && status != 23) {
		print "crash", "exit-" status, "-"
		exit
	}
	best = ""
	for (k in objects) {
		if (best == "" || objects[k] > objects[best] ||
		    (objects[k] == objects[best] && k < best))
			best = k
	}
	if (best != "") {
		print "leak", best, objects[best], total
		exit
	}
	for (k in indirect) {
		if (best == "" || indirect[k] > indirect[best] ||
		    (indirect[k] == indirect[best] && k < best))
			best = k
	}
	if (best != "")
		print "leak", best, indirect[best], indirect_total, "indirect"
}
