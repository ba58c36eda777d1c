#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Debian's rdma-cm programs (rdmacm-utils) between two processes through
# devtools/sim-rdma, each on its own software HCA, both hosts of one machine-wide
# fabric: Debian's librdmacm connects them through the kernel side's rdma_cm
# device (the server's port is 127.0.x.y for its LID x << 8 | y), then Debian's
# libmlx5 moves the data.
#   run_rdmacm_tools.sh <devtools/sim-rdma>
set -u
sim_rdma=$1
# shellcheck source=kside_run_lib.sh
. "$(dirname "$0")/kside_run_lib.sh"
two_hosts cm
need ucmatose rdmacm-utils

# The server's address: the LID its listener claimed on the fabric (ucma.cpp).
server_addr() {
	for _ in $(seq 1 100); do
		lid=$(grep -o "@mlx5-sim-cm/$fabric/[0-9]*/$1\$" /proc/net/unix | head -1 |
			cut -d/ -f3)
		if [ -n "$lid" ]; then
			echo "127.0.$((lid >> 8)).$((lid & 255))"
			return 0
		fi
		sleep 0.1
	done
	return 1
}

# one run: <name> <server command> -- <client options>; the client gets -s/-a ADDR
run() {
	name=$1 what=$2 sopts=$3 copts=$4 ok=$5
	# shellcheck disable=SC2086
	timeout 60 "$sim_rdma" -a "sim_fabric=$fabric" $what $sopts >"$srv" 2>&1 </dev/null &
	spid=$!
	st=1
	if addr=$(server_addr "$port"); then
		# shellcheck disable=SC2086
		timeout 60 "$sim_rdma" -a "sim_fabric=$fabric" $what $copts "$addr" \
			>"$cli" 2>&1 </dev/null && st=0
	else
		echo "no listener appeared" >"$cli"
	fi
	sst=0
	wait "$spid" || sst=$?
	if [ "$st" -eq 0 ] && [ "$sst" -eq 0 ] && grep -q "$ok" "$cli" && grep -q "$ok" "$srv" &&
		! grep -q 'mlx5-sim-kernel' "$srv" "$cli"; then
		echo "ok: $name (server $addr)"
		sed 's/^/  client: /' "$cli"
		sed 's/^/  server: /' "$srv"
	else
		echo "--- server (exit $sst)"; cat "$srv"
		echo "--- client (exit $st)"; cat "$cli"
		echo "FAIL: $name"
		failed=$((failed + 1))
	fi
	port=$((port + 1))
}

run "ucmatose: 1 connection, 10 messages of 100 bytes" ucmatose "-p $port" "-p $port -s" \
	"test complete"
run "ucmatose: 4 connections, 50 messages of 4 KiB" ucmatose "-p $port -c 4 -C 50 -S 4096" \
	"-p $port -c 4 -C 50 -S 4096 -s" "test complete"
echo "$failed failed"
exit "$failed"
