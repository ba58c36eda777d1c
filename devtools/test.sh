#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The project's test command (README command 2; .ci/run calls exactly this).
# Sets up and builds everything (devtools/setup.sh --all, cheap when done), configures and
# builds the ASan+UBSan build, runs every suite in both builds (full runs: also the
# no-software-HCA build and the ThreadSanitizer build), builds the guides with
# warnings as errors (counted as one test), and ends with one summary line
# "N passed, N failed". With meson test arguments only the selected suites run.
#   devtools/test.sh [meson test args...]     e.g. devtools/test.sh --suite sim,
#                                             devtools/test.sh test_sim_vector_replay
# Environment: BUILD_DIR (default build), SAN_BUILD_DIR (default build-san),
#              NOSIM_BUILD_DIR (default build-nosim: -Dsim=false, full runs only),
#              TSAN_BUILD_DIR (default build-tsan: ThreadSanitizer, full runs only),
#              TEST_SKIP_SAN=1 to leave the sanitizer build out (quick local runs),
#              TEST_SKIP_DPDK_LTS=1 to leave DPDK 24.11/25.11 out (full runs only).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build_dir=${BUILD_DIR:-build}
san_build_dir=${SAN_BUILD_DIR:-build-san}
nosim_build_dir=${NOSIM_BUILD_DIR:-build-nosim}
tsan_build_dir=${TSAN_BUILD_DIR:-build-tsan}

devtools/setup.sh --all || { echo "setup failed"; echo "0 passed, 1 failed"; exit 1; }

# Debug information of the sanitizer builds: line tables only (-g1), which is all their
# reports use (file:line of each frame). With full -g an object is 2.5 times as large,
# and CI's disk once filled while build-san linked.
san_debug=-g1

# The ASan+UBSan build: same sources and options, debug, sanitizers on.
build_san() {
	if [ ! -f "$san_build_dir/build.ninja" ]; then
		meson setup "$san_build_dir" --buildtype=debug -Dwerror=true \
			-Db_sanitize=address,undefined -Db_lundef=false \
			-Dc_args="$san_debug" -Dcpp_args="$san_debug" || return 1
	fi
	ninja -C "$san_build_dir"
}

# Without the software HCA (-Dsim=false): the PMD for real devices only; its tests
# prove the PMD carries no model code and refuses software HCA names cleanly.
build_nosim() {
	if [ ! -f "$nosim_build_dir/build.ninja" ]; then
		meson setup "$nosim_build_dir" --buildtype=debugoptimized -Dwerror=true \
			-Dsim=false || return 1
	fi
	ninja -C "$nosim_build_dir"
}

# ThreadSanitizer (gcc): the engine thread of the software HCA against the application
# threads. -Wno-tsan: gcc warns that TSan ignores atomic_thread_fence; the remaining
# fences order doorbell records before UAR/BlueFlame writes, and every hand-over
# between threads is an acquire/release atomic TSan does see.
build_tsan() {
	if [ ! -f "$tsan_build_dir/build.ninja" ]; then
		meson setup "$tsan_build_dir" --buildtype=debug -Dwerror=true \
			-Db_sanitize=thread -Db_lundef=false \
			-Dc_args="-Wno-tsan $san_debug" -Dcpp_args="-Wno-tsan $san_debug" || return 1
	fi
	ninja -C "$tsan_build_dir"
}
# Suites of the ThreadSanitizer build: the model's, the seam's (thread mode through the
# provider), the PMD's and dmadev_autotest (the stock dpdk-test, TSan runtime preloaded;
# DPDK itself is not instrumented, so only races involving our code can be seen), and
# the kernel side's (Debian's programs and libraries, TSan runtime preloaded). Not
# the tools suite: dma-perf's busy-polling benchmark runs exceed their timeout under
# TSan, and its data path is the PMD's. Suite no_tsan: the kernel-side runs of tools,
# the PMD's kernel run (the pmd suite is here), and Debian's rping/librdmacm, whose
# own threads race (doc/guides/sim/software_hca.rst, Threads).
tsan_suites=(--suite sim --suite seam --suite pmd --suite dmadev --suite kernel --no-suite no_tsan)

passed=0
failed=0
skipped=0
dirs=("$build_dir")
# add_build <what> <build function> <dir>: build it, and test it if that worked
add_build() {
	echo "=== building $3 ($1) ==="
	if "$2"; then
		dirs+=("$3")
	else
		# a full disk fails a link with no other hint: show the room left
		echo "test: building $3 failed; disk space left:"
		df -h "$top" "${TMPDIR:-/tmp}" 2>/dev/null
		failed=$((failed + 1))
	fi
}
[ "${TEST_SKIP_SAN:-0}" = 1 ] || add_build "ASan+UBSan" build_san "$san_build_dir"
[ $# != 0 ] || add_build "no software HCA" build_nosim "$nosim_build_dir"
[ $# != 0 ] || add_build "ThreadSanitizer" build_tsan "$tsan_build_dir"

for dir in "${dirs[@]}"; do
	echo "=== suites in $dir ==="
	rm -f "$dir/meson-logs/testlog.json"
	args=("$@")
	[ "$dir" != "$tsan_build_dir" ] || args=("${tsan_suites[@]}")
	# ASan: leaks are real failures; UBSan: stop at the first report; TSan: any
	# report fails the test (exit code 66), the first one ends it; the suppressions
	# (devtools/tsan.supp) each say why.
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
	TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$top/devtools/tsan.supp} \
		meson test -C "$dir" --print-errorlogs --num-processes 1 "${args[@]}"
	# count per suite from meson's machine-readable log
	read -r p f s < <(python3 - "$dir/meson-logs/testlog.json" <<'PY'
import json, sys
import os
p = f = s = 0
if not os.path.exists(sys.argv[1]):
    f = 1  # meson test did not even run
# a test's output may hold any bytes: decode leniently; a line that is no JSON
# record is a failure, never a silent zero
for line in (open(sys.argv[1], errors="replace") if not f else []):
    try:
        r = json.loads(line)
    except ValueError:
        f += 1
        continue
    if r.get("result") in ("OK", "EXPECTEDFAIL"):
        p += 1
    elif r.get("result") == "SKIP":
        s += 1
    else:
        f += 1
print(p, f, s)
PY
)
	# no tally at all (the counter itself failed) is a failure too
	[ -n "${p:-}" ] || { echo "test: no tally of $dir"; f=1; }
	passed=$((passed + ${p:-0}))
	failed=$((failed + f))
	skipped=$((skipped + ${s:-0}))
done

# The newer DPDK LTS releases (full runs): each in its Debian chroot, its own stock
# dmadev_autotest and dpdk-test-dma-perf against the plugin built for it, and the
# chroots' mount hygiene (devtools/test-dpdk-lts.sh).
if [ $# = 0 ] && [ "${TEST_SKIP_DPDK_LTS:-0}" != 1 ]; then
	echo "=== DPDK 24.11 and 25.11 (devtools/test-dpdk-lts.sh) ==="
	lts_log=$(mktemp)
	devtools/test-dpdk-lts.sh 2>&1 | tee "$lts_log"
	read -r p f s < <(tail -n 1 "$lts_log" |
		sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed\(, \([0-9]*\) skipped\)\{0,1\}$/\1 \2 \4/p')
	rm -f "$lts_log"
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-1}))
	skipped=$((skipped + ${s:-0}))
fi

# The tree's own checks, each counted as one test: the guides (any Sphinx warning
# fails), the C/C++ format, SPDX tags and line lengths, MAINTAINERS coverage, and a
# clang build of everything (compile only).
if [ $# = 0 ]; then
	for check in "guides:devtools/build-doc.sh" "format:devtools/check-format.sh" \
		     "tree:devtools/checkpatches.sh --tree" "maintainers:devtools/check-maintainers.sh" \
		     "clang:devtools/build-clang.sh"; do
		echo "=== ${check%%:*} (${check#*:}) ==="
		if ${check#*:}; then
			passed=$((passed + 1))
		else
			echo "test: ${check%%:*} check failed"
			failed=$((failed + 1))
		fi
	done
fi

if [ "$skipped" -gt 0 ]; then
	echo "${passed} passed, ${failed} failed, ${skipped} skipped"
else
	echo "${passed} passed, ${failed} failed"
fi
[ "$failed" = 0 ]
