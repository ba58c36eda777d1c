/* SPDX-License-Identifier: BSD-3-Clause */
/* vchan control path: one RC QP connected to itself + one CQ, and their rings. */
#include <errno.h>
#include <string.h>

#include <rte_malloc.h>

#include "mlx5_dma_fp.h"
#include "mlx5_dma_sig.h"
#include "mlx5_dma_umr.h"
#include "mlx5_qp_state.h"

namespace {

/*
 * The MMO metadata segment names the PD's opaque buffer, which libmlx5 allocates and
 * registers privately. Let the builder write one WQE (never posted: the QP is still in
 * RESET and the batch is aborted) and take the values from the ring, so that the
 * direct path writes exactly the bytes the builder writes.
 */
int learn_opaque(struct mlx5_dma_vchan *vc)
{
	const struct mlx5_hw_mmo_wqe *probe = (const struct mlx5_hw_mmo_wqe *)vc->sq;

	ibv_wr_start(vc->qpx);
	vc->qpx->wr_id = 0;
	vc->qpx->wr_flags = 0;
	mlx5dv_wr_memcpy(vc->dvqp, 0, 0, 0, 0, 1);
	ibv_wr_abort(vc->qpx);
	if (mlx5_hw_ctrl_opcode(&probe->ctrl) != MLX5_OPCODE_MMO)
		return -EPROTO;
	memcpy(vc->mmo_head.meta, &probe->meta, sizeof(vc->mmo_head.meta));
	memset(vc->sq, 0, MLX5_SEND_WQE_BB);
	return 0;
}

/* Step 1: the CQ, one CQE per WQE at most (never overruns); 0 or -errno (logged). */
int vchan_create_cq(struct mlx5_dma_vchan *vc, uint32_t wqe_cnt)
{
	struct mlx5_dma_dev *dev = vc->dev;
	struct ibv_cq_init_attr_ex cq_attr = {};
	struct ibv_cq_ex *cq;
	int ret;

	cq_attr.cqe = wqe_cnt;
	cq_attr.wc_flags = IBV_WC_EX_WITH_BYTE_LEN;
	cq = dev->glue->create_cq_ex(dev->ctx, &cq_attr);
	if (!cq) {
		ret = mlx5_dma_neg_errno(ENOMEM);
		MLX5_DMA_LOG(ERR, "%s vchan %u: CQ of %u entries: %s", dev->name, vc->vchan_id,
			     wqe_cnt, strerror(-ret));
		return ret;
	}
	/* read by other lcores that dispatch the device's async events */
	__atomic_store_n(&vc->cq_ex, cq, __ATOMIC_RELEASE);
	return 0;
}

/*
 * Step 2: the QP on that CQ, with room for the UMRs the devargs ask for; @p qp_attr
 * holds the capabilities libmlx5 granted. 0 or -errno (logged).
 */
int vchan_create_qp(struct mlx5_dma_vchan *vc, uint32_t wqe_cnt,
		    struct ibv_qp_init_attr_ex *qp_attr)
{
	struct mlx5_dma_dev *dev = vc->dev;
	const struct mlx5_glue *glue = dev->glue;
	struct mlx5dv_qp_init_attr dv_attr = {};
	uint32_t sig_inline;
	int ret;

	qp_attr->qp_type = IBV_QPT_RC;
	qp_attr->send_cq = ibv_cq_ex_to_cq(vc->cq_ex);
	qp_attr->recv_cq = ibv_cq_ex_to_cq(vc->cq_ex);
	qp_attr->cap.max_send_wr = wqe_cnt;
	qp_attr->cap.max_send_sge = 1;
	/* UMR translations are inline: room for umr_entries list entries makes every SQ
	 * slot larger (libmlx5 sizes the SQ for max_send_wr slots of the largest WQE) */
	if (dev->args.umr_entries > 2)
		qp_attr->cap.max_inline_data = dev->args.umr_entries * 16u - 4;
	/* signature UMRs carry a BSF after their translations (sig=1) */
	sig_inline = mlx5_dma_sig_qp_inline(dev);
	if (sig_inline > qp_attr->cap.max_inline_data)
		qp_attr->cap.max_inline_data = sig_inline;
	qp_attr->comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qp_attr->pd = dev->pd;
	qp_attr->send_ops_flags = IBV_QP_EX_WITH_SEND;
	dv_attr.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS;
	/* MKEY_CONFIGURE: the UMR builders (fill, copy_sg, the mkey API); in libmlx5 v44
	 * it adds nothing to the WQE size, so the SQ geometry stays one WQEBB per op */
	dv_attr.send_ops_flags = MLX5DV_QP_EX_WITH_MEMCPY | MLX5DV_QP_EX_WITH_RAW_WQE |
				 MLX5DV_QP_EX_WITH_MKEY_CONFIGURE;
	if (sig_inline && dev->sig_pipelining) {
		/* a failed verification stops the SQ (SQD): responses can be cancelled */
		dv_attr.comp_mask |= MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS;
		dv_attr.create_flags |= MLX5DV_QP_CREATE_SIG_PIPELINING;
		vc->qp = glue->dv_create_qp(dev->ctx, qp_attr, &dv_attr);
		if (!vc->qp && errno == EOPNOTSUPP) {
			MLX5_DMA_LOG(INFO, "%s: no signature pipelining (SQD->RTS)", dev->name);
			dev->sig_pipelining = false;
			dv_attr.comp_mask &= ~(uint64_t)MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS;
			dv_attr.create_flags = 0;
		}
	}
	if (!vc->qp)
		vc->qp = glue->dv_create_qp(dev->ctx, qp_attr, &dv_attr);
	if (!vc->qp) {
		ret = mlx5_dma_neg_errno(ENOMEM);
		MLX5_DMA_LOG(ERR, "%s vchan %u: QP with %u WQEs: %s", dev->name, vc->vchan_id,
			     wqe_cnt, strerror(-ret));
		return ret;
	}
	/* what a UMR WQE may carry inline (libmlx5's limits for the layout setters) */
	vc->umr_max_list = (uint16_t)RTE_MIN((qp_attr->cap.max_inline_data + 4) / 16,
					     (uint32_t)MLX5_DMA_UMR_MAX_XLAT);
	vc->umr_max_interleaved = vc->umr_max_list ? vc->umr_max_list - 1 : 0;
	return 0;
}

/*
 * Step 3: the rings of the QP and CQ, their geometry checked against what the fast
 * path assumes, and the constant parts of its WQEs; 0 or -EPROTO (logged).
 */
int vchan_map_rings(struct mlx5_dma_vchan *vc, uint32_t wqe_cnt,
		    const struct ibv_qp_init_attr_ex *qp_attr)
{
	struct mlx5_dma_dev *dev = vc->dev;
	const struct mlx5_glue *glue = dev->glue;
	struct mlx5dv_obj obj = {};
	struct mlx5dv_qp dvqp = {};
	struct mlx5dv_cq dvcq = {};
	int ret;

	vc->qpx = glue->qp_to_qp_ex(vc->qp);
	vc->dvqp = vc->qpx ? glue->dv_qp_ex_from_ibv_qp_ex(vc->qpx) : NULL;
	obj.qp.in = vc->qp;
	obj.qp.out = &dvqp;
	obj.cq.in = ibv_cq_ex_to_cq(vc->cq_ex);
	obj.cq.out = &dvcq;
	ret = glue->dv_init_obj(&obj, MLX5DV_OBJ_QP | MLX5DV_OBJ_CQ);
	if (ret || !vc->dvqp || dvqp.sq.wqe_cnt < wqe_cnt ||
	    (dvqp.sq.wqe_cnt & (dvqp.sq.wqe_cnt - 1)) || qp_attr->cap.max_send_wr < 2 ||
	    (vc->sq_mask && dvqp.sq.wqe_cnt != vc->sq_mask + 1) ||
	    dvqp.sq.stride != MLX5_SEND_WQE_BB || dvcq.cqe_size != sizeof(struct mlx5_cqe64) ||
	    !dvqp.bf.reg) {
		MLX5_DMA_LOG(ERR,
			     "%s vchan %u: unexpected QP/CQ geometry (sq %u x %u, cqe %u, "
			     "doorbell register %p)",
			     dev->name, vc->vchan_id, dvqp.sq.wqe_cnt, dvqp.sq.stride,
			     dvcq.cqe_size, dvqp.bf.reg);
		return -EPROTO;
	}
	vc->sq = (uint8_t *)dvqp.sq.buf;
	vc->sq_mask = dvqp.sq.wqe_cnt - 1;
	/* libmlx5 refuses max_send_wr work requests in flight: with one or more WQEBBs
	 * per request, keeping that many minus one WQEBBs stays below it */
	vc->sq_limit = RTE_MIN(vc->sq_mask, qp_attr->cap.max_send_wr - 1);
	vc->sq_dbrec = &dvqp.dbrec[MLX5_SND_DBR];
	vc->bf_reg = dvqp.bf.reg;
	vc->cq = (uint8_t *)dvcq.buf;
	vc->cq_mask = dvcq.cqe_cnt - 1;
	vc->cqe_shift = 6;
	vc->cq_log = __builtin_ctz(dvcq.cqe_cnt);
	vc->cq_dbrec = dvcq.dbrec;
	mlx5_dma_cq_set_ci(vc, 0);
	vc->cq_ci_db = 0;
	/* opmod | wqe index | opcode, then qpn_ds: the index is put in per WQE */
	vc->mmo_head.ctrl = rte_cpu_to_be_32((uint32_t)MLX5_HW_OPC_MOD_MMO_DMA << 24 |
					     MLX5_OPCODE_MMO) |
			    (uint64_t)rte_cpu_to_be_32(vc->qp->qp_num << 8 | 4) << 32;
	vc->mmo_head.ctrl_tail = 0;
	vc->ring_db = glue->sq_doorbell;
	return 0;
}

} // namespace

/*
 * The device objects of a vchan: CQ, QP (created, geometry checked, metadata learnt,
 * connected to itself in RTS). Used at setup and when a lost CQ forces a rebuild.
 * On failure, what was created stays in @p vc for mlx5_dma_vchan_destroy_queues().
 */
int mlx5_dma_vchan_create_queues(struct mlx5_dma_vchan *vc, uint32_t wqe_cnt)
{
	struct mlx5_dma_dev *dev = vc->dev;
	struct ibv_qp_init_attr_ex qp_attr = {};
	int ret;

	ret = vchan_create_cq(vc, wqe_cnt);
	if (!ret)
		ret = vchan_create_qp(vc, wqe_cnt, &qp_attr);
	if (!ret)
		ret = vchan_map_rings(vc, wqe_cnt, &qp_attr);
	if (ret)
		return ret;
	ret = learn_opaque(vc);
	if (ret) {
		MLX5_DMA_LOG(ERR, "%s vchan %u: memcpy builder wrote no MMO WQE", dev->name,
			     vc->vchan_id);
		return ret;
	}
	ret = mlx5_qp_connect_rc(dev->glue, vc->qp, vc->qp->qp_num, MLX5_DMA_VCHAN_QP_ACCESS);
	if (ret)
		MLX5_DMA_LOG(ERR, "%s vchan %u: QP %#x to RTS: %s", dev->name, vc->vchan_id,
			     vc->qp->qp_num, strerror(-ret));
	return ret;
}

int mlx5_dma_vchan_replace_queues(struct mlx5_dma_vchan *vc)
{
	struct mlx5_dma_vchan fresh = *vc;
	int ret;

	/* build the new pair first: on failure the vchan keeps queues it can poll */
	fresh.qp = NULL;
	fresh.cq_ex = NULL;
	ret = mlx5_dma_vchan_create_queues(&fresh, vc->ops_cnt);
	if (ret) {
		mlx5_dma_vchan_destroy_queues(&fresh);
		return ret;
	}
	mlx5_dma_vchan_destroy_queues(vc);
	*vc = fresh;
	__atomic_store_n(&vc->cq_ex, fresh.cq_ex, __ATOMIC_RELEASE);
	__atomic_store_n(&vc->cq_lost, false, __ATOMIC_RELEASE);
	return 0;
}

void mlx5_dma_vchan_destroy_queues(struct mlx5_dma_vchan *vc)
{
	const struct mlx5_glue *glue = vc->dev->glue;

	if (vc->qp)
		glue->destroy_qp(vc->qp);
	if (vc->cq_ex)
		glue->destroy_cq(ibv_cq_ex_to_cq(vc->cq_ex));
	vc->qp = NULL;
	vc->qpx = NULL;
	vc->dvqp = NULL;
	__atomic_store_n(&vc->cq_ex, (struct ibv_cq_ex *)NULL, __ATOMIC_RELEASE);
}

int mlx5_dma_vchan_create(struct mlx5_dma_dev *dev, struct mlx5_dma_vchan *vc, uint16_t id,
			  uint16_t nb_desc)
{
	const struct mlx5_glue *glue = dev->glue;
	uint32_t wqe_cnt = rte_align32pow2(nb_desc);
	uint32_t sq_bbs;
	int ret;

	memset(vc, 0, sizeof(*vc));
	vc->dev = dev;
	vc->vchan_id = id;
	vc->nb_desc = nb_desc;
	vc->path = dev->args.path;
	vc->max_len = dev->max_wr_memcpy_length > MLX5_HW_DMA_MMO_MAX_SIZE
			      ? MLX5_HW_DMA_MMO_MAX_SIZE
			      : (uint32_t)dev->max_wr_memcpy_length;
	/* 2 GiB, encoded as 0, is the slow path's: the fast path swaps len as it is */
	vc->fp_max_len = RTE_MIN(vc->max_len, MLX5_HW_DMA_MMO_MAX_SIZE - 1);
	vc->max_ops = (uint16_t)RTE_MIN(wqe_cnt - 1, (uint32_t)UINT16_MAX);
	vc->ops_cnt = wqe_cnt;
	vc->trap_buf = (uint8_t *)rte_zmalloc(NULL, MLX5_HW_OPAQUE_BUF_LEN * 2, 64);
	if (!vc->trap_buf) {
		ret = -ENOMEM;
		goto fail;
	}
	vc->trap_mr = glue->reg_mr(dev->pd, vc->trap_buf, MLX5_HW_OPAQUE_BUF_LEN,
				   IBV_ACCESS_LOCAL_WRITE);
	if (!vc->trap_mr) {
		ret = mlx5_dma_neg_errno(ENOMEM);
		goto fail;
	}
	mlx5_dma_mr_cache_init(&vc->mr_cache, dev->mrs);
	/* sva=1: copy() names this key without a lookup (mlx5_dma_fp_install()) */
	if (mlx5_dma_mr_whole_key(dev->mrs, &vc->whole_lkey))
		vc->whole_key_seg = (uint64_t)rte_cpu_to_be_32(vc->whole_lkey) << 32;
	ret = mlx5_dma_vchan_create_queues(vc, wqe_cnt);
	if (ret)
		goto fail;
	/* per SQ WQEBB (the SQ may be larger than wqe_cnt with umr_entries=) */
	sq_bbs = vc->sq_mask + 1;
	vc->slots = (struct mlx5_dma_slot *)rte_zmalloc(NULL, sq_bbs * sizeof(*vc->slots), 0);
	vc->op_status = (uint16_t *)rte_zmalloc(NULL, sq_bbs * sizeof(*vc->op_status), 0);
	vc->scratch = (uint8_t *)rte_malloc(NULL, (size_t)sq_bbs * MLX5_SEND_WQE_BB, 64);
	vc->scratch_op_end = (uint16_t *)rte_malloc(NULL, sq_bbs * sizeof(*vc->scratch_op_end), 0);
	if (!vc->slots || !vc->op_status || !vc->scratch || !vc->scratch_op_end) {
		ret = -ENOMEM;
		goto fail;
	}
	if (dev->has_mkey) {
		ret = mlx5_dma_fill_pool_create(vc);
		if (!ret)
			ret = mlx5_dma_sg_pool_create(vc);
		if (!ret)
			ret = mlx5_dma_sig_pool_create(vc);
		if (ret)
			goto fail;
	}
	vc->configured = true;
	return 0;
fail:
	mlx5_dma_vchan_destroy(vc);
	return ret;
}

void mlx5_dma_vchan_destroy(struct mlx5_dma_vchan *vc)
{
	const struct mlx5_glue *glue = vc->dev ? vc->dev->glue : NULL;

	if (!glue)
		return;
	mlx5_dma_mkey_api_release(vc);
	mlx5_dma_sig_pool_destroy(vc);
	mlx5_dma_sg_pool_destroy(vc);
	mlx5_dma_fill_pool_destroy(vc);
	mlx5_dma_vchan_destroy_queues(vc);
	if (vc->trap_mr)
		glue->dereg_mr(vc->trap_mr);
	rte_free(vc->trap_buf);
	rte_free(vc->scratch);
	rte_free(vc->scratch_op_end);
	rte_free(vc->op_status);
	rte_free(vc->slots);
	memset(vc, 0, sizeof(*vc));
}

int mlx5_dma_vchan_restart(struct mlx5_dma_vchan *vc)
{
	int ret;

	if (vc->batch_open)
		ibv_wr_abort(vc->qpx);
	vc->batch_open = false;
	if (__atomic_load_n(&vc->cq_lost, __ATOMIC_ACQUIRE)) {
		/* the CQ is in error (a rebuild failed): new queues */
		ret = mlx5_dma_vchan_replace_queues(vc);
	} else {
		ret = mlx5_qp_reconnect_rc(vc->dev->glue, vc->qp, vc->qp->qp_num,
					   MLX5_DMA_VCHAN_QP_ACCESS);
		if (vc->path == MLX5_DMA_PATH_DIRECT)
			mlx5_dma_cq_skip_all(vc); /* what the QP's previous life left */
	}
	vc->pi = vc->bb_ci = vc->db_pi = 0;
	vc->multi_valid = false;
	vc->dead = ret != 0;
	vc->credits = 0;
	vc->ring_idx = vc->reported = vc->done_upto = vc->submitted_idx = 0;
	vc->err_pending = 0;
	vc->fm_pending = 0;
	vc->err_gen++;
	mlx5_dma_fill_pool_reset(vc);
	mlx5_dma_sg_pool_reset(vc);
	mlx5_dma_sig_pool_reset(vc);
	mlx5_dma_mkey_api_reset(vc);
	memset(vc->op_status, 0, (vc->sq_mask + 1) * sizeof(*vc->op_status));
	memset(&vc->stats, 0, sizeof(vc->stats));
	vc->last_err.valid = false;
	mlx5_dma_mr_cache_init(&vc->mr_cache, vc->dev->mrs);
	if (ret)
		MLX5_DMA_LOG(ERR, "%s vchan %u: QP %#x restart: %s", vc->dev->name, vc->vchan_id,
			     vc->qp->qp_num, strerror(-ret));
	return ret;
}
