#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# dma-perf's kernel.ini under devtools/sim-rdma: dma_mlx5 over Debian's libmlx5 (the
# rdma-core backend) in both execution modes, dev=mlx5_0 with its engine thread and
# dev=mlx5_1 inline, against dma_mlx5 over the imitation provider, in one run. It
# must exit 0 with the 6 scenarios verified, both kernel-side devices really on the
# rdma-core backend, and print each mode's ratio against the imitation (the tool's
# line for the first device, the second one's computed here from the results file of
# the same run); the data path must not trap: the kernel side serves a bounded number
# of commands (control path only) however many ops ran.
# Usage: run_kernel.sh <sim-rdma> <dma-perf> <kernel.ini> <result.csv>
set -u
simrdma=$1 tool=$2 cfg=$3 csv=$4
rm -f "$csv"
log=$csv.log
st=0
MLX5_SIM_RDMA_LOG=2 "$simrdma" -n 2 -a sim_exec=thread -a sim_exec=inline \
	"$tool" --config "$cfg" --result "$csv" >"$log" 2>&1 || st=$?
grep -v 'sim-kernel: uverbs' "$log"
[ "$st" -eq 0 ] || { echo "dma-perf exited $st"; exit 1; }
for d in dma_mlx5_k:mlx5_0 dma_mlx5_ki:mlx5_1; do
	grep -q "${d%%:*}: ready on ${d#*:} (rdma-core backend)" "$log" ||
		{ echo "${d%%:*} is not on the rdma-core backend"; exit 1; }
done
rows=$(tail -n +2 "$csv" | grep -c ',ok$')
[ "$rows" -eq 6 ] || { echo "CSV has $rows ok rows, expected 6"; exit 1; }
grep -q 'dma_mlx5_k Mops / dma_mlx5_s Mops: *64 B [0-9.]* .* 64 KiB [0-9.]*' "$log" ||
	{ echo "no ratio line"; exit 1; }
# dma_mlx5_ki against dma_mlx5_s, as the tool prints dma_mlx5_k's (CSV: DMA is field
# 5, the buffer size 8, MOps 13)
awk -F, 'NR > 1 && $NF == "ok" { m[$5 "/" $8] = $13 }
	END {
		printf "  dma_mlx5_ki Mops / dma_mlx5_s Mops (results file):"
		for (i = 0; i < 2; i++) {
			b = i ? 65536 : 64
			if (m["dma_mlx5_s/" b] > 0)
				printf "  %s %.3f (%.2f/%.2f)", i ? "64 KiB" : "64 B",
				       m["dma_mlx5_ki/" b] / m["dma_mlx5_s/" b],
				       m["dma_mlx5_ki/" b], m["dma_mlx5_s/" b]
		}
		printf "\n"
	}' "$csv"
cmds=$(grep -c 'sim-kernel: uverbs' "$log")
# what opening two devices, three vchans' queues and MRs and the teardown take: a few
# hundred commands; a trap per op would be hundreds of thousands
[ "$cmds" -lt 1000 ] || { echo "the kernel side served $cmds commands: the data path traps"; exit 1; }
echo "ok: $rows scenarios verified, $cmds kernel-side commands in the whole run"
