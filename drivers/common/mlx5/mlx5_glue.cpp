/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Device lookup across the two backends of the seam.
 *
 * "sim" and "simN" name software HCAs ("sim" is "sim0"); every other name goes
 * to rdma-core, as an ibdev name ("mlx5_0") or a PCI address ("0000:08:00.0",
 * "08:00.0") resolved through sysfs. An ibv_device belongs to the device list
 * it came from, so the list is held until mlx5_glue_put_device().
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mlx5_glue.h"
#include "mlx5_glue_internal.h"

namespace {

/* One device handed out by mlx5_glue_find_device(), with the list that owns it. */
struct held_device {
	const struct mlx5_glue *glue;
	struct ibv_device *device;
	struct ibv_device **list;
	struct held_device *next;
};

pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;
held_device *held_head;

/* "sim" or "sim" followed by decimal digits only. */
bool
is_sim_name(const char *name)
{
	const char *p;

	if (strncmp(name, "sim", 3) != 0)
		return false;
	for (p = name + 3; *p != '\0'; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/* What a device must satisfy: a name, or (if pci != NULL) a PCI function. */
struct device_match {
	const char *name;
	const struct mlx5_glue_pci_addr *pci;
	const char *sysfs_root;
};

bool
device_matches(const struct mlx5_glue *glue, struct ibv_device *dev,
	       const device_match *m)
{
	const char *dev_name = glue->get_device_name(dev);
	struct mlx5_glue_pci_addr addr;

	if (dev_name == NULL)
		return false;
	if (m->pci == NULL)
		return strcmp(dev_name, m->name) == 0;
	return mlx5_glue_ibdev_pci(m->sysfs_root, dev_name, &addr) == 0 &&
	       mlx5_glue_pci_equal(&addr, m->pci);
}

/* Remember (glue, device, list) for put_device. Takes ownership of list. */
int
hold(const struct mlx5_glue *glue, struct ibv_device *device, struct ibv_device **list)
{
	held_device *h = static_cast<held_device *>(malloc(sizeof(*h)));

	if (h == NULL) {
		glue->free_device_list(list);
		return -ENOMEM;
	}
	h->glue = glue;
	h->device = device;
	h->list = list;
	pthread_mutex_lock(&held_lock);
	h->next = held_head;
	held_head = h;
	pthread_mutex_unlock(&held_lock);
	return 0;
}

} // namespace

int
mlx5_glue_find_in(const struct mlx5_glue *glue, const char *name, struct ibv_device **device)
{
	struct mlx5_glue_pci_addr pci;
	device_match m = {};
	struct ibv_device **list;
	int num = 0; /* unused: the list is NULL-terminated */
	int i, ret;

	if (glue == NULL || name == NULL || name[0] == '\0' || device == NULL)
		return -EINVAL;
	m.name = name;
	if (mlx5_glue_pci_parse(name, &pci) == 0) {
		m.pci = &pci;
		m.sysfs_root = mlx5_glue_sysfs_root();
	}
	list = glue->get_device_list(&num);
	if (list == NULL)
		return -ENODEV;
	for (i = 0; list[i] != NULL; i++) {
		if (!device_matches(glue, list[i], &m))
			continue;
		ret = hold(glue, list[i], list);
		if (ret == 0)
			*device = list[i];
		return ret;
	}
	glue->free_device_list(list);
	return -ENODEV;
}

int
mlx5_glue_find_device(const char *name, const struct mlx5_glue **glue, struct ibv_device **device)
{
	const struct mlx5_glue *g;
	int ret;

	if (name == NULL || name[0] == '\0' || glue == NULL || device == NULL)
		return -EINVAL;
	if (is_sim_name(name)) {
		g = mlx5_glue_sim();
		if (strcmp(name, "sim") == 0)
			name = "sim0";
	} else {
		g = mlx5_glue_rdma_core();
	}
	ret = mlx5_glue_find_in(g, name, device);
	if (ret == 0)
		*glue = g;
	return ret;
}

void
mlx5_glue_put_device(const struct mlx5_glue *glue, struct ibv_device *device)
{
	held_device **pp, *h = NULL;

	if (glue == NULL || device == NULL)
		return;
	pthread_mutex_lock(&held_lock);
	for (pp = &held_head; *pp != NULL; pp = &(*pp)->next) {
		if ((*pp)->glue == glue && (*pp)->device == device) {
			h = *pp;
			*pp = h->next;
			break;
		}
	}
	pthread_mutex_unlock(&held_lock);
	if (h == NULL)
		return; /* not ours: nothing to release */
	glue->free_device_list(h->list);
	free(h);
}
