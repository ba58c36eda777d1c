/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The engine drivers an offload library knows, by the dmadev driver they serve: filled
 * by the engine modules' constructors (rte_blkint_dev_driver_register(),
 * rte_reasm_dev_driver_register()), read when a context or an engine is created.
 * Header-only and internal: never installed.
 *
 * Constant-initialised storage only (no constructor of its own): a module's
 * constructor may run before any of the library's, in a static executable.
 */
#ifndef LIB_DRIVER_REGISTRY_H
#define LIB_DRIVER_REGISTRY_H

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_dmadev.h>

/** Most engine drivers one library holds at a time. */
#define LIB_DRIVER_REGISTRY_MAX 16

/**
 * Drivers of type @p Drv (a struct with a `const char *dma_driver` member), unique by
 * that name. Slow path only: every call takes the lock.
 */
template <typename Drv>
struct lib_driver_registry {
	pthread_mutex_t lock;
	const Drv *drv[LIB_DRIVER_REGISTRY_MAX];

	/** Add @p d; -EEXIST if its dmadev driver has one, -ENOSPC when full. */
	int add(const Drv *d)
	{
		int ret = -ENOSPC;

		pthread_mutex_lock(&lock);
		for (const Drv *o : drv)
			if (o && strcmp(o->dma_driver, d->dma_driver) == 0) {
				pthread_mutex_unlock(&lock);
				return -EEXIST;
			}
		for (const Drv *&o : drv)
			if (!o) {
				o = d;
				ret = 0;
				break;
			}
		pthread_mutex_unlock(&lock);
		return ret;
	}

	/** Remove @p d; -ENOENT if it is not there. */
	int del(const Drv *d)
	{
		int ret = -ENOENT;

		pthread_mutex_lock(&lock);
		for (const Drv *&o : drv)
			if (o == d) {
				o = NULL;
				ret = 0;
			}
		pthread_mutex_unlock(&lock);
		return ret;
	}

	/**
	 * The driver for dmadev driver @p name, or NULL. A module stays loaded once
	 * registered (EAL never unloads plugins), so the pointer outlives the lock.
	 */
	const Drv *find(const char *name)
	{
		const Drv *found = NULL;

		pthread_mutex_lock(&lock);
		for (const Drv *o : drv)
			if (o && strcmp(o->dma_driver, name) == 0)
				found = o;
		pthread_mutex_unlock(&lock);
		return found;
	}
};

/** A registry, constant-initialised. */
#define LIB_DRIVER_REGISTRY_INIT           \
	{                                  \
		PTHREAD_MUTEX_INITIALIZER, \
		{                          \
		}                          \
	}

static inline int lib_any_bus(const struct rte_bus *bus, const void *data)
{
	(void)bus;
	(void)data;
	return 0;
}

/**
 * Name of the driver of the device a dmadev was made for (the rte_device of the same
 * name, looked up on every bus), into @p out: 0, or -ENODEV when no device has the
 * dmadev's name or it has no driver. rte_dma_info carries no driver, hence the walk.
 */
static inline int lib_dma_driver_name(const char *dev_name, char *out, size_t len)
{
	struct rte_bus *bus = NULL;

	while ((bus = rte_bus_find(bus, lib_any_bus, NULL)) != NULL) {
		struct rte_dev_iterator it;
		struct rte_device *dev;
		char filter[64];

		snprintf(filter, sizeof(filter), "bus=%s", rte_bus_name(bus));
		RTE_DEV_FOREACH (dev, filter, &it) {
			const struct rte_driver *drv;

			if (strcmp(rte_dev_name(dev), dev_name) != 0)
				continue;
			drv = rte_dev_driver(dev);
			if (!drv)
				return -ENODEV;
			snprintf(out, len, "%s", rte_driver_name(drv));
			return 0;
		}
	}
	return -ENODEV;
}

#endif /* LIB_DRIVER_REGISTRY_H */
