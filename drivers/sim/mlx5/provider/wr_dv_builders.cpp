/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * mlx5dv builders of the new post-send API: DMA memcpy (MMO) and raw WQE, as
 * libmlx5 v44.0 writes them (rdma-core providers/mlx5/qp.c, mlx5_wr_memcpy and
 * mlx5_wr_raw_wqe). Both are finalised at once, so on a DCI
 * they need no address vector.
 */
#include <errno.h>

#include "wr_segments.h"

namespace mlx5sim {

namespace {

/**
 * One-WQEBB MMO WQE, ds 4. Length 0, a length above the device limit, or a QP
 * without the per-PD opaque MR (libmlx5 would dereference NULL) latch EINVAL before
 * any ring byte is touched. Ctrl imm stays stale.
 */
void sim_wr_memcpy(struct mlx5dv_qp_ex *dv, uint32_t dest_lkey, uint64_t dest_addr,
		   uint32_t src_lkey, uint64_t src_addr, size_t length)
{
	SimQp *qp = to_sim_qp(dv);
	struct mlx5_hw_mmo_wqe *wqe;
	uint32_t bc;

	if (!length || length > qp->ctx->dma_mmo_max_size || !qp->pd || !qp->pd->opaque_buf) {
		wr_latch(qp, EINVAL);
		return;
	}
	wqe = reinterpret_cast<struct mlx5_hw_mmo_wqe *>(
		wr_begin(qp, MLX5_OPCODE_MMO, 0, WR_DATA_MEMCPY));
	/* opmod is OR'ed in afterwards: after an overflow it lands on the stale ctrl */
	wqe->ctrl.opmod_idx_opcode |= htobe32((uint32_t)MLX5_HW_OPC_MOD_MMO_DMA << 24);
	/* 2^31 does not fit the 31-bit count: the device reads 0 as the maximum */
	bc = length == MLX5_HW_DMA_MMO_MAX_SIZE ? 0 : (uint32_t)length;
	wqe->meta.mmo_control_31_0 = 0;
	wqe->meta.local_key = htobe32(qp->pd->opaque_lkey);
	wqe->meta.local_address = htobe64((uint64_t)(uintptr_t)qp->pd->opaque_buf);
	wr_set_data(&wqe->src, bc, src_lkey, src_addr);
	wr_set_data(&wqe->dst, bc, dest_lkey, dest_addr);
	qp->wr.cur_size = sizeof(*wqe) / MLX5_HW_DS_BYTES;
	qp->wr.nreq++;
	wr_finish(qp);
}

/**
 * Copy the caller's WQE (ds from its qpn_ds) into the ring, wrapping at qend, and
 * rewrite only the WQE index: the caller's opmod, opcode, qpn_ds, signature and
 * fm_ce_se are kept. A pending small fence is dropped. On overflow v44.0 copies
 * through the previous ctrl pointer (bookkeeping not updated).
 */
void sim_wr_raw_wqe(struct mlx5dv_qp_ex *dv, const void *wqe)
{
	SimQp *qp = to_sim_qp(dv);
	const uint8_t *src = static_cast<const uint8_t *>(wqe);
	uint32_t dw0 = mlx5_hw_ld_be32(src);
	uint32_t ds = mlx5_hw_ld_be32(src + 4) & MLX5_HW_WQE_MAX_DS;

	if (wr_sq_overflow(qp, qp->wr.nreq)) {
		wr_latch(qp, ENOMEM);
	} else {
		qp->wr.cur_ctrl = reinterpret_cast<struct mlx5_wqe_ctrl_seg *>(
			wr_record_slot(qp, qp->qpx.wr_id, qp->wr.nreq, WR_DATA_RAW_WQE));
		qp->sq.fm_cache = 0;
	}
	qp->wr.cur_opcode = (uint8_t)dw0;
	wr_copy_wrap(qp, reinterpret_cast<uint8_t *>(qp->wr.cur_ctrl), wqe,
		     (size_t)ds * MLX5_HW_DS_BYTES);
	qp->wr.cur_ctrl->opmod_idx_opcode = htobe32((dw0 & 0xff0000ffu) | (qp->sq.cur_post & 0xffff)
										  << 8);
	qp->wr.cur_size = ds;
	qp->sq.cur_post += mlx5_hw_ds_to_wqebbs(ds);
	qp->wr.nreq++;
}

} // namespace

void sim_dv_install_builders(struct mlx5dv_qp_ex *dv)
{
	dv->wr_memcpy = sim_wr_memcpy;
	dv->wr_raw_wqe = sim_wr_raw_wqe;
}

} // namespace mlx5sim
