/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers of the dma_mlx5 suite: devices, waits, buffers, heap accounting. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "test_dma_mlx5.h"

const struct t_mode t_modes[4] = {
	{T_SIM_INLINE, "direct", false},
	{T_SIM_INLINE, "verbs", false},
	{T_SIM_THREAD, "direct", true},
	{T_SIM_THREAD, "verbs", true},
};
const struct t_mode *t_modes_first = t_modes, *t_modes_end = t_modes + 4;
const char *t_kernel_dev;
struct t_mode t_kernel_modes[2] = {{NULL, "direct", false}, {NULL, "verbs", false}};

const struct t_mode *t_path_mode(bool thread, bool verbs)
{
	if (t_kernel_dev)
		return &t_kernel_modes[verbs];
	return &t_modes[(thread ? 2 : 0) + (verbs ? 1 : 0)];
}

int t_exec_modes(void)
{
	return t_kernel_dev ? 1 : 2;
}

uint64_t t_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int t_probe(const char *name, const char *args)
{
	char devargs[256];
	int ret;

	snprintf(devargs, sizeof(devargs), "%s%s%s", name, args && *args ? "," : "",
		 args ? args : "");
	ret = rte_dev_probe(devargs);
	if (ret)
		return ret < 0 ? ret : -ret;
	return rte_dma_get_dev_id_by_name(name);
}

struct rte_device *t_find_vdev(const char *name)
{
	struct rte_dev_iterator it;
	struct rte_device *dev, *found = NULL;

	RTE_DEV_FOREACH (dev, "bus=vdev", &it) {
		if (!found && strcmp(rte_dev_name(dev), name) == 0)
			found = dev;
	}
	return found;
}

int t_remove(const char *name)
{
	struct rte_device *dev = t_find_vdev(name);

	return dev ? rte_dev_remove(dev) : -ENODEV;
}

int t_open(const char *name, const char *args, uint16_t nb_vchans, uint16_t nb_desc)
{
	struct rte_dma_conf conf = {};
	struct rte_dma_vchan_conf vconf = {};
	int id, ret;

	id = t_probe(name, args);
	if (id < 0)
		return id;
	conf.nb_vchans = nb_vchans;
	ret = rte_dma_configure(id, &conf);
	vconf.direction = RTE_DMA_DIR_MEM_TO_MEM;
	vconf.nb_desc = nb_desc;
	for (uint16_t v = 0; !ret && v < nb_vchans; v++)
		ret = rte_dma_vchan_setup(id, v, &vconf);
	if (!ret)
		ret = rte_dma_start(id);
	if (ret) {
		t_remove(name);
		return ret < 0 ? ret : -ret;
	}
	return id;
}

int t_close(const char *name)
{
	int id = rte_dma_get_dev_id_by_name(name);
	int ret;

	if (id < 0)
		return id;
	ret = rte_dma_stop(id);
	if (ret)
		return ret;
	return t_remove(name);
}

const char *t_args(const struct t_mode *m, const char *extra)
{
	static char buf[4][256];
	static unsigned turn;
	char *b = buf[turn++ % 4];

	if (m->sim == t_kernel_dev) /* the rdma-core backend takes no sim_* devarg */
		snprintf(b, sizeof(buf[0]), "dev=%s,path=%s%s%s", m->sim, m->path, extra ? "," : "",
			 extra ? extra : "");
	else
		snprintf(b, sizeof(buf[0]), "dev=%s,sim_exec=%s,path=%s%s%s", m->sim,
			 m->thread ? "thread" : "inline", m->path, extra ? "," : "",
			 extra ? extra : "");
	return b;
}

size_t t_heap_used(void)
{
	size_t used = 0;

	for (unsigned i = 0; i < rte_socket_count(); i++) {
		struct rte_malloc_socket_stats st;

		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) == 0)
			used += st.heap_allocsz_bytes;
	}
	return used;
}

void t_sim_attr(const char *name, struct mlx5_sim_device_attr *attr)
{
	mlx5_sim_device_attr_init(attr);
	if (!strcmp(name, T_SIM_INLINE) || !strcmp(name, T_SIM_SMALL_INLINE))
		attr->exec_mode = MLX5_SIM_EXEC_INLINE;
	if (!strcmp(name, T_SIM_SMALL_INLINE) || !strcmp(name, T_SIM_SMALL_THREAD))
		attr->max_wr_memcpy_length = T_SMALL_MAX_LEN;
}

int t_sim_recycle(const char *name, const struct mlx5_sim_device_attr *attr)
{
	int ret = mlx5_sim_device_remove(name);

	if (ret)
		return ret;
	return mlx5_sim_device_add(name, attr);
}

uint16_t t_wait_status(int16_t id, uint16_t vchan, uint16_t n, enum rte_dma_status_code *status,
		       uint16_t *last_idx)
{
	uint64_t deadline = t_now_ms() + 5000;
	uint16_t got = 0;

	while (got < n && t_now_ms() < deadline)
		got += rte_dma_completed_status(id, vchan, n - got, last_idx, status + got);
	return got;
}

uint16_t t_wait_done(int16_t id, uint16_t vchan, uint16_t n, uint16_t *last_idx, bool *has_error)
{
	uint64_t deadline = t_now_ms() + 5000;
	uint16_t got = 0;

	*has_error = false;
	while (got < n && !*has_error && t_now_ms() < deadline)
		got += rte_dma_completed(id, vchan, n - got, last_idx, has_error);
	return got;
}

void t_fill(void *p, size_t len, uint32_t seed)
{
	uint8_t *b = (uint8_t *)p;

	for (size_t i = 0; i < len; i++)
		b[i] = t_pat(seed, i);
}

bool t_check(const void *p, size_t len, uint32_t seed)
{
	const uint8_t *b = (const uint8_t *)p;

	for (size_t i = 0; i < len; i++)
		if (b[i] != t_pat(seed, i))
			return false;
	return true;
}

struct ibv_context *t_sim_ctx_open(const char *name)
{
	const struct mlx5_glue *glue;
	struct ibv_device *device;
	struct ibv_context *ctx;

	if (mlx5_glue_find_device(name, &glue, &device))
		return NULL;
	ctx = glue->open_device(device);
	mlx5_glue_put_device(glue, device); /* the context keeps the instance */
	return ctx;
}

void t_sim_ctx_close(struct ibv_context *ctx)
{
	if (ctx)
		mlx5_glue_sim()->close_device(ctx);
}

t_bufs::t_bufs(size_t n) : len(n)
{
	src = (uint8_t *)rte_malloc(NULL, n, 64);
	dst = (uint8_t *)rte_zmalloc(NULL, n, 64);
}

t_bufs::~t_bufs()
{
	rte_free(src);
	rte_free(dst);
}
