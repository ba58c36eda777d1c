/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Signature mkeys of a vchan (mlx5_dma_sig.h): the pool, the builder pad and the
 * UMR + SET_PSV WQEs that configure a pooled mkey.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rte_malloc.h>

#include "mlx5_dma_fp.h"
#include "mlx5_dma_sig.h"
#include "mlx5_dma_umr.h"

/* mkey context flags_pd: sig_err_cnt (bit 26), what a SIG_ERR-mask UMR writes */
#define MLX5_DMA_MKC_SIG_ERR_CNT (1u << 26)
/* mkey context flags_pd: bsf_en (bit 30), set with a BSF */
#define MLX5_DMA_MKC_BSF_EN (1u << 30)
/* WQEs of the builder pad QP */
#define MLX5_DMA_SIG_PAD_WQES 16

namespace {

/* Pad QP: a CQ of its own (the vchan's CQ may be replaced) and a QP left in RESET. */
int pad_create(struct mlx5_dma_vchan *vc, struct mlx5_dma_sig_pool *p, uint32_t max_inline)
{
	const struct mlx5_glue *glue = vc->dev->glue;
	struct ibv_cq_init_attr_ex cq_attr = {};
	struct ibv_qp_init_attr_ex qp_attr = {};
	struct mlx5dv_qp_init_attr dv_attr = {};
	struct mlx5dv_obj obj = {};
	struct mlx5dv_qp dvqp = {};

	cq_attr.cqe = MLX5_DMA_SIG_PAD_WQES;
	p->pad_cq = glue->create_cq_ex(vc->dev->ctx, &cq_attr);
	if (!p->pad_cq)
		return mlx5_dma_neg_errno(ENOMEM);
	qp_attr.qp_type = IBV_QPT_RC;
	qp_attr.send_cq = ibv_cq_ex_to_cq(p->pad_cq);
	qp_attr.recv_cq = ibv_cq_ex_to_cq(p->pad_cq);
	qp_attr.cap.max_send_wr = MLX5_DMA_SIG_PAD_WQES;
	qp_attr.cap.max_send_sge = 1;
	qp_attr.cap.max_inline_data = max_inline;
	qp_attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qp_attr.pd = vc->dev->pd;
	qp_attr.send_ops_flags = IBV_QP_EX_WITH_SEND;
	dv_attr.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS;
	dv_attr.send_ops_flags = MLX5DV_QP_EX_WITH_MKEY_CONFIGURE;
	p->pad_qp = glue->dv_create_qp(vc->dev->ctx, &qp_attr, &dv_attr);
	if (!p->pad_qp)
		return mlx5_dma_neg_errno(ENOMEM);
	p->pad_qpx = glue->qp_to_qp_ex(p->pad_qp);
	p->pad_dv = p->pad_qpx ? glue->dv_qp_ex_from_ibv_qp_ex(p->pad_qpx) : NULL;
	obj.qp.in = p->pad_qp;
	obj.qp.out = &dvqp;
	if (!p->pad_dv || glue->dv_init_obj(&obj, MLX5DV_OBJ_QP) ||
	    dvqp.sq.stride != MLX5_SEND_WQE_BB || (dvqp.sq.wqe_cnt & (dvqp.sq.wqe_cnt - 1)) ||
	    dvqp.sq.wqe_cnt < mlx5_dma_sig_umr_max_wqebbs(p->max_sge))
		return -EPROTO;
	p->pad_sq = (uint8_t *)dvqp.sq.buf;
	p->pad_mask = dvqp.sq.wqe_cnt - 1;
	return 0;
}

/* libmlx5's description of a domain (the structures it points at live in @p d). */
struct sig_dv_domain {
	struct mlx5dv_sig_t10dif dif;
	struct mlx5dv_sig_crc crc;
	struct mlx5dv_sig_block_domain d;
};

enum mlx5dv_block_size block_size_enum(uint16_t bs)
{
	switch (bs) {
	case 520:
		return MLX5DV_BLOCK_SIZE_520;
	case 4048:
		return MLX5DV_BLOCK_SIZE_4048;
	case 4096:
		return MLX5DV_BLOCK_SIZE_4096;
	case 4160:
		return MLX5DV_BLOCK_SIZE_4160;
	default:
		return MLX5DV_BLOCK_SIZE_512;
	}
}

/* The check mask covering every PI byte of a type. */
uint8_t full_check(enum rte_pmd_dma_mlx5_sig_type t)
{
	return mlx5_dma_sig_pi_bytes(t) == 4 ? 0xf0 : 0xff;
}

void to_dv(const struct rte_pmd_dma_mlx5_sig_domain &in, struct sig_dv_domain *out, uint8_t *check)
{
	bool ones = in.flags & RTE_PMD_DMA_MLX5_SIG_F_SEED_ONES;

	memset(out, 0, sizeof(*out));
	out->d.block_size = block_size_enum(in.block_size);
	if (in.type == RTE_PMD_DMA_MLX5_SIG_T10DIF_CRC ||
	    in.type == RTE_PMD_DMA_MLX5_SIG_T10DIF_CSUM) {
		out->d.sig_type = MLX5DV_SIG_TYPE_T10DIF;
		out->dif.bg_type = in.type == RTE_PMD_DMA_MLX5_SIG_T10DIF_CRC
					   ? MLX5DV_SIG_T10DIF_CRC
					   : MLX5DV_SIG_T10DIF_CSUM;
		out->dif.bg = ones ? 0xffff : 0;
		out->dif.app_tag = in.app_tag;
		out->dif.ref_tag = in.ref_tag;
		if (in.flags & RTE_PMD_DMA_MLX5_SIG_F_REF_INC)
			out->dif.flags |= MLX5DV_SIG_T10DIF_FLAG_REF_REMAP;
		if (in.flags & RTE_PMD_DMA_MLX5_SIG_F_APP_ESCAPE)
			out->dif.flags |= MLX5DV_SIG_T10DIF_FLAG_APP_ESCAPE;
		if (in.flags & RTE_PMD_DMA_MLX5_SIG_F_APP_REF_ESCAPE)
			out->dif.flags |= MLX5DV_SIG_T10DIF_FLAG_APP_REF_ESCAPE;
		out->d.sig.dif = &out->dif;
	} else {
		out->d.sig_type = MLX5DV_SIG_TYPE_CRC;
		switch (in.type) {
		case RTE_PMD_DMA_MLX5_SIG_CRC32C:
			out->crc.type = MLX5DV_SIG_CRC_TYPE_CRC32C;
			out->crc.seed = ones ? UINT32_MAX : 0;
			break;
		case RTE_PMD_DMA_MLX5_SIG_CRC64:
			out->crc.type = MLX5DV_SIG_CRC_TYPE_CRC64_XP10;
			out->crc.seed = ones ? UINT64_MAX : 0;
			break;
		default:
			out->crc.type = MLX5DV_SIG_CRC_TYPE_CRC32;
			out->crc.seed = ones ? UINT32_MAX : 0;
			break;
		}
		out->d.sig.crc = &out->crc;
	}
	if (in.flags & RTE_PMD_DMA_MLX5_SIG_F_NO_CHECK)
		*check = 0;
	else
		*check = in.check_mask ? in.check_mask : full_check(in.type);
}

/* Set the WQE index and QPN of the WQE at @p w (pad copy) for producer counter @p pi. */
void retarget(uint8_t *w, uint32_t pi, uint32_t qpn)
{
	auto *ctrl = (struct mlx5_wqe_ctrl_seg *)w;
	uint32_t v = rte_be_to_cpu_32(ctrl->opmod_idx_opcode);

	ctrl->opmod_idx_opcode = rte_cpu_to_be_32((v & 0xff0000ff) | (pi & 0xffff) << 8);
	ctrl->qpn_ds = rte_cpu_to_be_32(qpn << 8 | (rte_be_to_cpu_32(ctrl->qpn_ds) & 0x3f));
}

/* Block-size selector of the BSF: 512 1, 520 2, 4096 3, 4160 4, 4048 6. */
uint8_t bs_selector(uint16_t bs)
{
	switch (bs) {
	case 520:
		return 2;
	case 4048:
		return 6;
	case 4096:
		return 3;
	case 4160:
		return 4;
	default:
		return 1;
	}
}

/* The 64-byte BSF of a memory-domain-only signature mkey (libmlx5's mlx5_umr_fill_sig_bsf()). */
void write_bsf(const struct rte_pmd_dma_mlx5_sig_domain &d, uint32_t psv, struct mlx5_hw_bsf *bsf)
{
	bool ones = d.flags & RTE_PMD_DMA_MLX5_SIG_F_SEED_ONES;
	uint32_t bfs = 0;
	uint8_t check;

	bsf->basic.bsf_size_sbs = MLX5_HW_BSF_SIZE_WITH_INLINE << MLX5_HW_BSF_SIZE_SHIFT;
	if (d.flags & RTE_PMD_DMA_MLX5_SIG_F_NO_CHECK)
		check = 0;
	else
		check = d.check_mask ? d.check_mask : full_check(d.type);
	bsf->basic.check_byte_mask = check;
	bsf->basic.raw_data_size = RTE_BE32(UINT32_MAX);
	bsf->basic.mem_bs_selector = bs_selector(d.block_size);
	switch (d.type) {
	case RTE_PMD_DMA_MLX5_SIG_T10DIF_CRC:
	case RTE_PMD_DMA_MLX5_SIG_T10DIF_CSUM: {
		struct mlx5_hw_bsf_inl *inl = &bsf->m_inl;
		uint8_t inc = 0;

		inl->vld_refresh = RTE_BE16(MLX5_HW_BSF_INL_VALID | MLX5_HW_BSF_REFRESH_DIF);
		inl->dif_apptag = rte_cpu_to_be_16(d.app_tag);
		inl->dif_reftag = rte_cpu_to_be_32(d.ref_tag);
		inl->sig_type = d.type == RTE_PMD_DMA_MLX5_SIG_T10DIF_CRC ? MLX5_HW_T10DIF_CRC
									  : MLX5_HW_T10DIF_IPCS;
		inl->rp_inv_seed = MLX5_HW_BSF_REPEAT_BLOCK | (ones ? MLX5_HW_BSF_SEED : 0);
		if (d.flags & RTE_PMD_DMA_MLX5_SIG_F_REF_INC)
			inc |= MLX5_HW_BSF_INC_REFTAG;
		if (d.flags & RTE_PMD_DMA_MLX5_SIG_F_APP_REF_ESCAPE)
			inc |= MLX5_HW_BSF_APPREF_ESCAPE;
		else if (d.flags & RTE_PMD_DMA_MLX5_SIG_F_APP_ESCAPE)
			inc |= MLX5_HW_BSF_APPTAG_ESCAPE;
		inl->dif_inc_ref_guard_check = inc;
		inl->dif_app_bitmask_check = RTE_BE16(0xffff);
		break;
	}
	case RTE_PMD_DMA_MLX5_SIG_CRC32C:
		bfs = MLX5_HW_BFS_CRC32C_BASE;
		break;
	case RTE_PMD_DMA_MLX5_SIG_CRC64:
		bfs = MLX5_HW_BFS_CRC64_XP10_BASE;
		break;
	default:
		bfs = MLX5_HW_BFS_CRC32_BASE;
		break;
	}
	if (bfs)
		bfs |= MLX5_HW_BFS_CRC_REPEAT_BIT | (ones ? 0 : MLX5_HW_BFS_CRC_SEED_BIT);
	bsf->basic.m_bfs_psv = rte_cpu_to_be_32(bfs << MLX5_HW_BFS_SHIFT |
						(psv & MLX5_HW_BSF_PSV_INDEX_MASK));
}

/* SET_PSV transient signature: T10-DIF bg|app|ref, CRC32/C seed << 32, CRC64 seed. */
uint64_t transient_signature(const struct rte_pmd_dma_mlx5_sig_domain &d)
{
	bool ones = d.flags & RTE_PMD_DMA_MLX5_SIG_F_SEED_ONES;

	switch (d.type) {
	case RTE_PMD_DMA_MLX5_SIG_T10DIF_CRC:
	case RTE_PMD_DMA_MLX5_SIG_T10DIF_CSUM:
		return (uint64_t)(ones ? 0xffff : 0) << 48 | (uint64_t)d.app_tag << 32 | d.ref_tag;
	case RTE_PMD_DMA_MLX5_SIG_CRC64:
		return ones ? UINT64_MAX : 0;
	default:
		return ones ? (uint64_t)UINT32_MAX << 32 : 0;
	}
}

/*
 * The memory-domain PSV index libmlx5 gave @p m (mlx5dv_mkey does not show it):
 * read from the BSF its builders write for a CRC32 layout on the pad.
 */
int learn_psv(struct mlx5_dma_vchan *vc, struct mlx5_dma_sig_mkey *m)
{
	alignas(64) uint8_t w[MLX5_DMA_SIG_UMR_MAX_BYTES];
	struct mlx5_dma_sig_layout lay = {};

	lay.dom.type = RTE_PMD_DMA_MLX5_SIG_CRC32;
	lay.dom.block_size = 512;
	lay.nb = 1;
	lay.seg[0].addr = (uintptr_t)vc->sig->discard_buf;
	lay.seg[0].len = 512;
	lay.seg[0].lkey = vc->sig->discard_lkey;
	if (!mlx5_dma_sig_umr_builder(vc, 0, m, &lay, w))
		return -EPROTO;
	auto *umr = (const struct mlx5_wqe_umr_ctrl_seg *)(w + 16);
	auto *bsf =
		(const struct mlx5_hw_bsf *)(w + 128 + 16 * rte_be_to_cpu_16(umr->klm_octowords));
	m->mem_psv = rte_be_to_cpu_32(bsf->basic.m_bfs_psv) & MLX5_HW_BSF_PSV_INDEX_MASK;
	return 0;
}

} // namespace

uint32_t mlx5_dma_sig_pi_bytes(enum rte_pmd_dma_mlx5_sig_type t)
{
	switch (t) {
	case RTE_PMD_DMA_MLX5_SIG_CRC32:
	case RTE_PMD_DMA_MLX5_SIG_CRC32C:
		return 4;
	case RTE_PMD_DMA_MLX5_SIG_NONE:
		return 0;
	default:
		return 8;
	}
}

uint32_t mlx5_dma_sig_qp_inline(const struct mlx5_dma_dev *dev)
{
	uint32_t n;

	if (!dev->args.sig || !dev->sig_caps.block_prot || !dev->has_mkey ||
	    dev->args.path != MLX5_DMA_PATH_DIRECT)
		return 0;
	n = RTE_MAX((uint32_t)dev->args.umr_entries, (uint32_t)MLX5_DMA_SIG_DEFAULT_SGE);
	n = RTE_MIN(RTE_ALIGN_CEIL(n, 4u), (uint32_t)MLX5_DMA_SIG_MAX_SGE);
	/* libmlx5: translations + the 64-byte BSF must fit max_inline_data + 4 */
	return n * 16 + 64 - 4;
}

int mlx5_dma_sig_pool_create(struct mlx5_dma_vchan *vc)
{
	const struct mlx5_glue *glue = vc->dev->glue;
	uint32_t max_inline = mlx5_dma_sig_qp_inline(vc->dev);
	struct mlx5dv_mkey_init_attr attr = {};
	struct mlx5_dma_sig_pool *p;
	const struct mlx5_dma_mr_range *r;
	int ret;

	if (!max_inline)
		return 0;
	p = (struct mlx5_dma_sig_pool *)rte_zmalloc(NULL, sizeof(*p), 0);
	if (!p)
		return -ENOMEM;
	vc->sig = p;
	/* what fits the QP: its max_inline_data may exceed what we asked for */
	p->max_sge = (uint16_t)RTE_MIN((uint32_t)MLX5_DMA_SIG_MAX_SGE,
				       (uint32_t)(vc->umr_max_list - 4) & ~3u);
	if (p->max_sge < MLX5_DMA_SIG_DEFAULT_SGE)
		p->max_sge = MLX5_DMA_SIG_DEFAULT_SGE;
	p->ops = (struct mlx5_dma_sig_op *)rte_zmalloc(NULL, (vc->sq_mask + 1) * sizeof(*p->ops),
						       0);
	p->discard_buf = (uint8_t *)rte_zmalloc(NULL, MLX5_DMA_SIG_DISCARD_BYTES, 64);
	if (!p->ops || !p->discard_buf) {
		ret = -ENOMEM;
		goto fail;
	}
	ret = pad_create(vc, p, max_inline);
	if (ret) {
		MLX5_DMA_LOG(ERR, "%s vchan %u: builder pad QP: %s", vc->dev->name, vc->vchan_id,
			     strerror(-ret));
		goto fail;
	}
	attr.pd = vc->dev->pd;
	attr.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
			    MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE;
	attr.max_entries = p->max_sge;
	for (unsigned int i = 0; i < MLX5_DMA_SIG_MKEYS; i++) {
		p->m[i].mk = glue->dv_create_mkey(&attr);
		if (!p->m[i].mk) {
			ret = mlx5_dma_neg_errno(ENOMEM);
			MLX5_DMA_LOG(ERR, "%s vchan %u: signature mkey %u: %s", vc->dev->name,
				     vc->vchan_id, i, strerror(-ret));
			goto fail;
		}
	}
	attr.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT;
	attr.max_entries = 2; /* one interleaved entry + the repeat-block header */
	p->discard = glue->dv_create_mkey(&attr);
	r = mlx5_dma_mr_lookup(&vc->mr_cache, (uintptr_t)p->discard_buf,
			       MLX5_DMA_SIG_DISCARD_BYTES);
	if (!p->discard || !r) {
		ret = p->discard ? -EFAULT : mlx5_dma_neg_errno(ENOMEM);
		MLX5_DMA_LOG(ERR, "%s vchan %u: verify-only mkey: %s", vc->dev->name, vc->vchan_id,
			     strerror(-ret));
		goto fail;
	}
	p->discard_lkey = r->lkey;
	for (unsigned int i = 0; i < MLX5_DMA_SIG_MKEYS; i++) {
		ret = learn_psv(vc, &p->m[i]);
		if (ret) {
			MLX5_DMA_LOG(ERR, "%s vchan %u: PSV of signature mkey %u not found",
				     vc->dev->name, vc->vchan_id, i);
			goto fail;
		}
	}
	/* an op's domains are checked against these: computed once */
	struct rte_pmd_dma_mlx5_sig_caps caps;
	mlx5_dma_sig_caps_of(vc->dev, &caps);
	p->types = caps.types;
	p->block_sizes = caps.block_sizes;
	mlx5_dma_sig_pool_reset(vc);
	return 0;
fail:
	mlx5_dma_sig_pool_destroy(vc);
	return ret;
}

void mlx5_dma_sig_pool_destroy(struct mlx5_dma_vchan *vc)
{
	struct mlx5_dma_sig_pool *p = vc->sig;
	const struct mlx5_glue *glue = vc->dev->glue;

	if (!p)
		return;
	for (unsigned int i = 0; i < MLX5_DMA_SIG_MKEYS; i++)
		if (p->m[i].mk)
			glue->dv_destroy_mkey(p->m[i].mk);
	if (p->discard)
		glue->dv_destroy_mkey(p->discard);
	if (p->pad_qp)
		glue->destroy_qp(p->pad_qp);
	if (p->pad_cq)
		glue->destroy_cq(ibv_cq_ex_to_cq(p->pad_cq));
	rte_free(p->discard_buf);
	rte_free(p->ops);
	rte_free(p);
	vc->sig = NULL;
}

void mlx5_dma_sig_pool_reset(struct mlx5_dma_vchan *vc)
{
	struct mlx5_dma_sig_pool *p = vc->sig;

	if (!p)
		return;
	for (unsigned int i = 0; i < MLX5_DMA_SIG_MKEYS; i++) {
		p->m[i].configured = false;
		p->m[i].used = false;
		/* a failure whose SIG_ERR CQE was never read may have left it in error */
		p->m[i].rearm = true;
	}
	p->discard_gen = 0;
	p->drain_pending = false;
	memset(p->ops, 0, (vc->sq_mask + 1) * sizeof(*p->ops));
}

uint32_t mlx5_dma_sig_umr_builder(struct mlx5_dma_vchan *vc, uint32_t pi,
				  const struct mlx5_dma_sig_mkey *m,
				  const struct mlx5_dma_sig_layout *lay, uint8_t *out)
{
	struct mlx5_dma_sig_pool *p = vc->sig;
	struct mlx5dv_mkey_conf_attr ca = {};
	struct mlx5dv_sig_block_attr sa = {};
	struct ibv_sge sge[MLX5_DMA_SIG_MAX_SGE];
	bool has_sig = lay->dom.type != RTE_PMD_DMA_MLX5_SIG_NONE;
	uint32_t nbb, qpn = vc->qp->qp_num;
	struct sig_dv_domain dom;

	for (uint16_t i = 0; i < lay->nb; i++)
		sge[i] = {lay->seg[i].addr, lay->seg[i].len, lay->seg[i].lkey};
	/* only what the builder may write: a stale UMR or PSV must not be taken for one */
	memset(p->pad_sq, 0,
	       RTE_MIN(mlx5_dma_sig_umr_max_wqebbs(lay->nb), p->pad_mask + 1) * MLX5_SEND_WQE_BB);
	ibv_wr_start(p->pad_qpx);
	p->pad_qpx->wr_id = 0;
	p->pad_qpx->wr_flags = IBV_SEND_INLINE;
	/* without a domain the BSF is switched off (the mkey may have carried one) */
	if (!has_sig)
		ca.conf_flags = MLX5DV_MKEY_CONF_FLAG_RESET_SIG_ATTR;
	mlx5dv_wr_mkey_configure(p->pad_dv, m->mk, has_sig ? 3 : 2, &ca);
	mlx5dv_wr_set_mkey_access_flags(p->pad_dv, IBV_ACCESS_LOCAL_WRITE);
	mlx5dv_wr_set_mkey_layout_list(p->pad_dv, lay->nb, sge);
	if (has_sig) {
		to_dv(lay->dom, &dom, &sa.check_mask);
		sa.mem = &dom.d;
		mlx5dv_wr_set_mkey_sig_block(p->pad_dv, &sa);
	}
	ibv_wr_abort(p->pad_qpx); /* the bytes stay in the pad's ring */

	/* the builder starts at the pad's slot 0: a UMR, then up to 2 SET_PSVs */
	auto *ctrl = (struct mlx5_wqe_ctrl_seg *)p->pad_sq;
	auto *umr = (struct mlx5_wqe_umr_ctrl_seg *)(p->pad_sq + 16);

	if (mlx5_hw_ctrl_opcode(ctrl) != MLX5_OPCODE_UMR ||
	    (has_sig && rte_be_to_cpu_16(umr->bsf_octowords) != MLX5_HW_BSF_OCTOWORDS))
		return 0;
	nbb = mlx5_hw_ds_to_wqebbs(mlx5_hw_ctrl_ds(ctrl));
	retarget(p->pad_sq, pi, qpn);
	for (int k = 0; k < 2 && nbb <= p->pad_mask; k++) {
		uint8_t *w = p->pad_sq + nbb * MLX5_SEND_WQE_BB;

		if (mlx5_hw_ctrl_opcode((struct mlx5_wqe_ctrl_seg *)w) != MLX5_OPCODE_SET_PSV)
			break;
		retarget(w, pi + nbb, qpn);
		w[11] &= (uint8_t)~MLX5_WQE_CTRL_CQ_UPDATE; /* submit asks for the burst's CQE */
		nbb++;
	}
	memcpy(out, p->pad_sq, nbb * MLX5_SEND_WQE_BB);
	return nbb;
}

uint32_t mlx5_dma_sig_umr_direct(struct mlx5_dma_vchan *vc, uint32_t pi,
				 const struct mlx5_dma_sig_mkey *m,
				 const struct mlx5_dma_sig_layout *lay, uint8_t *out)
{
	const struct rte_pmd_dma_mlx5_sig_domain &d = lay->dom;
	bool has_sig = d.type != RTE_PMD_DMA_MLX5_SIG_NONE;
	uint32_t xl_oct = (lay->nb + 3u) / 4u * 4u; /* translations, padded to 64 bytes */
	uint32_t ds = MLX5_HW_UMR_HDR_DS + xl_oct + (has_sig ? MLX5_HW_BSF_OCTOWORDS : 0);
	uint32_t umr_nbb = mlx5_hw_ds_to_wqebbs(ds);
	uint32_t qpn = vc->qp->qp_num, lkey = m->mk->lkey;
	auto *ctrl = (struct mlx5_wqe_ctrl_seg *)out;
	auto *umr = (struct mlx5_wqe_umr_ctrl_seg *)(out + 16);
	auto *mkc = (struct mlx5_wqe_mkey_context_seg *)(out + 64);
	uint32_t sum = 0;

	memset(out, 0, (umr_nbb + has_sig) * MLX5_SEND_WQE_BB);
	for (uint16_t i = 0; i < lay->nb; i++) {
		auto *k = (struct mlx5_wqe_umr_klm_seg *)(out + 128 + 16 * i);

		k->byte_count = rte_cpu_to_be_32(lay->seg[i].len);
		k->mkey = rte_cpu_to_be_32(lay->seg[i].lkey);
		k->address = rte_cpu_to_be_64(lay->seg[i].addr);
		sum += lay->seg[i].len;
	}
	/* libmlx5 v44 sums a list in an int: the length is that sum sign-extended */
	uint64_t total = (uint64_t)(int64_t)(int32_t)sum;
	if (has_sig && total > UINT32_MAX)
		return 0; /* the BSF's raw data size is 32 bits: libmlx5 refuses it */
	ctrl->opmod_idx_opcode = rte_cpu_to_be_32((pi & 0xffff) << 8 | MLX5_OPCODE_UMR);
	ctrl->qpn_ds = rte_cpu_to_be_32(qpn << 8 | ds);
	ctrl->imm = rte_cpu_to_be_32(lkey);
	umr->flags = MLX5_WQE_UMR_CTRL_FLAG_INLINE;
	umr->klm_octowords = rte_cpu_to_be_16((uint16_t)xl_oct);
	/* with a domain the BSF is switched on, without one off (flags_pd bit 30) */
	umr->mkey_mask = rte_cpu_to_be_64(MLX5_DMA_UMR_MKEY_MASK |
					  MLX5_WQE_UMR_CTRL_MKEY_MASK_BSF_ENABLE);
	mkc->access_flags = MLX5_WQE_MKEY_CONTEXT_ACCESS_FLAGS_LOCAL_WRITE;
	mkc->qpn_mkey = rte_cpu_to_be_32(0xffffff00 | (lkey & 0xff));
	mkc->len = rte_cpu_to_be_64(total);
	if (!has_sig)
		return umr_nbb;
	mkc->flags_pd = rte_cpu_to_be_32(MLX5_DMA_MKC_BSF_EN);
	umr->bsf_octowords = rte_cpu_to_be_16(MLX5_HW_BSF_OCTOWORDS);
	write_bsf(d, m->mem_psv, (struct mlx5_hw_bsf *)(out + 128 + 16 * xl_oct));

	/* the memory domain's SET_PSV, with the small fence a UMR leaves */
	uint8_t *w = out + umr_nbb * MLX5_SEND_WQE_BB;
	auto *pctrl = (struct mlx5_wqe_ctrl_seg *)w;
	auto *psv = (struct mlx5_hw_set_psv_seg *)(w + 16);

	pctrl->opmod_idx_opcode = rte_cpu_to_be_32(((pi + umr_nbb) & 0xffff) << 8 |
						   MLX5_OPCODE_SET_PSV);
	pctrl->qpn_ds = rte_cpu_to_be_32(qpn << 8 | 2);
	pctrl->fm_ce_se = MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE;
	psv->psv_index = rte_cpu_to_be_32(m->mem_psv);
	psv->transient_signature = rte_cpu_to_be_64(transient_signature(d));
	return umr_nbb + 1;
}

uint32_t mlx5_dma_sig_umr(struct mlx5_dma_vchan *vc, uint32_t pi, struct mlx5_dma_sig_mkey *m,
			  const struct mlx5_dma_sig_layout *lay, bool fence)
{
	alignas(64) uint8_t tmp[MLX5_DMA_SIG_UMR_MAX_BYTES];
	uint32_t slot = pi & vc->sq_mask;
	/* in place, unless the WQEs would wrap around the end of the ring */
	bool wraps = slot + mlx5_dma_sig_umr_max_wqebbs(lay->nb) > vc->sq_mask + 1;
	uint8_t *w = wraps ? tmp : vc->sq + (slot << MLX5_SEND_WQE_SHIFT);
	uint32_t nbb = mlx5_dma_sig_umr_direct(vc, pi, m, lay, w);
	auto *ctrl = (struct mlx5_wqe_ctrl_seg *)w;
	auto *umr = (struct mlx5_wqe_umr_ctrl_seg *)(w + 16);
	auto *mkc = (struct mlx5_wqe_mkey_context_seg *)(w + 64);

	if (!nbb)
		return 0;
	if (m->rearm) {
		/* libmlx5 re-arms after polling the SIG_ERR CQE itself; here the PMD polled
		 * it, so the PMD pushes the error counter as libmlx5 would */
		m->err_cnt++;
		umr->mkey_mask |= rte_cpu_to_be_64(MLX5_WQE_UMR_CTRL_MKEY_MASK_SIG_ERR);
		mkc->flags_pd = rte_cpu_to_be_32(
			(rte_be_to_cpu_32(mkc->flags_pd) & ~MLX5_DMA_MKC_SIG_ERR_CNT) |
			((m->err_cnt & 1u) ? MLX5_DMA_MKC_SIG_ERR_CNT : 0));
		m->rearm = false;
	}
	ctrl->fm_ce_se = fence ? (uint8_t)MLX5_WQE_CTRL_FENCE : vc->fm_pending;
	for (uint32_t i = 0; wraps && i < nbb; i++)
		memcpy(vc->sq + (((pi + i) & vc->sq_mask) << MLX5_SEND_WQE_SHIFT),
		       w + i * MLX5_SEND_WQE_BB, MLX5_SEND_WQE_BB);
	vc->fm_pending = MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE;
	/* the domain and the entries in use (a layout compares only those) */
	memcpy(&m->lay, lay,
	       offsetof(struct mlx5_dma_sig_layout, seg) + lay->nb * sizeof(lay->seg[0]));
	vc->sig->hint[mlx5_dma_sig_layout_slot(lay)] = (uint8_t)(m - vc->sig->m);
	m->umr_nbb = (uint8_t)nbb;
	m->configured = true;
	m->err_gen = vc->err_gen;
	return nbb;
}

void mlx5_dma_sig_nops(struct mlx5_dma_vchan *vc, uint32_t pi, uint32_t n)
{
	/*
	 * One NOP whose ds spans the n WQEBBs, as a cancelled multi-WQEBB WQE is (ds
	 * kept): only its ctrl segment is written. The device skips the rest unread, and
	 * the application core touches one cache line instead of n, each of which the
	 * device last read.
	 */
	auto *ctrl =
		(struct mlx5_wqe_ctrl_seg *)(vc->sq + ((pi & vc->sq_mask) << MLX5_SEND_WQE_SHIFT));

	RTE_ASSERT(n >= 1 && n * (MLX5_SEND_WQE_BB / MLX5_HW_DS_BYTES) <= 0x3f);
	ctrl->opmod_idx_opcode = rte_cpu_to_be_32((pi & 0xffff) << 8 | MLX5_OPCODE_NOP);
	ctrl->qpn_ds = rte_cpu_to_be_32(vc->qp->qp_num << 8 |
					n * (MLX5_SEND_WQE_BB / MLX5_HW_DS_BYTES));
	ctrl->signature = 0;
	ctrl->dci_stream_channel_id = 0;
	ctrl->fm_ce_se = 0;
	ctrl->imm = 0;
}
