/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine modules (rte_blkint_driver.h): registered by the dmadev driver they serve,
 * and the context's view of the engine a module makes (struct blkint_dev). The library
 * names no device and links no driver: a module links the library and registers.
 */
#include <errno.h>

#include <new>

#include <rte_dmadev.h>
#include <rte_errno.h>

#include "blkint_log.h"
#include "blkint_priv.h"
#include "lib_driver_registry.h"

namespace {

lib_driver_registry<rte_blkint_dev_driver> drivers = LIB_DRIVER_REGISTRY_INIT;

/** A module's engine behind the context's interface. */
struct module_dev final : blkint_dev {
	const struct rte_blkint_dev_driver *drv;
	void *engine;

	module_dev(const struct rte_blkint_dev_driver *d, void *e) : drv(d), engine(e) {}
	~module_dev() override { drv->ops->destroy(engine); }
	const char *kind() const override { return drv->kind; }
	int submit(const struct rte_blkint_dev_job *job, uint32_t slot) override
	{
		return drv->ops->submit(engine, job, slot);
	}
	void doorbell() override { drv->ops->doorbell(engine); }
	uint16_t poll(struct rte_blkint_dev_done *done, uint16_t n) override
	{
		return drv->ops->poll(engine, done, n);
	}
	const char *lost() const override { return drv->ops->lost ? drv->ops->lost(engine) : NULL; }
};

} // namespace

int rte_blkint_dev_driver_register(const struct rte_blkint_dev_driver *drv)
{
	int ret;

	if (!drv || !drv->dma_driver || !drv->kind || !drv->create || !drv->ops ||
	    !drv->ops->submit || !drv->ops->doorbell || !drv->ops->poll || !drv->ops->destroy) {
		BLKINT_LOG(ERR, "engine module %s: a required member is NULL",
			   drv && drv->dma_driver ? drv->dma_driver : "(null)");
		return -EINVAL;
	}
	ret = drivers.add(drv);
	if (ret < 0)
		BLKINT_LOG(ERR, "engine module for dmadev driver %s: %s", drv->dma_driver,
			   ret == -EEXIST ? "one is registered already" : "too many modules");
	return ret;
}

int rte_blkint_dev_driver_unregister(const struct rte_blkint_dev_driver *drv)
{
	return drv ? drivers.del(drv) : -ENOENT;
}

struct blkint_dev *blkint_dev_create(int16_t dev_id, uint16_t vchan, uint32_t depth)
{
	const struct rte_blkint_dev_driver *drv;
	struct rte_dma_info info;
	char driver[64];
	module_dev *d;
	void *engine;

	if (!rte_dma_is_valid(dev_id) || rte_dma_info_get(dev_id, &info) < 0 ||
	    vchan >= info.nb_vchans) {
		BLKINT_LOG(ERR, "dmadev %d vchan %u: no such configured device/vchan", dev_id,
			   vchan);
		rte_errno = EINVAL;
		return NULL;
	}
	if (lib_dma_driver_name(info.dev_name, driver, sizeof(driver)) != 0 ||
	    !(drv = drivers.find(driver))) {
		BLKINT_LOG(INFO,
			   "dmadev %d (%s): no rte_blkint engine module for its driver; ops run on "
			   "the CPU",
			   dev_id, info.dev_name);
		rte_errno = ENOTSUP;
		return NULL;
	}
	engine = drv->create(dev_id, vchan, depth);
	if (!engine)
		return NULL; /* rte_errno from the module; ENOTSUP: the CPU */
	d = new (std::nothrow) module_dev(drv, engine);
	if (!d) {
		drv->ops->destroy(engine);
		rte_errno = ENOMEM;
		return NULL;
	}
	return d;
}
