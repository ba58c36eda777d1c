/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The SQ doorbell of a batch (rdma-core providers/mlx5/qp.c, post_send_db), and the legacy
 * ibv_post_send / ibv_post_recv. The legacy send path builds its WQEs with the same
 * segment writers as the new API (wr_segments.h).
 */
#include <errno.h>

#include <atomic>

#include "wr_segments.h"

namespace mlx5sim {

namespace {

/** Largest BlueFlame copy staged on the stack (a register half is 256 bytes). */
constexpr size_t kBfMaxCopy = 1024;

/** BlueFlame copy of the last WQE, gathered across the ring end. */
void bf_copy(SimQp *qp, const struct mlx5_wqe_ctrl_seg *ctrl, size_t len)
{
	uint8_t buf[kBfMaxCopy];
	const uint8_t *p = reinterpret_cast<const uint8_t *>(ctrl);

	for (size_t off = 0; off < len; off += MLX5_SEND_WQE_BB) {
		memcpy(buf + off, p, MLX5_SEND_WQE_BB);
		p += MLX5_SEND_WQE_BB;
		if (p == qp->sq.qend)
			p = qp->sq.buf;
	}
	qp->bf.uar->blueflame(qp, qp->bf.offset, buf, len);
}

} // namespace

void sim_post_send_db(SimQp *qp, uint32_t nreq, bool inl, uint32_t ds,
		      const struct mlx5_wqe_ctrl_seg *ctrl)
{
	size_t bf_len = ((size_t)ds * MLX5_HW_DS_BYTES + MLX5_SEND_WQE_BB - 1) &
			~(size_t)(MLX5_SEND_WQE_BB - 1);

	if (!nreq)
		return;
	qp->sq.head += nreq;
	/*
	 * WQEs must be visible before the doorbell record, the record before the UAR.
	 * A release store (a plain store on x86): the engine thread reads the record
	 * with an acquire load, and a plain store there is a data race.
	 */
	__atomic_store_n(&qp->dbrec[MLX5_SND_DBR], htobe32(qp->sq.cur_post & 0xffff),
			 __ATOMIC_RELEASE);
	std::atomic_thread_fence(std::memory_order_release);
	if (qp->bf.uar) {
		if (nreq == 1 && qp->bf.buf_size && inl && ds > 1 &&
		    ds <= qp->bf.buf_size / MLX5_HW_DS_BYTES && bf_len <= kBfMaxCopy) {
			bf_copy(qp, ctrl, bf_len);
		} else {
			uint64_t v;

			memcpy(&v, ctrl, sizeof(v));
			qp->bf.uar->mmio64(qp, qp->bf.offset, v);
		}
	}
	qp->bf.offset ^= qp->bf.buf_size;
}

namespace {

/** MLX5 opcode of a legacy WR; 0xff = not supported by this provider. */
uint8_t legacy_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_SEND:
		return MLX5_OPCODE_SEND;
	case IBV_WR_SEND_WITH_IMM:
		return MLX5_OPCODE_SEND_IMM;
	case IBV_WR_SEND_WITH_INV:
		return MLX5_OPCODE_SEND_INVAL;
	case IBV_WR_RDMA_WRITE:
		return MLX5_OPCODE_RDMA_WRITE;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return MLX5_OPCODE_RDMA_WRITE_IMM;
	case IBV_WR_RDMA_READ:
		return MLX5_OPCODE_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return MLX5_OPCODE_ATOMIC_CS;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return MLX5_OPCODE_ATOMIC_FA;
	case IBV_WR_LOCAL_INV:
		return MLX5_OPCODE_UMR;
	default:
		return 0xff;
	}
}

/** The ctrl imm libmlx5's legacy path always writes (0 for opcodes without one). */
__be32 legacy_imm(const struct ibv_send_wr *wr)
{
	switch (wr->opcode) {
	case IBV_WR_SEND_WITH_IMM:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return wr->imm_data;
	case IBV_WR_SEND_WITH_INV:
	case IBV_WR_LOCAL_INV:
		return htobe32(wr->invalidate_rkey);
	default:
		return 0;
	}
}

bool is_atomic(enum ibv_wr_opcode op)
{
	return op == IBV_WR_ATOMIC_CMP_AND_SWP || op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

/** Opcode-specific segments after the ctrl segment; returns the next free byte. */
uint8_t *legacy_op_segs(SimQp *qp, const struct ibv_send_wr *wr, uint8_t *seg, uint32_t *ds)
{
	switch (wr->opcode) {
	case IBV_WR_RDMA_WRITE:
	case IBV_WR_RDMA_WRITE_WITH_IMM:
	case IBV_WR_RDMA_READ:
		wr_set_raddr(seg, wr->wr.rdma.rkey, wr->wr.rdma.remote_addr);
		*ds += 1;
		return seg + sizeof(struct mlx5_wqe_raddr_seg);
	case IBV_WR_ATOMIC_CMP_AND_SWP:
	case IBV_WR_ATOMIC_FETCH_AND_ADD: {
		bool cs = wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP;

		wr_set_raddr(seg, wr->wr.atomic.rkey, wr->wr.atomic.remote_addr);
		seg += sizeof(struct mlx5_wqe_raddr_seg);
		wr_set_atomic(seg, cs, cs ? wr->wr.atomic.swap : wr->wr.atomic.compare_add,
			      wr->wr.atomic.compare_add);
		*ds += 2;
		return seg + sizeof(struct mlx5_wqe_atomic_seg);
	}
	case IBV_WR_LOCAL_INV:
		*ds = kLocalInvDs;
		return wr_set_local_inv_umr(qp, seg);
	default:
		return seg;
	}
}

/** Inline gather list; ENOMEM when the running total passes max_inline_data. */
int legacy_inline(SimQp *qp, const struct ibv_send_wr *wr, uint8_t *seg, uint32_t *ds)
{
	uint8_t *hdr = wr_wrap(qp, seg);
	uint8_t *p = hdr + sizeof(struct mlx5_wqe_inl_data_seg);
	int64_t total = 0;

	for (int i = 0; i < wr->num_sge; i++) {
		total += wr->sg_list[i].length;
		/* the legacy path compares two ints */
		if (total > (int32_t)qp->sq.max_inline_data)
			return ENOMEM;
		p = wr_copy_wrap(qp, p, (const void *)(uintptr_t)wr->sg_list[i].addr,
				 wr->sg_list[i].length);
	}
	*ds += wr_inline_finish(hdr, (size_t)total);
	return 0;
}

/** Gather list; zero-length entries are skipped, atomics always move 8 bytes. */
void legacy_gather(SimQp *qp, const struct ibv_send_wr *wr, uint8_t *seg, uint32_t *ds)
{
	for (int i = 0; i < wr->num_sge; i++) {
		const struct ibv_sge *sge = &wr->sg_list[i];

		seg = wr_wrap(qp, seg);
		if (!sge->length)
			continue;
		wr_set_data(seg, is_atomic(wr->opcode) ? 8 : sge->length, sge->lkey, sge->addr);
		seg += sizeof(struct mlx5_wqe_data_seg);
		*ds += 1;
	}
}

int legacy_check(const SimQp *qp, const struct ibv_send_wr *wr, uint32_t nreq)
{
	if (qp->is_dci || legacy_opcode(wr->opcode) == 0xff)
		return EINVAL;
	if (wr_sq_overflow(qp, nreq))
		return ENOMEM;
	/* before RTS libmlx5's qp_state_max_gs is -1: every WR fails "max gs exceeded" */
	if (!qp->operational || (wr->num_sge > 0 && (uint32_t)wr->num_sge > qp->sq.max_gs))
		return ENOMEM;
	return 0;
}

} // namespace

int sim_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	SimQp *qp = to_sim_qp(ibqp);
	struct mlx5_wqe_ctrl_seg *ctrl = nullptr;
	uint32_t nreq = 0, ds = 0;
	bool inl = false;
	int err = 0;

	for (; wr; wr = wr->next, nreq++) {
		uint8_t *seg;
		bool inline_wr;

		err = legacy_check(qp, wr, nreq);
		if (err)
			break;
		ctrl = wr_ctrl_start(
			qp, wr->wr_id, wr->send_flags, nreq, legacy_opcode(wr->opcode), 0,
			wr->opcode == IBV_WR_LOCAL_INV ? WR_DATA_LOCAL_INV : WR_DATA_NONE);
		ctrl->imm = legacy_imm(wr);
		ds = 1;
		seg = legacy_op_segs(qp, wr, reinterpret_cast<uint8_t *>(ctrl) + sizeof(*ctrl),
				     &ds);
		if (wr->opcode == IBV_WR_LOCAL_INV)
			qp->sq.fm_cache = MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE;
		inline_wr = (wr->send_flags & IBV_SEND_INLINE) && wr->num_sge > 0;
		if (inline_wr) {
			err = legacy_inline(qp, wr, seg, &ds);
			if (err)
				break;
			inl = true;
		} else {
			legacy_gather(qp, wr, seg, &ds);
		}
		wr_ctrl_finish(qp, ctrl, ds);
	}
	if (err)
		*bad_wr = wr;
	/* as libmlx5: the doorbell names the last WQE started, with its ds */
	if (nreq)
		sim_post_send_db(qp, nreq, inl, ds, ctrl);
	return err;
}

int sim_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	SimQp *qp = to_sim_qp(ibqp);
	SimRq *rq = &qp->rq;
	uint32_t nreq = 0;
	uint32_t ind;
	int err = 0;

	if (!rq->wqe_cnt) {
		*bad_wr = wr;
		return EINVAL;
	}
	ind = rq->head & (rq->wqe_cnt - 1);
	for (; wr; wr = wr->next, nreq++) {
		struct mlx5_wqe_data_seg *scat;
		uint32_t j = 0;

		if (rq->head - rq->tail + nreq >= rq->wqe_cnt) {
			err = ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || (uint32_t)wr->num_sge > rq->max_gs) {
			err = EINVAL;
			break;
		}
		scat = reinterpret_cast<struct mlx5_wqe_data_seg *>(rq->buf +
								    ((size_t)ind << rq->wqe_shift));
		for (int i = 0; i < wr->num_sge; i++) {
			if (!wr->sg_list[i].length)
				continue;
			wr_set_data(&scat[j++], wr->sg_list[i].length, wr->sg_list[i].lkey,
				    wr->sg_list[i].addr);
		}
		/* a shorter list ends with an invalid-lkey entry */
		if (j < rq->max_gs)
			wr_set_data(&scat[j], 0, MLX5_INVALID_LKEY, 0);
		rq->wrid[ind] = wr->wr_id;
		ind = (ind + 1) & (rq->wqe_cnt - 1);
	}
	if (nreq) {
		rq->head += nreq;
		/* receive WQEs before the record; the engine reads it with an acquire load */
		__atomic_store_n(&qp->dbrec[MLX5_RCV_DBR], htobe32(rq->head & 0xffff),
				 __ATOMIC_RELEASE);
		if (qp->ctx && qp->ctx->hca)
			qp->ctx->hca->rq_notify(qp->qpn);
	}
	if (err)
		*bad_wr = wr;
	return err;
}

} // namespace mlx5sim
