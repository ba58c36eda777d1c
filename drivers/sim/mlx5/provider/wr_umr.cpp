/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * UMR builders of the new post-send API as libmlx5 v44.0 implements them (rdma-core
 * providers/mlx5/qp.c, mlx5_send_wr_mkey_configure): mlx5dv_wr_mkey_configure with its
 * access / layout setters, and the old registration calls mlx5dv_wr_mr_list /
 * mlx5dv_wr_mr_interleaved (configure with two setters).
 *
 * Reproduced v44.0 behaviour (FORMAT.md §9):
 * - IBV_SEND_INLINE is required; its EOPNOTSUPP (and the conf_attr one) replaces
 *   an earlier error of the batch instead of keeping the first;
 * - a non-zero tag byte needs mkey_update_tag_supported (checked after the ctrl
 *   segment was started), the tag is copied into the mkey context;
 * - on SQ overflow the WQE is written through the previous ctrl pointer;
 * - the WR is counted only when the last announced setter runs: with too few
 *   setters the UMR stays unposted, the small fence stays pending and the batch's
 *   doorbell names the unfinished UMR (BlueFlame, since it marks the batch inline);
 * - the open-UMR state is not reset by wr_start;
 * - layout limits: list min((max_inline+4)/16, num_desc), interleaved
 *   min((max_inline+4)/16 - 1, num_desc) (so n == num_desc is accepted).
 */
#include <errno.h>
#include <string.h>

#include "sim_mkey.h"
#include "wr_segments.h"
#include "wr_umr.h"

namespace mlx5sim {

namespace {

constexpr uint32_t kCtrlBytes = sizeof(struct mlx5_wqe_ctrl_seg);
constexpr uint32_t kUmrCtrlBytes = sizeof(struct mlx5_wqe_umr_ctrl_seg);
constexpr uint32_t kMkeyCtxBytes = sizeof(struct mlx5_wqe_mkey_context_seg);
constexpr uint64_t kAccessMask = MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE |
				 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_READ |
				 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_WRITE |
				 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_ATOMIC;
constexpr uint32_t kAccessFlags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

/** ibv access flags to mkey-context access bits. */
uint8_t mkey_access_bits(uint32_t flags)
{
	uint8_t a = 0;

	if (flags & IBV_ACCESS_LOCAL_WRITE)
		a |= MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_LOCAL_WRITE;
	if (flags & IBV_ACCESS_REMOTE_READ)
		a |= MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_READ;
	if (flags & IBV_ACCESS_REMOTE_WRITE)
		a |= MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_REMOTE_WRITE;
	if (flags & IBV_ACCESS_REMOTE_ATOMIC)
		a |= MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_ATOMIC;
	return a;
}

/** The last announced setter ran (or none was announced): post the UMR. */
void umr_finalize(SimQp *qp)
{
	SimMkey *mkey = qp->wr.cur_mkey;

	if (mkey->has_sig)
		umr_sig_finalize(qp, mkey);
	else
		umr_finalize_common(qp);
}

} // namespace

void umr_finalize_common(SimQp *qp)
{
	qp->wr.nreq++;
	wr_finish(qp);
	qp->wr.cur_mkey = nullptr;
}

void umr_setter_done(SimQp *qp)
{
	if (++qp->wr.mkey_setters_done == qp->wr.mkey_setters)
		umr_finalize(qp);
}

namespace {

/**
 * Apply RESET_SIG_ATTR or move the signature state on (rdma-core providers/mlx5/mlx5.h,
 * enum mlx5_mkey_bsf_state).
 */
void umr_sig_configure(SimMkey *mkey, uint32_t conf_flags)
{
	SimMkeySig &sig = mkey->sig;

	if (conf_flags & MLX5DV_MKEY_CONF_FLAG_RESET_SIG_ATTR) {
		sig.mem.present = false;
		sig.wire.present = false;
		sig.state = SigState::RESET;
	} else if (sig.state == SigState::UPDATED) {
		sig.state = SigState::SET;
	} else if (sig.state == SigState::RESET) {
		sig.state = SigState::INIT;
	}
}

void sim_wr_mkey_configure(struct mlx5dv_qp_ex *dv, struct mlx5dv_mkey *dv_mkey,
			   uint8_t num_setters, struct mlx5dv_mkey_conf_attr *attr)
{
	SimQp *qp = to_sim_qp(dv);
	SimMkey *mkey = to_sim_mkey(dv_mkey);
	struct mlx5_wqe_umr_ctrl_seg *umr;
	struct mlx5_wqe_mkey_context_seg *mk;
	uint32_t tag = dv_mkey->lkey & 0xff;

	/* these two overwrite an earlier error of the batch, as in v44.0 */
	if (!(qp->qpx.wr_flags & IBV_SEND_INLINE) ||
	    (attr->conf_flags & ~(uint32_t)MLX5DV_MKEY_CONF_FLAG_RESET_SIG_ATTR) ||
	    attr->comp_mask) {
		qp->wr.err = EOPNOTSUPP;
		return;
	}
	wr_begin(qp, MLX5_OPCODE_UMR, 0, IBV_WC_DRIVER1);
	if (tag && !qp->ctx->mkey_update_tag_supported) {
		qp->wr.err = EOPNOTSUPP;
		return;
	}
	qp->wr.cur_mkey = mkey;
	qp->wr.mkey_setters = num_setters;
	qp->wr.mkey_setters_done = 0;
	qp->wr.cur_ctrl->imm = htobe32(dv_mkey->lkey);

	umr = umr_ctrl(qp);
	memset(umr, 0, sizeof(*umr));
	umr->flags = MLX5_WQE_UMR_CTRL_FLAG_INLINE;
	umr->mkey_mask = htobe64(MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE |
				 MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY);
	mk = umr_mkey_ctx(qp);
	memset(mk, 0, sizeof(*mk));
	mk->qpn_mkey = htobe32(0xffffff00u | tag);
	qp->wr.cur_data = wr_wrap(qp, reinterpret_cast<uint8_t *>(mk) + kMkeyCtxBytes);
	qp->wr.cur_size = (kCtrlBytes + kUmrCtrlBytes + kMkeyCtxBytes) / MLX5_HW_DS_BYTES;

	if (mkey->has_sig)
		umr_sig_configure(mkey, attr->conf_flags);
	qp->sq.fm_cache = MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE;
	qp->wr.inl_wqe = true;
	if (!num_setters)
		umr_finalize(qp);
}

void sim_wr_set_mkey_access_flags(struct mlx5dv_qp_ex *dv, uint32_t access_flags)
{
	SimQp *qp = to_sim_qp(dv);
	struct mlx5_wqe_umr_ctrl_seg *umr;

	if (qp->wr.err)
		return;
	if (!qp->wr.cur_mkey || (access_flags & ~kAccessFlags)) {
		qp->wr.err = EINVAL;
		return;
	}
	umr = umr_ctrl(qp);
	/* a second call for the same WQE finds its own mask bits */
	if (umr->mkey_mask & htobe64(MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE)) {
		qp->wr.err = EINVAL;
		return;
	}
	umr->mkey_mask |= htobe64(kAccessMask);
	umr_mkey_ctx(qp)->access_flags = mkey_access_bits(access_flags);
	umr_setter_done(qp);
}

/** Shared by both layout setters: @p data selects the interleaved format. */
void umr_set_layout(SimQp *qp, uint32_t repeat_count, uint16_t num_entries,
		    const struct mlx5dv_mr_interleaved *data, const struct ibv_sge *sge)
{
	SimMkey *mkey = qp->wr.cur_mkey;
	struct mlx5_wqe_umr_ctrl_seg *umr;
	uint64_t room, max_entries;
	UmrLayout l;

	if (qp->wr.err)
		return;
	if (!mkey) {
		qp->wr.err = EINVAL;
		return;
	}
	umr = umr_ctrl(qp);
	if (umr->klm_octowords) {
		qp->wr.err = EINVAL; /* a layout was already set */
		return;
	}
	/* v44.0 computes this in size_t from the (int) max_inline_data */
	room = ((uint64_t)(int64_t)(int32_t)qp->sq.max_inline_data +
		sizeof(struct mlx5_wqe_inl_data_seg)) /
	       16;
	if (data)
		room -= 1; /* the repeat-block header */
	max_entries = room < mkey->num_desc ? room : mkey->num_desc;
	if (num_entries > max_entries) {
		qp->wr.err = ENOMEM;
		return;
	}
	if (data)
		l = umr_write_repeat_block(qp, static_cast<uint8_t *>(qp->wr.cur_data),
					   repeat_count, num_entries, data);
	else
		l = umr_write_klm_list(qp, static_cast<uint8_t *>(qp->wr.cur_data), num_entries,
				       sge);
	umr_mkey_ctx(qp)->len = htobe64(l.length);
	umr->mkey_mask |= htobe64(MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN);
	umr->klm_octowords = htobe16((uint16_t)(((l.xlat_bytes + 63) & ~63u) / 16));
	qp->wr.cur_size += l.wqe_bytes / MLX5_HW_DS_BYTES;
	mkey->length = l.length;
	umr_setter_done(qp);
}

void sim_wr_set_mkey_layout_list(struct mlx5dv_qp_ex *dv, uint16_t num_sges,
				 const struct ibv_sge *sge)
{
	umr_set_layout(to_sim_qp(dv), 0, num_sges, nullptr, sge);
}

void sim_wr_set_mkey_layout_interleaved(struct mlx5dv_qp_ex *dv, uint32_t repeat_count,
					uint16_t num_interleaved,
					const struct mlx5dv_mr_interleaved *data)
{
	umr_set_layout(to_sim_qp(dv), repeat_count, num_interleaved, data, nullptr);
}

/** Old API: configure with two setters, access then layout. */
void sim_wr_mr_list(struct mlx5dv_qp_ex *dv, struct mlx5dv_mkey *mkey, uint32_t access_flags,
		    uint16_t num_sges, struct ibv_sge *sge)
{
	struct mlx5dv_mkey_conf_attr attr = {};

	sim_wr_mkey_configure(dv, mkey, 2, &attr);
	sim_wr_set_mkey_access_flags(dv, access_flags);
	sim_wr_set_mkey_layout_list(dv, num_sges, sge);
}

void sim_wr_mr_interleaved(struct mlx5dv_qp_ex *dv, struct mlx5dv_mkey *mkey, uint32_t access_flags,
			   uint32_t repeat_count, uint16_t num_interleaved,
			   struct mlx5dv_mr_interleaved *data)
{
	struct mlx5dv_mkey_conf_attr attr = {};

	sim_wr_mkey_configure(dv, mkey, 2, &attr);
	sim_wr_set_mkey_access_flags(dv, access_flags);
	sim_wr_set_mkey_layout_interleaved(dv, repeat_count, num_interleaved, data);
}

} // namespace

void sim_umr_install_builders(struct mlx5dv_qp_ex *dv)
{
	dv->wr_mr_interleaved = sim_wr_mr_interleaved;
	dv->wr_mr_list = sim_wr_mr_list;
	dv->wr_mkey_configure = sim_wr_mkey_configure;
	dv->wr_set_mkey_access_flags = sim_wr_set_mkey_access_flags;
	dv->wr_set_mkey_layout_list = sim_wr_set_mkey_layout_list;
	dv->wr_set_mkey_layout_interleaved = sim_wr_set_mkey_layout_interleaved;
	dv->wr_set_mkey_sig_block = sim_wr_set_mkey_sig_block;
}

} // namespace mlx5sim
