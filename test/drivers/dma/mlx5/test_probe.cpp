/* SPDX-License-Identifier: BSD-3-Clause */
/* Probe/remove through the hotplug path, devargs validation, devices side by side. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <string>

#include <rte_bus_vdev.h>
#include <rte_malloc.h>

#include "rte_pmd_dma_mlx5.h"
#include "test_dma_mlx5.h"

namespace {

constexpr size_t kLen = 4096;

/* One submitted copy of kLen bytes on vchan 0, waited for and verified. */
void copy_once(int id, uint32_t seed, uint16_t expect_idx)
{
	uint8_t *src = (uint8_t *)rte_malloc(NULL, kLen, 64);
	uint8_t *dst = (uint8_t *)rte_zmalloc(NULL, kLen, 64);
	uint16_t last = 0xdead;
	bool err = true;

	CU_ASSERT_PTR_NOT_NULL_FATAL(src);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dst);
	t_fill(src, kLen, seed);
	CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(src), t_iova(dst), kLen, RTE_DMA_OP_FLAG_SUBMIT),
			expect_idx);
	CU_ASSERT_EQUAL(t_wait_done(id, 0, 1, &last, &err), 1);
	CU_ASSERT_FALSE(err);
	CU_ASSERT_EQUAL(last, expect_idx);
	CU_ASSERT_TRUE(t_check(dst, kLen, seed));
	rte_free(src);
	rte_free(dst);
}

/* Many probe/use/remove cycles per mode: no DPDK heap growth, no context left open. */
void test_probe_remove_cycles(void)
{
	T_FOREACH_MODE (m) {
		int base = rte_dma_count_avail();
		size_t heap = 0;

		for (int i = 0; i < 25; i++) {
			int id = t_open("dma_mlx5_cyc", t_args(m, NULL), 1, 64);

			CU_ASSERT_TRUE_FATAL(id >= 0);
			CU_ASSERT_EQUAL(rte_dma_count_avail(), base + 1);
			copy_once(id, i, 0);
			CU_ASSERT_EQUAL(t_close("dma_mlx5_cyc"), 0);
			CU_ASSERT_EQUAL(rte_dma_count_avail(), base);
			CU_ASSERT_TRUE(rte_dma_get_dev_id_by_name("dma_mlx5_cyc") < 0);
			CU_ASSERT_PTR_NULL(t_find_vdev("dma_mlx5_cyc"));
			if (i == 0)
				heap = t_heap_used(); /* after the first: dmadev tables exist */
			else
				CU_ASSERT_EQUAL(t_heap_used(), heap);
		}
		/* the PMD closed its context: the instance can be removed (the imitation's) */
		struct mlx5_sim_device_attr attr;

		if (t_kernel_dev)
			continue;
		t_sim_attr(m->sim, &attr);
		CU_ASSERT_EQUAL(t_sim_recycle(m->sim, &attr), 0);
	}
}

/* rte_dev_remove() of a started device stops it first (hot-unplug never fails for
 * that), releases everything, and the name can be probed again. */
void test_remove_while_started(void)
{
	const struct t_mode *m = t_kernel_dev ? &t_kernel_modes[0] : &t_modes[2];
	int id = t_open("dma_mlx5_busy", t_args(m, NULL), 1, 64);

	CU_ASSERT_TRUE_FATAL(id >= 0);
	copy_once(id, 7, 0);
	CU_ASSERT_EQUAL(t_remove("dma_mlx5_busy"), 0);
	CU_ASSERT_TRUE(rte_dma_get_dev_id_by_name("dma_mlx5_busy") < 0);
	id = t_open("dma_mlx5_busy", t_args(m, NULL), 1, 64);
	CU_ASSERT_TRUE_FATAL(id >= 0);
	copy_once(id, 8, 0);
	CU_ASSERT_EQUAL(t_close("dma_mlx5_busy"), 0);
	CU_ASSERT_TRUE(rte_dma_get_dev_id_by_name("dma_mlx5_busy") < 0);
}

/*
 * Several devices at once: same software HCA, different ones, both posting paths.
 * With --kernel: four on DEV, both paths (the PMD-created instances are the imitation's).
 */
void test_devices_side_by_side(void)
{
	static const struct {
		const char *name;
		const char *sim, *args;
	} all[] = {
		{"dma_mlx5_a", "sim1", "path=direct"},
		{"dma_mlx5_b", "sim2", "path=verbs"},
		{"dma_mlx5_c", "sim1", "path=verbs"},
		{"dma_mlx5_d", "sim1", "path=direct"},
		/* created by the PMD with the asked mode */
		{"dma_mlx5_e", "sim8", "sim_exec=inline,path=verbs"},
		{"dma_mlx5_f", "sim9", "sim_exec=thread,path=direct"},
	};
	constexpr int kAll = RTE_DIM(all);
	const int n = t_kernel_dev ? 4 : kAll;
	int ids[kAll];
	uint32_t qpns[kAll];
	uint8_t *src = (uint8_t *)rte_malloc(NULL, n * 4 * kLen, 64);
	uint8_t *dst = (uint8_t *)rte_zmalloc(NULL, n * 4 * kLen, 64);

	CU_ASSERT_PTR_NOT_NULL_FATAL(src);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dst);
	for (int d = 0; d < n; d++) {
		struct rte_pmd_dma_mlx5_vchan_info vi;
		struct rte_pmd_dma_mlx5_caps caps;
		const char *dev = t_kernel_dev ? t_kernel_dev : all[d].sim;
		char args[96];

		snprintf(args, sizeof(args), "dev=%s,%s", dev, all[d].args);
		ids[d] = t_open(all[d].name, args, 1, 32);
		CU_ASSERT_TRUE_FATAL(ids[d] >= 0);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_vchan_info(ids[d], 0, &vi), 0);
		qpns[d] = vi.qpn;
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_get_caps(ids[d], &caps), 0);
		CU_ASSERT_STRING_EQUAL(caps.device, dev);
		CU_ASSERT_EQUAL(caps.direct_path, strstr(all[d].args, "direct") != NULL);
	}
	/* the three on sim1 (all four on DEV) share one QPN space */
	CU_ASSERT_NOT_EQUAL(qpns[0], qpns[2]);
	CU_ASSERT_NOT_EQUAL(qpns[0], qpns[3]);
	CU_ASSERT_NOT_EQUAL(qpns[2], qpns[3]);
	if (t_kernel_dev)
		CU_ASSERT_TRUE(qpns[1] != qpns[0] && qpns[1] != qpns[2] && qpns[1] != qpns[3]);
	t_fill(src, n * 4 * kLen, 99);
	for (int k = 0; k < 4; k++) /* interleaved over the devices */
		for (int d = 0; d < n; d++) {
			size_t off = (size_t)(d * 4 + k) * kLen;

			CU_ASSERT_EQUAL(rte_dma_copy(ids[d], 0, t_iova(src + off),
						     t_iova(dst + off), kLen,
						     k == 3 ? RTE_DMA_OP_FLAG_SUBMIT : 0),
					k);
		}
	for (int d = 0; d < n; d++) {
		uint16_t last = 0;
		bool err = true;

		CU_ASSERT_EQUAL(t_wait_done(ids[d], 0, 4, &last, &err), 4);
		CU_ASSERT_FALSE(err);
		CU_ASSERT_EQUAL(last, 3);
	}
	CU_ASSERT_EQUAL(memcmp(src, dst, n * 4 * kLen), 0);
	for (int d = 0; d < n; d++)
		CU_ASSERT_EQUAL(t_close(all[d].name), 0);
	/* instances the PMD created are free again */
	if (!t_kernel_dev) {
		CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim8"), 0);
		CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim9"), 0);
	}
	rte_free(src);
	rte_free(dst);
}

/* @p args with dev=sim1 naming DEV instead under --kernel. */
std::string on_dev(const char *args)
{
	std::string a(args);

	if (t_kernel_dev && a.compare(0, 8, "dev=sim1") == 0 && (a.size() == 8 || a[8] == ','))
		a = std::string("dev=") + t_kernel_dev + a.substr(8);
	return a;
}

/* Every bad devarg: probe fails with the right errno and leaves nothing behind. */
void test_bad_devargs(void)
{
	static const struct {
		const char *args;
		int expect;
	} cases[] = {
		{"dev=sim1,bogus=1", -EINVAL},
		{"sim_exec=foo", -EINVAL},
		{"dev=sim1,sim_exec=", -EINVAL},
		{"dev=sim1,path=foo", -EINVAL},
		{"dev=sim1,path=Direct", -EINVAL},
		{"dev=sim1,max_vchans=0", -EINVAL},
		{"dev=sim1,max_vchans=65", -EINVAL},
		{"dev=sim1,max_vchans=4x", -EINVAL},
		{"dev=sim1,max_vchans=-1", -EINVAL},
		{"dev=sim1,min_desc=48", -EINVAL},
		{"dev=sim1,max_desc=100", -EINVAL},
		{"dev=sim1,min_desc=1", -EINVAL},
		{"dev=sim1,max_desc=65536", -EINVAL},
		{"dev=sim1,min_desc=64,max_desc=32", -EINVAL},
		{"dev=sim1,sva=2", -EINVAL},
		{"dev=", -EINVAL},
		{"dev=nosuchdev", -ENODEV},
		{"dev=mlx5_99", -ENODEV},
		{"dev=sim01", -EINVAL},
	};
	int base = rte_dma_count_avail();
	int id;

	/* warm-up: dmadev tables allocated once, before the accounting */
	id = t_open("dma_mlx5_bad", on_dev("dev=sim1").c_str(), 1, 32);
	CU_ASSERT_TRUE_FATAL(id >= 0);
	CU_ASSERT_EQUAL(t_close("dma_mlx5_bad"), 0);
	size_t heap = t_heap_used();

	for (const auto &c : cases) {
		std::string args = on_dev(c.args);
		int ret = rte_vdev_init("dma_mlx5_bad", args.c_str());

		if (ret != c.expect)
			fprintf(stderr, "\n  devargs '%s': %d, expected %d\n", args.c_str(), ret,
				c.expect);
		CU_ASSERT_EQUAL(ret, c.expect);
		CU_ASSERT_TRUE(rte_dma_get_dev_id_by_name("dma_mlx5_bad") < 0);
		CU_ASSERT_PTR_NULL(t_find_vdev("dma_mlx5_bad"));
		CU_ASSERT_EQUAL(rte_dma_count_avail(), base);
		CU_ASSERT_EQUAL(t_heap_used(), heap);
	}
	/* the same name probes fine afterwards, also through the hotplug path */
	id = t_open("dma_mlx5_bad",
		    t_kernel_dev ? on_dev("dev=sim1").c_str() : "dev=sim1,sim_exec=inline", 1, 32);
	CU_ASSERT_TRUE_FATAL(id >= 0);
	copy_once(id, 3, 0);
	CU_ASSERT_EQUAL(t_close("dma_mlx5_bad"), 0);
	CU_ASSERT_EQUAL(t_heap_used(), heap);
	/* a failed hotplug probe is refused the same way */
	CU_ASSERT_EQUAL(t_probe("dma_mlx5_hp", on_dev("dev=sim1,path=foo").c_str()), -EINVAL);
	CU_ASSERT_TRUE(rte_dma_get_dev_id_by_name("dma_mlx5_hp") < 0);
	CU_ASSERT_EQUAL(rte_dma_count_avail(), base);
	struct mlx5_sim_device_attr attr;

	if (t_kernel_dev)
		return; /* the recycling below is the imitation's */
	t_sim_attr(T_SIM_INLINE, &attr);
	CU_ASSERT_EQUAL(t_sim_recycle(T_SIM_INLINE, &attr), 0); /* no context left open */
}

/* A software HCA without memcpy MMO is refused with -ENOTSUP. */
void test_no_memcpy_mmo(void)
{
	struct mlx5_sim_device_attr attr;
	int base = rte_dma_count_avail();
	size_t heap = t_heap_used();

	mlx5_sim_device_attr_init(&attr);
	attr.exec_mode = MLX5_SIM_EXEC_INLINE;
	attr.max_wr_memcpy_length = 0;
	CU_ASSERT_EQUAL_FATAL(mlx5_sim_device_add("sim7", &attr), 0);
	CU_ASSERT_EQUAL(rte_vdev_init("dma_mlx5_nommo", "dev=sim7"), -ENOTSUP);
	CU_ASSERT_EQUAL(t_probe("dma_mlx5_nommo2", "dev=sim7,path=verbs"), -ENOTSUP);
	CU_ASSERT_TRUE(rte_dma_get_dev_id_by_name("dma_mlx5_nommo") < 0);
	CU_ASSERT_EQUAL(rte_dma_count_avail(), base);
	CU_ASSERT_EQUAL(t_heap_used(), heap);
	CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim7"), 0); /* closed again */
}

const struct cunit_test tests[] = {
	{"probe_remove_cycles", test_probe_remove_cycles},
	{"remove_while_started", test_remove_while_started},
	{"devices_side_by_side", test_devices_side_by_side},
	{"bad_devargs", test_bad_devargs},
	{"no_memcpy_mmo", test_no_memcpy_mmo},
};

} // namespace

const struct cunit_suite t_suite_probe = CUNIT_SUITE("probe", tests);
