#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Debian's ibv_srq_pingpong (ibverbs-utils) between two processes on one machine-wide
# fabric, through devtools/sim-rdma: 16 RC QPs per side receive from one SRQ, whose
# linked-list ring Debian's libmlx5 keeps and the model follows (srq_table.cpp).
#   run_srq_pingpong.sh <devtools/sim-rdma>
set -u
sim_rdma=$1
# shellcheck source=kside_run_lib.sh
. "$(dirname "$0")/kside_run_lib.sh"
two_hosts srq
need ibv_srq_pingpong ibverbs-utils

pingpong ibv_srq_pingpong "16 QPs x 100 x 4 KiB, engine thread, data checked" "" "-n 100 -c"
pingpong ibv_srq_pingpong "4 QPs x 50 x 64 KiB, inline execution, data checked" \
	",sim_exec=inline" "-q 4 -n 50 -s 65536 -m 4096 -r 64 -c"
echo "$failed failed"
exit "$failed"
