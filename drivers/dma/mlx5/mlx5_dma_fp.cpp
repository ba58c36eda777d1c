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

/* clang says whether a sanitizer is on with __has_feature(), gcc with __SANITIZE_*__ */
#ifdef __has_feature
#define MLX5_DMA_HAS_FEATURE(x) __has_feature(x)
#else
#define MLX5_DMA_HAS_FEATURE(x) 0
#endif

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

/*
 * The keys a copy names (mlx5_dma_fp_install()): those of the MR cache, found and
 * range-checked per op; or, with sva=1, the one key of the implicit on-demand MR,
 * named as it is: the device resolves every page itself and ends an op on an address
 * that is not mapped with an error CQE (mlx5_dma_status_of_syndrome()).
 */
enum copy_keys {
	KEYS_CHECKED,
	KEYS_WHOLE,
};

/* Everything the fast path of a copy does not decide by itself: ring full, MR cache
 * miss or stale, bad length, address not registered. Its arguments are copy()'s, the
 * vchan in place of the device and 0 in place of the vchan id (unused: copy() may
 * reuse its register), so that copy()'s fall-back moves no other register. copy()
 * took a credit before its checks (its sign is the ring-full test): given back first. */
template <enum mlx5_dma_path P, enum copy_keys K>
MLX5_DMA_NOIPA int copy_slow(struct mlx5_dma_vchan *vc, uint16_t, rte_iova_t src, rte_iova_t dst,
			     uint32_t len, uint64_t flags)
{
	uint32_t skey, skey_be, dkey, dkey_be;
	int idx;

	vc->credits++;
	int admit = mlx5_dma_admit_op(vc);
	if (admit)
		return admit;
	if (len - 1 >= vc->max_len)
		return mlx5_dma_enqueue_trapped(vc, RTE_DMA_STATUS_INVALID_LENGTH, flags);
	if (K == KEYS_WHOLE) {
		skey = dkey = vc->whole_lkey;
		skey_be = dkey_be = (uint32_t)(vc->whole_key_seg >> 32);
	} else {
		const struct mlx5_dma_mr_range *s, *d;

		s = mlx5_dma_mr_lookup(&vc->mr_cache, src, len);
		if (!s)
			return mlx5_dma_enqueue_trapped(vc, RTE_DMA_STATUS_INVALID_SRC_ADDR, flags);
		skey = s->lkey; /* a miss for dst may replace s */
		skey_be = s->lkey_be;
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
		dkey = d->lkey;
		dkey_be = d->lkey_be;
	}
	vc->credits--;
	if (P == MLX5_DMA_PATH_DIRECT) {
		mlx5_dma_write_mmo(vc, vc->pi, src, skey_be, dst, dkey_be, len, flags);
		mlx5_dma_take_fence(vc, vc->pi); /* after a UMR op (mkey API) */
	} else {
		mlx5_dma_build_mmo(vc, src, skey, dst, dkey, len, flags);
	}
	idx = mlx5_dma_commit_op(vc, 1);
	if (flags & RTE_DMA_OP_FLAG_SUBMIT)
		mlx5_dma_submit_vchan(vc);
	return idx;
}

/*
 * The WQE and the slot of a one-key copy (direct path), at the producer counter, which
 * it advances with the ring index: mlx5_dma_write_mmo() and mlx5_dma_commit_op() for
 * one WQEBB, where bytes 0..31 are the vchan's template (two 16-byte stores) and
 * then the WQE index. No flag is looked at (copy_flags() applies them); @p len is
 * below 2 GiB, whose encoding (0) only the slow path writes. Returns the WQE, and
 * the op's ring index in *@p idx (zero-extended: copy()'s return value as it is).
 */
static __rte_always_inline uint8_t *write_copy(struct mlx5_dma_vchan *vc, uint64_t src,
					       uint64_t dst, uint32_t len, const uint64_t *key_seg,
					       int *idx)
{
	uint8_t *wqe;
	/* sanitizer builds take the C version: ASan and TSan see no store made in assembly,
	 * and the C version gets compiled and tested there */
#if defined(RTE_ARCH_X86_64) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) && \
	!MLX5_DMA_HAS_FEATURE(address_sanitizer) && !MLX5_DMA_HAS_FEATURE(thread_sanitizer)
	/*
	 * The same in assembly: from C, GCC holds the arguments in other registers than
	 * the ABI's (copy_slow() needs them there) and moves them, and recomputes what it
	 * has, about 7 of the 35 instructions (devtools/fastpath-icount.sh counts them).
	 * Bytes 1..2 of the template are 0: the WQE index is stored over them.
	 */
	uint32_t op, pi;
	/* in registers that hold no argument: any other would first have to move one */
	register uint64_t slots asm("r10");
	register uint8_t *wqe_r asm("r11");
	register uint32_t len8 asm("r8") = len;

	asm volatile("movl %c[o_pi](%[vc]), %k[pi]\n\t"
		     "movzwl %c[o_ri](%[vc]), %k[op]\n\t"
		     "addw $1, %c[o_ri](%[vc])\n\t"
		     "movl %k[pi], %k[wqe]\n\t"
		     "andl %c[o_mask](%[vc]), %k[wqe]\n\t"
		     "movq %c[o_slots](%[vc]), %[slots]\n\t"
		     "movw %w[op], (%[slots],%[wqe],4)\n\t"
		     "addl $1, %k[pi]\n\t"
		     "movw %w[pi], 2(%[slots],%[wqe],4)\n\t"
		     "movl %k[pi], %c[o_pi](%[vc])\n\t"
		     "shlq $6, %[wqe]\n\t"
		     "addq %c[o_sq](%[vc]), %[wqe]\n\t"
		     "bswapq %[src]\n\t"
		     "movq %[src], 40(%[wqe])\n\t"
		     "bswapq %[dst]\n\t"
		     "movq %[dst], 56(%[wqe])\n\t"
		     "bswapl %k[len]\n\t"
		     "orq %[key], %q[len]\n\t"
		     "movq %q[len], 32(%[wqe])\n\t"
		     "movq %q[len], 48(%[wqe])\n\t"
		     "movdqu %c[o_head](%[vc]), %%xmm0\n\t"
		     "movups %%xmm0, (%[wqe])\n\t"
		     "movdqu %c[o_head]+16(%[vc]), %%xmm1\n\t"
		     "movups %%xmm1, 16(%[wqe])\n\t"
		     "subl $1, %k[pi]\n\t"
		     "rolw $8, %w[pi]\n\t"
		     "movw %w[pi], 1(%[wqe])"
		     /* pi in rsi: the vchan id, spent (copy_slow() is passed 0) */
		     : [op] "=&a"(op), [wqe] "=&r"(wqe_r), [pi] "=&S"(pi), [slots] "=&r"(slots),
		       /* the arguments where the ABI puts them (swapped in place) */
		       [src] "+d"(src), [dst] "+c"(dst), [len] "+r"(len8)
		     : [vc] "r"(vc), [key] "m"(*key_seg),
		       [o_pi] "i"(offsetof(struct mlx5_dma_vchan, pi)),
		       [o_ri] "i"(offsetof(struct mlx5_dma_vchan, ring_idx)),
		       [o_mask] "i"(offsetof(struct mlx5_dma_vchan, sq_mask)),
		       [o_slots] "i"(offsetof(struct mlx5_dma_vchan, slots)),
		       [o_sq] "i"(offsetof(struct mlx5_dma_vchan, sq)),
		       [o_head] "i"(offsetof(struct mlx5_dma_vchan, mmo_head))
		     : "xmm0", "xmm1", "cc", "memory");
	*idx = (int)op;
	wqe = wqe_r;
#else
	uint32_t pi = vc->pi;
	uint32_t slot = pi & vc->sq_mask;
	uint64_t seg = rte_cpu_to_be_32(len) | *key_seg;
	uint16_t wqe_idx = rte_cpu_to_be_16((uint16_t)pi);

	*idx = vc->ring_idx;
	vc->ring_idx = (uint16_t)(*idx + 1);
	vc->pi = pi + 1;
	/* slot {idx, pi + 1}: two stores cost less than or-ing the halves */
	vc->slots[slot].ring_idx = (uint16_t)*idx;
	vc->slots[slot].end_pi = (uint16_t)(pi + 1);
	wqe = vc->sq + ((size_t)slot << MLX5_SEND_WQE_SHIFT);
	mlx5_dma_st64(wqe + 32, seg);
	mlx5_dma_st64(wqe + 40, rte_cpu_to_be_64(src));
	mlx5_dma_st64(wqe + 48, seg);
	mlx5_dma_st64(wqe + 56, rte_cpu_to_be_64(dst));
	memcpy(wqe, &vc->mmo_head, sizeof(vc->mmo_head));
	memcpy(wqe + 1, &wqe_idx, sizeof(wqe_idx));
#endif
	return wqe;
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
 * of its decrement is the ring-full test (copy_slow() gives it back). With the whole
 * key (K), there is nothing else to check but the length: 0 would be 2 GiB.
 */
template <enum mlx5_dma_path P, enum copy_keys K>
MLX5_DMA_NO_SLP int copy(void *priv, uint16_t vchan, rte_iova_t src, rte_iova_t dst, uint32_t len,
			 uint64_t flags)
{
	struct mlx5_dma_vchan *vc = mlx5_dma_fp_vchan(priv, vchan);

	if (unlikely((int32_t)--vc->credits < 0 || len - 1 >= vc->fp_max_len ||
		     (K == KEYS_CHECKED && (mlx5_dma_mr_cache_stale(&vc->mr_cache) ||
					    !mlx5_dma_mr_hit2(&vc->mr_cache, src, dst, len)))))
		return copy_slow<P, K>(vc, 0, src, dst, len, flags);

	int idx;

	if (P == MLX5_DMA_PATH_DIRECT) {
		const uint64_t *key_seg = K == KEYS_WHOLE ? &vc->whole_key_seg
							  : &vc->mr_cache.e[0].key_seg;
		uint8_t *wqe = write_copy(vc, src, dst, len, key_seg, &idx);

		if (unlikely(flags & (RTE_DMA_OP_FLAG_FENCE | RTE_DMA_OP_FLAG_SUBMIT)))
			return copy_flags(vc, idx, wqe, flags);
	} else {
		idx = vc->ring_idx;
		uint32_t lkey = K == KEYS_WHOLE ? vc->whole_lkey : vc->mr_cache.e[0].lkey;

		mlx5_dma_build_mmo(vc, src, lkey, dst, lkey, len, flags);
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

/* The idle check of report_plain(), which makes no call itself: then report_done(). */
MLX5_DMA_NOIPA uint16_t report_idle(struct mlx5_dma_vchan *vc, uint16_t nb_cpls, uint16_t *last_idx,
				    bool *has_error)
{
	mlx5_dma_idle_check(vc);
	return report_done(vc, vc->done_upto - vc->reported, nb_cpls, last_idx, has_error, NULL);
}

/*
 * completed() on the direct path (its arguments, the vchan in place of the device and
 * the vchan id unused): report_poll_cold() for CQEs that all are plain
 * completions, without a call on the way, so that it saves no register and sets up no
 * frame. Each case that needs one is a tail call with the state as it stands: an
 * error CQE (left unconsumed for report_poll_cold()), the idle check, failed ops
 * to report. The CQ is read up to the CQE that completes every submitted op: none
 * can follow it before the next doorbell.
 */
MLX5_DMA_NOIPA uint16_t report_plain(struct mlx5_dma_vchan *vc, uint16_t, uint16_t nb_cpls,
				     uint16_t *last_idx, bool *has_error,
				     enum rte_dma_status_code *status)
{
	uint16_t n = vc->done_upto - vc->reported;

	if (n < nb_cpls) {
		uint32_t ci = vc->cq_ci;
		uint16_t done = vc->done_upto;
		uint8_t op_own;

		/* done_upto in a local: the CQE's acquire load would make it reloaded */
		while (done != vc->submitted_idx && mlx5_dma_cqe_ready(vc, ci, &op_own)) {
			if (unlikely((op_own >> 4) != MLX5_CQE_REQ)) {
				mlx5_dma_cq_set_ci(vc, ci);
				vc->done_upto = done;
				return report_poll_cold<MLX5_DMA_PATH_DIRECT>(
					vc, 0, nb_cpls, last_idx, has_error, status);
			}
			rte_io_rmb(); /* CQE body after ownership */
			const struct mlx5_dma_slot *slot =
				&vc->slots[rte_be_to_cpu_16(mlx5_dma_cqe_at(vc, ci)->wqe_counter) &
					   vc->sq_mask];
			done = slot->ring_idx + 1;
			vc->bb_ci += (uint16_t)(slot->end_pi - (uint16_t)vc->bb_ci);
			ci++;
		}
		vc->done_upto = done;
		if (ci != vc->cq_ci_db) {
			mlx5_dma_cq_set_ci(vc, ci);
			vc->cq_ci_db = ci;
			rte_io_wmb(); /* CQE reads done before the entries are handed back */
			mlx5_dma_dbrec_store(vc->cq_dbrec, rte_cpu_to_be_32(ci & 0xffffff));
		}
		n = vc->done_upto - vc->reported;
		/* nothing comes while ops are out: now and then, ask the device why */
		if (unlikely(n == 0) && vc->submitted_idx != vc->done_upto &&
		    unlikely(++vc->idle_polls % MLX5_DMA_IDLE_CHECK == 0))
			return report_idle(vc, nb_cpls, last_idx, has_error);
	}
	return report_done(vc, n, nb_cpls, last_idx, has_error, NULL);
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

	if (likely(vc->reported == vc->submitted_idx)) {
		*last_idx = vc->reported - 1;
		return 0;
	}
	if (P == MLX5_DMA_PATH_DIRECT && !status) /* the vchan id: unused, not kept */
		return report_plain(vc, 0, nb_cpls, last_idx, has_error, status);
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
		mlx5_dma_fp_install(fp, p->args.path, p->sva);
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

void mlx5_dma_fp_install(struct rte_dma_fp_object *fp, enum mlx5_dma_path path, bool whole_key)
{
	if (path == MLX5_DMA_PATH_DIRECT) {
		fp->copy = whole_key ? copy<MLX5_DMA_PATH_DIRECT, KEYS_WHOLE>
				     : copy<MLX5_DMA_PATH_DIRECT, KEYS_CHECKED>;
		fp->completed = completed<MLX5_DMA_PATH_DIRECT>;
		fp->completed_status = completed_status<MLX5_DMA_PATH_DIRECT>;
	} else {
		fp->copy = whole_key ? copy<MLX5_DMA_PATH_VERBS, KEYS_WHOLE>
				     : copy<MLX5_DMA_PATH_VERBS, KEYS_CHECKED>;
		fp->completed = completed<MLX5_DMA_PATH_VERBS>;
		fp->completed_status = completed_status<MLX5_DMA_PATH_VERBS>;
	}
	fp->submit = submit;
	fp->burst_capacity = burst_capacity;
}
