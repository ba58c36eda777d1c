/* SPDX-License-Identifier: BSD-3-Clause */
/* dma-perf worker loops: upstream's DMA loop, with one rdtsc pair around each kick, and
 * the rte_memcpy loop. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <vector>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_dmadev.h>
#include <rte_memcpy.h>

#include "perf_worker.h"

namespace {

constexpr uint16_t COMPLETE_BURST = 64;

inline uint64_t span(uint64_t t0, uint64_t t1, uint64_t overhead)
{
	uint64_t d = t1 - t0;

	return d > overhead ? d - overhead : 0;
}

/* Segments of @p sge near-equal pieces of one buffer; the last takes the remainder. */
void split_sge(uint64_t iova, uint32_t len, uint32_t sge, struct rte_dma_sge *out)
{
	uint32_t piece = len / sge;

	for (uint32_t k = 0; k < sge; k++) {
		out[k].addr = iova + (uint64_t)k * piece;
		out[k].length = k + 1 == sge ? len - piece * (sge - 1) : piece;
	}
}

struct sg_tables {
	std::vector<struct rte_dma_sge> src, dst;
};

inline int enqueue(const perf_worker *w, uint64_t b, sg_tables *sg)
{
	const uint64_t off = b * w->buf_size;

	if (w->fill)
		return rte_dma_fill(w->dev_id, w->vchan, PERF_FILL_PATTERN, w->dst_iova + off,
				    w->buf_size, 0);
	if (likely(!w->src_sge))
		return rte_dma_copy(w->dev_id, w->vchan, w->src_iova + off, w->dst_iova + off,
				    w->buf_size, 0);
	split_sge(w->src_iova + off, w->buf_size, w->src_sge, sg->src.data());
	split_sge(w->dst_iova + off, w->buf_size, w->dst_sge, sg->dst.data());
	return rte_dma_copy_sg(w->dev_id, w->vchan, sg->src.data(), sg->dst.data(),
			       (uint16_t)w->src_sge, (uint16_t)w->dst_sge, 0);
}

/* A completion reported an error: fetch its status code and stop. */
void fail_op(perf_worker *w)
{
	enum rte_dma_status_code st = RTE_DMA_STATUS_SUCCESSFUL;
	uint16_t last = 0;
	char m[96];

	rte_dma_completed_status(w->dev_id, w->vchan, 1, &last, &st);
	snprintf(m, sizeof(m), "%s: op at ring index %u failed with status %d", w->dev_name.c_str(),
		 last, (int)st);
	w->status = -EIO;
	w->status_msg = m;
}

void publish(perf_worker *w, uint64_t done, uint64_t drv, uint64_t idle)
{
	__atomic_store_n(&w->ops, done, __ATOMIC_RELAXED);
	__atomic_store_n(&w->drv_cycles, drv, __ATOMIC_RELAXED);
	__atomic_store_n(&w->idle_cycles, idle, __ATOMIC_RELAXED);
}

/* After stop: wait for every enqueued op so the buffers can be verified. */
void drain(perf_worker *w, uint64_t enq, uint64_t done)
{
	const uint64_t deadline = rte_rdtsc() + w->drain_cycles;
	uint16_t last;
	bool err = false;

	rte_dma_submit(w->dev_id, w->vchan);
	while (done < enq && !err && rte_rdtsc() < deadline)
		done += rte_dma_completed(w->dev_id, w->vchan, COMPLETE_BURST, &last, &err);
	if (err) {
		fail_op(w);
	} else if (done < enq) {
		w->status = -ETIMEDOUT;
		w->status_msg = w->dev_name + ": " + std::to_string(enq - done) +
				" ops still outstanding after the drain timeout";
	}
}

int dma_loop(perf_worker *w)
{
	const uint64_t ovh = w->tsc_overhead;
	uint64_t enq = 0, done = 0, drv = 0, idle = 0, b = 0;
	sg_tables sg;

	sg.src.resize(w->src_sge);
	sg.dst.resize(w->dst_sge);
	while (!__atomic_load_n(&w->stop, __ATOMIC_RELAXED)) {
		/*
		 * One kick: up to kick_batch enqueues (fewer when the ring is full), the
		 * submit and one completion poll, timed as one span: an rdtsc pair around
		 * each enqueue cost the data path about as much as the enqueue itself.
		 */
		uint64_t t0 = rte_rdtsc(), t1;
		uint32_t k = 0;
		uint16_t n, last;
		bool err = false;
		int ret = 0;

		for (; k < w->kick_batch; k++) {
			ret = enqueue(w, b, &sg);
			if (unlikely(ret < 0))
				break;
			if (unlikely(++b == w->nr_buf)) {
				b = 0;
				w->passes++;
			}
		}
		enq += k;
		if (unlikely(ret < 0 && ret != -ENOSPC)) {
			w->status = ret;
			w->status_msg = w->dev_name +
					(w->fill ? ": rte_dma_fill: " : ": rte_dma_copy: ") +
					strerror(-ret);
			break;
		}
		rte_dma_submit(w->dev_id, w->vchan);
		n = rte_dma_completed(w->dev_id, w->vchan, COMPLETE_BURST, &last, &err);
		t1 = rte_rdtsc();
		/* a kick that enqueued nothing and completed nothing waited */
		if (k || n)
			drv += span(t0, t1, ovh);
		else
			idle += span(t0, t1, ovh);
		done += n;
		publish(w, done, drv, idle);
		if (unlikely(err)) {
			fail_op(w);
			break;
		}
	}
	w->next_buf = b;
	if (!w->status)
		drain(w, enq, done);
	return w->status;
}

/* The CPU's gather: rte_memcpy of each piece between the merged segment boundaries
 * of the same segments the DMA case hands to rte_dma_copy_sg. */
void cpu_gather(const perf_worker *w, uint8_t *dst, const uint8_t *src, sg_tables *sg)
{
	split_sge((uintptr_t)src, w->buf_size, w->src_sge, sg->src.data());
	split_sge((uintptr_t)dst, w->buf_size, w->dst_sge, sg->dst.data());
	uint32_t i = 0, j = 0, so = 0, dof = 0;

	for (uint32_t done = 0; done < w->buf_size;) {
		uint32_t n = RTE_MIN(sg->src[i].length - so, sg->dst[j].length - dof);

		rte_memcpy((void *)(uintptr_t)(sg->dst[j].addr + dof),
			   (const void *)(uintptr_t)(sg->src[i].addr + so), n);
		so += n;
		dof += n;
		done += n;
		if (so == sg->src[i].length) {
			i++;
			so = 0;
		}
		if (dof == sg->dst[j].length) {
			j++;
			dof = 0;
		}
	}
}

/* The CPU's fill: what memset does, with an 8-byte pattern. */
void cpu_fill(uint8_t *dst, uint32_t len, uint64_t pattern)
{
	uint32_t i = 0;

	for (; i + 8 <= len; i += 8)
		memcpy(dst + i, &pattern, 8);
	for (; i < len; i++)
		dst[i] = ((const uint8_t *)&pattern)[i % 8];
}

/* CPU_MEM_COPY (or its gather, or CPU_MEM_FILL); timed per 64 ops, which is all the
 * loop does. */
int cpu_loop(perf_worker *w)
{
	const uint32_t len = w->buf_size;
	uint64_t done = 0, cyc = 0, b = 0;
	sg_tables sg;

	sg.src.resize(w->src_sge);
	sg.dst.resize(w->dst_sge);
	while (!__atomic_load_n(&w->stop, __ATOMIC_RELAXED)) {
		uint64_t t0 = rte_rdtsc();

		for (int k = 0; k < 64; k++) {
			if (w->fill)
				cpu_fill(w->dst + b * len, len, PERF_FILL_PATTERN);
			else if (w->src_sge)
				cpu_gather(w, w->dst + b * len, w->src + b * len, &sg);
			else
				rte_memcpy(w->dst + b * len, w->src + b * len, len);
			if (++b == w->nr_buf) {
				b = 0;
				w->passes++;
			}
		}
		cyc += span(t0, rte_rdtsc(), w->tsc_overhead);
		done += 64;
		publish(w, done, cyc, 0);
	}
	w->next_buf = b;
	return 0;
}

} /* namespace */

int perf_worker_main(void *arg)
{
	perf_worker *w = (perf_worker *)arg;

	return w->type == PERF_TYPE_DMA ? dma_loop(w) : cpu_loop(w);
}
