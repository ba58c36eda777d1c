/* SPDX-License-Identifier: BSD-3-Clause */
/* The context of rte_blkint (one per lcore), its device-engine interface and the CPU ops. */
#ifndef BLKINT_PRIV_H
#define BLKINT_PRIV_H

#include <stdint.h>

#include <rte_common.h>

#include "blkint_pi.h"
#include "rte_blkint.h"
#include "rte_blkint_driver.h"

/**
 * A device engine (a registered module's, or a test's). The context hands it jobs by slot index and
 * polls completions; the job stays in its slot until then. Ops it cannot express go to the CPU
 * (-ENOTSUP).
 */
struct blkint_dev {
	virtual ~blkint_dev() = default;
	virtual const char *kind() const = 0;
	/** 0 queued; -ENOSPC ring full now; -ENOTSUP not on this engine. Nothing on error. */
	virtual int submit(const struct rte_blkint_dev_job *job, uint32_t slot) = 0;
	/** Ring the doorbell for the jobs queued since the last call. */
	virtual void doorbell() = 0;
	/** Completed jobs in completion order. */
	virtual uint16_t poll(struct rte_blkint_dev_done *done, uint16_t n) = 0;
	/**
	 * Why the jobs in flight can never complete (the device is gone), or NULL. Slow
	 * path: rte_blkint_free() asks it before each poll.
	 */
	virtual const char *lost() const { return NULL; }
};

/** Run @p job on the CPU (moving data, writing PI) and fill @p res (not user_data). */
void blkint_cpu_run(const struct rte_blkint_dev_job *job, struct rte_blkint_result *res);

/**
 * Cross-check of a device result: recompute @p job on the CPU (read-only) and compare with
 * @p done (status, error details, and the PI bytes the device wrote). true when equal;
 * otherwise @p done becomes RTE_BLKINT_ERR_XCHECK with the first difference.
 */
bool blkint_xcheck(const struct rte_blkint_dev_job *job, struct rte_blkint_dev_done *done);

/** Check one op against its formats (one log line naming the bad field). 0 or -EINVAL. */
int blkint_op_check(const struct rte_blkint_op *op);

/** Bytes of one block plus its PI in layout @p fmt. */
static inline uint32_t blkint_stride(const struct rte_blkint_format *fmt)
{
	return fmt->block_size + blkint_pi_size(fmt->type);
}

/** White-box (tests): a context over the given device engine (owned by the context). */
struct rte_blkint_ctx *blkint_create_with_dev(const struct rte_blkint_conf *conf,
					      struct blkint_dev *dev);

/**
 * The engine of the module registered for @p dev_id's driver over @p vchan, or NULL:
 * rte_errno ENOTSUP (no module, or it declined: the context runs on the CPU; logged
 * once), EINVAL (no such device or vchan), or what the module set.
 */
struct blkint_dev *blkint_dev_create(int16_t dev_id, uint16_t vchan, uint32_t depth);

/** Telemetry registry (blkint_telemetry.cpp). */
int blkint_registry_add(struct rte_blkint_ctx *c);
void blkint_registry_del(struct rte_blkint_ctx *c);
const char *blkint_ctx_name(const struct rte_blkint_ctx *c);
const char *blkint_ctx_engine_kind(const struct rte_blkint_ctx *c);

#endif /* BLKINT_PRIV_H */
