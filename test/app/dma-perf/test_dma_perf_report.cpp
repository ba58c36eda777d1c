/* SPDX-License-Identifier: BSD-3-Clause */
/* CUnit: dma-perf's ratio lines on made-up results of several rounds. No EAL needed. */
#include <stdio.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <CUnit/Basic.h>

#include "cunit_run.h"
#include "perf_report.h"

namespace {

/* One ok (or FAILED) result of @p engine on @p lcores at @p size in @p round. */
perf_result result(unsigned int case_id, enum perf_type type, const std::string &engine,
		   const std::string &lcores, bool on_main, uint32_t size, unsigned int round,
		   double mops, bool ok)
{
	perf_result r{};

	r.case_id = case_id;
	r.scenario = 1;
	r.round = round;
	r.type = type;
	r.engine = engine;
	r.base = engine;
	r.single = engine;
	r.workers = 1;
	r.lcores = lcores;
	r.on_main = on_main;
	r.buf_size = size;
	r.ops = ok ? 1000 : 0;
	r.mops = ok ? mops : 0;
	r.gbps = r.mops * size * 8 / 1e3;
	r.ok = ok;
	r.error = ok ? "" : "made up";
	return r;
}

/* What @p report prints for @p res. */
std::string printed(void (*report)(const std::vector<perf_result> &),
		    const std::vector<perf_result> &res)
{
	FILE *tmp = tmpfile();
	std::string out;
	int saved;
	char buf[512];
	size_t n;

	CU_ASSERT_FATAL(tmp != nullptr);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	CU_ASSERT_FATAL(saved >= 0);
	CU_ASSERT_FATAL(dup2(fileno(tmp), STDOUT_FILENO) >= 0);
	report(res);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	rewind(tmp);
	while ((n = fread(buf, 1, sizeof(buf), tmp)) > 0)
		out.append(buf, n);
	fclose(tmp);
	printf("%s", out.c_str());
	return out;
}

/* What perf_report_ratios() prints for @p res. */
std::string ratios(const std::vector<perf_result> &res)
{
	return printed(perf_report_ratios, res);
}

bool has(const std::string &out, const std::string &what)
{
	return out.find(what) != std::string::npos;
}

/*
 * The data path's only size FAILED in round 1, ran in round 2: the ratio is round 2's,
 * and its CPU loop on an lcore the data path did not use is still marked [free CPU].
 */
void test_free_cpu_round1_failed(void)
{
	std::vector<perf_result> res = {
		result(1, PERF_TYPE_DMA, "dma_mlx5", "1", false, 1024, 1, 0, false),
		result(2, PERF_TYPE_CPU, "rte_memcpy", "0", true, 1024, 1, 40, true),
		result(1, PERF_TYPE_DMA, "dma_mlx5", "1", false, 1024, 2, 1, true),
		result(2, PERF_TYPE_CPU, "rte_memcpy", "0", true, 1024, 2, 40, true),
	};
	std::string out = ratios(res);

	CU_ASSERT_TRUE(has(out, "  dma_mlx5 GB/s / rte_memcpy @main GB/s [free CPU]:  1 KiB "
				"0.025 (1.02/40.96) [0.025-0.025]\n"));
	CU_ASSERT_TRUE(has(out, "  [free CPU]: the CPU loop ran on lcores"));
}

/*
 * 64 B: the CPU loop on lcore 2, free; 1 KiB: on the data path's lcore 1, which FAILED
 * in round 1. Only 64 B is marked, not the whole line.
 */
void test_free_cpu_per_size_round1_failed(void)
{
	std::vector<perf_result> res;

	for (unsigned int k = 1; k <= 2; k++) {
		res.push_back(result(1, PERF_TYPE_DMA, "dma_mlx5", "1", false, 64, k, 1, true));
		res.push_back(result(1, PERF_TYPE_DMA, "dma_mlx5", "1", false, 1024, k, 1, k == 2));
		res.push_back(result(2, PERF_TYPE_CPU, "rte_memcpy", "2", false, 64, k, 10, true));
		res.push_back(
			result(3, PERF_TYPE_CPU, "rte_memcpy", "1", false, 1024, k, 10, true));
	}
	std::string out = ratios(res);

	CU_ASSERT_TRUE(has(out, "  dma_mlx5 GB/s / rte_memcpy GB/s:  64 B 0.100 (0.06/0.64) "
				"[0.100-0.100] [free CPU]  1 KiB 0.100 (1.02/10.24) "
				"[0.100-0.100]\n"));
}

/*
 * Three rounds, the CPU loop's round 2 FAILED: median and range of rounds 1 and 3 (the
 * lower one of two), with round 1's figures.
 */
void test_median_of_paired_rounds(void)
{
	std::vector<perf_result> res = {
		result(1, PERF_TYPE_DMA, "dma_mlx5", "1", false, 1024, 1, 2, true),
		result(2, PERF_TYPE_CPU, "rte_memcpy", "0", true, 1024, 1, 40, true),
		result(1, PERF_TYPE_DMA, "dma_mlx5", "1", false, 1024, 2, 1, true),
		result(2, PERF_TYPE_CPU, "rte_memcpy", "0", true, 1024, 2, 40, false),
		result(1, PERF_TYPE_DMA, "dma_mlx5", "1", false, 1024, 3, 4, true),
		result(2, PERF_TYPE_CPU, "rte_memcpy", "0", true, 1024, 3, 40, true),
	};
	std::string out = ratios(res);

	CU_ASSERT_TRUE(has(out, "(3 rounds: the median round's ratio"));
	CU_ASSERT_TRUE(has(out, " 1 KiB 0.050 (2.05/40.96) [0.050-0.100]\n"));
}

/*
 * A row name longer than the case column's 8 characters (case 123, scenario 45, round
 * 10: "123.45#10") widens the column: every row's engine starts under "engine".
 */
void test_table_long_names(void)
{
	std::vector<perf_result> res;

	for (unsigned int k = 1; k <= 10; k++) {
		res.push_back(result(1, PERF_TYPE_DMA, "dma_mlx5", "1", false, 64, k, 1, true));
		res.push_back(
			result(123, PERF_TYPE_DMA, "dma_skeleton", "1", false, 64, k, 1, true));
		res.back().scenario = 45;
	}
	std::string out = printed(perf_report_table, res);
	size_t head = out.find("case");
	CU_ASSERT_FATAL(head != std::string::npos);
	size_t col = out.find("engine", head) - head;
	size_t rows = 0;

	for (size_t at = out.find('\n', head); at != std::string::npos && at + 1 < out.size();
	     at = out.find('\n', at + 1)) {
		size_t e = out.find("dma_", at + 1);
		CU_ASSERT_FATAL(e != std::string::npos);
		CU_ASSERT_EQUAL(e - (at + 1), col);
		rows++;
	}
	CU_ASSERT_EQUAL(rows, res.size());
	CU_ASSERT_TRUE(has(out, "\n123.45#10 dma_skeleton"));
	CU_ASSERT_TRUE(has(out, "\n1.1#1     dma_mlx5"));
}

/*
 * Every column of the table under its header: the text columns (case, engine, lcore,
 * ring, kick) start where their header starts, the figures end where theirs ends, and
 * the result starts under "result"; with a long engine name and lcores, figures wider
 * than before, and a FAILED row.
 */
void test_table_columns(void)
{
	std::vector<perf_result> res = {
		result(1, PERF_TYPE_DMA, "dma_mlx5", "1", false, 64, 1, 12.5, true),
		result(2, PERF_TYPE_DMA, "0000:00:04.2 dma_skeleton sg16x16 x4", "10 11 12 13",
		       true, 65536, 1, 0.25, true),
		result(3, PERF_TYPE_CPU, "rte_memcpy", "1", false, 64, 1, 0, false),
	};
	res[0].drv_cycles_per_op = 123456.7;
	res[0].idle_cycles_per_op = 1234567.8;
	res[0].ring_size = 1024;
	res[0].kick_batch = 32;
	std::string out = printed(perf_report_table, res);
	size_t head = out.find("case");
	CU_ASSERT_FATAL(head != std::string::npos);
	size_t eol = out.find('\n', head);
	std::string h = out.substr(head, eol - head);
	const char *left[] = {"case", "engine", "lcore", "ring", "kick", "result"};
	const char *right[] = {"buf(B)", "nr_buf", "MB",         "Mops",
			       "Gbps",   "cyc/op", "drv cyc/op", "idle cyc/op"};
	std::vector<size_t> starts, ends;
	size_t rows = 0;

	for (const char *c : left)
		starts.push_back(h.find(c));
	/* in order, each after the one before ("cyc/op": upstream's, then drv's) */
	for (size_t k = 0, at = 0; k < sizeof(right) / sizeof(right[0]); k++) {
		std::string c = std::string(" ") + right[k];

		at = h.find(c, at);
		CU_ASSERT_FATAL(at != std::string::npos);
		at += c.size();
		ends.push_back(at);
	}
	for (size_t at = eol + 1; at < out.size(); rows++) {
		size_t e = out.find('\n', at);
		std::string r = out.substr(at, e - at);

		for (size_t s : starts)
			CU_ASSERT_TRUE(s < r.size() && (!s || r[s - 1] == ' ') && r[s] != ' ');
		for (size_t x : ends)
			CU_ASSERT_TRUE(x < r.size() && r[x] == ' ' && r[x - 1] != ' ');
		at = e + 1;
	}
	CU_ASSERT_EQUAL(rows, res.size());
}

/* A scaling section with no ratios section above it still says how to read a range. */
void test_scaling_rounds_note(void)
{
	std::vector<perf_result> res;

	for (unsigned int k = 1; k <= 3; k++) {
		res.push_back(result(1, PERF_TYPE_DMA, "dma_mlx5", "1", false, 64, k, 1.0, true));
		res.push_back(result(2, PERF_TYPE_DMA, "dma_mlx5 x2", "0 1", false, 64, k,
				     1.0 + k / 10.0, true));
		res.back().workers = 2;
		res.back().single = "dma_mlx5";
	}
	std::string out = printed(perf_report_scaling, res);

	CU_ASSERT_TRUE(has(out, "Scaling in this run"));
	CU_ASSERT_TRUE(has(out, "(3 rounds: the median round's ratio"));
	CU_ASSERT_TRUE(has(out, "[1.100-1.300]"));
}

} /* namespace */

int main(void)
{
	static const struct cunit_test tests[] = {
		{"[free CPU] when round 1 FAILED", test_free_cpu_round1_failed},
		{"[free CPU] per size when round 1 FAILED", test_free_cpu_per_size_round1_failed},
		{"median of the rounds that paired up", test_median_of_paired_rounds},
		{"the case column fits its longest name", test_table_long_names},
		{"every column under its header", test_table_columns},
		{"scaling alone explains its ranges", test_scaling_rounds_note},
	};

	return CUNIT_RUN_SUITE("dma_perf_report", tests);
}
