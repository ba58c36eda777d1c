/* SPDX-License-Identifier: BSD-3-Clause */
/* The live contexts by name, and their counters in telemetry (/blkint/list, /blkint/stats). */
#include <errno.h>
#include <string.h>

#include <rte_telemetry.h>

#include "blkint_log.h"
#include "blkint_priv.h"
#include "lib_dpdk_compat.h"
#include "lib_named_registry.h"

namespace {

lib_named_registry<struct rte_blkint_ctx, blkint_ctx_name> registry;

const char *const engine_names[RTE_BLKINT_ENGINE_MAX] = {"cpu", "dev"};
const char *const op_names[RTE_BLKINT_OP_MAX] = {"insert", "verify", "strip", "convert"};

int tel_list(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	RTE_SET_USED(params);
	return registry.tel_list(d);
}

/** One engine's counters as a dict, or NULL (ENOMEM). */
struct rte_tel_data *engine_dict(const struct rte_blkint_engine_stats *s)
{
	struct rte_tel_data *e = rte_tel_data_alloc(), *kinds, *errs;

	if (!e)
		return NULL;
	kinds = rte_tel_data_alloc();
	errs = rte_tel_data_alloc();
	if (!kinds || !errs) {
		rte_tel_data_free(kinds);
		rte_tel_data_free(errs);
		rte_tel_data_free(e);
		return NULL;
	}
	rte_tel_data_start_dict(e);
	lib_tel_dict_u64(e, "ops", s->ops);
	lib_tel_dict_u64(e, "blocks", s->blocks);
	lib_tel_dict_u64(e, "bytes", s->bytes);
	lib_tel_dict_u64(e, "engine_errors", s->engine_errors);
	lib_tel_dict_u64(e, "xcheck_run", s->xcheck_run);
	lib_tel_dict_u64(e, "xcheck_failed", s->xcheck_failed);
	rte_tel_data_start_dict(kinds);
	for (int k = 0; k < RTE_BLKINT_OP_MAX; k++)
		lib_tel_dict_u64(kinds, op_names[k], s->op_kind[k]);
	rte_tel_data_add_dict_container(e, "op_kind", kinds, 0);
	rte_tel_data_start_dict(errs);
	for (int f = RTE_BLKINT_FIELD_GUARD; f < RTE_BLKINT_FIELD_MAX; f++)
		lib_tel_dict_u64(errs, rte_blkint_field_name((enum rte_blkint_field)f),
				 s->pi_errors[f]);
	rte_tel_data_add_dict_container(e, "pi_errors", errs, 0);
	return e;
}

int tel_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	RTE_SET_USED(cmd);
	return registry.with_named(params, [d](struct rte_blkint_ctx *c) {
		struct rte_blkint_stats s;

		rte_blkint_stats_get(c, &s);
		rte_tel_data_start_dict(d);
		rte_tel_data_add_dict_string(d, "engine", blkint_ctx_engine_kind(c));
		lib_tel_dict_u64(d, "small_to_cpu", s.small_to_cpu);
		lib_tel_dict_u64(d, "inplace_to_cpu", s.inplace_to_cpu);
		lib_tel_dict_u64(d, "refused_to_cpu", s.refused_to_cpu);
		lib_tel_dict_u64(d, "dev_busy", s.dev_busy);
		for (int e = 0; e < RTE_BLKINT_ENGINE_MAX; e++) {
			struct rte_tel_data *ed = engine_dict(&s.engine[e]);

			if (!ed)
				return -ENOMEM;
			rte_tel_data_add_dict_container(d, engine_names[e], ed, 0);
		}
		return 0;
	});
}

RTE_INIT(blkint_telemetry_init)
{
	rte_telemetry_register_cmd("/blkint/list", tel_list, "Names of the rte_blkint contexts.");
	rte_telemetry_register_cmd("/blkint/stats", tel_stats,
				   "Counters of an rte_blkint context by engine. Parameters: name");
}

} // namespace

int blkint_registry_add(struct rte_blkint_ctx *c)
{
	int ret = registry.add(c);

	if (ret == -EEXIST)
		BLKINT_LOG(ERR, "context name \"%s\" already taken", blkint_ctx_name(c));
	return ret;
}

void blkint_registry_del(struct rte_blkint_ctx *c)
{
	registry.del(c);
}
