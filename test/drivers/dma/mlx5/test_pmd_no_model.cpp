/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dma_mlx5 linked without the software HCA, as in a -Dsim=false build or an
 * application that loads only the PMD: only the hardware backend exists, which has
 * no devices on a machine without mlx5 hardware. Every probe must fail with a clear
 * reason and leave nothing behind; software HCA names and options are unknown.
 */
#include <errno.h>
#include <string.h>

#include <rte_bus_vdev.h>
#include <rte_dmadev.h>
#include <rte_eal.h>

#include "cunit_run.h"
#include "mlx5_glue.h"

namespace {

void test_only_hardware_backend(void)
{
	const struct mlx5_glue_backend *all[MLX5_GLUE_MAX_BACKENDS];

	CU_ASSERT_EQUAL_FATAL(mlx5_glue_backends(all, MLX5_GLUE_MAX_BACKENDS), 1u);
	CU_ASSERT_STRING_EQUAL(all[0]->name, "rdma-core");
	CU_ASSERT_PTR_NULL(mlx5_glue_backend_of_option("sim_exec"));
	/* "sim0" is just a name nobody claims: it goes to the hardware backend */
	CU_ASSERT_PTR_EQUAL(mlx5_glue_backend_of("sim0"), all[0]);
}

/* Probe @p args; it must fail and leave no dmadev. */
void probe_fails(const char *args)
{
	int before = rte_dma_count_avail();

	CU_ASSERT_NOT_EQUAL(rte_vdev_init("dma_mlx5", args), 0);
	CU_ASSERT_EQUAL(rte_dma_count_avail(), before);
	CU_ASSERT_EQUAL(rte_dma_get_dev_id_by_name("dma_mlx5"), -EINVAL);
}

void test_auto_selection_finds_nothing(void)
{
	probe_fails(NULL);
	probe_fails("path=verbs");
}

void test_model_names_refused(void)
{
	probe_fails("dev=sim0");
	probe_fails("dev=sim");
	probe_fails("dev=mlx5_0");
	probe_fails("dev=0000:08:00.0");
}

void test_model_options_unknown(void)
{
	probe_fails("sim_exec=thread");
	probe_fails("dev=sim1,sim_core=1");
	probe_fails("sim_exec=service");
}

const struct cunit_test tests[] = {
	{"only the hardware backend", test_only_hardware_backend},
	{"automatic selection finds nothing", test_auto_selection_finds_nothing},
	{"software HCA names refused", test_model_names_refused},
	{"software HCA options unknown", test_model_options_unknown},
};

} // namespace

int main(int argc, char **argv)
{
	const char *eal[] = {argv[0], "--no-huge", "-m",
			     "256",   "--no-pci",  "--no-shconf",
			     "-l",    "0",         "--log-level=pmd.dma.mlx5:debug"};
	int ret;

	(void)argc;
	if (rte_eal_init((int)(sizeof(eal) / sizeof(eal[0])), const_cast<char **>(eal)) < 0)
		return 2;
	ret = CUNIT_RUN_SUITE("pmd without the software HCA", tests);
	rte_eal_cleanup();
	return ret;
}
