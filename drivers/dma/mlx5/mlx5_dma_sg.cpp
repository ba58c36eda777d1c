/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_dma_copy_sg of dma_mlx5: one op, one ring index, one status, carried by a chain
 * of memcpy MMO WQEs, one per piece between the merged segment boundaries of both
 * sides (src [100, 50] and dst [70, 80] give 70, 30 and 50 bytes). The op's FENCE
 * goes on the first WQE; the last one is the op's end, which the burst's CQE (or an
 * error CQE on any of its WQEs) names through the slot table, so completion
 * accounting and recovery treat the chain as the one op it is.
 */
#include <inttypes.h>
#include <string.h>

#include <rte_malloc.h>

#include "mlx5_dma_fp.h"
#include "mlx5_dma_sdk.h"
#include "mlx5_dma_umr.h"

/* list mkeys of a vchan: ops in flight on the UMR path */
#define MLX5_DMA_SG_MKEYS 16

namespace {

struct sg_mkey {
	struct mlx5dv_mkey *mkey;
	uint16_t last_idx; /* last op that used it */
	bool used;
};

} // namespace

/*
 * The UMR path, on vchans whose UMR WQEs carry more than 2 list entries
 * (umr_entries=): a list mkey per side with several segments, then one MMO.
 */
struct mlx5_dma_sg_pool {
	struct sg_mkey m[MLX5_DMA_SG_MKEYS];
};

namespace {

/* A list mkey no op in flight uses, else NULL; @p skip: one already taken. */
struct sg_mkey *free_mkey(struct mlx5_dma_vchan *vc, const struct sg_mkey *skip)
{
	for (struct sg_mkey &k : vc->sg->m)
		if (&k != skip && (!k.used || mlx5_dma_op_done(vc, k.last_idx)))
			return &k;
	return NULL;
}

/* Keys of one side's segments, looked up before the first WQE is written. */
struct sg_keys {
	uint32_t key[MLX5_DMA_MAX_SGES];    /**< host order (verbs path) */
	uint32_t key_be[MLX5_DMA_MAX_SGES]; /**< WQE byte order (direct path) */
};

/* Look up every segment of one side; 0, or the status the op must end with. */
enum rte_dma_status_code lookup_side(struct mlx5_dma_vchan *vc, const struct rte_dma_sge *sge,
				     uint16_t n, struct sg_keys *k,
				     enum rte_dma_status_code bad_addr)
{
	for (uint16_t i = 0; i < n; i++) {
		const struct mlx5_dma_mr_range *r;

		if (sge[i].length == 0)
			continue; /* contributes no piece */
		if (sge[i].length > vc->max_len)
			return RTE_DMA_STATUS_INVALID_LENGTH;
		r = mlx5_dma_mr_lookup(&vc->mr_cache, sge[i].addr, sge[i].length);
		if (!r)
			return bad_addr;
		/* copied out at once: the next miss may replace the cache entry */
		k->key[i] = r->lkey;
		k->key_be[i] = r->lkey_be;
	}
	return RTE_DMA_STATUS_SUCCESSFUL;
}

/*
 * Walks the pieces of a copy_sg: from the current offsets of both sides to the nearer
 * segment end, skipping empty segments. The caller stops after the total length.
 */
struct piece_iter {
	const struct rte_dma_sge *src, *dst;
	uint16_t i = 0, j = 0;         /* current segments */
	uint32_t s_off = 0, d_off = 0; /* offsets inside them */

	piece_iter(const struct rte_dma_sge *s, const struct rte_dma_sge *d) : src(s), dst(d) {}
	uint32_t next(void)
	{
		while (src[i].length == s_off) {
			i++;
			s_off = 0;
		}
		while (dst[j].length == d_off) {
			j++;
			d_off = 0;
		}
		return RTE_MIN(src[i].length - s_off, dst[j].length - d_off);
	}
	void advance(uint32_t len)
	{
		s_off += len;
		d_off += len;
	}
};

/* Number of MMO WQEs of the merged boundaries of both sides (equal totals). */
uint32_t count_pieces(const struct rte_dma_sge *src, const struct rte_dma_sge *dst, uint64_t total)
{
	piece_iter it(src, dst);
	uint32_t n = 0;

	for (uint64_t done = 0; done < total; n++) {
		uint32_t len = it.next();

		it.advance(len);
		done += len;
	}
	return n;
}

/* Reject what the API contract forbids; one log line, -EINVAL. */
int check_args(const struct mlx5_dma_vchan *vc, const struct rte_dma_sge *src,
	       const struct rte_dma_sge *dst, uint16_t nb_src, uint16_t nb_dst, uint64_t *total)
{
	uint16_t max = vc->dev->max_sges;
	uint64_t s = 0, d = 0;

	if (!src || !dst || nb_src == 0 || nb_dst == 0 || nb_src > max || nb_dst > max) {
		MLX5_DMA_LOG(ERR, "%s vchan %u: copy_sg with nb_src %u nb_dst %u (1..%u each)",
			     vc->dev->name, vc->vchan_id, nb_src, nb_dst, max);
		return -EINVAL;
	}
	for (uint16_t i = 0; i < nb_src; i++)
		s += src[i].length;
	for (uint16_t i = 0; i < nb_dst; i++)
		d += dst[i].length;
	if (s != d) {
		MLX5_DMA_LOG(ERR,
			     "%s vchan %u: copy_sg of %" PRIu64 " source bytes into %" PRIu64
			     " destination bytes",
			     vc->dev->name, vc->vchan_id, s, d);
		return -EINVAL;
	}
	*total = s;
	return 0;
}

/* Non-empty segments of one side as translation entries; their count. */
uint16_t side_xlat(const struct rte_dma_sge *sge, uint16_t n, const struct sg_keys *k,
		   struct mlx5_dma_xlat *x)
{
	uint16_t m = 0;

	for (uint16_t i = 0; i < n; i++)
		if (sge[i].length)
			x[m++] = {sge[i].addr, sge[i].length, k->key[i], 0};
	return m;
}

/*
 * The UMR path when it takes fewer WQEBBs than the chain of @p chain_nbb: a UMR list
 * per side with several segments, then one MMO through the mkeys (small fence after
 * the UMRs). @return the ring index, -ENOSPC, or -EAGAIN: take the chain.
 */
template <enum mlx5_dma_path P>
int try_umr(struct mlx5_dma_vchan *vc, const struct rte_dma_sge *src, const struct rte_dma_sge *dst,
	    uint16_t nb_src, uint16_t nb_dst, const struct sg_keys *sk, const struct sg_keys *dk,
	    uint64_t total, uint32_t chain_nbb, uint64_t flags)
{
	struct mlx5_dma_xlat xs[MLX5_DMA_MAX_SGES], xd[MLX5_DMA_MAX_SGES];
	uint16_t ns = 0, nd = 0;
	uint32_t nbb = 1;
	struct sg_mkey *ks = NULL, *kd = NULL;

	for (uint16_t i = 0; i < nb_src; i++)
		ns += src[i].length != 0;
	for (uint16_t i = 0; i < nb_dst; i++)
		nd += dst[i].length != 0;
	if (ns > vc->umr_max_list || nd > vc->umr_max_list)
		return -EAGAIN;
	nbb += ns > 1 ? mlx5_dma_umr_list_wqebbs(ns) : 0;
	nbb += nd > 1 ? mlx5_dma_umr_list_wqebbs(nd) : 0;
	/* the rule: fewer WQEBBs (see the guide for the instructions each path costs) */
	if (nbb >= chain_nbb)
		return -EAGAIN;
	side_xlat(src, nb_src, sk, xs);
	side_xlat(dst, nb_dst, dk, xd);
	if ((ns > 1 && !(ks = free_mkey(vc, NULL))) || (nd > 1 && !(kd = free_mkey(vc, ks))))
		return -EAGAIN; /* every list mkey in flight: the chain still works */
	if (!mlx5_dma_sq_fits(vc, nbb))
		return -ENOSPC;
	vc->credits = 0;
	uint32_t start = vc->pi, pi = start;
	uint64_t wflags = flags & RTE_DMA_OP_FLAG_FENCE; /* the first WQE only */
	uint64_t saddr = xs[0].addr, daddr = xd[0].addr;
	uint32_t skey = xs[0].lkey, dkey = xd[0].lkey;

	if (ks) {
		pi += mlx5_dma_umr_post(vc, pi, ks->mkey, xs, ns, 0, start, nbb, wflags);
		wflags = 0;
		saddr = 0;
		skey = ks->mkey->lkey;
		ks->last_idx = vc->ring_idx;
		ks->used = true;
	}
	if (kd) {
		pi += mlx5_dma_umr_post(vc, pi, kd->mkey, xd, nd, 0, start, nbb, wflags);
		wflags = 0;
		daddr = 0;
		dkey = kd->mkey->lkey;
		kd->last_idx = vc->ring_idx;
		kd->used = true;
	}
	if (P == MLX5_DMA_PATH_DIRECT) {
		mlx5_dma_write_mmo(vc, pi, saddr, rte_cpu_to_be_32(skey), daddr,
				   rte_cpu_to_be_32(dkey), (uint32_t)total, wflags);
		mlx5_dma_take_fence(vc, pi);
	} else {
		vc->qpx->wr_id = mlx5_dma_wr_id(vc->ring_idx, start, nbb);
		vc->qpx->wr_flags = wflags ? IBV_SEND_FENCE : 0;
		mlx5dv_wr_memcpy(vc->dvqp, dkey, daddr, skey, saddr, (uint32_t)total);
	}
	int idx = mlx5_dma_commit_op(vc, nbb);

	if (flags & RTE_DMA_OP_FLAG_SUBMIT)
		mlx5_dma_submit_vchan(vc);
	return idx;
}

template <enum mlx5_dma_path P>
int copy_sg(void *priv, uint16_t vchan, const struct rte_dma_sge *src,
	    const struct rte_dma_sge *dst, uint16_t nb_src, uint16_t nb_dst, uint64_t flags)
{
	struct mlx5_dma_vchan *vc = mlx5_dma_fp_vchan(priv, vchan);
	enum rte_dma_status_code st;
	struct sg_keys sk, dk;
	uint64_t total;
	uint32_t nbb, start;
	int ret;

	ret = check_args(vc, src, dst, nb_src, nb_dst, &total);
	if (ret)
		return ret;
	int admit = mlx5_dma_admit_op(vc);
	if (admit)
		return admit;
	if (total == 0)
		return mlx5_dma_enqueue_trapped(vc, RTE_DMA_STATUS_INVALID_LENGTH, flags);
	st = lookup_side(vc, src, nb_src, &sk, RTE_DMA_STATUS_INVALID_SRC_ADDR);
	if (st == RTE_DMA_STATUS_SUCCESSFUL)
		st = lookup_side(vc, dst, nb_dst, &dk, RTE_DMA_STATUS_INVALID_DST_ADDR);
	if (st != RTE_DMA_STATUS_SUCCESSFUL)
		return mlx5_dma_enqueue_trapped(vc, st, flags);
	nbb = count_pieces(src, dst, total);
	if (vc->sg && total <= vc->max_len) {
		ret = try_umr<P>(vc, src, dst, nb_src, nb_dst, &sk, &dk, total, nbb, flags);
		if (ret != -EAGAIN)
			return ret;
	}
	if (!mlx5_dma_sq_fits(vc, nbb))
		return -ENOSPC;
	vc->credits = 0; /* several WQEBBs: re-checked at the next enqueue */
	start = vc->pi;

	piece_iter it(src, dst);
	uint64_t wflags = flags & RTE_DMA_OP_FLAG_FENCE; /* the first WQE only */

	for (uint32_t w = 0; w < nbb; w++) {
		uint32_t len = it.next();
		uint64_t s = src[it.i].addr + it.s_off, d = dst[it.j].addr + it.d_off;

		if (P == MLX5_DMA_PATH_DIRECT) {
			mlx5_dma_write_mmo(vc, start + w, s, sk.key_be[it.i], d, dk.key_be[it.j],
					   len, wflags);
			if (w == 0)
				mlx5_dma_take_fence(vc, start); /* after a UMR op (mkey API) */
		} else {
			if (!vc->batch_open) {
				ibv_wr_start(vc->qpx);
				vc->batch_open = true;
			}
			/* every WQE of the chain names the whole op (error CQEs) */
			vc->qpx->wr_id = mlx5_dma_wr_id(vc->ring_idx, start, nbb);
			vc->qpx->wr_flags = wflags ? IBV_SEND_FENCE : 0;
			mlx5dv_wr_memcpy(vc->dvqp, dk.key[it.j], d, sk.key[it.i], s, len);
		}
		wflags = 0;
		it.advance(len);
	}
	ret = mlx5_dma_commit_op(vc, nbb);
	if (flags & RTE_DMA_OP_FLAG_SUBMIT)
		mlx5_dma_submit_vchan(vc);
	return ret;
}

} // namespace

uint16_t mlx5_dma_sg_max_sges(uint32_t min_desc)
{
	/* nb_src + nb_dst - 1 WQEBBs must fit the smallest SQ (pow2 >= min_desc) */
	return (uint16_t)RTE_MIN((uint32_t)MLX5_DMA_MAX_SGES, rte_align32pow2(min_desc) / 2);
}

void mlx5_dma_sg_install(struct rte_dma_fp_object *fp, enum mlx5_dma_path path)
{
	if (path == MLX5_DMA_PATH_DIRECT)
		fp->copy_sg = copy_sg<MLX5_DMA_PATH_DIRECT>;
	else
		fp->copy_sg = copy_sg<MLX5_DMA_PATH_VERBS>;
}

int mlx5_dma_sg_pool_create(struct mlx5_dma_vchan *vc)
{
	struct mlx5_dma_dev *p = vc->dev;

	if (vc->umr_max_list <= 2)
		return 0; /* 2 entries: a chain of at most 3 WQEs is always cheaper */
	vc->sg = (struct mlx5_dma_sg_pool *)rte_zmalloc(NULL, sizeof(*vc->sg), 0);
	if (!vc->sg)
		return -ENOMEM;
	for (struct sg_mkey &k : vc->sg->m) {
		struct mlx5dv_mkey_init_attr attr = {};

		attr.pd = p->pd;
		attr.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT;
		attr.max_entries = vc->umr_max_list;
		k.mkey = p->glue->dv_create_mkey(&attr);
		if (!k.mkey) {
			MLX5_DMA_LOG(ERR, "%s vchan %u: copy_sg mkey: %s", p->name, vc->vchan_id,
				     strerror(errno));
			return mlx5_dma_neg_errno(ENOMEM);
		}
	}
	return 0;
}

void mlx5_dma_sg_pool_destroy(struct mlx5_dma_vchan *vc)
{
	if (!vc->sg)
		return;
	for (struct sg_mkey &k : vc->sg->m)
		if (k.mkey)
			vc->dev->glue->dv_destroy_mkey(k.mkey);
	rte_free(vc->sg);
	vc->sg = NULL;
}

void mlx5_dma_sg_pool_reset(struct mlx5_dma_vchan *vc)
{
	if (vc->sg)
		for (struct sg_mkey &k : vc->sg->m)
			k.used = false;
}
