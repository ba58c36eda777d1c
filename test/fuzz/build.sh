#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds the libFuzzer targets with clang++ (-fsanitize=fuzzer,address,undefined) into
# $FUZZ_BUILD_DIR (default build-fuzz/): fuzz_hca_sq (the software HCA's device side),
# fuzz_devargs (dma_mlx5's devargs parser), fuzz_perf_cfg (dma-perf's config parser),
# and gen_hca_corpus (writes the device-side seeds). Incremental: an object is rebuilt
# when its source or any header of the tree is newer.
# Exit status 77 when clang++ or libFuzzer is missing (meson's "skipped").
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${FUZZ_BUILD_DIR:-$top/build-fuzz}
cxx=${FUZZ_CXX:-clang++}

if ! command -v "$cxx" >/dev/null ||
   ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char *, long) { return 0; }' |
	"$cxx" -x c++ -fsanitize=fuzzer -o /dev/null - 2>/dev/null; then
	echo "fuzz: $cxx with libFuzzer not available (apt-get install clang libclang-rt-14-dev)" >&2
	exit 77
fi
mkdir -p "$out/obj"

dpdk_cflags=$(pkg-config --cflags libdpdk)
common=(-std=c++17 -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined
	-fno-sanitize-recover=undefined -Wall -Wno-unused-parameter
	-I"$top/drivers/common/mlx5" -I"$top/drivers/sim/mlx5/hca" -I"$top/drivers/dma/mlx5"
	-I"$top/test/drivers/sim/mlx5/hca"
	-I"$top/app/dma-perf" -I"$top/.sdk/include")
newest_header=$(find "$top/drivers" "$top/app" "$top/test/fuzz" -name '*.h' -printf '%T@\n' |
		sort -n | tail -n1)

# obj <source> [extra flags...]: compile unless up to date; prints the object path
obj() {
	local src=$1; shift
	local o="$out/obj/$(echo "${src#$top/}" | tr / _).o"
	if [ ! -f "$o" ] || [ "$src" -nt "$o" ] ||
	   [ "$(stat -c %Y "$o")" -lt "${newest_header%.*}" ]; then
		"$cxx" "${common[@]}" "$@" -c "$src" -o "$o" >&2
	fi
	echo "$o"
}

hca_objs=()
for s in "$top"/drivers/sim/mlx5/hca/*.cpp; do
	hca_objs+=("$(obj "$s" -fsanitize=fuzzer-no-link)")
done

link() { local name=$1; shift; "$cxx" "${common[@]}" "$@" -o "$out/$name" -lpthread; }

link fuzz_hca_sq -fsanitize=fuzzer \
	"$(obj "$top/test/fuzz/fuzz_hca_sq.cpp" -fsanitize=fuzzer-no-link)" "${hca_objs[@]}"
link gen_hca_corpus "$(obj "$top/test/fuzz/gen_hca_corpus.cpp")" \
	"$(obj "$top/test/fuzz/fuzz_hca_sq.cpp" -fsanitize=fuzzer-no-link)" "${hca_objs[@]}"
# shellcheck disable=SC2086
link fuzz_devargs -fsanitize=fuzzer \
	"$(obj "$top/test/fuzz/fuzz_devargs.cpp" -fsanitize=fuzzer-no-link $dpdk_cflags)" \
	"$(obj "$top/drivers/dma/mlx5/mlx5_dma_devargs.cpp" -fsanitize=fuzzer-no-link $dpdk_cflags)" \
	-lrte_kvargs -lrte_eal
# shellcheck disable=SC2086
link fuzz_perf_cfg -fsanitize=fuzzer \
	"$(obj "$top/test/fuzz/fuzz_perf_cfg.cpp" -fsanitize=fuzzer-no-link $dpdk_cflags)" \
	"$(obj "$top/app/dma-perf/perf_cfg.cpp" -fsanitize=fuzzer-no-link $dpdk_cflags)" \
	-lrte_cfgfile -lrte_eal
echo "$out"
