/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sva=1: one implicit on-demand MR instead of per-segment registrations. Any mapped
 * process address works (RTE_DMA_CAPA_SVA); an unmapped one completes with an error
 * status (the device's page fault), never a crash.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "rte_pmd_dma_mlx5.h"
#include "test_dma_mlx5.h"

namespace {

void test_sva_any_address(void)
{
	T_FOREACH_MODE (m) {
		int id = t_open("dma_mlx5_sva", t_args(m, "sva=1"), 1, 64);
		uint8_t *src = (uint8_t *)malloc(8192), *dst = (uint8_t *)malloc(8192);
		void *gone = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				  -1, 0);
		struct rte_pmd_dma_mlx5_caps caps;
		struct rte_dma_info info;
		enum rte_dma_status_code st[3];
		uint16_t last;

		CU_ASSERT_TRUE_FATAL(id >= 0 && src && dst && gone != MAP_FAILED);
		munmap(gone, 4096); /* a hole in the address space */
		CU_ASSERT_EQUAL(rte_dma_info_get(id, &info), 0);
		CU_ASSERT_TRUE(info.dev_capa & RTE_DMA_CAPA_SVA);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_get_caps(id, &caps), 0);
		CU_ASSERT_EQUAL(caps.sva, 1);
		t_fill(src, 8192, 21);
		memset(dst, 0, 8192);
		/* malloc()'d memory, never registered with DPDK */
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(src), t_iova(dst), 8192, 0), 0);
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, t_iova(gone), t_iova(dst), 64, 0), 1);
		CU_ASSERT_EQUAL(
			rte_dma_copy(id, 0, t_iova(src), t_iova(dst), 4096, RTE_DMA_OP_FLAG_SUBMIT),
			2);
		CU_ASSERT_EQUAL(t_wait_status(id, 0, 3, st, &last), 3);
		CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_NOT_EQUAL(st[1], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(st[2], RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_TRUE(t_check(dst, 8192, 21));
		CU_ASSERT_EQUAL(t_close("dma_mlx5_sva"), 0);
		free(src);
		free(dst);
	}
}

const struct cunit_test tests[] = {
	{"sva_any_address", test_sva_any_address},
};

} // namespace

const struct cunit_suite t_suite_sva = CUNIT_SUITE("sva", tests);
