#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the run_*.sh scripts of this directory: the prologue they share.
#   . "$(dirname "$0")/kside_run_lib.sh"
# shellcheck disable=SC2034  # the variables set here are the sourcing script's

# need <program> <package>: end the test (status 1) when <program> is not installed.
need() {
	command -v "$1" >/dev/null || { echo "FAIL: $1 missing ($2)"; exit 1; }
}

# two_hosts <name>: a server and a client on one fabric of their own (kside_<name>_PID),
# a port, their output files (removed at exit) and the failure count.
two_hosts() {
	fabric=kside_$1_$$
	port=$((20000 + $$ % 20000))
	srv=$(mktemp) cli=$(mktemp)
	trap 'rm -f "$srv" "$cli"' EXIT
	failed=0
}

# Sanitizer builds: a program that frees little of what it allocates before exit; leaks
# of the kernel side are the CUnit suites' to find.
no_leak_check() {
	if [ -n "${MLX5_SIM_RDMA_PRELOAD:-}" ]; then
		ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
		export ASAN_OPTIONS
	fi
}

# pingpong <program> <name> <extra sim-rdma options> <pingpong options>: one exchange of
# an ibv_*_pingpong server and client (two_hosts first); counts a failure in $failed.
pingpong() {
	prog=$1 name=$2 opts=$3 pp=$4
	# shellcheck disable=SC2086
	timeout 120 "$sim_rdma" -a "sim_fabric=$fabric$opts" "$prog" -p "$port" $pp \
		>"$srv" 2>&1 </dev/null &
	spid=$!
	st=1
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		sleep 0.5
		# shellcheck disable=SC2086
		timeout 120 "$sim_rdma" -a "sim_fabric=$fabric$opts" "$prog" -p "$port" \
			$pp localhost >"$cli" 2>&1 </dev/null && { st=0; break; }
		grep -q "Couldn't connect" "$cli" || break # a real failure, not a slow server
	done
	sst=0
	wait "$spid" || sst=$?
	if [ "$st" -eq 0 ] && [ "$sst" -eq 0 ] && grep -q ' iters in ' "$cli" &&
		grep -q ' iters in ' "$srv" && ! grep -q 'mlx5-sim-kernel' "$srv" "$cli" &&
		! grep -qiE 'fail|mismatch|error' "$srv" "$cli"; then
		echo "ok: $name: $(grep ' iters in ' "$cli")"
		grep 'address' "$cli" | head -n 2
	else
		echo "--- server (exit $sst)"; cat "$srv"
		echo "--- client (exit $st)"; cat "$cli"
		echo "FAIL: $name"
		failed=$((failed + 1))
	fi
	port=$((port + 1))
}
