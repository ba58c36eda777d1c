/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * RESERVED_QPN general objects on the device (ASSUMPTIONS.md 67): ranges of
 * 2^log QPNs aligned to their size, above every QP number, lowest free first,
 * the checks of the command, and the end of the 24-bit QPN space.
 */
#include <errno.h>

#include <CUnit/Basic.h>

#include "cunit_run.h"

#include "hca.h"

using namespace mlx5sim;

namespace {

std::shared_ptr<Hca> make(const char *name, bool supported, uint8_t gran, uint32_t max_qp)
{
	HcaCaps caps;

	caps.reserved_qpn = supported;
	caps.log_reserved_qpn_granularity = gran;
	caps.max_qp = max_qp;
	return Hca::create(name, caps, ExecMode::Inline);
}

void test_checks(void)
{
	auto hca = make("rsv_checks", true, 4, 64);
	uint32_t first = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(hca.get());
	CU_ASSERT_EQUAL(hca->create_reserved_qpn(3, &first), -EINVAL);  /* below granularity */
	CU_ASSERT_EQUAL(hca->create_reserved_qpn(17, &first), -EINVAL); /* above the model */
	CU_ASSERT_EQUAL(hca->create_reserved_qpn(4, nullptr), -EINVAL);
	CU_ASSERT_EQUAL(hca->destroy_reserved_qpn(0x1000), -EINVAL);
	auto none = make("rsv_none", false, 4, 64);
	CU_ASSERT_PTR_NOT_NULL_FATAL(none.get());
	CU_ASSERT_EQUAL(none->create_reserved_qpn(4, &first), -EOPNOTSUPP);
	/* a granularity beyond the model is not a valid device */
	CU_ASSERT_PTR_NULL(make("rsv_bad", true, 17, 64).get());
}

void test_placement(void)
{
	auto hca = make("rsv_place", true, 4, 64); /* QPs get 0x100..0x13f */
	uint32_t a, b, c, d;

	CU_ASSERT_PTR_NOT_NULL_FATAL(hca.get());
	CU_ASSERT_EQUAL_FATAL(hca->create_reserved_qpn(4, &a), 0);
	CU_ASSERT_EQUAL(a, 0x140);
	CU_ASSERT_EQUAL_FATAL(hca->create_reserved_qpn(8, &b), 0);
	CU_ASSERT_EQUAL(b, 0x200); /* aligned to its 256 QPNs */
	CU_ASSERT_EQUAL_FATAL(hca->create_reserved_qpn(4, &c), 0);
	CU_ASSERT_EQUAL(c, 0x150); /* the lowest free gap */
	CU_ASSERT_EQUAL(hca->destroy_reserved_qpn(a), 0);
	CU_ASSERT_EQUAL(hca->destroy_reserved_qpn(a), -EINVAL);
	CU_ASSERT_EQUAL(hca->destroy_reserved_qpn(b + 1), -EINVAL); /* not an object id */
	CU_ASSERT_EQUAL_FATAL(hca->create_reserved_qpn(4, &d), 0);
	CU_ASSERT_EQUAL(d, a); /* a destroyed range may come back */
}

void test_exhaustion(void)
{
	auto hca = make("rsv_full", true, 16, 1); /* QP 0x100 only */
	uint32_t first, last = 0;
	int n = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(hca.get());
	while (hca->create_reserved_qpn(16, &first) == 0) {
		CU_ASSERT_EQUAL(first % 0x10000, 0);
		last = first;
		n++;
	}
	/* 0x10000..0xffffff: 255 ranges of 2^16, then the 24-bit space is full */
	CU_ASSERT_EQUAL(n, 255);
	CU_ASSERT_EQUAL(last, 0xff0000);
	CU_ASSERT_EQUAL(hca->create_reserved_qpn(16, &first), -ENOMEM);
	CU_ASSERT_EQUAL(hca->destroy_reserved_qpn(0x10000), 0);
	CU_ASSERT_EQUAL(hca->create_reserved_qpn(16, &first), 0);
	CU_ASSERT_EQUAL(first, 0x10000);
}

} // namespace

int main(void)
{
	static const struct cunit_test tests[] = {
		{"command checks", test_checks},
		{"placement", test_placement},
		{"QPN space exhausted", test_exhaustion},
	};

	return CUNIT_RUN_SUITE("hca_reserved_qpn", tests);
}
