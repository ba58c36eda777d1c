#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mlx5-reasm end to end: a generated fragmented pcap in, the reassembled pcap out, compared
# (as a set of packets) with what the generator expects, and the tool's counters with the
# generator's; with --mode linearize, compared with the input. Exit 77 (skip) when the
# engine cannot do the asked mode on this device.
# Usage: run_reasm.sh <reasm-pcapgen> <mlx5-reasm> <workdir> <name> <engine> [tool options]
# <engine> dma_mlx5 may carry more devargs: dma_mlx5,umr_entries=16.
set -u
gen=$1 tool=$2 dir=$3 name=$4 engine=$5
shift 5
mkdir -p "$dir" || exit 1
in=$dir/in_$name.pcap exp=$dir/expected_$name.pcap out=$dir/out_$name.pcap
counts=$("$gen" gen 7 "$in" "$exp") || { echo "generator failed"; exit 1; }
echo "generated: $counts"
rm -f "$out"
vdevs="--vdev=net_pcap0,rx_pcap=$in --vdev=net_pcap1,tx_pcap=$out"
case $engine in
dma_mlx5*)
	vdevs="$vdevs --vdev=dma_mlx5,dev=sim1${engine#dma_mlx5}"
	engine=dma_mlx5
	;;
esac
# shellcheck disable=SC2086
"$tool" --no-huge -m 512 --no-pci --no-shconf -l 0 --log-level=lib.eal:warning $vdevs -- \
	--engine "$engine" --progress-ms 0 "$@" >"$dir/log_$name.txt" 2>&1
rc=$?
cat "$dir/log_$name.txt"
[ $rc -eq 77 ] && { echo "SKIP: engine $engine cannot run this mode here"; exit 77; }
[ $rc -eq 0 ] || { echo "mlx5-reasm exited $rc"; exit 1; }
case " $* " in
*" --mode linearize "*)
	# linearize: every packet comes out as it went in, the chains made contiguous
	"$gen" cmp "$out" "$in" || exit 1
	grep -Eq "^  linearized +[1-9]" "$dir/log_$name.txt" || { echo "nothing linearized"; exit 1; }
	echo "ok: $name"
	exit 0
	;;
esac
"$gen" cmp "$out" "$exp" || exit 1
# the tool's counters are the generator's
want() { echo "$counts" | sed -n "s/.* $1 \([0-9]*\).*/\1/p"; }
check() { # <tool line regex> <expected>
	grep -Eq "^  $1 +$2( |\$)" "$dir/log_$name.txt" || { echo "expected \"$1 $2\""; exit 1; }
}
check reassembled "$(want reassembled)"
check atomic "$(want atomic)"
check passthrough "$(want passthrough)"
check duplicates "$(want duplicates)"
check "drop overlap +packets [0-9]+ datagrams" "$(want overlap)"
check "drop timeout +packets [0-9]+ datagrams" "$(want timeout)"
for r in too_many_frags too_big table_full bad_header no_buffer mem_limit engine_error evicted; do
	check "drop $r +packets" 0
done
case " $* " in
*" --dma-mode umr "*) # the gathers within the mkey limits went through UMR mkeys
	grep -Eq "^  umr gathers +[1-9]" "$dir/log_$name.txt" || { echo "no UMR gather"; exit 1; }
	;;
esac
echo "ok: $name"
