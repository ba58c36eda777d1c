/* SPDX-License-Identifier: BSD-3-Clause */
/* dma_mlx5: the vdev driver, probe and remove. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_malloc.h>

#include "mlx5_dma_fp.h"
#include "mlx5_dma_sdk.h"

RTE_LOG_REGISTER(mlx5_dma_logtype, pmd.dma.mlx5, INFO);

namespace {

/* Open @p name and read its memcpy limit. */
int open_device(struct mlx5_dma_dev *p, const char *name)
{
	struct mlx5dv_context dv = {};
	int ret;

	ret = mlx5_glue_find_device(name, &p->glue, &p->device);
	if (ret)
		return ret;
	p->ctx = p->glue->open_device(p->device);
	if (!p->ctx)
		return mlx5_dma_neg_errno(ENODEV);
	/* async events are read from the completion path when a vchan stalls: never block */
	if (p->ctx->async_fd >= 0) {
		int fl = fcntl(p->ctx->async_fd, F_GETFL);

		if (fl < 0 || fcntl(p->ctx->async_fd, F_SETFL, fl | O_NONBLOCK) < 0)
			return mlx5_dma_neg_errno(EIO);
	}
	dv.comp_mask = MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH | MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD;
	ret = p->glue->dv_query_device(p->ctx, &dv);
	if (ret)
		return -ret;
	if (dv.comp_mask & MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD)
		p->sig_caps = dv.sig_caps;
	if (p->args.sig && !p->sig_caps.block_prot)
		MLX5_DMA_LOG(ERR, "%s: sig=1 but the device has no signature offload", p->name);
	else if (p->args.sig && p->args.path != MLX5_DMA_PATH_DIRECT)
		MLX5_DMA_LOG(ERR, "%s: sig=1 needs path=direct: no signature copies", p->name);
	p->sig_pipelining = p->args.sig; /* until a QP refuses it */
	p->max_wr_memcpy_length = dv.max_wr_memcpy_length;
	p->max_sges = mlx5_dma_sg_max_sges(p->args.min_desc);
	return 0;
}

void close_device(struct mlx5_dma_dev *p)
{
	if (p->ctx)
		p->glue->close_device(p->ctx);
	if (p->device)
		mlx5_glue_put_device(p->glue, p->device);
	p->ctx = NULL;
	p->device = NULL;
}

/* A vchan's SQ holds nb_desc WQEBBs: never offer more than the device's QPs take. */
int clamp_desc(struct mlx5_dma_dev *p)
{
	struct ibv_device_attr_ex attr = {};
	uint32_t limit;
	int ret = p->glue->query_device_ex(p->ctx, NULL, &attr);

	if (ret)
		return ret > 0 ? -ret : ret;
	limit = attr.orig_attr.max_qp_wr > 0 ? rte_align32prevpow2(attr.orig_attr.max_qp_wr) : 0;
	if (limit < p->args.min_desc) {
		MLX5_DMA_LOG(ERR, "%s: min_desc %u above the device's %d WQEs per QP", p->name,
			     p->args.min_desc, attr.orig_attr.max_qp_wr);
		return -EINVAL;
	}
	if (p->args.max_desc > limit) {
		MLX5_DMA_LOG(INFO, "%s: max_desc %u lowered to the device's %u", p->name,
			     p->args.max_desc, limit);
		p->args.max_desc = limit;
	}
	return 0;
}

/* The devargs a backend owns, as the seam takes them. */
unsigned int backend_opts(const struct mlx5_dma_devargs *a, struct mlx5_glue_option *opts)
{
	for (unsigned int i = 0; i < a->n_opts; i++) {
		opts[i].key = a->opts[i].key;
		opts[i].value = a->opts[i].value;
	}
	return a->n_opts;
}

/* Get @p dev ready with the backend options, then open it. */
int prepare_and_open(struct mlx5_dma_dev *p, const char *dev)
{
	struct mlx5_glue_option opts[MLX5_DMA_MAX_BACKEND_OPTS];
	unsigned int n = backend_opts(&p->args, opts);
	char why[160];
	int ret;

	ret = mlx5_glue_prepare_device(dev, opts, n, why, sizeof(why));
	if (ret < 0) {
		MLX5_DMA_LOG(ERR, "%s: %s", p->name, why[0] ? why : strerror(-ret));
		return ret;
	}
	if (ret > 0)
		MLX5_DMA_LOG(INFO, "%s: %s", p->name, why);
	ret = open_device(p, dev);
	if (ret) {
		const struct mlx5_glue_backend *b = mlx5_glue_backend_of(dev);
		const char *status = b && b->status ? b->status() : NULL;

		MLX5_DMA_LOG(ERR, "%s: device '%s': %s (%s backend%s%s)", p->name, dev,
			     strerror(-ret), b ? b->name : "no", status ? ": " : "",
			     status ? status : "");
	}
	return ret;
}

/* Does backend @p b own every backend option given? (They pick the backend.) */
bool options_fit(const struct mlx5_dma_devargs *a, const struct mlx5_glue_backend *b)
{
	for (unsigned int i = 0; i < a->n_opts; i++)
		if (mlx5_glue_backend_of_option(a->opts[i].key) != b)
			return false;
	return true;
}

/* A listed device of @p b that can do memcpy MMO. */
int open_listed(struct mlx5_dma_dev *p, const struct mlx5_glue_backend *b)
{
	struct ibv_device **list;
	int n = 0;

	list = b->glue->get_device_list(&n);
	for (int i = 0; list && i < n; i++) {
		char name[64];

		snprintf(name, sizeof(name), "%s", b->glue->get_device_name(list[i]));
		if (open_device(p, name) == 0 && p->max_wr_memcpy_length) {
			MLX5_DMA_LOG(INFO, "%s: using %s (memcpy MMO up to %" PRIu64 " bytes)",
				     p->name, name, p->max_wr_memcpy_length);
			b->glue->free_device_list(list);
			return 0;
		}
		close_device(p);
	}
	if (list)
		b->glue->free_device_list(list);
	MLX5_DMA_LOG(INFO, "%s: no %s device with memcpy MMO%s%s", p->name, b->name,
		     b->status ? ": " : "", b->status ? b->status() : "");
	return -ENODEV;
}

/*
 * No dev=: backends in their order (hardware first): the first listed device that
 * can do memcpy MMO, else the device a software backend makes on demand. Backend
 * options given restrict the choice to their backend.
 */
int open_auto(struct mlx5_dma_dev *p)
{
	const struct mlx5_glue_backend *all[MLX5_GLUE_MAX_BACKENDS];
	unsigned int n = mlx5_glue_backends(all, MLX5_GLUE_MAX_BACKENDS);

	for (unsigned int i = 0; i < n && i < MLX5_GLUE_MAX_BACKENDS; i++) {
		const struct mlx5_glue_backend *b = all[i];

		if (!options_fit(&p->args, b))
			continue;
		if (!b->fallback_device) {
			if (open_listed(p, b) == 0)
				return 0;
			continue;
		}
		MLX5_DMA_LOG(INFO, "%s: using %s (%s backend)", p->name, b->fallback_device,
			     b->name);
		return prepare_and_open(p, b->fallback_device);
	}
	MLX5_DMA_LOG(ERR, "%s: no device with memcpy MMO in %u backend%s%s", p->name, n,
		     n == 1 ? "" : "s",
		     n == 1 ? " (no software HCA library loaded: -d librte_sim_mlx5.so)" : "");
	return -ENODEV;
}

int probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct rte_dma_dev *dev;
	struct mlx5_dma_dev *p;
	int ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		/* the private data holds process-local objects (contexts, rings, MRs) */
		MLX5_DMA_LOG(ERR, "%s: secondary processes are not supported", name);
		return -ENOTSUP;
	}
	dev = rte_dma_pmd_allocate(name, vdev->device.numa_node, sizeof(*p));
	if (!dev) {
		MLX5_DMA_LOG(ERR, "%s: cannot allocate the dmadev", name);
		return -ENOMEM;
	}
	p = (struct mlx5_dma_dev *)dev->data->dev_private;
	snprintf(p->name, sizeof(p->name), "%s", name);
	if (!mlx5_dma_sdk_check(vdev, dev)) {
		MLX5_DMA_LOG(ERR, "%s: DPDK %s lays out its devices unlike mlx5_dma_sdk.h", name,
			     rte_version());
		ret = -ENOTSUP;
		goto fail;
	}
	ret = mlx5_dma_devargs_parse(rte_vdev_device_args(vdev), &p->args);
	if (ret)
		goto fail;
	if (p->args.path == MLX5_DMA_PATH_DIRECT && getenv("MLX5_QP_SIGNATURE")) {
		/* libmlx5 then asks the device to check a signature byte in every WQE,
		 * which the direct path does not compute */
		MLX5_DMA_LOG(ERR, "%s: MLX5_QP_SIGNATURE is set: use path=verbs", name);
		ret = -ENOTSUP;
		goto fail;
	}
	ret = p->args.dev[0] ? prepare_and_open(p, p->args.dev) : open_auto(p);
	if (ret)
		goto fail; /* logged */
	if (!p->max_wr_memcpy_length) {
		MLX5_DMA_LOG(ERR, "%s: device %s has no memcpy MMO (max_wr_memcpy_length 0)", name,
			     p->glue->get_device_name(p->device));
		ret = -ENOTSUP;
		goto fail;
	}
	ret = clamp_desc(p);
	if (ret)
		goto fail;
	ret = mlx5_dma_progress_setup(p);
	if (ret)
		goto fail;
	p->pd = p->glue->alloc_pd(p->ctx);
	if (!p->pd) {
		ret = mlx5_dma_neg_errno(ENOMEM);
		goto fail;
	}
	ret = mlx5_dma_mr_registry_create(p->glue, p->pd, p->args.sva, name, &p->mrs);
	if (ret) {
		MLX5_DMA_LOG(ERR, "%s: registering DPDK memory%s: %s", name,
			     p->args.sva ? " (SVA)" : "", strerror(-ret));
		goto fail;
	}
	/* the registry of sva=1 is one implicit on-demand MR: copies name its key as it is */
	p->sva = p->args.sva;
	/* a fill (UMR + MMO: 4 WQEBBs) must fit the smallest ring with one WQEBB free */
	p->has_mkey = p->args.min_desc >= 8 && mlx5_dma_probe_mkey(p);
	p->vchans = (struct mlx5_dma_vchan *)rte_zmalloc_socket(
		name, p->args.max_vchans * sizeof(*p->vchans), RTE_CACHE_LINE_SIZE,
		vdev->device.numa_node);
	if (!p->vchans) {
		ret = -ENOMEM;
		goto fail;
	}
	dev->device = &vdev->device;
	dev->dev_ops = &mlx5_dma_dev_ops;
	p->fp = dev->fp_obj;
	dev->fp_obj->dev_private = p->vchans;   /* mlx5_dma_fp_vchan() */
	mlx5_dma_fp_set(dev->fp_obj, p, false); /* refuses ops until rte_dma_start() */
	dev->state = RTE_DMA_DEV_READY;
	mlx5_dma_api_attach(dev->data->dev_id, p);
	/* which copy() mlx5_dma_fp_install() puts in place at start (driver guide,
	 * "Performance"): named once, here */
	MLX5_DMA_LOG(INFO, "%s: ready on %s (%s backend), %s path, copies %s", name,
		     p->glue->get_device_name(p->device), p->glue->name,
		     p->args.path == MLX5_DMA_PATH_DIRECT ? "direct" : "verbs",
		     p->sva ? "through the whole-memory key (sva=1: no lookup per op, "
			      "unmapped addresses fault in the device)"
			    : "through checked keys (MR cache lookup per op)");
	return 0;
fail:
	mlx5_dma_dev_release(p);
	rte_dma_pmd_release(name);
	return ret;
}

/* Started: rte_dma_start() took the vchans out of stop (mlx5_dma_ops.cpp, start()). */
bool dev_started(const struct mlx5_dma_dev *p)
{
	for (uint16_t i = 0; i < p->nb_vchans; i++)
		if (p->vchans[i].configured && !p->vchans[i].stopped)
			return true;
	return false;
}

int remove_dev(struct rte_vdev_device *vdev)
{
	int16_t id = rte_dma_get_dev_id_by_name(rte_vdev_device_name(vdev));
	struct mlx5_dma_dev *p = id >= 0 ? mlx5_dma_api_dev(id) : NULL;

	/* rte_dma_close() refuses a started device; a stopped one is left alone (EAL's
	 * cleanup after the application's own rte_dma_stop(): no "already stopped") */
	if (p && dev_started(p))
		rte_dma_stop(id);
	return rte_dma_pmd_release(rte_vdev_device_name(vdev));
}

struct mlx5_dma_dev *priv_of_vdev(struct rte_vdev_device *vdev)
{
	int16_t id = rte_dma_get_dev_id_by_name(rte_vdev_device_name(vdev));

	if (id < 0)
		return NULL;
	return mlx5_dma_api_dev(id);
}

/* rte_dev_dma_map(): external memory the application wants DMA to reach */
int dma_map(struct rte_vdev_device *vdev, void *addr, uint64_t iova, size_t len)
{
	struct mlx5_dma_dev *p = priv_of_vdev(vdev);

	if (!p || iova != (uintptr_t)addr)
		return -EINVAL; /* IOVA as VA only */
	return mlx5_dma_mr_register(p->mrs, addr, len);
}

int dma_unmap(struct rte_vdev_device *vdev, void *addr, uint64_t iova, size_t len)
{
	struct mlx5_dma_dev *p = priv_of_vdev(vdev);

	(void)iova;
	return p ? mlx5_dma_mr_unregister(p->mrs, addr, len) : -EINVAL;
}

/* Constant-initialised: RTE_PMD_REGISTER_VDEV's constructor may run before any C++
 * dynamic initialiser of this file, and must find the object complete. */
struct rte_vdev_driver mlx5_dma_driver = {
	{}, {}, probe, remove_dev, dma_map, dma_unmap, RTE_VDEV_DRV_NEED_IOVA_AS_VA,
};

} // namespace

void mlx5_dma_dev_release(struct mlx5_dma_dev *p)
{
	mlx5_dma_api_detach(p);
	mlx5_dma_progress_teardown(p);
	mlx5_dma_remote_release(p);
	mlx5_dma_mr_registry_destroy(p->mrs);
	p->mrs = NULL;
	if (p->pd)
		p->glue->dealloc_pd(p->pd);
	p->pd = NULL;
	close_device(p);
	mlx5_dma_enq_deq_release(p);
	rte_free(p->vchans);
	p->vchans = NULL;
}

RTE_PMD_REGISTER_VDEV(dma_mlx5, mlx5_dma_driver);
RTE_PMD_REGISTER_PARAM_STRING(dma_mlx5, "dev=<ibdev|PCI address|simN> "
					"sim_exec=<inline|thread|service> "
					"sim_core=<CPU list> "
					"sim_fabric=<0|1|name> "
					"path=<direct|verbs> "
					"max_vchans=<1-64> "
					"umr_entries=<0-16> "
					"min_desc=<power of 2> "
					"max_desc=<power of 2> "
					"sva=<0|1>");
