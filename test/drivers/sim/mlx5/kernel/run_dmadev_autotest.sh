#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# DPDK's stock dmadev_autotest on dma_mlx5 through the kernel side: runs
#   run_dmadev_autotest.sh <devtools/sim-rdma> <its arguments: -a ... dpdk-test ...>
# and fails, besides on the test's own failure, when the test skipped fill for the
# dma_mlx5 instance: with Debian's libmlx5 the device offers indirect mkeys
# (DevX CREATE_MKEY), so fill must run (doc/guides/sim/kernel_side.rst).
set -u
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" >"$out" 2>&1
st=$?
cat "$out"
# the lines of the dma_mlx5 instance, up to the next instance
fill=$(awk '/^### Test dmadev instance/ { mine = /\[dma_mlx5\]/ }
	mine && /Running fill Tests/ { print "ran" }
	mine && /skipping fill tests/ { print "skipped" }' "$out")
if [ "$st" -ne 0 ]; then
	exit "$st"
fi
case "$fill" in
ran) echo "dma_mlx5: fill ran" ;;
*) echo "FAIL: dma_mlx5: fill not run (${fill:-no fill line})"; exit 1 ;;
esac
