#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Debian's perftest (ib_write_bw, ib_read_bw, ib_send_bw, ib_write_lat) between two
# processes, each on its own software HCA, both hosts of one machine-wide fabric,
# through devtools/sim-rdma: perftest's own verbs and Debian's libmlx5 drive the model.
# perftest checks every completion's status (a failed one ends the run with an
# error); it has no payload check of its own (ibv_rc_pingpong -c does that).
#   run_perftest.sh <devtools/sim-rdma>
set -u
sim_rdma=$1
# shellcheck source=kside_run_lib.sh
. "$(dirname "$0")/kside_run_lib.sh"
two_hosts pt
no_leak_check  # perftest frees little before exit

# one run: <tool> <options>
perf() {
	tool=$1 opts=$2
	if ! command -v "$tool" >/dev/null; then
		echo "FAIL: $tool missing (package perftest)"
		failed=$((failed + 1))
		return
	fi
	# shellcheck disable=SC2086
	timeout 120 "$sim_rdma" -a "sim_fabric=$fabric" "$tool" -d mlx5_0 -p "$port" $opts \
		>"$srv" 2>&1 </dev/null &
	spid=$!
	st=1
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		sleep 0.5
		# shellcheck disable=SC2086
		timeout 120 "$sim_rdma" -a "sim_fabric=$fabric" "$tool" -d mlx5_0 -p "$port" \
			$opts localhost >"$cli" 2>&1 </dev/null && { st=0; break; }
		grep -q "Couldn't connect\|Unable to open\|Failed to" "$cli" || break
	done
	sst=0
	wait "$spid" || sst=$?
	if [ "$st" -eq 0 ] && [ "$sst" -eq 0 ] && grep -q '#bytes' "$cli" &&
		! grep -q 'mlx5-sim-kernel' "$srv" "$cli" &&
		! grep -qiE 'completion with error|failed|error' "$srv" "$cli"; then
		echo "ok: $tool $opts: $(grep -A1 '#bytes' "$cli" | tail -1)"
	else
		echo "--- server (exit $sst)"; cat "$srv"
		echo "--- client (exit $st)"; cat "$cli"
		echo "FAIL: $tool $opts"
		failed=$((failed + 1))
	fi
	port=$((port + 1))
}

perf ib_write_bw "-n 500 -s 65536"
perf ib_read_bw "-n 500 -s 65536"
perf ib_send_bw "-n 500 -s 65536"
perf ib_write_lat "-n 500 -s 64"
echo "$failed failed"
exit "$failed"
