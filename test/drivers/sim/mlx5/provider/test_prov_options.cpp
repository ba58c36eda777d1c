/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The sim_* options (sim_options.h): sim_core's CPU lists (single CPUs, ranges,
 * lists of both), bad values refused with a reason that names them, and what a
 * device made from sim_core=<list> reports through the seam: one engine thread per
 * CPU, their CPUs (progress_info).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <string>

#include <CUnit/Basic.h>

#include "cunit_run.h"
#include "glue_test_util.h"

#include "mlx5_glue.h"
#include "mlx5_sim.h"
#include "sim_options.h"

using namespace mlx5sim;

namespace {

int parse(const char *exec, const char *core, struct mlx5_sim_device_attr *attr, std::string *why)
{
	struct mlx5_glue_option o[2];
	unsigned n = 0;
	char buf[256] = "";

	if (exec)
		o[n++] = {"sim_exec", exec};
	if (core)
		o[n++] = {"sim_core", core};
	int ret = sim_parse_options(o, n, attr, buf, sizeof(buf));
	*why = buf;
	return ret;
}

long n_cpus()
{
	return sysconf(_SC_NPROCESSORS_CONF);
}

} // namespace

static void test_core_lists(void)
{
	struct mlx5_sim_device_attr a;
	std::string why;

	CU_ASSERT_EQUAL(parse(nullptr, "0", &a, &why), 0);
	CU_ASSERT_EQUAL(a.engine_cpus_set, 1);
	CU_ASSERT_EQUAL(CPU_COUNT(&a.engine_cpus), 1);
	CU_ASSERT_TRUE(CPU_ISSET(0, &a.engine_cpus));
	/* a repeated CPU is one CPU: one engine thread */
	CU_ASSERT_EQUAL(parse("thread", "0,0-0", &a, &why), 0);
	CU_ASSERT_EQUAL(CPU_COUNT(&a.engine_cpus), 1);
	if (n_cpus() < 2) {
		printf("(one CPU: ranges skipped) ");
		return;
	}
	long top = n_cpus() > 64 ? 63 : n_cpus() - 1; /* at most 64 engine threads */
	std::string last = std::to_string(n_cpus() - 1);
	std::string range = "0-" + std::to_string(top);
	CU_ASSERT_EQUAL(parse(nullptr, range.c_str(), &a, &why), 0);
	CU_ASSERT_EQUAL(CPU_COUNT(&a.engine_cpus), top + 1);
	std::string list = last + ",0";
	CU_ASSERT_EQUAL(parse(nullptr, list.c_str(), &a, &why), 0);
	CU_ASSERT_EQUAL(CPU_COUNT(&a.engine_cpus), 2);
	CU_ASSERT_TRUE(CPU_ISSET(0, &a.engine_cpus));
	CU_ASSERT_TRUE(CPU_ISSET((int)n_cpus() - 1, &a.engine_cpus));
}

/* every bad value: -EINVAL and a reason that quotes it */
static void test_core_bad_values(void)
{
	struct mlx5_sim_device_attr a;
	std::string why;
	std::string beyond = std::to_string(n_cpus());
	std::string beyond_range = "0-" + beyond;
	const char *bad[] = {"",
			     "x",
			     "-1",
			     "1-",
			     "2-1",
			     "0,",
			     ",0",
			     "0,,1",
			     "0-1-2",
			     "0x1",
			     " 0",
			     "0 ",
			     "1a",
			     beyond.c_str(),
			     beyond_range.c_str(),
			     "99999999999999999999"};

	for (const char *v : bad) {
		CU_ASSERT_EQUAL(parse(nullptr, v, &a, &why), -EINVAL);
		if (why.find(std::string("'") + v + "'") == std::string::npos) {
			printf("\nreason for '%s' does not name it: %s\n", v, why.c_str());
			CU_FAIL("reason does not name the value");
		}
		CU_ASSERT_TRUE(why.find("sim_core") != std::string::npos);
	}
	/* an engine thread only exists in thread mode */
	CU_ASSERT_EQUAL(parse("inline", "0", &a, &why), -EINVAL);
	CU_ASSERT_TRUE(why.find("sim_core=0") != std::string::npos);
	CU_ASSERT_EQUAL(parse("service", "0", &a, &why), -EINVAL);
}

/* sim_core=<two CPUs> through the seam: two engine threads, on those CPUs */
static void test_threads_reported(void)
{
	const struct mlx5_glue *g = mlx5_glue_sim();
	struct mlx5_sim_device_attr a;
	struct mlx5_glue_progress_info pi;
	cpu_set_t mine, two;
	std::string why;
	int n = 0;

	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(mine), &mine), 0);
	CPU_ZERO(&two);
	std::string list;
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &mine)) {
			CPU_SET(c, &two);
			list += (n++ ? "," : "") + std::to_string(c);
		}
	if (n < 2) {
		printf("(one CPU: skipped) ");
		return;
	}
	CU_ASSERT_EQUAL_FATAL(parse("thread", list.c_str(), &a, &why), 0);
	CU_ASSERT_EQUAL_FATAL(mlx5_sim_device_add("sim7", &a), 0);
	struct ibv_context *ctx = glue_test_open(g, "sim7");
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g->progress_info);
	CU_ASSERT_EQUAL(g->progress_info(ctx, &pi), 0);
	CU_ASSERT_EQUAL(pi.mode, MLX5_GLUE_PROGRESS_THREADS);
	CU_ASSERT_EQUAL(pi.threads, 2u);
	CU_ASSERT_TRUE(CPU_EQUAL(&pi.cpus, &two));
	CU_ASSERT_EQUAL(g->close_device(ctx), 0);
	/* the default: one engine thread */
	mlx5_sim_device_attr_init(&a);
	CU_ASSERT_EQUAL_FATAL(mlx5_sim_device_add("sim8", &a), 0);
	ctx = glue_test_open(g, "sim8");
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_EQUAL(g->progress_info(ctx, &pi), 0);
	CU_ASSERT_EQUAL(pi.threads, 1u);
	CU_ASSERT_EQUAL(g->close_device(ctx), 0);
}

int main(void)
{
	static const struct cunit_test t[] = {
		{"sim_core: CPUs, ranges, lists", test_core_lists},
		{"sim_core: bad values named in the reason", test_core_bad_values},
		{"sim_core=<list>: one engine thread per CPU, reported", test_threads_reported},
	};
	return CUNIT_RUN_SUITE("sim options", t);
}
