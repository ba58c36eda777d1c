#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Run dma-plain-bench with lcores 0 and 1 both on CPU 0: it must exit 0 (every copy
# verified) and print the ratio against the CPU loop of worker lcore 1, but not call
# that lcore "the free CPU": it shares the main lcore's CPU.
# Usage: run_plain.sh <dma-plain-bench>
set -u
tool=$1
ratio='dma_mlx5 / rte_memcpy on lcore 1 GB/s at  1024 B: '
log=$(mktemp)
st=0
"$tool" --lcores 0@0,1@0 --no-huge -m 512 --no-pci --no-shconf \
	--log-level=lib.eal:warning --vdev dma_mlx5 --vdev dma_skeleton >"$log" 2>&1 || st=$?
cat "$log"
line=$(grep -F -- "$ratio" "$log")
rm -f "$log"
[ "$st" -eq 0 ] || { echo "dma-plain-bench exited $st"; exit 1; }
[ -n "$line" ] || { echo "no line: $ratio"; exit 1; }
case "$line" in
*"(the free CPU)") echo "lcore 1 shares CPU 0 with the main lcore, yet: $line"; exit 1 ;;
esac
echo "line ok: $line"
