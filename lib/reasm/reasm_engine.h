/* SPDX-License-Identifier: BSD-3-Clause */
/* The copy engines behind rte_reasm: one interface, a CPU and a dmadev implementation. */
#ifndef REASM_ENGINE_H
#define REASM_ENGINE_H

#include <stdint.h>

#include <rte_common.h>

#include "rte_reasm_driver.h"

/** reasm_engine::gather() results besides a negative errno. */
enum {
	REASM_GATHER_QUEUED = 0,
	REASM_GATHER_DONE = 1
};

struct rte_reasm_engine {
	virtual ~rte_reasm_engine() = default;
	virtual const char *kind() const = 0;
	/** Most pieces per side one gather may have on this engine. */
	virtual uint32_t max_sges() const = 0;
	/**
	 * Start a gather. REASM_GATHER_DONE: copied already; REASM_GATHER_QUEUED: @p cookie
	 * comes back from poll(); -ENOSPC: the device ring is full now; -E2BIG: too many
	 * pieces for the device. Nothing is queued on error.
	 */
	virtual int gather(const struct rte_reasm_dev_gather *g, uint32_t cookie) = 0;
	/** Ring the doorbell for the gathers queued since the last submit. */
	virtual void submit() {}
	/** Completed gathers, in completion order: cookie and success. */
	virtual uint16_t poll(uint32_t *cookies, bool *ok, uint16_t n)
	{
		RTE_SET_USED(cookies);
		RTE_SET_USED(ok);
		RTE_SET_USED(n);
		return 0;
	}
	/**
	 * A gather through an engine module's path (rte_reasm_driver.h), e.g. one
	 * indirect memory key over the pieces of each side and one copy. As gather();
	 * -ENOTSUP when the engine has no such path or not for this gather (too many
	 * pieces, too long): the caller uses gather().
	 */
	virtual int gather_umr_mkey(const struct rte_reasm_dev_gather *g, uint32_t cookie)
	{
		RTE_SET_USED(g);
		RTE_SET_USED(cookie);
		return -ENOTSUP;
	}
	/**
	 * A header-data split through an engine module's path (e.g. strided keys with a
	 * repeat count over the records). As gather_umr_mkey().
	 */
	virtual int gather_strided(const struct rte_reasm_dev_strided *s, uint32_t cookie)
	{
		RTE_SET_USED(s);
		RTE_SET_USED(cookie);
		return -ENOTSUP;
	}
};

/** The CPU copy of a gather (the CPU engine, and every engine's fallback). */
void reasm_cpu_gather(const struct rte_reasm_dev_gather *g);

#endif /* REASM_ENGINE_H */
