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

pingpong ibv_rc_pingpong "200 x 4 KiB, engine thread, data checked" "" "-n 200 -c"
pingpong ibv_rc_pingpong "100 x 64 KiB, inline execution, data checked" ",sim_exec=inline" "-n 100 -s 65536 -m 4096 -c"
pingpong ibv_rc_pingpong "200 x 4 KiB, completion events (-e), data checked" "" "-n 200 -c -e"
echo "$failed failed"
exit "$failed"
