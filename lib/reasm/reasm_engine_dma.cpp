/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The dmadev engine: a gather is one rte_dma_copy_sg on devices with COPY_SG, else one
 * rte_dma_copy per contiguous piece with the gather's cookie on the last one (a vchan
 * completes in order, so the last completion closes the gather). On a dmadev whose
 * driver has an engine module (rte_reasm_driver.h, reasm_dev.cpp) the module's path is
 * tried first.
 */
#include <errno.h>
#include <new>

#include <rte_dmadev.h>
#include <rte_errno.h>

#include "reasm_engine_dma.h"
#include "reasm_log.h"
#include "rte_reasm.h"

namespace reasm_dma {

int dma_engine::gather(const struct rte_reasm_dev_gather *g, uint32_t cookie)
{
	return sg ? gather_sg(g, cookie) : gather_copies(g, cookie);
}

int dma_engine::gather_sg(const struct rte_reasm_dev_gather *g, uint32_t cookie)
{
	int idx;

	if (g->nb_src > sges || g->nb_dst > sges)
		return -E2BIG;
	for (uint16_t i = 0; i < g->nb_src; i++)
		src[i] = {g->src[i].iova, g->src[i].len};
	for (uint16_t i = 0; i < g->nb_dst; i++)
		dst[i] = {g->dst[i].iova, g->dst[i].len};
	idx = rte_dma_copy_sg(dev, vchan, src, dst, g->nb_src, g->nb_dst, 0);
	if (idx < 0)
		return idx;
	cookies[idx] = cookie;
	return REASM_GATHER_QUEUED;
}

/* The pieces both lists agree on: a copy never crosses a src or a dst boundary. */
namespace {
uint32_t count_copies(const struct rte_reasm_dev_gather *g)
{
	uint32_t n = 0, soff = 0, doff = 0;
	uint16_t si = 0, di = 0;

	while (si < g->nb_src && di < g->nb_dst) {
		uint32_t len = RTE_MIN(g->src[si].len - soff, g->dst[di].len - doff);

		n++;
		soff += len;
		doff += len;
		if (soff == g->src[si].len) {
			si++;
			soff = 0;
		}
		if (doff == g->dst[di].len) {
			di++;
			doff = 0;
		}
	}
	return n;
}

} // namespace

int dma_engine::gather_copies(const struct rte_reasm_dev_gather *g, uint32_t cookie)
{
	uint32_t ncopies = count_copies(g), done = 0, soff = 0, doff = 0;
	uint16_t si = 0, di = 0, last = 0;

	if (ncopies == 0)
		return -EINVAL;
	/* All or nothing: a gather never half-queued. */
	if (rte_dma_burst_capacity(dev, vchan) < ncopies)
		return -ENOSPC;
	while (si < g->nb_src && di < g->nb_dst) {
		uint32_t len = RTE_MIN(g->src[si].len - soff, g->dst[di].len - doff);
		int idx = rte_dma_copy(dev, vchan, g->src[si].iova + soff, g->dst[di].iova + doff,
				       len, 0);

		if (idx < 0) { /* capacity was checked: the device broke its own promise */
			if (!done)
				return idx;
			/* Copies already queued write into the output: it may be released only
			 * after them, so the last one carries the gather, marked failed. */
			cookies[last] = cookie | cookie_failed;
			return REASM_GATHER_QUEUED;
		}
		last = (uint16_t)idx;
		cookies[idx] = ++done == ncopies ? cookie : no_cookie;
		soff += len;
		doff += len;
		if (soff == g->src[si].len) {
			si++;
			soff = 0;
		}
		if (doff == g->dst[di].len) {
			di++;
			doff = 0;
		}
	}
	return REASM_GATHER_QUEUED;
}

uint16_t dma_engine::poll(uint32_t *out, bool *ok, uint16_t n)
{
	enum rte_dma_status_code st[poll_batch];
	uint16_t got = 0;

	while (got < n) {
		uint16_t last = 0;
		uint16_t want = RTE_MIN((uint16_t)(n - got), poll_batch);
		uint16_t c = rte_dma_completed_status(dev, vchan, want, &last, st);

		for (uint16_t i = 0; i < c; i++) {
			uint16_t idx = (uint16_t)(last - (c - 1 - i));
			uint32_t ck = cookies[idx];

			cookies[idx] = no_cookie; /* a module's ops set none: no stale cookie */
			failed_since_cookie |= st[i] != RTE_DMA_STATUS_SUCCESSFUL;
			if (ck == no_cookie)
				continue;
			if (ck == cookie_orphan) { /* a refused gather's ops: nobody to tell */
				failed_since_cookie = false;
				continue;
			}
			out[got] = ck & ~cookie_failed;
			ok[got] = !failed_since_cookie && !(ck & cookie_failed);
			failed_since_cookie = false;
			got++;
		}
		if (path && c)
			mod->completed(path, last, c);
		if (c < want)
			break;
	}
	return got;
}

} // namespace reasm_dma

using reasm_dma::dma_engine;

struct rte_reasm_engine *rte_reasm_engine_dma_create(int16_t dev_id, uint16_t vchan,
						     enum rte_reasm_dma_mode mode)
{
	struct rte_dma_info info;
	dma_engine *e;
	bool has_sg;

	if (!rte_dma_is_valid(dev_id) || rte_dma_info_get(dev_id, &info) != 0) {
		REASM_LOG(ERR, "dmadev %d: no such device", dev_id);
		rte_errno = EINVAL;
		return NULL;
	}
	if (vchan >= info.nb_vchans) {
		REASM_LOG(ERR, "dmadev %s: vchan %u not configured (%u vchans)", info.dev_name,
			  vchan, info.nb_vchans);
		rte_errno = EINVAL;
		return NULL;
	}
	if (mode > RTE_REASM_DMA_UMR) {
		REASM_LOG(ERR, "dma mode %d unknown", (int)mode);
		rte_errno = EINVAL;
		return NULL;
	}
	if (!(info.dev_capa & RTE_DMA_CAPA_MEM_TO_MEM) ||
	    !(info.dev_capa & RTE_DMA_CAPA_OPS_COPY)) {
		REASM_LOG(ERR, "dmadev %s: no mem-to-mem copy", info.dev_name);
		rte_errno = ENOTSUP;
		return NULL;
	}
	has_sg = (info.dev_capa & RTE_DMA_CAPA_OPS_COPY_SG) && info.max_sges > 0;
	if (mode == RTE_REASM_DMA_SG && !has_sg) {
		REASM_LOG(ERR, "dmadev %s: no RTE_DMA_CAPA_OPS_COPY_SG", info.dev_name);
		rte_errno = ENOTSUP;
		return NULL;
	}
	e = new (std::nothrow) dma_engine();
	if (!e) {
		rte_errno = ENOMEM;
		return NULL;
	}
	e->dev = dev_id;
	e->vchan = vchan;
	e->sg = has_sg && mode != RTE_REASM_DMA_COPY;
	e->sges = (uint16_t)RTE_MIN(info.max_sges, (uint16_t)RTE_REASM_MAX_SGES);
	for (uint32_t &ck : e->cookies)
		ck = reasm_dma::no_cookie;
	if ((mode == RTE_REASM_DMA_AUTO || mode == RTE_REASM_DMA_UMR) &&
	    e->module_setup(info.dev_name, mode == RTE_REASM_DMA_UMR) != 0 &&
	    mode == RTE_REASM_DMA_UMR) {
		delete e;
		rte_errno = ENOTSUP;
		return NULL;
	}
	return e;
}
