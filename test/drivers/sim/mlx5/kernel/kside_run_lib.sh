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
