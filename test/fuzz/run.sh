#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds the fuzz targets (build.sh) and runs each for a bounded time over a scratch
# copy of its seed corpus (test/fuzz/corpus/<target>): the test command's short run.
#   run.sh [build-dir] [seconds-per-target: hca_sq devargs perf_cfg]
# Defaults: build-fuzz/, 15 5 5. Exit status 77 (skipped) without clang++/libFuzzer;
# non-zero when a target finds a crash, a sanitizer report or an oracle failure (the
# input is kept under <build-dir>/artifacts/).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/../../build-fuzz}
secs=("${2:-15}" "${3:-5}" "${4:-5}")
FUZZ_BUILD_DIR=$out "$here/build.sh" >/dev/null || exit $?
mkdir -p "$out/artifacts"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
rc=0
i=0
for t in hca_sq devargs perf_cfg; do
	mkdir -p "$scratch/$t"
	cp "$here/corpus/$t"/* "$scratch/$t/"
	if "$out/fuzz_$t" -max_total_time="${secs[$i]}" -timeout=10 -rss_limit_mb=2048 \
		-artifact_prefix="$out/artifacts/$t-" -print_final_stats=1 \
		"$scratch/$t" >"$out/$t.log" 2>&1; then
		echo "fuzz_$t: $(grep -m1 '^stat::number_of_executed_units' "$out/$t.log" |
			awk '{print $2}') inputs in ${secs[$i]} s, no finding"
	else
		echo "fuzz_$t: FAILED, see $out/$t.log and $out/artifacts/"
		grep -E 'oracle|ERROR|SUMMARY' "$out/$t.log" | head -n5
		rc=1
	fi
	i=$((i + 1))
done
exit $rc
