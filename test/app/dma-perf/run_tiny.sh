#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Run dma-perf on a tiny config: it must exit 0 and write a CSV with one "ok" row per
# expected scenario.
# Usage: run_tiny.sh <dma-perf> <config.ini> <result.csv> <scenarios>
set -u
tool=$1 cfg=$2 csv=$3 want=$4
rm -f "$csv"
"$tool" --config "$cfg" --result "$csv" || { echo "dma-perf exited $?"; exit 1; }
[ -s "$csv" ] || { echo "no CSV written at $csv"; exit 1; }
head -1 "$csv" | grep -q '^Case,Scenario,Type,lcore,DMA,.*MOps,driver cycles/op' ||
	{ echo "bad CSV header"; exit 1; }
rows=$(tail -n +2 "$csv" | grep -c ',ok$')
[ "$rows" -eq "$want" ] || { echo "CSV has $rows ok rows, expected $want"; cat "$csv"; exit 1; }
echo "CSV ok: $rows rows"
