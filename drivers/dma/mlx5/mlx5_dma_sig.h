/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Signature copies of dma_mlx5 (rte_pmd_dma_mlx5.h, group rte_pmd_dma_mlx5_sig).
 *
 * One op = a UMR (+ SET_PSV) per side that needs a signature mkey, then one memcpy
 * MMO from the source mkey to the destination mkey. Each signature mkey carries the
 * side's domain in its memory domain and no wire domain, so the MMO moves wire
 * bytes = data only: the source mkey verifies (and strips) the source PI, the
 * destination mkey generates the destination PI (model assumption 60-62). A
 * signature mkey cannot sit in another mkey's layout (assumption 60), so SG lists
 * are the signature mkey's own list layout.
 *
 * The direct path writes the UMR and SET_PSV bytes that mlx5dv_wr_mkey_configure() +
 * mlx5dv_wr_set_mkey_sig_block() write. Only the PSV index is libmlx5's own (the
 * public mlx5dv_mkey does not show it): when the pool is created, libmlx5's builders
 * run once per mkey on a pad QP that never leaves RESET (the batch is aborted) and
 * the index is read from the BSF they wrote. The same pad serves as the reference the
 * tests compare the written bytes with (mlx5_dma_sig_umr_builder()).
 */
#ifndef MLX5_DMA_SIG_H
#define MLX5_DMA_SIG_H

#include "mlx5_dma.h"
#include "rte_pmd_dma_mlx5.h"

/** Signature mkeys per vchan. */
#define MLX5_DMA_SIG_MKEYS 32
/** Failed verifications a vchan remembers (rte_pmd_dma_mlx5_sig_error()). */
#define MLX5_DMA_SIG_ERRS 64
/** Most list entries of a signature mkey (a UMR's inline translations). */
#define MLX5_DMA_SIG_MAX_SGE 16
/** Segments per side when umr_entries= does not ask for more. */
#define MLX5_DMA_SIG_DEFAULT_SGE 4
/** Bytes of the verify-only destination buffer (one 16-bit interleaved entry repeats it). */
#define MLX5_DMA_SIG_DISCARD_BYTES 4096

/** What a signature mkey holds: a side's domain and list layout. */
struct mlx5_dma_sig_layout {
	struct rte_pmd_dma_mlx5_sig_domain dom; /**< type NONE: plain list */
	uint16_t nb;
	struct {
		uint64_t addr;
		uint32_t len;
		uint32_t lkey;
	} seg[MLX5_DMA_SIG_MAX_SGE];
};

/** One pooled signature mkey. */
struct mlx5_dma_sig_mkey {
	struct mlx5dv_mkey *mk;
	struct mlx5_dma_sig_layout lay; /**< valid when @c configured */
	uint32_t err_gen;               /**< vchan err_gen when configured */
	uint16_t last_idx;              /**< last op that used it */
	uint32_t mem_psv;               /**< its memory-domain PSV (libmlx5's index) */
	uint8_t err_cnt;                /**< signature errors seen (re-arm counter) */
	uint8_t umr_nbb;                /**< WQEBBs of its last configuration (UMR + PSVs) */
	bool configured;
	bool used;
	bool rearm; /**< a signature error: the next UMR re-arms it */
};

/** Per-op state of a signature op (indexed like op_status). */
struct mlx5_dma_sig_op {
	uint16_t ring_idx; /**< the op this entry describes (entries are reused) */
	int8_t mkey[2];    /**< pool index of the source / destination mkey, -1: none */
	/**
	 * WQEBBs of each side's region at the op's start: the mkey's UMR + PSVs, or as
	 * many NOPs when the mkey already held the layout (a recovery turns them into a
	 * re-arming UMR: see mlx5_dma_sig_before_recover())
	 */
	uint8_t reg_nbb[2];
	bool sig;         /**< a signature op of this ring index is in flight */
	bool failed;      /**< its verification failed */
	bool has_resp;    /**< ring index + 1 is its fenced response */
	bool resp_done;   /**< the response was cancelled or replaced */
	uint64_t err_src; /**< error response (0: none) */
	uint32_t err_len;
	uint32_t err_lkey;
	uint32_t block_bytes; /**< source block + PI bytes (error details) */
};

/** Signature state of a vchan. */
struct mlx5_dma_sig_pool {
	struct mlx5_dma_sig_mkey m[MLX5_DMA_SIG_MKEYS];
	uint16_t victim; /**< where the search for a free mkey starts (round robin) */
	/**
	 * The mkey last configured with a layout of each hint slot
	 * (mlx5_dma_sig_layout_slot()): looked at first, and checked, before a search
	 */
	uint8_t hint[MLX5_DMA_SIG_MKEYS];
	uint16_t max_sge;     /**< list entries of one signature UMR of this vchan's QP */
	uint32_t types;       /**< the device's rte_pmd_dma_mlx5_sig_caps.types */
	uint16_t block_sizes; /**< and .block_sizes: what an op is checked against */
	/* builder pad: a QP in RESET whose ring libmlx5's builders write into */
	struct ibv_cq_ex *pad_cq;
	struct ibv_qp *pad_qp;
	struct ibv_qp_ex *pad_qpx;
	struct mlx5dv_qp_ex *pad_dv;
	uint8_t *pad_sq;
	uint32_t pad_mask;
	/* verify only: an interleaved mkey repeating one buffer as destination */
	struct mlx5dv_mkey *discard;
	uint8_t *discard_buf;
	uint32_t discard_lkey;
	uint32_t discard_gen;        /**< err_gen + 1 when configured; 0: not configured */
	struct mlx5_dma_sig_op *ops; /**< sq_mask + 1 entries */
	struct rte_pmd_dma_mlx5_sig_err errs[MLX5_DMA_SIG_ERRS];
	uint32_t nb_errs;   /**< failures recorded (errs[] is a ring) */
	bool drain_pending; /**< a failure on a pipelining QP: the SQ stops in SQD */
	uint64_t drains;    /**< SQD -> RTS resumes */
	uint64_t cancels;   /**< responses cancelled or replaced */
};

/** Hint slot of a layout: its first segment, entry count, type and ref tag mixed. */
static inline uint32_t mlx5_dma_sig_layout_slot(const struct mlx5_dma_sig_layout *lay)
{
	uint64_t h = lay->seg[0].addr ^ ((uint64_t)lay->nb << 56) ^
		     ((uint64_t)lay->dom.type << 48) ^ lay->dom.ref_tag;

	h *= 0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> 59) % MLX5_DMA_SIG_MKEYS;
}

/* mlx5_dma_sig_pool.cpp */
/** Max inline data a vchan QP needs for signature UMRs (0: signature not enabled). */
uint32_t mlx5_dma_sig_qp_inline(const struct mlx5_dma_dev *dev);
/** Signature mkeys, pad QP and op table of a vchan (sig=1); 0 or a negative errno. */
int mlx5_dma_sig_pool_create(struct mlx5_dma_vchan *vc);
void mlx5_dma_sig_pool_destroy(struct mlx5_dma_vchan *vc);
/** Ring indices restart: forget ops and configured layouts. */
void mlx5_dma_sig_pool_reset(struct mlx5_dma_vchan *vc);
/**
 * Write the UMR (+ SET_PSV) giving pool mkey @p m (no op in flight uses it) the
 * layout @p lay, at producer counter @p pi (the caller commits the op); @p fence:
 * the caller's full fence. @return the WQEBBs written, or 0 when the builder refused
 * (nothing written).
 */
uint32_t mlx5_dma_sig_umr(struct mlx5_dma_vchan *vc, uint32_t pi, struct mlx5_dma_sig_mkey *m,
			  const struct mlx5_dma_sig_layout *lay, bool fence);
/**
 * The bytes of the UMR (+ SET_PSV) giving @p m the layout @p lay at producer counter
 * @p pi, before the op's fence and the re-arm: written here (direct), or by libmlx5's
 * builders on the pad (builder, the reference). Into @p out, at least
 * MLX5_DMA_SIG_UMR_MAX_BYTES; @return the WQEBBs, 0 when libmlx5 would refuse.
 */
uint32_t mlx5_dma_sig_umr_direct(struct mlx5_dma_vchan *vc, uint32_t pi,
				 const struct mlx5_dma_sig_mkey *m,
				 const struct mlx5_dma_sig_layout *lay, uint8_t *out);
uint32_t mlx5_dma_sig_umr_builder(struct mlx5_dma_vchan *vc, uint32_t pi,
				  const struct mlx5_dma_sig_mkey *m,
				  const struct mlx5_dma_sig_layout *lay, uint8_t *out);
/** Write one NOP WQE of @p n WQEBBs at producer counter @p pi (fence bits cleared). */
void mlx5_dma_sig_nops(struct mlx5_dma_vchan *vc, uint32_t pi, uint32_t n);
/** WQEBBs a signature UMR of @p nb entries takes at most (UMR + BSF + 2 PSVs). */
static inline uint32_t mlx5_dma_sig_umr_max_wqebbs(uint32_t nb)
{
	return 2 + (nb + 3) / 4 + 1 + 2;
}
/** Bytes of the largest signature UMR (+ PSVs). */
#define MLX5_DMA_SIG_UMR_MAX_BYTES (mlx5_dma_sig_umr_max_wqebbs(MLX5_DMA_SIG_MAX_SGE) * 64)
/** PI bytes of a domain type. */
uint32_t mlx5_dma_sig_pi_bytes(enum rte_pmd_dma_mlx5_sig_type t);

/* mlx5_dma_sig_api.cpp */
/** The signature capabilities of a device (rte_pmd_dma_mlx5_sig_caps()). */
void mlx5_dma_sig_caps_of(const struct mlx5_dma_dev *p, struct rte_pmd_dma_mlx5_sig_caps *c);

/* mlx5_dma_sig_err.cpp */
/** A SIG_ERR CQE (direct path): record it against its op; maybe resume the SQ. */
void mlx5_dma_sig_handle_cqe(struct mlx5_dma_vchan *vc, const void *cqe);
/** A pending drain: when the SQ is in SQD, cancel/replace responses and resume. */
void mlx5_dma_sig_drain(struct mlx5_dma_vchan *vc);
/**
 * The QP is about to be reset and its WQEs from producer counter @p start on re-posted:
 * withdraw pending responses; make the signature ops among them re-arm their mkeys.
 */
void mlx5_dma_sig_before_recover(struct mlx5_dma_vchan *vc, uint32_t start);

#endif /* MLX5_DMA_SIG_H */
