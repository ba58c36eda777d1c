/* SPDX-License-Identifier: BSD-3-Clause */
/* dma-perf: one scenario, from device setup to byte-by-byte verification. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <memory>
#include <thread>
#include <vector>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_dmadev.h>
#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_memcpy.h>

#include "perf_bench.h"
#include "perf_worker.h"
#include "rte_pmd_dma_mlx5.h"

namespace {

constexpr unsigned int WARMUP_MS = 100;
constexpr double DRAIN_SECONDS = 5.0;

uint64_t tsc_overhead;

std::string errstr(int err)
{
	return std::string(strerror(err < 0 ? -err : err));
}

/* Fill @p n bytes with a sequence unique to (salt, offset) so a stale or misplaced copy
 * never matches. */
void fill_pattern(uint8_t *p, size_t n, uint64_t salt)
{
	uint64_t x = salt * 0x9e3779b97f4a7c15ull;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		x ^= x >> 29;
		x *= 0xbf58476d1ce4e5b9ull;
		x += i;
		memcpy(p + i, &x, 8);
	}
	for (; i < n; i++)
		p[i] = (uint8_t)(x >> (8 * (i & 7))) ^ 0x5a;
}

void flush_cache(const uint8_t *p, size_t n)
{
#ifdef RTE_ARCH_X86
	for (size_t i = 0; i < n; i += RTE_CACHE_LINE_SIZE)
		__builtin_ia32_clflush(p + i);
	__builtin_ia32_mfence();
#else
	RTE_SET_USED(p);
	RTE_SET_USED(n);
#endif
}

/*
 * Device setup by the first worker on it: one MEM_TO_MEM vchan of ring_size
 * descriptors per worker on the device (w->nb_vchans).
 */
int setup_dev(const perf_scenario *s, perf_worker *w, std::string *err)
{
	const perf_case *pc = s->pc;
	struct rte_dma_conf conf = {};
	struct rte_dma_vchan_conf vconf = {};
	struct rte_pmd_dma_mlx5_caps caps;
	struct rte_dma_info info;
	uint32_t sge = RTE_MAX(pc->src_sge, pc->dst_sge);
	int ret;

	w->dev_id = (int16_t)rte_dma_get_dev_id_by_name(w->dev_name.c_str());
	if (w->dev_id < 0) {
		*err = "dmadev '" + w->dev_name +
		       "' not found (see --list-dma; add a --vdev "
		       "to eal_args)";
		return -ENODEV;
	}
	ret = rte_dma_info_get(w->dev_id, &info);
	if (ret) {
		*err = w->dev_name + ": rte_dma_info_get: " + errstr(ret);
		return ret;
	}
	if (sge && (!(info.dev_capa & RTE_DMA_CAPA_OPS_COPY_SG) || info.max_sges < sge)) {
		*err = w->dev_name + ": scatter-gather needs " + std::to_string(sge) +
		       " segments, the device has max_sges " + std::to_string(info.max_sges) +
		       (info.dev_capa & RTE_DMA_CAPA_OPS_COPY_SG ? "" : " and no COPY_SG");
		return -ENOTSUP;
	}
	if (pc->fill && !(info.dev_capa & RTE_DMA_CAPA_OPS_FILL)) {
		*err = w->dev_name + ": no fill (RTE_DMA_CAPA_OPS_FILL)";
		return -ENOTSUP;
	}
	if (s->ring_size < info.min_desc || s->ring_size > info.max_desc) {
		*err = w->dev_name + ": dma_ring_size " + std::to_string(s->ring_size) +
		       " outside the device's " + std::to_string(info.min_desc) + ".." +
		       std::to_string(info.max_desc);
		return -EINVAL;
	}
	if (rte_pmd_dma_mlx5_get_caps(w->dev_id, &caps) == 0 &&
	    s->buf_size / RTE_MAX(sge, 1u) > caps.max_wr_memcpy_length) {
		*err = w->dev_name + ": buf_size " + std::to_string(s->buf_size) +
		       " above max_wr_memcpy_length " + std::to_string(caps.max_wr_memcpy_length);
		return -EINVAL;
	}
	if (w->nb_vchans > info.max_vchans) {
		*err = w->dev_name + ": " + std::to_string(w->nb_vchans) +
		       " workers need as many vchans, the device has max_vchans " +
		       std::to_string(info.max_vchans);
		return -ENOTSUP;
	}
	w->sva = info.dev_capa & RTE_DMA_CAPA_SVA;
	conf.nb_vchans = w->nb_vchans;
	vconf.direction = RTE_DMA_DIR_MEM_TO_MEM;
	vconf.nb_desc = (uint16_t)s->ring_size;
	ret = rte_dma_configure(w->dev_id, &conf);
	for (uint16_t v = 0; ret == 0 && v < w->nb_vchans; v++)
		ret = rte_dma_vchan_setup(w->dev_id, v, &vconf);
	if (ret || (ret = rte_dma_start(w->dev_id))) {
		*err = w->dev_name + ": configure/vchan_setup/start (" +
		       std::to_string(w->nb_vchans) + " vchan(s), ring " +
		       std::to_string(s->ring_size) + "): " + errstr(ret);
		return ret;
	}
	w->started = true;
	return 0;
}

/* IOVA of rte_malloc memory: the VA when the device or the EAL work on VAs. */
int buf_iova(const perf_worker *w, void *p, rte_iova_t *iova)
{
	if (w->type == PERF_TYPE_CPU || w->sva || rte_eal_iova_mode() == RTE_IOVA_VA) {
		*iova = (rte_iova_t)(uintptr_t)p;
		return 0;
	}
	*iova = rte_malloc_virt2iova(p);
	return *iova == RTE_BAD_IOVA ? -EFAULT : 0;
}

int setup_buffers(const perf_scenario *s, perf_worker *w, uint64_t salt, std::string *err)
{
	const perf_case *pc = s->pc;
	size_t bytes = (size_t)w->nr_buf * s->buf_size;

	w->src = (uint8_t *)rte_malloc_socket("dma_perf_src", bytes, 4096, pc->src_numa);
	w->dst = (uint8_t *)rte_malloc_socket("dma_perf_dst", bytes, 4096, pc->dst_numa);
	if (!w->src || !w->dst) {
		*err = "cannot allocate 2 x " + std::to_string(bytes >> 10) +
		       " KiB on NUMA nodes " + std::to_string(pc->src_numa) + "/" +
		       std::to_string(pc->dst_numa) + " (raise -m in eal_args?)";
		return -ENOMEM;
	}
	if (buf_iova(w, w->src, &w->src_iova) || buf_iova(w, w->dst, &w->dst_iova)) {
		*err = "no IOVA for the buffers (IOVA mode PA and the device has no SVA)";
		return -EFAULT;
	}
	fill_pattern(w->src, bytes, salt);
	memset(w->dst, 0, bytes);
	if (pc->cache_flush) {
		flush_cache(w->src, bytes);
		flush_cache(w->dst, bytes);
	}
	return 0;
}

void teardown(perf_worker *w)
{
	if (w->started)
		rte_dma_stop(w->dev_id);
	w->started = false;
	rte_free(w->src);
	rte_free(w->dst);
	w->src = w->dst = nullptr;
}

/* Every byte of every buffer the worker copied must equal its source (its pattern). */
int verify(const perf_scenario *s, const perf_worker *w, std::string *err)
{
	uint64_t n = w->passes ? w->nr_buf : w->next_buf;
	std::vector<uint8_t> pat(w->fill ? s->buf_size : 0);

	for (uint32_t i = 0; i < pat.size(); i++)
		pat[i] = (uint8_t)(PERF_FILL_PATTERN >> (8 * (i % 8)));
	for (uint64_t b = 0; b < n; b++) {
		const uint8_t *src = w->fill ? pat.data() : w->src + b * s->buf_size;
		const uint8_t *dst = w->dst + b * s->buf_size;

		if (memcmp(src, dst, s->buf_size) == 0)
			continue;
		for (uint32_t i = 0; i < s->buf_size; i++)
			if (src[i] != dst[i]) {
				char m[160];

				snprintf(m, sizeof(m),
					 "VERIFY FAILED on lcore %u: buffer %" PRIu64 " of %" PRIu64
					 ", byte %u: got 0x%02x, expected 0x%02x",
					 w->lcore, b, n, i, dst[i], src[i]);
				*err = m;
				return -EIO;
			}
	}
	if (n == 0) {
		*err = "worker on lcore " + std::to_string(w->lcore) + " copied nothing";
		return -EIO;
	}
	return 0;
}

struct snapshot {
	uint64_t ops, drv, idle;
};

snapshot snap(const perf_worker *w)
{
	return {__atomic_load_n(&w->ops, __ATOMIC_RELAXED),
		__atomic_load_n(&w->drv_cycles, __ATOMIC_RELAXED),
		__atomic_load_n(&w->idle_cycles, __ATOMIC_RELAXED)};
}

/* Sleep through the window, one progress line per second when asked. */
void measure(const perf_scenario *s, std::vector<std::unique_ptr<perf_worker>> &ws, bool progress,
	     std::vector<snapshot> *begin, std::vector<snapshot> *end, uint64_t *tsc_begin,
	     uint64_t *tsc_end)
{
	const uint64_t hz = rte_get_tsc_hz();

	rte_delay_us_sleep(WARMUP_MS * 1000);
	*tsc_begin = rte_rdtsc();
	for (auto &w : ws)
		begin->push_back(snap(w.get()));
	for (uint32_t sec = 1; sec <= s->pc->test_seconds; sec++) {
		rte_delay_us_sleep(1000000);
		if (!progress || sec == s->pc->test_seconds)
			continue;
		uint64_t ops = 0;

		for (size_t i = 0; i < ws.size(); i++)
			ops += snap(ws[i].get()).ops - (*begin)[i].ops;
		printf("  [case%u.%u] %u/%u s: %.2f Mops so far\n", s->pc->id, s->index, sec,
		       s->pc->test_seconds, ops / ((double)(rte_rdtsc() - *tsc_begin) / hz) / 1e6);
		fflush(stdout);
	}
	for (auto &w : ws)
		end->push_back(snap(w.get()));
	*tsc_end = rte_rdtsc();
}

void fill_result(const perf_scenario *s, std::vector<std::unique_ptr<perf_worker>> &ws,
		 const std::vector<snapshot> &b, const std::vector<snapshot> &e, double secs,
		 perf_result *res)
{
	const double hz = (double)rte_get_tsc_hz();
	uint64_t drv = 0, idle = 0;
	double cyc = 0;

	res->ops = 0;
	for (size_t i = 0; i < ws.size(); i++) {
		uint64_t ops = e[i].ops - b[i].ops;

		res->ops += ops;
		drv += e[i].drv - b[i].drv;
		idle += e[i].idle - b[i].idle;
		cyc += ops ? secs * hz / ops : 0;
	}
	res->secs = secs;
	res->mops = res->ops / secs / 1e6;
	res->gbps = res->ops / secs * s->buf_size * 8 / 1e9;
	res->cycles_per_op = cyc / ws.size();
	res->drv_cycles_per_op = res->ops ? (double)drv / res->ops : 0;
	res->idle_cycles_per_op = res->ops ? (double)idle / res->ops : 0;
}

void describe(const perf_scenario *s, perf_result *res)
{
	const perf_case *pc = s->pc;

	*res = perf_result{};
	res->case_id = pc->id;
	res->scenario = s->index;
	res->type = pc->type;
	res->ring_size = pc->type == PERF_TYPE_DMA ? s->ring_size : 0;
	res->kick_batch = pc->type == PERF_TYPE_DMA ? s->kick_batch : 0;
	res->buf_size = s->buf_size;
	res->mem_mb = s->mem_mb;
	res->nr_buf = perf_nr_buf(s->mem_mb, s->buf_size, pc->workers.size());
	res->workers = (unsigned int)pc->workers.size();
	/* what the op is, in the engine's name: ratios compare like with like */
	res->op = pc->fill ? " fill"
		  : pc->src_sge
			  ? " sg" + std::to_string(pc->src_sge) + "x" + std::to_string(pc->dst_sge)
			  : "";
	for (const perf_worker_cfg &wc : pc->workers) {
		std::string name = pc->type == PERF_TYPE_DMA ? wc.dev
				   : pc->fill                ? "cpu"
							     : "rte_memcpy";

		res->lcores += (res->lcores.empty() ? "" : " ") + std::to_string(wc.lcore);
		res->on_main |= wc.lcore == rte_get_main_lcore();
		if (res->engine.find(name) == std::string::npos)
			res->engine += (res->engine.empty() ? "" : "+") + name;
	}
	res->single = res->engine;
	/* N workers (N vchans of one dmadev, or N dmadevs): "dma_mlx5 x2" */
	if (res->workers > 1)
		res->engine += " x" + std::to_string(res->workers);
	res->base = res->engine;
	res->engine += res->op;
}

int prepare(const perf_scenario *s, std::vector<std::unique_ptr<perf_worker>> &ws, std::string *err)
{
	static uint64_t salt;
	const perf_case *pc = s->pc;
	int ret;

	for (size_t i = 0; i < pc->workers.size(); i++) {
		const perf_worker_cfg &wc = pc->workers[i];
		perf_worker *first = nullptr;
		uint16_t nth = 0, count = 0;

		ws.emplace_back(new perf_worker());
		perf_worker *w = ws.back().get();
		/* workers on one dmadev: one vchan each, the first one sets the device up */
		for (size_t j = 0; pc->type == PERF_TYPE_DMA && j < pc->workers.size(); j++) {
			if (pc->workers[j].dev != wc.dev)
				continue;
			if (j < i) {
				first = first ? first : ws[j].get();
				nth++;
			}
			count++;
		}
		w->vchan = nth;
		w->nb_vchans = count ? count : 1;

		w->type = pc->type;
		w->lcore = wc.lcore;
		w->dev_name = wc.dev;
		w->buf_size = s->buf_size;
		w->kick_batch = s->kick_batch;
		w->src_sge = pc->src_sge;
		w->dst_sge = pc->dst_sge;
		w->fill = pc->fill;
		w->nr_buf = perf_nr_buf(s->mem_mb, s->buf_size, pc->workers.size());
		w->tsc_overhead = tsc_overhead;
		w->drain_cycles = (uint64_t)(DRAIN_SECONDS * rte_get_tsc_hz());
		if (first) {
			w->dev_id = first->dev_id;
			w->sva = first->sva;
		} else if (pc->type == PERF_TYPE_DMA && (ret = setup_dev(s, w, err))) {
			return ret;
		}
		if ((ret = setup_buffers(s, w, ++salt, err)))
			return ret;
	}
	return 0;
}

/* Launch, measure, stop, join; then drain errors and verification. */
int execute(const perf_scenario *s, std::vector<std::unique_ptr<perf_worker>> &ws, bool progress,
	    perf_result *res)
{
	std::vector<snapshot> b, e;
	perf_worker *on_main = nullptr;
	uint64_t t0, t1;
	int ret = 0;

	for (auto &w : ws) {
		if (w->lcore == rte_get_main_lcore()) {
			on_main = w.get(); /* runs below, on this thread */
			continue;
		}
		ret = rte_eal_remote_launch(perf_worker_main, w.get(), w->lcore);
		if (ret) {
			res->error = "lcore " + std::to_string(w->lcore) + " busy: " + errstr(ret);
			for (auto &x : ws)
				__atomic_store_n(&x->stop, 1, __ATOMIC_RELAXED);
			rte_eal_mp_wait_lcore();
			return ret;
		}
	}
	auto timer = [&] {
		measure(s, ws, progress, &b, &e, &t0, &t1);
		for (auto &w : ws)
			__atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
	};
	if (on_main) {
		/* a plain program's placement: the data path on the main lcore, the timer
		 * (asleep but for a few snapshots) in a thread of its own */
		std::thread t(timer);

		perf_worker_main(on_main);
		t.join();
	} else {
		timer();
	}
	rte_eal_mp_wait_lcore();
	fill_result(s, ws, b, e, (double)(t1 - t0) / rte_get_tsc_hz(), res);
	for (auto &w : ws) {
		if (w->status) {
			res->error = "lcore " + std::to_string(w->lcore) + ": " + w->status_msg;
			return w->status;
		}
		if ((ret = verify(s, w.get(), &res->error)))
			return ret;
	}
	return 0;
}

/* Device named by a worker exists and can do what the case asks (before any run). */
int preflight_dev(const perf_case &pc, const perf_worker_cfg &w, std::string *err)
{
	uint32_t sge = RTE_MAX(pc.src_sge, pc.dst_sge);
	int id = rte_dma_get_dev_id_by_name(w.dev.c_str());
	struct rte_dma_info info = {};

	if (id < 0) {
		*err = "[" + pc.section + "] lcore_dma dev=" + w.dev +
		       ": no such dmadev (see "
		       "--list-dma; add a --vdev to eal_args)";
		return -ENODEV;
	}
	if (sge && (rte_dma_info_get(id, &info) || info.max_sges < sge ||
		    !(info.dev_capa & RTE_DMA_CAPA_OPS_COPY_SG))) {
		*err = "[" + pc.section + "] dma_src_sge/dma_dst_sge: " + w.dev +
		       " cannot do scatter-gather of " + std::to_string(sge) +
		       " segments (max_sges " + std::to_string(info.max_sges) + ")";
		return -ENOTSUP;
	}
	return 0;
}

} /* namespace */

void perf_bench_calibrate(void)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 10000; i++) {
		uint64_t t0 = rte_rdtsc();
		uint64_t t1 = rte_rdtsc();

		best = RTE_MIN(best, t1 - t0);
	}
	tsc_overhead = best;
}

uint64_t perf_bench_tsc_overhead(void)
{
	return tsc_overhead;
}

int perf_bench_run(const struct perf_scenario *s, bool progress, struct perf_result *res)
{
	std::vector<std::unique_ptr<perf_worker>> ws;
	int ret;

	describe(s, res);
	ret = prepare(s, ws, &res->error);
	if (!ret)
		ret = execute(s, ws, progress, res);
	for (auto &w : ws)
		teardown(w.get());
	res->ok = ret == 0;
	return ret;
}

int perf_bench_check_lcores(const struct perf_config *cfg, std::string *err)
{
	for (const perf_case &pc : cfg->cases) {
		if (pc.skip)
			continue;
		for (const perf_worker_cfg &w : pc.workers) {
			if (w.lcore >= RTE_MAX_LCORE || !rte_lcore_is_enabled(w.lcore)) {
				*err = "[" + pc.section + "] lcore " + std::to_string(w.lcore) +
				       " is not enabled by eal_args (-l/-c)";
				return -EINVAL;
			}
			if (w.lcore == rte_get_main_lcore() && !pc.main_lcore_worker) {
				*err = "[" + pc.section + "] lcore " + std::to_string(w.lcore) +
				       " is the main lcore: set main_lcore_worker=1 to run a "
				       "worker there";
				return -EINVAL;
			}
			if (pc.type == PERF_TYPE_DMA && preflight_dev(pc, w, err))
				return -EINVAL;
		}
	}
	return 0;
}

void perf_bench_list_dma(void)
{
	static const struct {
		uint64_t bit;
		const char *name;
	} capa[] = {
		{RTE_DMA_CAPA_MEM_TO_MEM, "mem2mem"},
		{RTE_DMA_CAPA_MEM_TO_DEV, "mem2dev"},
		{RTE_DMA_CAPA_DEV_TO_MEM, "dev2mem"},
		{RTE_DMA_CAPA_DEV_TO_DEV, "dev2dev"},
		{RTE_DMA_CAPA_SVA, "sva"},
		{RTE_DMA_CAPA_SILENT, "silent"},
		{RTE_DMA_CAPA_HANDLES_ERRORS, "handles_errors"},
		{RTE_DMA_CAPA_OPS_COPY, "copy"},
		{RTE_DMA_CAPA_OPS_COPY_SG, "copy_sg"},
		{RTE_DMA_CAPA_OPS_FILL, "fill"},
	};
	int16_t id;

	printf("%-4s %-24s %-6s %-8s %-9s %-9s %s\n", "id", "name", "numa", "max_sges", "min_desc",
	       "max_desc", "capabilities");
	RTE_DMA_FOREACH_DEV (id) {
		struct rte_dma_info info;
		std::string caps;

		if (rte_dma_info_get(id, &info))
			continue;
		for (const auto &c : capa)
			if (info.dev_capa & c.bit)
				caps += (caps.empty() ? "" : ",") + std::string(c.name);
		printf("%-4d %-24s %-6d %-8u %-9u %-9u %s\n", id, info.dev_name, info.numa_node,
		       info.max_sges, info.min_desc, info.max_desc, caps.c_str());
	}
	if (rte_dma_count_avail() == 0)
		printf("(no dmadev: add --vdev=dma_mlx5,dev=sim1 or --vdev=dma_skeleton to "
		       "eal_args)\n");
}
