#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Only the glue library may need libibverbs/libmlx5: every other binary must start
# on a host without rdma-core.
#   check_needed.sh --without FILE... --with FILE...
# --without: no DT_NEEDED on libibverbs/libmlx5; --with: DT_NEEDED on both and
# mlx5_glue_rdma_core_lib the only symbol defined in the dynamic symbol table.
set -u
mode=
fail=0
for f in "$@"; do
	case "$f" in
	--without|--with) mode=$f; continue ;;
	esac
	needed=$(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
	if [ -z "$needed" ] && ! readelf -d "$f" >/dev/null; then
		echo "FAIL $f: readelf failed"; fail=1; continue
	fi
	rdma=$(echo "$needed" | grep -E '^lib(ibverbs|mlx5)\.so' | tr '\n' ' ')
	case "$mode" in
	--without)
		if [ -n "$rdma" ]; then
			echo "FAIL $f needs $rdma"; fail=1
		else
			echo "ok   $f: no rdma-core NEEDED"
		fi ;;
	--with)
		for lib in libibverbs.so.1 libmlx5.so.1; do
			if echo "$needed" | grep -qx "$lib"; then
				echo "ok   $f needs $lib"
			else
				echo "FAIL $f does not need $lib"; fail=1
			fi
		done
		exports=$(nm -D --defined-only "$f" | awk '{print $NF}' | sort -u | tr '\n' ' ')
		if [ "$exports" = "mlx5_glue_rdma_core_lib " ]; then
			echo "ok   $f exports only mlx5_glue_rdma_core_lib"
		else
			echo "FAIL $f exports: $exports"; fail=1
		fi ;;
	*) echo "usage: $0 --without FILE... --with FILE..."; exit 2 ;;
	esac
done
exit $fail
