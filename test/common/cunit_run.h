/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The one runner of every CUnit executable (test_common_dep): register one or more
 * tables of tests as suites, run them verbosely (CUnit prints each test and its run
 * summary), and turn the result into the process exit status: 0 only when every test
 * passed and at least one test ran; 1 when an assertion failed, a suite's init or
 * cleanup failed, or no test ran at all; 2 when the registry could not be built.
 *
 * Single suite:   return CUNIT_RUN_SUITE("cq_poll", tests);
 * Several suites: static const struct cunit_suite suites[] = {
 *                         CUNIT_SUITE("mmo lengths", len),
 *                         CUNIT_SUITE_INIT("pci", pci, init, clean), ...};
 *                 return CUNIT_RUN_SUITES(suites);
 */
#ifndef TEST_CUNIT_RUN_H
#define TEST_CUNIT_RUN_H

#include <stddef.h>
#include <stdio.h>

#include <CUnit/Basic.h>

/** One test of a suite. */
struct cunit_test {
	const char *name;
	CU_TestFunc fn;
};

/** One suite: a table of tests, optional init/cleanup (NULL: none). */
struct cunit_suite {
	const char *name;
	const struct cunit_test *tests;
	size_t n;
	CU_InitializeFunc init;
	CU_CleanupFunc clean;
};

#define CUNIT_NELEM(a) (sizeof(a) / sizeof((a)[0]))
/** A struct cunit_suite of table @p t (an array, not a pointer). */
#define CUNIT_SUITE(name, t)                            \
	{                                               \
		(name), (t), CUNIT_NELEM(t), NULL, NULL \
	}
#define CUNIT_SUITE_INIT(name, t, init, clean)               \
	{                                                    \
		(name), (t), CUNIT_NELEM(t), (init), (clean) \
	}

/** Run @p n suites in order; the process exit status. */
static inline int cunit_run_suites(const struct cunit_suite *suites, size_t n)
{
	unsigned int failures, run, suites_failed;
	CU_ErrorCode err;

	if (CU_initialize_registry() != CUE_SUCCESS) {
		fprintf(stderr, "CUnit: cannot initialize the registry\n");
		return 2;
	}
	for (size_t i = 0; i < n; i++) {
		CU_pSuite s = CU_add_suite(suites[i].name, suites[i].init, suites[i].clean);

		for (size_t j = 0; s && j < suites[i].n; j++)
			if (!CU_add_test(s, suites[i].tests[j].name, suites[i].tests[j].fn))
				s = NULL;
		if (!s) {
			fprintf(stderr, "CUnit: cannot register suite \"%s\": %s\n", suites[i].name,
				CU_get_error_msg());
			CU_cleanup_registry();
			return 2;
		}
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	err = CU_basic_run_tests();
	failures = CU_get_number_of_failures();
	run = CU_get_number_of_tests_run();
	suites_failed = CU_get_number_of_suites_failed();
	CU_cleanup_registry();
	if (run == 0)
		fprintf(stderr, "CUnit: no test ran\n");
	return failures || suites_failed || run == 0 || err != CUE_SUCCESS ? 1 : 0;
}

/** Run @p n tests as suite @p suite; the process exit status. */
static inline int cunit_run_suite(const char *suite, const struct cunit_test *tests, size_t n)
{
	const struct cunit_suite s = {suite, tests, n, NULL, NULL};

	return cunit_run_suites(&s, 1);
}

#define CUNIT_RUN_SUITE(name, table) cunit_run_suite((name), (table), CUNIT_NELEM(table))
#define CUNIT_RUN_SUITES(suites) cunit_run_suites((suites), CUNIT_NELEM(suites))

#endif /* TEST_CUNIT_RUN_H */
