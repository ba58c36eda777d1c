/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software HCA options (sim_options.h): parsing the sim_* options, defaults,
 * and the attribute check that makes HcaCaps.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_options.h"

namespace mlx5sim {

bool sim_fabric_name_ok(const char *s, size_t cap)
{
	size_t n = strnlen(s, cap);
	if (n == cap)
		return false; /* not terminated */
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return false;
	}
	return true;
}

namespace {

/*
 * "3", "2-3", "0,2-5": every CPU must exist, and one engine thread per CPU makes at
 * most HCA_MAX_ENGINES. On error @p why names the value.
 */
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
		if (hi < lo)
			goto bad;
		if (hi >= (unsigned long)n_cpus) {
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
	if (CPU_COUNT(cpus) > (int)HCA_MAX_ENGINES) {
		snprintf(why, why_len,
			 "sim_core '%s': %d CPUs, at most %u (one engine thread per CPU)", s,
			 CPU_COUNT(cpus), HCA_MAX_ENGINES);
		return -EINVAL;
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

bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

} // namespace

bool sim_attr_to_caps(const struct mlx5_sim_device_attr &a, HcaCaps *caps, ExecMode *mode)
{
	if (a.exec_mode != MLX5_SIM_EXEC_INLINE && a.exec_mode != MLX5_SIM_EXEC_THREAD &&
	    a.exec_mode != MLX5_SIM_EXEC_POLLED)
		return false;
	if (a.engine_cpus_set && CPU_COUNT(&a.engine_cpus) == 0)
		return false;
	if (a.max_wr_memcpy_length &&
	    (!is_pow2(a.max_wr_memcpy_length) || a.max_wr_memcpy_length > (1ull << 31)))
		return false;
	if (a.max_sq_desc_sz < 64 || a.max_sq_desc_sz > 4096 || a.max_sq_desc_sz % 64)
		return false;
	if (!is_pow2(a.max_send_wqebb) || a.max_send_wqebb > 65536)
		return false;
	if (!a.max_recv_wr || a.max_recv_wr > 65536 || !a.max_sge || a.max_sge > 64)
		return false;
	if (!a.max_cqe || a.max_cqe >= (1u << 24))
		return false;
	if (!a.max_qp || !a.max_cq || !a.max_mr || !a.max_pd || a.cqe_version > 1)
		return false;
	if (a.sig_features & ~(uint32_t)(MLX5_SIM_SIG_ALL | MLX5_SIM_SIG_STOP_AT_FENCE))
		return false;
	if (a.log_reserved_qpn_granularity > 16 ||
	    a.data_in_order > MLX5_SIM_DATA_IN_ORDER_WHOLE_MSG || a.dci_max_log_streams > 15 ||
	    a.dci_max_log_errored > HCA_DCI_MAX_LOG_ERRORED)
		return false;
	caps->max_wr_memcpy_length = a.max_wr_memcpy_length;
	caps->max_sq_desc_sz = a.max_sq_desc_sz;
	caps->max_send_wqebb = a.max_send_wqebb;
	caps->max_recv_wr = a.max_recv_wr;
	caps->max_sge = a.max_sge;
	caps->max_cqe = a.max_cqe;
	caps->max_qp = a.max_qp;
	caps->max_cq = a.max_cq;
	caps->max_mr = a.max_mr;
	caps->max_pd = a.max_pd;
	caps->cqe_version = a.cqe_version;
	caps->odp_implicit = a.odp_implicit != 0;
	caps->reorder_unfenced = a.reorder_unfenced != 0;
	caps->sig_sho = caps->sig_domain_and_sig_type = a.sig_features & MLX5_SIM_SIG_OFFLOAD;
	caps->sig_block_4048 = a.sig_features & MLX5_SIM_SIG_BLOCK_4048;
	caps->sig_crc32c = a.sig_features & MLX5_SIM_SIG_CRC32C;
	caps->sig_crc64_xp10 = a.sig_features & MLX5_SIM_SIG_CRC64_XP10;
	caps->sqd2rts = a.sig_features & MLX5_SIM_SIG_PIPELINING;
	caps->sigerr_stop_at_fence = a.sig_features & MLX5_SIM_SIG_STOP_AT_FENCE;
	caps->reserved_qpn = a.reserved_qpn != 0;
	caps->log_reserved_qpn_granularity = a.log_reserved_qpn_granularity;
	caps->dc = a.dc != 0;
	caps->dci_max_log_streams = a.dci_max_log_streams;
	caps->dci_max_log_errored = a.dci_max_log_errored;
	caps->fabric = a.fabric != 0;
	if (!sim_fabric_name_ok(a.fabric_name, sizeof(a.fabric_name)))
		return false;
	memcpy(caps->fabric_name, a.fabric_name, sizeof(caps->fabric_name));
	static_assert(MLX5_SIM_FABRIC_MAX_UIDS == HCA_FABRIC_MAX_UIDS, "fabric uid list sizes");
	if (a.n_fabric_uids > MLX5_SIM_FABRIC_MAX_UIDS)
		return false;
	for (uint8_t i = 0; i < a.n_fabric_uids; i++) {
		if (a.fabric_uids[i] == UINT32_MAX) /* (uid_t)-1 names nobody */
			return false;
		caps->fabric_uids[i] = a.fabric_uids[i];
	}
	caps->n_fabric_uids = a.n_fabric_uids;
	caps->data_in_order = a.data_in_order == MLX5_SIM_DATA_IN_ORDER_WHOLE_MSG
				      ? DataInOrder::WholeMsg
			      : a.data_in_order == MLX5_SIM_DATA_IN_ORDER_ALIGNED_128
				      ? DataInOrder::Aligned128
				      : DataInOrder::None;
	*mode = a.exec_mode == MLX5_SIM_EXEC_INLINE   ? ExecMode::Inline
		: a.exec_mode == MLX5_SIM_EXEC_POLLED ? ExecMode::Polled
						      : ExecMode::Thread;
	return true;
}

int sim_parse_options(const struct mlx5_glue_option *opts, unsigned int n_opts,
		      struct mlx5_sim_device_attr *attr, char *why, size_t why_len)
{
	const char *core = NULL, *uids = NULL;
	int ret;

	mlx5_sim_device_attr_init(attr);
	for (unsigned int i = 0; i < n_opts; i++) {
		const char *k = opts[i].key, *v = opts[i].value ? opts[i].value : "";

		if (strcmp(k, "sim_exec") == 0) {
			if (strcmp(v, "inline") == 0) {
				attr->exec_mode = MLX5_SIM_EXEC_INLINE;
			} else if (strcmp(v, "thread") == 0) {
				attr->exec_mode = MLX5_SIM_EXEC_THREAD;
			} else if (strcmp(v, "service") == 0) {
				attr->exec_mode = MLX5_SIM_EXEC_POLLED;
			} else {
				snprintf(why, why_len,
					 "bad value '%s' for sim_exec (inline, thread or service)",
					 v);
				return -EINVAL;
			}
		} else if (strcmp(k, "sim_fabric") == 0) {
			/* 0, 1 (the process's fabric) or the name of a machine-wide one */
			if (!v[0] || !sim_fabric_name_ok(v, sizeof(attr->fabric_name))) {
				snprintf(why, why_len,
					 "bad value '%s' for sim_fabric (0, 1 or a fabric name of "
					 "1..31 characters [A-Za-z0-9_.-])",
					 v);
				return -EINVAL;
			}
			attr->fabric = strcmp(v, "0") != 0;
			if (strcmp(v, "0") && strcmp(v, "1"))
				snprintf(attr->fabric_name, sizeof(attr->fabric_name), "%s", v);
		} else if (strcmp(k, "sim_fabric_uids") == 0) {
			ret = parse_uid_list(v, attr, why, why_len);
			if (ret)
				return ret;
			uids = v;
		} else if (strcmp(k, "sim_core") == 0) {
			ret = parse_cpu_list(v, &attr->engine_cpus, why, why_len);
			if (ret)
				return ret;
			attr->engine_cpus_set = 1;
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
	if (core && attr->exec_mode != MLX5_SIM_EXEC_THREAD) {
		snprintf(why, why_len, "sim_core=%s needs sim_exec=thread (the engine thread)",
			 core);
		return -EINVAL;
	}
	if (uids && !attr->fabric_name[0]) {
		snprintf(why, why_len,
			 "sim_fabric_uids=%s needs sim_fabric=<name> (a machine-wide fabric)",
			 uids);
		return -EINVAL;
	}
	return 0;
}

} // namespace mlx5sim

using namespace mlx5sim;

extern "C" void mlx5_sim_device_attr_init(struct mlx5_sim_device_attr *attr)
{
	HcaCaps caps;

	if (!attr)
		return;
	memset(attr, 0, sizeof(*attr));
	attr->exec_mode = MLX5_SIM_EXEC_THREAD;
	attr->max_wr_memcpy_length = caps.max_wr_memcpy_length;
	attr->max_sq_desc_sz = caps.max_sq_desc_sz;
	attr->max_send_wqebb = caps.max_send_wqebb;
	attr->max_recv_wr = caps.max_recv_wr;
	attr->max_sge = caps.max_sge;
	attr->max_cqe = caps.max_cqe;
	attr->max_qp = caps.max_qp;
	attr->max_cq = caps.max_cq;
	attr->max_mr = caps.max_mr;
	attr->max_pd = caps.max_pd;
	attr->cqe_version = caps.cqe_version;
	attr->odp_implicit = caps.odp_implicit;
	attr->reorder_unfenced = caps.reorder_unfenced;
	attr->sig_features = MLX5_SIM_SIG_ALL;
	attr->reserved_qpn = caps.reserved_qpn;
	attr->log_reserved_qpn_granularity = caps.log_reserved_qpn_granularity;
	attr->data_in_order = MLX5_SIM_DATA_IN_ORDER_NONE;
	attr->dc = caps.dc;
	attr->dci_max_log_streams = caps.dci_max_log_streams;
	attr->dci_max_log_errored = caps.dci_max_log_errored;
	attr->fabric = 0;
}
