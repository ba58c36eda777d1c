#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Run dma-perf on a tiny config: it must exit 0, write a CSV with one "ok" row per
# expected scenario, and say nothing of stopping a stopped device (EAL's cleanup after
# the tool's own rte_dma_stop()); and, if given, print <line> (fixed string).
# ROUNDS in the environment: --rounds ROUNDS (then <scenarios> counts every round's).
# Usage: run_tiny.sh <dma-perf> <config.ini> <result.csv> <scenarios> [<line>]
set -u
tool=$1 cfg=$2 csv=$3 want=$4 line=${5:-}
rm -f "$csv"
log=$csv.log
st=0
"$tool" --config "$cfg" --result "$csv" --rounds "${ROUNDS:-1}" >"$log" 2>&1 || st=$?
cat "$log"
[ "$st" -eq 0 ] || { echo "dma-perf exited $st"; exit 1; }
if grep -q 'already stopped' "$log"; then
	echo "dma-perf stopped a stopped device:"
	grep 'already stopped' "$log"
	exit 1
fi
[ -s "$csv" ] || { echo "no CSV written at $csv"; exit 1; }
head -1 "$csv" | grep -q '^Case,Scenario,Type,lcore,DMA,.*MOps,driver cycles/op' ||
	{ echo "bad CSV header"; exit 1; }
rows=$(tail -n +2 "$csv" | grep -c ',ok$')
[ "$rows" -eq "$want" ] || { echo "CSV has $rows ok rows, expected $want"; cat "$csv"; exit 1; }
echo "CSV ok: $rows rows"
if [ -n "$line" ]; then
	grep -qF -- "$line" "$log" || { echo "no line: $line"; exit 1; }
	echo "line ok: $line"
fi
