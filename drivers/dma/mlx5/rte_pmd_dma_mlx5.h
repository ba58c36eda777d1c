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
#include <rte_dmadev.h>

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

/**
 * @defgroup rte_pmd_dma_mlx5_mkey Indirect memory keys
 *
 * An indirect mkey gives a vchan's ops a virtual, zero-based address space made of
 * other memory: a list of segments (gather/scatter), or an interleaved layout (a few
 * entries repeated with a stride; a stride of 0 repeats the same bytes). It is created
 * on a vchan (control path); its layout is set and invalidated by ops of that vchan
 * (UMR WQEs: each takes a ring index and reports a status like a copy), and
 * rte_pmd_dma_mlx5_copy() moves data through it. Ops of the vchan enqueued after a
 * layout op see the new layout (the device orders them with a small fence).
 * This is the building block of gather copies, packet reassembly and signature
 * offloads on top of dma_mlx5.
 * @{
 */

/** An indirect mkey of a dma_mlx5 vchan (opaque). */
struct rte_pmd_dma_mlx5_mkey;

/** What one layout op of a vchan can set. */
struct rte_pmd_dma_mlx5_mkey_limits {
	uint16_t max_list_entries;        /**< segments of a list layout */
	uint16_t max_interleaved_entries; /**< entries of an interleaved layout */
	uint32_t max_copy_len;            /**< longest rte_pmd_dma_mlx5_copy() */
};

/** One entry of an interleaved layout: repetition r reads bytes_count bytes at
 * addr + r * stride. */
struct rte_pmd_dma_mlx5_interleaved {
	rte_iova_t addr;      /**< the entry's first byte in repetition 0 (registered memory) */
	uint16_t bytes_count; /**< bytes of the entry in each repetition, at least 1 */
	uint16_t stride;      /**< address step per repetition; 0: the same bytes each time */
};

/** An address of rte_pmd_dma_mlx5_copy(): an IOVA, or an offset in an mkey's layout. */
struct rte_pmd_dma_mlx5_addr {
	struct rte_pmd_dma_mlx5_mkey *mkey; /**< NULL: @c addr is an IOVA */
	uint64_t addr;                      /**< IOVA, or byte offset inside the layout */
};

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Limits of the mkey layouts of a vchan (derived from the inline space of its QP).
 *
 * @param dev_id
 *   dmadev identifier of the device.
 * @param vchan
 *   Virtual channel, configured by rte_dma_vchan_setup().
 * @param[out] lim
 *   Filled with the limits.
 * @return
 *   0; -ENOTSUP when the device creates no indirect mkeys; -EINVAL otherwise.
 */
__rte_experimental int rte_pmd_dma_mlx5_mkey_limits(int16_t dev_id, uint16_t vchan,
						    struct rte_pmd_dma_mlx5_mkey_limits *lim);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Create an indirect mkey on a vchan (control path). It has no layout until a
 * layout op sets one. Destroyed with rte_pmd_dma_mlx5_mkey_destroy(), or with the
 * vchan (reconfiguration, close).
 *
 * @param dev_id
 *   dmadev identifier of the device.
 * @param vchan
 *   Virtual channel, configured by rte_dma_vchan_setup().
 * @param max_entries
 *   Most entries of any layout it will be given (1 .. max_list_entries).
 * @param[out] mkey
 *   The new mkey.
 * @return
 *   0; -ENOTSUP when the device creates no indirect mkeys; -EINVAL for a bad
 *   argument; -ENOMEM or another negative errno from the device.
 */
__rte_experimental int rte_pmd_dma_mlx5_mkey_create(int16_t dev_id, uint16_t vchan,
						    uint16_t max_entries,
						    struct rte_pmd_dma_mlx5_mkey **mkey);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Destroy an mkey of a vchan (control path).
 *
 * @return
 *   0; -EBUSY while an op that uses it has not completed; -EINVAL when @p mkey is
 *   not an mkey of this vchan.
 */
__rte_experimental int rte_pmd_dma_mlx5_mkey_destroy(int16_t dev_id, uint16_t vchan,
						     struct rte_pmd_dma_mlx5_mkey *mkey);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Enqueue an op giving @p mkey a list layout: its address space is the segments one
 * after the other (offset 0 is the first byte of sge[0]). Local write is allowed, so
 * the mkey may be a source or a destination.
 *
 * @param sge
 *   Segments, each of registered memory and not empty.
 * @param nb_sge
 *   1 .. min(max_entries of the mkey, max_list_entries).
 * @param flags
 *   RTE_DMA_OP_FLAG_FENCE, RTE_DMA_OP_FLAG_SUBMIT.
 * @return
 *   The ring index; -ENOSPC when the ring is full; -EIO when the vchan is halted;
 *   -EINVAL (one log line) for a bad argument or a segment no MR covers.
 */
__rte_experimental int rte_pmd_dma_mlx5_mkey_set_list(int16_t dev_id, uint16_t vchan,
						      struct rte_pmd_dma_mlx5_mkey *mkey,
						      const struct rte_dma_sge *sge,
						      uint16_t nb_sge, uint64_t flags);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Enqueue an op giving @p mkey an interleaved layout: repetition 0 is entry 0's bytes,
 * then entry 1's, ...; repetition r the same with every address advanced by
 * r * stride; @p repeat repetitions in all.
 *
 * @param ent
 *   Entries; every byte any repetition reads must be registered memory.
 * @param nb_ent
 *   1 .. min(max_entries of the mkey, max_interleaved_entries).
 * @param repeat
 *   Repetitions, at least 1.
 * @param flags
 *   RTE_DMA_OP_FLAG_FENCE, RTE_DMA_OP_FLAG_SUBMIT.
 * @return
 *   As rte_pmd_dma_mlx5_mkey_set_list().
 */
__rte_experimental int
rte_pmd_dma_mlx5_mkey_set_interleaved(int16_t dev_id, uint16_t vchan,
				      struct rte_pmd_dma_mlx5_mkey *mkey,
				      const struct rte_pmd_dma_mlx5_interleaved *ent,
				      uint16_t nb_ent, uint32_t repeat, uint64_t flags);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Enqueue an op invalidating @p mkey (LOCAL_INV): ops after it that use the mkey
 * fail, until a layout op sets a layout again.
 *
 * @return
 *   As rte_pmd_dma_mlx5_mkey_set_list().
 */
__rte_experimental int rte_pmd_dma_mlx5_mkey_invalidate(int16_t dev_id, uint16_t vchan,
							struct rte_pmd_dma_mlx5_mkey *mkey,
							uint64_t flags);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Enqueue a copy whose source and/or destination is an mkey's layout (one memcpy
 * MMO): rte_dma_copy() with mkey-relative addresses. A range beyond the layout the
 * last layout op enqueued gave (or an invalidated mkey) ends the op with
 * RTE_DMA_STATUS_INVALID_SRC_ADDR / _DST_ADDR, as an unregistered IOVA does.
 *
 * @param src
 *   Source: IOVA, or mkey + offset.
 * @param dst
 *   Destination: IOVA, or mkey + offset.
 * @param len
 *   Bytes, 1 .. max_copy_len (else RTE_DMA_STATUS_INVALID_LENGTH).
 * @param flags
 *   RTE_DMA_OP_FLAG_FENCE, RTE_DMA_OP_FLAG_SUBMIT.
 * @return
 *   The ring index; -ENOSPC; -EIO when the vchan is halted; -EINVAL for NULL
 *   arguments or an mkey of another vchan.
 */
__rte_experimental int rte_pmd_dma_mlx5_copy(int16_t dev_id, uint16_t vchan,
					     const struct rte_pmd_dma_mlx5_addr *src,
					     const struct rte_pmd_dma_mlx5_addr *dst, uint32_t len,
					     uint64_t flags);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* RTE_PMD_DMA_MLX5_H */
