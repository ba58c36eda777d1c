/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Replay of the signature and cancel calls (FORMAT.md §5.2, §7): mlx5dv_mkey_check
 * with its mkey-state expectations, mlx5dv_qp_cancel_posted_send_wrs against a
 * canned QUERY_QP answer, and `cancel` records.
 */
#include <string.h>

#include "replay.h"

namespace replay {

namespace {

constexpr uint64_t kPoison64 = 0xa5a5a5a5a5a5a5a5ull;
constexpr uint32_t kPoison32 = 0xa5a5a5a5u;

/** A value the library may leave unwritten (null): it must keep its poison. */
void maybe_field(Checker &chk, const std::string &name, const Json &e, uint64_t got)
{
	if (!e.has(name))
		return;
	if (e[name].is_null()) {
		if (got != kPoison64)
			chk.fail(name + " written, expected untouched");
	} else {
		chk.eq(name, e[name].u64(), got, true);
	}
}

void do_mkey_check(Env &env, const Json &c, Checker &chk)
{
	const Json &e = c["expect"];
	SimMkey *mk = env_mkey(env, (int)c["mkey"].u64());
	struct mlx5dv_mkey_err err;
	uint32_t type;
	int ret;

	if (!mk) {
		chk.fail("call names an unknown mkey handle");
		return;
	}
	memset(&err, 0xa5, sizeof(err));
	ret = sim_dv_mkey_check(&mk->dv, &err, sizeof(err));
	chk.eq("ret", (uint64_t)e["ret"].i64(), (uint64_t)(int64_t)ret);
	memcpy(&type, &err.err_type, sizeof(type));
	if (e.has("err_type") && !e["err_type"].is_null())
		chk.eq("err_type", e["err_type"].u64(), type);
	else if (e.has("err_type") && type != kPoison32)
		chk.fail("err_type written, expected untouched");
	maybe_field(chk, "actual_value", e, err.err.sig.actual_value);
	maybe_field(chk, "expected_value", e, err.err.sig.expected_value);
	maybe_field(chk, "offset", e, err.err.sig.offset);
	if (e.has("mkey_after")) {
		const Json &a = e["mkey_after"];

		chk.eq("err_exists", a["err_exists"].boolean(), mk->sig.err_exists);
		chk.eq("err_count", a["err_count"].u64(), mk->sig.err_count);
		chk.eq("err_count_updated", a["err_count_updated"].boolean(),
		       mk->sig.err_count_updated);
	}
}

void do_cancel(Env &env, const Json &c, Checker &chk)
{
	SimQp *qp = env.qps[0]->qp.get();
	uint32_t before = env.devx.queries;
	int ret = sim_dv_qp_cancel_posted_send_wrs(&qp->dv, c["wr_id"].u64());

	chk.eq("ret", (uint64_t)c["expect"]["ret"].i64(), (uint64_t)(int64_t)ret);
	chk.eq("QUERY_QP commands", before + 1, env.devx.queries);
	if (env.devx.wrong_qpn)
		chk.fail("QUERY_QP named another QP");
}

/** Install the canned QUERY_QP answer of the record, if any. */
void load_query_qp(const Json &rec, Env &env)
{
	const Json &q = rec["query_qp"];

	if (!rec.has("query_qp"))
		return;
	env.devx.ret = (int)q["ret"].i64();
	env.devx.status = (uint8_t)q["status"].u64();
	env.devx.qpc.state = (uint8_t)q["state"].u64();
	env.devx.qpc.hw_sq_wqebb_counter = (uint16_t)q["hw_sq_wqebb_counter"].u64();
	env.ctx->devx = &env.devx;
}

} // namespace

int CannedDevx::query_qp(SimQp *qp, uint8_t *st, QpcInfo *out)
{
	queries++;
	/* the command carries the QP's own number (FORMAT.md §7) */
	if (qp->qpn != qp->qpx.qp_base.qp_num)
		wrong_qpn = true;
	*st = status;
	*out = qpc;
	return ret;
}

bool sig_call(const std::string &op)
{
	return op == "mlx5dv_mkey_check" || op == "mlx5dv_qp_cancel_posted_send_wrs";
}

void do_sig_call(Env &env, const Json &c, Checker &chk)
{
	if (c["op"].str() == "mlx5dv_mkey_check")
		do_mkey_check(env, c, chk);
	else
		do_cancel(env, c, chk);
}

bool env_register_mkeys(Env &env, Checker &chk)
{
	for (auto &mk : env.mkeys) {
		if (!env.ctx->mkey_by_idx.insert(mk->dv.lkey >> 8, mk.get())) {
			chk.fail("mkey registration failed");
			return false;
		}
	}
	return true;
}

void run_cancel(const Json &rec, Checker &chk)
{
	Env env;
	size_t i = 0;

	if (!env_build(rec, env, chk) || !env_load_mkeys(rec, env, chk))
		return;
	load_query_qp(rec, env);
	for (const Json &c : rec["calls"].items()) {
		chk.where("call " + std::to_string(i++) + " " + c["op"].str());
		if (!sig_call(c["op"].str())) {
			chk.fail("call not replayed");
			return;
		}
		do_sig_call(env, c, chk);
	}
	env_check_qps(rec, env, chk);
	env_check_mkeys(rec, env, chk);
}

void env_load_query_qp(const Json &rec, Env &env)
{
	load_query_qp(rec, env);
}

} // namespace replay
