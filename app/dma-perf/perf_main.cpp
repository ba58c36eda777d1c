/* SPDX-License-Identifier: BSD-3-Clause */
/* dma-perf: dpdk-test-dma-perf-style benchmark for any dmadev, with dma_mlx5 built in. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <rte_cycles.h>
#include <rte_dmadev.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include "perf_bench.h"
#include "perf_cfg.h"
#include "perf_report.h"

namespace {

struct options {
	std::string config;
	std::string result;
	bool list_dma = false;
	unsigned int rounds = 1;
	std::vector<std::string> extra_eal; /* after "--" */
};

void usage(const char *prog)
{
	printf("Usage: %s [--config FILE] [--result CSV] [--rounds N] [--list-dma] [-- EAL "
	       "args...]\n"
	       "  --config FILE  dpdk-test-dma-perf config.ini (default: default.ini next to\n"
	       "                 the executable)\n"
	       "  --result CSV   results file (default: <config without .ini>_result.csv)\n"
	       "  --rounds N     run every case N times, round after round (1 to 100, default\n"
	       "                 1); ratios are then the median round's, with the range\n"
	       "  --list-dma     list the dmadevs the config's eal_args create, and exit\n"
	       "  -- ARGS        more EAL arguments, appended to the config's eal_args\n",
	       prog);
}

int parse_args(int argc, char **argv, options *o)
{
	static const struct option longopts[] = {
		{"config", required_argument, nullptr, 'c'},
		{"result", required_argument, nullptr, 'r'},
		{"list-dma", no_argument, nullptr, 'l'},
		{"rounds", required_argument, nullptr, 'n'},
		{"help", no_argument, nullptr, 'h'},
		{nullptr, 0, nullptr, 0},
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "h", longopts, nullptr)) != -1) {
		switch (opt) {
		case 'c':
			o->config = optarg;
			break;
		case 'r':
			o->result = optarg;
			break;
		case 'l':
			o->list_dma = true;
			break;
		case 'n': {
			char *end = nullptr;
			unsigned long n;

			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' || n < 1 ||
			    n > 100) {
				fprintf(stderr,
					"dma-perf: --rounds %s: not a number from 1 to 100\n",
					optarg);
				return -EINVAL;
			}
			o->rounds = (unsigned int)n;
			break;
		}
		case 'h':
			usage(argv[0]);
			exit(0);
		default:
			usage(argv[0]);
			return -EINVAL;
		}
	}
	for (int i = optind; i < argc; i++)
		o->extra_eal.push_back(argv[i]);
	return 0;
}

/* default.ini sits next to the executable in the build tree (copied there by meson),
 * else in the source tree. */
std::string default_config(void)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n > 0) {
		std::string dir(exe, n);

		dir = dir.substr(0, dir.rfind('/'));
		if (access((dir + "/default.ini").c_str(), R_OK) == 0)
			return dir + "/default.ini";
	}
	return DMA_PERF_SOURCE_DIR "/default.ini";
}

/* Like upstream: the config path with ".ini" replaced by "_result.csv". */
std::string default_result(const std::string &cfg)
{
	size_t n = cfg.size();

	if (n > 4 && cfg.compare(n - 4, 4, ".ini") == 0)
		return cfg.substr(0, n - 4) + "_result.csv";
	return cfg + "_result.csv";
}

int init_eal(const char *prog, const perf_config &cfg, const options &o)
{
	static std::vector<std::string> words;
	static std::vector<char *> argv;
	std::string w;

	words.push_back(prog);
	for (size_t i = 0; i <= cfg.eal_args.size(); i++) {
		if (i == cfg.eal_args.size() || cfg.eal_args[i] == ' ') {
			if (!w.empty())
				words.push_back(w);
			w.clear();
		} else {
			w += cfg.eal_args[i];
		}
	}
	words.insert(words.end(), o.extra_eal.begin(), o.extra_eal.end());
	for (std::string &s : words)
		argv.push_back(&s[0]);
	argv.push_back(nullptr);
	return rte_eal_init((int)argv.size() - 1, argv.data());
}

/* Expand a case into its scenarios: the variable key takes each of its values. */
std::vector<perf_scenario> scenarios(const perf_case &pc)
{
	std::vector<uint32_t> vals;
	std::vector<perf_scenario> out;
	int var = pc.var_key < 0 ? PERF_KEY_BUF_SIZE : pc.var_key;

	perf_range_values(&pc.key[var], &vals);
	for (size_t i = 0; i < vals.size(); i++) {
		uint32_t v[PERF_KEY_NUM];

		for (int k = 0; k < PERF_KEY_NUM; k++)
			v[k] = k == var ? vals[i] : pc.key[k].first;
		out.push_back({&pc, (unsigned int)i + 1, v[PERF_KEY_MEM_SIZE], v[PERF_KEY_BUF_SIZE],
			       v[PERF_KEY_RING_SIZE], v[PERF_KEY_KICK_BATCH]});
	}
	return out;
}

/* Every scenario of every case, once; results tagged with @p round. */
int run_round(const perf_config &cfg, unsigned int round, unsigned int rounds,
	      std::vector<perf_result> *res)
{
	int failed = 0;

	for (const perf_case &pc : cfg.cases) {
		if (pc.skip) {
			if (round == 1)
				printf("[%s] skipped\n", pc.section.c_str());
			continue;
		}
		for (const perf_scenario &s : scenarios(pc)) {
			perf_result r;

			if (rounds > 1)
				printf("round %u of %u: ", round, rounds);
			if (pc.type == PERF_TYPE_DMA)
				printf("[%s] scenario %u: DMA_MEM_COPY buf_size=%u mem_size=%u MB "
				       "ring=%u kick=%u, %u s ...\n",
				       pc.section.c_str(), s.index, s.buf_size, s.mem_mb,
				       s.ring_size, s.kick_batch, pc.test_seconds);
			else
				printf("[%s] scenario %u: CPU_MEM_COPY buf_size=%u mem_size=%u MB, "
				       "%u s ...\n",
				       pc.section.c_str(), s.index, s.buf_size, s.mem_mb,
				       pc.test_seconds);
			fflush(stdout);
			if (perf_bench_run(&s, pc.test_seconds > 1, &r)) {
				fprintf(stderr, "dma-perf: [%s] scenario %u FAILED: %s\n",
					pc.section.c_str(), s.index, r.error.c_str());
				failed++;
			} else {
				printf("  %.3f Mops, %.3f Gbps, %.1f cyc/op, %.1f driver cyc/op, "
				       "verified\n",
				       r.mops, r.gbps, r.cycles_per_op, r.drv_cycles_per_op);
			}
			r.round = round;
			res->push_back(r);
		}
	}
	return failed;
}

/*
 * Every case, rounds times: round after round rather than each case repeated, so that
 * the engines compared are measured close in time in every round.
 */
int run_all(const perf_config &cfg, unsigned int rounds, std::vector<perf_result> *res)
{
	int failed = 0;

	for (unsigned int round = 1; round <= rounds; round++)
		failed += run_round(cfg, round, rounds, res);
	return failed;
}

} /* namespace */

int main(int argc, char **argv)
{
	std::vector<perf_result> res;
	perf_config cfg;
	std::string err;
	options o;
	int ret, failed;

	if (parse_args(argc, argv, &o))
		return 2;
	if (o.config.empty())
		o.config = default_config();
	if (o.result.empty())
		o.result = default_result(o.config);
	if (perf_cfg_load(o.config.c_str(), &cfg, &err)) {
		fprintf(stderr, "dma-perf: %s\n", err.c_str());
		return 2;
	}
	if (init_eal(argv[0], cfg, o) < 0) {
		fprintf(stderr, "dma-perf: rte_eal_init failed with eal_args '%s': %s\n",
			cfg.eal_args.c_str(), rte_strerror(rte_errno));
		return 1;
	}
	if (o.list_dma) {
		perf_bench_list_dma();
		rte_eal_cleanup();
		return 0;
	}
	if (perf_bench_check_lcores(&cfg, &err)) {
		fprintf(stderr, "dma-perf: %s: %s\n", o.config.c_str(), err.c_str());
		rte_eal_cleanup();
		return 2;
	}
	perf_bench_calibrate();
	printf("dma-perf: config %s, one EAL for all cases: %s\n", o.config.c_str(),
	       cfg.eal_args.c_str());
	printf("TSC %.3f GHz, rdtsc pair %lu cycles (subtracted from each timed kick)\n",
	       rte_get_tsc_hz() / 1e9, (unsigned long)perf_bench_tsc_overhead());
	failed = run_all(cfg, o.rounds, &res);
	perf_report_table(res);
	perf_report_ratios(res);
	perf_report_scaling(res);
	ret = perf_report_csv(o.result.c_str(), res, rte_get_tsc_hz());
	if (!ret)
		printf("\nResults written to %s\n", o.result.c_str());
	/* with rounds, a scenario counts once for each round it failed in */
	if (failed && o.rounds > 1)
		fprintf(stderr, "dma-perf: %d scenario run(s) of %u rounds FAILED\n", failed,
			o.rounds);
	else if (failed)
		fprintf(stderr, "dma-perf: %d scenario(s) FAILED\n", failed);
	/* the report before the drivers' removal messages, also into one file (2>&1) */
	fflush(stdout);
	rte_eal_cleanup();
	return failed || ret ? 1 : 0;
}
