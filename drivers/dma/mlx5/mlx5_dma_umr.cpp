/* SPDX-License-Identifier: BSD-3-Clause */
/* UMR WQEs of dma_mlx5 (mlx5_dma_umr.h). */
#include <string.h>

#include <rte_dmadev.h>

#include "mlx5_dma_fp.h"
#include "mlx5_dma_umr.h"

namespace {

/* Direct path: the WQE in a local buffer, then WQEBB by WQEBB into the ring. */
uint32_t write_umr(struct mlx5_dma_vchan *vc, uint32_t pi, const struct mlx5dv_mkey *mkey,
		   const struct mlx5_dma_xlat *x, uint16_t n, uint32_t repeat, uint64_t flags)
{
	alignas(64) uint8_t w[MLX5_HW_WQE_MAX_DS * MLX5_HW_DS_BYTES + MLX5_SEND_WQE_BB];
	uint32_t entries = repeat ? n + 1u : n;
	uint32_t nbb = mlx5_dma_umr_list_wqebbs(entries);
	uint32_t oct = (nbb - 2) * 4; /* translation area, padded to 64 bytes */
	auto *ctrl = (struct mlx5_wqe_ctrl_seg *)w;
	auto *umr = (struct mlx5_wqe_umr_ctrl_seg *)(w + 16);
	auto *mk = (struct mlx5_wqe_mkey_context_seg *)(w + 64);
	uint8_t *xl = w + 128;
	uint64_t total = 0;

	memset(w, 0, nbb * MLX5_SEND_WQE_BB);
	ctrl->opmod_idx_opcode = rte_cpu_to_be_32((pi & 0xffff) << 8 | MLX5_OPCODE_UMR);
	ctrl->qpn_ds = rte_cpu_to_be_32(vc->qp->qp_num << 8 | (8 + oct));
	ctrl->fm_ce_se = (flags & RTE_DMA_OP_FLAG_FENCE) ? (uint8_t)MLX5_WQE_CTRL_FENCE
							 : vc->fm_pending;
	ctrl->imm = rte_cpu_to_be_32(mkey->lkey);
	umr->flags = MLX5_WQE_UMR_CTRL_FLAG_INLINE;
	umr->klm_octowords = rte_cpu_to_be_16(oct);
	umr->mkey_mask = rte_cpu_to_be_64(MLX5_DMA_UMR_MKEY_MASK);
	mk->access_flags = MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_LOCAL_WRITE;
	mk->qpn_mkey = rte_cpu_to_be_32(0xffffff00 | (mkey->lkey & 0xff));
	if (repeat) {
		auto *rb = (struct mlx5_wqe_umr_repeat_block_seg *)xl;
		uint32_t sum = 0;

		for (uint16_t i = 0; i < n; i++) {
			auto *e = (struct mlx5_wqe_umr_repeat_ent_seg *)(xl + 16 * (i + 1));

			e->stride = rte_cpu_to_be_16(x[i].stride);
			e->byte_count = rte_cpu_to_be_16((uint16_t)x[i].len);
			e->memkey = rte_cpu_to_be_32(x[i].lkey);
			e->va = rte_cpu_to_be_64(x[i].addr);
			sum += x[i].len;
		}
		rb->byte_count = rte_cpu_to_be_32(sum);
		rb->op = rte_cpu_to_be_32(MLX5_HW_UMR_REPEAT_OP);
		rb->repeat_count = rte_cpu_to_be_32(repeat);
		rb->num_ent = rte_cpu_to_be_16(n);
		total = (uint64_t)sum * repeat;
	} else {
		for (uint16_t i = 0; i < n; i++) {
			auto *k = (struct mlx5_wqe_umr_klm_seg *)(xl + 16 * i);

			k->byte_count = rte_cpu_to_be_32(x[i].len);
			k->mkey = rte_cpu_to_be_32(x[i].lkey);
			k->address = rte_cpu_to_be_64(x[i].addr);
			total += x[i].len;
		}
	}
	mk->len = rte_cpu_to_be_64(total);
	for (uint32_t i = 0; i < nbb; i++)
		memcpy(vc->sq + (((pi + i) & vc->sq_mask) << MLX5_SEND_WQE_SHIFT),
		       w + i * MLX5_SEND_WQE_BB, MLX5_SEND_WQE_BB);
	vc->fm_pending = MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE;
	return nbb;
}

/* Verbs path: the builders (the inline flag is what mkey_configure requires). */
uint32_t build_umr(struct mlx5_dma_vchan *vc, uint32_t pi, struct mlx5dv_mkey *mkey,
		   const struct mlx5_dma_xlat *x, uint16_t n, uint32_t repeat, uint32_t op_start,
		   uint32_t op_nbb, uint64_t flags)
{
	struct mlx5dv_mkey_conf_attr attr = {};

	RTE_SET_USED(pi);
	if (!vc->batch_open) {
		ibv_wr_start(vc->qpx);
		vc->batch_open = true;
	}
	vc->qpx->wr_id = mlx5_dma_wr_id(vc->ring_idx, op_start, op_nbb);
	vc->qpx->wr_flags = IBV_SEND_INLINE |
			    ((flags & RTE_DMA_OP_FLAG_FENCE) ? IBV_SEND_FENCE : 0);
	mlx5dv_wr_mkey_configure(vc->dvqp, mkey, 2, &attr);
	mlx5dv_wr_set_mkey_access_flags(vc->dvqp, IBV_ACCESS_LOCAL_WRITE);
	if (repeat) {
		struct mlx5dv_mr_interleaved il[MLX5_DMA_UMR_MAX_XLAT];

		for (uint16_t i = 0; i < n; i++)
			il[i] = mlx5_dma_interleaved_entry(&x[i]);
		mlx5dv_wr_set_mkey_layout_interleaved(vc->dvqp, repeat, n, il);
		return mlx5_dma_umr_interleaved_wqebbs(n);
	}
	struct ibv_sge sge[MLX5_DMA_UMR_MAX_XLAT];

	for (uint16_t i = 0; i < n; i++)
		sge[i] = {x[i].addr, x[i].len, x[i].lkey};
	mlx5dv_wr_set_mkey_layout_list(vc->dvqp, n, sge);
	return mlx5_dma_umr_list_wqebbs(n);
}

} // namespace

uint32_t mlx5_dma_umr_post(struct mlx5_dma_vchan *vc, uint32_t pi, struct mlx5dv_mkey *mkey,
			   const struct mlx5_dma_xlat *x, uint16_t n, uint32_t repeat,
			   uint32_t op_start, uint32_t op_nbb, uint64_t flags)
{
	uint32_t nbb = vc->path == MLX5_DMA_PATH_DIRECT
			       ? write_umr(vc, pi, mkey, x, n, repeat, flags)
			       : build_umr(vc, pi, mkey, x, n, repeat, op_start, op_nbb, flags);

	/* where it starts, should it be the burst's last WQE (the CQE request) */
	vc->multi_start = pi;
	vc->multi_end = pi + nbb;
	vc->multi_valid = true;
	return nbb;
}

void mlx5_dma_umr_invalidate(struct mlx5_dma_vchan *vc, uint32_t pi, struct mlx5dv_mkey *mkey,
			     uint32_t op_start, uint32_t op_nbb, uint64_t flags)
{
	alignas(64) uint8_t w[MLX5_DMA_UMR_INV_WQEBBS * MLX5_SEND_WQE_BB] = {};
	auto *ctrl = (struct mlx5_wqe_ctrl_seg *)w;
	auto *umr = (struct mlx5_wqe_umr_ctrl_seg *)(w + 16);
	auto *mk = (struct mlx5_wqe_mkey_context_seg *)(w + 64);

	vc->multi_start = pi;
	vc->multi_end = pi + MLX5_DMA_UMR_INV_WQEBBS;
	vc->multi_valid = true;
	ctrl->opmod_idx_opcode = rte_cpu_to_be_32((pi & 0xffff) << 8 | MLX5_OPCODE_UMR);
	ctrl->qpn_ds = rte_cpu_to_be_32(vc->qp->qp_num << 8 | 8);
	ctrl->fm_ce_se = (flags & RTE_DMA_OP_FLAG_FENCE) ? (uint8_t)MLX5_WQE_CTRL_FENCE
							 : vc->fm_pending;
	ctrl->imm = rte_cpu_to_be_32(mkey->lkey);
	umr->flags = MLX5_WQE_UMR_CTRL_FLAG_TRNSLATION_OFFSET | MLX5_WQE_UMR_CTRL_FLAG_INLINE |
		     MLX5_WQE_UMR_CTRL_FLAG_CHECK_QPN;
	umr->mkey_mask = rte_cpu_to_be_64(MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE |
					  MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY |
					  MLX5_WQE_UMR_CTRL_MKEY_MASK_QPN);
	mk->free = MLX5_WQE_MKEY_CONTEXT_FREE;
	mk->qpn_mkey = rte_cpu_to_be_32(0xffffff00);
	if (vc->path == MLX5_DMA_PATH_DIRECT) {
		for (uint32_t i = 0; i < MLX5_DMA_UMR_INV_WQEBBS; i++)
			memcpy(vc->sq + (((pi + i) & vc->sq_mask) << MLX5_SEND_WQE_SHIFT),
			       w + i * MLX5_SEND_WQE_BB, MLX5_SEND_WQE_BB);
		vc->fm_pending = MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE;
		return;
	}
	if (!vc->batch_open) {
		ibv_wr_start(vc->qpx);
		vc->batch_open = true;
	}
	vc->qpx->wr_id = mlx5_dma_wr_id(vc->ring_idx, op_start, op_nbb);
	mlx5dv_wr_raw_wqe(vc->dvqp, w);
}
