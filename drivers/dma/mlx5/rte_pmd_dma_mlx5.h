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

#include <stddef.h>
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
	/**
	 * 1: rte_dma_copy() names the implicit MR's one key without a lookup or range
	 * check (sva=1); an address that is not mapped fails in the device, with an
	 * error status (RTE_DMA_STATUS_INVALID_ADDR). 0: each copy's addresses are looked
	 * up in the registered memory, and one outside it fails before it is posted
	 * (RTE_DMA_STATUS_INVALID_SRC_ADDR / _DST_ADDR).
	 */
	uint8_t whole_key;
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

/** Error handling counters of a vchan (beyond rte_dma_stats). */
struct rte_pmd_dma_mlx5_vchan_stats {
	uint64_t recoveries; /**< QP resets after errors: the ops after a failure ran again */
};

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Error handling counters of a configured vchan. Any lcore may read them while the
 * vchan's lcore works; rte_dma_stats_reset() and a restart of the vchan zero them.
 *
 * @return
 *   0, or -EINVAL (not dma_mlx5, vchan not set up, NULL @p st).
 */
__rte_experimental int rte_pmd_dma_mlx5_vchan_stats(int16_t dev_id, uint16_t vchan,
						    struct rte_pmd_dma_mlx5_vchan_stats *st);

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
 *   The ring index, -ENOSPC when the ring is full, -EPERM while the device is stopped,
 *   -EINVAL for a NULL @p wqe, a ds of 0, or a device/vchan that is not a configured
 *   dma_mlx5 one.
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
 *   -EPERM while the device is stopped; -EINVAL (one log line) for a bad argument or
 *   a segment no MR covers.
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
 *   The ring index; -ENOSPC; -EIO when the vchan is halted; -EPERM while the device
 *   is stopped; -EINVAL for NULL arguments or an mkey of another vchan.
 */
__rte_experimental int rte_pmd_dma_mlx5_copy(int16_t dev_id, uint16_t vchan,
					     const struct rte_pmd_dma_mlx5_addr *src,
					     const struct rte_pmd_dma_mlx5_addr *dst, uint32_t len,
					     uint64_t flags);

/** @} */

/**
 * @defgroup rte_pmd_dma_mlx5_sig Copy with signature (T10-DIF / CRC)
 *
 * A signature copy moves blocks of data from a source layout to a destination
 * layout; each side is described by a domain: plain data (RTE_PMD_DMA_MLX5_SIG_NONE),
 * or each block's data followed by its protection information (PI): T10-DIF (8 bytes:
 * guard, application tag, reference tag, big-endian), CRC32 / CRC32C (4 bytes) or
 * CRC64 (8 bytes). The device verifies the source PI (when the source has a domain)
 * and generates the destination PI (when the destination has one) while it copies:
 * - insert: source NONE, destination a domain;
 * - strip: source a domain (verified), destination NONE;
 * - convert: both domains (source verified, destination generated; e.g. new
 *   reference tags, or T10-DIF to CRC32C);
 * - pass-through: the same domain on both sides (verified, then generated again: equal
 *   to the source PI when it verified);
 * - verify only (RTE_PMD_DMA_MLX5_SIG_XFER_VERIFY_ONLY): source verified, nothing
 *   written.
 * The op takes a ring index and completes through rte_dma_completed() /
 * rte_dma_completed_status() like a copy. A failed verification ends the op with
 * RTE_DMA_STATUS_DATA_POISION (the data still moved); rte_pmd_dma_mlx5_sig_error()
 * gives the details. Later ops run normally.
 *
 * Signature ops need a device probed with the devarg sig=1 and the device's
 * signature capabilities (rte_pmd_dma_mlx5_sig_caps()). Each vchan then keeps a pool
 * of signature mkeys, configured again only when an op's layout or domains differ
 * from what the mkey holds (or after an error). The direct posting path only
 * (path=direct, the default).
 * @{
 */

/** Protection of one side of a signature copy. */
enum rte_pmd_dma_mlx5_sig_type {
	RTE_PMD_DMA_MLX5_SIG_NONE = 0,    /**< plain data, no PI */
	RTE_PMD_DMA_MLX5_SIG_T10DIF_CRC,  /**< T10-DIF, guard CRC16 (poly 0x8BB7) */
	RTE_PMD_DMA_MLX5_SIG_T10DIF_CSUM, /**< T10-DIF, guard IP checksum */
	RTE_PMD_DMA_MLX5_SIG_CRC32,       /**< CRC32 (IEEE), 4 bytes */
	RTE_PMD_DMA_MLX5_SIG_CRC32C,      /**< CRC32C (Castagnoli), 4 bytes */
	RTE_PMD_DMA_MLX5_SIG_CRC64,       /**< CRC64 (XP10, ECMA-182 polynomial), 8 bytes */
};

/** Domain flag: guard / CRC seed all ones (0xffff, 0xffffffff, ~0); else 0. */
#define RTE_PMD_DMA_MLX5_SIG_F_SEED_ONES (1u << 0)
/** Domain flag (T10-DIF): reference tag of block b = ref_tag + b (Type 1); else ref_tag. */
#define RTE_PMD_DMA_MLX5_SIG_F_REF_INC (1u << 1)
/** Domain flag (T10-DIF): a block whose app tag is 0xffff is not checked. */
#define RTE_PMD_DMA_MLX5_SIG_F_APP_ESCAPE (1u << 2)
/** Domain flag (T10-DIF): a block with app tag 0xffff and ref tag 0xffffffff is not
 * checked (wins over APP_ESCAPE). */
#define RTE_PMD_DMA_MLX5_SIG_F_APP_REF_ESCAPE (1u << 3)
/** Domain flag (source): do not verify the PI (check_mask ignored). */
#define RTE_PMD_DMA_MLX5_SIG_F_NO_CHECK (1u << 4)

/** One side's layout of blocks. */
struct rte_pmd_dma_mlx5_sig_domain {
	enum rte_pmd_dma_mlx5_sig_type type;
	/** Data bytes per block: 512, 520, 4048, 4096 or 4160 (rte_pmd_dma_mlx5_sig_caps). */
	uint16_t block_size;
	uint16_t flags;   /**< RTE_PMD_DMA_MLX5_SIG_F_* */
	uint16_t app_tag; /**< T10-DIF application tag */
	/**
	 * Source: PI bytes verified, bit 7 - i covers byte i (T10-DIF: 0xc0 guard,
	 * 0x30 app tag, 0x0f ref tag); 0: every byte of the PI.
	 */
	uint8_t check_mask;
	uint32_t ref_tag; /**< T10-DIF reference tag of the op's first block */
};

/** Transfer flag: verify the source only; no destination, nothing written. */
#define RTE_PMD_DMA_MLX5_SIG_XFER_VERIFY_ONLY (1u << 0)

/**
 * A signature copy. Each side is a list of segments of registered memory, laid out
 * one after the other; the source holds nb_blocks * (block_size + PI bytes of the
 * source domain) bytes, the destination the same with its own domain's PI size.
 * When both sides have a domain, the block sizes are equal.
 */
struct rte_pmd_dma_mlx5_sig_xfer {
	const struct rte_dma_sge *src; /**< source segments */
	const struct rte_dma_sge *dst; /**< destination segments (NULL with VERIFY_ONLY) */
	uint16_t nb_src;               /**< 1 .. rte_pmd_dma_mlx5_sig_caps.max_sge */
	uint16_t nb_dst;               /**< 1 .. max_sge (0 with VERIFY_ONLY) */
	uint32_t flags;                /**< RTE_PMD_DMA_MLX5_SIG_XFER_* */
	struct rte_pmd_dma_mlx5_sig_domain src_dom; /**< what the source holds */
	struct rte_pmd_dma_mlx5_sig_domain dst_dom; /**< what the destination gets */
};

/** Signature capabilities of a dma_mlx5 device. */
struct rte_pmd_dma_mlx5_sig_caps {
	uint32_t types;       /**< bit (1 << enum rte_pmd_dma_mlx5_sig_type) per type */
	uint16_t block_sizes; /**< RTE_PMD_DMA_MLX5_SIG_BS_* */
	uint16_t max_sge;     /**< segments per side of a signature copy */
	uint8_t enabled;      /**< 1: probed with sig=1, vchans take signature ops */
	uint8_t pipelining;   /**< 1: a failed verification stops the SQ (see copy_respond) */
	uint16_t mkeys;       /**< signature mkeys per vchan: at most 1 or 2 per op in flight */
};

#define RTE_PMD_DMA_MLX5_SIG_BS_512 (1u << 0)  /**< 512-byte blocks */
#define RTE_PMD_DMA_MLX5_SIG_BS_520 (1u << 1)  /**< 520-byte blocks */
#define RTE_PMD_DMA_MLX5_SIG_BS_4048 (1u << 2) /**< 4048-byte blocks */
#define RTE_PMD_DMA_MLX5_SIG_BS_4096 (1u << 3) /**< 4096-byte blocks */
#define RTE_PMD_DMA_MLX5_SIG_BS_4160 (1u << 4) /**< 4160-byte blocks */

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * The RTE_PMD_DMA_MLX5_SIG_BS_* bit of a block size, to test it against
 * rte_pmd_dma_mlx5_sig_caps.block_sizes.
 *
 * @param block_size
 *   Data bytes per block.
 * @return
 *   Its bit, or 0 for a block size no mlx5 device takes.
 */
__rte_experimental static inline uint16_t rte_pmd_dma_mlx5_sig_block_size_bit(uint32_t block_size)
{
	switch (block_size) {
	case 512:
		return RTE_PMD_DMA_MLX5_SIG_BS_512;
	case 520:
		return RTE_PMD_DMA_MLX5_SIG_BS_520;
	case 4048:
		return RTE_PMD_DMA_MLX5_SIG_BS_4048;
	case 4096:
		return RTE_PMD_DMA_MLX5_SIG_BS_4096;
	case 4160:
		return RTE_PMD_DMA_MLX5_SIG_BS_4160;
	default:
		return 0;
	}
}

/** Which PI field failed (the first failing field of the block, in T10 order). */
enum rte_pmd_dma_mlx5_sig_err_kind {
	RTE_PMD_DMA_MLX5_SIG_ERR_GUARD = 1, /**< T10-DIF guard, or the CRC */
	RTE_PMD_DMA_MLX5_SIG_ERR_APPTAG,    /**< T10-DIF application tag */
	RTE_PMD_DMA_MLX5_SIG_ERR_REFTAG,    /**< T10-DIF reference tag */
};

/** Details of a failed verification. */
struct rte_pmd_dma_mlx5_sig_err {
	uint16_t ring_idx; /**< the op */
	uint8_t kind;      /**< enum rte_pmd_dma_mlx5_sig_err_kind */
	uint8_t is_dst;    /**< 0: the source domain failed (only case today) */
	uint32_t block;    /**< index of the first failing block of the op */
	uint64_t offset;   /**< its first byte in the failing side's layout */
	/** Guard (CRC16 / CRC32 / CRC64), app tag (16 bits) or ref tag (32 bits). */
	uint64_t expected;
	uint64_t actual; /**< what the PI held */
};

/** Response of a "verify, then respond" pair: one copy, fenced after the transfer. */
struct rte_pmd_dma_mlx5_sig_response {
	rte_iova_t src;     /**< response bytes (registered memory) */
	rte_iova_t dst;     /**< where they go */
	uint32_t len;       /**< 1 .. max_wr_memcpy_length */
	rte_iova_t err_src; /**< 0: none; else sent to @c dst instead when verification fails */
	uint32_t err_len;   /**< bytes of the error response */
};

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Signature capabilities of a device.
 *
 * @param dev_id
 *   dmadev identifier of the device.
 * @param[out] caps
 *   Filled with the capabilities.
 * @return
 *   0; -ENOTSUP (one log line) when the device has no signature offload;
 *   -EINVAL when @p dev_id is not a dma_mlx5 device or @p caps is NULL.
 */
__rte_experimental int rte_pmd_dma_mlx5_sig_caps(int16_t dev_id,
						 struct rte_pmd_dma_mlx5_sig_caps *caps);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Enqueue a signature copy (see the group's description).
 *
 * @param dev_id
 *   dmadev identifier of the device.
 * @param vchan
 *   Virtual channel, configured by rte_dma_vchan_setup().
 * @param xfer
 *   The transfer.
 * @param flags
 *   RTE_DMA_OP_FLAG_FENCE, RTE_DMA_OP_FLAG_SUBMIT.
 * @return
 *   The ring index; -ENOSPC when the ring is full or every signature mkey is used by
 *   an op in flight (read completions); -EIO when the vchan is halted; -EPERM while
 *   the device is stopped;
 *   -ENOTSUP when the device or vchan takes no signature ops; -EINVAL (one log line,
 *   nothing posted) for a bad domain, block size, segment count, a length that is
 *   not a whole number of blocks, or a segment no MR covers.
 */
__rte_experimental int rte_pmd_dma_mlx5_sig_copy(int16_t dev_id, uint16_t vchan,
						 const struct rte_pmd_dma_mlx5_sig_xfer *xfer,
						 uint64_t flags);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Enqueue a "verify, then respond" pair: the signature copy @p xfer (ring index r)
 * and the copy @p resp (ring index r + 1), fenced behind it, so that the response
 * goes out without the application waiting for the verification. On a device with
 * pipelining, a failed verification stops the send queue before the response; the
 * driver cancels the response (or sends the error response in its place), and
 * resumes the queue: every other op continues. The transfer ends
 * RTE_DMA_STATUS_DATA_POISION; the response ends RTE_DMA_STATUS_SUCCESSFUL when
 * something went out (the response, or the error response when the transfer
 * failed), RTE_DMA_STATUS_NOT_ATTEMPTED when it was cancelled. Without pipelining
 * (caps.pipelining 0) the response goes out in any case.
 *
 * @return
 *   The ring index of the transfer; errors as rte_pmd_dma_mlx5_sig_copy() (also for
 *   a bad @p resp); nothing is posted unless both ops are.
 */
__rte_experimental int
rte_pmd_dma_mlx5_sig_copy_respond(int16_t dev_id, uint16_t vchan,
				  const struct rte_pmd_dma_mlx5_sig_xfer *xfer,
				  const struct rte_pmd_dma_mlx5_sig_response *resp, uint64_t flags);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Details of the failed verification of op @p ring_idx. The last 64 failures of a
 * vchan are kept.
 *
 * @return
 *   0; -ENOENT when no failure of that op is known; -EINVAL for a bad argument.
 */
__rte_experimental int rte_pmd_dma_mlx5_sig_error(int16_t dev_id, uint16_t vchan, uint16_t ring_idx,
						  struct rte_pmd_dma_mlx5_sig_err *err);

/** @} */

/**
 * @defgroup rte_pmd_dma_mlx5_remote Remote copies over DC transport
 *
 * A dma_mlx5 device can copy to and from the memory of other hosts through one DC
 * initiator (DCI): a **remote channel**. Each host that accepts copies creates a DC
 * target (rte_pmd_dma_mlx5_remote_target_create()) and hands its address, DCT number
 * and key, with the rkey of the memory it exposes (rte_pmd_dma_mlx5_remote_rkey()),
 * to the copying host out of band. There each becomes a peer of a channel
 * (rte_pmd_dma_mlx5_remote_peer_add()), and copies name the peer. Or the host
 * publishes all of that at an address of its fabric (rte_pmd_dma_mlx5_remote_listen(),
 * rdma-cm) and the copying host names the peer by that address
 * (rte_pmd_dma_mlx5_remote_peer_add_addr()).
 *
 * Ops take ring indices and complete in ring order with an rte_dma status, as on a
 * vchan, through rte_pmd_dma_mlx5_remote_completed(). Each peer has a DCI stream of
 * its own: an op that fails towards one peer (unreachable, wrong key, no access)
 * reports its status; the peer's later ops that the device flushed are posted again
 * once, after the stream is reset, while ops to other peers go on (flushed by the
 * peer's next failure they end RTE_DMA_STATUS_NOT_ATTEMPTED). When more peers fail
 * at once than the device keeps streams in error, the DCI is reset and every op it
 * flushed is posted again. No op is lost or executed twice; ops to one peer may
 * execute out of order after a failure.
 *
 * A peer reaches only memory its host exposed with a remote key
 * (rte_pmd_dma_mlx5_remote_rkey()), only within that key's range and rights, and only
 * until the key is released: a device registers DPDK memory for its own local access
 * and nothing else, and its vchans' QPs accept no remote request.
 *
 * A channel belongs to one lcore; its calls are not thread safe. Target and channel
 * creation are control-path calls; so is rte_pmd_dma_mlx5_remote_listen(), which
 * reads the device's targets and must not run while another thread creates one on
 * the same device. Remote keys are created and released on the
 * control path, from any thread (they take a lock of their own), but not while the
 * device is being closed.
 * @{
 */

/** Where a host's DC target is: what a peer needs (exchanged out of band). */
struct rte_pmd_dma_mlx5_remote_target {
	uint16_t lid;    /**< port LID of the target's device */
	uint32_t dctn;   /**< DCT number */
	uint64_t dc_key; /**< DC access key */
};

/** A peer of a remote channel: a DC target and the rkey of its exposed memory. */
struct rte_pmd_dma_mlx5_remote_peer {
	struct rte_pmd_dma_mlx5_remote_target target;
	uint32_t rkey; /**< from rte_pmd_dma_mlx5_remote_rkey() (or _access()) on the peer */
};

/** A remote channel (opaque). */
struct rte_pmd_dma_mlx5_remote;

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Create a DC target on device @p dev_id that accepts RDMA writes, reads and atomics
 * of hosts that know @p dc_key, each within the range and the rights of the remote
 * key it names (rte_pmd_dma_mlx5_remote_rkey_access()); a request with any other key
 * fails at the requester with a remote access error and touches nothing.
 *
 * @return
 *   0 and @p out filled; -ENOTSUP when the device has no DC transport; -EINVAL for a
 *   bad argument; -ENOMEM.
 */
__rte_experimental int
rte_pmd_dma_mlx5_remote_target_create(int16_t dev_id, uint64_t dc_key,
				      struct rte_pmd_dma_mlx5_remote_target *out);

/** Remote key right: RDMA reads of the range. */
#define RTE_PMD_DMA_MLX5_REMOTE_ACCESS_READ (1u << 0)
/** Remote key right: RDMA writes (and remote fills) into the range. */
#define RTE_PMD_DMA_MLX5_REMOTE_ACCESS_WRITE (1u << 1)
/** Remote key right: RDMA atomics (8 aligned bytes) inside the range. */
#define RTE_PMD_DMA_MLX5_REMOTE_ACCESS_ATOMIC (1u << 2)

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Expose [@p addr, @p addr + @p len) of this process's memory to peers: create a
 * remote key (rkey) of device @p dev_id that grants the rights @p access on exactly
 * that range, as ibv_reg_mr() does (the key is a memory region of its own). A peer's
 * request through the key that reaches one byte outside the range, or asks a right
 * the key lacks, fails with a remote access error at the peer
 * (RTE_DMA_STATUS_INVALID_ADDR on a remote channel) and touches nothing.
 *
 * The memory may be DPDK memory or any memory of the process, mapped with the rights
 * asked (readable; writable for WRITE and ATOMIC); it stays pinned until the key is
 * released. Release the key (rte_pmd_dma_mlx5_remote_rkey_release()) before the
 * memory is freed or reused: until then any peer that knows the key, the target's
 * address and its DC key may read or write the range. Keys still held when the
 * device is closed are released then.
 *
 * Several keys may cover the same memory; each is released on its own. Control
 * path: it registers memory with the device (a system call on hardware).
 *
 * @param dev_id
 *   dmadev identifier of a dma_mlx5 device.
 * @param addr
 *   First byte exposed (a virtual address: IOVA as VA).
 * @param len
 *   Bytes exposed, at least 1.
 * @param access
 *   RTE_PMD_DMA_MLX5_REMOTE_ACCESS_* flags, at least one.
 * @param[out] rkey
 *   The key, for rte_pmd_dma_mlx5_remote_peer.rkey on the peers.
 * @return
 *   0 and @p rkey set; -EINVAL for a device that is not dma_mlx5, a NULL @p addr or
 *   @p rkey, a @p len of 0 or past the end of the address space, or @p access with no
 *   or unknown flags (one log line names the value); -EFAULT when the range is not
 *   mapped with the rights asked; -ENOMEM; another negative errno of the
 *   registration.
 */
__rte_experimental int rte_pmd_dma_mlx5_remote_rkey_access(int16_t dev_id, const void *addr,
							   size_t len, uint32_t access,
							   uint32_t *rkey);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * rte_pmd_dma_mlx5_remote_rkey_access() with RTE_PMD_DMA_MLX5_REMOTE_ACCESS_READ |
 * RTE_PMD_DMA_MLX5_REMOTE_ACCESS_WRITE: a key that lets peers read and write exactly
 * [@p addr, @p addr + @p len). Release it with rte_pmd_dma_mlx5_remote_rkey_release().
 *
 * @return
 *   As rte_pmd_dma_mlx5_remote_rkey_access().
 */
__rte_experimental int rte_pmd_dma_mlx5_remote_rkey(int16_t dev_id, const void *addr, uint32_t len,
						    uint32_t *rkey);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Revoke remote key @p rkey of device @p dev_id: from the return on, every request
 * that names it fails with a remote access error at the peer (requests the device
 * is executing complete first), and the memory is unpinned. The caller makes sure no
 * peer still relies on the key.
 *
 * @return
 *   0; -EINVAL for a device that is not dma_mlx5; -ENOENT when @p rkey is not a key
 *   of the device still held (never created, or released already); another negative
 *   errno when the device refused to release it (the key then stays valid, and is
 *   released at close). One log line names the value on failure.
 */
__rte_experimental int rte_pmd_dma_mlx5_remote_rkey_release(int16_t dev_id, uint32_t rkey);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Create a remote channel of @p nb_desc ops in flight (a power of two, 32..4096) on
 * device @p dev_id: one DCI with a stream per peer.
 *
 * @return
 *   The channel; NULL with rte_errno ENOTSUP (no DC transport), EINVAL or ENOMEM.
 */
__rte_experimental struct rte_pmd_dma_mlx5_remote *rte_pmd_dma_mlx5_remote_create(int16_t dev_id,
										  uint16_t nb_desc);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Free a channel; ops still in flight are waited for (bounded) and dropped.
 */
__rte_experimental void rte_pmd_dma_mlx5_remote_free(struct rte_pmd_dma_mlx5_remote *ch);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Add a peer to a channel.
 *
 * @return
 *   The peer id (0, 1, ...), at most 65535 peers; -EINVAL for a bad argument;
 *   -ENOSPC; -ENOMEM.
 */
__rte_experimental int
rte_pmd_dma_mlx5_remote_peer_add(struct rte_pmd_dma_mlx5_remote *ch,
				 const struct rte_pmd_dma_mlx5_remote_peer *peer);

/** A DC target and a remote key published at an address (opaque). */
struct rte_pmd_dma_mlx5_remote_listener;

/** What a host published at an address: the peer, and the memory its key covers. */
struct rte_pmd_dma_mlx5_remote_published {
	struct rte_pmd_dma_mlx5_remote_peer peer; /**< its DC target and remote key */
	uint64_t addr; /**< first byte the key covers, in the publishing process */
	uint64_t len;  /**< bytes the key covers */
};

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Publish DC target @p target of device @p dev_id, with remote key @p rkey of the
 * same device and the range it covers, at IPv4 address and port @p addr
 * ("a.b.c.d:port"; "0.0.0.0:port" listens on every port of the host) through the
 * connection manager (rdma-cm): every host that connects there with
 * rte_pmd_dma_mlx5_remote_peer_add_addr() is handed the target's LID, DCT number and
 * DC key, the key and its range, in the connection's private data. A thread of the
 * driver answers until rte_pmd_dma_mlx5_remote_listen_close() (or the device's
 * close). The connection stands for a QPN reserved on the device
 * (mlx5dv_reserved_qpn_alloc()) while the listener lives.
 *
 * Whoever can connect to @p addr learns what a peer needs to read and write the
 * key's range (the driver guide, Security; on hardware any process of the subnet,
 * any uid): publish only what every such process may reach. Release the key only
 * after closing its listeners.
 *
 * Both backends have a connection manager: the rdma-core backend (dev=mlx5_<n>)
 * through Debian's librdmacm, loaded on first use; the embedded software HCA its
 * own, on the fabric's CM sockets, which a librdmacm process on the same named fabric
 * (devtools/sim-rdma) reaches too. On the software fabric 127.0.x.y names the port
 * of LID x << 8 | y.
 *
 * @return
 *   0 and @p out set; -EINVAL for a device that is not dma_mlx5, a NULL argument or
 *   an address that is not "a.b.c.d:port"; -ENOENT when @p target is not a DC target
 *   of the device or @p rkey not one of its keys; -ENOTSUP when the backend has no
 *   connection manager (rdma-core backend without librdmacm) or port 1 has no LID
 *   (RoCE: the answer names the target by LID); -EIO when the port cannot be
 *   queried; -EADDRINUSE,
 *   -EADDRNOTAVAIL, -ENODEV from the connection manager (the port taken, an address
 *   that is not the device's own); -ENOMEM. One log line names the value on failure.
 */
__rte_experimental int
rte_pmd_dma_mlx5_remote_listen(int16_t dev_id, const struct rte_pmd_dma_mlx5_remote_target *target,
			       uint32_t rkey, const char *addr,
			       struct rte_pmd_dma_mlx5_remote_listener **out);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Stop publishing at the listener's address and free it (its reserved QPN goes
 * back to the device). Peers added by that address before keep working: the
 * target and the key are released on their own. NULL does nothing.
 */
__rte_experimental void
rte_pmd_dma_mlx5_remote_listen_close(struct rte_pmd_dma_mlx5_remote_listener *listener);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Add the peer published at @p addr ("a.b.c.d:port", rte_pmd_dma_mlx5_remote_listen()
 * on the other host) to channel @p ch: connect there through the connection manager
 * (rdma-cm) with the channel's DCI as the connection's QPN, take the DC target and
 * the remote key from the answer's private data, and close the connection (DC
 * transport needs none). The answer is checked (size, tag, version, LID, range;
 * the LID must be the one of the port that answered) before anything is added. Control path: it
 * waits for the peer, each step bounded (5 s).
 *
 * @param[out] out
 *   What the peer published (may be NULL): the address of its range is the base of
 *   raddr for the channel's ops to this peer.
 * @return
 *   The peer id (as rte_pmd_dma_mlx5_remote_peer_add()); -EINVAL for a NULL argument
 *   or an address that is not "a.b.c.d:port"; -ECONNREFUSED when nobody publishes
 *   there (or the listener refused the request); -ETIMEDOUT when the peer does not
 *   answer (it died or is stuck); -ENODEV, -EHOSTUNREACH, -EADDRNOTAVAIL when the
 *   address names no port of the fabric; -EPROTO when the answer is short, not a
 *   dma_mlx5 target's or names another port's LID; -ENOTSUP when the backend has no connection
 * manager; -ENOSPC; -ENOMEM. One log line names the address on failure; nothing is added.
 */
__rte_experimental int
rte_pmd_dma_mlx5_remote_peer_add_addr(struct rte_pmd_dma_mlx5_remote *ch, const char *addr,
				      struct rte_pmd_dma_mlx5_remote_published *out);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Enqueue a copy of @p len bytes from local IOVA @p src to address @p raddr of peer
 * @p peer (an RDMA write). Local memory must be registered by the device (DPDK
 * memory).
 *
 * @param flags
 *   RTE_DMA_OP_FLAG_SUBMIT: submit this op and those before it.
 * @return
 *   The ring index; -ENOSPC when @p nb_desc ops are in flight or not yet reported;
 *   -EPERM from rte_dma_stop() to the next rte_dma_start() (ops posted before the
 *   stop complete as usual); -EINVAL for an unknown peer, a length of 0 or above
 *   2 GiB, or local memory no registered range covers (nothing is enqueued then).
 */
__rte_experimental int rte_pmd_dma_mlx5_remote_write(struct rte_pmd_dma_mlx5_remote *ch,
						     uint16_t peer, rte_iova_t src, uint64_t raddr,
						     uint32_t len, uint64_t flags);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Enqueue a copy of @p len bytes from address @p raddr of peer @p peer to local IOVA
 * @p dst (an RDMA read). As rte_pmd_dma_mlx5_remote_write() otherwise.
 */
__rte_experimental int rte_pmd_dma_mlx5_remote_read(struct rte_pmd_dma_mlx5_remote *ch,
						    uint16_t peer, uint64_t raddr, rte_iova_t dst,
						    uint32_t len, uint64_t flags);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Enqueue a fill of @p len bytes at address @p raddr of peer @p peer with
 * @p pattern, as rte_dma_fill() fills local memory: byte j is byte j % 8 of the
 * 64-bit pattern as it lies in memory. It is an RDMA write whose local bytes come
 * from a repeat-block mkey; the channel keeps 8 patterns at a time, so a ninth
 * pattern waits until the ops of one of them are reported.
 *
 * @param flags
 *   RTE_DMA_OP_FLAG_SUBMIT: submit this op and those before it.
 * @return
 *   The ring index; -ENOSPC when @p nb_desc ops are in flight or not yet reported, or
 *   8 other patterns are; -EPERM after rte_dma_stop() (as a write); -EINVAL for an unknown
 *   peer or a length of 0 or above 2 GiB; -ENOTSUP when the device has no indirect
 *   mkeys (nothing is enqueued then).
 */
__rte_experimental int rte_pmd_dma_mlx5_remote_fill(struct rte_pmd_dma_mlx5_remote *ch,
						    uint16_t peer, uint64_t pattern, uint64_t raddr,
						    uint32_t len, uint64_t flags);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Submit every op enqueued without RTE_DMA_OP_FLAG_SUBMIT.
 *
 * @return
 *   0; -EINVAL for a NULL channel.
 */
__rte_experimental int rte_pmd_dma_mlx5_remote_submit(struct rte_pmd_dma_mlx5_remote *ch);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Report up to @p nb_cpls completed ops in ring order, each with its status in
 * @p status (RTE_DMA_STATUS_SUCCESSFUL, or why it failed: DEV_LINK_ERROR for an
 * unreachable peer or a wrong key, INVALID_ADDR for an access the peer refused, ...).
 * Failed ops towards a peer are handled here (stream reset, later ops posted again).
 *
 * @param last_idx
 *   Ring index of the last op reported (unchanged when none).
 * @return
 *   Ops reported.
 */
__rte_experimental uint16_t rte_pmd_dma_mlx5_remote_completed(struct rte_pmd_dma_mlx5_remote *ch,
							      uint16_t nb_cpls, uint16_t *last_idx,
							      enum rte_dma_status_code *status);

/** Counters of a remote channel. */
struct rte_pmd_dma_mlx5_remote_stats {
	uint64_t submitted;      /**< ops enqueued */
	uint64_t completed;      /**< ops reported */
	uint64_t errors;         /**< ops reported with a failure */
	uint64_t reposted;       /**< flushed ops posted again */
	uint64_t stream_resets;  /**< streams reset after a failure */
	uint64_t dci_recoveries; /**< DCI resets (too many streams in error at once) */
};

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * The channel's counters.
 *
 * @return
 *   0; -EINVAL for a bad argument.
 */
__rte_experimental int rte_pmd_dma_mlx5_remote_stats_get(const struct rte_pmd_dma_mlx5_remote *ch,
							 struct rte_pmd_dma_mlx5_remote_stats *st);

/** rte_pmd_dma_mlx5_remote_data_in_order(): an RDMA write's bytes land in order. */
#define RTE_PMD_DMA_MLX5_REMOTE_IN_ORDER_WHOLE_MSG (1u << 0)
/** rte_pmd_dma_mlx5_remote_data_in_order(): each aligned 128-byte block in order. */
#define RTE_PMD_DMA_MLX5_REMOTE_IN_ORDER_ALIGNED_128 (1u << 1)

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * What DC target @p dctn of device @p dev_id (the receiving host) promises about the
 * order in which the bytes of an RDMA write land in its memory
 * (ibv_query_qp_data_in_order() on its DCT). With
 * RTE_PMD_DMA_MLX5_REMOTE_IN_ORDER_WHOLE_MSG the receiving side may detect a write's
 * arrival by its last byte (rte_pmd_dma_mlx5_remote_arrived()) instead of a message
 * of its own; without it, it must not.
 *
 * @return
 *   RTE_PMD_DMA_MLX5_REMOTE_IN_ORDER_* flags (0: no promise); -EINVAL for a bad
 *   device; -ENOENT when @p dctn is not a target of the device.
 */
__rte_experimental int rte_pmd_dma_mlx5_remote_data_in_order(int16_t dev_id, uint32_t dctn);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Poll-on-data, the receiving side: whether the message of @p len bytes at @p buf has
 * arrived, judged by its last byte holding @p mark. When it returns true every byte
 * of the message can be read. Preconditions, all of them:
 * - the target's device reports RTE_PMD_DMA_MLX5_REMOTE_IN_ORDER_WHOLE_MSG;
 * - the message is one remote write (one op, not split by the writer), and its last
 *   byte is @p mark, a value the last byte did not hold before (e.g. a sequence
 *   number, the buffer cleared after use);
 * - nobody else writes the buffer meanwhile.
 */
__rte_experimental static inline int rte_pmd_dma_mlx5_remote_arrived(const void *buf, uint32_t len,
								     uint8_t mark)
{
	/* acquire: the message's other bytes are read after its last one */
	return len && __atomic_load_n((const uint8_t *)buf + len - 1, __ATOMIC_ACQUIRE) == mark;
}

/** @} */

/**
 * @defgroup rte_pmd_dma_mlx5_domain Inter-process domain (DPDK 25.11)
 *
 * Built against DPDK 25.11 or later, dma_mlx5 reports RTE_DMA_CAPA_INTER_PROCESS_DOMAIN
 * and takes DPDK's access pair groups (rte_dma_access_pair_group_create() and the
 * others): a vchan whose rte_dma_vchan_conf.domain names, through two handlers, this
 * process and a peer process of the same group copies with plain rte_dma_copy() into
 * the peer's memory (destination handler the peer's) or out of it (source handler the
 * peer's), as remote copies over DC transport. What a member grants its group is one
 * window of its memory, given here; a member that gave none is reached by nobody.
 * @{
 */

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Expose [@p addr, @p addr + @p len) of this process to the other members of access
 * pair group @p group_id of device @p dev_id (created or joined by it), with the rights
 * @p access (RTE_PMD_DMA_MLX5_REMOTE_ACCESS_READ and/or _WRITE): a remote key over
 * exactly that range behind a DC target of its own with a random DC key. Members that
 * take a handler of this process's domain afterwards (rte_dma_access_pair_group_handler_get())
 * may copy into or out of the window, nothing else; an access outside it, or one the
 * rights do not grant, completes with RTE_DMA_STATUS_INVALID_ADDR at the peer and
 * touches nothing. The window stays exposed until the device leaves or destroys the
 * group, or is closed; keep the memory until then.
 *
 * @return
 *   0; -EINVAL for a device that is not dma_mlx5, a group the device is not in, or a
 *   bad range or access (one log line names the value); -EBUSY when the device exposes
 *   a window to the group already; -EFAULT, -ENOMEM, -ENOTSUP (no DC transport), or the
 *   group creator's refusal.
 */
__rte_experimental int rte_pmd_dma_mlx5_group_expose(int16_t dev_id, int16_t group_id,
						     const void *addr, size_t len, uint32_t access);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* RTE_PMD_DMA_MLX5_H */
