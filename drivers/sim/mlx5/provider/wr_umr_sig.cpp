/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Signature side of the UMR builders, as libmlx5 v44.0 writes it (rdma-core
 * providers/mlx5/qp.c: mlx5_send_wr_set_mkey_sig_block, umr_wqe_finalize,
 * mlx5_umr_fill_sig_bsf, mlx5_umr_set_psv): the setter's validation, the
 * 64-byte BSF after the translation area, the SET_PSV WQEs that follow the UMR,
 * and the UMR completion they suppress.
 *
 * Reproduced v44.0 behaviour (test/vectors/FORMAT.md §9, and the functions above):
 * - finalisation errors (ENOMEM for a BSF that does not fit max_inline_data + 4,
 *   EINVAL for a length above 4 GiB or a COPY_MASK without the same block
 *   structure) overwrite an earlier error of the batch and leave the UMR open;
 *   the error counter was already pushed into the WQE by then;
 * - the setter does not check the request against the device's signature caps;
 * - each SET_PSV leaves ctrl bytes 12-15 (imm) stale;
 * - a SET_PSV that overflows the SQ writes bookkeeping and ctrl through the slot
 *   of cur_post but is not finalised (libmlx5's _common_wqe_init_op order).
 */
#include <errno.h>
#include <string.h>

#include "wr_umr.h"

namespace mlx5sim {

namespace {

constexpr uint32_t kFlagsPdBsfEnable = 1u << 30;
constexpr uint32_t kFlagsPdSigErrShift = 26;
constexpr uint32_t kFlagsPdSigErrMask = 1;
constexpr uint32_t kBsfBytes = sizeof(struct mlx5_hw_bsf);
constexpr uint32_t kPsvDs =
	(sizeof(struct mlx5_wqe_ctrl_seg) + sizeof(struct mlx5_hw_set_psv_seg)) / MLX5_HW_DS_BYTES;

/** BSF block-size selector of an MLX5DV_BLOCK_SIZE_* (validated before). */
uint8_t bs_selector(uint32_t block_size)
{
	static const uint8_t sel[] = {1, 2, 6, 3, 4}; /* 512, 520, 4048, 4096, 4160 */

	return block_size < sizeof(sel) ? sel[block_size] : 0;
}

/**
 * An enum member of the caller's attributes as the 32 bits it holds: the caller
 * may store any value there, and loading an out-of-range enumerator is undefined.
 */
template <typename E>
uint32_t raw_enum(const E &e)
{
	uint32_t v;

	static_assert(sizeof(E) == sizeof(v), "32-bit enum");
	memcpy(&v, &e, sizeof(v));
	return v;
}

bool valid_t10dif(const struct mlx5dv_sig_t10dif *dif)
{
	uint32_t bg_type = raw_enum(dif->bg_type);

	return (dif->bg == 0 || dif->bg == 0xffff) &&
	       (bg_type == MLX5DV_SIG_T10DIF_CRC || bg_type == MLX5DV_SIG_T10DIF_CSUM) &&
	       !(dif->flags &
		 ~(uint32_t)(MLX5DV_SIG_T10DIF_FLAG_REF_REMAP | MLX5DV_SIG_T10DIF_FLAG_APP_ESCAPE |
			     MLX5DV_SIG_T10DIF_FLAG_APP_REF_ESCAPE));
}

bool valid_crc(const struct mlx5dv_sig_crc *crc)
{
	switch (raw_enum(crc->type)) {
	case MLX5DV_SIG_CRC_TYPE_CRC32:
	case MLX5DV_SIG_CRC_TYPE_CRC32C:
		return crc->seed == 0 || crc->seed == UINT32_MAX;
	case MLX5DV_SIG_CRC_TYPE_CRC64_XP10:
		return crc->seed == 0 || crc->seed == UINT64_MAX;
	default:
		return false;
	}
}

/** mlx5_validate_sig_block_domain. */
bool valid_domain(const struct mlx5dv_sig_block_domain *d)
{
	if (raw_enum(d->block_size) > MLX5DV_BLOCK_SIZE_4160 || d->comp_mask)
		return false;
	switch (raw_enum(d->sig_type)) {
	case MLX5DV_SIG_TYPE_T10DIF:
		return valid_t10dif(d->sig.dif);
	case MLX5DV_SIG_TYPE_CRC:
		return valid_crc(d->sig.crc);
	default:
		return false;
	}
}

/** Store a validated domain (NULL: no signature there); a non-CRC type is T10-DIF. */
void copy_domain(const struct mlx5dv_sig_block_domain *src, SimSigDomain *dst)
{
	if (!src) {
		dst->present = false;
		return;
	}
	dst->present = true;
	dst->comp_mask = src->comp_mask;
	dst->block_size = raw_enum(src->block_size);
	if (raw_enum(src->sig_type) == MLX5DV_SIG_TYPE_CRC) {
		dst->sig_type = MLX5DV_SIG_TYPE_CRC;
		dst->crc = *src->sig.crc;
		memset(&dst->t10dif, 0, sizeof(dst->t10dif));
	} else {
		dst->sig_type = MLX5DV_SIG_TYPE_T10DIF;
		dst->t10dif = *src->sig.dif;
		memset(&dst->crc, 0, sizeof(dst->crc));
	}
}

/** BFS byte of a CRC domain, in place (bits 31:24). */
uint32_t crc_bfs(const struct mlx5dv_sig_crc &crc)
{
	uint32_t bfs;

	switch (crc.type) {
	case MLX5DV_SIG_CRC_TYPE_CRC32:
		bfs = MLX5_HW_BFS_CRC32_BASE;
		break;
	case MLX5DV_SIG_CRC_TYPE_CRC32C:
		bfs = MLX5_HW_BFS_CRC32C_BASE;
		break;
	case MLX5DV_SIG_CRC_TYPE_CRC64_XP10:
		bfs = MLX5_HW_BFS_CRC64_XP10_BASE;
		break;
	default:
		return 0;
	}
	if (!crc.seed)
		bfs |= MLX5_HW_BFS_CRC_SEED_BIT; /* set for a zero seed, as libmlx5 does */
	bfs |= MLX5_HW_BFS_CRC_REPEAT_BIT;
	return bfs << MLX5_HW_BFS_SHIFT;
}

void fill_inl_t10dif(const struct mlx5dv_sig_t10dif &dif, struct mlx5_hw_bsf_inl *inl)
{
	uint8_t check = 0;

	inl->vld_refresh = htobe16(MLX5_HW_BSF_INL_VALID | MLX5_HW_BSF_REFRESH_DIF);
	inl->dif_apptag = htobe16(dif.app_tag);
	inl->dif_reftag = htobe32(dif.ref_tag);
	inl->rp_inv_seed = MLX5_HW_BSF_REPEAT_BLOCK;
	if (dif.bg)
		inl->rp_inv_seed |= MLX5_HW_BSF_SEED;
	inl->sig_type = dif.bg_type == MLX5DV_SIG_T10DIF_CRC ? MLX5_HW_T10DIF_CRC
							     : MLX5_HW_T10DIF_IPCS;
	if (dif.flags & MLX5DV_SIG_T10DIF_FLAG_REF_REMAP)
		check |= MLX5_HW_BSF_INC_REFTAG;
	if (dif.flags & MLX5DV_SIG_T10DIF_FLAG_APP_REF_ESCAPE)
		check |= MLX5_HW_BSF_APPREF_ESCAPE;
	else if (dif.flags & MLX5DV_SIG_T10DIF_FLAG_APP_ESCAPE)
		check |= MLX5_HW_BSF_APPTAG_ESCAPE;
	inl->dif_inc_ref_guard_check = check;
	inl->dif_app_bitmask_check = htobe16(0xffff);
}

/** Same block structure and the copy mask it implies (mlx5_umr_block_*_sbs). */
bool same_block_structure(const SimSigDomain &mem, const SimSigDomain &wire, uint8_t *copy_mask)
{
	*copy_mask = 0;
	if (!mem.present || mem.sig_type != wire.sig_type || mem.block_size != wire.block_size)
		return false;
	if (wire.sig_type == MLX5DV_SIG_TYPE_CRC) {
		if (mem.crc.type != wire.crc.type)
			return false;
		*copy_mask = wire.crc.type == MLX5DV_SIG_CRC_TYPE_CRC64_XP10
				     ? (uint8_t)MLX5DV_SIG_MASK_CRC64_XP10
				     : (uint8_t)MLX5DV_SIG_MASK_CRC32;
		return true;
	}
	if (mem.t10dif.bg_type == wire.t10dif.bg_type && mem.t10dif.bg == wire.t10dif.bg)
		*copy_mask |= MLX5DV_SIG_MASK_T10DIF_GUARD;
	if (mem.t10dif.app_tag == wire.t10dif.app_tag)
		*copy_mask |= MLX5DV_SIG_MASK_T10DIF_APPTAG;
	if (mem.t10dif.ref_tag == wire.t10dif.ref_tag)
		*copy_mask |= MLX5DV_SIG_MASK_T10DIF_REFTAG;
	return true;
}

/** mlx5_umr_fill_sig_bsf: 0 or EINVAL (COPY_MASK without the same block structure). */
int fill_sig_bsf(struct mlx5_hw_bsf *bsf, const SimMkeySig &sig)
{
	struct mlx5_hw_bsf_basic *basic = &bsf->basic;
	uint8_t copy_mask = 0;
	bool sbs = false;
	uint32_t bfs_psv;

	memset(bsf, 0, sizeof(*bsf));
	basic->bsf_size_sbs = MLX5_HW_BSF_SIZE_WITH_INLINE << MLX5_HW_BSF_SIZE_SHIFT;
	basic->raw_data_size = htobe32(UINT32_MAX);
	if (sig.mem.present || sig.wire.present)
		basic->check_byte_mask = sig.check_mask;
	if (sig.mem.present) {
		bfs_psv = 0;
		if (sig.mem.sig_type == MLX5DV_SIG_TYPE_CRC)
			bfs_psv = crc_bfs(sig.mem.crc);
		else
			fill_inl_t10dif(sig.mem.t10dif, &bsf->m_inl);
		bfs_psv |= sig.mem_psv_index & MLX5_HW_BSF_PSV_INDEX_MASK;
		basic->m_bfs_psv = htobe32(bfs_psv);
		basic->mem_bs_selector = bs_selector(sig.mem.block_size);
	}
	if (!sig.wire.present)
		return 0;
	bfs_psv = 0;
	if (sig.wire.sig_type == MLX5DV_SIG_TYPE_CRC)
		bfs_psv = crc_bfs(sig.wire.crc);
	else
		fill_inl_t10dif(sig.wire.t10dif, &bsf->w_inl);
	sbs = same_block_structure(sig.mem, sig.wire, &copy_mask);
	if (sig.flags & MLX5DV_SIG_BLOCK_ATTR_FLAG_COPY_MASK) {
		if (!sbs)
			return EINVAL;
		copy_mask = sig.copy_mask;
	}
	bfs_psv |= sig.wire_psv_index & MLX5_HW_BSF_PSV_INDEX_MASK;
	basic->w_bfs_psv = htobe32(bfs_psv);
	if (sbs) {
		basic->bsf_size_sbs |= 1 << MLX5_HW_BSF_SBS_SHIFT;
		basic->wire_byte = copy_mask;
	} else {
		basic->wire_byte = bs_selector(sig.wire.block_size);
	}
	return 0;
}

/** PSV transient signature of a domain: T10-DIF bg|app|ref, CRC32/C seed<<32, CRC64 seed. */
uint64_t transient_signature(const SimSigDomain &d)
{
	if (d.sig_type == MLX5DV_SIG_TYPE_CRC)
		return d.crc.type == MLX5DV_SIG_CRC_TYPE_CRC64_XP10 ? d.crc.seed : d.crc.seed << 32;
	return (uint64_t)d.t10dif.bg << 48 | (uint64_t)d.t10dif.app_tag << 32 | d.t10dif.ref_tag;
}

/** One SET_PSV WQE; @p drop_signal: a later PSV carries the completion. */
void post_set_psv(SimQp *qp, uint32_t psv_index, uint64_t ts, bool drop_signal)
{
	unsigned int flags = qp->qpx.wr_flags;
	struct mlx5_hw_set_psv_seg *psv;

	if (drop_signal)
		qp->qpx.wr_flags &= ~(unsigned int)IBV_SEND_SIGNALED;
	wr_begin(qp, MLX5_OPCODE_SET_PSV, 0, IBV_WC_DRIVER1);
	qp->qpx.wr_flags = flags;
	if (qp->wr.err)
		return; /* never write over a posted WQE when the SQ is full */
	psv = reinterpret_cast<struct mlx5_hw_set_psv_seg *>(
		reinterpret_cast<uint8_t *>(qp->wr.cur_ctrl) + sizeof(struct mlx5_wqe_ctrl_seg));
	memset(psv, 0, sizeof(*psv));
	psv->psv_index = htobe32(psv_index);
	psv->transient_signature = htobe64(ts);
	qp->wr.cur_size = kPsvDs;
	qp->wr.nreq++;
	qp->sq.fm_cache = MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE;
	wr_finish(qp);
}

/** Post the UMR without its completion, then the PSVs of the signed domains. */
void finalize_and_set_psvs(SimQp *qp, const SimMkeySig &sig)
{
	qp->wr.cur_ctrl->fm_ce_se &= (uint8_t)~MLX5_WQE_CTRL_CQ_UPDATE;
	umr_finalize_common(qp);
	if (sig.mem.present)
		post_set_psv(qp, sig.mem_psv_index, transient_signature(sig.mem), sig.wire.present);
	if (sig.wire.present)
		post_set_psv(qp, sig.wire_psv_index, transient_signature(sig.wire), false);
}

/** Push a refreshed error counter into the WQE; true when it was refreshed. */
bool push_err_count(SimMkeySig &sig, struct mlx5_wqe_umr_ctrl_seg *umr,
		    struct mlx5_wqe_mkey_context_seg *mk)
{
	if (!sig.err_count_updated)
		return false;
	umr->mkey_mask |= htobe64(MLX5_WQE_UMR_CTRL_MKEY_MASK_SIG_ERR);
	mk->flags_pd |= htobe32((sig.err_count & kFlagsPdSigErrMask) << kFlagsPdSigErrShift);
	sig.err_count_updated = false;
	return true;
}

} // namespace

void umr_sig_finalize(SimQp *qp, SimMkey *mkey)
{
	struct mlx5_wqe_umr_ctrl_seg *umr = umr_ctrl(qp);
	struct mlx5_wqe_mkey_context_seg *mk = umr_mkey_ctx(qp);
	SimMkeySig &sig = mkey->sig;
	uint64_t data_bytes, room;
	bool set_psv = false;
	uint8_t *bsf;
	int ret;

	/* no signature in force: the mask bit writes bsf_en = 0 (the context is zeroed) */
	if (sig.state != SigState::UPDATED && sig.state != SigState::SET)
		umr->mkey_mask |= htobe64(MLX5_WQE_UMR_CTRL_MKEY_MASK_BSF_ENABLE);
	if (push_err_count(sig, umr, mk) && sig.state == SigState::SET)
		set_psv = true; /* re-arm the PSVs after a signature error */
	if (sig.state != SigState::UPDATED) {
		if (set_psv)
			finalize_and_set_psvs(qp, sig);
		else
			umr_finalize_common(qp);
		return;
	}
	data_bytes = (uint64_t)be16toh(umr->klm_octowords) * MLX5_HW_DS_BYTES;
	/* v44.0 adds the (int) max_inline_data to a size_t */
	room = (uint64_t)(int64_t)(int32_t)qp->sq.max_inline_data +
	       sizeof(struct mlx5_wqe_inl_data_seg);
	if (data_bytes + kBsfBytes > room) {
		qp->wr.err = ENOMEM;
		return;
	}
	if (mkey->length > UINT32_MAX) {
		qp->wr.err = EINVAL; /* raw_data_size is 32 bits */
		return;
	}
	bsf = static_cast<uint8_t *>(qp->wr.cur_data) + data_bytes;
	if (bsf >= qp->sq.qend)
		bsf = qp->sq.buf + (bsf - qp->sq.qend);
	ret = fill_sig_bsf(reinterpret_cast<struct mlx5_hw_bsf *>(bsf), sig);
	if (ret) {
		qp->wr.err = ret;
		return;
	}
	qp->wr.cur_size += MLX5_HW_BSF_OCTOWORDS;
	umr->bsf_octowords = htobe16(MLX5_HW_BSF_OCTOWORDS);
	umr->mkey_mask |= htobe64(MLX5_WQE_UMR_CTRL_MKEY_MASK_BSF_ENABLE);
	mk->flags_pd |= htobe32(kFlagsPdBsfEnable);
	finalize_and_set_psvs(qp, sig);
}

void sim_wr_set_mkey_sig_block(struct mlx5dv_qp_ex *dv, const struct mlx5dv_sig_block_attr *attr)
{
	SimQp *qp = to_sim_qp(dv);
	SimMkey *mkey = qp->wr.cur_mkey;
	SimMkeySig *sig;

	if (qp->wr.err)
		return;
	/* every check below is libmlx5's, in its order; each failure is EINVAL */
	if (!mkey || !mkey->has_sig || mkey->sig.state == SigState::UPDATED ||
	    (!attr->mem && !attr->wire) ||
	    (attr->flags & ~(uint32_t)MLX5DV_SIG_BLOCK_ATTR_FLAG_COPY_MASK) || attr->comp_mask ||
	    (attr->mem && !valid_domain(attr->mem)) || (attr->wire && !valid_domain(attr->wire))) {
		qp->wr.err = EINVAL;
		return;
	}
	sig = &mkey->sig;
	copy_domain(attr->mem, &sig->mem);
	copy_domain(attr->wire, &sig->wire);
	sig->flags = attr->flags;
	sig->check_mask = attr->check_mask;
	sig->copy_mask = attr->copy_mask;
	sig->state = SigState::UPDATED;
	umr_setter_done(qp);
}

} // namespace mlx5sim
