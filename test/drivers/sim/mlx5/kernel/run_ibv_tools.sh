#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Debian's own ibv_devices and ibv_devinfo (ibverbs-utils, with Debian's libibverbs and
# libmlx5) on the kernel side, through devtools/sim-rdma: the device, its port and
# sane attributes, field by field; two devices; bad options refused.
#   run_ibv_tools.sh <devtools/sim-rdma>
# MLX5_SIM_RDMA_LIB (and in sanitizer builds MLX5_SIM_RDMA_PRELOAD) come from meson.
set -u
sim_rdma=$1
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
failed=0
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

for tool in ibv_devices ibv_devinfo; do
	command -v "$tool" >/dev/null || { echo "FAIL: $tool missing: devtools/setup.sh installs ibverbs-utils"; exit 1; }
done

# run <name> <sim-rdma args...>: output in $out/$err, status checked
run() {
	name=$1
	shift
	st=0
	"$sim_rdma" "$@" >"$out" 2>"$err" </dev/null || st=$?
	if [ "$st" -ne 0 ]; then
		cat "$out" "$err"
		fail "$name: exit $st"
		return 1
	fi
	# the tools send nothing the kernel side refuses
	if grep -q 'mlx5-sim-kernel' "$err"; then
		cat "$err"
		fail "$name: the kernel side refused a command"
	fi
	return 0
}
# expect <name> <extended regex>: a line of $out matches
expect() {
	if grep -Eq "$2" "$out"; then
		echo "ok: $1"
	else
		fail "$1: no line matches '$2'"
	fi
}

if run "ibv_devices" ibv_devices; then
	expect "ibv_devices lists mlx5_0 with its node GUID" '^[[:space:]]+mlx5_0[[:space:]]+0002c903[0-9a-f]{8}$'
fi

if run "ibv_devinfo -v" ibv_devinfo -v; then
	head -n 12 "$out"
	expect "hca_id mlx5_0" '^hca_id:[[:space:]]+mlx5_0$'
	expect "transport InfiniBand" '^[[:space:]]+transport:[[:space:]]+InfiniBand \(0\)$'
	expect "fw_ver" '^[[:space:]]+fw_ver:[[:space:]]+1\.0\.0000$'
	expect "node_guid" '^[[:space:]]+node_guid:[[:space:]]+0002:c903:[0-9a-f]{4}:0000$'
	expect "vendor_id Mellanox" '^[[:space:]]+vendor_id:[[:space:]]+0x02c9$'
	expect "vendor_part_id ConnectX-7" '^[[:space:]]+vendor_part_id:[[:space:]]+4129$'
	expect "max_qp > 0" '^[[:space:]]+max_qp:[[:space:]]+[1-9][0-9]*$'
	expect "max_pd > 0" '^[[:space:]]+max_pd:[[:space:]]+[1-9][0-9]*$'
	expect "max_cqe > 0" '^[[:space:]]+max_cqe:[[:space:]]+[1-9][0-9]*$'
	expect "phys_port_cnt 1" '^[[:space:]]+phys_port_cnt:[[:space:]]+1$'
	expect "ODP (extended query with response_length)" '^[[:space:]]+ODP_SUPPORT$'
	expect "port 1" '^[[:space:]]+port:[[:space:]]+1$'
	expect "port state PORT_ACTIVE" '^[[:space:]]+state:[[:space:]]+PORT_ACTIVE \(4\)$'
	expect "link_layer InfiniBand" '^[[:space:]]+link_layer:[[:space:]]+InfiniBand$'
	expect "port_lid 1" '^[[:space:]]+port_lid:[[:space:]]+1$'
	expect "active_mtu 4096" '^[[:space:]]+active_mtu:[[:space:]]+4096 \(5\)$'
	expect "phys_state LINK_UP" '^[[:space:]]+phys_state:[[:space:]]+LINK_UP \(5\)$'
	expect "GID 0 link-local from the GUID" '^[[:space:]]+GID\[  0\]:[[:space:]]+fe80:0000:0000:0000:0002:c903:[0-9a-f]{4}:0000$'
fi

if run "two devices: ibv_devinfo -l" -n 2 ibv_devinfo -l; then
	expect "2 HCAs found" '^2 HCAs? found:$'
	expect "mlx5_1 listed" '^[[:space:]]+mlx5_1$'
fi
if run "two devices: ibv_devinfo -d mlx5_1" -n 2 ibv_devinfo -d mlx5_1; then
	expect "mlx5_1 has LID 2" '^[[:space:]]+port_lid:[[:space:]]+2$'
	expect "mlx5_1 node GUID ends in 1" '^[[:space:]]+node_guid:[[:space:]]+0002:c903:[0-9a-f]{4}:0001$'
fi
if run "inline execution mode" -a sim_exec=inline ibv_devinfo; then
	expect "opens with sim_exec=inline" '^[[:space:]]+state:[[:space:]]+PORT_ACTIVE \(4\)$'
fi

# refused: no devices, a bad option (one log line naming it, the open fails)
st=0
"$sim_rdma" -n 0 true >"$out" 2>&1 || st=$?
[ "$st" = 2 ] && echo "ok: -n 0 refused" || fail "-n 0: exit $st"
st=0
"$sim_rdma" -a sim_exec=fast ibv_devinfo >"$out" 2>&1 </dev/null || st=$?
if [ "$st" -ne 0 ] && grep -q "MLX5_SIM_RDMA_DEVARGS: bad value 'fast' for sim_exec" "$out"; then
	echo "ok: a bad option names itself, the open fails"
else
	cat "$out"
	fail "-a sim_exec=fast: exit $st"
fi
echo "$failed failed"
exit "$failed"
