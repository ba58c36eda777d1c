/* SPDX-License-Identifier: BSD-3-Clause */
/* dma-perf output: table, ratios, CSV. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>

#include "perf_report.h"

namespace {

/* An engine in one placement: "dma_mlx5", or "dma_mlx5 @main" when a worker ran on
 * the main lcore. */
std::string engine_of(const perf_result &r)
{
	return r.on_main ? r.engine + " @main" : r.engine;
}

/* No worker lcore of @p a is one of @p b's (lcores: "1", "0 1", in any order). */
bool lcores_disjoint(const perf_result &a, const perf_result &b)
{
	std::istringstream in(a.lcores);
	std::set<std::string> used;
	std::string lc;

	while (in >> lc)
		used.insert(lc);
	std::istringstream other(b.lcores);
	while (other >> lc)
		if (used.count(lc))
			return false;
	return true;
}

std::string size_str(uint32_t b)
{
	if (b >= 1024 * 1024 && b % (1024 * 1024) == 0)
		return std::to_string(b >> 20) + " MiB";
	if (b >= 1024 && b % 1024 == 0)
		return std::to_string(b >> 10) + " KiB";
	return std::to_string(b) + " B";
}

const perf_result *find(const std::vector<perf_result> &res, const std::string &engine,
			uint32_t buf_size, unsigned int round)
{
	for (const perf_result &r : res)
		if (r.ok && engine_of(r) == engine && r.buf_size == buf_size && r.round == round)
			return &r;
	return nullptr;
}

unsigned int rounds_of(const std::vector<perf_result> &res)
{
	unsigned int n = 1;

	for (const perf_result &r : res)
		n = std::max(n, r.round);
	return n;
}

/*
 * @p a_eng's and @p b_eng's results at @p size of the first round that measured both
 * (b with Mops, as print_ratio() needs): a round where one of them FAILED tells nothing
 * of their lcores, which are the same in every round that ran.
 */
bool first_pair(const std::vector<perf_result> &res, const std::string &a_eng,
		const std::string &b_eng, uint32_t size, const perf_result **a,
		const perf_result **b)
{
	unsigned int rounds = rounds_of(res);

	for (unsigned int k = 1; k <= rounds; k++) {
		*a = find(res, a_eng, size, k);
		*b = find(res, b_eng, size, k);
		if (*a && *b && (*b)->mops > 0)
			return true;
	}
	return false;
}

/*
 * " <size> <ratio> (<a>/<b>)" of engine a against engine b at @p size: GB/s or Mops.
 * With several rounds: the round whose ratio is the median (the lower one of an even
 * count, so the figures printed are one round's), then " [min-max]" over the rounds
 * that measured both. Nothing if no round did.
 */
bool print_ratio(const std::vector<perf_result> &res, const std::string &a_eng,
		 const std::string &b_eng, uint32_t size, bool gbps)
{
	std::vector<std::pair<double, const perf_result *>> r;
	unsigned int rounds = rounds_of(res);

	for (unsigned int k = 1; k <= rounds; k++) {
		const perf_result *a = find(res, a_eng, size, k);
		const perf_result *b = find(res, b_eng, size, k);

		if (!a || !b || b->mops <= 0)
			continue;
		/* Same buf_size: the GB/s ratio equals the Mops ratio. */
		r.push_back({gbps ? a->gbps / b->gbps : a->mops / b->mops, a});
	}
	if (r.empty())
		return false;
	std::sort(
		r.begin(), r.end(),
		[](const std::pair<double, const perf_result *> &x,
		   const std::pair<double, const perf_result *> &y) { return x.first < y.first; });
	const perf_result *a = r[(r.size() - 1) / 2].second;
	const perf_result *b = find(res, b_eng, size, a->round);
	if (gbps)
		printf("  %s %.3f (%.2f/%.2f)", size_str(size).c_str(), a->gbps / b->gbps,
		       a->gbps / 8, b->gbps / 8);
	else
		printf("  %s %.3f (%.2f/%.2f)", size_str(size).c_str(), a->mops / b->mops, a->mops,
		       b->mops);
	if (rounds > 1)
		printf(" [%.3f-%.3f]", r.front().first, r.back().first);
	return true;
}

/* Engines in order of first appearance, and the buf sizes in order. */
void axes(const std::vector<perf_result> &res, std::vector<const perf_result *> *engines,
	  std::vector<uint32_t> *sizes)
{
	for (const perf_result &r : res) {
		bool seen = false;

		if (!r.ok)
			continue;
		for (const perf_result *e : *engines)
			seen |= engine_of(*e) == engine_of(r);
		if (!seen)
			engines->push_back(&r);
		seen = false;
		for (uint32_t s : *sizes)
			seen |= s == r.buf_size;
		if (!seen)
			sizes->push_back(r.buf_size);
	}
}

/** A table row's name: case.scenario, and #round when there are several rounds. */
std::string row_name(const perf_result &r, unsigned int rounds)
{
	std::string c = std::to_string(r.case_id) + "." + std::to_string(r.scenario);

	if (rounds > 1)
		c += "#" + std::to_string(r.round);
	return c;
}

/** A table row's lcores: "(m)" after them when a worker ran on the main lcore. */
std::string lcore_col(const perf_result &r)
{
	return r.lcores + (r.on_main ? "(m)" : "");
}

/** Under a section header of ratios: how to read them when there are several rounds. */
void rounds_note(const std::vector<perf_result> &res)
{
	if (rounds_of(res) > 1)
		printf("  (%u rounds: the median round's ratio and figures, [lowest-highest] of "
		       "the rounds)\n",
		       rounds_of(res));
}

} /* namespace */

void perf_report_table(const std::vector<perf_result> &res)
{
	unsigned int rounds = rounds_of(res);
	/* the text columns: 8, 26 and 6 wide, or as wide as their longest entry */
	int wcase = 8, weng = 26, wlc = 6;

	for (const perf_result &r : res) {
		wcase = std::max(wcase, (int)row_name(r, rounds).size());
		weng = std::max(weng, (int)r.engine.size());
		wlc = std::max(wlc, (int)lcore_col(r).size());
	}
	/* the figures' columns: at least as wide as their headers */
	printf("\n%-*s %-*s %-*s %-5s %-5s %9s %8s %5s %9s %9s %9s %10s %11s  %s\n", wcase, "case",
	       weng, "engine", wlc, "lcore", "ring", "kick", "buf(B)", "nr_buf", "MB", "Mops",
	       "Gbps", "cyc/op", "drv cyc/op", "idle cyc/op", "result");
	for (const perf_result &r : res) {
		printf("%-*s %-*s %-*s %-5u %-5u %9u %8" PRIu64 " %5u", wcase,
		       row_name(r, rounds).c_str(), weng, r.engine.c_str(), wlc,
		       lcore_col(r).c_str(), r.ring_size, r.kick_batch, r.buf_size, r.nr_buf,
		       r.mem_mb);
		if (r.ops)
			printf(" %9.3f %9.3f %9.1f %10.1f %11.1f", r.mops, r.gbps, r.cycles_per_op,
			       r.drv_cycles_per_op, r.idle_cycles_per_op);
		else
			printf(" %9s %9s %9s %10s %11s", "-", "-", "-", "-", "-");
		printf("  %s\n", r.ok ? "ok (verified)" : ("FAILED: " + r.error).c_str());
	}
}

/*
 * The first DMA engine is the subject. It is compared, in each placement it ran in,
 * with every other DMA engine of the same placement and with every CPU engine.
 */
void perf_report_ratios(const std::vector<perf_result> &res)
{
	std::vector<const perf_result *> engines;
	std::vector<uint32_t> sizes;
	const perf_result *first = nullptr;
	int header = 0, free_cpu = 0;

	axes(res, &engines, &sizes);
	for (const perf_result *e : engines)
		if (!first && e->type == PERF_TYPE_DMA)
			first = e;
	if (!first)
		return;
	for (const perf_result *subject : engines) {
		if (subject->type != PERF_TYPE_DMA || subject->base != first->base)
			continue;
		for (const perf_result *e : engines) {
			bool cpu = e->type == PERF_TYPE_CPU;
			bool common = false;

			/* copies with copies, fills with fills, SG with the same SG; as many
			 * workers (perf_report_scaling() compares N workers with one) */
			if (e->engine == subject->engine || e->op != subject->op ||
			    e->workers != subject->workers ||
			    (!cpu && e->on_main != subject->on_main))
				continue;
			for (uint32_t s : sizes)
				for (unsigned int k = 1; k <= rounds_of(res); k++)
					common |= find(res, engine_of(*subject), s, k) &&
						  find(res, engine_of(*e), s, k);
			if (!common)
				continue;
			if (!header++) {
				printf("\nRatios in this run (%s against each other engine, same "
				       "buf_size; @main: the worker on the main lcore):\n",
				       subject->engine.c_str());
				rounds_note(res);
			}
			/*
			 * A CPU loop on none of the lcores of the subject's data path: on the
			 * CPU a software engine's thread had (app/dma-perf/default.ini). Per
			 * pair of results, each size's from the first round that measured
			 * both (not round 1, which may have FAILED): an engine's sizes may
			 * come from several cases.
			 */
			int pairs = 0, spare = 0;
			for (uint32_t s : sizes) {
				const perf_result *a, *b;

				if (cpu && first_pair(res, engine_of(*subject), engine_of(*e), s,
						      &a, &b)) {
					pairs++;
					spare += lcores_disjoint(*a, *b);
				}
			}
			free_cpu += spare;
			printf("  %s %s / %s %s%s:", engine_of(*subject).c_str(),
			       cpu ? "GB/s" : "Mops", engine_of(*e).c_str(), cpu ? "GB/s" : "Mops",
			       spare && spare == pairs ? " [free CPU]" : "");
			for (uint32_t s : sizes) {
				const perf_result *a, *b;
				bool mark = cpu && spare != pairs &&
					    first_pair(res, engine_of(*subject), engine_of(*e), s,
						       &a, &b) &&
					    lcores_disjoint(*a, *b);

				if (print_ratio(res, engine_of(*subject), engine_of(*e), s, cpu) &&
				    mark)
					printf(" [free CPU]");
			}
			printf("\n");
		}
	}
	if (free_cpu)
		printf("  [free CPU]: the CPU loop ran on lcores the data path did not use, where "
		       "the OS runs a software engine's thread\n");
}

void perf_report_scaling(const std::vector<perf_result> &res)
{
	std::vector<const perf_result *> engines;
	std::vector<uint32_t> sizes;
	int header = 0;

	axes(res, &engines, &sizes);
	for (const perf_result *n : engines) {
		const perf_result *one = nullptr;

		if (n->workers < 2)
			continue;
		for (const perf_result *e : engines)
			if (!one && e->workers == 1 && e->single == n->single && e->op == n->op &&
			    e->on_main == n->on_main)
				one = e;
		if (!one)
			continue;
		if (!header++) {
			printf("\nScaling in this run (total Mops of N workers, each its own "
			       "vchan, against one worker, same buf_size):\n");
			rounds_note(res);
		}
		printf("  %s / %s (N=%u):", engine_of(*n).c_str(), engine_of(*one).c_str(),
		       n->workers);
		for (uint32_t s : sizes)
			print_ratio(res, engine_of(*n), engine_of(*one), s, false);
		printf("\n");
	}
}

int perf_report_csv(const char *path, const std::vector<perf_result> &res, uint64_t tsc_hz)
{
	FILE *f = fopen(path, "w");
	int ret = 0;

	if (!f) {
		ret = -errno;
		fprintf(stderr, "dma-perf: cannot write %s: %s\n", path, strerror(errno));
		return ret;
	}
	fprintf(f, "Case,Scenario,Type,lcore,DMA,DMA ring size,kick batch size,buffer size(B),"
		   "number of buffers,memory(MB),average cycle,bandwidth(Gbps),MOps,"
		   "driver cycles/op,idle poll cycles/op,TSC hz,round,result\n");
	for (const perf_result &r : res)
		fprintf(f,
			"%u,%u,%s,%s,%s,%u,%u,%u,%" PRIu64 ",%u,%.1f,%.3f,%.3f,%.1f,%.1f,%" PRIu64
			",%u,%s\n",
			r.case_id, r.scenario,
			r.op == " fill"
				? (r.type == PERF_TYPE_DMA ? "DMA_MEM_FILL" : "CPU_MEM_FILL")
				: (r.type == PERF_TYPE_DMA ? "DMA_MEM_COPY" : "CPU_MEM_COPY"),
			r.lcores.c_str(), r.type == PERF_TYPE_DMA ? r.engine.c_str() : "",
			r.ring_size, r.kick_batch, r.buf_size, r.nr_buf, r.mem_mb, r.cycles_per_op,
			r.gbps, r.mops, r.drv_cycles_per_op, r.idle_cycles_per_op, tsc_hz, r.round,
			r.ok ? "ok" : "FAILED");
	if (fclose(f)) {
		ret = -errno;
		fprintf(stderr, "dma-perf: cannot write %s: %s\n", path, strerror(errno));
	}
	return ret;
}
