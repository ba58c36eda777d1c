/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * ibv_req_notify_cq of the software HCA's provider (libmlx5 v44.0 mlx5_arm_cq).
 *
 * libmlx5 writes the arm word into the CQ doorbell record (dbrec[1]) and then
 * the same word plus the CQN to the UAR. The device model has no interrupt
 * model yet, so arming is recorded in memory only: the doorbell-record word is
 * exactly what libmlx5 writes, and nothing reaches the device.
 */
#include "cq_poll.h"

namespace mlx5sim {

int sim_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	SimCq *cq = to_sim_cq(ibcq);
	uint32_t sn = cq->arm_sn & 3;
	uint32_t ci = cq->cons_index & 0xffffff;
	uint32_t cmd = solicited_only ? MLX5_CQ_DB_REQ_NOT_SOL : MLX5_CQ_DB_REQ_NOT;

	__atomic_store_n(&cq->dbrec[1], htobe32(sn << 28 | cmd | ci), __ATOMIC_RELEASE);
	return 0;
}

} // namespace mlx5sim
