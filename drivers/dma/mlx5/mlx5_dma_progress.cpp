/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the device's own work runs. Hardware needs no host CPU; a software
 * backend either runs its own threads (we say where they may run, and warn when
 * they can only share a CPU with lcores) or asks to be polled, which dma_mlx5
 * does from a DPDK service so that the application places it on a service core
 * like any other software PMD's work.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_memory.h>
#include <rte_pause.h>
#include <rte_lcore.h>
#include <rte_service.h>
#include <rte_service_component.h>

#include "mlx5_dma.h"

namespace {

/* "0-1,4" */
void cpus_to_str(const cpu_set_t *cpus, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE && off < len; c++) {
		int last = c;

		if (!CPU_ISSET(c, cpus))
			continue;
		while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, cpus))
			last++;
		off += snprintf(buf + off, len - off, off ? ",%d" : "%d", c);
		if (last > c && off < len)
			off += snprintf(buf + off, len - off, "-%d", last);
		c = last;
	}
}

/* The CPUs of every enabled lcore, the main one included. */
void lcore_cpus(cpu_set_t *cpus)
{
	unsigned int lcore;

	CPU_ZERO(cpus);
	RTE_LCORE_FOREACH (lcore) {
		rte_cpuset_t set = rte_lcore_cpuset(lcore);

		CPU_OR(cpus, cpus, &set);
	}
}

void log_threads(const struct mlx5_dma_dev *p, const struct mlx5_glue_progress_info *info)
{
	const char *dev = p->glue->get_device_name(p->device);
	cpu_set_t lcores, shared;
	char where[128], overlap[128];

	cpus_to_str(&info->cpus, where, sizeof(where));
	lcore_cpus(&lcores);
	CPU_AND(&shared, &info->cpus, &lcores);
	MLX5_DMA_LOG(INFO, "%s: %s runs %u engine thread%s on CPUs %s", p->name, dev, info->threads,
		     info->threads == 1 ? "" : "s", where);
	if (CPU_COUNT(&shared) == CPU_COUNT(&info->cpus)) {
		cpus_to_str(&shared, overlap, sizeof(overlap));
		MLX5_DMA_LOG(WARNING,
			     "%s: %s's engine can only share a CPU with lcores (CPUs %s): it "
			     "competes with whatever polls there; give it a free CPU (sim_core=) "
			     "or keep one of those lcores idle",
			     p->name, dev, overlap);
	}
}

int32_t progress_service(void *arg)
{
	struct mlx5_dma_dev *p = (struct mlx5_dma_dev *)arg;

	return p->glue->progress(p->ctx) > 0 ? 0 : -EAGAIN; /* -EAGAIN: idle call */
}

int register_service(struct mlx5_dma_dev *p)
{
	struct rte_service_spec spec;
	int ret;

	if (!p->glue->progress) {
		MLX5_DMA_LOG(ERR,
			     "%s: the %s backend wants progress calls but has no progress entry",
			     p->name, p->glue->name);
		return -ENOTSUP;
	}
	memset(&spec, 0, sizeof(spec));
	/* service names are short (RTE_SERVICE_NAME_MAX): the dmadev name, cut */
	snprintf(spec.name, sizeof(spec.name), "%.*s", (int)sizeof(spec.name) - 1, p->name);
	spec.callback = progress_service;
	spec.callback_userdata = p;
	spec.capabilities = RTE_SERVICE_CAP_MT_SAFE; /* the backend serialises passes */
	spec.socket_id = SOCKET_ID_ANY;
	ret = rte_service_component_register(&spec, &p->service_id);
	if (ret) {
		MLX5_DMA_LOG(ERR, "%s: cannot register service '%s': %s", p->name, spec.name,
			     strerror(-ret));
		return ret;
	}
	p->has_service = true;
	rte_service_component_runstate_set(p->service_id, 1);
	rte_service_runstate_set(p->service_id, 1);
	MLX5_DMA_LOG(INFO, "%s: %s's work runs in DPDK service %u '%s' (map it to a service lcore)",
		     p->name, p->glue->get_device_name(p->device), p->service_id, spec.name);
	return 0;
}

/* Is some service lcore mapped to the service? */
bool service_mapped(const struct mlx5_dma_dev *p, uint32_t *lcores, int n)
{
	for (int i = 0; i < n; i++)
		if (rte_service_map_lcore_get(p->service_id, lcores[i]) == 1)
			return true;
	return false;
}

} // namespace

int mlx5_dma_progress_setup(struct mlx5_dma_dev *p)
{
	struct mlx5_glue_progress_info info;
	int ret;

	if (!p->glue->progress_info)
		return 0; /* hardware: no host CPU needed */
	memset(&info, 0, sizeof(info));
	ret = p->glue->progress_info(p->ctx, &info);
	if (ret) {
		MLX5_DMA_LOG(ERR, "%s: progress_info: %s", p->name, strerror(ret < 0 ? -ret : ret));
		return ret < 0 ? ret : -ret;
	}
	switch (info.mode) {
	case MLX5_GLUE_PROGRESS_NONE:
		MLX5_DMA_LOG(INFO, "%s: %s executes on the thread that rings the doorbell", p->name,
			     p->glue->get_device_name(p->device));
		return 0;
	case MLX5_GLUE_PROGRESS_THREADS:
		log_threads(p, &info);
		return 0;
	case MLX5_GLUE_PROGRESS_POLLED:
		return register_service(p);
	}
	return 0;
}

void mlx5_dma_progress_start(struct mlx5_dma_dev *p)
{
	uint32_t lcores[RTE_MAX_LCORE];
	uint32_t best = 0, best_n = UINT32_MAX;
	int n;

	if (!p->has_service)
		return;
	n = rte_service_lcore_list(lcores, RTE_MAX_LCORE);
	if (n <= 0) {
		MLX5_DMA_LOG(WARNING,
			     "%s: no service lcore: nothing completes until service %u runs "
			     "(EAL -s, or rte_service_lcore_add() + rte_service_map_lcore_set())",
			     p->name, p->service_id);
		return;
	}
	if (service_mapped(p, lcores, n))
		return; /* the application placed it */
	for (int i = 0; i < n; i++) {
		int32_t count = rte_service_lcore_count_services(lcores[i]);

		if (count >= 0 && (uint32_t)count < best_n) {
			best = lcores[i];
			best_n = (uint32_t)count;
		}
	}
	rte_service_map_lcore_set(p->service_id, best, 1);
	rte_service_lcore_start(best); /* -EALREADY when it runs */
	MLX5_DMA_LOG(INFO, "%s: service %u mapped to service lcore %u", p->name, p->service_id,
		     best);
}

void mlx5_dma_progress_teardown(struct mlx5_dma_dev *p)
{
	uint64_t deadline;

	if (!p->has_service)
		return;
	rte_service_runstate_set(p->service_id, 0);
	rte_service_component_runstate_set(p->service_id, 0);
	deadline = rte_get_timer_cycles() + rte_get_timer_hz(); /* a pass is short: 1 s */
	while (rte_service_may_be_active(p->service_id) == 1 && rte_get_timer_cycles() < deadline)
		rte_pause();
	rte_service_component_unregister(p->service_id);
	p->has_service = false;
}
