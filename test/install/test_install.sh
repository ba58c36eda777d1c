#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs dma_mlx5 into a fresh prefix, builds examples/dma_mlx5_copy against that
# prefix through PKG_CONFIG_PATH only (make shared/static; meson shared/static through
# examples/meson.build, which builds every example) and runs every build on the software
# HCA; builds examples/dma_mlx5_remote (make) and runs it between two fabric hosts;
# builds and runs a C consumer of librte_blkint on the CPU, and one on dma_mlx5 through
# the installed engine module (librte_dma_mlx5_blkint in the plugin directory).
#
#   test/install/test_install.sh <source dir> <work dir>
#
# <work dir>/build is a build of the source configured with --prefix=<work dir>/prefix
# and kept between runs (only the first run pays for a full build). The prefix is
# reinstalled every run. <work dir> must have no world-writable ancestor (not /tmp):
# EAL refuses plugins below one. Prints "N passed, N failed"; exits 0 if none failed.
set -uo pipefail

src=$(cd "${1:?usage: $0 <source dir> <work dir>}" && pwd)
mkdir -p "${2:?usage: $0 <source dir> <work dir>}"
work=$(cd "$2" && pwd)
bld=$work/build
prefix=$work/prefix
passed=0
failed=0
log=$work/log
mkdir -p "$log"

pass() { echo "PASS: $1"; passed=$((passed + 1)); }
fail() { echo "FAIL: $1"; failed=$((failed + 1)); [ -n "${2:-}" ] && sed 's/^/    /' "$2" | tail -n 30; }
finish() { echo "$passed passed, $failed failed"; [ "$failed" = 0 ]; exit $?; }

# ---- install ----------------------------------------------------------------------
if [ ! -f "$bld/build.ninja" ]; then
	meson setup "$bld" "$src" --prefix="$prefix" --buildtype=debugoptimized \
		-Dtests=false -Dsim=true >"$log/setup.txt" 2>&1 ||
		{ fail "meson setup --prefix=$prefix" "$log/setup.txt"; finish; }
fi
rm -rf "$prefix"
if meson install -C "$bld" >"$log/install.txt" 2>&1; then
	pass "meson install into $prefix"
else
	fail "meson install into $prefix" "$log/install.txt"
	finish
fi

# The prefix's own libdir and pkg-config directory, from the installed .pc file.
pc=$(find "$prefix" -name libdpdk-dma-mlx5.pc -path '*/pkgconfig/*' | head -n1)
if [ -z "$pc" ]; then
	fail "libdpdk-dma-mlx5.pc installed"
	finish
fi
pcdir=$(dirname "$pc")
export PKG_CONFIG_PATH=$pcdir
unset PKG_CONFIG_LIBDIR LD_LIBRARY_PATH LIBRARY_PATH CPATH C_INCLUDE_PATH
libdir=$(pkg-config --variable=libdir libdpdk-dma-mlx5)
pmddir=$(pkg-config --variable=pmddir libdpdk-dma-mlx5)
includedir=$(pkg-config --variable=includedir libdpdk-dma-mlx5)
echo "prefix $prefix: libdir $libdir, plugins $pmddir"

# ---- layout -----------------------------------------------------------------------
missing=()
for f in "$pmddir"/librte_{dma_mlx5,common_mlx5_seam,sim_mlx5}.so.23.0 \
	 "$pmddir"/librte_{dma_mlx5,common_mlx5_seam,sim_mlx5}.so{,.23} \
	 "$libdir"/librte_{dma_mlx5,common_mlx5_seam,sim_mlx5}.{a,so,so.23,so.23.0} \
	 "$pmddir"/librte_dma_mlx5_{blkint,reasm}.so{,.23,.23.0} \
	 "$includedir"/dpdk/rte_{blkint,reasm}_driver.h \
	 "$includedir"/dpdk/rte_pmd_dma_mlx5.h "$pcdir"/libdpdk-dma-mlx5-libs.pc \
	 "$pmddir"-glue/librte_dma_mlx5_glue.so.44; do
	[ -e "$f" ] || missing+=("${f#"$prefix"/}")
done
if [ ${#missing[@]} = 0 ]; then
	pass "installed layout (plugins in ${pmddir#"$prefix"/}, archives, header, .pc)"
else
	fail "installed layout: missing ${missing[*]}"
fi
if [ -f "$pmddir/librte_dma_mlx5.so.23.0" ] && [ ! -L "$pmddir/librte_dma_mlx5.so.23.0" ]; then
	pass "the PMD itself lives in the plugin directory"
else
	fail "the PMD itself lives in the plugin directory"
fi

dyn=$(readelf -d "$pmddir/librte_dma_mlx5.so.23.0" 2>&1)
if grep -q 'SONAME.*\[librte_dma_mlx5\.so\.23\]' <<<"$dyn" &&
   grep -q 'RUNPATH.*\[\$ORIGIN\]' <<<"$dyn"; then
	pass "readelf -d: SONAME librte_dma_mlx5.so.23, RUNPATH \$ORIGIN"
else
	echo "$dyn" >"$log/readelf.txt"
	fail "readelf -d: SONAME librte_dma_mlx5.so.23, RUNPATH \$ORIGIN" "$log/readelf.txt"
fi

# An engine module reaches its library in <libdir> from the plugin directory by itself.
rel=$(realpath -m --relative-to="$pmddir" "$libdir")
dyn=$(readelf -d "$pmddir/librte_dma_mlx5_blkint.so.23.0" 2>&1)
if grep -q "RUNPATH.*\[\\\$ORIGIN:\\\$ORIGIN/$rel\]" <<<"$dyn" &&
   grep -q 'NEEDED.*\[librte_blkint\.so\.0\]' <<<"$dyn"; then
	pass "readelf -d: the blkint engine module needs librte_blkint, RUNPATH \$ORIGIN/$rel"
else
	echo "$dyn" >"$log/readelf-engine.txt"
	fail "readelf -d: the blkint engine module's RUNPATH reaches <libdir>" \
		"$log/readelf-engine.txt"
fi

# Nothing the example is built with may point into the source tree or into this
# work directory outside the prefix.
check_paths() { # <what> <file with the compile/link lines>
	local bad
	bad=$(tr ' =' '\n\n' <"$2" | grep -E "^(-[IL])?($src|$work)" | grep -v "^\(-[IL]\)\?$prefix" |
	      grep -v "^\(-[IL]\)\?$work/ex-" | sort -u)
	if [ -z "$bad" ]; then
		pass "$1: no path into the source or build tree"
	else
		echo "$bad" >"$log/paths.txt"
		fail "$1: paths into the source or build tree" "$log/paths.txt"
	fi
}
pkg-config --cflags --libs libdpdk-dma-mlx5 >"$log/pc-shared.txt" 2>&1
pkg-config --static --cflags --libs libdpdk-dma-mlx5 >"$log/pc-static.txt" 2>&1
check_paths "pkg-config --cflags --libs [--static]" <(cat "$log"/pc-*.txt)

# ---- running ----------------------------------------------------------------------
# EAL of a shared DPDK autoloads only its own plugin directory; this prefix's is
# passed with -d. A statically linked binary has everything in and loads nothing.
eal=(--no-huge -m 512 --no-pci --no-shconf -l 0-1 --vdev dma_mlx5,dev=sim0)
if compgen -G "$(pkg-config --variable=pmddir libdpdk)/librte_dma_mlx5.so*" >/dev/null 2>&1 ||
   [ -e /usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0/librte_dma_mlx5.so ]; then
	echo "note: a dma_mlx5 is installed in DPDK's autoload directory; it is loaded too"
fi
summary_re='^dma_mlx5_copy: [1-9][0-9]* copies, [0-9]+ bytes verified, 0 failures: PASS$'

# EAL refuses a plugin path below a world-writable directory (a clone under /tmp):
# then the plugins are named bare and found through LD_LIBRARY_PATH, as a user
# of such a tree would have to.
plugin_args=(-d "$pmddir")
plugin_ld=$libdir
d=$pmddir
while [ "$d" != / ] && [ -n "$d" ]; do
	if [ -n "$(find "$d" -maxdepth 0 -perm -o+w 2>/dev/null)" ]; then
		plugin_args=(-d librte_dma_mlx5.so.23 -d librte_sim_mlx5.so.23
			     -d librte_dma_mlx5_blkint.so.23 -d librte_dma_mlx5_reasm.so.23)
		plugin_ld=$pmddir:$libdir
		echo "note: $d is world-writable: plugins passed by name with LD_LIBRARY_PATH"
		break
	fi
	d=$(dirname "$d")
done

run_example() { # <what> <binary> <shared|static>
	local what=$1 bin=$2 kind=$3 out=$log/run-$1.txt rc
	local -a cmd
	if [ "$kind" = shared ]; then
		# the PMD is linked in: the loader finds it in the prefix's libdir
		cmd=(env LD_LIBRARY_PATH="$plugin_ld" "$bin" "${eal[@]}" "${plugin_args[@]}")
	else
		cmd=("$bin" "${eal[@]}")
	fi
	(cd "$work" && timeout 120 "${cmd[@]}") >"$out" 2>&1
	rc=$?
	if [ $rc = 0 ] && grep -Eq "$summary_re" "$out"; then
		pass "run $what: $(grep -E "$summary_re" "$out")"
	else
		echo "(exit $rc) ${cmd[*]}" >>"$out"
		fail "run $what" "$out"
	fi
}

check_static() { # <what> <binary>: no DPDK or dma_mlx5 shared object needed
	local needed
	needed=$(readelf -d "$2" | grep NEEDED | grep -E 'librte_' || true)
	if [ -z "$needed" ]; then
		pass "$1 needs no librte_*.so"
	else
		echo "$needed" >"$log/needed.txt"
		fail "$1 needs no librte_*.so" "$log/needed.txt"
	fi
}

# The installed seam finds the installed rdma-core glue library by itself: automatic
# device selection asks the hardware backend first and logs what it loaded.
check_glue() { # <what> <command...>
	local what=$1 out=$log/glue-$1.txt
	shift
	(cd "$work" && timeout 120 "$@" --no-huge -m 512 --no-pci --no-shconf -l 0-1 \
		--vdev dma_mlx5 --log-level=pmd.dma.mlx5:info) >"$out" 2>&1
	if grep -q "rdma-core glue loaded: ${pmddir}-glue/librte_dma_mlx5_glue.so" "$out"; then
		pass "$what: the installed glue library is loaded from ${pmddir#"$prefix"/}-glue"
	else
		fail "$what: the installed glue library is loaded" "$out"
	fi
}

# ---- make, shared and static --------------------------------------------------------
ex=$work/ex-make
rm -rf "$ex" && cp -r "$src/examples/dma_mlx5_copy" "$ex"
if make -C "$ex" >"$log/make-shared.txt" 2>&1 && [ -x "$ex/build/dma_mlx5_copy-shared" ]; then
	pass "make (shared) with PKG_CONFIG_PATH=$pcdir"
	check_paths "make (shared) command line" "$log/make-shared.txt"
	run_example make-shared "$ex/build/dma_mlx5_copy-shared" shared
	check_glue make-shared env LD_LIBRARY_PATH="$plugin_ld" "$ex/build/dma_mlx5_copy-shared" \
		"${plugin_args[@]}"
	# only the PMD given: the installed seam loads the software HCA's plugin (beside it)
	saved_args=("${plugin_args[@]}") saved_ld=$plugin_ld
	plugin_args=(-d librte_dma_mlx5.so.23) plugin_ld=$pmddir:$libdir
	run_example make-shared-pmd-only "$ex/build/dma_mlx5_copy-shared" shared
	plugin_args=("${saved_args[@]}") plugin_ld=$saved_ld
else
	fail "make (shared)" "$log/make-shared.txt"
fi
if make -C "$ex" static >"$log/make-static.txt" 2>&1 && [ -x "$ex/build/dma_mlx5_copy-static" ]; then
	pass "make static"
	check_paths "make static command line" "$log/make-static.txt"
	check_static "make static binary" "$ex/build/dma_mlx5_copy-static"
	run_example make-static "$ex/build/dma_mlx5_copy-static" static
	check_glue make-static "$ex/build/dma_mlx5_copy-static"
else
	fail "make static" "$log/make-static.txt"
fi

# ---- meson, shared and static: examples/meson.build builds every example ------------
for kind in shared static; do
	ex=$work/ex-meson-$kind
	rm -rf "$ex" && cp -r "$src/examples" "$ex" && rm -rf "$ex"/build "$ex"/*/build
	if (cd "$ex" && meson setup build -Ddefault_library=$kind && ninja -C build -v) \
		>"$log/meson-$kind.txt" 2>&1 && [ -x "$ex/build/dma_mlx5_copy" ] &&
		[ -x "$ex/build/dma_mlx5_remote" ]; then
		pass "meson ($kind) of examples/ with PKG_CONFIG_PATH=$pcdir"
		check_paths "meson ($kind) command line" "$log/meson-$kind.txt"
		[ $kind = static ] && check_static "meson static binary" "$ex/build/dma_mlx5_copy"
		run_example meson-$kind "$ex/build/dma_mlx5_copy" $kind
	else
		fail "meson ($kind)" "$log/meson-$kind.txt"
	fi
done

# ---- remote copies over DC: the second example, make (shared), two fabric hosts ---------
ex=$work/ex-remote
rm -rf "$ex" && cp -r "$src/examples/dma_mlx5_remote" "$ex"
remote_re='^dma_mlx5_remote: 1 fill, 256 writes, 257 reads, [0-9]+ bytes verified, 0 failures: PASS$'
if make -C "$ex" >"$log/make-remote.txt" 2>&1 && [ -x "$ex/build/dma_mlx5_remote-shared" ]; then
	pass "make (shared) of examples/dma_mlx5_remote"
	check_paths "make (remote) command line" "$log/make-remote.txt"
	(cd "$work" && LD_LIBRARY_PATH="$plugin_ld" timeout 120 \
		"$ex/build/dma_mlx5_remote-shared" --no-huge -m 512 --no-pci --no-shconf -l 0 \
		"${plugin_args[@]}" --vdev dma_mlx5_a,dev=sim11,sim_exec=inline,sim_fabric=1 \
		--vdev dma_mlx5_b,dev=sim12,sim_exec=thread,sim_fabric=1) \
		>"$log/run-remote.txt" 2>&1
	if grep -Eq "$remote_re" "$log/run-remote.txt"; then
		pass "run dma_mlx5_remote: $(grep -E "$remote_re" "$log/run-remote.txt")"
	else
		fail "run dma_mlx5_remote" "$log/run-remote.txt"
	fi
	# two processes on one machine-wide fabric, as the how-to does it: the target
	# prints its peer line and waits on stdin; the copier is given that line
	fabric=inst$$
	fifo=$work/remote-target.in
	rm -f "$fifo" && mkfifo "$fifo"
	(cd "$work" && LD_LIBRARY_PATH="$plugin_ld" timeout 120 \
		"$ex/build/dma_mlx5_remote-shared" --no-huge -m 512 --no-pci --no-shconf -l 0 \
		--file-prefix "t$$" "${plugin_args[@]}" \
		--vdev "dma_mlx5_t,dev=sim1,sim_exec=thread,sim_fabric=$fabric" -- serve \
		<"$fifo" >"$log/run-remote-target.txt" 2>&1) &
	target_pid=$!
	exec 7>"$fifo" # the target's stdin stays open until the copier is done
	peer=""
	for _ in $(seq 1 300); do
		peer=$(grep -m1 '^peer ' "$log/run-remote-target.txt" 2>/dev/null)
		[ -n "$peer" ] && break
		sleep 0.1
	done
	# shellcheck disable=SC2086 # the peer line is words on purpose
	(cd "$work" && LD_LIBRARY_PATH="$plugin_ld" timeout 120 \
		"$ex/build/dma_mlx5_remote-shared" --no-huge -m 512 --no-pci --no-shconf -l 0 \
		--file-prefix "c$$" "${plugin_args[@]}" \
		--vdev "dma_mlx5_c,dev=sim2,sim_exec=inline,sim_fabric=$fabric" -- copy $peer) \
		>"$log/run-remote-copier.txt" 2>&1
	echo done >&7
	exec 7>&-
	wait "$target_pid"
	rm -f "$fifo"
	copier_re='^dma_mlx5_remote: copier: 1 fill, 256 writes, 257 reads to LID [0-9]+, 0 failures: PASS$'
	target_re='^dma_mlx5_remote: target: [0-9]+ bytes written by the other process: PASS$'
	if [ -n "$peer" ] && grep -Eq "$copier_re" "$log/run-remote-copier.txt" &&
		grep -Eq "$target_re" "$log/run-remote-target.txt"; then
		pass "dma_mlx5_remote in two processes: $(grep -E "$copier_re" "$log/run-remote-copier.txt")"
	else
		fail "dma_mlx5_remote in two processes (target)" "$log/run-remote-target.txt"
		fail "dma_mlx5_remote in two processes (copier)" "$log/run-remote-copier.txt"
	fi
else
	fail "make (shared) of examples/dma_mlx5_remote" "$log/make-remote.txt"
fi

# ---- librte_blkint: a C consumer built by pkg-config alone, run on the CPU engine ------
bk=$work/blkint
mkdir -p "$bk"
cat >"$bk/main.c" <<'EOF_C'
#include <stdio.h>
#include <string.h>
#include <rte_eal.h>
#include <rte_blkint.h>

int main(int argc, char **argv)
{
	static unsigned char data[2 * 512], prot[2 * 520];
	struct rte_blkint_format f = {.type = RTE_BLKINT_PI_T10DIF, .block_size = 512,
				      .flags = RTE_BLKINT_F_REF_INC};
	struct rte_blkint_conf conf = {.name = "consumer", .dev_id = -1};
	struct rte_blkint_op op = {.type = RTE_BLKINT_OP_INSERT, .nb_blocks = 2, .src = data,
				   .dst = prot, .dst_fmt = &f, .dst_ref_tag = 7};
	struct rte_blkint_result r[2];
	struct rte_blkint_ctx *ctx;
	int n = 0;

	if (rte_eal_init(argc, argv) < 0 || !(ctx = rte_blkint_create(&conf)))
		return 1;
	memset(data, 0x5a, sizeof(data));
	n += rte_blkint_enqueue(ctx, &op, 1);
	op.type = RTE_BLKINT_OP_VERIFY;
	op.src = prot;
	op.dst = NULL;
	op.src_fmt = &f;
	op.src_ref_tag = 7;
	n += rte_blkint_enqueue(ctx, &op, 1);
	if (n != 2 || rte_blkint_dequeue(ctx, r, 2) != 2 || r[0].status || r[1].status ||
	    prot[2 * 520 - 1] != 8)
		return 1;
	rte_blkint_free(ctx);
	printf("blkint consumer: PASS\n");
	return rte_eal_cleanup();
}
EOF_C
for f in "$includedir"/dpdk/rte_blkint.h "$pcdir"/libdpdk-blkint.pc \
	 "$libdir"/librte_blkint.{a,so,so.0}; do
	[ -e "$f" ] || { echo "missing $f" >"$log/blkint-layout.txt"; break; }
done
if [ -s "$log/blkint-layout.txt" ]; then
	fail "librte_blkint installed (header, .pc, archive, shared object)" "$log/blkint-layout.txt"
else
	pass "librte_blkint installed (header, .pc, archive, shared object)"
fi
# shellcheck disable=SC2046 # pkg-config output is a list of words
if cc -o "$bk/consumer" "$bk/main.c" -DALLOW_EXPERIMENTAL_API \
	$(pkg-config --cflags --libs libdpdk-blkint) >"$log/blkint-build.txt" 2>&1 &&
   (cd "$work" && LD_LIBRARY_PATH=$libdir timeout 60 "$bk/consumer" --no-huge -m 256 \
	--no-pci --no-shconf -l 0) >"$log/blkint-run.txt" 2>&1 &&
   grep -q '^blkint consumer: PASS$' "$log/blkint-run.txt"; then
	pass "librte_blkint: a C consumer built with pkg-config libdpdk-blkint runs"
else
	cat "$log/blkint-build.txt" "$log/blkint-run.txt" >"$log/blkint.txt" 2>/dev/null
	fail "librte_blkint: a C consumer built with pkg-config libdpdk-blkint runs" \
		"$log/blkint.txt"
fi

# ---- librte_blkint on dma_mlx5: the engine module found as a plugin ------------------
# The consumer links the shared librte_blkint only (no PMD): the engine module comes
# from the plugin directory EAL loads (rte_blkint_driver.h), not from the library.
cat >"$bk/dev.c" <<'EOF_C'
#include <stdio.h>
#include <string.h>
#include <rte_blkint.h>
#include <rte_dmadev.h>
#include <rte_eal.h>
#include <rte_malloc.h>

int main(int argc, char **argv)
{
	struct rte_dma_conf dc = {.nb_vchans = 1};
	struct rte_dma_vchan_conf vc = {.direction = RTE_DMA_DIR_MEM_TO_MEM, .nb_desc = 64};
	struct rte_blkint_format f = {.type = RTE_BLKINT_PI_CRC32C, .block_size = 512};
	struct rte_blkint_conf conf = {.name = "engine", .xcheck_rate = 1.0};
	struct rte_blkint_op op = {.type = RTE_BLKINT_OP_INSERT, .nb_blocks = 8, .dst_fmt = &f};
	struct rte_blkint_result r;
	struct rte_blkint_ctx *ctx;
	unsigned char *data, *prot;
	int i, id;

	if (rte_eal_init(argc, argv) < 0 || (id = rte_dma_get_dev_id_by_name("dma_mlx5")) < 0 ||
	    rte_dma_configure(id, &dc) || rte_dma_vchan_setup(id, 0, &vc) || rte_dma_start(id))
		return 1;
	data = rte_zmalloc(NULL, 8 * 512, 64);
	prot = rte_zmalloc(NULL, 8 * 516, 64);
	conf.dev_id = (int16_t)id;
	if (!data || !prot || !(ctx = rte_blkint_create(&conf)) || !rte_blkint_on_device(ctx))
		return 2;
	memset(data, 0x5a, 8 * 512);
	op.src = data;
	op.dst = prot;
	if (rte_blkint_enqueue(ctx, &op, 1) != 1)
		return 3;
	for (i = 0; i < 1000000 && rte_blkint_dequeue(ctx, &r, 1) == 0; i++)
		;
	if (i == 1000000 || r.status != RTE_BLKINT_OK || !r.on_device)
		return 4;
	rte_blkint_free(ctx);
	rte_dma_stop(id);
	printf("blkint on dma_mlx5: PASS\n");
	return rte_eal_cleanup();
}
EOF_C
# shellcheck disable=SC2046 # pkg-config output is a list of words
if cc -o "$bk/dev" "$bk/dev.c" -DALLOW_EXPERIMENTAL_API \
	$(pkg-config --cflags --libs libdpdk-blkint) >"$log/blkint-dev-build.txt" 2>&1 &&
   ! readelf -d "$bk/dev" | grep -q 'NEEDED.*librte_dma_mlx5' &&
   (cd "$work" && LD_LIBRARY_PATH=$plugin_ld timeout 60 "$bk/dev" --no-huge -m 512 \
	--no-pci --no-shconf -l 0-1 --vdev dma_mlx5,dev=sim0,sig=1 "${plugin_args[@]}") \
	>"$log/blkint-dev-run.txt" 2>&1 &&
   grep -q '^blkint on dma_mlx5: PASS$' "$log/blkint-dev-run.txt"; then
	pass "librte_blkint (shared) runs on dma_mlx5 through the installed engine module"
else
	cat "$log/blkint-dev-build.txt" "$log/blkint-dev-run.txt" >"$log/blkint-dev.txt" 2>/dev/null
	fail "librte_blkint (shared) runs on dma_mlx5 through the installed engine module" \
		"$log/blkint-dev.txt"
fi

finish
