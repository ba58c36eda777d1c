/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Address -> lkey for dma_mlx5: one registry per device (every DPDK memory segment,
 * memory added later through memory events, external memory mapped with
 * rte_dev_dma_map(), or one implicit on-demand MR in SVA mode), read lock-free by the
 * fast path through a small per-vchan cache. Every MR of the registry allows local
 * access only: its key is no rkey (remote keys: mlx5_dma_remote.cpp).
 */
#ifndef MLX5_DMA_MR_H
#define MLX5_DMA_MR_H

#include <stddef.h>
#include <stdint.h>

#include <rte_branch_prediction.h>

#include "mlx5_glue.h"

struct mlx5_dma_mr_registry;

/** One registered range [start, start + size). */
struct mlx5_dma_mr_range {
	uintptr_t start;
	uint64_t size;
	uint32_t lkey;
	uint32_t lkey_be; /**< the same key in WQE byte order, for the fast path */
	uint64_t key_seg; /**< lkey_be << 32: the key half of a data segment's first word */
};

/** Ranges a per-vchan cache holds. */
#define MLX5_DMA_MR_CACHE_ENTRIES 4

/** Per-vchan cache: the most recently used ranges, refreshed when the registry changes. */
struct mlx5_dma_mr_cache {
	struct mlx5_dma_mr_range e[MLX5_DMA_MR_CACHE_ENTRIES];
	uint32_t gen;  /**< mlx5_dma_mr_gen when the entries were taken */
	uint32_t next; /**< entry the next miss replaces */
	const struct mlx5_dma_mr_registry *reg;
};

/**
 * Bumped by every change of any registry: a cache taken before is stale. One word for
 * the process, so that the fast path reads it at a fixed address instead of through a
 * pointer (hidden: not through the GOT either); a change (rare: memory hotplug, rte_dev_dma_map())
 * refills the caches of every device's vchans, not only its own.
 */
extern uint32_t mlx5_dma_mr_gen __attribute__((visibility("hidden"))); /* no GOT entry */

/** Create the registry of @p pd; @p sva: register one implicit on-demand MR instead. */
int mlx5_dma_mr_registry_create(const struct mlx5_glue *glue, struct ibv_pd *pd, bool sva,
				const char *owner, struct mlx5_dma_mr_registry **out);
void mlx5_dma_mr_registry_destroy(struct mlx5_dma_mr_registry *reg);

/** Register / unregister a range (control path; external memory, tests). */
int mlx5_dma_mr_register(struct mlx5_dma_mr_registry *reg, void *addr, size_t len);
int mlx5_dma_mr_unregister(struct mlx5_dma_mr_registry *reg, void *addr, size_t len);

/**
 * The key of the implicit on-demand MR of an SVA registry, which covers every address
 * (the device resolves pages itself, and faults on what is not mapped): true and
 * *@p lkey; false for a registry of DPDK memory (no key covers everything).
 */
bool mlx5_dma_mr_whole_key(const struct mlx5_dma_mr_registry *reg, uint32_t *lkey);

/** Number of MRs held, for dumps. */
unsigned mlx5_dma_mr_count(const struct mlx5_dma_mr_registry *reg);

void mlx5_dma_mr_cache_init(struct mlx5_dma_mr_cache *cache,
			    const struct mlx5_dma_mr_registry *reg);

/** Slow path of the lookup: search the registry and install the range in the cache. */
const struct mlx5_dma_mr_range *mlx5_dma_mr_lookup_slow(struct mlx5_dma_mr_cache *cache,
							uintptr_t addr, uint32_t len);

/** Whether [addr, addr + len) lies inside @p e (an address below start wraps high). */
static inline bool mlx5_dma_mr_in(const struct mlx5_dma_mr_range *e, uintptr_t addr, uint32_t len)
{
	uint64_t off = addr - e->start;

	return off < e->size && len <= e->size - off;
}

/**
 * Registered range covering [addr, addr + len), or NULL when no single MR covers it.
 * The caller has checked the generation once per op (mlx5_dma_mr_cache_check()).
 */
static inline const struct mlx5_dma_mr_range *mlx5_dma_mr_lookup(struct mlx5_dma_mr_cache *cache,
								 uintptr_t addr, uint32_t len)
{
	for (unsigned i = 0; i < MLX5_DMA_MR_CACHE_ENTRIES; i++)
		if (mlx5_dma_mr_in(&cache->e[i], addr, len))
			return &cache->e[i];
	return mlx5_dma_mr_lookup_slow(cache, addr, len);
}

/** Fast path of a copy: both ranges inside the first cached MR. */
static inline bool mlx5_dma_mr_hit2(const struct mlx5_dma_mr_cache *cache, uintptr_t src,
				    uintptr_t dst, uint32_t len)
{
	const struct mlx5_dma_mr_range *e = &cache->e[0];
	uint64_t so = src - e->start, dof = dst - e->start;
	uint64_t far = so > dof ? so : dof; /* an address below start wraps to the top */
	uint64_t end;

	/* the add's carry out stands for far < size: with len >= 1 (checked first by every
	 * caller), far + len <= size and no carry imply far < size */
	return !__builtin_add_overflow(far, (uint64_t)len, &end) && end <= e->size;
}

/** Whether the registry changed since the cache was filled. */
static inline bool mlx5_dma_mr_cache_stale(const struct mlx5_dma_mr_cache *cache)
{
	return cache->gen != __atomic_load_n(&mlx5_dma_mr_gen, __ATOMIC_RELAXED);
}

/** Drop the cached ranges when the registry changed since they were taken. */
static inline void mlx5_dma_mr_cache_check(struct mlx5_dma_mr_cache *cache)
{
	if (unlikely(mlx5_dma_mr_cache_stale(cache)))
		mlx5_dma_mr_cache_init(cache, cache->reg);
}

#endif /* MLX5_DMA_MR_H */
