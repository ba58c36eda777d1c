/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * test_pmd_dma_mlx5: dma_mlx5's own suite, for what dmadev_autotest does not cover.
 * One EAL (IOVA as VA, no hugepages), the PMD linked in statically, software HCA
 * instances in inline and thread mode; every data-path test runs for both posting
 * paths on both.
 *
 * With --kernel DEV (run under devtools/sim-rdma): the suites on DEV, a device of
 * Debian's libibverbs + libmlx5 reached through the glue library (the software HCA's
 * kernel side), with path=direct (rings through mlx5dv_init_obj) and path=verbs (libmlx5's
 * builders); the cases that cannot run there are listed as skipped, each with its reason.
 */
#include <stdio.h>
#include <string.h>

#include <vector>

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

/* What --kernel leaves out, by suite (NULL: every case) or case, and why. */
struct t_skip {
	const char *suite;
	const char *test; /* NULL: the whole suite */
	const char *why;
};

const char *const kNoSimApi = "needs the imitation provider's own API (fault injection, "
			      "instances of other caps), which the kernel side does not offer";
const char *const kNoMkeys = "needs indirect mkeys (UMR, fill): this device has no DevX "
			     "mkeys";
const struct t_skip t_kernel_skips[] = {
	{"probe", "no_memcpy_mmo", kNoSimApi},
	{"fill", "faults_on_umr_and_mmo",
	 "injects device faults on a fill's UMR and MMO and a QP fatal error through the "
	 "imitation provider's mlx5_sim_inject_fault"},
	{"copy_sg", "faults_in_chain", kNoSimApi},
	{"errors", "injected_faults", kNoSimApi},
	{"errors", "unknown_syndrome", kNoSimApi},
	{"stop", "stop: submitted work past the bound is aborted", kNoSimApi},
};

const char *skip_reason(const char *suite, const char *test, bool has_mkeys)
{
	for (const struct t_skip &k : t_kernel_skips)
		if (strcmp(k.suite, suite) == 0 && (!k.test || strcmp(k.test, test) == 0))
			return k.why;
	/* UMR and fill need the device's indirect mkeys */
	if (!has_mkeys && (strcmp(suite, "fill") == 0 || strcmp(suite, "mkey_api") == 0 ||
			   (strcmp(suite, "copy_sg") == 0 && strstr(test, "umr"))))
		return kNoMkeys;
	return NULL;
}

/* Whether @p dev offers fill (indirect mkeys), as dma_mlx5 reports it. */
bool kernel_has_mkeys(const char *dev)
{
	static const struct t_mode m = {dev, "verbs", false};
	struct rte_dma_info info = {};
	int id = t_probe("dma_mlx5_kprobe", t_args(&m, NULL));
	bool fill = id >= 0 && rte_dma_info_get(id, &info) == 0 &&
		    (info.dev_capa & RTE_DMA_CAPA_OPS_FILL);

	if (id >= 0)
		t_remove("dma_mlx5_kprobe");
	return fill;
}

} // namespace

int main(int argc, char **argv)
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
	if (argc == 3 && strcmp(argv[1], "--kernel") == 0) {
		/* the cases that run there, suite by suite; the others said skipped, and why */
		static std::vector<std::vector<struct cunit_test>> kept(CUNIT_NELEM(suites));
		std::vector<struct cunit_suite> run;

		t_kernel_dev = t_kernel_modes[0].sim = t_kernel_modes[1].sim = argv[2];
		bool has_mkeys = kernel_has_mkeys(argv[2]);
		t_modes_first = t_kernel_modes;
		t_modes_end = t_kernel_modes + 2;
		for (size_t i = 0; i < CUNIT_NELEM(suites); i++) {
			for (size_t j = 0; j < suites[i].n; j++) {
				const char *why = skip_reason(suites[i].name,
							      suites[i].tests[j].name, has_mkeys);
				if (why)
					printf("skipped on %s: %s/%s: %s\n", argv[2],
					       suites[i].name, suites[i].tests[j].name, why);
				else
					kept[i].push_back(suites[i].tests[j]);
			}
			if (!kept[i].empty())
				run.push_back({suites[i].name, kept[i].data(), kept[i].size(),
					       suites[i].init, suites[i].clean});
		}
		ret = cunit_run_suites(run.data(), run.size());
		rte_eal_cleanup();
		return ret;
	}
	ret = CUNIT_RUN_SUITES(suites);
	rte_eal_cleanup();
	return ret;
}
