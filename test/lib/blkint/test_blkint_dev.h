/* SPDX-License-Identifier: BSD-3-Clause */
/* The dma_mlx5 engine's suite (software HCA builds): device and CPU give the same bytes. */
#ifndef TEST_BLKINT_DEV_H
#define TEST_BLKINT_DEV_H

#include "cunit_run.h"

/** Tests on the dmadev named "dma_mlx5" (probed with sig=1 on instance sim1). */
extern const struct cunit_suite blkint_dev_suite;

/**
 * A device of Debian's libmlx5 (argv[1], under devtools/sim-rdma) the suite runs on
 * instead of the software HCA's imitation instances, or NULL.
 */
extern const char *blkint_test_kernel_dev;

#endif /* TEST_BLKINT_DEV_H */
