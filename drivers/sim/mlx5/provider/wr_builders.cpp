/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * New post-send API of an RC QP as libmlx5 v44.0 implements it: wr_start /
 * wr_complete / wr_abort, the ibv_wr_* builders and data setters, and the table
 * installation. The mlx5dv builders live in wr_dv_builders.cpp.
 *
 * Reproduced v44.0 behaviour (see FORMAT.md §9): the first error of a batch sticks;
 * a builder that hits the overflow check writes through the previous ctrl pointer;
 * send/write/read/atomic builders count the WR at once, so a builder without a data
 * setter advances head and rings a doorbell for an unfinalised WQE; data setters
 * finalise the WQE even when they fail; SEND/READ/WRITE leave the ctrl imm bytes stale.
 */
#include <errno.h>

#include "wr_segments.h"
#include "wr_umr.h"

namespace mlx5sim {

namespace {

constexpr uint64_t kRcSendOps = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM |
				IBV_QP_EX_WITH_SEND_WITH_INV | IBV_QP_EX_WITH_RDMA_WRITE |
				IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |
				IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
				IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_LOCAL_INV;
constexpr uint64_t kDvOps = MLX5DV_QP_EX_WITH_RAW_WQE | MLX5DV_QP_EX_WITH_MEMCPY |
			    MLX5DV_QP_EX_WITH_MR_INTERLEAVED | MLX5DV_QP_EX_WITH_MR_LIST |
			    MLX5DV_QP_EX_WITH_MKEY_CONFIGURE;

/* ---- batch control ---- */

void wr_rollback(SimQp *qp)
{
	qp->sq.cur_post = qp->wr.cur_post_rb;
	qp->sq.fm_cache = qp->wr.fm_cache_rb;
}

void sim_wr_start(struct ibv_qp_ex *qpx)
{
	SimQp *qp = to_sim_qp(qpx);

	/* a fresh QP has no previous WQE: keep the overflow quirk inside the ring */
	if (!qp->wr.cur_ctrl)
		qp->wr.cur_ctrl = reinterpret_cast<struct mlx5_wqe_ctrl_seg *>(qp->sq.buf);
	qp->wr.cur_post_rb = qp->sq.cur_post;
	qp->wr.fm_cache_rb = qp->sq.fm_cache;
	qp->wr.err = 0;
	qp->wr.nreq = 0;
	qp->wr.inl_wqe = false;
	qp->wr.cur_size = 0;
}

int sim_wr_complete(struct ibv_qp_ex *qpx)
{
	SimQp *qp = to_sim_qp(qpx);

	/* before RTS v44.0 swaps in a completion that always rolls back with EINVAL */
	if (!qp->operational) {
		wr_rollback(qp);
		return EINVAL;
	}
	if (qp->wr.err) {
		wr_rollback(qp);
		return qp->wr.err;
	}
	sim_post_send_db(qp, qp->wr.nreq, qp->wr.inl_wqe, qp->wr.cur_size, qp->wr.cur_ctrl);
	return 0;
}

void sim_wr_abort(struct ibv_qp_ex *qpx)
{
	wr_rollback(to_sim_qp(qpx));
}

/* ---- builders: the WR is counted here; a data setter finalises it ---- */

/*
 * A DCI WQE has a 48-byte datagram (address vector) slot after the ctrl segment,
 * filled by the address setter; what follows may wrap to slot 0 (a WQE that
 * starts in the last slot).
 */
uint32_t transport_bytes(const SimQp *qp)
{
	return qp->is_dci ? sizeof(struct mlx5_wqe_datagram_seg) : 0;
}

void rc_begin_plain(SimQp *qp, uint8_t opcode, const __be32 *imm)
{
	uint8_t *ctrl = wr_begin(qp, opcode, 0, WR_DATA_NONE);
	uint32_t tseg = transport_bytes(qp);

	if (imm)
		qp->wr.cur_ctrl->imm = *imm;
	qp->wr.cur_data = wr_wrap(qp, ctrl + sizeof(struct mlx5_wqe_ctrl_seg) + tseg);
	qp->wr.cur_size = (sizeof(struct mlx5_wqe_ctrl_seg) + tseg) / 16;
	qp->wr.cur_setters_cnt = 0;
	qp->wr.nreq++;
}

void rc_begin_rdma(SimQp *qp, uint8_t opcode, uint32_t rkey, uint64_t raddr, const __be32 *imm)
{
	uint8_t *ctrl = wr_begin(qp, opcode, 0, WR_DATA_NONE);
	uint32_t tseg = transport_bytes(qp);
	uint8_t *seg = wr_wrap(qp, ctrl + sizeof(struct mlx5_wqe_ctrl_seg) + tseg);

	if (imm)
		qp->wr.cur_ctrl->imm = *imm;
	wr_set_raddr(seg, rkey, raddr);
	qp->wr.cur_data = seg + sizeof(struct mlx5_wqe_raddr_seg);
	qp->wr.cur_size = (sizeof(struct mlx5_wqe_ctrl_seg) + tseg) / 16 + 1;
	qp->wr.cur_setters_cnt = 0;
	qp->wr.nreq++;
}

void rc_begin_atomic(SimQp *qp, bool cmp_swp, uint32_t rkey, uint64_t raddr, uint64_t swap_add,
		     uint64_t compare)
{
	uint8_t opcode = cmp_swp ? MLX5_OPCODE_ATOMIC_CS : MLX5_OPCODE_ATOMIC_FA;
	uint32_t tseg = transport_bytes(qp);
	uint8_t *seg = wr_wrap(qp, wr_begin(qp, opcode, 0, WR_DATA_NONE) +
					   sizeof(struct mlx5_wqe_ctrl_seg) + tseg);

	wr_set_raddr(seg, rkey, raddr);
	seg += sizeof(struct mlx5_wqe_raddr_seg);
	wr_set_atomic(seg, cmp_swp, swap_add, compare);
	qp->wr.cur_data = seg + sizeof(struct mlx5_wqe_atomic_seg);
	qp->wr.cur_size = (sizeof(struct mlx5_wqe_ctrl_seg) + tseg) / 16 + 2;
	qp->wr.cur_setters_cnt = 0;
	qp->wr.nreq++;
}

void sim_wr_send(struct ibv_qp_ex *qpx)
{
	rc_begin_plain(to_sim_qp(qpx), MLX5_OPCODE_SEND, nullptr);
}

void sim_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm_data)
{
	rc_begin_plain(to_sim_qp(qpx), MLX5_OPCODE_SEND_IMM, &imm_data);
}

void sim_wr_send_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	__be32 imm = htobe32(invalidate_rkey);

	rc_begin_plain(to_sim_qp(qpx), MLX5_OPCODE_SEND_INVAL, &imm);
}

void sim_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr)
{
	rc_begin_rdma(to_sim_qp(qpx), MLX5_OPCODE_RDMA_WRITE, rkey, remote_addr, nullptr);
}

void sim_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr,
			   __be32 imm_data)
{
	rc_begin_rdma(to_sim_qp(qpx), MLX5_OPCODE_RDMA_WRITE_IMM, rkey, remote_addr, &imm_data);
}

void sim_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr)
{
	rc_begin_rdma(to_sim_qp(qpx), MLX5_OPCODE_RDMA_READ, rkey, remote_addr, nullptr);
}

void sim_wr_atomic_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr,
			   uint64_t compare, uint64_t swap)
{
	rc_begin_atomic(to_sim_qp(qpx), true, rkey, remote_addr, swap, compare);
}

void sim_wr_atomic_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t remote_addr,
			     uint64_t add)
{
	rc_begin_atomic(to_sim_qp(qpx), false, rkey, remote_addr, add, 0);
}

/** LOCAL_INV is a UMR that needs no setter: finalised at once, small fence follows. */
void sim_wr_local_inv(struct ibv_qp_ex *qpx, uint32_t invalidate_rkey)
{
	SimQp *qp = to_sim_qp(qpx);
	uint8_t *ctrl = wr_begin(qp, MLX5_OPCODE_UMR, 0, WR_DATA_LOCAL_INV);

	qp->wr.cur_ctrl->imm = htobe32(invalidate_rkey);
	qp->wr.cur_data = wr_set_local_inv_umr(qp, ctrl + sizeof(struct mlx5_wqe_ctrl_seg));
	qp->wr.cur_size = kLocalInvDs;
	qp->wr.nreq++;
	wr_finish(qp);
	qp->sq.fm_cache = MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE;
}

/*
 * ---- data setters: on an RC QP each one finalises the WQE, even after an
 * error; on a DCI the second of the data and address setters does ----
 */

/** A setter is done: finalise the WQE when it was the last one it needed. */
void setter_done(SimQp *qp)
{
	if (!qp->is_dci || qp->wr.cur_setters_cnt == 1)
		wr_finish(qp);
	else
		qp->wr.cur_setters_cnt++;
}

void sim_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr, uint32_t length)
{
	SimQp *qp = to_sim_qp(qpx);

	if (length) {
		wr_set_data(wr_wrap(qp, static_cast<uint8_t *>(qp->wr.cur_data)), length, lkey,
			    addr);
		qp->wr.cur_size++;
	}
	setter_done(qp);
}

void sim_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t num_sge, const struct ibv_sge *sg)
{
	SimQp *qp = to_sim_qp(qpx);
	uint8_t *seg = static_cast<uint8_t *>(qp->wr.cur_data);

	if (num_sge > qp->sq.max_gs) {
		wr_latch(qp, ENOMEM);
	} else {
		for (size_t i = 0; i < num_sge; i++) {
			seg = wr_wrap(qp, seg);
			if (!sg[i].length)
				continue; /* zero-length entries add no segment */
			wr_set_data(seg, sg[i].length, sg[i].lkey, sg[i].addr);
			seg += sizeof(struct mlx5_wqe_data_seg);
			qp->wr.cur_size++;
		}
	}
	setter_done(qp);
}

void sim_wr_set_inline_data(struct ibv_qp_ex *qpx, void *addr, size_t length)
{
	SimQp *qp = to_sim_qp(qpx);
	uint8_t *hdr = wr_wrap(qp, static_cast<uint8_t *>(qp->wr.cur_data));

	if (wr_inline_too_big(qp, length)) {
		wr_latch(qp, ENOMEM);
	} else {
		wr_copy_wrap(qp, hdr + sizeof(struct mlx5_wqe_inl_data_seg), addr, length);
		qp->wr.inl_wqe = true;
		qp->wr.cur_size += wr_inline_finish(hdr, length);
	}
	setter_done(qp);
}

/** Entries are copied one by one; the one that crosses the limit is not written. */
void sim_wr_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num_buf,
				 const struct ibv_data_buf *bufs)
{
	SimQp *qp = to_sim_qp(qpx);
	uint8_t *hdr = wr_wrap(qp, static_cast<uint8_t *>(qp->wr.cur_data));
	uint8_t *p = hdr + sizeof(struct mlx5_wqe_inl_data_seg);
	size_t total = 0;

	for (size_t i = 0; i < num_buf; i++) {
		total += bufs[i].length;
		if (wr_inline_too_big(qp, total)) {
			wr_latch(qp, ENOMEM);
			setter_done(qp);
			return;
		}
		p = wr_copy_wrap(qp, p, bufs[i].addr, bufs[i].length);
	}
	qp->wr.inl_wqe = true;
	qp->wr.cur_size += wr_inline_finish(hdr, total);
	setter_done(qp);
}

/* ---- DCI address setters (mlx5dv_wr_set_dc_addr[_stream]) ---- */

void sim_wr_set_dc_addr(struct mlx5dv_qp_ex *dv, struct ibv_ah *ah, uint32_t remote_dctn,
			uint64_t remote_dc_key)
{
	SimQp *qp = to_sim_qp(dv);
	auto *dseg = reinterpret_cast<struct mlx5_wqe_datagram_seg *>(
		reinterpret_cast<uint8_t *>(qp->wr.cur_ctrl) + sizeof(struct mlx5_wqe_ctrl_seg));

	memcpy(&dseg->av, &to_sim_ah(ah)->av, sizeof(dseg->av));
	dseg->av.dqp_dct |= htobe32(remote_dctn | MLX5_EXTENDED_UD_AV);
	dseg->av.key.dc_key = htobe64(remote_dc_key);
	setter_done(qp);
}

void sim_wr_set_dc_addr_stream(struct mlx5dv_qp_ex *dv, struct ibv_ah *ah, uint32_t remote_dctn,
			       uint64_t remote_dc_key, uint16_t stream_id)
{
	to_sim_qp(dv)->wr.cur_ctrl->dci_stream_channel_id = htobe16(stream_id);
	sim_wr_set_dc_addr(dv, ah, remote_dctn, remote_dc_key);
}

void install_rc_builders(struct ibv_qp_ex *x)
{
	x->wr_send = sim_wr_send;
	x->wr_send_imm = sim_wr_send_imm;
	x->wr_send_inv = sim_wr_send_inv;
	x->wr_rdma_write = sim_wr_rdma_write;
	x->wr_rdma_write_imm = sim_wr_rdma_write_imm;
	x->wr_rdma_read = sim_wr_rdma_read;
	x->wr_atomic_cmp_swp = sim_wr_atomic_cmp_swp;
	x->wr_atomic_fetch_add = sim_wr_atomic_fetch_add;
	x->wr_local_inv = sim_wr_local_inv;
	x->wr_set_sge = sim_wr_set_sge;
	x->wr_set_sge_list = sim_wr_set_sge_list;
	x->wr_set_inline_data = sim_wr_set_inline_data;
	x->wr_set_inline_data_list = sim_wr_set_inline_data_list;
}

} // namespace

int sim_qp_install_wr_ops(SimQp *qp)
{
	/* not implemented yet (a later issue), refused so QP creation fails clearly: BIND_MW */
	if (qp->dv_send_ops_flags & ~kDvOps)
		return -EOPNOTSUPP;
	if ((!qp->is_dci && qp->type != IBV_QPT_RC) || (qp->send_ops_flags & ~kRcSendOps))
		return -EOPNOTSUPP;
	qp->qpx.wr_start = sim_wr_start;
	qp->qpx.wr_complete = sim_wr_complete;
	qp->qpx.wr_abort = sim_wr_abort;
	/*
	 * Like libmlx5, an RC QP or DCI gets every builder (the mask only sized the
	 * SQ); a DCI's data setters wait for the address setter too.
	 */
	install_rc_builders(&qp->qpx);
	/* any dv flag installs every dv builder, as v44.0 does */
	if (qp->dv_send_ops_flags) {
		sim_dv_install_builders(&qp->dv);
		sim_umr_install_builders(&qp->dv);
	}
	if (qp->is_dci) {
		qp->dv.wr_set_dc_addr = sim_wr_set_dc_addr;
		qp->dv.wr_set_dc_addr_stream = sim_wr_set_dc_addr_stream;
	}
	if (!qp->wr.cur_ctrl)
		qp->wr.cur_ctrl = reinterpret_cast<struct mlx5_wqe_ctrl_seg *>(qp->sq.buf);
	return 0;
}

} // namespace mlx5sim
