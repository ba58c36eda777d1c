/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * dma-perf worker: the copy loop that runs on a worker lcore.
 */
#ifndef DMA_PERF_WORKER_H
#define DMA_PERF_WORKER_H

#include <stdint.h>

#include <string>

#include <rte_common.h>

#include "perf_cfg.h"

/** State of one worker; counters are written by the worker only, read by main. */
struct perf_worker {
	/* Set up by main before launch. */
	enum perf_type type;    /**< DMA or CPU copy */
	unsigned int lcore;     /**< lcore it runs on */
	std::string dev_name;   /**< dmadev name (DMA) */
	int16_t dev_id = -1;    /**< dmadev id (DMA) */
	uint16_t vchan = 0;     /**< its vchan: i for the i-th worker on the dmadev */
	uint16_t nb_vchans = 1; /**< workers on the dmadev (the first one sets it up) */
	bool started = false;   /**< dmadev started by this worker, to be stopped */
	bool sva = false;       /**< device takes virtual addresses */
	uint32_t buf_size;      /**< bytes per op */
	uint32_t kick_batch;    /**< submit every this many enqueues */
	uint32_t src_sge;       /**< SG segments per source (0: plain copy) */
	uint32_t dst_sge;       /**< SG segments per destination */
	bool fill;              /**< fill dst with PERF_FILL_PATTERN instead of copying */
	uint64_t nr_buf;        /**< buffers in src/dst */
	uint8_t *src = nullptr; /**< nr_buf * buf_size bytes */
	uint8_t *dst = nullptr; /**< nr_buf * buf_size bytes */
	uint64_t src_iova;      /**< IOVA of src */
	uint64_t dst_iova;      /**< IOVA of dst */
	uint64_t tsc_overhead;  /**< cost of an rte_rdtsc() pair, subtracted per span */
	uint64_t drain_cycles;  /**< give up draining after this many TSC cycles */

	/* Main to worker. */
	alignas(RTE_CACHE_LINE_SIZE) uint32_t stop = 0; /**< leave the loop */

	/* Worker to main: live counters (relaxed atomics). */
	alignas(RTE_CACHE_LINE_SIZE) uint64_t ops = 0; /**< completed ops */
	uint64_t drv_cycles = 0;  /**< TSC in kicks that enqueued or completed */
	uint64_t idle_cycles = 0; /**< TSC in kicks that did neither */

	/* Worker results, read after the lcore is joined. */
	uint64_t next_buf = 0;  /**< next buffer index to copy */
	uint64_t passes = 0;    /**< completed rounds over all buffers */
	int status = 0;         /**< 0, or a negative errno */
	std::string status_msg; /**< why status is not 0 */
};

/** The 8-byte pattern of fill cases (byte j of a buffer is byte j % 8 of it in memory). */
#define PERF_FILL_PATTERN 0x8877665544332211ull

/** rte_eal_remote_launch entry: @p arg is a struct perf_worker. */
int perf_worker_main(void *arg);

#endif /* DMA_PERF_WORKER_H */
