/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * libFuzzer target of dma_mlx5's devargs parser (mlx5_dma_devargs_parse) on DPDK's
 * rte_kvargs, no EAL. The seam's option lookup is replaced by the software HCA's
 * prefix ("sim_"), so backend options are reached without registering a backend.
 * Oracle: ASan/UBSan, and every accepted result within the documented limits.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>

#include "mlx5_dma.h"

int mlx5_dma_logtype;

static const struct mlx5_glue_backend fuzz_sim_backend = {"sim", nullptr, nullptr, nullptr, "sim_"};

const struct mlx5_glue_backend *mlx5_glue_backend_of_option(const char *key)
{
	return key && !strncmp(key, "sim_", 4) ? &fuzz_sim_backend : nullptr;
}

static void check(bool ok, const char *what, const std::string &in)
{
	if (!ok) {
		fprintf(stderr, "devargs oracle: %s for '%s'\n", what, in.c_str());
		abort();
	}
}

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
	rte_log_set_global_level(RTE_LOG_EMERG); /* the parser logs every bad value */
	return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	std::string in(reinterpret_cast<const char *>(data), size);
	in = in.c_str(); /* up to the first NUL, as a C string would be */
	struct mlx5_dma_devargs a;

	if (mlx5_dma_devargs_parse(in.c_str(), &a) != 0)
		return 0;
	check(memchr(a.dev, 0, sizeof(a.dev)) != nullptr, "dev not terminated", in);
	check(a.path == MLX5_DMA_PATH_DIRECT || a.path == MLX5_DMA_PATH_VERBS, "path", in);
	check(a.max_vchans >= 1 && a.max_vchans <= 64, "max_vchans", in);
	check(a.min_desc >= 2 && a.max_desc <= 32768 && a.min_desc <= a.max_desc, "desc range", in);
	check(!(a.min_desc & (a.min_desc - 1)) && !(a.max_desc & (a.max_desc - 1)),
	      "desc not a power of two", in);
	check(a.n_opts <= MLX5_DMA_MAX_BACKEND_OPTS, "n_opts", in);
	for (unsigned i = 0; i < a.n_opts; i++) {
		check(memchr(a.opts[i].key, 0, sizeof(a.opts[i].key)) != nullptr, "opt key", in);
		check(memchr(a.opts[i].value, 0, sizeof(a.opts[i].value)) != nullptr, "opt value",
		      in);
		check(!strncmp(a.opts[i].key, "sim_", 4), "opt of no backend", in);
	}
	return 0;
}
