#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Sets up a Debian 12 machine for building dma_mlx5 and builds what the main job needs.
#   devtools/setup.sh          install packages (if missing), fetch SDK headers, configure
#                              build/ and build the dma-perf benchmark (README command 1)
#   devtools/setup.sh --all    same, then build every target of build/ (suites, tools)
#   devtools/setup.sh --dpdk 24.11|25.11 [--all]
#                              the same against that DPDK LTS as Debian 13 (24.11) or
#                              unstable (25.11) ship it: in a chroot of that release
#                              (devtools/dpdk-chroot.sh, made once and cached outside the
#                              clone), into build-dpdk<release>/; without --all only the
#                              PMD, the software HCA and dma-perf. --dpdk 22.11 is the default.
# Re-running it is cheap: every step checks first and skips what is already done.
# The ASan+UBSan build (build-san/) is configured and built by devtools/test.sh, which
# needs it; this script never touches it.
# Environment: BUILD_DIR (default build), SETUP_BUILD_ALL=1 (same as --all),
#              SETUP_TARGETS (--dpdk without --all: the ninja targets to build).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build_dir=${BUILD_DIR:-build}
build_all=${SETUP_BUILD_ALL:-0}
dpdk=22.11
while [ $# -gt 0 ]; do
	case "$1" in
	--all) build_all=1 ;;
	--dpdk) dpdk=${2:-}; shift ;;
	--dpdk=*) dpdk=${1#--dpdk=} ;;
	-h|--help) sed -n '3,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "setup: unknown argument $1 (try --help)" >&2; exit 2 ;;
	esac
	shift
done
case "$dpdk" in
22.11) ;;
24.11|25.11)
	# Everything happens in the release's chroot, with this tree at the same path.
	build_dir=${BUILD_DIR:-build-dpdk$dpdk}
	targets=()
	[ "$build_all" = 1 ] || read -r -a targets <<<"${SETUP_TARGETS:-plugins app/dma-perf/dma-perf}"
	exec devtools/dpdk-chroot.sh "$dpdk" -- /bin/sh -euc '
		[ -f "$1/build.ninja" ] ||
			meson setup "$1" --buildtype=debugoptimized -Dwerror=true
		shift
		ninja -C "$@"' sh "$build_dir" "$build_dir" "${targets[@]}" ;;
*) echo "setup: DPDK $dpdk is not supported (22.11, 24.11, 25.11)" >&2; exit 2 ;;
esac
sdk_dir="$top/.sdk"   # driver-SDK headers of the installed DPDK; never committed (.gitignore)

packages=(build-essential g++ pkg-config meson ninja-build
          libdpdk-dev dpdk dpdk-dev libibverbs-dev rdma-core ibverbs-providers ibverbs-utils python3-pyverbs
          perftest   # ib_write_bw etc. on the kernel side (suite kernel)
          rdmacm-utils librdmacm-dev   # rping, ucmatose; rdma_cma.h for the rdma-cm suite
          libisal-dev libcunit1-dev dpkg-dev valgrind
          clang-format python3-sphinx
          clang libclang-rt-14-dev   # libFuzzer targets (test/fuzz)
          libsystemd-dev)   # pkg-config --static libdpdk names -lsystemd (dbus-1.pc)

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "setup: installing ${missing[*]}"
	as_root apt-get update -q
	DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# DPDK 22.11 does not install its driver-SDK headers (rte_dmadev_pmd.h, dev_driver.h,
# bus_vdev_driver.h). Take them from Debian's source package of the installed version.
dpdk_ver=$(dpkg-query -W -f='${Version}' libdpdk-dev)
if [ "$(cat "$sdk_dir/VERSION" 2>/dev/null)" != "$dpdk_ver" ]; then
	echo "setup: fetching driver-SDK headers of dpdk $dpdk_ver"
	src_list=/etc/apt/sources.list.d/dma-mlx5-deb-src.sources
	if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
		as_root tee "$src_list" >/dev/null <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
		as_root apt-get update -q
	fi
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	(cd "$work" && apt-get source --download-only -q "dpdk=$dpdk_ver" >/dev/null)
	tarball=$(ls "$work"/dpdk_*.orig.tar.* | head -n1)
	rm -rf "$sdk_dir" && mkdir -p "$sdk_dir/include"
	tar -xf "$tarball" -C "$work" --wildcards --no-anchored \
		'lib/dmadev/rte_dmadev_pmd.h' 'lib/eal/include/dev_driver.h' \
		'drivers/bus/vdev/bus_vdev_driver.h'
	find "$work" \( -name rte_dmadev_pmd.h -o -name dev_driver.h -o -name bus_vdev_driver.h \) \
		-exec cp {} "$sdk_dir/include/" \;
	[ "$(ls "$sdk_dir/include" | wc -l)" = 3 ] || { echo "setup: SDK headers not found in $tarball" >&2; exit 1; }
	echo "$dpdk_ver" > "$sdk_dir/VERSION"
fi

if [ ! -f "$build_dir/build.ninja" ]; then
	meson setup "$build_dir" --buildtype=debugoptimized -Dwerror=true
fi
if [ "$build_all" = 1 ]; then
	ninja -C "$build_dir"
else
	# the main job only: dma-perf links the PMD and both seam backends in
	ninja -C "$build_dir" app/dma-perf/dma-perf
fi
