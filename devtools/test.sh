#!/usr/bin/env bash
# The project's test command (README command 2; .ci/run calls exactly this).
# Builds what is missing (devtools/setup.sh, cheap when done), then runs every suite
# in the normal build and in the ASan+UBSan build, and ends with one summary line.
#   devtools/test.sh [meson test args...]     e.g. devtools/test.sh --suite sim,
#                                             devtools/test.sh test_sim_vector_replay
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build_dir=${BUILD_DIR:-build}
san_build_dir=${SAN_BUILD_DIR:-build-san}

devtools/setup.sh || { echo "setup failed"; echo "0 passed, 1 failed"; exit 1; }

passed=0
failed=0
skipped=0
for dir in "$build_dir" "$san_build_dir"; do
	echo "=== suites in $dir ==="
	# ASan: leaks are real failures; UBSan: stop at the first report.
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
		meson test -C "$dir" --print-errorlogs --num-processes 1 "$@"
	# count per suite from meson's machine-readable log
	read -r p f s < <(python3 - "$dir/meson-logs/testlog.json" <<'PY'
import json, sys
import os
p = f = s = 0
if not os.path.exists(sys.argv[1]):
    f = 1  # meson test did not even run
for line in (open(sys.argv[1]) if not f else []):
    r = json.loads(line)
    if r.get("result") in ("OK", "EXPECTEDFAIL"):
        p += 1
    elif r.get("result") == "SKIP":
        s += 1
    else:
        f += 1
print(p, f, s)
PY
)
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
done
if [ "$skipped" -gt 0 ]; then
	echo "${passed} passed, ${failed} failed, ${skipped} skipped"
else
	echo "${passed} passed, ${failed} failed"
fi
[ "$failed" = 0 ]
