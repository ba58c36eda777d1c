/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * test_dma_mlx5: dma_mlx5's own suite, for what dmadev_autotest does not cover.
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
	char *eal_argv[] = {(char *)"test_dma_mlx5", (char *)"--no-huge", (char *)"-m",
			    (char *)"512", (char *)"--no-pci", (char *)"--no-shconf", NULL};
	unsigned failures;
	CU_pSuite suite;

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
	if (CU_initialize_registry() != CUE_SUCCESS)
		return CU_get_error();
	suite = CU_add_suite("dma_mlx5", nullptr, nullptr);
	if (!suite)
		return CU_get_error();
	t_register_probe(suite);
	t_register_ring(suite);
	t_register_errors(suite);
	t_register_raw(suite);
	t_register_wqe_bytes(suite);
	t_register_status(suite);
	t_register_quirks(suite);
	t_register_sva(suite);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures();
	if (CU_get_error() != CUE_SUCCESS && !failures)
		failures = 1;
	CU_cleanup_registry();
	rte_eal_cleanup();
	return failures ? 1 : 0;
}
