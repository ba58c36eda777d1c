#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# examples/dma_mlx5_domain as a user builds it: out of tree, with its Makefile, against
# pkg-config alone. A release's dmadev suite builds only what it runs, not everything
# "meson install" needs (test_pmd_install installs and builds the examples against
# 22.11), so what a shared build of the example uses is staged in an install's layout:
# the two .pc files meson installs (meson-private/), rte_pmd_dma_mlx5.h under
# include/dpdk, the PMD's shared object and the seam's under the libdir, the .pc files' prefix that
# directory (what meson install -Dprefix=<it> writes). Then run as two processes on one
# machine-wide fabric: the creator of an access pair group and a copier that joins it.
#   run_domain_example.sh <source root> <build root> <DPDK so version>
set -u
src=$1
bld=$2
so=$3
work=$bld/test-domain-example
rm -rf "$work" && mkdir -p "$work/log"
log=$work/log
fail() { echo "FAILED: $1"; [ -n "${2:-}" ] && cat "$2"; exit 1; }

pc=$bld/meson-private/libdpdk-dma-mlx5.pc
[ -f "$pc" ] || fail "no $pc"
libsub=$(sed -n 's/^libdir=${prefix}\///p' "$pc")
prefix=$work/prefix
mkdir -p "$prefix/$libsub/pkgconfig" "$prefix/include/dpdk"
for f in libdpdk-dma-mlx5.pc libdpdk-dma-mlx5-libs.pc; do
	sed "s|^prefix=.*|prefix=$prefix|" "$bld/meson-private/$f" >"$prefix/$libsub/pkgconfig/$f"
done
cp "$src/drivers/dma/mlx5/rte_pmd_dma_mlx5.h" "$prefix/include/dpdk/"
for f in "$bld"/librte_dma_mlx5.so "$bld"/librte_dma_mlx5.so.* "$bld"/librte_common_mlx5_seam.so*; do
	[ -f "$f" ] && cp -P "$f" "$prefix/$libsub/"
done
cp -r "$src/examples/dma_mlx5_domain" "$work/ex"
PKG_CONFIG_PATH=$prefix/$libsub/pkgconfig make -C "$work/ex" >"$log/make.txt" 2>&1 || fail "make of examples/dma_mlx5_domain" "$log/make.txt"
grep -q -- "-I$prefix/include/dpdk" "$log/make.txt" ||
	fail "the example was not built against the staged prefix" "$log/make.txt"
echo "ok: examples/dma_mlx5_domain built against $prefix by pkg-config"
bin=$work/ex/build/dma_mlx5_domain-shared
# plugins by name, found through LD_LIBRARY_PATH (EAL refuses paths below a
# world-writable directory), as dpdk-test gets them
export LD_LIBRARY_PATH=$prefix/$libsub:$bld${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fabric=dom$$
token=5eed0000-1111-2222-3333-444455556666
eal="--no-huge -m 512 --no-pci --no-shconf -l 0 -d librte_dma_mlx5.so.$so -d librte_sim_mlx5.so.$so"
fifo=$work/creator.in
mkfifo "$fifo"
# shellcheck disable=SC2086 # word splitting of $eal intended
(cd / && exec timeout 60 "$bin" $eal --file-prefix a$$ \
	--vdev "dma_mlx5_a,dev=sim1,sim_exec=thread,sim_fabric=$fabric" -- serve $token \
	<"$fifo" >"$log/creator.txt" 2>&1) &
creator=$!
exec 3>"$fifo"
line=
for _ in $(seq 100); do
	line=$(grep -m1 '^group ' "$log/creator.txt" 2>/dev/null) && break
	sleep 0.1
done
[ -n "$line" ] || { exec 3>&-; wait $creator; fail "the creator printed no group line" "$log/creator.txt"; }
# shellcheck disable=SC2086
(cd / && timeout 60 "$bin" $eal --file-prefix b$$ \
	--vdev "dma_mlx5_b,dev=sim2,sim_exec=inline,sim_fabric=$fabric" -- copy $token $line) \
	>"$log/copier.txt" 2>&1
copier_rc=$?
echo >&3
exec 3>&-
wait $creator
creator_rc=$?
grep '^dma_mlx5_domain: ' "$log/copier.txt" "$log/creator.txt" | sed 's/^[^:]*://'
[ $copier_rc = 0 ] && grep -q '^dma_mlx5_domain: copier: .*: PASS$' "$log/copier.txt" ||
	fail "copier (exit $copier_rc)" "$log/copier.txt"
[ $creator_rc = 0 ] && grep -q '^dma_mlx5_domain: creator: .*: PASS$' "$log/creator.txt" ||
	fail "creator (exit $creator_rc)" "$log/creator.txt"
echo "ok: dma_mlx5_domain in two processes"
