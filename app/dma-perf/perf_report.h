/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * dma-perf output: the results table, the same-run ratios and the CSV file.
 */
#ifndef DMA_PERF_REPORT_H
#define DMA_PERF_REPORT_H

#include <vector>

#include "perf_bench.h"

/** Print one row per scenario. */
void perf_report_table(const std::vector<struct perf_result> &res);

/**
 * Print ratios of the first DMA engine of the run against every other engine, per
 * buf_size measured by both (Mops against dmadevs, GB/s against rte_memcpy).
 * Prints nothing when the run has a single engine.
 */
void perf_report_ratios(const std::vector<struct perf_result> &res);

/**
 * Print, for every engine run by N > 1 workers (one vchan each), its total Mops
 * against the same engine run by one worker in the same placement, per buf_size.
 * Prints nothing when the run has no such pair.
 */
void perf_report_scaling(const std::vector<struct perf_result> &res);

/**
 * Write upstream-like CSV columns plus driver cycles/op.
 * @return 0, or a negative errno (the reason is printed).
 */
int perf_report_csv(const char *path, const std::vector<struct perf_result> &res, uint64_t tsc_hz);

#endif /* DMA_PERF_REPORT_H */
