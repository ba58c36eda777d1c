/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The rte_dma fast-path entry points of dma_mlx5, for both posting paths:
 *  - direct: the PMD writes MMO WQEs into the SQ ring and rings the doorbell once per
 *    submit through the seam's hook; completions are read straight from the CQ ring;
 *  - verbs: the same WQE bytes through rdma-core's builders (mlx5dv_wr_memcpy between
 *    ibv_wr_start/ibv_wr_complete) and completions through ibv_start_poll, which keeps
 *    the provider's SQ accounting in step.
 * In both, only the last WQE of a submitted burst asks for a CQE: its CE bit is set at
 * submit time, before the doorbell, so one CQE retires the whole burst.
 */
#include <errno.h>
#include <string.h>

#include "mlx5_dma_fp.h"
#include "mlx5_dma_sdk.h"
#include "mlx5_dma_umr.h"

/*
 * Out of line with the signature as written: GCC's noipa also stops it from dropping
 * or reordering parameters, so a tail call into it moves no register. Clang has no
 * noipa (an unknown attribute is an error with -Werror); noinline is what it offers.
 */
#if defined(__clang__)
#define MLX5_DMA_NOIPA __attribute__((noinline))
#else
#define MLX5_DMA_NOIPA __attribute__((noipa))
#endif

/*
 * GCC's SLP vectorizer pairs two 8-byte stores of the WQE into one 16-byte store that
 * costs three instructions (movq, pinsrq, movups) instead of two movs.
 */
#if defined(__clang__)
#define MLX5_DMA_NO_SLP
#else
#define MLX5_DMA_NO_SLP __attribute__((optimize("no-tree-slp-vectorize")))
#endif

namespace {

/* Everything the fast path of a copy does not decide by itself: ring full, MR cache
 * miss or stale, bad length, address not registered. Its arguments are copy()'s, the
 * vchan in place of the device, so that copy()'s fall-back moves no register. copy()
 * took a credit before its checks (its sign is the ring-full test): given back first. */
template <enum mlx5_dma_path P>
MLX5_DMA_NOIPA int copy_slow(struct mlx5_dma_vchan *vc, uint16_t, rte_iova_t src, rte_iova_t dst,
			     uint32_t len, uint64_t flags)
{
	const struct mlx5_dma_mr_range *s, *d;
	int idx;

	vc->credits++;
	int admit = mlx5_dma_admit_op(vc);
	if (admit)
		return admit;
	if (len - 1 >= vc->max_len)
		return mlx5_dma_enqueue_trapped(vc, RTE_DMA_STATUS_INVALID_LENGTH, flags);
	s = mlx5_dma_mr_lookup(&vc->mr_cache, src, len);
	if (!s)
		return mlx5_dma_enqueue_trapped(vc, RTE_DMA_STATUS_INVALID_SRC_ADDR, flags);
	uint32_t skey = s->lkey, skey_be = s->lkey_be; /* a miss for dst may replace s */
	d = mlx5_dma_mr_lookup(&vc->mr_cache, dst, len);
	if (!d)
		return mlx5_dma_enqueue_trapped(vc, RTE_DMA_STATUS_INVALID_DST_ADDR, flags);
	if (d != &vc->mr_cache.e[0] && mlx5_dma_mr_in(d, src, len)) {
		/* both in one MR: make it the one the fast path checks */
		struct mlx5_dma_mr_range hot = *d;

		*(struct mlx5_dma_mr_range *)d = vc->mr_cache.e[0];
		vc->mr_cache.e[0] = hot;
		d = &vc->mr_cache.e[0];
	}
	vc->credits--;
	if (P == MLX5_DMA_PATH_DIRECT) {
		mlx5_dma_write_mmo(vc, vc->pi, src, skey_be, dst, d->lkey_be, len, flags);
		mlx5_dma_take_fence(vc, vc->pi); /* after a UMR op (mkey API) */
	} else {
		mlx5_dma_build_mmo(vc, src, skey, dst, d->lkey, len, flags);
	}
	idx = mlx5_dma_commit_op(vc, 1);
	if (flags & RTE_DMA_OP_FLAG_SUBMIT)
		mlx5_dma_submit_vchan(vc);
	return idx;
}

/*
 * The WQE and the slot of a one-key copy at producer counter @p pi: mlx5_dma_write_mmo()
 * with the ring and the vchan declared apart (restrict), so that the compiler may
 * interleave loads of the vchan with stores into the ring instead of holding them all.
 * No flag is looked at (copy_flags() applies them); @p len is below 2 GiB, whose
 * encoding (0) only the slow path writes.
 */
static __rte_always_inline void write_copy(uint8_t *__restrict wqe,
					   struct mlx5_dma_slot *__restrict slot,
					   const struct mlx5_dma_vchan *__restrict vc, uint32_t pi,
					   uint16_t idx, uint64_t src, uint64_t dst,
					   uint64_t key_seg, uint32_t len)
{
	uint64_t seg = rte_cpu_to_be_32(len) | key_seg;
	uint32_t fm_ce_se = 0; /* with signature and stream id: no fence, no CQE (submit's) */

	/* {idx, pi + 1} as one word: its two halves would be two stores */
	uint32_t slot_v = idx | (pi + 1) << 16;

	static_assert(sizeof(*slot) == sizeof(slot_v) &&
			      offsetof(struct mlx5_dma_slot, end_pi) == 2,
		      "slot layout");
	memcpy(slot, &slot_v, sizeof(slot_v));
	mlx5_dma_st64(wqe, vc->ctrl_head | (uint32_t)rte_cpu_to_be_16((uint16_t)pi) << 8);
	memcpy(wqe + 8, &fm_ce_se, sizeof(fm_ce_se));
	memcpy(wqe + 16, vc->mmo_meta, 16);
	mlx5_dma_st64(wqe + 32, seg);
	mlx5_dma_st64(wqe + 40, rte_cpu_to_be_64(src));
	mlx5_dma_st64(wqe + 48, seg);
	mlx5_dma_st64(wqe + 56, rte_cpu_to_be_64(dst));
}

/* The flags of a copy that has any (FENCE, SUBMIT), returning the copy's ring index: a
 * tail call of copy(), so that one test covers both and nothing of copy() stays live. */
__attribute__((noinline)) int copy_flags(struct mlx5_dma_vchan *vc, int idx, uint8_t *wqe,
					 uint64_t flags)
{
	if (flags & RTE_DMA_OP_FLAG_FENCE)
		wqe[offsetof(struct mlx5_wqe_ctrl_seg, fm_ce_se)] |= MLX5_WQE_CTRL_FENCE;
	if (flags & RTE_DMA_OP_FLAG_SUBMIT)
		mlx5_dma_submit_vchan(vc);
	return idx;
}

/*
 * The copy fast path. Every check is made before any state of the op is loaded, so that
 * the fall-back to copy_slow() is a tail call that moves no argument and the checks hold
 * few registers; the flags are a tail call too. The credit is taken first: the sign
 * of its decrement is the ring-full test (copy_slow() gives it back).
 */
template <enum mlx5_dma_path P>
MLX5_DMA_NO_SLP int copy(void *priv, uint16_t vchan, rte_iova_t src, rte_iova_t dst, uint32_t len,
			 uint64_t flags)
{
	struct mlx5_dma_vchan *vc = mlx5_dma_fp_vchan(priv, vchan);
	const struct mlx5_dma_mr_range *mr = &vc->mr_cache.e[0];

	if (unlikely((int32_t)--vc->credits < 0 || len - 1 >= vc->fp_max_len ||
		     mlx5_dma_mr_cache_stale(&vc->mr_cache) ||
		     !mlx5_dma_mr_hit2(&vc->mr_cache, src, dst, len)))
		return copy_slow<P>(vc, vchan, src, dst, len, flags);

	uint16_t idx = vc->ring_idx;
	uint32_t pi = vc->pi;

	if (P == MLX5_DMA_PATH_DIRECT) {
		uint32_t slot = pi & vc->sq_mask;
		uint8_t *wqe = vc->sq + ((size_t)slot << MLX5_SEND_WQE_SHIFT);

		/* the vchan's state first: the ring stores below may alias it */
		vc->pi = pi + 1;
		vc->ring_idx = idx + 1;
		write_copy(wqe, vc->slots + slot, vc, pi, idx, src, dst, mr->key_seg, len);
		if (unlikely(flags & (RTE_DMA_OP_FLAG_FENCE | RTE_DMA_OP_FLAG_SUBMIT)))
			return copy_flags(vc, idx, wqe, flags);
	} else {
		mlx5_dma_build_mmo(vc, src, mr->lkey, dst, mr->lkey, len, flags);
		mlx5_dma_commit_op(vc, 1);
		if (unlikely(flags & RTE_DMA_OP_FLAG_SUBMIT))
			return copy_flags(vc, idx, NULL, RTE_DMA_OP_FLAG_SUBMIT);
	}
	return idx;
}

int submit(void *priv, uint16_t vchan)
{
	mlx5_dma_submit_vchan(mlx5_dma_fp_vchan(priv, vchan));
	return 0;
}

/*
 * Hand over up to @p nb_cpls of the @p n ops completed and not reported yet: all
 * successful, else (an error CQE was seen) through the error path.
 */
__rte_always_inline uint16_t report_done(struct mlx5_dma_vchan *vc, uint16_t n, uint16_t nb_cpls,
					 uint16_t *last_idx, bool *has_error,
					 enum rte_dma_status_code *status)
{
	if (unlikely(vc->err_pending))
		return mlx5_dma_report_with_errors(vc, nb_cpls, last_idx, has_error, status);
	if (n > nb_cpls)
		n = nb_cpls;
	if (status)
		memset(status, 0, n * sizeof(*status)); /* RTE_DMA_STATUS_SUCCESSFUL */
	vc->reported += n;
	vc->stats.completed += n;
	*last_idx = vc->reported - 1;
	return n;
}

/* completed() and completed_status(): @p status NULL for the former. */
template <enum mlx5_dma_path P>
__rte_always_inline uint16_t report_poll(struct mlx5_dma_vchan *vc, uint16_t nb_cpls,
					 uint16_t *last_idx, bool *has_error,
					 enum rte_dma_status_code *status)
{
	uint16_t n = vc->done_upto - vc->reported;

	if (n < nb_cpls) {
		mlx5_dma_poll_cq<P>(vc);
		n = vc->done_upto - vc->reported;
		/* nothing comes while ops are out: now and then, ask the device why */
		if (unlikely(n == 0) && vc->submitted_idx != vc->done_upto &&
		    unlikely(++vc->idle_polls % MLX5_DMA_IDLE_CHECK == 0))
			mlx5_dma_idle_check(vc);
	}
	return report_done(vc, n, nb_cpls, last_idx, has_error, status);
}

/*
 * report_poll() out of line, behind the empty-poll check. Its arguments
 * are report()'s, the vchan in place of the device (the vchan id is unused), so that the
 * tail call from report() moves no register; noipa keeps that signature as written.
 */
template <enum mlx5_dma_path P>
MLX5_DMA_NOIPA uint16_t report_poll_cold(struct mlx5_dma_vchan *vc, uint16_t, uint16_t nb_cpls,
					 uint16_t *last_idx, bool *has_error,
					 enum rte_dma_status_code *status)
{
	return report_poll<P>(vc, nb_cpls, last_idx, has_error, status);
}

/*
 * The poll that finds nothing: every submitted op reported. reported <= done_upto <=
 * submitted_idx, so no op is done and unreported, and none failed that could be
 * reported (an unsubmitted op's status waits for its completion); the device writes
 * CQEs only for doorbelled WQEs, so none can be due. One compare, no CQE read;
 * everything else (ops outstanding: the CQ and the idle check) takes report_poll().
 */
template <enum mlx5_dma_path P>
__rte_always_inline uint16_t report(void *priv, uint16_t vchan, uint16_t nb_cpls,
				    uint16_t *last_idx, bool *has_error,
				    enum rte_dma_status_code *status)
{
	struct mlx5_dma_vchan *vc = mlx5_dma_fp_vchan(priv, vchan);

	if (vc->reported == vc->submitted_idx) {
		*last_idx = vc->reported - 1;
		return 0;
	}
	return report_poll_cold<P>(vc, vchan, nb_cpls, last_idx, has_error, status);
}

template <enum mlx5_dma_path P>
uint16_t completed(void *priv, uint16_t vchan, const uint16_t nb_cpls, uint16_t *last_idx,
		   bool *has_error)
{
	return report<P>(priv, vchan, nb_cpls, last_idx, has_error, NULL);
}

template <enum mlx5_dma_path P>
uint16_t completed_status(void *priv, uint16_t vchan, const uint16_t nb_cpls, uint16_t *last_idx,
			  enum rte_dma_status_code *status)
{
	return report<P>(priv, vchan, nb_cpls, last_idx, NULL, status);
}

uint16_t burst_capacity(const void *priv, uint16_t vchan)
{
	struct mlx5_dma_vchan *vc = mlx5_dma_fp_vchan(priv, vchan);
	uint16_t n = (uint16_t)mlx5_dma_refill_credits(vc);

	/* a UMR op left the small fence for the next WQE: keep that op on the slow path,
	 * which sets it (the inline copy does not look) */
	if (unlikely(vc->fm_pending))
		vc->credits = 0;
	return n;
}

/*
 * The entries of a stopped device (mlx5_dma_fp_set()). Ops are refused with -EPERM:
 * not -ENOSPC, which asks the caller to poll and retry, and would never clear. The
 * reporters hand out what the stop left (mlx5_dma_ops.cpp: ops completed before it,
 * then the others as USER_ABORT) without reading the CQ of a QP in RESET.
 */
int stopped_copy(void *, uint16_t, rte_iova_t, rte_iova_t, uint32_t, uint64_t)
{
	return -EPERM;
}

int stopped_copy_sg(void *, uint16_t, const struct rte_dma_sge *, const struct rte_dma_sge *,
		    uint16_t, uint16_t, uint64_t)
{
	return -EPERM;
}

int stopped_fill(void *, uint16_t, uint64_t, rte_iova_t, uint32_t, uint64_t)
{
	return -EPERM;
}

int stopped_submit(void *, uint16_t)
{
	return -EPERM;
}

uint16_t stopped_report(struct mlx5_dma_vchan *vc, uint16_t nb_cpls, uint16_t *last_idx,
			bool *has_error, enum rte_dma_status_code *status)
{
	return report_done(vc, vc->done_upto - vc->reported, nb_cpls, last_idx, has_error, status);
}

uint16_t stopped_completed(void *priv, uint16_t vchan, const uint16_t nb_cpls, uint16_t *last_idx,
			   bool *has_error)
{
	return stopped_report(mlx5_dma_fp_vchan(priv, vchan), nb_cpls, last_idx, has_error, NULL);
}

uint16_t stopped_completed_status(void *priv, uint16_t vchan, const uint16_t nb_cpls,
				  uint16_t *last_idx, enum rte_dma_status_code *status)
{
	return stopped_report(mlx5_dma_fp_vchan(priv, vchan), nb_cpls, last_idx, NULL, status);
}

uint16_t stopped_burst_capacity(const void *, uint16_t)
{
	return 0;
}

} // namespace

void mlx5_dma_fp_set(struct rte_dma_fp_object *fp, const struct mlx5_dma_dev *p, bool started)
{
	mlx5_dma_enq_deq_install(fp, p); /* on top of the entries below (25.11) */
	if (started) {
		mlx5_dma_fp_install(fp, p->args.path);
		mlx5_dma_sg_install(fp, p->args.path);
		if (p->has_mkey)
			mlx5_dma_fill_install(fp, p->args.path);
	} else {
		fp->copy = stopped_copy;
		fp->copy_sg = stopped_copy_sg;
		if (p->has_mkey)
			fp->fill = stopped_fill; /* without mkeys: DPDK's "not supported" */
		fp->submit = stopped_submit;
		fp->completed = stopped_completed;
		fp->completed_status = stopped_completed_status;
		fp->burst_capacity = stopped_burst_capacity;
	}
	/* vchans of a peer's domain (25.11) in front of both: their remote channels
	 * refuse ops themselves while the device is stopped */
	mlx5_dma_domain_install(fp, p);
}

void mlx5_dma_fp_install(struct rte_dma_fp_object *fp, enum mlx5_dma_path path)
{
	if (path == MLX5_DMA_PATH_DIRECT) {
		fp->copy = copy<MLX5_DMA_PATH_DIRECT>;
		fp->completed = completed<MLX5_DMA_PATH_DIRECT>;
		fp->completed_status = completed_status<MLX5_DMA_PATH_DIRECT>;
	} else {
		fp->copy = copy<MLX5_DMA_PATH_VERBS>;
		fp->completed = completed<MLX5_DMA_PATH_VERBS>;
		fp->completed_status = completed_status<MLX5_DMA_PATH_VERBS>;
	}
	fp->submit = submit;
	fp->burst_capacity = burst_capacity;
}
