#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Debian's ibv_ud_pingpong (ibverbs-utils) between two processes on one machine-wide
# fabric, through devtools/sim-rdma: UD QPs, LID-routed address handles (no kernel
# command), datagrams with libmlx5's address vector, 40 bytes of GRH space in every
# receive buffer (ud.cpp).
#   run_ud_pingpong.sh <devtools/sim-rdma>
set -u
sim_rdma=$1
# shellcheck source=kside_run_lib.sh
. "$(dirname "$0")/kside_run_lib.sh"
two_hosts ud
need ibv_ud_pingpong ibverbs-utils

pingpong ibv_ud_pingpong "500 x 2 KiB, engine thread, data checked" "" "-n 500 -c"
pingpong ibv_ud_pingpong "200 x 4 KiB, SL 3, inline execution, data checked" \
	",sim_exec=inline" "-n 200 -s 4096 -l 3 -c"
echo "$failed failed"
exit "$failed"
