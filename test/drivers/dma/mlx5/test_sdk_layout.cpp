/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pmd_sdk_layout: the driver interface declared by drivers/dma/mlx5/mlx5_dma_sdk.h
 * has DPDK's own layout: every member's offset, every struct's size and alignment,
 * against the driver-SDK headers of the installed release (built only where
 * devtools/setup.sh fetched them, Debian 12's 22.11; the newer releases are checked
 * by their own dmadev_autotest). The two sides are compiled apart: each translation
 * unit sees one set of declarations.
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <string.h>

#include "cunit_run.h"
#include "sdk_layout.h"

namespace {

void test_layout_matches(void)
{
	static struct sdk_layout_entry ours[128], dpdk[128];
	size_t n_ours = sdk_layout_ours(ours, 128);
	size_t n_dpdk = sdk_layout_dpdk(dpdk, 128);

	CU_ASSERT_EQUAL_FATAL(n_ours, n_dpdk);
	CU_ASSERT_TRUE(n_ours > 40);
	for (size_t i = 0; i < n_ours; i++) {
		CU_ASSERT_STRING_EQUAL(ours[i].what, dpdk[i].what);
		if (ours[i].value != dpdk[i].value)
			printf("  %s: %zu here, %zu in DPDK's header\n", ours[i].what,
			       ours[i].value, dpdk[i].value);
		CU_ASSERT_EQUAL(ours[i].value, dpdk[i].value);
	}
}

} // namespace

int main(void)
{
	static const struct cunit_test tests[] = {
		{"layout of every declaration = DPDK's", test_layout_matches},
	};
	return CUNIT_RUN_SUITE("sdk_layout", tests);
}
