#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The DC exchange of issue 29 between two processes through devtools/sim-rdma, both
# hosts of one machine-wide fabric: dc_rdmacm's DCT side publishes its DCT (number,
# DC key, LID) in rdma-cm private data with a reserved QPN as the connection's QPN;
# the DCI side sends to it (data verified), then the refusals: a wrong DC key (the
# DCT drops, the DCI's retries run out) and too little private data (the DCI side
# rejects the connection). The reserved QPN is freed each time.
#   run_dc_rdmacm.sh <devtools/sim-rdma> <dc_rdmacm>
set -u
sim_rdma=$1 prog=$2
# shellcheck source=kside_run_lib.sh
. "$(dirname "$0")/kside_run_lib.sh"
two_hosts dc

# The DCT side's address: the LID its listener claimed on the fabric (ucma.cpp).
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

# run <name> <mode> <line both outputs must show>
run() {
	name=$1 mode=$2 ok=$3
	timeout 60 "$sim_rdma" -a "sim_fabric=$fabric" "$prog" -s -p "$port" -m "$mode" \
		>"$srv" 2>&1 </dev/null &
	spid=$!
	st=1
	if addr=$(server_addr "$port"); then
		timeout 60 "$sim_rdma" -a "sim_fabric=$fabric" "$prog" -c "$addr" -p "$port" \
			-m "$mode" >"$cli" 2>&1 </dev/null && st=0
	else
		echo "no listener appeared" >"$cli"
	fi
	sst=0
	wait "$spid" || sst=$?
	if [ "$st" -eq 0 ] && [ "$sst" -eq 0 ] && grep -q "$ok" "$srv" "$cli" &&
		grep -q "freeing it again: " "$srv" && ! grep -q 'mlx5-sim-kernel' "$srv" "$cli"; then
		echo "ok: $name (DCT side $addr)"
		sed 's/^/  /' "$cli" "$srv"
	else
		echo "--- DCT side (exit $sst)"; cat "$srv"
		echo "--- DCI side (exit $st)"; cat "$cli"
		echo "FAIL: $name"
		failed=$((failed + 1))
	fi
	port=$((port + 1))
}

run "DC over rdma-cm: 16 messages verified" ok "messages received and verified, 0 bad"
run "DC over rdma-cm: a wrong DC key is dropped" badkey "transport retry counter exceeded"
run "DC over rdma-cm: short private data is refused" short "short private data"
[ "$failed" -eq 0 ] || { echo "$failed failed"; exit 1; }
echo "all DC rdma-cm exchanges ok"
