/* SPDX-License-Identifier: BSD-3-Clause */
/* mlx5-reasm's command line: defaults, every option, and each bad value refused. */
#include <errno.h>

#include <string>
#include <vector>

#include "cunit_run.h"
#include "reasm_opts.h"

namespace {

int parse(std::vector<std::string> args, reasm_app_opts *o)
{
	std::vector<char *> argv;

	args.insert(args.begin(), "mlx5-reasm");
	for (auto &a : args)
		argv.push_back(&a[0]);
	argv.push_back(nullptr);
	return reasm_app_parse((int)args.size(), argv.data(), o);
}

void t_defaults(void)
{
	reasm_app_opts o;

	CU_ASSERT_EQUAL(parse({}, &o), 0);
	CU_ASSERT(o.engine == "cpu");
	CU_ASSERT_EQUAL(o.mode, MODE_REASSEMBLE);
	CU_ASSERT_EQUAL(o.rx_port, 0);
	CU_ASSERT_EQUAL(o.tx_port, 1);
	CU_ASSERT_EQUAL(o.idle_ms, 200);
	CU_ASSERT_EQUAL(o.conf.max_frags, 0); /* the library's default */
}

void t_all(void)
{
	reasm_app_opts o;

	CU_ASSERT_EQUAL(parse({"--engine",
			       "dma_mlx5",
			       "--dma-mode",
			       "sg",
			       "--mode",
			       "split",
			       "--split",
			       "14,16,240,reverse",
			       "--keep-headers",
			       "--timeout-ms",
			       "500",
			       "--max-frags",
			       "128",
			       "--max-dgrams",
			       "10",
			       "--max-bytes",
			       "1000000",
			       "--max-inflight",
			       "32",
			       "--ipv4-overlap-trim",
			       "--rx-port",
			       "2",
			       "--tx-port",
			       "3",
			       "--idle-ms",
			       "0",
			       "--mbuf-size",
			       "256",
			       "--progress-ms",
			       "0"},
			      &o),
			0);
	CU_ASSERT(o.engine == "dma_mlx5");
	CU_ASSERT_EQUAL(o.dma_mode, RTE_REASM_DMA_SG);
	CU_ASSERT_EQUAL(o.mode, MODE_SPLIT);
	CU_ASSERT_EQUAL(o.split.offset, 14);
	CU_ASSERT_EQUAL(o.split.hdr_len, 16);
	CU_ASSERT_EQUAL(o.split.pay_len, 240);
	CU_ASSERT_EQUAL(o.split.reverse, 1);
	CU_ASSERT_EQUAL(o.conf.flags,
			RTE_REASM_F_SPLIT_KEEP_HEADERS | RTE_REASM_F_IPV4_OVERLAP_TRIM);
	CU_ASSERT_EQUAL(o.conf.timeout_ms, 500);
	CU_ASSERT_EQUAL(o.conf.max_frags, 128);
	CU_ASSERT_EQUAL(o.conf.max_dgrams, 10);
	CU_ASSERT_EQUAL(o.conf.max_bytes, 1000000);
	CU_ASSERT_EQUAL(o.conf.max_inflight, 32);
	CU_ASSERT_EQUAL(o.rx_port, 2);
	CU_ASSERT_EQUAL(o.tx_port, 3);
	CU_ASSERT_EQUAL(o.idle_ms, 0);
	CU_ASSERT_EQUAL(o.mbuf_size, 256);
	CU_ASSERT_EQUAL(o.progress_ms, 0);
	for (auto m :
	     {std::make_pair("umr", RTE_REASM_DMA_UMR), std::make_pair("copy", RTE_REASM_DMA_COPY),
	      std::make_pair("auto", RTE_REASM_DMA_AUTO)}) {
		reasm_app_opts u;

		CU_ASSERT_EQUAL(parse({"--dma-mode", m.first}, &u), 0);
		CU_ASSERT_EQUAL(u.dma_mode, m.second);
	}
}

void t_bad(void)
{
	static const std::vector<std::vector<std::string>> bad = {
		{"--dma-mode", "fast"},    {"--mode", "defrag"},
		{"--split", "1,2"},        {"--split", "0,16,0"},
		{"--split", "0,1,2,back"}, {"--timeout-ms", "0"},
		{"--max-frags", "9000"},   {"--max-frags", "-1"},
		{"--max-dgrams", "x"},     {"--max-inflight", "0"},
		{"--rx-port", "65536"},    {"--mbuf-size", "10"},
		{"--mode", "split"},       {"stray"},
		{"--no-such-option"},
	};

	for (const auto &args : bad) {
		reasm_app_opts o;

		CU_ASSERT_EQUAL(parse(args, &o), -EINVAL);
	}
}

} // namespace

int main(void)
{
	static const struct cunit_test tests[] = {
		{"defaults", t_defaults},
		{"every option", t_all},
		{"bad values", t_bad},
	};

	return CUNIT_RUN_SUITE("mlx5-reasm options", tests);
}
