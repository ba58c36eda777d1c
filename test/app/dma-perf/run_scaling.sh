#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Run dma-perf on tiny_scaling.ini and check its "Scaling" lines: one per N-worker
# engine (dma_mlx5 x2 against dma_mlx5, rte_memcpy x2 against rte_memcpy), an
# entry per buf_size, each "<size> <ratio> (<N-worker Mops>/<one-worker Mops>)"
# where the ratio is the quotient of the two figures (within their printed
# rounding) and the figures are the CSV's MOps of the cases compared (cases 2/1
# and 4/3 of the config).
# With <rounds> (--rounds): every entry ends in "[<lowest>-<highest>]" of the rounds'
# ratios computed from the CSV, its ratio is their lower median, and its figures are
# the MOps of the round that has it.
# The run itself is checked as run_tiny.sh checks it (8 scenarios a round: 4 cases, 2
# sizes).
# Usage: run_scaling.sh <dma-perf> <tiny_scaling.ini> <result.csv> [<rounds>]
set -u
tool=$1 cfg=$2 csv=$3 rounds=${4:-1}
ROUNDS=$rounds sh "$(dirname "$0")/run_tiny.sh" "$tool" "$cfg" "$csv" $((8 * rounds)) || exit 1
log=$csv.log
n=$(grep -c '^Scaling in this run (total Mops of N workers' "$log")
[ "$n" -eq 1 ] || { echo "expected one Scaling header, found $n"; exit 1; }
# the lines after the header that compare N workers with one
sed -n '/^Scaling in this run/,/^$/p' "$log" | grep '(N=' >"$log.scaling"
awk -v csv="$csv" -v rounds="$rounds" '
BEGIN {
	FS = ","
	while ((getline line < csv) > 0) {
		n = split(line, f, ",")
		if (f[1] == "Case" || f[n] != "ok")
			continue
		mops[f[1] "," f[8] "," f[17]] = f[13] + 0
	}
	FS = " "
	bad = 0
	lines = 0
}
function unit(v, u) {
	return u == "KiB" ? v * 1024 : u == "MiB" ? v * 1048576 : v
}
{
	lines++
	if ($0 ~ /^  dma_mlx5 x2 \/ dma_mlx5 \(N=2\):/) {
		num = 2; den = 1; what = "dma"
	} else if ($0 ~ /^  rte_memcpy x2 \/ rte_memcpy \(N=2\):/) {
		num = 4; den = 3; what = "cpu"
	} else {
		print "unexpected Scaling line: " $0
		bad = 1
		next
	}
	seen[what]++
	rest = substr($0, index($0, "):") + 2)
	entries = 0
	while (match(rest, /[0-9]+ [KM]?i?B [0-9.]+ \([0-9.]+\/[0-9.]+\)( \[[0-9.]+-[0-9.]+\])?/)) {
		e = substr(rest, RSTART, RLENGTH)
		rest = substr(rest, RSTART + RLENGTH)
		split(e, p, /[ ()\/\[\]-]+/)
		size = unit(p[1], p[2]); r = p[3]; a = p[4]; b = p[5]
		entries++
		# the round with these figures, and the bounds of the ratio of each round
		# from the CSV, which rounds MOps to 0.001 (the true MOps within
		# 0.0005 of it; a loaded machine gives dma_mlx5 0.001 MOps, where a
		# linear error estimate is far too tight)
		k = 0; m = 0
		for (q = 1; q <= rounds; q++) {
			ka = num "," size "," q; kb = den "," size "," q
			if (!(ka in mops) || !(kb in mops))
				continue
			m++
			rlo[m] = mops[ka] > 0.0005 ? (mops[ka] - 0.0005) / (mops[kb] + 0.0005) : 0
			rhi[m] = mops[kb] > 0.0005 ? (mops[ka] + 0.0005) / (mops[kb] - 0.0005) : 1e9
			if (!k && mops[ka] - a <= 0.0051 && a - mops[ka] <= 0.0051 &&
			    mops[kb] - b <= 0.0051 && b - mops[kb] <= 0.0051)
				k = q
		}
		if (rounds > 1) {
			if (p[6] == "" || m != rounds) {
				printf "%s: no range, or not every round in the CSV\n", e
				bad = 1
				continue
			}
			# sort rlo[1..m] and rhi[1..m]: the i-th lowest ratio lies between
			# the i-th lowest of each; the lower median is the int((m + 1) / 2)-th
			for (i = 2; i <= m; i++)
				for (j = i; j > 1 && rlo[j - 1] > rlo[j]; j--) {
					t = rlo[j]; rlo[j] = rlo[j - 1]; rlo[j - 1] = t
				}
			for (i = 2; i <= m; i++)
				for (j = i; j > 1 && rhi[j - 1] > rhi[j]; j--) {
					t = rhi[j]; rhi[j] = rhi[j - 1]; rhi[j - 1] = t
				}
			# the printed ratios are rounded to 0.001
			md = int((m + 1) / 2)
			if (r < rlo[md] - 0.0005 || r > rhi[md] + 0.0005 ||
			    p[6] < rlo[1] - 0.0005 || p[6] > rhi[1] + 0.0005 ||
			    p[7] < rlo[m] - 0.0005 || p[7] > rhi[m] + 0.0005) {
				printf "%s: CSV gives median %.4f..%.4f, range from %.4f..%.4f " \
				       "to %.4f..%.4f\n", e, rlo[md], rhi[md], rlo[1], rhi[1],
				       rlo[m], rhi[m]
				bad = 1
			}
		}
		if (b < 0 || a < 0) {
			print "negative Mops in: " e
			bad = 1
			continue
		}
		# a and b are rounded to 0.01, r to 0.001; a loaded machine can give
		# dma_mlx5 below 0.005 Mops, printed 0.00, which bounds no ratio
		lo = (a - 0.005) / (b + 0.005) - 0.0005
		hi = b > 0.001 ? (a + 0.005) / (b - 0.005) + 0.0005 : 1e9
		if (r < lo || r > hi) {
			printf "ratio %s is not %s/%s (%.4f..%.4f)\n", r, a, b, lo, hi
			bad = 1
		}
		if (!k) {
			printf "%s: %s/%s are no round\047s MOps of cases %d/%d in the CSV\n",
			       e, a, b, num, den
			bad = 1
			continue
		}
		ka = num "," size "," k; kb = den "," size "," k
		printf "%s %d B: %s = %s/%s, CSV %.3f/%.3f\n", what, size, r, a, b,
		       mops[ka], mops[kb]
	}
	if (entries != 2) {
		print "expected 2 sizes in: " $0
		bad = 1
	}
}
END {
	if (seen["dma"] != 1 || seen["cpu"] != 1) {
		print "expected one dma_mlx5 and one CPU Scaling line"
		bad = 1
	}
	exit bad
}' "$log.scaling" || { echo "Scaling lines wrong"; exit 1; }
echo "Scaling lines ok"
