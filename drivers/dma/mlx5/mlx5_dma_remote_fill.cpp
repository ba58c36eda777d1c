/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pattern sources of a remote channel's fills. A DCI takes no UMR (libmlx5 v44
 * allows only raw WQEs and memcpy among the dv ops of a DC initiator), so a remote
 * fill is an RDMA write whose local bytes come from an indirect mkey configured once,
 * when the channel is created, through a short-lived loopback RC QP: an interleaved
 * layout of one 64-byte entry (the pattern 8 times) of stride 0, repeated to cover
 * the longest op, the layout the local fills use (mlx5_dma_fill.cpp).
 *
 * Each channel has MLX5_DMA_REMOTE_FILL_SOURCES such (buffer, mkey) pairs. A pattern
 * a source holds costs nothing; a new one takes a source none of whose ops is still to
 * be reported and rewrites its 64 bytes (an op reposted after a flush reads them
 * again, so "reported" and not "completed" frees a source). The layout never changes:
 * no UMR follows a failure, and the mkeys outlive the QP that configured them, as on
 * the device.
 */
#include <errno.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>

#include "mlx5_dma.h"
#include "mlx5_dma_umr.h"
#include "mlx5_qp_state.h"

#define MLX5_DMA_REMOTE_FILL_SOURCES 8
/* how long the sources' UMRs may take to complete */
#define MLX5_DMA_REMOTE_FILL_WAIT_MS 2000

namespace {

struct fill_source {
	struct mlx5dv_mkey *mkey;
	uint64_t pattern;
	uint16_t last_idx; /* last op reading the buffer */
	bool used;
};

} // namespace

struct mlx5_dma_remote_fill {
	uint8_t *buf; /* MLX5_DMA_REMOTE_FILL_SOURCES x MLX5_DMA_FILL_PAT_BYTES */
	struct ibv_mr *mr;
	struct fill_source src[MLX5_DMA_REMOTE_FILL_SOURCES];
};

namespace {

/** Post the UMRs of every source on @p qp and wait for their completions: 0 or -EIO. */
int configure_on(struct mlx5_dma_dev *p, struct mlx5_dma_remote_fill *f, struct ibv_qp *qp,
		 struct ibv_cq_ex *cq, uint32_t repeat)
{
	struct ibv_qp_ex *qpx = p->glue->qp_to_qp_ex(qp);
	struct mlx5dv_qp_ex *dv = qpx ? p->glue->dv_qp_ex_from_ibv_qp_ex(qpx) : NULL;
	struct mlx5dv_mkey_conf_attr conf = {};
	unsigned done = 0, good = 0;
	enum ibv_wc_status first_err = IBV_WC_SUCCESS;

	if (!dv)
		return -EIO;
	ibv_wr_start(qpx);
	for (unsigned i = 0; i < MLX5_DMA_REMOTE_FILL_SOURCES; i++) {
		struct mlx5_dma_xlat x = mlx5_dma_fill_xlat(f->buf + i * MLX5_DMA_FILL_PAT_BYTES,
							    f->mr->lkey);
		struct mlx5dv_mr_interleaved il = mlx5_dma_interleaved_entry(&x);

		qpx->wr_id = i;
		qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
		mlx5dv_wr_mkey_configure(dv, f->src[i].mkey, 2, &conf);
		mlx5dv_wr_set_mkey_access_flags(dv, IBV_ACCESS_LOCAL_WRITE);
		mlx5dv_wr_set_mkey_layout_interleaved(dv, repeat, 1, &il);
	}
	if (int ret = ibv_wr_complete(qpx)) {
		MLX5_DMA_LOG(ERR, "%s: fill mkeys: UMR not posted: %s", p->name, strerror(ret));
		return -EIO;
	}
	uint64_t deadline = rte_get_timer_cycles() +
			    rte_get_timer_hz() * MLX5_DMA_REMOTE_FILL_WAIT_MS / 1000;
	while (done < MLX5_DMA_REMOTE_FILL_SOURCES && rte_get_timer_cycles() < deadline) {
		struct ibv_poll_cq_attr attr = {};

		if (p->has_service)
			p->glue->progress(p->ctx); /* a polled backend: nobody may poll it yet */
		if (ibv_start_poll(cq, &attr))
			continue;
		do {
			done++;
			good += cq->status == IBV_WC_SUCCESS;
			if (cq->status != IBV_WC_SUCCESS && !first_err)
				first_err = cq->status;
		} while (ibv_next_poll(cq) == 0);
		ibv_end_poll(cq);
	}
	if (good == MLX5_DMA_REMOTE_FILL_SOURCES)
		return 0;
	MLX5_DMA_LOG(ERR, "%s: fill mkeys: %u of %u UMRs completed, %u successfully (status %d)",
		     p->name, done, MLX5_DMA_REMOTE_FILL_SOURCES, good, (int)first_err);
	return -EIO;
}

/** Give every source's mkey its layout, through a loopback RC QP made for it. */
int configure(struct mlx5_dma_dev *p, struct mlx5_dma_remote_fill *f, uint32_t repeat)
{
	const struct mlx5_glue *g = p->glue;
	struct ibv_cq_init_attr_ex ca = {};
	struct ibv_qp_init_attr_ex qa = {};
	struct mlx5dv_qp_init_attr dv = {};
	struct ibv_qp *qp = NULL;
	int ret = -ENOMEM;

	ca.cqe = MLX5_DMA_REMOTE_FILL_SOURCES;
	struct ibv_cq_ex *cq = g->create_cq_ex(p->ctx, &ca);
	if (!cq)
		goto out;
	qa.qp_type = IBV_QPT_RC;
	qa.send_cq = qa.recv_cq = ibv_cq_ex_to_cq(cq);
	/* libmlx5 sizes the SQ in WQEBBs of the largest WQE it knows; a UMR takes more */
	qa.cap.max_send_wr = MLX5_DMA_REMOTE_FILL_SOURCES * mlx5_dma_umr_interleaved_wqebbs(1);
	qa.cap.max_send_sge = 1;
	/* the layout goes inline: a repeat-block header and one entry (as vchans size it) */
	qa.cap.max_inline_data = 2 * 16 - 4;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qa.pd = p->pd;
	qa.send_ops_flags = IBV_QP_EX_WITH_SEND;
	dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS;
	dv.send_ops_flags = MLX5DV_QP_EX_WITH_MKEY_CONFIGURE;
	qp = g->dv_create_qp(p->ctx, &qa, &dv);
	if (!qp)
		goto out;
	ret = mlx5_qp_connect_rc(g, qp, qp->qp_num, 0);
	if (ret)
		MLX5_DMA_LOG(ERR, "%s: fill mkeys: loopback QP not connected", p->name);
	else
		ret = configure_on(p, f, qp, cq, repeat);
out:
	if (qp)
		g->destroy_qp(qp);
	if (cq)
		g->destroy_cq(ibv_cq_ex_to_cq(cq));
	return ret;
}

} // namespace

int mlx5_dma_remote_fill_create(struct mlx5_dma_dev *p, uint32_t max_len,
				struct mlx5_dma_remote_fill **out)
{
	auto *f = (struct mlx5_dma_remote_fill *)rte_zmalloc(
		NULL, sizeof(struct mlx5_dma_remote_fill), 0);
	int ret = -ENOMEM;

	*out = NULL;
	if (!f)
		goto err;
	f->buf = (uint8_t *)rte_zmalloc(NULL,
					MLX5_DMA_REMOTE_FILL_SOURCES * MLX5_DMA_FILL_PAT_BYTES, 64);
	f->mr = f->buf ? p->glue->reg_mr(p->pd, f->buf,
					 MLX5_DMA_REMOTE_FILL_SOURCES * MLX5_DMA_FILL_PAT_BYTES,
					 IBV_ACCESS_LOCAL_WRITE)
		       : NULL;
	if (!f->mr)
		goto err;
	for (struct fill_source &s : f->src) {
		s.mkey = mlx5_dma_indirect_mkey(p, 1);
		if (!s.mkey) {
			ret = errno == EOPNOTSUPP ? -ENOTSUP : -ENOMEM;
			goto err;
		}
	}
	ret = configure(p, f, mlx5_dma_fill_repeat(max_len));
	if (ret)
		goto err;
	*out = f;
	return 0;
err:
	mlx5_dma_remote_fill_destroy(p, f);
	return ret;
}

void mlx5_dma_remote_fill_destroy(struct mlx5_dma_dev *p, struct mlx5_dma_remote_fill *f)
{
	if (!f)
		return;
	for (struct fill_source &s : f->src)
		if (s.mkey)
			p->glue->dv_destroy_mkey(s.mkey);
	if (f->mr)
		p->glue->dereg_mr(f->mr);
	rte_free(f->buf);
	rte_free(f);
}

int mlx5_dma_remote_fill_source(struct mlx5_dma_remote_fill *f, uint64_t pattern, uint16_t idx,
				uint16_t reported, uint32_t *lkey)
{
	struct fill_source *spare = NULL;

	for (struct fill_source &s : f->src) {
		if (s.used && s.pattern == pattern) {
			spare = &s;
			break;
		}
		/* free: its last op is reported (outside [reported, idx)) */
		if (!spare &&
		    (!s.used || (uint16_t)(s.last_idx - reported) >= (uint16_t)(idx - reported)))
			spare = &s;
	}
	if (!spare)
		return -ENOSPC;
	if (!spare->used || spare->pattern != pattern) {
		uint8_t *b = f->buf + (spare - f->src) * MLX5_DMA_FILL_PAT_BYTES;

		mlx5_dma_fill_pattern_write(b, pattern);
		spare->pattern = pattern;
		spare->used = true;
	}
	spare->last_idx = idx;
	*lkey = spare->mkey->lkey;
	return 0;
}
