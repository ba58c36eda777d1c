/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef REASM_LOG_H
#define REASM_LOG_H

#include <rte_log.h>

extern int reasm_logtype;
/** Control path only: one line naming the bad value. */
#define REASM_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, reasm_logtype, "reasm: " fmt "\n", ##__VA_ARGS__)

#endif /* REASM_LOG_H */
