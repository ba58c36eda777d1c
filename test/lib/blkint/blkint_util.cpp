/* SPDX-License-Identifier: BSD-3-Clause */
#include "blkint_util.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_common.h>

namespace util {

const uint32_t block_sizes[5] = {512, 520, 4048, 4096, 4160};

std::vector<struct rte_blkint_format> formats(uint32_t bs)
{
	std::vector<struct rte_blkint_format> v;
	struct rte_blkint_format f = {};

	f.block_size = bs;
	f.type = RTE_BLKINT_PI_T10DIF;
	f.guard = RTE_BLKINT_GUARD_CRC16;
	f.app_tag = 0x1234;
	f.flags = RTE_BLKINT_F_REF_INC;
	v.push_back(f);
	f.guard = RTE_BLKINT_GUARD_IPCSUM;
	f.guard_seed = 0xffff;
	f.app_tag = 0xbeef;
	f.flags = 0;
	v.push_back(f);
	f = {};
	f.block_size = bs;
	for (auto t : {RTE_BLKINT_PI_CRC32, RTE_BLKINT_PI_CRC32C, RTE_BLKINT_PI_CRC64}) {
		f.type = t;
		f.crc_seed = 0;
		v.push_back(f);
		f.crc_seed = t == RTE_BLKINT_PI_CRC64 ? ~0ull : 0xffffffffu;
		v.push_back(f);
	}
	return v;
}

const char *fmt_name(const struct rte_blkint_format &f)
{
	static char buf[64];
	static const char *const names[] = {"none", "t10dif", "crc32", "crc32c", "crc64"};

	snprintf(buf, sizeof(buf), "%s/%u/%s/seed%s", names[f.type], f.block_size,
		 f.type == RTE_BLKINT_PI_T10DIF ? (f.guard ? "ipcs" : "crc16") : "-",
		 (f.crc_seed || f.guard_seed) ? "1" : "0");
	return buf;
}

std::vector<uint8_t> random_data(size_t n, uint32_t seed)
{
	std::vector<uint8_t> v(n);
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;

	for (auto &b : v) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b = (uint8_t)(x >> 24);
	}
	return v;
}

struct rte_blkint_ctx *ctx_conf(struct rte_blkint_conf conf)
{
	static int seq;
	char name[32];

	snprintf(name, sizeof(name), "t%d", seq++);
	if (!conf.name)
		conf.name = name;
	return rte_blkint_create(&conf);
}

struct rte_blkint_ctx *ctx_cpu(void)
{
	struct rte_blkint_conf conf = {};

	conf.dev_id = -1;
	return ctx_conf(conf);
}

bool run(struct rte_blkint_ctx *ctx, const struct rte_blkint_op &op, struct rte_blkint_result *r)
{
	if (rte_blkint_enqueue(ctx, &op, 1) != 1)
		return false;
	for (int spin = 0; spin < 10000000; spin++)
		if (rte_blkint_dequeue(ctx, r, 1) == 1)
			return true;
	return false;
}

namespace {

void free_hung(int)
{
	static const char msg[] = "\nrte_blkint_free() did not return within 10 s: hung\n";

	if (write(2, msg, sizeof(msg) - 1) < 0) {
		/* nothing else to do in a signal handler */
	}
	_exit(1);
}

uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

} // namespace

uint64_t free_bounded(struct rte_blkint_ctx *ctx)
{
	struct sigaction sa, old;
	uint64_t t0 = now_ms();

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = free_hung;
	sigaction(SIGALRM, &sa, &old);
	alarm(10);
	rte_blkint_free(ctx);
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
	return now_ms() - t0;
}

} // namespace util
