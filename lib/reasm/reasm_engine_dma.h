/* SPDX-License-Identifier: BSD-3-Clause */
/* The dmadev engine's state: its plain (SG / copy) paths and an engine module's path. */
#ifndef REASM_ENGINE_DMA_H
#define REASM_ENGINE_DMA_H

#include <stdint.h>

#include <rte_dmadev.h>

#include "reasm_engine.h"
#include "rte_reasm_driver.h"
#include "rte_reasm.h"

namespace reasm_dma {

constexpr uint32_t no_cookie = UINT32_MAX;
/* On a cookie: its gather failed at enqueue after some of its ops were queued. */
constexpr uint32_t cookie_failed = 1u << 31;
/* Closes ops queued for a gather that was then refused: their failures are no one's. */
constexpr uint32_t cookie_orphan = UINT32_MAX - 1;
/* ring_idx is 16 bits and wraps: one slot per possible index. */
constexpr uint32_t ring_slots = 65536;
constexpr uint16_t poll_batch = 64;

struct dma_engine final : rte_reasm_engine {
	int16_t dev;
	uint16_t vchan;
	bool sg;
	uint16_t sges;
	uint32_t cookies[ring_slots];
	bool failed_since_cookie = false; /* an op since the last cookie failed */
	struct rte_dma_sge src[RTE_REASM_MAX_SGES];
	struct rte_dma_sge dst[RTE_REASM_MAX_SGES];

	/* an engine module's path (rte_reasm_driver.h), or none */
	const struct rte_reasm_dev_driver *mod = nullptr;
	void *path = nullptr;

	~dma_engine() override;
	const char *kind() const override { return path ? mod->kind : sg ? "dma-sg" : "dma-copy"; }
	uint32_t max_sges() const override { return sg ? sges : RTE_REASM_MAX_SGES; }
	int gather(const struct rte_reasm_dev_gather *g, uint32_t cookie) override;
	void submit() override { rte_dma_submit(dev, vchan); }
	uint16_t poll(uint32_t *out, bool *ok, uint16_t n) override;
	int gather_umr_mkey(const struct rte_reasm_dev_gather *g, uint32_t cookie) override;
	int gather_strided(const struct rte_reasm_dev_strided *s, uint32_t cookie) override;

	/** Set up the path of the module for the device's driver; 0 or -ENOTSUP (logged). */
	int module_setup(const char *name, bool required);

private:
	int gather_sg(const struct rte_reasm_dev_gather *g, uint32_t cookie);
	int gather_copies(const struct rte_reasm_dev_gather *g, uint32_t cookie);
	int module_finish(int rc, int last, uint32_t cookie);
};

} // namespace reasm_dma

#endif /* REASM_ENGINE_DMA_H */
