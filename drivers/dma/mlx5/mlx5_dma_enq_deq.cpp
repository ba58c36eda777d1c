/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The enqueue/dequeue ops API of DPDK 25.11 (rte_dma_enqueue_ops(), RTE_DMA_CFG_FLAG_ENQ_DEQ):
 * an rte_dma_op is a copy (one source and one destination segment of one length) or an
 * SG copy (nb_src source then nb_dst destination segments), posted through the device's
 * own copy / copy_sg entries and submitted at the end of the burst; dequeue takes the
 * completions through its completed_status entry and hands back each op with its
 * status. So an op is exactly what the same rte_dma_copy()/rte_dma_copy_sg() would be,
 * with the same limits, error recovery, stop semantics (USER_ABORT) and statistics.
 * The op of each ring index in flight is kept in a ring beside the vchan's op_status[].
 * Built against an older DPDK, the API does not exist and nothing here is offered.
 */
#include <errno.h>

#include <rte_malloc.h>

#include "mlx5_dma.h"
#include "mlx5_dma_sdk.h"

#if MLX5_DMA_SDK_HAS_ENQ_DEQ

namespace {

/* the ops that rte_dma_op.flags may carry to a copy */
constexpr uint64_t kOpFlags = RTE_DMA_OP_FLAG_FENCE | RTE_DMA_OP_FLAG_LLC;

uint16_t enqueue(void *priv, uint16_t vchan, struct rte_dma_op **ops, uint16_t nb_ops)
{
	struct mlx5_dma_vchan *vc = mlx5_dma_fp_vchan(priv, vchan);
	const struct mlx5_dma_dev *p = vc->dev;
	const struct rte_dma_fp_object *fp = p->fp;
	void **ring = p->enq_ops[vchan];
	uint16_t n;

	for (n = 0; n < nb_ops; n++) {
		struct rte_dma_op *op = ops[n];
		const struct rte_dma_sge *seg = op->src_dst_seg;
		uint64_t flags = op->flags & kOpFlags;
		int ret;

		if (op->nb_src == 1 && op->nb_dst == 1 && seg[0].length == seg[1].length)
			ret = fp->copy(priv, vchan, seg[0].addr, seg[1].addr, seg[0].length, flags);
		else
			ret = fp->copy_sg(priv, vchan, seg, seg + op->nb_src, op->nb_src,
					  op->nb_dst, flags);
		if (ret < 0)
			break; /* full (-ENOSPC), stopped, or a bad op: the caller keeps it */
		ring[ret & vc->sq_mask] = op;
	}
	if (n)
		fp->submit(priv, vchan);
	return n;
}

uint16_t dequeue(void *priv, uint16_t vchan, struct rte_dma_op **ops, uint16_t nb_ops)
{
	struct mlx5_dma_vchan *vc = mlx5_dma_fp_vchan(priv, vchan);
	const struct mlx5_dma_dev *p = vc->dev;
	void **ring = p->enq_ops[vchan];
	enum rte_dma_status_code st[64];
	uint16_t out = 0;

	while (out < nb_ops) {
		uint16_t want = RTE_MIN((uint16_t)(nb_ops - out), (uint16_t)RTE_DIM(st));
		uint16_t last = 0;
		uint16_t got = p->fp->completed_status(priv, vchan, want, &last, st);
		uint16_t idx = (uint16_t)(last - got + 1);

		for (uint16_t i = 0; i < got; i++, idx++) {
			struct rte_dma_op *op = (struct rte_dma_op *)ring[idx & vc->sq_mask];

			ring[idx & vc->sq_mask] = NULL;
			if (unlikely(!op))
				continue; /* posted by rte_dma_copy(), which this mode does not take
					   */
			op->status = st[i];
			ops[out++] = op;
		}
		if (got < want)
			break;
	}
	return out;
}

uint16_t no_enqueue(void *, uint16_t, struct rte_dma_op **, uint16_t)
{
	return 0;
}

} // namespace

uint64_t mlx5_dma_enq_deq_capa(void)
{
	return RTE_DMA_CAPA_OPS_ENQ_DEQ;
}

void mlx5_dma_enq_deq_install(struct rte_dma_fp_object *fp, const struct mlx5_dma_dev *p)
{
	/* stopped too: dequeue hands back what the stop aborted, enqueue meets the
	 * stopped copy entries and takes nothing */
	fp->enqueue = p->enq_deq ? enqueue : no_enqueue;
	fp->dequeue = p->enq_deq ? dequeue : no_enqueue;
}

#else /* DPDK before 25.11: no such API */

uint64_t mlx5_dma_enq_deq_capa(void)
{
	return 0;
}

void mlx5_dma_enq_deq_install(struct rte_dma_fp_object *, const struct mlx5_dma_dev *)
{
}

#endif

int mlx5_dma_enq_deq_setup(struct mlx5_dma_dev *p, uint16_t vchan)
{
	struct mlx5_dma_vchan *vc = &p->vchans[vchan];

	if (p->enq_ops) {
		rte_free(p->enq_ops[vchan]);
		p->enq_ops[vchan] = NULL;
	}
	if (!p->enq_deq)
		return 0;
	if (!p->enq_ops) {
		p->enq_ops = (void ***)rte_zmalloc(p->name, p->args.max_vchans * sizeof(void **),
						   0);
		if (!p->enq_ops)
			return -ENOMEM;
	}
	p->enq_ops[vchan] = (void **)rte_zmalloc(
		p->name, ((size_t)vc->sq_mask + 1) * sizeof(void *), RTE_CACHE_LINE_SIZE);
	if (!p->enq_ops[vchan]) {
		MLX5_DMA_LOG(ERR, "%s vchan %u: no memory for %u ops in flight", p->name, vchan,
			     vc->sq_mask + 1);
		return -ENOMEM;
	}
	return 0;
}

void mlx5_dma_enq_deq_release(struct mlx5_dma_dev *p)
{
	if (!p->enq_ops)
		return;
	for (uint16_t i = 0; i < p->args.max_vchans; i++)
		rte_free(p->enq_ops[i]);
	rte_free(p->enq_ops);
	p->enq_ops = NULL;
}
