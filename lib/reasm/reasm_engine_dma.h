/* SPDX-License-Identifier: BSD-3-Clause */
/* The dmadev engine's state, shared by its plain (SG / copy) and its UMR mkey paths. */
#ifndef REASM_ENGINE_DMA_H
#define REASM_ENGINE_DMA_H

#include <stdint.h>

#include <rte_dmadev.h>

#include "reasm_engine.h"
#include "rte_pmd_dma_mlx5.h"
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
/* mkeys of the UMR path: a gather holds one to three until its copy completes */
constexpr uint32_t mkey_pool = 256; /* RTE_REASM_DEFAULT_MAX_INFLIGHT gathers */

/* dma_mlx5's mkey API, looked up at run time: the library does not link the PMD. */
struct umr_api {
	decltype(&rte_pmd_dma_mlx5_get_caps) get_caps;
	decltype(&rte_pmd_dma_mlx5_mkey_limits) limits;
	decltype(&rte_pmd_dma_mlx5_mkey_create) create;
	decltype(&rte_pmd_dma_mlx5_mkey_destroy) destroy;
	decltype(&rte_pmd_dma_mlx5_mkey_set_list) set_list;
	decltype(&rte_pmd_dma_mlx5_mkey_set_interleaved) set_interleaved;
	decltype(&rte_pmd_dma_mlx5_copy) copy;
};

struct dma_engine final : rte_reasm_engine {
	int16_t dev;
	uint16_t vchan;
	bool sg;
	bool umr; /* the mkey paths are set up */
	uint16_t sges;
	uint32_t cookies[ring_slots];
	bool failed_since_cookie = false; /* an op since the last cookie failed */
	struct rte_dma_sge src[RTE_REASM_MAX_SGES];
	struct rte_dma_sge dst[RTE_REASM_MAX_SGES];

	/* UMR path: the API, the limits, a FIFO pool of mkeys freed in completion order */
	struct umr_api api;
	struct rte_pmd_dma_mlx5_mkey_limits lim;
	struct rte_pmd_dma_mlx5_mkey *mk[mkey_pool];
	uint16_t mk_release[mkey_pool]; /* ring index whose completion frees it */
	uint32_t mk_head = 0, mk_tail = 0;

	~dma_engine() override;
	const char *kind() const override { return umr ? "dma-umr" : sg ? "dma-sg" : "dma-copy"; }
	uint32_t max_sges() const override { return sg ? sges : RTE_REASM_MAX_SGES; }
	int gather(const struct reasm_gather *g, uint32_t cookie) override;
	void submit() override { rte_dma_submit(dev, vchan); }
	uint16_t poll(uint32_t *out, bool *ok, uint16_t n) override;
	int gather_umr_mkey(const struct reasm_gather *g, uint32_t cookie) override;
	int gather_strided(const struct reasm_strided *s, uint32_t cookie) override;

	/** Set up the UMR path on a dma_mlx5 device; 0 or -ENOTSUP (logged with @p why). */
	int umr_setup(const char *name, bool required);

private:
	int gather_sg(const struct reasm_gather *g, uint32_t cookie);
	int gather_copies(const struct reasm_gather *g, uint32_t cookie);
	/* UMR helpers (reasm_engine_umr.cpp) */
	struct rte_pmd_dma_mlx5_mkey *mkey_take();
	int umr_finish(int last_idx, uint32_t mkeys_from, int rc, uint32_t cookie);
	int layout_list(const struct reasm_sge *l, uint16_t n, struct rte_pmd_dma_mlx5_addr *a,
			int *last);
	int layout_strided(const struct rte_pmd_dma_mlx5_interleaved *ent, uint16_t n,
			   uint32_t repeat, struct rte_pmd_dma_mlx5_addr *a, int *last);
	int copy_op(const struct rte_pmd_dma_mlx5_addr *s, const struct rte_pmd_dma_mlx5_addr *d,
		    uint32_t len, int *last);
	void mkeys_complete(uint16_t idx);
};

} // namespace reasm_dma

#endif /* REASM_ENGINE_DMA_H */
