/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * WQE fetch: copy the next send WQE out of the SQ ring (modulo the ring, so a WQE
 * may straddle its end) and check its ctrl segment: WQE index, QPN, ds.
 * Only ring memory is read here.
 */
#include <string.h>

#include "wqe_planner.h"

namespace mlx5sim {

namespace {

/** Copy @p len bytes starting at WQEBB counter @p ci, wrapping at the ring end. */
void copy_from_ring(const QpObj *qp, uint32_t ci, uint8_t *out, uint32_t len)
{
	const uint8_t *ring = static_cast<const uint8_t *>(qp->cfg.sq_buf);
	uint32_t ring_bytes = qp->cfg.sq_wqe_cnt * MLX5_SEND_WQE_BB;
	uint32_t off = (ci & (qp->cfg.sq_wqe_cnt - 1)) * MLX5_SEND_WQE_BB;
	uint32_t first = ring_bytes - off < len ? ring_bytes - off : len;
	memcpy(out, ring + off, first);
	if (first < len)
		memcpy(out + first, ring, len - first);
}

} // namespace

Verdict WqePlanner::fetch_wqe(QpObj *qp, uint16_t pi, Plan *pl, uint32_t *wqebbs)
{
	const Verdict bad = {MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR, 0};
	uint32_t avail = (uint16_t)(pi - (uint16_t)qp->sq_ci);
	struct mlx5_wqe_ctrl_seg ctrl;

	/* a WQE starts at a WQEBB boundary: its ctrl segment never straddles the ring */
	memcpy(&ctrl,
	       static_cast<const uint8_t *>(qp->cfg.sq_buf) +
		       (size_t)(qp->sq_ci & (qp->cfg.sq_wqe_cnt - 1)) * MLX5_SEND_WQE_BB,
	       sizeof(ctrl));
	pl->idx = (uint16_t)qp->sq_ci;
	pl->opcode = mlx5_hw_ctrl_opcode(&ctrl);
	pl->signaled = ctrl.fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE;
	pl->solicited = ctrl.fm_ce_se & MLX5_WQE_CTRL_SOLICITED;
	pl->fenced = ctrl.fm_ce_se & MLX5_HW_FM_MASK;
	pl->stream = be16toh(ctrl.dci_stream_channel_id);
	*wqebbs = 1;

	/* a WQEBB that does not carry the expected index is not the next WQE */
	if (mlx5_hw_ctrl_index(&ctrl) != pl->idx)
		return bad;
	uint32_t ds = mlx5_hw_ctrl_ds(&ctrl);
	if (ds == 0)
		return bad;
	/* a ds that cannot be right is not trusted: the WQE consumes one WQEBB */
	uint32_t need = mlx5_hw_ds_to_wqebbs(ds);
	if (need > avail || need > qp->cfg.sq_wqe_cnt ||
	    ds * MLX5_HW_DS_BYTES > caps_.max_sq_desc_sz)
		return bad;
	*wqebbs = need;
	if ((be32toh(ctrl.qpn_ds) >> 8) != qp->qpn)
		return bad;
	copy_from_ring(qp, qp->sq_ci, pl->wqe, ds * MLX5_HW_DS_BYTES);
	/* the planner must see the ctrl checked here, even if the ring changed since */
	memcpy(pl->wqe, &ctrl, sizeof(ctrl));
	return Verdict{0, 0};
}

} // namespace mlx5sim
