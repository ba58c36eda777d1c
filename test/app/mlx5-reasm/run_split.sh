#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mlx5-reasm split mode end to end: fixed-stride packets split into payloads + headers,
# then the reverse, must give the input back; both passes on the given engine.
# Usage: run_split.sh <reasm-pcapgen> <mlx5-reasm> <workdir> <name> <engine> [tool options]
set -u
gen=$1 tool=$2 dir=$3 name=$4 engine=$5
shift 5

mkdir -p "$dir" || exit 1
in=$dir/split_in_$name.pcap mid=$dir/split_mid_$name.pcap out=$dir/split_out_$name.pcap
"$gen" gen-split 9 "$in" || { echo "generator failed"; exit 1; }
vdev=
[ "$engine" = dma_mlx5 ] && vdev="--vdev=dma_mlx5,dev=sim1"
pass() { # <in> <out> <split layout> [tool options]
	pin=$1 pout=$2 layout=$3
	shift 3
	rm -f "$pout"
	# shellcheck disable=SC2086
	"$tool" --no-huge -m 512 --no-pci --no-shconf -l 0 --log-level=lib.eal:warning $vdev \
		--vdev=net_pcap0,rx_pcap="$pin" --vdev=net_pcap1,tx_pcap="$pout" -- \
		--engine "$engine" --progress-ms 0 --mode split --split "$layout" --keep-headers \
		"$@" >"$pout.log" 2>&1
	rc=$?
	cat "$pout.log"
	[ $rc -eq 0 ] || { echo "mlx5-reasm exited $rc"; exit 1; }
	grep -Eq "^  split +200$" "$pout.log" || { echo "not every packet split"; exit 1; }
	case " $* " in
	*" --dma-mode umr "*) # contiguous rx packets: every one through interleaved mkeys
		grep -Eq "^  interleaved splits +200$" "$pout.log" ||
			{ echo "not every split through interleaved mkeys"; exit 1; }
		;;
	esac
}
opts="$*"
# shellcheck disable=SC2086
pass "$in" "$mid" 14,16,240 $opts
# the split output differs from its input (payloads first), the reverse restores it
if "$gen" cmp "$mid" "$in" >/dev/null 2>&1; then echo "split changed nothing"; exit 1; fi
# shellcheck disable=SC2086
pass "$mid" "$out" 14,16,240,reverse $opts
"$gen" cmp "$out" "$in" || exit 1
echo "ok: split $name"
