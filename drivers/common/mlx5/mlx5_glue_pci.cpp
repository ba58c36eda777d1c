/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PCI addresses of rdma-core devices: parsing and the sysfs link from an ibdev
 * name ("mlx5_0") to its PCI function ("0000:08:00.0").
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mlx5_glue_internal.h"

/* Parse 1..max_digits hex digits at *p; advance *p past them. */
static int parse_hex(const char **p, unsigned int max_digits, uint32_t *val)
{
	uint32_t v = 0;
	unsigned int n = 0;
	const char *s = *p;

	for (; n < max_digits; n++, s++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		v = v << 4 | (uint32_t)d;
	}
	if (n == 0)
		return -EINVAL;
	*p = s;
	*val = v;
	return 0;
}

/* "BB:DD.F" at s, the whole rest of the string. */
static int parse_bdf(const char *s, struct mlx5_glue_pci_addr *addr)
{
	uint32_t bus, dev, fn;

	if (parse_hex(&s, 2, &bus) || *s++ != ':' || parse_hex(&s, 2, &dev) || *s++ != '.' ||
	    parse_hex(&s, 1, &fn) || *s != '\0')
		return -EINVAL;
	if (dev > 0x1f || fn > 7)
		return -EINVAL;
	addr->bus = (uint8_t)bus;
	addr->devid = (uint8_t)dev;
	addr->function = (uint8_t)fn;
	return 0;
}

int mlx5_glue_pci_parse(const char *str, struct mlx5_glue_pci_addr *addr)
{
	struct mlx5_glue_pci_addr a = {};
	const char *colon1, *colon2;

	if (str == NULL || addr == NULL)
		return -EINVAL;
	colon1 = strchr(str, ':');
	if (colon1 == NULL)
		return -EINVAL;
	colon2 = strchr(colon1 + 1, ':');
	if (colon2 != NULL) {
		/* with a domain: up to 8 hex digits (PCI segment numbers are 16..32 bit) */
		const char *s = str;
		uint32_t dom;

		if (parse_hex(&s, 8, &dom) || s != colon1)
			return -EINVAL;
		a.domain = dom;
		str = colon1 + 1;
	}
	if (parse_bdf(str, &a))
		return -EINVAL;
	*addr = a;
	return 0;
}

int mlx5_glue_pci_equal(const struct mlx5_glue_pci_addr *a, const struct mlx5_glue_pci_addr *b)
{
	return a->domain == b->domain && a->bus == b->bus && a->devid == b->devid &&
	       a->function == b->function;
}

const char *mlx5_glue_sysfs_root(void)
{
	const char *root = getenv(MLX5_GLUE_ENV_SYSFS_ROOT);

	return root != NULL && root[0] != '\0' ? root : "/sys";
}

/* An ibdev name is one path component: refuse anything that could walk elsewhere. */
static int ibdev_name_ok(const char *name)
{
	return name != NULL && name[0] != '\0' && strchr(name, '/') == NULL &&
	       strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

int mlx5_glue_ibdev_pci(const char *sysfs_root, const char *ibdev, struct mlx5_glue_pci_addr *addr)
{
	char path[PATH_MAX];
	char target[PATH_MAX];
	const char *base;
	ssize_t len;
	int n;

	if (sysfs_root == NULL || addr == NULL || !ibdev_name_ok(ibdev))
		return -EINVAL;
	n = snprintf(path, sizeof(path), "%s/class/infiniband/%s/device", sysfs_root, ibdev);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	len = readlink(path, target, sizeof(target) - 1);
	if (len < 0)
		return -errno;
	target[len] = '\0';
	base = strrchr(target, '/');
	base = base != NULL ? base + 1 : target;
	/* e.g. a software device whose parent is a net device, not a PCI function */
	if (mlx5_glue_pci_parse(base, addr) != 0)
		return -ENODEV;
	return 0;
}
