/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Pure helpers of the seam, separate from the backends so the tests can reach
 * them without a device: the data-in-order flag emulation, PCI address parsing
 * and the sysfs lookup from an ibdev name to its PCI function.
 */
#ifndef MLX5_GLUE_INTERNAL_H
#define MLX5_GLUE_INTERNAL_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Environment variable replacing "/sys" in the PCI lookup (tests use a fake tree). */
#define MLX5_GLUE_ENV_SYSFS_ROOT "MLX5_GLUE_SYSFS_ROOT"

/**
 * Map what v44's ibv_query_qp_data_in_order(qp, op, 0) said (@p v44_in_order:
 * non-zero when the QP delivers whole messages in order) to the answer of the
 * rdma-core >= 46 API for @p flags:
 *  - 0: the v44 answer as 0/1;
 *  - MLX5_GLUE_QP_DATA_IN_ORDER_RETURN_CAPS: the caps vector, WHOLE_MSG together
 *    with ALIGNED_128_BYTES when in order (libibverbs implies the second from
 *    the first), else 0;
 *  - any other bit set: 0, as newer libibverbs answers unknown flags.
 */
int mlx5_glue_data_in_order_map(int v44_in_order, uint32_t flags);

/** A PCI function address. */
struct mlx5_glue_pci_addr {
	uint32_t domain;
	uint8_t bus;
	uint8_t devid;    /**< 0..0x1f */
	uint8_t function; /**< 0..7 */
};

/**
 * Parse "DDDD:BB:DD.F" or "BB:DD.F" (hex, any case; the domain defaults to 0).
 * @return 0, or -EINVAL if @p str is anything else (nothing written then).
 */
int mlx5_glue_pci_parse(const char *str, struct mlx5_glue_pci_addr *addr);

/** The sysfs root the PCI lookup uses: $MLX5_GLUE_SYSFS_ROOT or "/sys". */
const char *mlx5_glue_sysfs_root(void);

/**
 * Read the PCI function behind ibdev @p ibdev: the basename of the link
 * @p sysfs_root/class/infiniband/@p ibdev/device.
 * @return 0, -EINVAL for a bad name, -errno of readlink(), or -ENODEV when the
 *         link does not end in a PCI address (a virtual device such as rxe).
 */
int mlx5_glue_ibdev_pci(const char *sysfs_root, const char *ibdev, struct mlx5_glue_pci_addr *addr);

/** 1 when @p a and @p b name the same PCI function, else 0. */
int mlx5_glue_pci_equal(const struct mlx5_glue_pci_addr *a, const struct mlx5_glue_pci_addr *b);

struct mlx5_glue;
struct mlx5_glue_backend;
struct ibv_device;

/**
 * The directory of the binary holding the seam ("" when unknown) into @p dir;
 * @p shared (optional) tells whether that binary is a shared object (the plugin
 * build) rather than the program it is linked into.
 */
void mlx5_glue_seam_dir(char *dir, size_t len, bool *shared);

/** The hardware backend, registered by the seam itself before any other. */
const struct mlx5_glue_backend *mlx5_glue_rdma_core_backend(void);

/**
 * The table the rdma-core backend forwards to when no glue library loaded:
 * an empty device list, every other entry failing with ENOSYS.
 */
const struct mlx5_glue *mlx5_glue_rdma_core_nolib(void);

/**
 * mlx5_glue_find_device() within one backend: the device of @p glue named
 * @p name, or, when @p name parses as a PCI address, the one whose sysfs link
 * (under mlx5_glue_sysfs_root()) points at that function. The device list is
 * held until mlx5_glue_put_device(glue, *device).
 * @return 0, -EINVAL, -ENODEV when nothing matches, -ENOMEM.
 */
int mlx5_glue_find_in(const struct mlx5_glue *glue, const char *name, struct ibv_device **device);

#ifdef __cplusplus
}

#include <errno.h>

/** rdma-core's error convention for an int call: errno set, the value returned. */
static inline int mlx5_glue_fail(int err)
{
	errno = err;
	return err;
}

/** rdma-core's error convention for a pointer call: errno set, NULL returned. */
template <typename T>
static inline T *mlx5_glue_fail_null(int err)
{
	errno = err;
	return nullptr;
}
#endif

#endif /* MLX5_GLUE_INTERNAL_H */
