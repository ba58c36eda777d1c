/* SPDX-License-Identifier: BSD-3-Clause */
/* mlx5-reasm: its command line (after EAL's "--"). */
#ifndef REASM_APP_OPTS_H
#define REASM_APP_OPTS_H

#include <stdint.h>

#include <string>

#include "rte_reasm.h"

enum reasm_app_mode {
	MODE_REASSEMBLE,
	MODE_LINEARIZE,
	MODE_SPLIT
};

struct reasm_app_opts {
	std::string engine = "cpu"; /* "cpu" or a dmadev name */
	enum rte_reasm_dma_mode dma_mode = RTE_REASM_DMA_AUTO;
	enum reasm_app_mode mode = MODE_REASSEMBLE;
	struct rte_reasm_split split = {0, 0, 0, 0};
	struct rte_reasm_conf conf = {};
	uint16_t rx_port = 0;
	uint16_t tx_port = 1;
	uint32_t idle_ms = 200;      /* input exhausted after this long without packets */
	uint32_t mbuf_size = 2048;   /* rx mbuf data room (smaller: multi-segment packets) */
	uint32_t progress_ms = 1000; /* 0: no progress line */
};

/**
 * Parse the application's arguments into @p o.
 * @return 0, 1 (--help printed), or -EINVAL with one line naming the bad argument.
 */
int reasm_app_parse(int argc, char **argv, struct reasm_app_opts *o);
void reasm_app_usage(const char *prog);

#endif /* REASM_APP_OPTS_H */
