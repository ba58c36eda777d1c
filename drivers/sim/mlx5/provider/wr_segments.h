/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Send-path internals shared by the new post-send API (wr_builders.cpp,
 * wr_dv_builders.cpp) and the legacy ibv_post_send (post_send_db.cpp): ring
 * addressing, the overflow check, ctrl-segment start/finish and the segment writers.
 * One writer per segment kind, so both APIs produce the same bytes.
 *
 * Everything here runs per WQE: no allocation, no locks, no syscalls.
 */
#ifndef MLX5_SIM_WR_SEGMENTS_H
#define MLX5_SIM_WR_SEGMENTS_H

#include <errno.h>
#include <string.h>

#include "mlx5_hw.h"
#include "provider.h"

namespace mlx5sim {

/** Ring a batch's doorbell (post_send_db.cpp; rdma-core providers/mlx5/qp.c, post_send_db). */
void sim_post_send_db(SimQp *qp, uint32_t nreq, bool inl, uint32_t ds,
		      const struct mlx5_wqe_ctrl_seg *ctrl);

/** Fill the mlx5dv builders (wr_dv_builders.cpp): memcpy and raw WQE. */
void sim_dv_install_builders(struct mlx5dv_qp_ex *dv);

/** Work-completion opcodes libmlx5 stores in wr_data for opcodes a CQE cannot name. */
enum : uint32_t {
	WR_DATA_NONE = 0,
	WR_DATA_LOCAL_INV = IBV_WC_LOCAL_INV,
	WR_DATA_RAW_WQE = IBV_WC_DRIVER2,
	WR_DATA_MEMCPY = IBV_WC_DRIVER3,
};

/** ds of a LOCAL_INV UMR: ctrl + UMR ctrl (3) + mkey context (4). */
constexpr uint32_t kLocalInvDs = 8;

static inline uint8_t *wr_slot(SimQp *qp, uint32_t idx)
{
	return qp->sq.buf + ((size_t)(idx & (qp->sq.wqe_cnt - 1)) << MLX5_SEND_WQE_SHIFT);
}

/** Segment pointers wrap to slot 0 when they reach the end of the ring. */
static inline uint8_t *wr_wrap(SimQp *qp, uint8_t *p)
{
	return p == qp->sq.qend ? qp->sq.buf : p;
}

/** libmlx5's mlx5_wq_overflow: counted in WRs, not WQEBBs. */
static inline bool wr_sq_overflow(const SimQp *qp, uint32_t nreq)
{
	return qp->sq.head - qp->sq.tail + nreq >= qp->sq.max_post;
}

/** fm_ce_se of a library-built WQE: FENCE, else the pending fence cache. */
static inline uint8_t wr_fm_ce_se(const SimQp *qp, unsigned int send_flags)
{
	uint8_t fence = (send_flags & IBV_SEND_FENCE) ? (uint8_t)MLX5_WQE_CTRL_FENCE
						      : qp->sq.fm_cache;

	return (uint8_t)(qp->sq.sq_signal_bits | fence |
			 ((send_flags & IBV_SEND_SIGNALED) ? MLX5_WQE_CTRL_CQ_UPDATE : 0) |
			 ((send_flags & IBV_SEND_SOLICITED) ? MLX5_WQE_CTRL_SOLICITED : 0));
}

/** Per-slot bookkeeping at the first WQEBB of a new WQE; returns the slot. */
static inline uint8_t *wr_record_slot(SimQp *qp, uint64_t wr_id, uint32_t nreq, uint32_t wr_data)
{
	uint32_t idx = qp->sq.cur_post & (qp->sq.wqe_cnt - 1);

	qp->sq.wrid[idx] = wr_id;
	qp->sq.wqe_head[idx] = qp->sq.head + nreq;
	qp->sq.wr_data[idx] = wr_data;
	return wr_slot(qp, idx);
}

/**
 * Start a library-built WQE in the slot of cur_post: bookkeeping, ctrl bytes 0-3 and
 * 8-11 (signature and stream id zeroed), consume the fence cache. Bytes 4-7 (qpn_ds)
 * are written by wr_ctrl_finish, bytes 12-15 (imm) only by opcodes that carry one.
 */
static inline struct mlx5_wqe_ctrl_seg *wr_ctrl_start(SimQp *qp, uint64_t wr_id,
						      unsigned int send_flags, uint32_t nreq,
						      uint8_t opcode, uint8_t opmod,
						      uint32_t wr_data)
{
	auto *ctrl = reinterpret_cast<struct mlx5_wqe_ctrl_seg *>(
		wr_record_slot(qp, wr_id, nreq, wr_data));

	ctrl->signature = 0;
	ctrl->dci_stream_channel_id = 0;
	ctrl->fm_ce_se = wr_fm_ce_se(qp, send_flags);
	qp->sq.fm_cache = 0;
	ctrl->opmod_idx_opcode = htobe32((uint32_t)opmod << 24 | (qp->sq.cur_post & 0xffff) << 8 |
					 opcode);
	return ctrl;
}

/** Write qpn_ds and advance the producer counter past the WQE. */
static inline void wr_ctrl_finish(SimQp *qp, struct mlx5_wqe_ctrl_seg *ctrl, uint32_t ds)
{
	/* like libmlx5, ds is not masked to its 6 bits */
	ctrl->qpn_ds = htobe32(ds | qp->qpn << 8);
	qp->sq.cur_post += (ds * MLX5_HW_DS_BYTES + MLX5_SEND_WQE_BB - 1) / MLX5_SEND_WQE_BB;
}

static inline void wr_set_raddr(void *seg, uint32_t rkey, uint64_t remote_addr)
{
	auto *r = static_cast<struct mlx5_wqe_raddr_seg *>(seg);

	r->raddr = htobe64(remote_addr);
	r->rkey = htobe32(rkey);
	r->reserved = 0;
}

/** Atomic segment; fetch-and-add leaves the compare field untouched. */
static inline void wr_set_atomic(void *seg, bool cmp_swp, uint64_t swap_add, uint64_t compare)
{
	auto *a = static_cast<struct mlx5_wqe_atomic_seg *>(seg);

	a->swap_add = htobe64(swap_add);
	if (cmp_swp)
		a->compare = htobe64(compare);
}

static inline void wr_set_data(void *seg, uint32_t length, uint32_t lkey, uint64_t addr)
{
	auto *d = static_cast<struct mlx5_wqe_data_seg *>(seg);

	d->byte_count = htobe32(length);
	d->lkey = htobe32(lkey);
	d->addr = htobe64(addr);
}

/**
 * The UMR of a LOCAL_INV, after its ctrl segment: full UMR ctrl segment, and in the
 * mkey context only the free byte and qpn_mkey (the rest stays stale, as in v44.0).
 * @p seg follows the ctrl segment; returns where the next segment would go.
 */
static inline uint8_t *wr_set_local_inv_umr(SimQp *qp, uint8_t *seg)
{
	auto *umr = reinterpret_cast<struct mlx5_wqe_umr_ctrl_seg *>(seg);
	struct mlx5_wqe_mkey_context_seg *mk;

	memset(umr, 0, sizeof(*umr));
	umr->flags = MLX5_WQE_UMR_CTRL_FLAG_INLINE | MLX5_WQE_UMR_CTRL_FLAG_TRNSLATION_OFFSET |
		     MLX5_WQE_UMR_CTRL_FLAG_CHECK_QPN;
	umr->mkey_mask = htobe64(MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE |
				 MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY |
				 MLX5_WQE_UMR_CTRL_MKEY_MASK_QPN);
	seg = wr_wrap(qp, seg + sizeof(*umr));
	mk = reinterpret_cast<struct mlx5_wqe_mkey_context_seg *>(seg);
	mk->free = MLX5_WQE_MKEY_CONTEXT_FREE;
	mk->qpn_mkey = htobe32(0xffffff00u);
	return wr_wrap(qp, seg + sizeof(*mk));
}

/** Copy @p len bytes into the ring at @p dst, wrapping at qend; returns the end. */
static inline uint8_t *wr_copy_wrap(SimQp *qp, uint8_t *dst, const void *src, size_t len)
{
	const uint8_t *s = static_cast<const uint8_t *>(src);

	while (len) {
		size_t room = (size_t)(qp->sq.qend - dst);
		size_t n = len < room ? len : room;

		memcpy(dst, s, n);
		dst = wr_wrap(qp, dst + n);
		s += n;
		len -= n;
	}
	return dst;
}

/**
 * Close an inline segment of @p total bytes whose header is at @p hdr: header and ds
 * only when data was written (padding of the last 16-byte unit is not written).
 * Returns the ds the segment adds.
 */
static inline uint32_t wr_inline_finish(void *hdr, size_t total)
{
	if (!total)
		return 0;
	static_cast<struct mlx5_wqe_inl_data_seg *>(hdr)->byte_count = htobe32((uint32_t)total |
									       MLX5_INLINE_SEG);
	return (uint32_t)((total + sizeof(struct mlx5_wqe_inl_data_seg) + MLX5_HW_DS_BYTES - 1) /
			  MLX5_HW_DS_BYTES);
}

/** The max_inline_data check of the new API: v44.0 compares a size_t with an int. */
static inline bool wr_inline_too_big(const SimQp *qp, size_t total)
{
	return (uint64_t)total > (uint64_t)(int64_t)(int32_t)qp->sq.max_inline_data;
}

/* ---- new post-send API state helpers (wr_builders.cpp, wr_dv_builders.cpp) ---- */

/** Record the first error of a batch; later errors keep it. */
static inline void wr_latch(SimQp *qp, int err)
{
	if (!qp->wr.err)
		qp->wr.err = err;
}

/**
 * Begin a WQE of the new API. On SQ overflow v44.0 latches ENOMEM and returns
 * without moving cur_ctrl, so the caller keeps writing through the ctrl pointer of
 * the previously built WQE (reproduced: it stays inside the ring).
 */
static inline uint8_t *wr_begin(SimQp *qp, uint8_t opcode, uint8_t opmod, uint32_t wr_data)
{
	if (wr_sq_overflow(qp, qp->wr.nreq))
		wr_latch(qp, ENOMEM);
	else
		qp->wr.cur_ctrl = wr_ctrl_start(qp, qp->qpx.wr_id, qp->qpx.wr_flags, qp->wr.nreq,
						opcode, opmod, wr_data);
	qp->wr.cur_opcode = opcode;
	return reinterpret_cast<uint8_t *>(qp->wr.cur_ctrl);
}

/** Finalise the WQE being built with its current ds. */
static inline void wr_finish(SimQp *qp)
{
	wr_ctrl_finish(qp, qp->wr.cur_ctrl, qp->wr.cur_size);
}

} // namespace mlx5sim

#endif /* MLX5_SIM_WR_SEGMENTS_H */
