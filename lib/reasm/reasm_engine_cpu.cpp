/* SPDX-License-Identifier: BSD-3-Clause */
/* The CPU engine: a gather is a memcpy walk over both piece lists, done at once. */
#include <errno.h>
#include <new>

#include <rte_errno.h>
#include <rte_memcpy.h>

#include "reasm_engine.h"
#include "rte_reasm.h"

void reasm_cpu_gather(const struct rte_reasm_dev_gather *g)
{
	uint16_t si = 0, di = 0;
	uint32_t soff = 0, doff = 0;

	while (si < g->nb_src && di < g->nb_dst) {
		uint32_t n = RTE_MIN(g->src[si].len - soff, g->dst[di].len - doff);

		rte_memcpy((uint8_t *)g->dst[di].va + doff, (const uint8_t *)g->src[si].va + soff,
			   n);
		soff += n;
		doff += n;
		if (soff == g->src[si].len) {
			si++;
			soff = 0;
		}
		if (doff == g->dst[di].len) {
			di++;
			doff = 0;
		}
	}
}

namespace {

struct cpu_engine final : rte_reasm_engine {
	const char *kind() const override { return "cpu"; }
	uint32_t max_sges() const override { return RTE_REASM_MAX_SGES; }
	int gather(const struct rte_reasm_dev_gather *g, uint32_t cookie) override
	{
		RTE_SET_USED(cookie);
		reasm_cpu_gather(g);
		return REASM_GATHER_DONE;
	}
};

} // namespace

struct rte_reasm_engine *rte_reasm_engine_cpu_create(void)
{
	struct rte_reasm_engine *e = new (std::nothrow) cpu_engine();

	if (!e)
		rte_errno = ENOMEM;
	return e;
}

const char *rte_reasm_engine_kind(const struct rte_reasm_engine *engine)
{
	return engine ? engine->kind() : NULL;
}

void rte_reasm_engine_free(struct rte_reasm_engine *engine)
{
	delete engine;
}
