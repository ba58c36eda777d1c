#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Instructions per op that a dma_mlx5 fast path costs the application core, counted by
# callgrind (repeatable, unlike timings): bursts of 32 copies of 64 B, one submit per
# burst, completions gathered 32 at a time (app/dma-icount), on the software HCA in
# inline mode. Each configuration runs with B and 2B bursts; differences divided by the
# extra ops cancel set-up and tear-down. Three configurations: the direct and the verbs
# posting path with checked keys (default devargs: the MR cache looked up per op), and
# the direct path with the whole-memory key of sva=1 (no lookup; the row "sva"). Numbers
# per configuration:
#  - driver: instructions executed in the PMD's own code (every function and inlined
#    header of drivers/dma/mlx5, plus the provider's builders on the verbs path);
#  - app thread: everything the application thread executes per op inside dma-icount's
#    measured loop, run_bursts() (the loop, rte_dma's
#    inline wrappers, the driver, the seam's doorbell hook) minus the device's work,
#    which in inline mode runs inside the doorbell (on hardware: one 8-byte MMIO store).
#  - engine: the software HCA's work per op (everything under its doorbell: fetch, checks,
#    the 64-byte move, the burst's CQE), which hardware does off the CPU;
#  - completed() per retired op: the driver's completion side (inclusive) per op;
#  - empty completed(): the driver's cost of one more rte_dma_completed() that finds
#    nothing new (a run with --idle 1 against --idle 0).
# The timing anchor against dma_skeleton is the "drv cyc/op" column of app/dma-perf.
#   devtools/fastpath-icount.sh [BUILD_DIR]        (BURSTS=N to change B, default 1000)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build}
bin=$build/app/dma-icount/dma-icount
bursts=${BURSTS:-1000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
command -v valgrind >/dev/null || { echo "valgrind not installed"; exit 1; }
# devtools/setup.sh builds only dma-perf; build the counter if it is missing or stale
[ -f "$build/build.ninja" ] && ninja -C "$build" app/dma-icount/dma-icount >/dev/null

measure() { # label vdev devname bursts [more dma-icount args]
	valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$out/$1-$4.cg" \
		"$bin" --no-huge -m 256 --no-pci --no-shconf --log-level=pmd.dma.mlx5:warning \
		--vdev "$2" -- --dev "$3" --bursts "$4" "${@:5}" > "$out/$1-$4.log" 2>&1 ||
		{ cat "$out/$1-$4.log"; exit 1; }
	callgrind_annotate --auto=no --inclusive=yes --threshold=100 "$out/$1-$4.cg-01" \
		> "$out/$1-$4.incl" 2>/dev/null
	callgrind_annotate --auto=no --threshold=100 "$out/$1-$4.cg-01" > "$out/$1-$4.excl" 2>/dev/null
}

declare -A vdev=(
	[direct]="dma_mlx5,dev=sim1,sim_exec=inline,path=direct"
	[verbs]="dma_mlx5,dev=sim1,sim_exec=inline,path=verbs"
	[sva]="dma_mlx5,dev=sim1,sim_exec=inline,path=direct,sva=1"
)
for b in "$bursts" $((bursts * 2)); do
	for p in direct verbs sva; do
		measure "$p" "${vdev[$p]}" dma_mlx5 "$b"
	done
done
for p in direct verbs sva; do
	measure "$p-idle" "${vdev[$p]}" dma_mlx5 "$bursts" --idle 1
done

python3 - "$out" "$bursts" <<'PY'
import re, sys
out, b = sys.argv[1], int(sys.argv[2])
LINE = re.compile(r"\s*([\d,]+) \([^)]*\)\s+(.*)")

def entries(path):
    for line in open(path):
        m = LINE.match(line)
        if m:
            yield int(m.group(1).replace(",", "")), m.group(2)

def run(label, bursts):
    total = device = driver = cpl = 0
    for n, what in entries(f"{out}/{label}-{bursts}.incl"):
        # the measured loop (inclusive), not the program: EAL's set-up varies per run
        if re.search(r"dma_icount\.cpp:run_bursts\(", what):
            total = max(total, n)
        elif re.search(r":mlx5sim::HcaImpl::sq_doorbell\(", what):
            # the largest entry is the function's whole inclusive cost; the one with
            # the object's name holds only engine.cpp's lines, without what headers
            # inlined into it (its mutex: about 2.5 per op)
            device = max(device, n)
        elif re.search(r"/drivers/dma/mlx5/mlx5_dma_fp\.cpp:.*::completed<", what):
            cpl = max(cpl, n)
    for n, what in entries(f"{out}/{label}-{bursts}.excl"):
        if "PROGRAM TOTALS" in what:
            continue
        if "/drivers/dma/mlx5/" in what or re.search(r"sim_wr_(start|memcpy|complete)|wr_segments", what):
            driver += n
    return total - device, driver, device, cpl

ops = 32 * b
print(f"dma_mlx5 fast path, instructions per 64 B copy (callgrind; bursts of 32; "
      f"{ops} ops difference; targets: app thread <= 75 with checked keys, "
      f"<= 60 with the whole-memory key (sva); engine <= 60 with pinned memory)")
print(f"  {'path':<8}{'driver':>8}{'app thread':>12}{'engine':>8}"
      f"{'completed()/op':>16}{'empty completed()':>19}")
for label in ("direct", "verbs", "sva"):
    a1, d1, e1, c1 = run(label, b)
    a2, d2, e2, c2 = run(label, 2 * b)
    ci = run(f"{label}-idle", b)[3]
    print(f"  {label:<8}{(d2 - d1) / ops:8.1f}{(a2 - a1) / ops:12.1f}{(e2 - e1) / ops:8.1f}"
          f"{(c2 - c1) / ops:16.1f}{(ci - c1) / b:19.1f}")
PY
