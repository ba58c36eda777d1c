/* SPDX-License-Identifier: BSD-3-Clause */
#include "mlx5_dma_mr.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <mutex>
#include <new>
#include <vector>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_eal_memconfig.h>
#include <rte_memory.h>

#include "mlx5_dma.h"

/*
 * The fast path reads a sorted snapshot (an immutable array) without locks; every
 * change publishes a new snapshot and bumps the generation (mlx5_dma_mr_gen). Old snapshots are
 * kept until the registry is destroyed, because a vchan on another lcore may still be reading one
 * (changes are rare: memory hotplug, rte_dev_dma_map()).
 */
struct mlx5_dma_mr_snapshot {
	uint32_t n;
	struct mlx5_dma_mr_range r[];
};

uint32_t mlx5_dma_mr_gen;

struct mlx5_dma_mr_registry {
	const struct mlx5_glue *glue;
	struct ibv_pd *pd;
	mutable std::mutex lock;          /* control path only */
	std::vector<struct ibv_mr *> mrs; /* sorted by address */
	/* replaced MRs: WQEs already posted (or being written by a vchan that read an
	 * older snapshot) may still name their keys, so they are released at close */
	std::vector<struct ibv_mr *> retired;
	std::vector<struct mlx5_dma_mr_snapshot *> snapshots; /* back() is current */
	struct mlx5_dma_mr_snapshot *current;
	char cb_name[64];
	bool cb_registered;
	bool sva;
};

namespace {

/* Build and publish a snapshot of reg->mrs; caller holds reg->lock. */
int publish(struct mlx5_dma_mr_registry *reg)
{
	size_t n = reg->mrs.size();
	auto *snap = (struct mlx5_dma_mr_snapshot *)malloc(sizeof(struct mlx5_dma_mr_snapshot) +
							   n * sizeof(struct mlx5_dma_mr_range));

	if (!snap)
		return -ENOMEM;
	snap->n = (uint32_t)n;
	for (size_t i = 0; i < n; i++) {
		struct ibv_mr *mr = reg->mrs[i];

		snap->r[i].start = reg->sva ? 0 : (uintptr_t)mr->addr;
		snap->r[i].size = reg->sva ? UINT64_MAX >> 1 : mr->length;
		snap->r[i].lkey = mr->lkey;
		snap->r[i].lkey_be = rte_cpu_to_be_32(mr->lkey);
		snap->r[i].key_seg = (uint64_t)snap->r[i].lkey_be << 32;
	}
	try {
		reg->snapshots.push_back(snap);
	} catch (...) {
		free(snap);
		return -ENOMEM;
	}
	__atomic_store_n(&reg->current, snap, __ATOMIC_RELEASE);
	__atomic_add_fetch(&mlx5_dma_mr_gen, 1, __ATOMIC_RELEASE);
	return 0;
}

/* Register one range and insert it in order, without publishing; caller holds lock. */
int add_locked(struct mlx5_dma_mr_registry *reg, uintptr_t start, uintptr_t end)
{
	/* local only: these MRs span whole memory segments, so a remote right here would
	 * reach every DPDK allocation; peers get keys of their own, exactly the range
	 * exposed (rte_pmd_dma_mlx5_remote_rkey_access()) */
	struct ibv_mr *mr = reg->glue->reg_mr(reg->pd, (void *)start, end - start,
					      IBV_ACCESS_LOCAL_WRITE);

	if (!mr) {
		int ret = mlx5_dma_neg_errno(ENOMEM);

		MLX5_DMA_LOG(ERR, "cannot register %#" PRIxPTR "+%" PRIuPTR ": %s", start,
			     end - start, strerror(-ret));
		return ret;
	}
	try {
		auto pos = std::lower_bound(
			reg->mrs.begin(), reg->mrs.end(), mr,
			[](struct ibv_mr *a, struct ibv_mr *b) { return a->addr < b->addr; });
		reg->mrs.insert(pos, mr);
	} catch (...) {
		reg->glue->dereg_mr(mr);
		return -ENOMEM;
	}
	return 0;
}

/* Take MR @p mr out of the lookup; its key stays valid until close. */
void retire_locked(struct mlx5_dma_mr_registry *reg, struct ibv_mr *mr)
{
	reg->mrs.erase(std::find(reg->mrs.begin(), reg->mrs.end(), mr));
	try {
		reg->retired.push_back(mr);
	} catch (...) {
		reg->glue->dereg_mr(mr); /* cannot keep it: release at once */
	}
}

/*
 * New memory [start, end): one MR for it and the registered memory it touches, so
 * that a buffer the heap builds across the boundary stays inside one MR.
 */
int add_merged_locked(struct mlx5_dma_mr_registry *reg, uintptr_t start, uintptr_t end)
{
	std::vector<struct ibv_mr *> joined;
	int ret;

	for (struct ibv_mr *mr : reg->mrs) {
		uintptr_t s = (uintptr_t)mr->addr, e = s + mr->length;

		if (e == start || s == end || (s < end && start < e)) {
			joined.push_back(mr);
			start = std::min(start, s);
			end = std::max(end, e);
		}
	}
	ret = add_locked(reg, start, end);
	if (ret)
		return ret;
	for (struct ibv_mr *mr : joined)
		retire_locked(reg, mr);
	return publish(reg);
}

int contig_walk_cb(const struct rte_memseg_list *msl, const struct rte_memseg *ms, size_t len,
		   void *arg)
{
	(void)msl;
	return add_merged_locked((struct mlx5_dma_mr_registry *)arg, (uintptr_t)ms->addr,
				 (uintptr_t)ms->addr + len)
		       ? -1
		       : 0;
}

void mem_event_cb(enum rte_mem_event type, const void *addr, size_t len, void *arg)
{
	auto *reg = (struct mlx5_dma_mr_registry *)arg;

	if (type == RTE_MEM_EVENT_ALLOC) {
		std::lock_guard<std::mutex> guard(reg->lock);
		add_merged_locked(reg, (uintptr_t)addr, (uintptr_t)addr + len);
	} else {
		mlx5_dma_mr_unregister(reg, (void *)addr, len);
	}
}

} // namespace

int mlx5_dma_mr_registry_create(const struct mlx5_glue *glue, struct ibv_pd *pd, bool sva,
				const char *owner, struct mlx5_dma_mr_registry **out)
{
	auto *reg = new (std::nothrow) mlx5_dma_mr_registry();
	int ret;

	if (!reg)
		return -ENOMEM;
	reg->glue = glue;
	reg->pd = pd;
	reg->sva = sva;
	snprintf(reg->cb_name, sizeof(reg->cb_name), "mlx5_dma_mr_%s", owner);
	if (sva) {
		/* one implicit on-demand MR covers the whole address space */
		std::lock_guard<std::mutex> guard(reg->lock);
		struct ibv_mr *mr = glue->reg_mr(pd, NULL, SIZE_MAX,
						 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);

		if (!mr) {
			ret = mlx5_dma_neg_errno(ENOTSUP);
			goto fail;
		}
		reg->mrs.push_back(mr);
		ret = publish(reg);
		if (ret)
			goto fail;
	} else {
		/* walk and subscribe under the memory lock: nothing is hot-added between */
		rte_mcfg_mem_read_lock();
		{
			std::lock_guard<std::mutex> guard(reg->lock);

			ret = rte_memseg_contig_walk_thread_unsafe(contig_walk_cb, reg) < 0
				      ? -ENOMEM
				      : publish(reg); /* also when there is no memory yet */
		}
		if (ret == 0) {
			/* ENOTSUP with legacy memory, where no memory comes later */
			if (rte_mem_event_callback_register(reg->cb_name, mem_event_cb, reg) == 0)
				reg->cb_registered = true;
			else if (rte_errno != ENOTSUP)
				ret = -rte_errno;
		}
		rte_mcfg_mem_read_unlock();
		if (ret)
			goto fail;
	}
	*out = reg;
	return 0;
fail:
	mlx5_dma_mr_registry_destroy(reg);
	return ret;
}

void mlx5_dma_mr_registry_destroy(struct mlx5_dma_mr_registry *reg)
{
	if (!reg)
		return;
	if (reg->cb_registered)
		rte_mem_event_callback_unregister(reg->cb_name, reg);
	for (struct ibv_mr *mr : reg->mrs)
		reg->glue->dereg_mr(mr);
	for (struct ibv_mr *mr : reg->retired)
		reg->glue->dereg_mr(mr);
	for (auto *snap : reg->snapshots)
		free(snap);
	delete reg;
}

int mlx5_dma_mr_register(struct mlx5_dma_mr_registry *reg, void *addr, size_t len)
{
	if (!addr || !len)
		return -EINVAL;
	if (reg->sva)
		return 0; /* already covered by the implicit MR */
	std::lock_guard<std::mutex> guard(reg->lock);
	return add_merged_locked(reg, (uintptr_t)addr, (uintptr_t)addr + len);
}

int mlx5_dma_mr_unregister(struct mlx5_dma_mr_registry *reg, void *addr, size_t len)
{
	uintptr_t start = (uintptr_t)addr, end = start + len;
	std::vector<struct ibv_mr *> gone;
	int ret = 0;

	if (reg->sva)
		return 0;
	std::lock_guard<std::mutex> guard(reg->lock);
	try {
		for (struct ibv_mr *mr : reg->mrs)
			if ((uintptr_t)mr->addr < end && start < (uintptr_t)mr->addr + mr->length)
				gone.push_back(mr);
	} catch (...) {
		return -ENOMEM;
	}
	if (gone.empty())
		return -ENOENT;
	/* memory is registered in large chunks: what stays allocated around the freed
	 * range gets MRs of its own, published together with the removal */
	for (struct ibv_mr *mr : gone) {
		uintptr_t s = (uintptr_t)mr->addr, e = s + mr->length;

		if (s < start && !ret)
			ret = add_locked(reg, s, start);
		if (end < e && !ret)
			ret = add_locked(reg, end, e);
		retire_locked(reg, mr);
	}
	int pub = publish(reg);
	return ret ? ret : pub;
}

bool mlx5_dma_mr_whole_key(const struct mlx5_dma_mr_registry *reg, uint32_t *lkey)
{
	std::lock_guard<std::mutex> guard(reg->lock);

	/* an SVA registry holds its one MR from creation to destruction */
	if (!reg->sva || reg->mrs.size() != 1)
		return false;
	*lkey = reg->mrs[0]->lkey;
	return true;
}

unsigned mlx5_dma_mr_count(const struct mlx5_dma_mr_registry *reg)
{
	std::lock_guard<std::mutex> guard(reg->lock);

	return (unsigned)reg->mrs.size();
}

void mlx5_dma_mr_cache_init(struct mlx5_dma_mr_cache *cache, const struct mlx5_dma_mr_registry *reg)
{
	memset(cache->e, 0, sizeof(cache->e)); /* empty ranges never match */
	cache->reg = reg;
	cache->gen = __atomic_load_n(&mlx5_dma_mr_gen, __ATOMIC_ACQUIRE);
}

const struct mlx5_dma_mr_range *mlx5_dma_mr_lookup_slow(struct mlx5_dma_mr_cache *cache,
							uintptr_t addr, uint32_t len)
{
	const struct mlx5_dma_mr_snapshot *snap = __atomic_load_n(&cache->reg->current,
								  __ATOMIC_ACQUIRE);
	uint32_t lo = 0, hi;
	struct mlx5_dma_mr_range *slot;

	if (unlikely(!snap))
		return NULL;
	/* binary search for the last range starting at or before addr */
	hi = snap->n;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (snap->r[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || !mlx5_dma_mr_in(&snap->r[lo - 1], addr, len))
		return NULL;
	/* round robin: the entries in use by the other address of an op stay put */
	slot = &cache->e[cache->next++ % MLX5_DMA_MR_CACHE_ENTRIES];
	*slot = snap->r[lo - 1];
	return slot;
}
