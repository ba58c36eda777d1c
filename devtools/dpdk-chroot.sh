#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A newer DPDK LTS the way a user of that Debian release has it: a debootstrap (minbase)
# chroot of the release with Debian's own DPDK packages, cached outside the clone, in which
# a command runs with this source tree at the same path.
#   devtools/dpdk-chroot.sh RELEASE [--] [COMMAND...]   default COMMAND: an interactive shell
#   devtools/dpdk-chroot.sh --path RELEASE              print the chroot's directory
#   RELEASE: 24.11 (Debian 13 trixie) or 25.11 (Debian unstable, sid)
# The chroot is made once (about 2 minutes) under $DMA_MLX5_CACHE (default
# /var/cache/dma-mlx5) and reused; packages missing from an older one are added.
# Machine safety: every mount (debootstrap's own, /proc, /sys, /dev, the source tree) is
# made in a private mount namespace (unshare --mount) that ends with the command, so no
# exit path, not even SIGKILL, leaves a mount on the host; a chroot is never removed by
# this script (a half-made one is, after checking that nothing is mounted in it, with
# rm --one-file-system). Two runs may race: making or updating a chroot takes its lock
# exclusively, using it takes it shared.
# Environment: DMA_MLX5_CACHE, DEBIAN_MIRROR (default http://deb.debian.org/debian).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${DMA_MLX5_CACHE:-/var/cache/dma-mlx5}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

# What the project's build and tests need inside (the 22.11 list of devtools/setup.sh
# without the host-only tools: docs, format, clang, valgrind).
packages=(libdpdk-dev dpdk-dev dpdk g++ meson ninja-build pkg-config python3
          libisal-dev libibverbs-dev libcunit1-dev libsystemd-dev dpkg-dev)

print_path=0
if [ "${1:-}" = --path ]; then
	print_path=1
	shift
fi
release=${1:-}
case "$release" in
24.11) suite=trixie ;;
25.11) suite=sid ;;
*) echo "dpdk-chroot: unknown DPDK release '$release' (24.11 or 25.11)" >&2; exit 2 ;;
esac
shift
[ "${1:-}" != -- ] || shift
root=$cache/$suite
if [ "$print_path" = 1 ]; then
	echo "$root"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	exec sudo --preserve-env=DMA_MLX5_CACHE,DEBIAN_MIRROR "$0" "$release" -- "$@"
fi

# sid's Release file on the registry is not always fresh (its Valid-Until passes).
apt_opts=(-o Acquire::Check-Valid-Until=false -o Acquire::Check-Date=false -q)
# in_ns ROOT CMD...: CMD in a private mount namespace with ROOT's /proc, /sys, /dev
# and the source tree mounted; all of them vanish with the namespace.
in_ns() {
	local r=$1
	shift
	mkdir -p "$r/proc" "$r/sys" "$r/dev" "$r$top"
	unshare --mount --propagation private -- /bin/sh -euc '
		r=$1 src=$2
		shift 2
		mount -t proc proc "$r/proc"
		mount --rbind /sys "$r/sys"
		mount --rbind /dev "$r/dev"
		mount --bind "$src" "$r$src"
		exec chroot "$r" /usr/bin/env -i HOME=/root TERM="${TERM:-dumb}" \
			PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"' \
		sh "$r" "$top" "$@"
}
# mounted_under DIR: whether anything is mounted at or below DIR (host namespace)
mounted_under() {
	findmnt -rn -o TARGET | awk -v d="$1" '$0 == d || index($0, d "/") == 1 { f = 1 } END { exit !f }'
}

mkdir -p "$cache"
stamp="$root/.dma-mlx5-packages"
want="${packages[*]}"
exec 9>"$cache/$suite.lock"
flock -s 9
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	flock -u 9
	flock -x 9
fi
# (re-read under the exclusive lock: a racing run may have done it meanwhile)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	if [ ! -d "$root" ]; then
		tmp=$cache/$suite.new
		if [ -e "$tmp" ]; then
			# left by a killed run: its mounts died with its namespace
			if mounted_under "$tmp"; then
				echo "dpdk-chroot: $tmp has mounts; not removing it" >&2
				exit 1
			fi
			rm -rf --one-file-system "$tmp"
		fi
		echo "dpdk-chroot: debootstrap $suite into $root (once)"
		if ! command -v debootstrap >/dev/null; then
			apt-get update -q
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
				debootstrap
		fi
		unshare --mount --propagation private -- \
			debootstrap --variant=minbase "$suite" "$tmp" "$mirror" >"$cache/$suite.log" 2>&1 ||
			{ tail -n 20 "$cache/$suite.log" >&2; exit 1; }
		echo "deb $mirror $suite main" > "$tmp/etc/apt/sources.list"
		mv -T "$tmp" "$root"
	fi
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	echo "dpdk-chroot: installing ${packages[*]} into $root"
	in_ns "$root" dpkg --configure -a # after an install that was killed
	in_ns "$root" apt-get "${apt_opts[@]}" update
	in_ns "$root" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" \
		install -y --no-install-recommends "${packages[@]}"
	in_ns "$root" apt-get clean
	echo "$want" > "$stamp"
fi
flock -s 9 # back to shared (or still): runs may use the chroot side by side
have=$(in_ns "$root" pkg-config --modversion libdpdk)
case "$have" in
"$release".*) ;;
*) echo "dpdk-chroot: $root has DPDK $have, not $release" >&2; exit 1 ;;
esac
[ $# != 0 ] || set -- /bin/bash
case "$PWD/" in "$top"/*) cwd=$PWD ;; *) cwd=$top ;; esac
in_ns "$root" /usr/bin/env -C "$cwd" "$@"
