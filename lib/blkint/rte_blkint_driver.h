/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RTE_BLKINT_DRIVER_H
#define RTE_BLKINT_DRIVER_H

/**
 * @file
 * rte_blkint engine (device driver) interface: for engine modules, not applications.
 *
 * librte_blkint runs every op on the CPU itself and knows no device. A module that can
 * run ops on the dmadevs of one dmadev driver registers a struct rte_blkint_dev_driver
 * (usually from a constructor, RTE_INIT). rte_blkint_create() given a dmadev looks up
 * the driver of that device (the rte_device the dmadev was made for) and, when a module
 * is registered for it, asks it for a per-context engine; without one, or when the
 * module declines (rte_errno ENOTSUP), the context runs on the CPU.
 *
 * The engine gets jobs with the formats already checked and copied, by slot: the job
 * stays in its slot, unchanged, until the engine reports it done from poll(). A job the
 * engine cannot express goes back to the CPU (-ENOTSUP from submit()). Every call on an
 * engine comes from the lcore that owns the context; submit(), doorbell() and poll()
 * are the fast path (no allocation, lock, system call or logging).
 */

#include <stdint.h>

#include <rte_compat.h>

#include "rte_blkint.h"

#ifdef __cplusplus
extern "C" {
#endif

/** An op as the engine gets it: the op, its formats copied (op.*_fmt point at them). */
struct rte_blkint_dev_job {
	struct rte_blkint_op op;          /**< The op; src_fmt/dst_fmt point below. */
	struct rte_blkint_format src_fmt; /**< Layout of src (zero when the op has none). */
	struct rte_blkint_format dst_fmt; /**< Layout of dst (zero when the op has none). */
};

/** A job the engine completed: its slot, its status and error as the CPU gives them. */
struct rte_blkint_dev_done {
	uint32_t slot;                 /**< Slot given to submit(). */
	enum rte_blkint_status status; /**< OK, ERR_PI (with error) or ERR_ENGINE. */
	struct rte_blkint_error error; /**< With RTE_BLKINT_ERR_PI. */
};

/** The operations of an engine; @p engine is what rte_blkint_dev_driver::create gave. */
struct rte_blkint_dev_ops {
	/**
	 * Queue @p job (no doorbell yet). 0 queued; -ENOSPC the ring is full now (the
	 * caller retries after a poll); -ENOTSUP not on this engine (the CPU runs it).
	 * Nothing is queued on error.
	 */
	int (*submit)(void *engine, const struct rte_blkint_dev_job *job, uint32_t slot);
	/** Ring the doorbell for the jobs queued since the last call. */
	void (*doorbell)(void *engine);
	/** Up to @p n completed jobs, in completion order; how many. */
	uint16_t (*poll)(void *engine, struct rte_blkint_dev_done *done, uint16_t n);
	/**
	 * Optional: why the jobs in flight can never complete (the device is gone), or
	 * NULL. Slow path: rte_blkint_free() asks before each poll while it waits.
	 */
	const char *(*lost)(const void *engine);
	/** Release the engine; nothing of the context is in flight on it any more. */
	void (*destroy)(void *engine);
};

/** An engine module: what it serves and how it makes an engine. */
struct rte_blkint_dev_driver {
	/** Name of the dmadev's driver it serves (rte_driver_name()), e.g. a vdev's. */
	const char *dma_driver;
	/** Name of its engines in telemetry (/blkint/list, engine). */
	const char *kind;
	/**
	 * Make an engine over @p vchan of dmadev @p dev_id (configured and started by the
	 * application) holding up to @p depth jobs in flight. NULL with rte_errno:
	 * ENOTSUP (this device cannot: the context runs on the CPU, logged once by the
	 * module), anything else fails rte_blkint_create() with it.
	 */
	void *(*create)(int16_t dev_id, uint16_t vchan, uint32_t depth);
	/** The engine's operations (all but lost required). */
	const struct rte_blkint_dev_ops *ops;
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
__rte_internal int rte_blkint_dev_driver_register(const struct rte_blkint_dev_driver *drv);

/**
 * @internal
 * Unregister an engine module (its destructor). Contexts made with it must be freed.
 *
 * @return
 *   0, or -ENOENT when it is not registered.
 */
__rte_internal int rte_blkint_dev_driver_unregister(const struct rte_blkint_dev_driver *drv);

/** T10-DIF fields a verification of @p fmt checks (rte_blkint_format::check, 0: all). */
static inline uint32_t rte_blkint_dev_check_mask(const struct rte_blkint_format *fmt)
{
	return fmt->check ? fmt->check : RTE_BLKINT_CHECK_ALL;
}

#ifdef __cplusplus
}
#endif

#endif /* RTE_BLKINT_DRIVER_H */
