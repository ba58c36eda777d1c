#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# DPDK's own dpdk-test-dma-perf (23.07 and later; Debian ships it from 24.11 on), unmodified,
# on dma_mlx5 (software HCA, inline and thread execution) and on dma_skeleton: copies of
# 64 B, 1 KiB, 16 KiB and 65407 B (the tool's largest buffer: its mbuf data room is
# 16-bit), and SG copies of 4 source segments into 1 destination (256 B, 16 KiB). The tool compares every
# destination with its source after each run. Fails when a case does not run to its end,
# when the tool reports a validation failure, or when a result line is missing; prints
# every result and dma_mlx5's ratio to dma_skeleton (test log; the tool's own output
# follows it). 25.11 (use_enq_deq_ops): the same copies and SG copies through dma_mlx5's
# enqueue/dequeue ops, against dma_skeleton's plain ones.
#   run_stock_dma_perf.sh DMA_PERF DPDK_VERSION SO_VERSION
# Environment: LD_LIBRARY_PATH (the plugins' directory), TEST_PRELOAD (sanitizer
# runtimes for the tool alone), DMA_PERF_SECONDS (per buffer size, default 1).
set -euo pipefail

perf=$1
version=$2
so=$3
secs=${DMA_PERF_SECONDS:-1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -z "${KEEP_OUT:-}" ] || trap 'cp "$work/out.txt" "$KEEP_OUT"; rm -rf "$work"' EXIT

# Main lcore 0 (sleeps while the case runs), worker lcore 1; the software engines
# (dma_skeleton's thread, the software HCA's in thread mode) are placed on CPU 0.
eal="--no-huge -m 512 --no-pci --no-shconf -l 0-1 -d librte_dma_mlx5.so.$so"
eal+=" -d librte_sim_mlx5.so.$so --vdev dma_mlx5,dev=sim1,sim_exec=inline"
eal+=" --vdev dma_mlx5_thread,dev=sim2,sim_exec=thread,sim_core=0 --vdev dma_skeleton,lcore=0"
# 24.11 takes EAL arguments per case; 25.11 only in its [GLOBAL] section, and has the
# enqueue/dequeue ops API (use_enq_deq_ops=1; dma_skeleton does not offer it).
global=0
case "$version" in
2[0-4].*|25.0[0-9]*) ;;
*) global=1 ;;
esac
# "dev ops buf_size [src_sge dst_sge]" per case (ops: 1 = use_enq_deq_ops)
cases=(
	"dma_mlx5 0 64,16384,16,MUL"
	"dma_mlx5_thread 0 64,16384,16,MUL"
	"dma_skeleton 0 64,16384,16,MUL"
	"dma_mlx5 0 65407"
	"dma_mlx5_thread 0 65407"
	"dma_skeleton 0 65407"
	"dma_mlx5 0 256,16384,64,MUL 4 1"
	"dma_mlx5_thread 0 256,16384,64,MUL 4 1"
	"dma_skeleton 0 256,16384,64,MUL 4 1"
)
expected=$((3 * 3 + 3 + 3 * 2))
if [ "$global" = 1 ]; then
	cases+=("dma_mlx5 1 64,16384,16,MUL" "dma_mlx5 1 256,16384,64,MUL 4 1")
	expected=$((expected + 3 + 2))
fi
labels=""
cfg=$work/stock.ini
{
	if [ "$global" = 1 ]; then
		printf '[GLOBAL]\neal_args=%s\ncache_flush=0\ntest_seconds=%s\n\n' "$eal" "$secs"
	fi
	n=0
	for c in "${cases[@]}"; do
		read -r dev ops size src dst <<<"$c"
		n=$((n + 1))
		kind=copy
		[ -z "${src:-}" ] || kind=sg$src:$dst
		[ "$ops" = 0 ] || kind=ops-$kind
		labels+="$dev $kind;"
		printf '[case%d]\ntype=DMA_MEM_COPY\nmem_size=10\nbuf_size=%s\n' "$n" "$size"
		printf 'dma_ring_size=1024\nkick_batch=32\nsrc_numa_node=0\ndst_numa_node=0\n'
		[ -z "${src:-}" ] || printf 'dma_src_sge=%s\ndma_dst_sge=%s\n' "$src" "$dst"
		[ "$ops" = 0 ] || printf 'use_enq_deq_ops=1\n'
		printf 'lcore_dma0=lcore=1,dev=%s,dir=mem2mem\n' "$dev"
		if [ "$global" = 0 ]; then
			printf 'cache_flush=0\ntest_seconds=%s\neal_args=%s\n' "$secs" "$eal"
		fi
		printf '\n'
	done
} >"$cfg"

# The tool takes --config/--result itself (no "--" before them).
out=$work/out.txt
rc=0
(cd / && LD_PRELOAD=${TEST_PRELOAD:-} "$perf" --config "$cfg" --result "$work/result.csv") \
	>"$out" 2>&1 || rc=$?
# (each case is a forked child that also flushes what the parent had buffered: the
# parent's lines may repeat, a child's own appear once)
awk -v want="$expected" -v cases="${#cases[@]}" -v ver="$version" -v labels="$labels" '
	BEGIN { split(labels, label, ";") }
	/^Running case [0-9]+/ { split(label[$3], l, " "); dev = l[1]; kind = l[2] }
	/Buffer Size:/ { for (i = 1; i <= NF; i++) if ($i == "Size:") size = $(i + 1) }
	/^Average Bandwidth:.*MOps:/ {
		n++
		key = kind " " size
		if (dev == "dma_skeleton") skel[key] = $NF
		else { mops[n] = $NF; order[n] = dev " " key }
	}
	/validation fails/ { bad++ }
	/^Case process exited. status [^0]/ || /killed by signal|stopped by signal/ { bad++ }
	/^Case [0-9]+ completed\./ { done++ }
	END {
		for (i = 1; i <= n; i++) {
			if (!(i in order)) continue
			split(order[i], f, " ")
			k = f[2] " " f[3]
			sub("^ops-", "", k) # ops: against plain skeleton copies
			printf "dma-perf %s: %-15s %-9s %6s B %9.3f Mops  dma_skeleton %9.3f  ratio %.2f\n",
			       ver, f[1], f[2], f[3], mops[i], skel[k],
			       (skel[k] > 0 ? mops[i] / skel[k] : 0)
		}
		printf "dma-perf %s: %d results of %d, %d of %d cases ended cleanly, %d failures\n",
		       ver, n, want, done, cases, bad
		exit !(n == want && bad == 0 && done == cases)
	}' "$out" || { echo "run_stock_dma_perf: failed (exit $rc)"; cat "$out"; exit 1; }
[ "$rc" = 0 ] || { echo "run_stock_dma_perf: the tool exited $rc"; cat "$out"; exit 1; }
grep -E "^(Running case |Case [0-9]+ completed|lcore 1,|Average)" "$out" | sed 's/^/  /' || true
