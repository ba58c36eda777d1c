#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Debian's ibv_uc_pingpong (ibverbs-utils) between two processes on one machine-wide
# fabric, through devtools/sim-rdma: UC QPs (QP/CREATE type 3, the kernel's UC modify
# masks), SENDs that complete at the requester without an ACK (uc.cpp).
#   run_uc_pingpong.sh <devtools/sim-rdma>
set -u
sim_rdma=$1
# shellcheck source=kside_run_lib.sh
. "$(dirname "$0")/kside_run_lib.sh"
two_hosts uc
need ibv_uc_pingpong ibverbs-utils

pingpong ibv_uc_pingpong "500 x 4 KiB, engine thread, data checked" "" "-n 500 -c"
pingpong ibv_uc_pingpong "200 x 64 KiB, inline execution, data checked" \
	",sim_exec=inline" "-n 200 -s 65536 -c"
echo "$failed failed"
exit "$failed"
