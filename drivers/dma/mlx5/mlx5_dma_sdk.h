/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The driver side of DPDK that dma_mlx5 uses: dmadev's PMD interface, the generic device
 * and driver objects, and the vdev bus's driver interface. Debian's DPDK packages (22.11,
 * 24.11, 25.11) install none of DPDK's driver-SDK headers (rte_dmadev_pmd.h,
 * dev_driver.h, bus_vdev_driver.h: DPDK installs them only when built with
 * -Denable_driver_sdk=true), so the declarations the driver needs are written here, from
 * what those three files hold at the tags v22.11, v24.11 and v25.11 of DPDK's tree. The
 * layouts are the same in the three releases but for the operations table, which grew
 * five (optional, here unset) entries in 25.11.
 *
 * This is also the one place where the driver meets the differences between DPDK
 * releases (bottom of the file); no other file of the driver tests RTE_VERSION.
 * Checked: against DPDK 22.11's own headers by test_pmd_sdk_layout (test/drivers/dma/
 * mlx5), against every release's library at probe (mlx5_dma_sdk_check()), and by each
 * release's dmadev_autotest (devtools/test-dpdk-lts.sh).
 */
#ifndef MLX5_DMA_SDK_H
#define MLX5_DMA_SDK_H

#include <stdint.h>
#include <stdio.h>

#include <rte_bus_vdev.h>
#include <rte_common.h>
#include <rte_compat.h>
#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_dmadev.h>
#include <rte_uuid.h>
#include <rte_version.h>

#if RTE_VERSION < RTE_VERSION_NUM(22, 11, 0, 0) || RTE_VERSION >= RTE_VERSION_NUM(26, 0, 0, 0)
#error "dma_mlx5: the driver interface is declared for DPDK 22.11 to 25.11 (mlx5_dma_sdk.h)"
#endif
/* 25.11 added the inter-process / inter-OS access pair group operations and the
 * enqueue/dequeue ops API (struct rte_dma_op, rte_dma_fp_object.enqueue/dequeue) */
#define MLX5_DMA_SDK_HAS_ACCESS_GROUPS (RTE_VERSION >= RTE_VERSION_NUM(25, 11, 0, 0))
#define MLX5_DMA_SDK_HAS_ENQ_DEQ (RTE_VERSION >= RTE_VERSION_NUM(25, 11, 0, 0))

#ifdef __cplusplus
extern "C" {
#endif

/* ---- EAL: a driver and a device, as every bus embeds them (dev_driver.h) ---- */
struct rte_driver {
	RTE_TAILQ_ENTRY(rte_driver) next;
	const char *name;
	const char *alias;
};

struct rte_device {
	RTE_TAILQ_ENTRY(rte_device) next;
	const char *name;
	const char *bus_info;
	const struct rte_driver *driver; /* set by the bus once a driver probed it */
	const struct rte_bus *bus;
	int numa_node;
	struct rte_devargs *devargs; /* of the last probe */
};

/* ---- the vdev bus, driver side (bus_vdev_driver.h) ---- */
struct rte_vdev_device {
	RTE_TAILQ_ENTRY(rte_vdev_device) next;
	struct rte_device device;
};

typedef int(rte_vdev_probe_t)(struct rte_vdev_device *dev);
typedef int(rte_vdev_remove_t)(struct rte_vdev_device *dev);
typedef int(rte_vdev_dma_map_t)(struct rte_vdev_device *dev, void *addr, uint64_t iova, size_t len);
typedef int(rte_vdev_dma_unmap_t)(struct rte_vdev_device *dev, void *addr, uint64_t iova,
				  size_t len);

struct rte_vdev_driver {
	RTE_TAILQ_ENTRY(rte_vdev_driver) next;
	struct rte_driver driver;
	rte_vdev_probe_t *probe;
	rte_vdev_remove_t *remove;
	rte_vdev_dma_map_t *dma_map;
	rte_vdev_dma_unmap_t *dma_unmap;
	uint32_t drv_flags; /* RTE_VDEV_DRV_* */
};

/* the driver works with IOVA as VA only (EAL then picks that mode) */
#define RTE_VDEV_DRV_NEED_IOVA_AS_VA 0x0001

__rte_internal void rte_vdev_register(struct rte_vdev_driver *driver);
__rte_internal void rte_vdev_unregister(struct rte_vdev_driver *driver);

static inline const char *rte_vdev_device_name(const struct rte_vdev_device *dev)
{
	return dev ? dev->device.name : NULL;
}

static inline const char *rte_vdev_device_args(const struct rte_vdev_device *dev)
{
	return dev && dev->device.devargs ? dev->device.devargs->args : "";
}

/*
 * Registers @p drv under the name @p nm from a constructor, before EAL scans the vdev bus.
 * (DPDK's macro also emits the name for its pmdinfo tooling, which an out-of-tree build
 * does not run.)
 */
#define RTE_PMD_REGISTER_VDEV(nm, drv)           \
	RTE_INIT(mlx5_dma_vdev_register_##nm)    \
	{                                        \
		(drv).driver.name = RTE_STR(nm); \
		(drv).driver.alias = NULL;       \
		rte_vdev_register(&(drv));       \
	}
#ifndef RTE_PMD_REGISTER_PARAM_STRING /* rte_dev.h up to 25.07, dev_driver.h since */
#define RTE_PMD_REGISTER_PARAM_STRING(nm, str) \
	__attribute__((used)) const char mlx5_dma_param_string_##nm[] = str
#endif

/* ---- dmadev, driver side (rte_dmadev_pmd.h) ---- */
struct rte_dma_dev;

typedef int (*rte_dma_info_get_t)(const struct rte_dma_dev *dev, struct rte_dma_info *dev_info,
				  uint32_t info_sz);
typedef int (*rte_dma_configure_t)(struct rte_dma_dev *dev, const struct rte_dma_conf *dev_conf,
				   uint32_t conf_sz);
typedef int (*rte_dma_start_t)(struct rte_dma_dev *dev);
typedef int (*rte_dma_stop_t)(struct rte_dma_dev *dev);
typedef int (*rte_dma_close_t)(struct rte_dma_dev *dev);
typedef int (*rte_dma_vchan_setup_t)(struct rte_dma_dev *dev, uint16_t vchan,
				     const struct rte_dma_vchan_conf *conf, uint32_t conf_sz);
typedef int (*rte_dma_stats_get_t)(const struct rte_dma_dev *dev, uint16_t vchan,
				   struct rte_dma_stats *stats, uint32_t stats_sz);
typedef int (*rte_dma_stats_reset_t)(struct rte_dma_dev *dev, uint16_t vchan);
typedef int (*rte_dma_vchan_status_t)(const struct rte_dma_dev *dev, uint16_t vchan,
				      enum rte_dma_vchan_status *status);
typedef int (*rte_dma_dump_t)(const struct rte_dma_dev *dev, FILE *f);

/* The library checks the arguments before calling an operation (see the driver guide). */
struct rte_dma_dev_ops {
	rte_dma_info_get_t dev_info_get;
	rte_dma_configure_t dev_configure;
	rte_dma_start_t dev_start;
	rte_dma_stop_t dev_stop;
	rte_dma_close_t dev_close;
	rte_dma_vchan_setup_t vchan_setup;
	rte_dma_stats_get_t stats_get;
	rte_dma_stats_reset_t stats_reset;
	rte_dma_vchan_status_t vchan_status;
	rte_dma_dump_t dev_dump;
#if MLX5_DMA_SDK_HAS_ACCESS_GROUPS
	/* access pair groups (rte_dma_access_pair_group_*()); NULL: -ENOTSUP */
	int (*access_pair_group_create)(const struct rte_dma_dev *dev, rte_uuid_t domain_id,
					rte_uuid_t token, int16_t *group_id,
					rte_dma_access_pair_group_event_cb_t cb);
	int (*access_pair_group_destroy)(const struct rte_dma_dev *dev, int16_t group_id);
	int (*access_pair_group_join)(const struct rte_dma_dev *dev, rte_uuid_t domain_id,
				      rte_uuid_t token, int16_t group_id,
				      rte_dma_access_pair_group_event_cb_t cb);
	int (*access_pair_group_leave)(const struct rte_dma_dev *dev, int16_t group_id);
	int (*access_pair_group_handler_get)(const struct rte_dma_dev *dev, int16_t group_id,
					     rte_uuid_t domain_id, uint16_t *handler);
#endif
};

/* In the memzone shared by all processes; the library writes all of it but dev_private's
 * contents. */
struct __rte_cache_aligned rte_dma_dev_data {
	char dev_name[RTE_DEV_NAME_MAX_LEN];
	int16_t dev_id;
	int16_t numa_node;
	void *dev_private;            /* rte_dma_pmd_allocate()'s private_data_size bytes, zeroed */
	struct rte_dma_conf dev_conf; /* stored by the library after a successful configure */
	__extension__ uint8_t dev_started : 1;
	uint64_t reserved[2];
};

enum rte_dma_dev_state {
	RTE_DMA_DEV_UNUSED = 0,
	RTE_DMA_DEV_REGISTERED, /* allocated, not yet usable */
	RTE_DMA_DEV_READY,      /* set by the driver at the end of its probe */
};

/* Process-local. */
struct __rte_cache_aligned rte_dma_dev {
	struct rte_device *device; /* must be set: the library reads its numa_node */
	struct rte_dma_dev_data *data;
	struct rte_dma_fp_object *fp_obj; /* &rte_dma_fp_objs[dev_id] */
	const struct rte_dma_dev_ops *dev_ops;
	enum rte_dma_dev_state state;
	uint64_t reserved[2];
};

__rte_internal struct rte_dma_dev *rte_dma_pmd_allocate(const char *name, int numa_node,
							size_t private_data_size);
__rte_internal int rte_dma_pmd_release(const char *name);

#ifdef __cplusplus
}
#endif

/* What the layouts above come to on every 64-bit target DPDK supports. */
#if UINTPTR_MAX == UINT64_MAX
static_assert(offsetof(struct rte_device, numa_node) == 48, "rte_device layout");
static_assert(offsetof(struct rte_vdev_device, device) == 16, "rte_vdev_device layout");
static_assert(offsetof(struct rte_vdev_driver, probe) == 48, "rte_vdev_driver layout");
static_assert(offsetof(struct rte_dma_dev_data, dev_conf) == 80, "rte_dma_dev_data layout");
static_assert(offsetof(struct rte_dma_dev, state) == 32, "rte_dma_dev layout");
static_assert(sizeof(struct rte_dma_dev_ops) ==
		      (MLX5_DMA_SDK_HAS_ACCESS_GROUPS ? 15 : 10) * sizeof(void *),
	      "rte_dma_dev_ops layout");
#endif

/*
 * Whether the library sees the device and the dmadev where these declarations put them:
 * its own accessors (rte_dev_*(), rte_dma_fp_objs, rte_dma_get_dev_id_by_name()) against
 * the fields read here. Called once a probe has allocated @p dev; false: refuse the probe.
 */
static inline bool mlx5_dma_sdk_check(const struct rte_vdev_device *vdev,
				      const struct rte_dma_dev *dev)
{
	const struct rte_device *d = &vdev->device;

	return rte_dev_name(d) == d->name && rte_dev_numa_node(d) == d->numa_node &&
	       rte_dev_devargs(d) == d->devargs && rte_dev_bus_info(d) == d->bus_info &&
	       rte_dma_get_dev_id_by_name(dev->data->dev_name) == dev->data->dev_id &&
	       dev->fp_obj == &rte_dma_fp_objs[dev->data->dev_id];
}

/* ---- what differs between the releases, for the driver ---- */

/* The ABI node the driver's version.map names is the DPDK ABI major (meson: dpdk_abi). */

/*
 * Silent mode (no completions reported) is never advertised: since 24.03 the stock
 * dmadev_autotest expects configure to refuse it, and the driver's error recovery needs
 * the completions. Where the request lives changed in 25.11.
 */
static inline bool mlx5_dma_conf_silent(const struct rte_dma_conf *conf)
{
#if RTE_VERSION >= RTE_VERSION_NUM(25, 11, 0, 0)
	return conf->flags & RTE_DMA_CFG_FLAG_SILENT;
#else
	return conf->enable_silent;
#endif
}

/* Whether the application configured the enqueue/dequeue ops API (25.11). */
static inline bool mlx5_dma_conf_enq_deq(const struct rte_dma_conf *conf)
{
#if MLX5_DMA_SDK_HAS_ENQ_DEQ
	return conf->flags & RTE_DMA_CFG_FLAG_ENQ_DEQ;
#else
	(void)conf;
	return false;
#endif
}

/*
 * The inter-process domain of 25.11 (rte_dmadev.h): the capability bit, a vchan's
 * domain (rte_dma_vchan_conf.domain) and the event callback of access pair groups, as
 * the driver sees them on every release; before 25.11 the bit is 0, every vchan's
 * domain is NONE and the callback type is the driver's own (never called).
 */
enum mlx5_dma_domain_type { /* rte_dma_inter_domain_type's values */
	MLX5_DMA_DOMAIN_NONE = 0,
	MLX5_DMA_DOMAIN_PROCESS = 1,
	MLX5_DMA_DOMAIN_OS = 2,
};

/** rte_dma_vchan_conf.domain, or NONE. */
struct mlx5_dma_vchan_domain {
	int type; /**< as the application set it: any value */
	uint16_t src_handler;
	uint16_t dst_handler;
};

#if MLX5_DMA_SDK_HAS_ACCESS_GROUPS
#define MLX5_DMA_CAPA_INTER_PROCESS RTE_DMA_CAPA_INTER_PROCESS_DOMAIN
typedef rte_dma_access_pair_group_event_cb_t mlx5_dma_group_cb_t;
#define MLX5_DMA_GROUP_EVENT_MEMBER_LEFT RTE_DMA_GROUP_EVENT_MEMBER_LEFT
#define MLX5_DMA_GROUP_EVENT_GROUP_DESTROYED RTE_DMA_GROUP_EVENT_GROUP_DESTROYED
static_assert(RTE_DMA_INTER_PROCESS_DOMAIN == (int)MLX5_DMA_DOMAIN_PROCESS &&
		      RTE_DMA_INTER_OS_DOMAIN == (int)MLX5_DMA_DOMAIN_OS,
	      "rte_dma_inter_domain_type values");

static inline struct mlx5_dma_vchan_domain
mlx5_dma_conf_domain(const struct rte_dma_vchan_conf *conf)
{
	return {(int)conf->domain.type, conf->domain.src_handler, conf->domain.dst_handler};
}

/* the operations' entries, after dev_dump in the table (mlx5_dma_ops.cpp) */
#define MLX5_DMA_SDK_GROUP_OPS(create, destroy, join, leave, handler_get) \
	, create, destroy, join, leave, handler_get
#else
#define MLX5_DMA_CAPA_INTER_PROCESS 0
enum mlx5_dma_group_event {
	MLX5_DMA_GROUP_EVENT_MEMBER_LEFT,
	MLX5_DMA_GROUP_EVENT_GROUP_DESTROYED,
};
typedef void (*mlx5_dma_group_cb_t)(int16_t dev_id, int16_t group_id, rte_uuid_t domain_id,
				    enum mlx5_dma_group_event event);

static inline struct mlx5_dma_vchan_domain
mlx5_dma_conf_domain(const struct rte_dma_vchan_conf *conf)
{
	(void)conf;
	return {MLX5_DMA_DOMAIN_NONE, 0, 0};
}

#define MLX5_DMA_SDK_GROUP_OPS(create, destroy, join, leave, handler_get)
#endif

/* the driver's access pair group operations (mlx5_dma_domain.cpp) */
int mlx5_dma_group_create(const struct rte_dma_dev *dev, rte_uuid_t domain_id, rte_uuid_t token,
			  int16_t *group_id, mlx5_dma_group_cb_t cb);
int mlx5_dma_group_destroy(const struct rte_dma_dev *dev, int16_t group_id);
int mlx5_dma_group_join(const struct rte_dma_dev *dev, rte_uuid_t domain_id, rte_uuid_t token,
			int16_t group_id, mlx5_dma_group_cb_t cb);
int mlx5_dma_group_leave(const struct rte_dma_dev *dev, int16_t group_id);
int mlx5_dma_group_handler_get(const struct rte_dma_dev *dev, int16_t group_id,
			       rte_uuid_t domain_id, uint16_t *handler);

#endif /* MLX5_DMA_SDK_H */
