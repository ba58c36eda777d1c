/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared helpers of the blkint tests: formats, data, one op run to its result. */
#ifndef TEST_BLKINT_UTIL_H
#define TEST_BLKINT_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "rte_blkint.h"

namespace util {

extern const uint32_t block_sizes[5];

/** The formats every matrix covers: both guards, every CRC, both seeds. */
std::vector<struct rte_blkint_format> formats(uint32_t block_size);
/** A short name for messages. */
const char *fmt_name(const struct rte_blkint_format &f);

/** Pseudo-random bytes (deterministic per seed). */
std::vector<uint8_t> random_data(size_t n, uint32_t seed);

/** A context on the CPU, or over @p dev (owned) with the white-box constructor. */
struct rte_blkint_ctx *ctx_cpu(void);
struct rte_blkint_ctx *ctx_conf(struct rte_blkint_conf conf);

/** Enqueue one op and wait for its result; false when it was not accepted. */
bool run(struct rte_blkint_ctx *ctx, const struct rte_blkint_op &op, struct rte_blkint_result *r);

/**
 * rte_blkint_free() under a time bound: when it has not returned after 10 s, the
 * process ends with status 1 and a message (a hang fails the test, never stalls it).
 * @return the milliseconds it took.
 */
uint64_t free_bounded(struct rte_blkint_ctx *ctx);

} // namespace util

#endif /* TEST_BLKINT_UTIL_H */
