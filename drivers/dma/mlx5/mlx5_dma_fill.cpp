/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_dma_fill of dma_mlx5. The device has no fill: a fill is a memcpy MMO whose
 * source is an indirect mkey with an interleaved layout of one entry of stride 0 over
 * a 64-byte buffer holding the pattern 8 times, repeated to cover the longest op
 * (the same 64 bytes again and again). Each vchan has a pool of such (buffer, mkey)
 * slots: a pattern a slot holds costs one MMO; a new pattern takes a slot whose last
 * op has completed and rewrites its buffer, the mkey's layout staying as it is.
 *
 * A slot's UMR goes with the first fill that uses it (UMR, then the MMO with the small
 * fence, as one op), and again with every fill until that op is known complete with
 * no recovery since: a UMR lost to an error never leaves a fill reading an
 * unconfigured mkey.
 */
#include <string.h>

#include <rte_malloc.h>

#include "mlx5_dma_fp.h"
#include "mlx5_dma_sdk.h"
#include "mlx5_dma_umr.h"

/* pattern buffers (and their mkeys) of a vchan */
#define MLX5_DMA_FILL_SLOTS 8

namespace {

struct fill_slot {
	struct mlx5dv_mkey *mkey;
	uint64_t pattern;
	uint16_t last_idx; /* last op reading the buffer */
	uint16_t umr_idx;  /* op that carried the last UMR */
	uint32_t umr_gen;  /* vc->err_gen when it was posted */
	bool used;         /* the buffer holds pattern */
	bool umr_posted;
};

} // namespace

struct mlx5_dma_fill_pool {
	uint8_t *buf; /* MLX5_DMA_FILL_SLOTS x MLX5_DMA_FILL_PAT_BYTES */
	struct ibv_mr *mr;
	uint32_t repeat; /* repetitions of MLX5_DMA_FILL_PAT_BYTES: the longest fill */
	struct fill_slot slot[MLX5_DMA_FILL_SLOTS];
};

namespace {

/* The slot holding @p pattern, else a slot free to take it, else NULL. */
struct fill_slot *find_slot(struct mlx5_dma_vchan *vc, uint64_t pattern)
{
	struct mlx5_dma_fill_pool *pool = vc->fill;
	struct fill_slot *spare = NULL;

	for (struct fill_slot &s : pool->slot) {
		if (s.used && s.pattern == pattern)
			return &s;
		if (!spare && (!s.used || mlx5_dma_op_done(vc, s.last_idx)))
			spare = &s;
	}
	if (spare) {
		uint8_t *b = pool->buf + (spare - pool->slot) * MLX5_DMA_FILL_PAT_BYTES;

		mlx5_dma_fill_pattern_write(b, pattern);
		spare->pattern = pattern;
		spare->used = true;
	}
	return spare;
}

template <enum mlx5_dma_path P>
int fill(void *priv, uint16_t vchan, uint64_t pattern, rte_iova_t dst, uint32_t len, uint64_t flags)
{
	struct mlx5_dma_vchan *vc = mlx5_dma_fp_vchan(priv, vchan);
	struct mlx5_dma_fill_pool *pool = vc->fill;
	const struct mlx5_dma_mr_range *d;
	struct fill_slot *s;
	uint32_t nbb, start, mmo_pi;
	uint64_t mflags = flags & RTE_DMA_OP_FLAG_FENCE;
	bool need_umr;
	int idx;

	int admit = mlx5_dma_admit_op(vc);
	if (admit)
		return admit;
	if (len - 1 >= vc->max_len)
		return mlx5_dma_enqueue_trapped(vc, RTE_DMA_STATUS_INVALID_LENGTH, flags);
	d = mlx5_dma_mr_lookup(&vc->mr_cache, dst, len);
	if (!d)
		return mlx5_dma_enqueue_trapped(vc, RTE_DMA_STATUS_INVALID_DST_ADDR, flags);
	uint32_t dkey = d->lkey, dkey_be = d->lkey_be;

	s = find_slot(vc, pattern);
	if (!s) {
		mlx5_dma_poll_cq<P>(vc); /* every slot busy: maybe one finished by now */
		s = find_slot(vc, pattern);
		if (!s)
			return -ENOSPC;
	}
	need_umr = !(s->umr_posted && s->umr_gen == vc->err_gen &&
		     mlx5_dma_op_done(vc, s->umr_idx));
	nbb = need_umr ? mlx5_dma_umr_interleaved_wqebbs(1) + 1 : 1;
	if (!mlx5_dma_sq_fits(vc, nbb))
		return -ENOSPC;
	vc->credits = 0; /* re-checked at the next enqueue */
	start = vc->pi;
	if (need_umr) {
		struct mlx5_dma_xlat x = mlx5_dma_fill_xlat(
			pool->buf + (s - pool->slot) * MLX5_DMA_FILL_PAT_BYTES, pool->mr->lkey);

		mlx5_dma_umr_post(vc, start, s->mkey, &x, 1, pool->repeat, start, nbb, flags);
		s->umr_idx = vc->ring_idx;
		s->umr_gen = vc->err_gen;
		s->umr_posted = true;
		mflags = 0; /* the UMR took the op's fence; the MMO has the small one */
	}
	mmo_pi = start + nbb - 1;
	if (P == MLX5_DMA_PATH_DIRECT) {
		mlx5_dma_write_mmo(vc, mmo_pi, 0, rte_cpu_to_be_32(s->mkey->lkey), dst, dkey_be,
				   len, mflags);
		mlx5_dma_take_fence(vc, mmo_pi);
	} else {
		if (!vc->batch_open) {
			ibv_wr_start(vc->qpx);
			vc->batch_open = true;
		}
		vc->qpx->wr_id = mlx5_dma_wr_id(vc->ring_idx, start, nbb);
		vc->qpx->wr_flags = mflags ? IBV_SEND_FENCE : 0;
		mlx5dv_wr_memcpy(vc->dvqp, dkey, dst, s->mkey->lkey, 0, len);
	}
	s->last_idx = vc->ring_idx;
	idx = mlx5_dma_commit_op(vc, nbb);
	if (flags & RTE_DMA_OP_FLAG_SUBMIT)
		mlx5_dma_submit_vchan(vc);
	return idx;
}

} // namespace

struct mlx5dv_mkey *mlx5_dma_indirect_mkey(struct mlx5_dma_dev *p, uint16_t max_entries)
{
	struct mlx5dv_mkey_init_attr attr = {};

	attr.pd = p->pd;
	attr.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT;
	attr.max_entries = max_entries;
	return p->glue->dv_create_mkey(&attr);
}

bool mlx5_dma_probe_mkey(struct mlx5_dma_dev *p)
{
	struct mlx5dv_mkey *mk = mlx5_dma_indirect_mkey(p, 1);

	if (!mk) {
		MLX5_DMA_LOG(INFO, "%s: no indirect mkeys (%s): no fill, copy_sg by WQE chains",
			     p->name, strerror(errno));
		return false;
	}
	p->glue->dv_destroy_mkey(mk);
	return true;
}

int mlx5_dma_fill_pool_create(struct mlx5_dma_vchan *vc)
{
	struct mlx5_dma_dev *p = vc->dev;
	auto *pool = (struct mlx5_dma_fill_pool *)rte_zmalloc(NULL, sizeof(*vc->fill), 0);

	if (!pool)
		return -ENOMEM;
	vc->fill = pool;
	pool->repeat = mlx5_dma_fill_repeat(vc->max_len);
	pool->buf = (uint8_t *)rte_zmalloc(NULL, MLX5_DMA_FILL_SLOTS * MLX5_DMA_FILL_PAT_BYTES, 64);
	if (!pool->buf)
		return -ENOMEM;
	pool->mr = p->glue->reg_mr(p->pd, pool->buf, MLX5_DMA_FILL_SLOTS * MLX5_DMA_FILL_PAT_BYTES,
				   IBV_ACCESS_LOCAL_WRITE);
	if (!pool->mr)
		return mlx5_dma_neg_errno(ENOMEM);
	for (struct fill_slot &s : pool->slot) {
		s.mkey = mlx5_dma_indirect_mkey(p, 1);
		if (!s.mkey) {
			MLX5_DMA_LOG(ERR, "%s vchan %u: fill mkey: %s", p->name, vc->vchan_id,
				     strerror(errno));
			return mlx5_dma_neg_errno(ENOMEM);
		}
	}
	return 0;
}

void mlx5_dma_fill_pool_destroy(struct mlx5_dma_vchan *vc)
{
	struct mlx5_dma_fill_pool *pool = vc->fill;
	const struct mlx5_glue *glue = vc->dev->glue;

	if (!pool)
		return;
	for (struct fill_slot &s : pool->slot)
		if (s.mkey)
			glue->dv_destroy_mkey(s.mkey);
	if (pool->mr)
		glue->dereg_mr(pool->mr);
	rte_free(pool->buf);
	rte_free(pool);
	vc->fill = NULL;
}

void mlx5_dma_fill_pool_reset(struct mlx5_dma_vchan *vc)
{
	if (!vc->fill)
		return;
	for (struct fill_slot &s : vc->fill->slot) {
		s.used = false;
		s.umr_posted = false;
	}
}

void mlx5_dma_fill_install(struct rte_dma_fp_object *fp, enum mlx5_dma_path path)
{
	if (path == MLX5_DMA_PATH_DIRECT)
		fp->fill = fill<MLX5_DMA_PATH_DIRECT>;
	else
		fp->fill = fill<MLX5_DMA_PATH_VERBS>;
}
