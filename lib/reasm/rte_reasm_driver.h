/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RTE_REASM_DRIVER_H
#define RTE_REASM_DRIVER_H

/**
 * @file
 * rte_reasm engine (device driver) interface: for engine modules, not applications.
 *
 * rte_reasm_engine_dma_create() makes a generic dmadev engine: rte_dma_copy_sg, or one
 * rte_dma_copy per piece. A module that can describe gathers better on the dmadevs of
 * one dmadev driver (one indirect memory key over a list of pieces, a strided key over
 * header/payload records, ...) registers a struct rte_reasm_dev_driver, usually from a
 * constructor (RTE_INIT). The engine of a dmadev whose driver has a module then asks the
 * module first (RTE_REASM_DMA_AUTO, RTE_REASM_DMA_UMR) and takes the generic path for
 * what the module declines. The library knows no device; it finds the module by the
 * name of the dmadev's driver (the rte_device the dmadev was made for).
 *
 * The module queues its ops on the engine's own vchan, behind and before the generic
 * path's ones, and never rings the doorbell or polls: the engine does, and gives the
 * ring indexes it completed back (completed()) so that the module can reuse what those
 * ops held. Every call comes from the lcore that owns the engine; gather(),
 * gather_strided() and completed() are the fast path (no allocation, lock, system call
 * or logging).
 */

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_compat.h>

#include "rte_reasm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One contiguous piece of a gather: the CPU uses va, a device iova. */
struct rte_reasm_dev_sge {
	void *va;        /**< Virtual address. */
	rte_iova_t iova; /**< IO address of va. */
	uint32_t len;    /**< Bytes. */
};

/** A gather of one datagram/packet: pieces of src, in order, into pieces of dst. */
struct rte_reasm_dev_gather {
	const struct rte_reasm_dev_sge *src; /**< Source pieces. */
	const struct rte_reasm_dev_sge *dst; /**< Destination pieces (same total length). */
	uint16_t nb_src;                     /**< Number of source pieces. */
	uint16_t nb_dst;                     /**< Number of destination pieces. */
};

/**
 * A header-data split (rte_reasm_split_enqueue()) of one contiguous packet into one
 * contiguous packet, described by its records rather than its pieces: @c offset bytes
 * copied as they are, then @c nrec records of @c hdr_len + @c pay_len bytes (see
 * rte_reasm.h for the output layout and the reverse). hdr_len + pay_len <= UINT16_MAX.
 */
struct rte_reasm_dev_strided {
	struct rte_reasm_dev_sge in;  /**< The input packet. */
	struct rte_reasm_dev_sge out; /**< The output packet. */
	uint32_t offset;              /**< Bytes before the first record. */
	uint32_t hdr_len;             /**< Header bytes of a record. */
	uint32_t pay_len;             /**< Payload bytes of a record. */
	uint32_t nrec;                /**< Number of records. */
	bool keep_headers;            /**< The headers follow the payloads in the output. */
	bool reverse;                 /**< Payloads (then headers) in, records out. */
};

/**
 * An engine module: the dmadev driver it serves and its gather path. @p path is what
 * create() gave. gather() and gather_strided() return 0 when every op of the gather is
 * queued, with @p last the ring index of its last op (its completion ends the gather);
 * else a negative errno: -ENOTSUP (not on this path: the generic one takes it),
 * -ENOSPC or -EBUSY (full now: the caller retries after a poll). A failure after some
 * ops were queued sets @p last to the last of them (the engine waits for it and the
 * generic path decides), else @p last is -1.
 */
struct rte_reasm_dev_driver {
	/** Name of the dmadev's driver it serves (rte_driver_name()). */
	const char *dma_driver;
	/** rte_reasm_engine_kind() of an engine using it, e.g. "dma-umr". */
	const char *kind;
	/**
	 * Set the path up on @p vchan of @p dev_id (configured and started). NULL with
	 * rte_errno ENOTSUP when this device cannot; logged by the module, as an error when
	 * @p required (RTE_REASM_DMA_UMR: engine creation then fails), else at DEBUG.
	 */
	void *(*create)(int16_t dev_id, uint16_t vchan, bool required);
	/** Release the path; none of its ops is in flight any more. */
	void (*destroy)(void *path);
	/** Queue a gather (see above). */
	int (*gather)(void *path, const struct rte_reasm_dev_gather *g, int *last);
	/** Optional: queue a header-data split (see above). */
	int (*gather_strided)(void *path, const struct rte_reasm_dev_strided *s, int *last);
	/** The @p n ops ending at ring index @p last completed, in order. */
	void (*completed)(void *path, uint16_t last, uint16_t n);
};

/**
 * @internal
 * Register an engine module. The structure stays the module's and must outlive the
 * registration.
 *
 * @return
 *   0; -EINVAL (NULL, or a required member missing, logged); -EEXIST (a module serves
 *   that dmadev driver already); -ENOSPC (too many modules).
 */
__rte_internal int rte_reasm_dev_driver_register(const struct rte_reasm_dev_driver *drv);

/**
 * @internal
 * Unregister an engine module (its destructor). Engines made with it must be freed.
 *
 * @return
 *   0, or -ENOENT when it is not registered.
 */
__rte_internal int rte_reasm_dev_driver_unregister(const struct rte_reasm_dev_driver *drv);

#ifdef __cplusplus
}
#endif

#endif /* RTE_REASM_DRIVER_H */
