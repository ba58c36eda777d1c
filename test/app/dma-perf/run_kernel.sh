#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# dma-perf's kernel.ini under devtools/sim-rdma: dma_mlx5 over Debian's libmlx5
# (dev=mlx5_0, the rdma-core backend) against dma_mlx5 over the imitation provider,
# in one run, each with one device thread (the kernel side's doorbell watcher executes
# inline; the imitation's engine thread). It must exit 0 with the 4 scenarios verified, the first device really on
# the rdma-core backend, the ratio line printed, and the data path must not trap: the
# kernel side serves a bounded number of commands (control path only) however many
# ops ran.
# Usage: run_kernel.sh <sim-rdma> <dma-perf> <kernel.ini> <result.csv>
set -u
simrdma=$1 tool=$2 cfg=$3 csv=$4
rm -f "$csv"
log=$csv.log
st=0
MLX5_SIM_RDMA_LOG=2 "$simrdma" -a sim_exec=inline "$tool" --config "$cfg" --result "$csv" >"$log" 2>&1 || st=$?
grep -v 'sim-kernel: uverbs' "$log"
[ "$st" -eq 0 ] || { echo "dma-perf exited $st"; exit 1; }
grep -q 'dma_mlx5_k: ready on mlx5_0 (rdma-core backend)' "$log" ||
	{ echo "dma_mlx5_k is not on the rdma-core backend"; exit 1; }
rows=$(tail -n +2 "$csv" | grep -c ',ok$')
[ "$rows" -eq 4 ] || { echo "CSV has $rows ok rows, expected 4"; exit 1; }
grep -q 'dma_mlx5_k Mops / dma_mlx5_s Mops: *64 B [0-9.]* .* 64 KiB [0-9.]*' "$log" ||
	{ echo "no ratio line"; exit 1; }
cmds=$(grep -c 'sim-kernel: uverbs' "$log")
# what opening, two vchans' queues and MRs and the teardown take: a few hundred
# commands; a trap per op would be hundreds of thousands
[ "$cmds" -lt 1000 ] || { echo "the kernel side served $cmds commands: the data path traps"; exit 1; }
echo "ok: $rows scenarios verified, $cmds kernel-side commands in the whole run"
