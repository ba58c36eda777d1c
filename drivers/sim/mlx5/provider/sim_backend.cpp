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

/* "3", "2-3", "0,2-5": every CPU must exist. On error @p why names the bad part. */
int parse_cpu_list(const char *s, cpu_set_t *cpus, char *why, size_t why_len)
{
	long n_cpus = sysconf(_SC_NPROCESSORS_CONF);
	const char *p = s;

	CPU_ZERO(cpus);
	if (n_cpus < 1 || n_cpus > CPU_SETSIZE)
		n_cpus = CPU_SETSIZE;
	while (p != NULL && *p != '\0') {
		char *end;
		unsigned long lo, hi;

		if (*p < '0' || *p > '9')
			goto bad;
		lo = strtoul(p, &end, 10);
		hi = lo;
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				goto bad;
			hi = strtoul(end + 1, &end, 10);
		}
		if (hi < lo || hi >= (unsigned long)n_cpus) {
			snprintf(why, why_len, "sim_core '%s': CPU %lu does not exist (0-%ld)", s,
				 hi, n_cpus - 1);
			return -EINVAL;
		}
		for (unsigned long c = lo; c <= hi; c++)
			CPU_SET((int)c, cpus);
		if (*end == ',' && end[1] != '\0')
			p = end + 1;
		else if (*end == '\0')
			p = end;
		else
			goto bad;
	}
	if (CPU_COUNT(cpus) > 0)
		return 0;
bad:
	snprintf(why, why_len, "sim_core '%s': not a CPU list such as 3, 2-3 or 0,2-5", s);
	return -EINVAL;
}

/**
 * sim_fabric_uids: uids as "1001", "1001:1002" or DPDK's list form "[1001,1002]"
 * (a bare comma would end the devarg), at most MLX5_SIM_FABRIC_MAX_UIDS.
 */
int parse_uid_list(const char *s, struct mlx5_sim_device_attr *attr, char *why, size_t why_len)
{
	const char *p = s;
	size_t n = strlen(s);
	bool bracket = n >= 2 && s[0] == '[' && s[n - 1] == ']';
	const char *end_all = bracket ? s + n - 1 : s + n;

	if (bracket)
		p++;
	attr->n_fabric_uids = 0;
	while (p < end_all) {
		char *end;
		if (*p < '0' || *p > '9' || attr->n_fabric_uids == MLX5_SIM_FABRIC_MAX_UIDS)
			goto bad;
		errno = 0;
		unsigned long v = strtoul(p, &end, 10);
		if (errno || v >= UINT32_MAX || end > end_all)
			goto bad;
		attr->fabric_uids[attr->n_fabric_uids++] = (uint32_t)v;
		if (end == end_all)
			return 0;
		if ((*end != ',' && *end != ':') || end + 1 == end_all)
			goto bad;
		p = end + 1;
	}
bad:
	attr->n_fabric_uids = 0;
	snprintf(why, why_len,
		 "bad value '%s' for sim_fabric_uids (1 to %d uids: 1001, 1001:1002 or "
		 "[1001,1002])",
		 s, MLX5_SIM_FABRIC_MAX_UIDS);
	return -EINVAL;
}

int sim_prepare(const char *name, const struct mlx5_glue_option *opts, unsigned int n_opts,
		char *why, size_t why_len)
{
	struct mlx5_sim_device_attr attr;
	const char *core = NULL, *uids = NULL;
	int ret;

	mlx5_sim_device_attr_init(&attr);
	for (unsigned int i = 0; i < n_opts; i++) {
		const char *k = opts[i].key, *v = opts[i].value ? opts[i].value : "";

		if (strcmp(k, "sim_exec") == 0) {
			if (strcmp(v, "inline") == 0) {
				attr.exec_mode = MLX5_SIM_EXEC_INLINE;
			} else if (strcmp(v, "thread") == 0) {
				attr.exec_mode = MLX5_SIM_EXEC_THREAD;
			} else if (strcmp(v, "service") == 0) {
				attr.exec_mode = MLX5_SIM_EXEC_POLLED;
			} else {
				snprintf(why, why_len,
					 "bad value '%s' for sim_exec (inline, thread or service)",
					 v);
				return -EINVAL;
			}
		} else if (strcmp(k, "sim_fabric") == 0) {
			/* 0, 1 (the process's fabric) or the name of a machine-wide one */
			if (!v[0] || !sim_fabric_name_ok(v, sizeof(attr.fabric_name))) {
				snprintf(why, why_len,
					 "bad value '%s' for sim_fabric (0, 1 or a fabric name of "
					 "1..31 characters [A-Za-z0-9_.-])",
					 v);
				return -EINVAL;
			}
			attr.fabric = strcmp(v, "0") != 0;
			if (strcmp(v, "0") && strcmp(v, "1"))
				snprintf(attr.fabric_name, sizeof(attr.fabric_name), "%s", v);
		} else if (strcmp(k, "sim_fabric_uids") == 0) {
			ret = parse_uid_list(v, &attr, why, why_len);
			if (ret)
				return ret;
			uids = v;
		} else if (strcmp(k, "sim_core") == 0) {
			ret = parse_cpu_list(v, &attr.engine_cpus, why, why_len);
			if (ret)
				return ret;
			attr.engine_cpus_set = 1;
			core = v;
		} else {
			snprintf(
				why, why_len,
				"unknown software HCA option '%s' (sim_exec, sim_core, sim_fabric, "
				"sim_fabric_uids)",
				k);
			return -EINVAL;
		}
	}
	if (core && attr.exec_mode != MLX5_SIM_EXEC_THREAD) {
		snprintf(why, why_len, "sim_core=%s needs sim_exec=thread (the engine thread)",
			 core);
		return -EINVAL;
	}
	if (uids && !attr.fabric_name[0]) {
		snprintf(why, why_len,
			 "sim_fabric_uids=%s needs sim_fabric=<name> (a machine-wide fabric)",
			 uids);
		return -EINVAL;
	}
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
	case ExecMode::Thread:
		info->mode = MLX5_GLUE_PROGRESS_THREADS;
		info->threads = 1;
		return hca->engine_cpus(&info->cpus);
	}
	return -EINVAL;
}

int sim_progress(struct ibv_context *context)
{
	return to_ctx_full(context)->hca->progress();
}

} // namespace mlx5sim
