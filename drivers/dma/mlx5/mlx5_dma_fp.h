/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * dma_mlx5 fast path, inline: enqueue of memcpy MMO WQEs, doorbell, CQ polling.
 * No allocation, no locks, no syscalls, no logging. Slow paths (ring refill, cache
 * misses, bad ops, error CQEs, recovery) live out of line.
 */
#ifndef MLX5_DMA_FP_H
#define MLX5_DMA_FP_H

#include <string.h>

#include <rte_byteorder.h>
#include <rte_io.h>

#include "mlx5_dma.h"
#include "mlx5_hw.h"

/** Ops that no single registered MR covers, or with a bad length (mlx5_dma_err.cpp). */
int mlx5_dma_enqueue_trapped(struct mlx5_dma_vchan *vc, enum rte_dma_status_code why,
			     uint64_t flags);

/**
 * Whether an op of @p nbb WQEBBs fits the SQ. One WQEBB always stays free: libmlx5
 * refuses a batch that would fill the SQ with one-WQEBB WQEs (its limit counts work
 * requests), and multi-WQE ops (SG chains) could otherwise reach it.
 */
static inline bool mlx5_dma_sq_fits(const struct mlx5_dma_vchan *vc, uint32_t nbb)
{
	return vc->pi - vc->bb_ci + nbb <= vc->sq_limit;
}

/**
 * Recompute how many one-WQEBB ops fit: the rte_dma ring (ops not yet reported) and
 * the SQ (WQEBBs not yet executed, one kept free). Returns the new credit count.
 */
static inline uint32_t mlx5_dma_refill_credits(struct mlx5_dma_vchan *vc)
{
	uint32_t ops = (uint16_t)(vc->max_ops - (uint16_t)(vc->ring_idx - vc->reported));
	uint32_t used = vc->pi - vc->bb_ci;
	uint32_t bbs = used < vc->sq_limit ? vc->sq_limit - used : 0;

	vc->credits = bbs < ops ? bbs : ops;
	return vc->credits;
}

/**
 * Whether the vchan takes ops at all: 0; -EIO when it is dead (see mlx5_dma_recover());
 * -EPERM when its device is stopped (the rte_dma entries are swapped then, but the
 * rte_pmd_dma_mlx5 ones reach the vchan directly).
 */
static inline int mlx5_dma_vchan_refusal(const struct mlx5_dma_vchan *vc)
{
	if (likely(!(vc->dead | vc->stopped)))
		return 0;
	return vc->dead ? -EIO : -EPERM;
}

/**
 * What every enqueue outside the copy fast path checks first: the vchan takes ops
 * (mlx5_dma_vchan_refusal()) and has room for one (-ENOSPC); then the MR cache is
 * revalidated once for the op's lookups. Returns 0 when the op may go on.
 */
static inline int mlx5_dma_admit_op(struct mlx5_dma_vchan *vc)
{
	if (unlikely(vc->dead | vc->stopped))
		return mlx5_dma_vchan_refusal(vc);
	if (vc->credits == 0 && mlx5_dma_refill_credits(vc) == 0)
		return -ENOSPC;
	mlx5_dma_mr_cache_check(&vc->mr_cache);
	return 0;
}

/**
 * Store a doorbell-record word (SQ producer or CQ consumer counter). A release store:
 * the device (or the software HCA's engine thread) reads it concurrently, so a plain
 * store is a data race; on x86 it compiles to the same single mov.
 */
static __rte_always_inline void mlx5_dma_dbrec_store(volatile uint32_t *rec, uint32_t v)
{
	__atomic_store_n(rec, v, __ATOMIC_RELEASE);
}

/** Store 8 bytes at an address of the ring (any alignment). */
static __rte_always_inline void mlx5_dma_st64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

/**
 * Write one memcpy MMO WQE (direct path) at producer counter @p pi; keys in WQE byte
 * order. Everything it needs from the vchan is read before the first store: stores
 * into the ring may alias anything, and reloading the vchan after each would double
 * the instructions of the fast path.
 */
static __rte_always_inline void mlx5_dma_write_mmo(const struct mlx5_dma_vchan *vc, uint32_t pi,
						   uint64_t src, uint32_t skey_be, uint64_t dst,
						   uint32_t dkey_be, uint32_t len, uint64_t flags)
{
	uint8_t *wqe = vc->sq + ((pi & vc->sq_mask) << MLX5_SEND_WQE_SHIFT);
	/* 2 GiB is encoded as 0; every other accepted length is below 2^31 */
	uint64_t bcount = rte_cpu_to_be_32(len & (MLX5_HW_DMA_MMO_MAX_SIZE - 1));
	/* bytes 0..7: opmod, wqe index, opcode, qpn_ds; 8..11: signature, stream id,
	 * fm_ce_se, where FENCE is bit 7 of byte 11 */
	uint64_t w0 = vc->mmo_head.ctrl | (uint32_t)rte_cpu_to_be_16((uint16_t)pi) << 8;
	uint32_t w2 = (uint32_t)(flags & RTE_DMA_OP_FLAG_FENCE) << 31;
	uint64_t meta0, meta1;

	memcpy(&meta0, vc->mmo_head.meta, 8);
	memcpy(&meta1, vc->mmo_head.meta + 8, 8);
	mlx5_dma_st64(wqe, w0);
	memcpy(wqe + 8, &w2, sizeof(w2));
	/* bytes 12..15 (imm) are not written, as libmlx5's builder does not write them */
	mlx5_dma_st64(wqe + 16, meta0);
	mlx5_dma_st64(wqe + 24, meta1);
	mlx5_dma_st64(wqe + 32, bcount | (uint64_t)skey_be << 32);
	mlx5_dma_st64(wqe + 40, rte_cpu_to_be_64(src));
	mlx5_dma_st64(wqe + 48, bcount | (uint64_t)dkey_be << 32);
	mlx5_dma_st64(wqe + 56, rte_cpu_to_be_64(dst));
}

/**
 * Record the op whose @p nbb WQEBBs start at the producer slot, then advance. Every
 * WQEBB of the op names it: a CQE (error or not) on any WQE of a multi-WQE op (an SG
 * chain, a UMR and its MMO) finds the op and where it ends.
 */
static __rte_always_inline int mlx5_dma_commit_op(struct mlx5_dma_vchan *vc, uint32_t nbb)
{
	uint32_t pi = vc->pi;
	uint16_t idx = vc->ring_idx;
	uint16_t end = (uint16_t)(pi + nbb);

	for (uint32_t i = 0; i < nbb; i++)
		vc->slots[(pi + i) & vc->sq_mask] = {idx, end};
	vc->pi = pi + nbb;
	vc->ring_idx = idx + 1;
	return idx;
}

/** Slow path of the verbs poll: an error work completion. */
void mlx5_dma_handle_error_wc(struct mlx5_dma_vchan *vc, uint64_t wr_id, enum ibv_wc_status status,
			      uint32_t vendor_err);

/** wr_id of the verbs path: ring index, and where the op's WQE starts and ends (pi low 16). */
static __rte_always_inline uint64_t mlx5_dma_wr_id(uint16_t ring_idx, uint32_t start_pi,
						   uint32_t nbb)
{
	return (uint64_t)ring_idx | (uint64_t)((start_pi + nbb) & 0xffff) << 16 |
	       (uint64_t)(start_pi & 0xffff) << 32;
}

/** Build one memcpy through rdma-core's builder (verbs path); keys in host order. */
static __rte_always_inline void mlx5_dma_build_mmo(struct mlx5_dma_vchan *vc, uint64_t src,
						   uint32_t skey, uint64_t dst, uint32_t dkey,
						   uint32_t len, uint64_t flags)
{
	if (!vc->batch_open) {
		ibv_wr_start(vc->qpx);
		vc->batch_open = true;
	}
	vc->qpx->wr_id = mlx5_dma_wr_id(vc->ring_idx, vc->pi, 1);
	vc->qpx->wr_flags = (flags & RTE_DMA_OP_FLAG_FENCE) ? IBV_SEND_FENCE : 0;
	mlx5dv_wr_memcpy(vc->dvqp, dkey, dst, skey, src, len);
}

/** The CQE at consumer counter @p ci (direct path). */
static __rte_always_inline struct mlx5_cqe64 *mlx5_dma_cqe_at(const struct mlx5_dma_vchan *vc,
							      uint32_t ci)
{
	/* 64-byte CQEs (vchan_map_rings() refuses others): a constant, not cqe_shift */
	return (struct mlx5_cqe64 *)(vc->cq +
				     (size_t)(ci & vc->cq_mask) * sizeof(struct mlx5_cqe64));
}

/**
 * Whether the device has handed over the CQE at consumer counter @p ci (direct path):
 * its owner bit matches the pass of @p ci and it is not the invalid opcode of a CQE
 * never written. One load of op_own: the device owns that byte until then.
 */
static __rte_always_inline bool mlx5_dma_cqe_ready(const struct mlx5_dma_vchan *vc, uint32_t ci,
						   uint8_t *op_own)
{
	*op_own = __atomic_load_n(&mlx5_dma_cqe_at(vc, ci)->op_own, __ATOMIC_ACQUIRE);
	return (*op_own & MLX5_CQE_OWNER_MASK) == ((ci >> vc->cq_log) & 1) &&
	       (*op_own >> 4) != MLX5_CQE_INVALID;
}

/** Set the CQ consumer counter (direct path). */
static __rte_always_inline void mlx5_dma_cq_set_ci(struct mlx5_dma_vchan *vc, uint32_t ci)
{
	vc->cq_ci = ci;
}

/** Whether op @p idx (a ring index handed out) has completed: it is below done_upto. */
static inline bool mlx5_dma_op_done(const struct mlx5_dma_vchan *vc, uint16_t idx)
{
	return (uint16_t)(idx - vc->done_upto) >= (uint16_t)(vc->ring_idx - vc->done_upto);
}

/** Consume CQEs (direct path): advance done_upto and bb_ci. */
static __rte_always_inline void mlx5_dma_poll_cq_direct(struct mlx5_dma_vchan *vc)
{
	uint32_t ci = vc->cq_ci;

	for (;;) {
		struct mlx5_cqe64 *cqe = mlx5_dma_cqe_at(vc, ci);
		uint8_t op_own;

		if (!mlx5_dma_cqe_ready(vc, ci, &op_own))
			break;
		rte_io_rmb(); /* CQE body after ownership */
		if (unlikely((op_own >> 4) != MLX5_CQE_REQ)) {
			mlx5_dma_cq_set_ci(vc, ci + 1);
			mlx5_dma_handle_error_cqe(vc, cqe); /* may reset the QP and re-post */
			ci = vc->cq_ci;
			continue;
		}
		const struct mlx5_dma_slot *slot =
			&vc->slots[rte_be_to_cpu_16(cqe->wqe_counter) & vc->sq_mask];
		vc->done_upto = slot->ring_idx + 1;
		vc->bb_ci += (uint16_t)(slot->end_pi - (uint16_t)vc->bb_ci);
		ci++;
	}
	if (ci != vc->cq_ci_db) {
		mlx5_dma_cq_set_ci(vc, ci);
		vc->cq_ci_db = ci;
		rte_io_wmb(); /* CQE reads done before the entries are handed back */
		mlx5_dma_dbrec_store(vc->cq_dbrec, rte_cpu_to_be_32(ci & 0xffffff));
	}
}

/** Consume completions through rdma-core's extended CQ (verbs path). */
static __rte_always_inline void mlx5_dma_poll_cq_verbs(struct mlx5_dma_vchan *vc)
{
	struct ibv_poll_cq_attr attr = {};
	struct ibv_cq_ex *cq = vc->cq_ex;

	if (ibv_start_poll(cq, &attr))
		return;
	do {
		uint64_t id = cq->wr_id;

		if (unlikely(cq->status != IBV_WC_SUCCESS)) {
			enum ibv_wc_status st = cq->status;
			uint32_t vendor = ibv_wc_read_vendor_err(cq);

			ibv_end_poll(cq);
			mlx5_dma_handle_error_wc(vc, id, st, vendor);
			return;
		}
		vc->done_upto = (uint16_t)id + 1;
		vc->bb_ci += (uint16_t)((uint16_t)(id >> 16) - (uint16_t)vc->bb_ci);
	} while (ibv_next_poll(cq) == 0);
	ibv_end_poll(cq);
}

template <enum mlx5_dma_path P>
static __rte_always_inline void mlx5_dma_poll_cq(struct mlx5_dma_vchan *vc)
{
	if (P == MLX5_DMA_PATH_DIRECT)
		mlx5_dma_poll_cq_direct(vc);
	else
		mlx5_dma_poll_cq_verbs(vc);
}

/** Producer counter where the last enqueued WQE starts. */
static __rte_always_inline uint32_t mlx5_dma_last_wqe_pi(const struct mlx5_dma_vchan *vc)
{
	/* every WQE is one WQEBB except raw ones, which record where they start */
	return vc->multi_valid && vc->multi_end == vc->pi ? vc->multi_start : vc->pi - 1;
}

/** Ring the doorbell for everything enqueued since the last submit. */
static __rte_always_inline void mlx5_dma_submit_vchan(struct mlx5_dma_vchan *vc)
{
	uint8_t *last;

	if (vc->pi == vc->db_pi)
		return;
	last = vc->sq + ((mlx5_dma_last_wqe_pi(vc) & vc->sq_mask) << MLX5_SEND_WQE_SHIFT);
	/* one CQE per burst: only the last WQE asks for a completion */
	last[offsetof(struct mlx5_wqe_ctrl_seg, fm_ce_se)] |= MLX5_WQE_CTRL_CQ_UPDATE;
	vc->stats.submitted += (uint16_t)(vc->ring_idx - vc->submitted_idx);
	vc->submitted_idx = vc->ring_idx;
	vc->db_pi = vc->pi;
	vc->multi_valid = false;
	if (vc->path == MLX5_DMA_PATH_VERBS) {
		/* capacity, lengths and RTS are checked before any builder runs, so the batch
		 * cannot fail; counted (never logged) so tests can prove it */
		if (unlikely(ibv_wr_complete(vc->qpx)))
			vc->stats.batch_failures++;
		vc->batch_open = false;
		return;
	}
	rte_io_wmb(); /* WQEs before the doorbell record */
	mlx5_dma_dbrec_store(vc->sq_dbrec, rte_cpu_to_be_32(vc->pi & 0xffff));
	vc->ring_db(vc->qp, vc->bf_reg, *(const uint64_t *)last);
}

#endif /* MLX5_DMA_FP_H */
