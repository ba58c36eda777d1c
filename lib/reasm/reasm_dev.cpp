/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine modules (rte_reasm_driver.h), registered by the dmadev driver they serve,
 * and the dmadev engine's use of the one for its device: tried first, its refusals
 * taken by the plain path. The library names no device and links no driver: a module
 * links the library and registers.
 */
#include <errno.h>

#include "lib_driver_registry.h"
#include "reasm_engine_dma.h"
#include "reasm_log.h"

namespace {

lib_driver_registry<rte_reasm_dev_driver> drivers = LIB_DRIVER_REGISTRY_INIT;

} // namespace

int rte_reasm_dev_driver_register(const struct rte_reasm_dev_driver *drv)
{
	int ret;

	if (!drv || !drv->dma_driver || !drv->kind || !drv->create || !drv->destroy ||
	    !drv->gather || !drv->completed) {
		REASM_LOG(ERR, "engine module %s: a required member is NULL",
			  drv && drv->dma_driver ? drv->dma_driver : "(null)");
		return -EINVAL;
	}
	ret = drivers.add(drv);
	if (ret < 0)
		REASM_LOG(ERR, "engine module for dmadev driver %s: %s", drv->dma_driver,
			  ret == -EEXIST ? "one is registered already" : "too many modules");
	return ret;
}

int rte_reasm_dev_driver_unregister(const struct rte_reasm_dev_driver *drv)
{
	return drv ? drivers.del(drv) : -ENOENT;
}

namespace reasm_dma {

int dma_engine::module_setup(const char *name, bool required)
{
	const struct rte_reasm_dev_driver *drv;
	char driver[64];

	if (lib_dma_driver_name(name, driver, sizeof(driver)) != 0 ||
	    !(drv = drivers.find(driver))) {
		if (required)
			REASM_LOG(ERR,
				  "dmadev %s: UMR mode: no rte_reasm engine module for its "
				  "driver",
				  name);
		else
			REASM_LOG(DEBUG, "dmadev %s: no engine module for its driver", name);
		return -ENOTSUP;
	}
	path = drv->create(dev, vchan, required);
	if (!path)
		return -ENOTSUP; /* logged by the module */
	mod = drv;
	return 0;
}

dma_engine::~dma_engine()
{
	/* rte_reasm_free() waited for the gathers: none of the module's ops is in flight */
	if (path)
		mod->destroy(path);
}

/*
 * The end of a gather the module took (@p rc 0) or refused, its ops so far ending at
 * @p last (-1: none). A gather refused half-way leaves its queued ops behind an orphan
 * marker (their status is no one's) and the plain path decides.
 */
int dma_engine::module_finish(int rc, int last, uint32_t cookie)
{
	if (rc == 0) {
		cookies[last] = cookie;
		return REASM_GATHER_QUEUED;
	}
	if (last >= 0) {
		cookies[last] = cookie_orphan;
		return rc == -ENOSPC ? rc : -ENOTSUP;
	}
	return rc == -ENOSPC || rc == -EBUSY ? rc : -ENOTSUP;
}

int dma_engine::gather_umr_mkey(const struct rte_reasm_dev_gather *g, uint32_t cookie)
{
	int last = -1, rc;

	if (!path)
		return -ENOTSUP;
	rc = mod->gather(path, g, &last);
	return module_finish(rc, last, cookie);
}

int dma_engine::gather_strided(const struct rte_reasm_dev_strided *s, uint32_t cookie)
{
	int last = -1, rc;

	if (!path || !mod->gather_strided)
		return -ENOTSUP;
	rc = mod->gather_strided(path, s, &last);
	return module_finish(rc, last, cookie);
}

} // namespace reasm_dma
