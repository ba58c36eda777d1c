/* SPDX-License-Identifier: BSD-3-Clause */
/* CUnit: dma-perf's config parser, both layouts, ranges and bad input. No EAL needed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>
#include <vector>

#include <CUnit/Basic.h>

#include "cunit_run.h"
#include "perf_cfg.h"

namespace {

std::string tmp_path;

/* Write @p text to a fresh temporary .ini and load it. */
int load(const std::string &text, perf_config *cfg, std::string *err)
{
	char path[] = "/tmp/dma_perf_cfg_XXXXXX.ini";
	int fd = mkstemps(path, 4);
	FILE *f;
	int ret;

	CU_ASSERT_FATAL(fd >= 0);
	f = fdopen(fd, "w");
	CU_ASSERT_FATAL(f != nullptr);
	fputs(text.c_str(), f);
	fclose(f);
	tmp_path = path;
	ret = perf_cfg_load(path, cfg, err);
	unlink(path);
	return ret;
}

/* A bad config fails with -EINVAL and an error naming @p what (section/key/value). */
void expect_bad(const std::string &text, const std::vector<std::string> &what)
{
	perf_config cfg;
	std::string err;

	CU_ASSERT_EQUAL(load(text, &cfg, &err), -EINVAL);
	for (const std::string &w : what) {
		bool found = err.find(w) != std::string::npos;

		CU_ASSERT_TRUE(found);
		if (!found)
			fprintf(stderr, "\n  error '%s' lacks '%s'\n", err.c_str(), w.c_str());
	}
	CU_ASSERT_EQUAL(err.find('\n'), std::string::npos);
}

const char *const global_hdr = "[GLOBAL]\n"
			       "eal_args=--no-huge   -m 512 --no-pci  -l 0-1\n"
			       "cache_flush=1\n"
			       "test_seconds=3\n";

const char *const dma_case = "type=DMA_MEM_COPY\n"
			     "mem_size=10\n"
			     "buf_size=64\n"
			     "dma_ring_size=1024\n"
			     "kick_batch=32\n"
			     "lcore_dma0=lcore=1,dev=dma_mlx5,dir=mem2mem\n";

std::vector<uint32_t> values(const perf_range &r)
{
	std::vector<uint32_t> v;

	perf_range_values(&r, &v);
	return v;
}

void test_newest_format(void)
{
	perf_config cfg;
	std::string err;
	std::string text = std::string(global_hdr) + "[case2]\n" + dma_case +
			   "[case1]\n"
			   "type=CPU_MEM_COPY\n"
			   "mem_size=20\n"
			   "buf_size=64,4096,4,MUL\n"
			   "lcore = 1, 2\n"
			   "src_numa_node=1\n"
			   "dst_numa_node=0\n"
			   "[case3]\n"
			   "skip=1\n"
			   "type=NONSENSE\n";

	CU_ASSERT_EQUAL_FATAL(load(text, &cfg, &err), 0);
	CU_ASSERT_TRUE(cfg.has_global);
	CU_ASSERT_STRING_EQUAL(cfg.eal_args.c_str(), "--no-huge -m 512 --no-pci -l 0-1");
	CU_ASSERT_EQUAL_FATAL(cfg.cases.size(), 3);
	/* Sorted by case number. */
	const perf_case &cpu = cfg.cases[0], &dma = cfg.cases[1];
	CU_ASSERT_EQUAL(cpu.id, 1);
	CU_ASSERT_EQUAL(cpu.type, PERF_TYPE_CPU);
	CU_ASSERT_EQUAL(cpu.var_key, PERF_KEY_BUF_SIZE);
	CU_ASSERT(values(cpu.key[PERF_KEY_BUF_SIZE]) ==
		  std::vector<uint32_t>({64, 256, 1024, 4096}));
	CU_ASSERT_EQUAL(cpu.key[PERF_KEY_MEM_SIZE].first, 20);
	CU_ASSERT_EQUAL_FATAL(cpu.workers.size(), 2);
	CU_ASSERT_EQUAL(cpu.workers[0].lcore, 1);
	CU_ASSERT_EQUAL(cpu.workers[1].lcore, 2);
	CU_ASSERT_TRUE(cpu.workers[0].dev.empty());
	CU_ASSERT_EQUAL(cpu.src_numa, 1);
	CU_ASSERT_EQUAL(cpu.dst_numa, 0);
	CU_ASSERT_EQUAL(cpu.test_seconds, 3);
	CU_ASSERT_TRUE(cpu.cache_flush);
	CU_ASSERT_EQUAL(dma.id, 2);
	CU_ASSERT_EQUAL(dma.type, PERF_TYPE_DMA);
	CU_ASSERT_EQUAL(dma.var_key, -1);
	CU_ASSERT_EQUAL(dma.key[PERF_KEY_RING_SIZE].first, 1024);
	CU_ASSERT_EQUAL(dma.key[PERF_KEY_KICK_BATCH].first, 32);
	CU_ASSERT_EQUAL_FATAL(dma.workers.size(), 1);
	CU_ASSERT_EQUAL(dma.workers[0].lcore, 1);
	CU_ASSERT_STRING_EQUAL(dma.workers[0].dev.c_str(), "dma_mlx5");
	CU_ASSERT_EQUAL(dma.src_sge, 0);
	CU_ASSERT_TRUE(cfg.cases[2].skip);
}

/* 23.07 to 24.07: per-case EAL keys, lcore_dma=lcoreN@dev list. */
void test_old_format(void)
{
	perf_config cfg;
	std::string err;
	std::string text = "; comment\n"
			   "[case1]\n"
			   "type=DMA_MEM_COPY\n"
			   "mem_size=10\n"
			   "buf_size=256\n"
			   "dma_ring_size=64,4096,2,MUL\n"
			   "kick_batch=32\n"
			   "lcore_dma=lcore10@0000:00:04.2, lcore11@dma_skeleton\n"
			   "eal_args=--in-memory --no-pci\n"
			   "cache_flush=0\n"
			   "test_seconds=7\n"
			   "[case2]\n"
			   "type=DMA_MEM_COPY\n"
			   "mem_size=10\n"
			   "buf_size=256\n"
			   "dma_ring_size=1024\n"
			   "kick_batch=1,64,8,ADD\n"
			   "lcore_dma0=lcore=3,dev=dma_mlx5,dir=mem2mem\n"
			   "lcore_dma1=lcore=4,dev=dma_skeleton\n"
			   "dma_src_sge=4\n"
			   "dma_dst_sge=2\n"
			   "eal_args=--in-memory  --no-pci\n"
			   "test_seconds=2\n";

	CU_ASSERT_EQUAL_FATAL(load(text, &cfg, &err), 0);
	CU_ASSERT_FALSE(cfg.has_global);
	CU_ASSERT_STRING_EQUAL(cfg.eal_args.c_str(), "--in-memory --no-pci");
	CU_ASSERT_EQUAL_FATAL(cfg.cases.size(), 2);
	const perf_case &a = cfg.cases[0], &b = cfg.cases[1];
	CU_ASSERT_EQUAL_FATAL(a.workers.size(), 2);
	CU_ASSERT_EQUAL(a.workers[0].lcore, 10);
	CU_ASSERT_STRING_EQUAL(a.workers[0].dev.c_str(), "0000:00:04.2");
	CU_ASSERT_EQUAL(a.workers[1].lcore, 11);
	CU_ASSERT_STRING_EQUAL(a.workers[1].dev.c_str(), "dma_skeleton");
	CU_ASSERT_EQUAL(a.test_seconds, 7);
	CU_ASSERT_FALSE(a.cache_flush);
	CU_ASSERT_EQUAL(a.var_key, PERF_KEY_RING_SIZE);
	CU_ASSERT_EQUAL(values(a.key[PERF_KEY_RING_SIZE]).size(), 7);
	CU_ASSERT_EQUAL(b.test_seconds, 2);
	CU_ASSERT_EQUAL(b.var_key, PERF_KEY_KICK_BATCH);
	CU_ASSERT(values(b.key[PERF_KEY_KICK_BATCH]) ==
		  std::vector<uint32_t>({1, 9, 17, 25, 33, 41, 49, 57}));
	CU_ASSERT_EQUAL_FATAL(b.workers.size(), 2);
	CU_ASSERT_EQUAL(b.workers[1].lcore, 4);
	CU_ASSERT_STRING_EQUAL(b.workers[1].dev.c_str(), "dma_skeleton");
	CU_ASSERT_EQUAL(b.src_sge, 4);
	CU_ASSERT_EQUAL(b.dst_sge, 2);
}

/* The SG and fill cases the default run compares with the CPU. */
void test_sg_and_fill(void)
{
	perf_config cfg;
	std::string err;
	const std::string text = "[GLOBAL]\neal_args=--no-pci\n"
				 "[case1]\ntype=CPU_MEM_COPY\nmem_size=4\nbuf_size=4096\n"
				 "lcore=1\ndma_src_sge=4\ndma_dst_sge=3\n"
				 "[case2]\ntype=DMA_MEM_FILL\nmem_size=4\nbuf_size=64,4096,4,MUL\n"
				 "dma_ring_size=256\nkick_batch=16\n"
				 "lcore_dma0=lcore=1,dev=dma_mlx5,dir=mem2mem\n"
				 "[case3]\ntype=CPU_MEM_FILL\nmem_size=4\nbuf_size=64\nlcore=1\n";

	CU_ASSERT_EQUAL_FATAL(load(text, &cfg, &err), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.cases.size(), 3);
	CU_ASSERT_EQUAL(cfg.cases[0].type, PERF_TYPE_CPU);
	CU_ASSERT_FALSE(cfg.cases[0].fill);
	CU_ASSERT_EQUAL(cfg.cases[0].src_sge, 4);
	CU_ASSERT_EQUAL(cfg.cases[0].dst_sge, 3);
	CU_ASSERT_EQUAL(cfg.cases[1].type, PERF_TYPE_DMA);
	CU_ASSERT_TRUE(cfg.cases[1].fill);
	CU_ASSERT_EQUAL(cfg.cases[2].type, PERF_TYPE_CPU);
	CU_ASSERT_TRUE(cfg.cases[2].fill);
}

void test_ranges(void)
{
	perf_range r;
	std::string why;
	std::vector<uint32_t> v;

	CU_ASSERT_EQUAL(perf_range_parse("64", &r, &why), 0);
	CU_ASSERT(values(r) == std::vector<uint32_t>({64}));
	CU_ASSERT_EQUAL(perf_range_parse(" 64 , 4096 , 4 , MUL ", &r, &why), 0);
	CU_ASSERT(values(r) == std::vector<uint32_t>({64, 256, 1024, 4096}));
	CU_ASSERT_EQUAL(perf_range_parse("64,5000,4,MUL", &r, &why), 0);
	CU_ASSERT(values(r) == std::vector<uint32_t>({64, 256, 1024, 4096}));
	CU_ASSERT_EQUAL(perf_range_parse("1,10,3,ADD", &r, &why), 0);
	CU_ASSERT(values(r) == std::vector<uint32_t>({1, 4, 7, 10}));
	CU_ASSERT_EQUAL(perf_range_parse("0x40", &r, &why), 0);
	CU_ASSERT_EQUAL(r.first, 64);
	/* Values near UINT32_MAX must not wrap around. */
	CU_ASSERT_EQUAL(perf_range_parse("2147483648,4294967295,2,MUL", &r, &why), 0);
	CU_ASSERT(values(r) == std::vector<uint32_t>({2147483648u}));
	for (const char *bad : {"", "abc", "-1", "1.5", "64k", "4294967296", "1,10,0,ADD",
				"4,1,1,ADD", "1,10,1,XOR", "1,2,3", "1,2,3,ADD,5", "64,4096,1,MUL",
				"0,64,2,MUL", "1,100000,1,ADD", "a,2,1,ADD"}) {
		int ret = perf_range_parse(bad, &r, &why);

		CU_ASSERT_EQUAL(ret, -EINVAL);
		CU_ASSERT_FALSE(why.empty());
		if (ret != -EINVAL)
			fprintf(stderr, "\n  '%s' accepted\n", bad);
	}
	r = {1, 2, 0, false};
	CU_ASSERT_EQUAL(perf_range_values(&r, &v), -EINVAL);
	r = {1, 1000, 1, false};
	CU_ASSERT_EQUAL(perf_range_values(&r, &v), -E2BIG);
	CU_ASSERT_EQUAL(perf_nr_buf(10, 64, 1), 81920);
	CU_ASSERT_EQUAL(perf_nr_buf(10, 64, 2), 40960);
	CU_ASSERT_EQUAL(perf_nr_buf(1, 1 << 20, 1), 0);
	CU_ASSERT_EQUAL(perf_nr_buf(1, 0, 1), 0);
}

/* A DMA case with one key replaced (or removed with an empty value). */
std::string dma_with(const std::string &key, const std::string &val)
{
	std::string out = global_hdr + std::string("[case1]\n");
	bool seen = false;
	std::string line;

	for (const char *p = dma_case; *p; p++) {
		line += *p;
		if (*p != '\n')
			continue;
		if (line.compare(0, key.size() + 1, key + "=") == 0) {
			seen = true;
			if (!val.empty())
				out += key + "=" + val + "\n";
		} else {
			out += line;
		}
		line.clear();
	}
	if (!seen)
		out += key + "=" + val + "\n";
	return out;
}

/* main_lcore_worker=1 allows a worker on the main lcore (checked after EAL init). */
void test_main_lcore_worker(void)
{
	perf_config cfg;
	std::string err;

	CU_ASSERT_EQUAL_FATAL(load(std::string("[case1]\n") + dma_case, &cfg, &err), 0);
	CU_ASSERT_FALSE(cfg.cases[0].main_lcore_worker);
	CU_ASSERT_EQUAL_FATAL(
		load(std::string("[case1]\n") + dma_case + "main_lcore_worker=1\n", &cfg, &err), 0);
	CU_ASSERT_TRUE(cfg.cases[0].main_lcore_worker);
	CU_ASSERT_EQUAL_FATAL(
		load(std::string("[case1]\n") + dma_case + "main_lcore_worker=0\n", &cfg, &err), 0);
	CU_ASSERT_FALSE(cfg.cases[0].main_lcore_worker);
}

void test_bad_values(void)
{
	expect_bad(dma_with("buf_size", "abc"), {"[case1]", "buf_size=abc", "not a number"});
	expect_bad(dma_with("buf_size", "0"), {"[case1]", "buf_size"});
	expect_bad(dma_with("buf_size", "64,4096,1,MUL"), {"[case1]", "buf_size=64,4096,1,MUL"});
	expect_bad(dma_with("type", "DMA_FILL"), {"[case1]", "type=DMA_FILL"});
	expect_bad(dma_with("type", ""), {"[case1]", "type", "missing"});
	expect_bad(dma_with("kick_batch", ""), {"[case1]", "kick_batch", "missing"});
	expect_bad(dma_with("kick_batch", "0"), {"[case1]", "kick_batch"});
	expect_bad(dma_with("dma_ring_size", "100000"), {"[case1]", "dma_ring_size"});
	expect_bad(dma_with("mem_size", "1,4,1,ADD") + "kick_batch=1,4,1,ADD\n",
		   {"[case1]", "only one variable key"});
	expect_bad(dma_with("lcore_dma0", ""), {"[case1]", "lcore_dma", "missing"});
	expect_bad(dma_with("lcore_dma0", "lcore=1,dev=dma_mlx5,dir=mem2dev"),
		   {"[case1]", "lcore_dma0=lcore=1,dev=dma_mlx5,dir=mem2dev", "mem2dev"});
	expect_bad(dma_with("lcore_dma0", "lcore=x,dev=dma_mlx5"), {"[case1]", "bad lcore"});
	expect_bad(dma_with("lcore_dma0", "lcore=1"), {"[case1]", "dev="});
	expect_bad(dma_with("lcore_dma0", "lcore=1,dev=a,raddr=0x10"), {"[case1]", "raddr"});
	expect_bad(dma_with("lcore_dma0", "lcore1@"), {"[case1]", "lcore_dma0=lcore1@"});
	expect_bad(dma_with("lcore_dma0", "core1@dma_mlx5"), {"[case1]", "core1@dma_mlx5"});
	expect_bad(dma_with("lcore_dma0", "lcore1@a, lcore1@b"), {"[case1]", "lcore used twice"});
	expect_bad(dma_with("lcore", "1"), {"[case1]", "lcore", "CPU_MEM_COPY"});
	expect_bad(dma_with("dma_src_sge", "4"), {"[case1]", "dma_dst_sge", "missing"});
	expect_bad(dma_with("dma_src_sge", "0"), {"[case1]", "dma_src_sge=0"});
	expect_bad(dma_with("use_enq_deq_ops", "1"), {"[case1]", "use_enq_deq_ops=1", "25.11"});
	expect_bad(dma_with("src_numa_node", "-1"), {"[case1]", "src_numa_node=-1"});
	expect_bad(dma_with("mem_size", "1") + "buf_size=1048576\n", {"[case1]", "too small"});
	expect_bad(dma_with("colour", "blue"), {"[case1]", "colour=blue", "unknown key"});
	expect_bad(dma_with("test_seconds", "0"), {"[case1]", "test_seconds=0"});
	expect_bad(dma_with("cache_flush", "2"), {"[case1]", "cache_flush=2"});
	expect_bad(dma_with("skip", "maybe"), {"[case1]", "skip=maybe"});
	expect_bad(dma_with("main_lcore_worker", "yes"), {"[case1]", "main_lcore_worker=yes"});
	expect_bad(std::string("[GLOBAL]\ntest_seconds=abc\n[case1]\n") + dma_case,
		   {"[GLOBAL]", "test_seconds=abc"});
	expect_bad(std::string("[GLOBAL]\nfoo=1\n[case1]\n") + dma_case,
		   {"[GLOBAL]", "foo=1", "unknown key"});
	expect_bad(std::string("[cases]\n") + dma_case, {"[cases]", "unknown section"});
	expect_bad(std::string("[case1]\n") + dma_case + "[case01]\n" + dma_case,
		   {"[case01]", "twice"});
	expect_bad(std::string("[case1]\n") + dma_case + "[case1x]\n", {"[case1x]"});
	/* SG with a fill, CPU case with lcore_dma. */
	expect_bad(std::string("[case1]\ntype=CPU_MEM_FILL\nmem_size=1\nbuf_size=64\nlcore=1\n"
			       "dma_src_sge=2\ndma_dst_sge=2\n"),
		   {"[case1]", "not fills"});
	expect_bad(std::string("[case1]\ntype=DMA_MEM_SET\nmem_size=1\nbuf_size=64\n"),
		   {"[case1]", "type=DMA_MEM_SET", "DMA_MEM_FILL"});
	expect_bad(std::string("[case1]\ntype=CPU_MEM_COPY\nmem_size=1\nbuf_size=64\n"
			       "lcore_dma=lcore1@x\n"),
		   {"[case1]", "lcore_dma"});
	expect_bad(std::string("[case1]\ntype=CPU_MEM_COPY\nmem_size=1\nbuf_size=64\n"
			       "lcore=1,,2\n"),
		   {"[case1]", "lcore=1,,2"});
}

/* All cases share one EAL: differing eal_args are an error; none to run is too. */
void test_bad_structure(void)
{
	perf_config cfg;
	std::string err;

	expect_bad(std::string("[case1]\n") + dma_case + "eal_args=-l 0-1\n[case2]\n" + dma_case +
			   "eal_args=-l 0-2\n",
		   {"[case2]", "eal_args=-l 0-2", "[case1]"});
	expect_bad(std::string("[case1]\nskip=1\n"), {"no case to run"});
	expect_bad("", {"no case to run"});
	/* A skipped case is not parsed, so it may differ. */
	CU_ASSERT_EQUAL(load(std::string("[case1]\n") + dma_case +
				     "eal_args=-l 0-1\n"
				     "[case2]\nskip=1\neal_args=-l 5\nbuf_size=zz\n",
			     &cfg, &err),
			0);
	CU_ASSERT_EQUAL(perf_cfg_load("/nonexistent/dma_perf.ini", &cfg, &err), -ENOENT);
	CU_ASSERT_TRUE(err.find("/nonexistent/dma_perf.ini") != std::string::npos);
	/* Not an ini file at all. */
	CU_ASSERT_EQUAL(load("this is = not\n[broken\n", &cfg, &err), -EINVAL);
	CU_ASSERT_FALSE(err.empty());
}

/* N workers on one dmadev (N lcores, N vchans): the multi-worker case. */
void test_workers_share_dev(void)
{
	perf_config cfg;
	std::string err;
	const std::string text = std::string(global_hdr) +
				 "[case1]\n"
				 "type=DMA_MEM_COPY\n"
				 "mem_size=10\n"
				 "buf_size=64\n"
				 "dma_ring_size=1024\n"
				 "kick_batch=32\n"
				 "lcore_dma0=lcore=1,dev=dma_mlx5,dir=mem2mem\n"
				 "lcore_dma1=lcore=2,dev=dma_mlx5,dir=mem2mem\n"
				 "lcore_dma2=lcore=3,dev=dma_mlx5,dir=mem2mem\n"
				 "[case2]\n"
				 "type=DMA_MEM_COPY\n"
				 "mem_size=10\n"
				 "buf_size=64\n"
				 "dma_ring_size=1024\n"
				 "kick_batch=32\n"
				 "lcore_dma=lcore1@a, lcore2@a\n";

	CU_ASSERT_EQUAL_FATAL(load(text, &cfg, &err), 0);
	CU_ASSERT_EQUAL_FATAL(cfg.cases.size(), 2);
	CU_ASSERT_EQUAL_FATAL(cfg.cases[0].workers.size(), 3);
	for (unsigned i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(cfg.cases[0].workers[i].lcore, i + 1);
		CU_ASSERT_STRING_EQUAL(cfg.cases[0].workers[i].dev.c_str(), "dma_mlx5");
	}
	CU_ASSERT_EQUAL_FATAL(cfg.cases[1].workers.size(), 2);
	CU_ASSERT_STRING_EQUAL(cfg.cases[1].workers[1].dev.c_str(), "a");
	/* an lcore still drives one vchan only */
	expect_bad(dma_with("lcore_dma0", "lcore1@a, lcore1@a"), {"[case1]", "lcore used twice"});
	/* every worker needs a buffer: mem_size is split between them */
	expect_bad(std::string(global_hdr) + "[case1]\ntype=DMA_MEM_COPY\nmem_size=1\n"
					     "buf_size=262144\ndma_ring_size=1024\nkick_batch=32\n"
					     "lcore_dma0=lcore=1,dev=x\nlcore_dma1=lcore=2,dev=x\n"
					     "lcore_dma2=lcore=3,dev=x\n",
		   {"[case1]", "too small"});
}

} /* namespace */

int main(void)
{
	static const struct cunit_test tests[] = {
		{"newest format ([GLOBAL])", test_newest_format},
		{"23.07-25.07 per-case format", test_old_format},
		{"ranges", test_ranges},
		{"SG and fill cases", test_sg_and_fill},
		{"main lcore worker", test_main_lcore_worker},
		{"bad values", test_bad_values},
		{"bad structure", test_bad_structure},
		{"workers sharing a dmadev", test_workers_share_dev},
	};

	return CUNIT_RUN_SUITE("dma_perf_cfg", tests);
}
