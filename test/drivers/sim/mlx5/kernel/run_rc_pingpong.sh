#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Debian's ibv_rc_pingpong (ibverbs-utils) between two processes, each on its own
# software HCA, both hosts of one machine-wide fabric, through devtools/sim-rdma:
# Debian's libmlx5 builds the WQEs and rings its doorbells, the model moves the data
# across processes and writes the CQEs libmlx5 polls.
#   run_rc_pingpong.sh <devtools/sim-rdma>
set -u
sim_rdma=$1
# shellcheck source=kside_run_lib.sh
. "$(dirname "$0")/kside_run_lib.sh"
two_hosts pp
need ibv_rc_pingpong ibverbs-utils

# one exchange: <name> <extra sim-rdma options> -- <pingpong options>
pingpong() {
	name=$1 opts=$2 pp=$3
	# shellcheck disable=SC2086
	timeout 120 "$sim_rdma" -a "sim_fabric=$fabric$opts" ibv_rc_pingpong -p "$port" $pp \
		>"$srv" 2>&1 </dev/null &
	spid=$!
	st=1
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		sleep 0.5
		# shellcheck disable=SC2086
		timeout 120 "$sim_rdma" -a "sim_fabric=$fabric$opts" ibv_rc_pingpong -p "$port" \
			$pp localhost >"$cli" 2>&1 </dev/null && { st=0; break; }
		grep -q "Couldn't connect" "$cli" || break # a real failure, not a slow server
	done
	sst=0
	wait "$spid" || sst=$?
	if [ "$st" -eq 0 ] && [ "$sst" -eq 0 ] && grep -q ' iters in ' "$cli" &&
		grep -q ' iters in ' "$srv" && ! grep -q 'mlx5-sim-kernel' "$srv" "$cli" &&
		! grep -qiE 'fail|mismatch|error' "$srv" "$cli"; then
		echo "ok: $name: $(grep ' iters in ' "$cli")"
		grep 'address' "$cli"
	else
		echo "--- server (exit $sst)"; cat "$srv"
		echo "--- client (exit $st)"; cat "$cli"
		echo "FAIL: $name"
		failed=$((failed + 1))
	fi
	port=$((port + 1))
}

pingpong "200 x 4 KiB, engine thread, data checked" "" "-n 200 -c"
pingpong "100 x 64 KiB, inline execution, data checked" ",sim_exec=inline" "-n 100 -s 65536 -m 4096 -c"
pingpong "200 x 4 KiB, completion events (-e), data checked" "" "-n 200 -c -e"
echo "$failed failed"
exit "$failed"
