# SPDX-License-Identifier: GPL-2.0
#
# perf refcnt: build perf from Debian's linux-source-6.12 with our tools/
# overlaid and patches/ applied, out of tree, with debug info.
#
#   make          build build/perf
#   make run      set up, build, and audit a `perf report` run (the main job)
#   make check    set up, build, lint and run every test
#   make bench    what an audit costs: target slowdown, report speed
#   make accuracy seeded-bug perf builds: does the report name each bug?
#   make accuracy-asan  the same, each judged by the ASan (RC_CHK) build of it
#   make survey   perf's own commands audited, each judged by the ASan perf
#   make lint     checkpatch --strict on every C file we add
#   make perf-6.1 build/v6.1/perf: linux-source-6.1's perf with -g, a target
#   make asan     build/asan/perf: the same perf with AddressSanitizer
#   make asan-check  every test with the ASan perf recording and reporting
#   make fuzz     1000 damaged recordings through the ASan perf's report
#   make clean    remove build/

BUILD   ?= $(CURDIR)/build
SRC     := $(BUILD)/src
OBJ     := $(BUILD)/obj
PERF    := $(BUILD)/perf
MANDIR  := $(BUILD)/man

# Debian's python3 (deps.sh installs python3-dev), not whatever is first in
# PATH: the build must not depend on the machine's shims. Nor on whether
# llvm-dev happens to be installed (deps.sh does not): linked, libLLVM adds
# 40 MiB and 70 ms to every perf run.
PERF_MAKE_FLAGS := O=$(OBJ) NO_LIBBPF=1 NO_JVMTI=1 NO_LIBLLVM=1 \
		   PYTHON=/usr/bin/python3 PYTHON_CONFIG=/usr/bin/python3-config \
		   NO_SHELLCHECK=1 WERROR=1 mandir=$(MANDIR)

# Debug info for perf refcnt. Not -fpatchable-function-entry=5 with the
# nops made one 5-byte nop (scripts/nop5.py), which a kernel with optimized
# uprobes runs without a trap: the kernel adds a probe's return address to
# the user callchain only when the probed instruction is a function's
# usual first one (push %rbp, endbr64: is_uprobe_at_func_entry()), so a
# nop there drops every probe's caller from its callchain.
PERF_CFLAGS := -g

all: build

deps:
	@scripts/deps.sh

prepare: deps
	@scripts/prepare-tree.sh $(CURDIR) $(SRC) $(OBJ)

build: prepare man
	@$(MAKE) -s -C $(SRC)/tools/perf $(PERF_MAKE_FLAGS) EXTRA_CFLAGS="$(PERF_CFLAGS)"
	@ln -sfn obj/perf $(PERF)

# perf-refcnt.1 with perf's own Documentation/Makefile (asciidoc + xmlto),
# where the perf built with mandir=$(MANDIR) makes 'perf help refcnt' look.
# Debian's asciidoc runs the python3 first in PATH: make it Debian's.
man: prepare
	@mkdir -p $(MANDIR)/man1
	@PATH=/usr/bin:/bin:$$PATH $(MAKE) -s -C $(SRC)/tools/perf/Documentation \
		OUTPUT=$(MANDIR)/man1/ $(MANDIR)/man1/perf-refcnt.1

run: build
	@scripts/demo.sh $(PERF)

# make check audits the seeded-bug builds that perf refcnt names right
# today, with no false row in the top three, each judged by its ASan build
# too: a gate against regressions. Only tuned and dev variants: a gate's
# verdicts are read at every run, and the heldout half must not be. make
# accuracy runs them all, and says how many of each set pass (README: what
# the others need).
CHECK_ACCURACY_VARIANTS := 01-kernel-maps-extra-get 07-libperf-cpu-map-extra-get \
			   09-map-new-nsinfo-extra-get 16-lookup-no-put-path-inject-mmap-dso \
			   28-cache-extra-ref-threads-findnew-thread
check: build perf-6.1 asan
	@REFCNT_ACCURACY_VARIANTS="$(CHECK_ACCURACY_VARIANTS)" REFCNT_SURVEY_COMMANDS=check \
		REFCNT_ACCURACY_TARGET=accuracy-asan scripts/run-tests.sh $(PERF)

# A perf to audit that is not ours: Debian's linux-source-6.1, built with -g.
perf-6.1: deps
	@scripts/build-target.sh 6.1 $(BUILD)/v6.1

# The same tree, built again with AddressSanitizer in a directory of its own.
ASAN_OBJ := $(BUILD)/asan/obj
ASAN_CFLAGS := -g -fsanitize=address -fno-omit-frame-pointer
asan: prepare man
	@mkdir -p $(ASAN_OBJ)
	@$(MAKE) -s -C $(SRC)/tools/perf $(PERF_MAKE_FLAGS) O=$(ASAN_OBJ) \
		EXTRA_CFLAGS="$(ASAN_CFLAGS)"
	@ln -sfn obj/perf $(BUILD)/asan/perf

# Every test, the ASan perf recording and reporting the normal one.
asan-check: asan build perf-6.1
	@REFCNT_TARGET=$(PERF) scripts/run-tests.sh $(BUILD)/asan/perf

# The ASan perf records and reports; the perf it audits is the normal one.
fuzz: asan build
	@PATH=$(BUILD)/asan:$$PATH REFCNT_TARGET=$(PERF) REFCNT_FUZZ_CASES=1000 \
		$(BUILD)/asan/perf test -v "refcnt report: damaged recordings" 2>&1 | \
		tee $(BUILD)/fuzz.log
	@grep -q "damaged recordings.*: Ok$$" $(BUILD)/fuzz.log

bench: build perf-6.1
	@V61=$(BUILD)/v6.1/perf scripts/bench.sh $(PERF)

# Seeded-bug perf builds, each audited: does the top bug row name the bug,
# with no false row in the top three? ACCURACY_VARIANTS: the variants to
# run (default: all); ACCURACY_SET: only those of a set (dev, heldout);
# ACCURACY_REREPORT=1: report the last run's recordings again.
accuracy: build
	@ACCURACY_SET="$(ACCURACY_SET)" ACCURACY_REREPORT="$(ACCURACY_REREPORT)" \
		PERF_MAKE_FLAGS="$(PERF_MAKE_FLAGS)" ACCURACY_CFLAGS="$(PERF_CFLAGS)" \
		scripts/accuracy.sh $(PERF) $(SRC) $(OBJ) \
		$(BUILD)/accuracy $(ACCURACY_VARIANTS)

# The same, each variant also built with ASan (RC_CHK) from build/asan: the
# sanitizer must name the function each variant expects, and nothing on
# the clean perf.
accuracy-asan: build asan
	@ACCURACY_SET="$(ACCURACY_SET)" ACCURACY_REREPORT="$(ACCURACY_REREPORT)" \
		PERF_MAKE_FLAGS="$(PERF_MAKE_FLAGS)" ACCURACY_CFLAGS="$(PERF_CFLAGS)" \
		ACCURACY_ASAN_OBJ=$(ASAN_OBJ) \
		ACCURACY_ASAN_CFLAGS="$(ASAN_CFLAGS)" scripts/accuracy.sh $(PERF) $(SRC) $(OBJ) \
		$(BUILD)/accuracy $(ACCURACY_VARIANTS)

# perf's own commands (tools/perf/tests/refcnt-survey/commands), each
# audited and run as the ASan perf: do the two name the same bugs?
# SURVEY_COMMANDS: the commands to run (default: all; check: those where
# the sanitizer finds a refcount bug, as make check runs them).
survey: build asan
	@scripts/survey.sh $(PERF) $(BUILD)/asan/perf $(BUILD)/survey $(SURVEY_COMMANDS)

lint: prepare
	@scripts/lint.sh $(SRC)/scripts/checkpatch.pl

clean:
	rm -rf $(BUILD)

.PHONY: all deps prepare build man run check perf-6.1 asan asan-check fuzz bench accuracy accuracy-asan \
	survey lint clean
