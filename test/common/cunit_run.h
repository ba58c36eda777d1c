/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The one main() of the single-suite CUnit executables: register a table of tests,
 * run them verbosely (CUnit prints its run summary), and exit non-zero when an
 * assertion failed, CUnit itself failed, or no test ran at all.
 */
#ifndef TEST_CUNIT_RUN_H
#define TEST_CUNIT_RUN_H

#include <stddef.h>

#include <CUnit/Basic.h>

/** One test of a suite. */
struct cunit_test {
	const char *name;
	CU_TestFunc fn;
};

/** Run @p n tests as suite @p suite; the process exit status. */
static inline int cunit_run_suite(const char *suite, const struct cunit_test *tests, size_t n)
{
	CU_pSuite s;
	unsigned failures, run;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite(suite, NULL, NULL);
	for (size_t i = 0; s && i < n; i++)
		if (!CU_add_test(s, tests[i].name, tests[i].fn))
			s = NULL;
	if (!s) {
		CU_cleanup_registry();
		return 2;
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures();
	run = CU_get_number_of_tests_run();
	CU_cleanup_registry();
	return failures || run == 0 ? 1 : 0;
}

#define CUNIT_RUN_SUITE(name, table) \
	cunit_run_suite((name), (table), sizeof(table) / sizeof((table)[0]))

#endif /* TEST_CUNIT_RUN_H */
