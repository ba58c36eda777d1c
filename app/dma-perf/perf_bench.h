/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * dma-perf: running one scenario (a case with its variable key fixed) after EAL init.
 */
#ifndef DMA_PERF_BENCH_H
#define DMA_PERF_BENCH_H

#include <stdint.h>

#include <string>

#include "perf_cfg.h"

/** One scenario: a case with every key at one value. */
struct perf_scenario {
	const struct perf_case *pc; /**< the case */
	unsigned int index;         /**< 1-based scenario number within the case */
	uint32_t mem_mb;            /**< mem_size */
	uint32_t buf_size;          /**< buf_size */
	uint32_t ring_size;         /**< dma_ring_size */
	uint32_t kick_batch;        /**< kick_batch */
};

/** Outcome of one scenario, all workers summed. */
struct perf_result {
	unsigned int case_id;      /**< N of [caseN] */
	unsigned int scenario;     /**< 1-based scenario number */
	unsigned int round;        /**< 1-based round (--rounds) */
	enum perf_type type;       /**< engine type */
	std::string engine;        /**< dmadev name(s), or "rte_memcpy", then op */
	std::string base;          /**< engine without the op */
	std::string op;            /**< "" (copy), " sg<S>x<D>" or " fill" */
	std::string single;        /**< engine without " x<N>" and the op */
	unsigned int workers;      /**< worker lcores (each its own vchan) */
	std::string lcores;        /**< worker lcores, e.g. "1" or "1 2" */
	bool on_main;              /**< a worker ran on the main lcore */
	uint32_t ring_size;        /**< dma_ring_size (0 for CPU) */
	uint32_t kick_batch;       /**< kick_batch (0 for CPU) */
	uint32_t buf_size;         /**< bytes per op */
	uint64_t nr_buf;           /**< buffers per worker */
	uint32_t mem_mb;           /**< mem_size */
	uint64_t ops;              /**< completed ops in the window */
	double secs;               /**< window length measured with the TSC */
	double mops;               /**< ops / s / 1e6 */
	double gbps;               /**< ops / s * buf_size * 8 / 1e9, one direction */
	double cycles_per_op;      /**< upstream's: window * TSC hz / ops, mean over workers */
	double drv_cycles_per_op;  /**< cycles in kicks that did work / ops */
	double idle_cycles_per_op; /**< cycles in kicks that did no work / ops */
	bool ok;                   /**< ran, drained and verified */
	std::string error;         /**< why not ok */
};

/**
 * Measure the cost of an rte_rdtsc() pair, subtracted from every timed kick.
 * Call once after EAL init.
 */
void perf_bench_calibrate(void);

/** TSC cycles of one empty rte_rdtsc() pair (as calibrated). */
uint64_t perf_bench_tsc_overhead(void);

/**
 * Run one scenario on its worker lcores: set up the dmadevs, fill the buffers, warm up,
 * measure for test_seconds, stop, drain and verify every copied byte.
 * @param progress print a line every second of the window
 * @return 0 when @p res->ok; a negative errno otherwise (@p res->error says why).
 */
int perf_bench_run(const struct perf_scenario *s, bool progress, struct perf_result *res);

/**
 * Before any run: every worker lcore of every runnable case is enabled and not the main
 * lcore (unless the case says main_lcore_worker=1), every dmadev named exists, and
 * scatter-gather cases fit its max_sges.
 * @return 0, or -EINVAL with the reason in @p err.
 */
int perf_bench_check_lcores(const struct perf_config *cfg, std::string *err);

/** Print the dmadevs of this EAL (--list-dma). */
void perf_bench_list_dma(void);

#endif /* DMA_PERF_BENCH_H */
