/* SPDX-License-Identifier: BSD-3-Clause */
/* The live contexts by name, and their counters in telemetry (/reasm/list, /reasm/stats). */
#include <errno.h>
#include <string.h>

#include <rte_telemetry.h>

#include "lib_dpdk_compat.h"
#include "lib_named_registry.h"
#include "reasm_log.h"
#include "reasm_priv.h"

namespace {

const char *ctx_name(const struct rte_reasm_ctx *c)
{
	return c->name;
}

lib_named_registry<struct rte_reasm_ctx, ctx_name> registry;

int tel_list(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	return registry.tel_list(d);
}

int tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	return registry.with_named(params, [d](struct rte_reasm_ctx *c) {
		struct rte_reasm_stats s;
		struct rte_tel_data *drops;

		rte_reasm_stats_get(c, &s);
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "engine", rte_reasm_engine_kind(c->engine));
#define TEL_U64(f) lib_tel_dict_u64(d, #f, s.f)
		TEL_U64(pkts_in);
		TEL_U64(frags_in);
		TEL_U64(passthrough);
		TEL_U64(reassembled);
		TEL_U64(atomic);
		TEL_U64(duplicates);
		TEL_U64(trimmed);
		TEL_U64(linearized);
		TEL_U64(split);
		TEL_U64(gathers);
		TEL_U64(cpu_fallbacks);
		TEL_U64(split_gathers);
		TEL_U64(gather_ops);
		TEL_U64(deferred);
		TEL_U64(umr_gathers);
		TEL_U64(interleaved_splits);
		TEL_U64(dgrams_in_table);
		TEL_U64(bytes_held);
		TEL_U64(mbufs_held);
#undef TEL_U64
		for (int kind = 0; kind < 2; kind++) {
			drops = rte_tel_data_alloc();
			if (!drops)
				return -ENOMEM;
			rte_tel_data_start_dict(drops);
			for (int r = 0; r < RTE_REASM_DROP_MAX; r++)
				lib_tel_dict_u64(drops, rte_reasm_drop_name((enum rte_reasm_drop)r),
						 kind ? s.drop_dgrams[r] : s.drop_frags[r]);
			rte_tel_data_add_dict_container(d, kind ? "drop_dgrams" : "drop_frags",
							drops, 0);
		}
		return 0;
	});
}

RTE_INIT(reasm_telemetry_init)
{
	rte_telemetry_register_cmd("/reasm/list", tel_list, "Names of the rte_reasm contexts.");
	rte_telemetry_register_cmd("/reasm/stats", tel_stats,
				   "Counters of an rte_reasm context. Parameters: name");
}

} // namespace

int reasm_registry_add(struct rte_reasm_ctx *c)
{
	int ret = registry.add(c);

	if (ret == -EEXIST)
		REASM_LOG(ERR, "context name \"%s\" already taken", c->name);
	return ret;
}

void reasm_registry_del(struct rte_reasm_ctx *c)
{
	registry.del(c);
}
