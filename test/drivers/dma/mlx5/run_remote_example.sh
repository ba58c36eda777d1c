#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# examples/dma_mlx5_remote's address mode as a user builds it (out of tree, its
# Makefile, pkg-config alone, against a staged install as run_domain_example.sh does):
# a target publishes its DC target and key at an address (serve-at), a copier is given
# only the address (copy-to), two processes on one machine-wide fabric. Twice: both on
# the embedded software HCA (its own connection manager), then the target on dev=mlx5_0
# under devtools/sim-rdma (Debian's librdmacm through the glue library) and the copier
# embedded.
#   run_remote_example.sh <source root> <build root> <DPDK so version> <devtools/sim-rdma>
# Environment: TEST_PRELOAD (sanitizer runtimes of a sanitizer build: preloaded into the
# example, which make builds without them; sim-rdma takes MLX5_SIM_RDMA_PRELOAD).
set -u
src=$1
bld=$2
so=$3
simrdma=$4
work=$bld/test-remote-example
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
cp -r "$src/examples/dma_mlx5_remote" "$work/ex"
PKG_CONFIG_PATH=$prefix/$libsub/pkgconfig make -C "$work/ex" >"$log/make.txt" 2>&1 ||
	fail "make of examples/dma_mlx5_remote" "$log/make.txt"
echo "ok: examples/dma_mlx5_remote built against $prefix by pkg-config"
bin=$work/ex/build/dma_mlx5_remote-shared
# plugins by name through LD_LIBRARY_PATH; the glue library is found there too
export LD_LIBRARY_PATH=$prefix/$libsub:$bld${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
eal="--no-huge -m 512 --no-pci --no-shconf -l 0 -d librte_dma_mlx5.so.$so -d librte_sim_mlx5.so.$so"
port=$((20000 + $$ % 20000))

# run <name> <target wrapper ("" or sim-rdma)> <target dev devargs> <copier devargs>
run() {
	name=$1 wrap=$2 tdev=$3 cdev=$4
	fifo=$work/$name.in
	rm -f "$fifo" && mkfifo "$fifo"
	# shellcheck disable=SC2086 # word splitting of $wrap and $eal intended
	# sim-rdma preloads the kernel side (and MLX5_SIM_RDMA_PRELOAD) itself
	[ -n "$wrap" ] || wrap="env LD_PRELOAD=${TEST_PRELOAD:-}"
	(cd / && exec timeout 60 $wrap "$bin" $eal --file-prefix t$$ \
		--vdev "dma_mlx5_t,$tdev" -- serve-at "0.0.0.0:$port" \
		<"$fifo" >"$log/$name-target.txt" 2>&1) &
	target=$!
	exec 3>"$fifo"
	addr=
	for _ in $(seq 100); do
		addr=$(sed -n 's/^listening //p' "$log/$name-target.txt" 2>/dev/null) &&
			[ -n "$addr" ] && break
		sleep 0.1
	done
	[ -n "$addr" ] || { exec 3>&-; wait $target; fail "$name: the target published nothing" "$log/$name-target.txt"; }
	# shellcheck disable=SC2086
	(cd / && timeout 60 env LD_PRELOAD="${TEST_PRELOAD:-}" "$bin" $eal --file-prefix c$$ \
		--vdev "dma_mlx5_c,$cdev" -- copy-to "$addr") >"$log/$name-copier.txt" 2>&1
	copier_rc=$?
	echo >&3
	exec 3>&-
	wait $target
	target_rc=$?
	grep '^dma_mlx5_remote: ' "$log/$name-copier.txt" "$log/$name-target.txt" | sed 's/^[^:]*://'
	[ $copier_rc = 0 ] && grep -q '^dma_mlx5_remote: copier: .* to 127\.0\.[0-9.]*:[0-9]*, 0 failures: PASS$' "$log/$name-copier.txt" ||
		fail "$name: copier (exit $copier_rc)" "$log/$name-copier.txt"
	[ $target_rc = 0 ] && grep -q '^dma_mlx5_remote: target: .*: PASS$' "$log/$name-target.txt" ||
		fail "$name: target (exit $target_rc)" "$log/$name-target.txt"
	echo "ok: $name (the copier was given $addr only)"
	port=$((port + 1))
}

fabric=rex$$
run embedded "" "dev=sim1,sim_exec=thread,sim_fabric=$fabric" \
	"dev=sim2,sim_exec=inline,sim_fabric=$fabric"
case "${MLX5_SIM_RDMA_PRELOAD:-}" in
*libtsan*)
	# the kernel side is not run under ThreadSanitizer (its suite is not in the TSan
	# build's list, devtools/test.sh): the librdmacm pair runs in the other builds
	echo "skipped: librdmacm: the kernel side does not run under ThreadSanitizer"
	exit 0
	;;
esac
run librdmacm "$simrdma -a sim_fabric=$fabric" "dev=mlx5_0" \
	"dev=sim2,sim_exec=inline,sim_fabric=$fabric"
