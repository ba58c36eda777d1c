/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * libFuzzer target of dma-perf's config parser (perf_cfg_load) on rte_cfgfile, no
 * EAL. The input is written to a memfd and loaded through its /proc/self/fd path.
 * Oracle: ASan/UBSan; an accepted config has cases sorted by id and an error
 * message exactly when it is refused.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <string>

#include <rte_log.h>

#include "perf_cfg.h"

static int fuzz_fd = -1;
static char fuzz_path[64];

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
	rte_log_set_global_level(RTE_LOG_EMERG);
	fuzz_fd = memfd_create("perf_cfg_fuzz", 0);
	if (fuzz_fd < 0)
		abort();
	snprintf(fuzz_path, sizeof(fuzz_path), "/proc/self/fd/%d", fuzz_fd);
	return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (ftruncate(fuzz_fd, 0) || (size && pwrite(fuzz_fd, data, size, 0) != (ssize_t)size))
		abort();
	struct perf_config cfg;
	std::string err;
	int ret = perf_cfg_load(fuzz_path, &cfg, &err);
	if (ret == 0) {
		if (!err.empty()) {
			fprintf(stderr, "perf_cfg oracle: accepted with an error: %s\n",
				err.c_str());
			abort();
		}
		for (size_t i = 1; i < cfg.cases.size(); i++)
			if (cfg.cases[i - 1].id >= cfg.cases[i].id) {
				fprintf(stderr, "perf_cfg oracle: cases not sorted by id\n");
				abort();
			}
	} else if (err.empty() || (ret != -EINVAL && ret != -ENOENT)) {
		fprintf(stderr, "perf_cfg oracle: refused (%d) without a reason\n", ret);
		abort();
	}
	return 0;
}
