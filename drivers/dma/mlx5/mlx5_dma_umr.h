/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * UMR WQEs of dma_mlx5: give an indirect mkey a list or interleaved (repeat block)
 * layout, on both posting paths. The direct path writes the bytes libmlx5's
 * mlx5dv_wr_mkey_configure() + access + layout setters write; the verbs path calls
 * those builders. After a UMR the next WQE carries the initiator small fence, as
 * libmlx5 does: on the direct path through mlx5_dma_take_fence().
 */
#ifndef MLX5_DMA_UMR_H
#define MLX5_DMA_UMR_H

#include <string.h>

#include "mlx5_dma.h"

/** One translation entry: a list segment, or an interleaved entry (with its stride). */
struct mlx5_dma_xlat {
	uint64_t addr;
	uint32_t len;    /**< bytes (interleaved: bytes per repetition, below 2^16) */
	uint32_t lkey;   /**< key of the memory, host order */
	uint16_t stride; /**< interleaved only: address step per repetition (0: same bytes) */
};

/**
 * @p x as libmlx5's interleaved entry: the builder writes stride = bytes_count +
 * bytes_skip in 16 bits, so a stride below the length (0: the same bytes) wraps.
 */
static inline struct mlx5dv_mr_interleaved mlx5_dma_interleaved_entry(const struct mlx5_dma_xlat *x)
{
	return {x->addr, x->len, (uint32_t)x->stride - x->len, x->lkey};
}

/** What mkey_configure + set_mkey_access_flags + a layout setter put in the mask. */
#define MLX5_DMA_UMR_MKEY_MASK                                                              \
	(MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE | MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY |              \
	 MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN | MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE | \
	 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_READ |                                   \
	 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_WRITE |                                  \
	 MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_ATOMIC)

/*
 * The source of a fill (local or remote): an indirect mkey whose interleaved layout
 * is one entry of stride 0 over a buffer holding the 64-bit pattern 8 times,
 * repeated to cover the longest op.
 */
/** Bytes of a fill pattern buffer. */
#define MLX5_DMA_FILL_PAT_BYTES 64

/** Write @p pattern 8 times at @p b: byte j of a fill is byte j % 8 of it in memory. */
static inline void mlx5_dma_fill_pattern_write(uint8_t *b, uint64_t pattern)
{
	for (uint32_t k = 0; k < MLX5_DMA_FILL_PAT_BYTES; k += sizeof(pattern))
		memcpy(b + k, &pattern, sizeof(pattern));
}

/** The one layout entry of a fill mkey over the pattern buffer @p buf (key @p lkey). */
static inline struct mlx5_dma_xlat mlx5_dma_fill_xlat(const uint8_t *buf, uint32_t lkey)
{
	return {(uintptr_t)buf, MLX5_DMA_FILL_PAT_BYTES, lkey, 0};
}

/** Repetitions of the pattern buffer that cover fills of up to @p max_len bytes. */
static inline uint32_t mlx5_dma_fill_repeat(uint64_t max_len)
{
	return (uint32_t)RTE_MAX((uint64_t)1,
				 (max_len + MLX5_DMA_FILL_PAT_BYTES - 1) / MLX5_DMA_FILL_PAT_BYTES);
}

/** Most translation entries of a UMR WQE the device takes (ds is 6 bits). */
#define MLX5_DMA_UMR_MAX_XLAT 52

/** WQEBBs of a list UMR of @p n entries. */
static inline uint32_t mlx5_dma_umr_list_wqebbs(uint32_t n)
{
	return 2 + (n + 3) / 4;
}

/** WQEBBs of an interleaved UMR of @p n entries (plus the repeat-block header). */
static inline uint32_t mlx5_dma_umr_interleaved_wqebbs(uint32_t n)
{
	return mlx5_dma_umr_list_wqebbs(n + 1);
}

/**
 * Write (direct) or build (verbs) a UMR WQE at producer counter @p pi giving @p mkey
 * the layout @p x[0..n) (@p repeat 0: list; otherwise interleaved, @p repeat times),
 * local write allowed. @p op_start / @p op_nbb: the op the WQE belongs to (verbs
 * wr_id). @p flags: RTE_DMA_OP_FLAG_FENCE. The caller checked n, space and keys.
 * @return the WQEBBs written.
 */
uint32_t mlx5_dma_umr_post(struct mlx5_dma_vchan *vc, uint32_t pi, struct mlx5dv_mkey *mkey,
			   const struct mlx5_dma_xlat *x, uint16_t n, uint32_t repeat,
			   uint32_t op_start, uint32_t op_nbb, uint64_t flags);

/** WQEBBs of a LOCAL_INV (a UMR without translations). */
#define MLX5_DMA_UMR_INV_WQEBBS 2

/**
 * Write (direct) or post as raw WQE (verbs) the LOCAL_INV libmlx5 builds for
 * ibv_wr_local_inv(), at producer counter @p pi. On the verbs path the raw WQE keeps
 * the QP's WQE size (IBV_QP_EX_WITH_LOCAL_INV would make every SQ slot 4 WQEBBs).
 */
void mlx5_dma_umr_invalidate(struct mlx5_dma_vchan *vc, uint32_t pi, struct mlx5dv_mkey *mkey,
			     uint32_t op_start, uint32_t op_nbb, uint64_t flags);

/**
 * Direct path: the WQE just written at @p pi takes the small fence a UMR before it
 * left pending (unless it has the full fence).
 */
static inline void mlx5_dma_take_fence(struct mlx5_dma_vchan *vc, uint32_t pi)
{
	uint8_t *fm = vc->sq + ((pi & vc->sq_mask) << MLX5_SEND_WQE_SHIFT) + 11;

	if (vc->fm_pending && !(*fm & MLX5_WQE_CTRL_FENCE))
		*fm |= vc->fm_pending;
	vc->fm_pending = 0;
}

#endif /* MLX5_DMA_UMR_H */
