/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * test_pmd_dma_mlx5: dma_mlx5's own suite, for what dmadev_autotest does not cover.
 * One EAL (IOVA as VA, no hugepages), the PMD linked in statically, software HCA
 * instances in inline and thread mode; every data-path test runs for both posting
 * paths on both.
 */
#include <stdio.h>

#include <rte_eal.h>

#include "test_dma_mlx5.h"

namespace {

int add_sims(void)
{
	static const char *const names[] = {T_SIM_INLINE, T_SIM_THREAD, T_SIM_SMALL_INLINE,
					    T_SIM_SMALL_THREAD};

	for (const char *n : names) {
		struct mlx5_sim_device_attr attr;
		int ret;

		t_sim_attr(n, &attr);
		ret = mlx5_sim_device_add(n, &attr);
		if (ret) {
			fprintf(stderr, "cannot add software HCA %s: %d\n", n, ret);
			return ret;
		}
	}
	return 0;
}

} // namespace

int main(void)
{
	char *eal_argv[] = {
		(char *)"test_pmd_dma_mlx5", (char *)"--no-huge",   (char *)"-m", (char *)"512",
		(char *)"--no-pci",          (char *)"--no-shconf", NULL};
	const struct cunit_suite suites[] = {
		t_suite_probe,  t_suite_ring,   t_suite_errors, t_suite_raw,  t_suite_wqe_bytes,
		t_suite_status, t_suite_quirks, t_suite_sva,    t_suite_tiny, t_suite_sg,
		t_suite_fill,   t_suite_mkey,   t_suite_stop,
	};
	int ret;

	if (rte_eal_init(6, eal_argv) < 0) {
		fprintf(stderr, "rte_eal_init failed\n");
		return 1;
	}
	if (rte_eal_iova_mode() != RTE_IOVA_VA) {
		fprintf(stderr, "IOVA as VA expected\n");
		return 1;
	}
	if (add_sims())
		return 1;
	ret = CUNIT_RUN_SUITES(suites);
	rte_eal_cleanup();
	return ret;
}
