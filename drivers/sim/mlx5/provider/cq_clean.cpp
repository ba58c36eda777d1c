/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Removal of one QP's CQEs from a CQ (libmlx5 v44.0 __mlx5_cq_clean), used when
 * the QP goes to RESET or is destroyed. Receives from an SRQ give their WQE back.
 * A CQ handed out by mlx5dv_init_obj is left alone (libmlx5's DV_OWNED flag).
 *
 * Walk from the consumer counter to the newest software-owned CQE (at most one
 * ring's worth), then go back towards the consumer counter: CQEs of the QP are
 * dropped, the others slide forward over the gap keeping the owner bit of the
 * entry they land in. The consumer counter then skips the dropped entries.
 */
#include "cq_poll.h"

namespace mlx5sim {

namespace {

inline bool cqe_is_of(const SimCq *cq, const struct mlx5_cqe64 *cqe, uint32_t rsn)
{
	if (cq->ctx->cqe_version)
		return (be32toh(cqe->srqn_uidx) & 0xffffff) == rsn;
	return (be32toh(cqe->sop_drop_qpn) & 0xffffff) == rsn;
}

inline uint8_t *entry(const SimCq *cq, uint32_t n)
{
	return cq->buf + (size_t)(n & (cq->ncqe - 1)) * cq->cqe_size;
}

} // namespace

void sim_cq_clean(SimCq *cq, uint32_t rsn, SimSrq *srq)
{
	uint32_t prod_index;
	uint32_t nfreed = 0;

	if (cq->dv_owned)
		return; /* as libmlx5: a ring handed out by mlx5dv_init_obj is not touched */
	for (prod_index = cq->cons_index; sim_cq_sw_cqe(cq, prod_index); ++prod_index)
		if (prod_index == cq->cons_index + cq->ncqe - 1)
			break;
	while ((int32_t)(--prod_index - cq->cons_index) >= 0) {
		struct mlx5_cqe64 *cqe = sim_cq_cqe64(cq, prod_index);

		if (cqe_is_of(cq, cqe, rsn)) {
			/* a dropped receive gives its SRQ WQE back, as libmlx5 does */
			uint8_t op = mlx5dv_get_cqe_opcode(cqe);
			if (srq && op != MLX5_CQE_REQ && op != MLX5_CQE_REQ_ERR &&
			    op != MLX5_CQE_SIG_ERR)
				sim_srq_free_wqe(srq,
						 be16toh(cqe->wqe_counter) & (srq->wqe_cnt - 1));
			++nfreed;
		} else if (nfreed) {
			struct mlx5_cqe64 *dest = sim_cq_cqe64(cq, prod_index + nfreed);
			uint8_t owner = dest->op_own & MLX5_CQE_OWNER_MASK;

			memcpy(entry(cq, prod_index + nfreed), entry(cq, prod_index), cq->cqe_size);
			dest->op_own = owner | (dest->op_own & ~MLX5_CQE_OWNER_MASK);
		}
	}
	if (nfreed) {
		cq->cons_index += nfreed;
		sim_cq_update_ci(cq);
	}
}

} // namespace mlx5sim
