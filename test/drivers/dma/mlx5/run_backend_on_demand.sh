#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The seam loads a backend's plugin on demand: DPDK's dmadev_autotest (stock dpdk-test)
# with only the PMD given (-d), on a software HCA named by a backend option and by a
# device name alone, passes; a backend nobody ships is refused cleanly (one log line
# naming the devarg, no crash).
#   run_backend_on_demand.sh <dpdk-test> <PMD soname>
# Run from '/' with LD_LIBRARY_PATH at the build tree (as the dmadev suite); sanitizer
# runtimes come in TEST_PRELOAD and are preloaded into dpdk-test only.
set -u
dpdk_test=$1 pmd=$2
run_test() { env LD_PRELOAD="${TEST_PRELOAD:-}" DPDK_TEST=dmadev_autotest "$@"; }
eal="--no-huge -m 512 --no-pci --no-shconf --log-level=pmd.dma.mlx5:info -d $pmd"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
failed=0
for devargs in dev=sim5,sim_exec=inline dev=sim6; do
	st=0
	# shellcheck disable=SC2086
	run_test "$dpdk_test" $eal --file-prefix=ondemand_$$ \
		--vdev "dma_mlx5,$devargs" >"$log" 2>&1 </dev/null || st=$?
	if [ "$st" -ne 0 ] || ! grep -q 'dma_mlx5: ready on sim' "$log" ||
		! grep -q 'Test OK' "$log"; then
		cat "$log"
		echo "FAIL: -d $pmd alone, $devargs: exit $st"
		failed=$((failed + 1))
	else
		echo "ok: -d $pmd alone, $devargs"
	fi
done
st=0
# shellcheck disable=SC2086
run_test "$dpdk_test" $eal --file-prefix=ondemand_$$ \
	--vdev "dma_mlx5,dev=nosuch0,nosuch_opt=1" >"$log" 2>&1 </dev/null || st=$?
# EAL 22.11 goes on after a failed vdev probe: the test then runs without dma_mlx5
if grep -q "unknown devarg 'nosuch_opt'" "$log" && ! grep -q 'dma_mlx5: ready on' "$log" &&
	! grep -qi 'sanitizer\|segmentation' "$log" && [ "$st" -lt 128 ]; then
	echo "ok: a backend nobody ships refused"
else
	cat "$log"
	echo "FAIL: dev=nosuch0,nosuch_opt=1: exit $st"
	failed=$((failed + 1))
fi
exit $failed
