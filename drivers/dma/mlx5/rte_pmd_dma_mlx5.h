/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * dma_mlx5 specific API: what rte_dma cannot express.
 *
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 */
#ifndef RTE_PMD_DMA_MLX5_H
#define RTE_PMD_DMA_MLX5_H

#include <stdint.h>

#include <rte_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/** mlx5 capabilities of a dma_mlx5 device. */
struct rte_pmd_dma_mlx5_caps {
	uint64_t max_wr_memcpy_length; /**< largest memcpy MMO in bytes */
	char device[64];               /**< "sim0", "mlx5_0", ... */
	char backend[16];              /**< "sim" or "rdma-core" */
	uint8_t direct_path;           /**< 1: WQEs written by the PMD; 0: rdma-core builders */
	uint8_t sva;                   /**< 1: any address, through an implicit on-demand MR */
};

/** Where a vchan's WQEs go, for callers building raw WQEs. */
struct rte_pmd_dma_mlx5_vchan_info {
	uint32_t qpn;       /**< QP number to put in the ctrl segment's qpn_ds */
	uint32_t sq_wqebbs; /**< SQ ring size in 64-byte WQEBBs */
};

/** CQE details of the last failed op of a vchan. */
struct rte_pmd_dma_mlx5_error {
	uint16_t ring_idx; /**< rte_dma ring index of the op */
	uint8_t syndrome;  /**< MLX5_CQE_SYNDROME_* */
	uint8_t vendor_syndrome;
	uint8_t wqe_opcode; /**< MLX5_OPCODE_* of the failed WQE */
};

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Query the mlx5 capabilities of a dma_mlx5 device.
 *
 * @param dev_id
 *   dmadev identifier of the device.
 * @param[out] caps
 *   Filled with the device's capabilities.
 * @return
 *   0, or -EINVAL if @p dev_id is not a dma_mlx5 device or @p caps is NULL.
 */
__rte_experimental int rte_pmd_dma_mlx5_get_caps(int16_t dev_id,
						 struct rte_pmd_dma_mlx5_caps *caps);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Query the QP behind a configured vchan.
 *
 * @param dev_id
 *   dmadev identifier of the device.
 * @param vchan
 *   Virtual channel, configured by rte_dma_vchan_setup().
 * @param[out] info
 *   Filled with the vchan's QP number and SQ size.
 * @return
 *   0, or -EINVAL (not dma_mlx5, vchan not set up, NULL @p info).
 */
__rte_experimental int rte_pmd_dma_mlx5_vchan_info(int16_t dev_id, uint16_t vchan,
						   struct rte_pmd_dma_mlx5_vchan_info *info);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Enqueue a caller-built WQE on a vchan, with the contract of mlx5dv_wr_raw_wqe():
 * the WQE's ds field (low 6 bits of qpn_ds) says how many 16-byte units to copy;
 * the driver sets the WQE index (bits 23:8 of the first dword) and keeps every other
 * byte, so the caller puts the QPN (rte_pmd_dma_mlx5_vchan_info()) in qpn_ds. The
 * op takes the next rte_dma ring index and its completion comes back through
 * rte_dma_completed()/rte_dma_completed_status() like a copy.
 *
 * @param dev_id
 *   dmadev identifier of the device.
 * @param vchan
 *   Virtual channel, configured by rte_dma_vchan_setup().
 * @param wqe
 *   The WQE: control segment first, ds * 16 bytes in all.
 * @param flags
 *   RTE_DMA_OP_FLAG_* (FENCE sets the WQE fence, SUBMIT rings the doorbell).
 * @return
 *   The ring index, -ENOSPC when the ring is full, -EINVAL for a NULL @p wqe,
 *   a ds of 0, or a device/vchan that is not a configured dma_mlx5 one.
 */
__rte_experimental int rte_pmd_dma_mlx5_enqueue_raw_wqe(int16_t dev_id, uint16_t vchan,
							const void *wqe, uint64_t flags);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * CQE details of the last failed op of a vchan.
 *
 * @param dev_id
 *   dmadev identifier of the device.
 * @param vchan
 *   Virtual channel, configured by rte_dma_vchan_setup().
 * @param[out] err
 *   Filled with the ring index, syndromes and opcode of the failed op.
 * @return
 *   0; -ENOENT when no op has failed since start; -EINVAL otherwise.
 */
__rte_experimental int rte_pmd_dma_mlx5_last_error(int16_t dev_id, uint16_t vchan,
						   struct rte_pmd_dma_mlx5_error *err);

#ifdef __cplusplus
}
#endif

#endif /* RTE_PMD_DMA_MLX5_H */
