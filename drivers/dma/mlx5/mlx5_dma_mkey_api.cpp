/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rte_pmd_dma_mlx5.h, indirect mkeys: created on a vchan, given layouts and
 * invalidated by UMR ops of that vchan, and used by copies (mkey + offset). The PMD
 * remembers, per mkey, the layout length the last enqueued layout op gave, so a copy
 * beyond it fails alone with a precise status instead of a device error, and the last
 * op that used the mkey, so it is never destroyed under the device.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <rte_malloc.h>

#include "mlx5_dma_fp.h"
#include "mlx5_dma_sdk.h"
#include "mlx5_dma_umr.h"
#include "rte_pmd_dma_mlx5.h"

struct rte_pmd_dma_mlx5_mkey {
	struct mlx5dv_mkey *mk;
	struct mlx5_dma_vchan *vc;
	struct rte_pmd_dma_mlx5_mkey *next; /* the vchan's list */
	uint64_t len;                       /* layout length; 0: none or invalidated */
	uint16_t max_entries;
	uint16_t last_idx; /* last op that configured or used it */
	bool used;
};

namespace {

/* The vchan, if @p mk (when given) is one of its mkeys. */
struct mlx5_dma_vchan *vchan_with(int16_t dev_id, uint16_t vchan,
				  const struct rte_pmd_dma_mlx5_mkey *mk)
{
	struct mlx5_dma_vchan *vc = mlx5_dma_api_vchan(dev_id, vchan);

	if (!vc || (mk && mk->vc != vc))
		return NULL;
	return vc;
}

/* Room for one op of @p nbb WQEBBs: 0, -EIO, -EPERM (device stopped) or -ENOSPC. */
int room(struct mlx5_dma_vchan *vc, uint32_t nbb)
{
	int ret = mlx5_dma_vchan_refusal(vc);

	if (ret)
		return ret;
	if ((uint16_t)(vc->ring_idx - vc->reported) >= vc->max_ops || !mlx5_dma_sq_fits(vc, nbb))
		return -ENOSPC;
	return 0;
}

/* After the WQEs of an op: commit, note the mkey's use, maybe ring the doorbell. */
int finish(struct mlx5_dma_vchan *vc, struct rte_pmd_dma_mlx5_mkey *mk, uint32_t nbb,
	   uint64_t flags)
{
	int idx;

	vc->credits = 0; /* re-checked (and a pending small fence taken) at the next op */
	if (mk) {
		mk->last_idx = vc->ring_idx;
		mk->used = true;
	}
	idx = mlx5_dma_commit_op(vc, nbb);
	if (flags & RTE_DMA_OP_FLAG_SUBMIT)
		mlx5_dma_submit_vchan(vc);
	return idx;
}

int bad(const struct mlx5_dma_vchan *vc, const char *what, uint64_t value)
{
	MLX5_DMA_LOG(ERR, "%s vchan %u: %s %" PRIu64, vc->dev->name, vc->vchan_id, what, value);
	return -EINVAL;
}

/* Key and address of one side of a copy; 0 or the status the op ends with. */
enum rte_dma_status_code side(struct mlx5_dma_vchan *vc, const struct rte_pmd_dma_mlx5_addr *a,
			      uint32_t len, uint32_t *key, enum rte_dma_status_code bad_addr)
{
	if (a->mkey) {
		if (a->addr > a->mkey->len || len > a->mkey->len - a->addr)
			return bad_addr;
		*key = a->mkey->mk->lkey;
		return RTE_DMA_STATUS_SUCCESSFUL;
	}
	const struct mlx5_dma_mr_range *r = mlx5_dma_mr_lookup(&vc->mr_cache, a->addr, len);

	if (!r)
		return bad_addr;
	*key = r->lkey;
	return RTE_DMA_STATUS_SUCCESSFUL;
}

} // namespace

void mlx5_dma_mkey_api_release(struct mlx5_dma_vchan *vc)
{
	while (vc->user_mkeys) {
		struct rte_pmd_dma_mlx5_mkey *mk = vc->user_mkeys;

		vc->user_mkeys = mk->next;
		vc->dev->glue->dv_destroy_mkey(mk->mk);
		rte_free(mk);
	}
}

void mlx5_dma_mkey_api_reset(struct mlx5_dma_vchan *vc)
{
	for (struct rte_pmd_dma_mlx5_mkey *mk = vc->user_mkeys; mk; mk = mk->next)
		mk->used = false;
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_mkey_limits(int16_t dev_id, uint16_t vchan,
						 struct rte_pmd_dma_mlx5_mkey_limits *lim)
{
	struct mlx5_dma_vchan *vc = vchan_with(dev_id, vchan, NULL);

	if (!vc || !lim)
		return -EINVAL;
	if (!vc->dev->has_mkey)
		return -ENOTSUP;
	lim->max_list_entries = vc->umr_max_list;
	lim->max_interleaved_entries = vc->umr_max_interleaved;
	lim->max_copy_len = vc->max_len;
	return 0;
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_mkey_create(int16_t dev_id, uint16_t vchan,
						 uint16_t max_entries,
						 struct rte_pmd_dma_mlx5_mkey **mkey)
{
	struct mlx5_dma_vchan *vc = vchan_with(dev_id, vchan, NULL);
	struct mlx5dv_mkey_init_attr attr = {};
	struct rte_pmd_dma_mlx5_mkey *mk;

	if (!vc || !mkey)
		return -EINVAL;
	if (!vc->dev->has_mkey)
		return -ENOTSUP;
	if (max_entries == 0 || max_entries > vc->umr_max_list)
		return bad(vc, "mkey with max_entries", max_entries);
	mk = (struct rte_pmd_dma_mlx5_mkey *)rte_zmalloc(NULL, sizeof(*mk), 0);
	if (!mk)
		return -ENOMEM;
	attr.pd = vc->dev->pd;
	attr.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT;
	attr.max_entries = max_entries + 1; /* room for a repeat-block header */
	mk->mk = vc->dev->glue->dv_create_mkey(&attr);
	if (!mk->mk) {
		int ret = mlx5_dma_neg_errno(ENOMEM);

		MLX5_DMA_LOG(ERR, "%s vchan %u: mkey of %u entries: %s", vc->dev->name,
			     vc->vchan_id, max_entries, strerror(-ret));
		rte_free(mk);
		return ret;
	}
	mk->vc = vc;
	mk->max_entries = max_entries;
	mk->next = vc->user_mkeys;
	vc->user_mkeys = mk;
	*mkey = mk;
	return 0;
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_mkey_destroy(int16_t dev_id, uint16_t vchan,
						  struct rte_pmd_dma_mlx5_mkey *mkey)
{
	struct mlx5_dma_vchan *vc = mkey ? vchan_with(dev_id, vchan, mkey) : NULL;
	struct rte_pmd_dma_mlx5_mkey **pp;

	if (!vc)
		return -EINVAL;
	if (mkey->used && !mlx5_dma_op_done(vc, mkey->last_idx))
		return -EBUSY;
	for (pp = &vc->user_mkeys; *pp && *pp != mkey; pp = &(*pp)->next)
		;
	if (!*pp)
		return -EINVAL;
	*pp = mkey->next;
	vc->dev->glue->dv_destroy_mkey(mkey->mk);
	rte_free(mkey);
	return 0;
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_mkey_set_list(int16_t dev_id, uint16_t vchan,
						   struct rte_pmd_dma_mlx5_mkey *mkey,
						   const struct rte_dma_sge *sge, uint16_t nb_sge,
						   uint64_t flags)
{
	struct mlx5_dma_vchan *vc = mkey ? vchan_with(dev_id, vchan, mkey) : NULL;
	struct mlx5_dma_xlat x[MLX5_DMA_UMR_MAX_XLAT];
	uint64_t total = 0;
	uint32_t nbb;
	int ret;

	if (!vc || !sge)
		return -EINVAL;
	if (nb_sge == 0 || nb_sge > RTE_MIN(mkey->max_entries, vc->umr_max_list))
		return bad(vc, "list layout of entries:", nb_sge);
	nbb = mlx5_dma_umr_list_wqebbs(nb_sge);
	ret = room(vc, nbb);
	if (ret)
		return ret;
	mlx5_dma_mr_cache_check(&vc->mr_cache);
	for (uint16_t i = 0; i < nb_sge; i++) {
		const struct mlx5_dma_mr_range *r =
			sge[i].length
				? mlx5_dma_mr_lookup(&vc->mr_cache, sge[i].addr, sge[i].length)
				: NULL;

		if (!r)
			return bad(vc, "list entry not registered (or empty) at", sge[i].addr);
		x[i] = {sge[i].addr, sge[i].length, r->lkey, 0};
		total += sge[i].length;
	}
	mlx5_dma_umr_post(vc, vc->pi, mkey->mk, x, nb_sge, 0, vc->pi, nbb, flags);
	mkey->len = total;
	return finish(vc, mkey, nbb, flags);
}

MLX5_DMA_EXPORT int
rte_pmd_dma_mlx5_mkey_set_interleaved(int16_t dev_id, uint16_t vchan,
				      struct rte_pmd_dma_mlx5_mkey *mkey,
				      const struct rte_pmd_dma_mlx5_interleaved *ent,
				      uint16_t nb_ent, uint32_t repeat, uint64_t flags)
{
	struct mlx5_dma_vchan *vc = mkey ? vchan_with(dev_id, vchan, mkey) : NULL;
	struct mlx5_dma_xlat x[MLX5_DMA_UMR_MAX_XLAT];
	uint64_t per_rep = 0;
	uint32_t nbb;
	int ret;

	if (!vc || !ent)
		return -EINVAL;
	if (nb_ent == 0 || nb_ent > RTE_MIN(mkey->max_entries, vc->umr_max_interleaved))
		return bad(vc, "interleaved layout of entries:", nb_ent);
	if (repeat == 0)
		return bad(vc, "interleaved layout repeated", repeat);
	nbb = mlx5_dma_umr_interleaved_wqebbs(nb_ent);
	ret = room(vc, nbb);
	if (ret)
		return ret;
	mlx5_dma_mr_cache_check(&vc->mr_cache);
	for (uint16_t i = 0; i < nb_ent; i++) {
		/* every repetition's bytes must lie in one MR */
		uint64_t span = (uint64_t)ent[i].stride * (repeat - 1) + ent[i].bytes_count;
		const struct mlx5_dma_mr_range *r =
			ent[i].bytes_count && span <= UINT32_MAX
				? mlx5_dma_mr_lookup(&vc->mr_cache, ent[i].addr, (uint32_t)span)
				: NULL;

		if (!r)
			return bad(vc, "interleaved entry not registered (or empty) at",
				   ent[i].addr);
		x[i] = {ent[i].addr, ent[i].bytes_count, r->lkey, ent[i].stride};
		per_rep += ent[i].bytes_count;
	}
	mlx5_dma_umr_post(vc, vc->pi, mkey->mk, x, nb_ent, repeat, vc->pi, nbb, flags);
	mkey->len = per_rep * repeat;
	return finish(vc, mkey, nbb, flags);
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_mkey_invalidate(int16_t dev_id, uint16_t vchan,
						     struct rte_pmd_dma_mlx5_mkey *mkey,
						     uint64_t flags)
{
	struct mlx5_dma_vchan *vc = mkey ? vchan_with(dev_id, vchan, mkey) : NULL;
	int ret;

	if (!vc)
		return -EINVAL;
	ret = room(vc, MLX5_DMA_UMR_INV_WQEBBS);
	if (ret)
		return ret;
	mlx5_dma_umr_invalidate(vc, vc->pi, mkey->mk, vc->pi, MLX5_DMA_UMR_INV_WQEBBS, flags);
	mkey->len = 0;
	return finish(vc, mkey, MLX5_DMA_UMR_INV_WQEBBS, flags);
}

MLX5_DMA_EXPORT int rte_pmd_dma_mlx5_copy(int16_t dev_id, uint16_t vchan,
					  const struct rte_pmd_dma_mlx5_addr *src,
					  const struct rte_pmd_dma_mlx5_addr *dst, uint32_t len,
					  uint64_t flags)
{
	struct mlx5_dma_vchan *vc = mlx5_dma_api_vchan(dev_id, vchan);
	enum rte_dma_status_code st = RTE_DMA_STATUS_SUCCESSFUL;
	uint32_t skey = 0, dkey = 0;
	int ret;

	if (!vc || !src || !dst || (src->mkey && src->mkey->vc != vc) ||
	    (dst->mkey && dst->mkey->vc != vc))
		return -EINVAL;
	ret = room(vc, 1);
	if (ret)
		return ret;
	if (vc->credits == 0 && mlx5_dma_refill_credits(vc) == 0)
		return -ENOSPC;
	mlx5_dma_mr_cache_check(&vc->mr_cache);
	if (len - 1 >= vc->max_len)
		st = RTE_DMA_STATUS_INVALID_LENGTH;
	if (st == RTE_DMA_STATUS_SUCCESSFUL)
		st = side(vc, src, len, &skey, RTE_DMA_STATUS_INVALID_SRC_ADDR);
	if (st == RTE_DMA_STATUS_SUCCESSFUL)
		st = side(vc, dst, len, &dkey, RTE_DMA_STATUS_INVALID_DST_ADDR);
	if (st != RTE_DMA_STATUS_SUCCESSFUL) {
		ret = mlx5_dma_enqueue_trapped(vc, st, flags);
		vc->credits = 0;
		return ret;
	}
	if (vc->path == MLX5_DMA_PATH_DIRECT) {
		mlx5_dma_write_mmo(vc, vc->pi, src->addr, rte_cpu_to_be_32(skey), dst->addr,
				   rte_cpu_to_be_32(dkey), len, flags);
		mlx5_dma_take_fence(vc, vc->pi);
	} else {
		mlx5_dma_build_mmo(vc, src->addr, skey, dst->addr, dkey, len, flags);
	}
	if (src->mkey) {
		src->mkey->last_idx = vc->ring_idx;
		src->mkey->used = true;
	}
	return finish(vc, dst->mkey, 1, flags);
}
