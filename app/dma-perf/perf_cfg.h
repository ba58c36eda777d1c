/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * dma-perf configuration: dpdk-test-dma-perf's config.ini, read with rte_cfgfile.
 *
 * Two layouts are accepted: the newest ([GLOBAL] holds eal_args, cache_flush and
 * test_seconds) and the one of 23.07 to 25.07 (those keys in each [caseN]). Parsing
 * needs no EAL, so the parser is unit-tested on its own.
 */
#ifndef DMA_PERF_CFG_H
#define DMA_PERF_CFG_H

#include <stddef.h>
#include <stdint.h>

#include <string>
#include <vector>

/** Copy engine of a case. */
enum perf_type {
	PERF_TYPE_DMA, /**< DMA_MEM_COPY: rte_dma_copy on a dmadev */
	PERF_TYPE_CPU, /**< CPU_MEM_COPY: rte_memcpy on the worker lcore (a gather with SG) */
};

/** Most values one range may expand to. */
#define PERF_MAX_SCENARIOS 256

/** The four numeric keys that may hold a range. */
enum perf_key {
	PERF_KEY_MEM_SIZE,
	PERF_KEY_BUF_SIZE,
	PERF_KEY_RING_SIZE,
	PERF_KEY_KICK_BATCH,
	PERF_KEY_NUM,
};

/** A value, or a range "first,last,incr,ADD|MUL". */
struct perf_range {
	uint32_t first; /**< first value */
	uint32_t last;  /**< last value (== first for a plain value) */
	uint32_t incr;  /**< step (0 for a plain value) */
	bool mul;       /**< step multiplies instead of adding */
};

/** One worker: an lcore and, for DMA, the dmadev it drives. */
struct perf_worker_cfg {
	unsigned int lcore; /**< EAL lcore id */
	std::string dev;    /**< dmadev name (empty for CPU copy) */
};

/** One [caseN] section, with [GLOBAL] defaults already applied. */
struct perf_case {
	std::string section;                 /**< "case1", ... */
	unsigned int id;                     /**< N of [caseN] */
	bool skip;                           /**< skip=1: not parsed further, not run */
	enum perf_type type;                 /**< engine */
	struct perf_range key[PERF_KEY_NUM]; /**< mem_size (MB), buf_size (B), ring, kick */
	int var_key;                         /**< the PERF_KEY_* holding a range, or -1 */
	int src_numa;                        /**< NUMA node of the source buffers */
	int dst_numa;                        /**< NUMA node of the destination buffers */
	uint32_t src_sge;                    /**< dma_src_sge, 0 when no scatter-gather */
	uint32_t dst_sge;                    /**< dma_dst_sge, 0 when no scatter-gather */
	/**
	 * type=DMA_MEM_FILL / CPU_MEM_FILL (extension): rte_dma_fill / an 8-byte pattern
	 * store loop into the destination buffers instead of a copy.
	 */
	bool fill;
	/** In key order. Workers naming one dmadev share it: the i-th drives vchan i. */
	std::vector<struct perf_worker_cfg> workers;
	std::string eal_args; /**< normalised (single spaces) */
	bool cache_flush;     /**< clflush the buffers before the run */
	/**
	 * main_lcore_worker=1: a worker may be the main lcore, the placement of a plain
	 * DPDK program; the measuring timer then runs in a control thread.
	 */
	bool main_lcore_worker;
	uint32_t test_seconds; /**< measurement window */
};

/** A whole configuration file. */
struct perf_config {
	bool has_global;                     /**< a [GLOBAL] section was present */
	std::string eal_args;                /**< the EAL arguments shared by every case */
	std::vector<struct perf_case> cases; /**< sorted by id, skipped ones included */
};

/** Printable name of a range key ("mem_size", ...). */
const char *perf_key_name(int key);

/**
 * Expand a range into its values (a single value for a plain one).
 * @return the number of values, -EINVAL for a range that does not progress, or
 *         -E2BIG for more than PERF_MAX_SCENARIOS values.
 */
int perf_range_values(const struct perf_range *r, std::vector<uint32_t> *out);

/**
 * Parse one range or plain value, e.g. "64" or "64,4096,4,MUL".
 * @return 0, or -EINVAL with a reason in @p why.
 */
int perf_range_parse(const char *s, struct perf_range *r, std::string *why);

/**
 * Load and validate a configuration file.
 * @param path   the .ini file
 * @param cfg    filled on success
 * @param err    on failure, one line naming the section, key and value at fault
 * @return 0, -ENOENT (file unreadable) or -EINVAL (bad content).
 */
int perf_cfg_load(const char *path, struct perf_config *cfg, std::string *err);

/** Number of buffers per worker of a scenario: (mem_size MB / 2) / buf_size / workers. */
uint64_t perf_nr_buf(uint32_t mem_mb, uint32_t buf_size, size_t nb_workers);

#endif /* DMA_PERF_CFG_H */
