/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RTE_BLKINT_H
#define RTE_BLKINT_H

/**
 * @file
 * rte_blkint: block integrity (librte_blkint).
 *
 * Generate (insert), verify, strip and convert the protection information (PI) of
 * fixed-size data blocks, copying from one buffer to another or in place. The PI of a
 * block follows its data (interleaved, as on the wire of a block device), big-endian:
 *  - T10-DIF, 8 bytes: guard (CRC16 0x8BB7 or IP checksum), application tag, reference tag;
 *  - CRC32 (IEEE, reflected) or CRC32C (Castagnoli, reflected), 4 bytes;
 *  - CRC64 (ECMA-182 polynomial, not reflected: the XP10 variant), 8 bytes.
 * Data block sizes: 512, 520, 4048, 4096, 4160 bytes.
 *
 * Ops run on an engine: the CPU (ISA-L; at enqueue time) or a dmadev vchan through the
 * engine module registered for the dmadev's driver (rte_blkint_driver.h; asynchronous).
 * A context given a dmadev sends ops of at least rte_blkint_conf::min_dev_blocks blocks
 * to the device when its module takes the device, and everything else to the CPU; both
 * give the same bytes and the same error reports.
 * A sample of the device's ops (rte_blkint_conf::xcheck_rate) is recomputed on the CPU.
 *
 * Results come back from rte_blkint_dequeue() in completion order (CPU ops at once, device
 * ops when the device completes them), each with the op's user_data.
 *
 * Thread model: a context belongs to one lcore (like a dmadev vchan); use one per lcore.
 * Only rte_blkint_stats_get() may be called from another thread (its counters may be a
 * burst behind). The fast path allocates nothing, takes no lock and makes no system call.
 */

#include <stdint.h>

#include <rte_compat.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A block-integrity context (opaque): one per lcore. */
struct rte_blkint_ctx;

/** Kind of protection information of a layout. */
enum rte_blkint_pi_type {
	RTE_BLKINT_PI_NONE = 0, /**< Data blocks back to back, no PI. */
	RTE_BLKINT_PI_T10DIF,   /**< 8 bytes: guard, app tag, ref tag. */
	RTE_BLKINT_PI_CRC32,    /**< 4 bytes: CRC-32 (IEEE 802.3 polynomial, reflected). */
	RTE_BLKINT_PI_CRC32C,   /**< 4 bytes: CRC-32C (Castagnoli, reflected). */
	RTE_BLKINT_PI_CRC64,    /**< 8 bytes: CRC-64 ECMA-182 polynomial, not reflected. */
	RTE_BLKINT_PI_MAX,
};

/** Guard of a T10-DIF tuple. */
enum rte_blkint_guard {
	RTE_BLKINT_GUARD_CRC16 = 0, /**< CRC16, polynomial 0x8BB7 (T10-DIF CRC). */
	RTE_BLKINT_GUARD_IPCSUM,    /**< IP checksum of the block (RFC 1071). */
};

/** T10-DIF: the reference tag of block b is ref_tag + b (Type 1), else ref_tag. */
#define RTE_BLKINT_F_REF_INC (1u << 0)
/** T10-DIF: a block whose app tag is 0xffff is not checked. */
#define RTE_BLKINT_F_APP_ESCAPE (1u << 1)
/** T10-DIF: a block whose app tag is 0xffff and ref tag 0xffffffff is not checked (wins). */
#define RTE_BLKINT_F_APP_REF_ESCAPE (1u << 2)

/** T10-DIF fields checked by a verification (rte_blkint_format::check; 0: all). */
#define RTE_BLKINT_CHECK_GUARD (1u << 0)
#define RTE_BLKINT_CHECK_APPTAG (1u << 1)
#define RTE_BLKINT_CHECK_REFTAG (1u << 2)
#define RTE_BLKINT_CHECK_ALL 7u

/** The layout and PI of a buffer. */
struct rte_blkint_format {
	enum rte_blkint_pi_type type;
	/** Data bytes of a block: 512, 520, 4048, 4096 or 4160. */
	uint32_t block_size;
	/** T10-DIF guard kind. */
	enum rte_blkint_guard guard;
	/** T10-DIF guard seed: 0 or 0xffff. */
	uint16_t guard_seed;
	/** T10-DIF application tag (generated; checked when RTE_BLKINT_CHECK_APPTAG). */
	uint16_t app_tag;
	/** RTE_BLKINT_F_* (T10-DIF only). */
	uint32_t flags;
	/** RTE_BLKINT_CHECK_* (T10-DIF only; 0 means RTE_BLKINT_CHECK_ALL). */
	uint32_t check;
	/** CRC32/CRC32C/CRC64 seed: 0 or all ones (see the programmer's guide). */
	uint64_t crc_seed;
};

/** What an op does. src/dst layouts: P = protected (its format), D = data only. */
enum rte_blkint_op_type {
	/** Generate: src D -> dst P (dst_fmt); in place: the buffer is P, its PI written. */
	RTE_BLKINT_OP_INSERT = 0,
	/** Verify src P (src_fmt); dst must be NULL. */
	RTE_BLKINT_OP_VERIFY,
	/** Verify src P and copy its data: dst D; in place: the data moves to the front. */
	RTE_BLKINT_OP_STRIP,
	/** Verify src P, write dst P with dst_fmt (same block size); in place: PI rewritten. */
	RTE_BLKINT_OP_CONVERT,
	RTE_BLKINT_OP_MAX,
};

/** One op. The formats are read at enqueue time; the buffers must stay until dequeued. */
struct rte_blkint_op {
	enum rte_blkint_op_type type;
	/** Number of blocks (> 0). */
	uint32_t nb_blocks;
	/** Source buffer. */
	void *src;
	/** Destination buffer; NULL for VERIFY; equal to src for an in-place op. */
	void *dst;
	/** Layout of src (VERIFY, STRIP, CONVERT). */
	const struct rte_blkint_format *src_fmt;
	/** Layout of dst (INSERT, CONVERT; the buffer's layout for an in-place INSERT). */
	const struct rte_blkint_format *dst_fmt;
	/** T10-DIF reference tag of the op's first block in src. */
	uint32_t src_ref_tag;
	/** T10-DIF reference tag of the op's first block in dst. */
	uint32_t dst_ref_tag;
	/** Returned in the result. */
	uint64_t user_data;
};

/** Status of a completed op. */
enum rte_blkint_status {
	RTE_BLKINT_OK = 0,     /**< Done; every checked block was good. */
	RTE_BLKINT_ERR_PI,     /**< A source block failed its check: see rte_blkint_error. */
	RTE_BLKINT_ERR_XCHECK, /**< The device's result differs from the CPU's recomputation. */
	RTE_BLKINT_ERR_ENGINE, /**< The device failed the op (no result; data undefined). */
};

/** The PI field that failed. */
enum rte_blkint_field {
	RTE_BLKINT_FIELD_NONE = 0,
	RTE_BLKINT_FIELD_GUARD,  /**< T10-DIF guard. */
	RTE_BLKINT_FIELD_APPTAG, /**< T10-DIF application tag. */
	RTE_BLKINT_FIELD_REFTAG, /**< T10-DIF reference tag. */
	RTE_BLKINT_FIELD_CRC,    /**< CRC32/CRC32C/CRC64 value. */
	RTE_BLKINT_FIELD_MAX,
};

/**
 * Where a verification failed: the first failing block, and its first failing field in
 * T10 order (guard, app tag, ref tag). Data still moves through failing blocks (STRIP,
 * CONVERT), and CONVERT writes dst PI for them too, as the device does.
 */
struct rte_blkint_error {
	uint32_t block;              /**< Index of the block in the op. */
	enum rte_blkint_field field; /**< Which field. */
	uint64_t expected;           /**< Computed or configured value. */
	uint64_t actual;             /**< Value found in the block's PI. */
};

/** Result of an op. */
struct rte_blkint_result {
	uint64_t user_data;            /**< The op's user_data. */
	enum rte_blkint_status status; /**< See enum rte_blkint_status. */
	uint8_t on_device;             /**< 1: the device ran it; 0: the CPU. */
	struct rte_blkint_error error; /**< With RTE_BLKINT_ERR_PI / _XCHECK. */
};

/** Defaults of struct rte_blkint_conf (a 0 field takes its default). */
#define RTE_BLKINT_DEFAULT_MAX_INFLIGHT 256
#define RTE_BLKINT_DEFAULT_MIN_DEV_BLOCKS 1

/** Context configuration. */
struct rte_blkint_conf {
	/** Name in telemetry (/blkint/list); unique among live contexts. */
	const char *name;
	/**
	 * dmadev whose driver has an engine module (rte_blkint_driver.h), or -1: CPU only.
	 * Its vchan @c vchan is configured (mem-to-mem) and started by the caller and used
	 * by no one else. The module registers when it is loaded: linked in (whole, its
	 * constructor runs), or an EAL plugin (its directory, or -d).
	 */
	int16_t dev_id;
	/** vchan of dev_id. */
	uint16_t vchan;
	/** Ops of fewer blocks run on the CPU (default 1: every op goes to the device). */
	uint32_t min_dev_blocks;
	/** Results not yet dequeued plus device ops in flight (default 256, power of 2). */
	uint32_t max_inflight;
	/** Fraction 0..1 of completed device ops recomputed on the CPU. */
	double xcheck_rate;
	/** NUMA socket of the context's memory. */
	int socket_id;
};

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Create a context. A dmadev whose driver has no engine module, or whose module declines
 * it (no signature offload), leaves the context on the CPU (logged once;
 * rte_blkint_on_device() says 0).
 *
 * @return
 *   The context, or NULL with rte_errno set: EINVAL (NULL conf or name, a limit or the
 *   rate out of range, logged), EEXIST (name taken), ENOMEM.
 */
__rte_experimental struct rte_blkint_ctx *rte_blkint_create(const struct rte_blkint_conf *conf);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Free a context after waiting for its device ops in flight, at most 1 s; their results
 * are dropped. NULL is allowed.
 *
 * The wait ends at once when the context's dmadev was closed, and after 1 s when the ops
 * never complete (the vchan was set up again, the device hangs). The context's memory is
 * released in every case (the device never touches it); one ERR log line gives the
 * number of ops left. Those ops' destination buffers belong to the application again only
 * once the dmadev is stopped (rte_dma_stop()), which ends any op it still executes.
 */
__rte_experimental void rte_blkint_free(struct rte_blkint_ctx *ctx);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * 1 when the context sends ops to a device, 0 when it runs everything on the CPU.
 */
__rte_experimental int rte_blkint_on_device(const struct rte_blkint_ctx *ctx);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Check a format: 0, or -EINVAL with one log line naming the bad field.
 */
__rte_experimental int rte_blkint_format_check(const struct rte_blkint_format *fmt);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Bytes of @p nb_blocks blocks in layout @p fmt: data plus PI (type NONE: data only).
 */
__rte_experimental uint64_t rte_blkint_buf_len(const struct rte_blkint_format *fmt,
					       uint32_t nb_blocks);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Queue ops. A CPU op is done before the call returns; its result waits for dequeue.
 *
 * @return
 *   Number of ops accepted from the start of @p ops. Fewer than @p n when the context or
 *   the device is full (rte_errno ENOSPC: dequeue, then give the rest again) or when op number
 *   <return value> is invalid (rte_errno EINVAL, one log line; that op is not taken).
 */
__rte_experimental uint16_t rte_blkint_enqueue(struct rte_blkint_ctx *ctx,
					       const struct rte_blkint_op *ops, uint16_t n);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Collect results of completed ops in completion order; polls the device.
 *
 * @return
 *   Number of results stored in @p res.
 */
__rte_experimental uint16_t rte_blkint_dequeue(struct rte_blkint_ctx *ctx,
					       struct rte_blkint_result *res, uint16_t n);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Ops given and not yet dequeued (in flight on the device plus results waiting).
 */
__rte_experimental uint32_t rte_blkint_pending(const struct rte_blkint_ctx *ctx);

/** Engines counted apart in struct rte_blkint_stats. */
enum rte_blkint_engine {
	RTE_BLKINT_ENGINE_CPU = 0,
	RTE_BLKINT_ENGINE_DEV,
	RTE_BLKINT_ENGINE_MAX,
};

/** Counters of one engine. */
struct rte_blkint_engine_stats {
	uint64_t ops;                             /**< Ops completed. */
	uint64_t blocks;                          /**< Blocks of those ops. */
	uint64_t bytes;                           /**< Data bytes of those ops. */
	uint64_t op_kind[RTE_BLKINT_OP_MAX];      /**< Ops by type. */
	uint64_t pi_errors[RTE_BLKINT_FIELD_MAX]; /**< Ops failed by PI field. */
	uint64_t engine_errors;                   /**< Ops the device failed. */
	uint64_t xcheck_run;                      /**< Ops recomputed on the CPU. */
	uint64_t xcheck_failed;                   /**< Of them, mismatches. */
};

/** Counters of a context (since creation or the last rte_blkint_stats_reset()). */
struct rte_blkint_stats {
	struct rte_blkint_engine_stats engine[RTE_BLKINT_ENGINE_MAX];
	uint64_t small_to_cpu;   /**< Ops under min_dev_blocks sent to the CPU. */
	uint64_t inplace_to_cpu; /**< In-place ops sent to the CPU (the device copies). */
	uint64_t refused_to_cpu; /**< Ops the device could not take (memory, caps, PMD). */
	uint64_t dev_busy;       /**< Device ring full at enqueue (op left to the caller). */
};

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Read the counters. The same numbers are in telemetry: /blkint/list, /blkint/stats,<name>.
 *
 * @return
 *   0, or -EINVAL (NULL argument).
 */
__rte_experimental int rte_blkint_stats_get(const struct rte_blkint_ctx *ctx,
					    struct rte_blkint_stats *stats);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Zero the counters. Same lcore as the data path.
 */
__rte_experimental void rte_blkint_stats_reset(struct rte_blkint_ctx *ctx);

/**
 * @warning
 * @b EXPERIMENTAL: this API may change without prior notice.
 *
 * Name of a field as in telemetry ("guard", "apptag", "reftag", "crc"), or NULL.
 */
__rte_experimental const char *rte_blkint_field_name(enum rte_blkint_field field);

#ifdef __cplusplus
}
#endif

#endif /* RTE_BLKINT_H */
