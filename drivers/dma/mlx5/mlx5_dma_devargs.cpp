/* SPDX-License-Identifier: BSD-3-Clause */
/* Devargs of dma_mlx5: the one parser; every bad key or value is named in one log line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_kvargs.h>

#include "mlx5_dma.h"

namespace {

bool parse_uint(const char *s, unsigned long min, unsigned long max, unsigned long *out)
{
	char *end = nullptr;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	unsigned long v = strtoul(s, &end, 0);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

int apply(const char *key, const char *value, struct mlx5_dma_devargs *a)
{
	unsigned long v;

	if (!strcmp(key, "dev")) {
		if (!value || !*value || strlen(value) >= sizeof(a->dev))
			goto bad;
		strcpy(a->dev, value);
	} else if (!strcmp(key, "path")) {
		if (value && !strcmp(value, "direct"))
			a->path = MLX5_DMA_PATH_DIRECT;
		else if (value && !strcmp(value, "verbs"))
			a->path = MLX5_DMA_PATH_VERBS;
		else
			goto bad;
	} else if (!strcmp(key, "max_vchans")) {
		if (!parse_uint(value, 1, 64, &v))
			goto bad;
		a->max_vchans = (uint16_t)v;
	} else if (!strcmp(key, "min_desc")) {
		if (!parse_uint(value, 2, 32768, &v))
			goto bad;
		a->min_desc = (uint32_t)v;
	} else if (!strcmp(key, "max_desc")) {
		if (!parse_uint(value, 2, 32768, &v))
			goto bad;
		a->max_desc = (uint32_t)v;
	} else if (!strcmp(key, "umr_entries")) {
		if (!parse_uint(value, 0, MLX5_DMA_MAX_SGES, &v))
			goto bad;
		a->umr_entries = (uint16_t)v;
	} else if (!strcmp(key, "sig")) {
		if (!parse_uint(value, 0, 1, &v))
			goto bad;
		a->sig = v == 1;
	} else if (!strcmp(key, "sva")) {
		if (!parse_uint(value, 0, 1, &v))
			goto bad;
		a->sva = v == 1;
	} else if (mlx5_glue_backend_of_option(key)) {
		/* a backend's own option: checked by the backend when the device is prepared */
		struct mlx5_dma_backend_opt *o = &a->opts[a->n_opts];

		if (a->n_opts == MLX5_DMA_MAX_BACKEND_OPTS) {
			MLX5_DMA_LOG(ERR, "devarg '%s': more than %d backend options", key,
				     MLX5_DMA_MAX_BACKEND_OPTS);
			return -EINVAL;
		}
		if (strlen(key) >= sizeof(o->key) || !value || strlen(value) >= sizeof(o->value))
			goto bad;
		strcpy(o->key, key);
		strcpy(o->value, value);
		a->n_opts++;
	} else {
		MLX5_DMA_LOG(ERR, "unknown devarg '%s'", key);
		return -EINVAL;
	}
	return 0;
bad:
	MLX5_DMA_LOG(ERR, "bad value '%s' for devarg '%s'", value ? value : "", key);
	return -EINVAL;
}

} // namespace

int mlx5_dma_devargs_parse(const char *args, struct mlx5_dma_devargs *a)
{
	struct rte_kvargs *kv;
	int ret = 0;

	memset(a, 0, sizeof(*a));
	a->path = MLX5_DMA_PATH_DIRECT;
	a->max_vchans = 4;
	a->min_desc = 32;
	a->max_desc = 8192;
	if (!args || !*args)
		return 0;
	kv = rte_kvargs_parse(args, NULL);
	if (!kv) {
		MLX5_DMA_LOG(ERR, "cannot parse devargs '%s'", args);
		return -EINVAL;
	}
	for (unsigned i = 0; i < kv->count && !ret; i++)
		ret = apply(kv->pairs[i].key, kv->pairs[i].value, a);
	rte_kvargs_free(kv);
	if (!ret && a->min_desc > a->max_desc) {
		MLX5_DMA_LOG(ERR, "min_desc %u above max_desc %u", a->min_desc, a->max_desc);
		ret = -EINVAL;
	}
	if (!ret && (a->min_desc & (a->min_desc - 1) || a->max_desc & (a->max_desc - 1))) {
		MLX5_DMA_LOG(ERR, "min_desc %u / max_desc %u must be powers of two", a->min_desc,
			     a->max_desc);
		ret = -EINVAL;
	}
	return ret;
}
