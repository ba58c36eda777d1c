/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef BLKINT_LOG_H
#define BLKINT_LOG_H

#include <rte_log.h>

extern int blkint_logtype;
/** Control and error paths only: one line naming the bad value. */
#define BLKINT_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, blkint_logtype, "blkint: " fmt "\n", ##__VA_ARGS__)

#endif /* BLKINT_LOG_H */
