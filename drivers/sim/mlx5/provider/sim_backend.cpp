/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The software HCA as a backend of the seam: which device names it owns, the
 * options that make an instance (sim_exec=, sim_core=), and where its work runs.
 * Registered when the library is loaded, so that code above the seam finds
 * "simN" devices without knowing the model exists.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_internal.h"
#include "sim_options.h"

namespace mlx5sim {

namespace {

constexpr char kOptionPrefix[] = "sim_";

/* "sim" or "sim" followed by decimal digits only. */
int sim_claims(const char *name)
{
	const char *p;

	if (strncmp(name, "sim", 3) != 0)
		return 0;
	for (p = name + 3; *p != '\0'; p++)
		if (*p < '0' || *p > '9')
			return 0;
	return 1;
}

const char *sim_canonical_name(const char *name)
{
	return strcmp(name, "sim") == 0 ? "sim0" : name;
}

int sim_prepare(const char *name, const struct mlx5_glue_option *opts, unsigned int n_opts,
		char *why, size_t why_len)
{
	struct mlx5_sim_device_attr attr;
	int ret;

	ret = sim_parse_options(opts, n_opts, &attr, why, why_len);
	if (ret)
		return ret;
	ret = mlx5_sim_device_add(name, &attr);
	if (ret == -EEXIST) {
		if (n_opts == 0)
			return 0;
		snprintf(why, why_len,
			 "software HCA %s exists already: its execution mode and engine CPUs are "
			 "kept",
			 name);
		return 1;
	}
	if (ret)
		snprintf(why, why_len, "software HCA '%s': %s", name, strerror(-ret));
	return ret;
}

const struct mlx5_glue_backend sim_backend = {
	.name = "sim",
	.glue = &sim_glue,
	.claims = sim_claims,
	.canonical_name = sim_canonical_name,
	.option_prefix = kOptionPrefix,
	.prepare = sim_prepare,
	.fallback_device = "sim0",
	.auto_order = 100,
	.status = NULL,
};

__attribute__((constructor)) void register_backend()
{
	mlx5_glue_backend_register(&sim_backend);
}

__attribute__((destructor)) void unregister_backend()
{
	mlx5_glue_backend_unregister(&sim_backend);
}

} // namespace

int sim_progress_info(struct ibv_context *context, struct mlx5_glue_progress_info *info)
{
	Hca *hca;

	if (!sim_is_sim_context(context) || !info)
		return -EINVAL;
	hca = to_ctx_full(context)->hca.get();
	memset(info, 0, sizeof(*info));
	switch (hca->mode()) {
	case ExecMode::Inline:
		info->mode = MLX5_GLUE_PROGRESS_NONE;
		return 0;
	case ExecMode::Polled:
		info->mode = MLX5_GLUE_PROGRESS_POLLED;
		return 0;
	case ExecMode::Thread: {
		int n = hca->engine_cpus(&info->cpus);
		if (n < 0)
			return n;
		info->mode = MLX5_GLUE_PROGRESS_THREADS;
		info->threads = (unsigned int)n;
		return 0;
	}
	}
	return -EINVAL;
}

int sim_progress(struct ibv_context *context)
{
	return to_ctx_full(context)->hca->progress();
}

} // namespace mlx5sim
