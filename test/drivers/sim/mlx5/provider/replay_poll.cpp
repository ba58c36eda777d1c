/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Replay of `poll` records: a SimCq built from the record, QPs registered by user
 * index or QPN, then ibv_poll_cq and the extended poll API (start/next/end_poll,
 * ibv_wc_read_*) through the tables sim_cq_install_poll_ops() fills.
 */
#include <string.h>

#include "replay.h"

namespace replay {

namespace {

constexpr uint8_t kPoison = 0xa5;
constexpr uint64_t kPoison64 = 0xa5a5a5a5a5a5a5a5ull;
constexpr uint32_t kPoison32 = 0xa5a5a5a5u;
constexpr int kMaxWc = 256;

bool build_cq(const Json &rec, Env &env, Checker &chk)
{
	const Json &c = rec["cq"];
	uint32_t ncqe = (uint32_t)c["ncqe"].u64(), cqe_size = (uint32_t)c["cqe_size"].u64();
	SimCq *cq;
	void *p = nullptr;

	if (!ncqe || (ncqe & (ncqe - 1)) || (cqe_size != 64 && cqe_size != 128)) {
		chk.fail("bad cq geometry");
		return false;
	}
	if (posix_memalign(&p, 4096, (size_t)ncqe * cqe_size))
		return false;
	env.cq_buf.reset(static_cast<uint8_t *>(p));
	memset(p, 0, (size_t)ncqe * cqe_size);
	for (const Json &e : c["entries"].items()) {
		std::vector<uint8_t> b;
		uint64_t idx = e["index"].u64();

		if (idx >= ncqe || !hex_decode(e["bytes"].str(), &b) || b.size() != cqe_size) {
			chk.fail("bad cq entry");
			return false;
		}
		memcpy(env.cq_buf.get() + idx * cqe_size, b.data(), cqe_size);
	}
	env.cq.reset(new SimCq());
	cq = env.cq.get();
	cq->cqx.context = &env.ctx->ibctx;
	cq->ctx = env.ctx.get();
	cq->buf = env.cq_buf.get();
	cq->ncqe = ncqe;
	cq->cqe_size = cqe_size;
	cq->cons_index = (uint32_t)c["cons_index"].u64();
	env.cq_dbrec[0] = htobe32(cq->cons_index & 0xffffff);
	cq->dbrec = env.cq_dbrec;
	cq->cqn = 1;
	/* FORMAT.md §5.2: byte length and QP number requested, nothing else */
	cq->wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM;
	sim_cq_install_poll_ops(cq);
	env.ctx->ibctx.ops.poll_cq = sim_poll_cq;
	return true;
}

bool register_qps(Env &env, Checker &chk)
{
	for (auto &b : env.qps) {
		SimQp *qp = b->qp.get();
		bool ok = env.ctx->cqe_version ? env.ctx->qp_by_uidx.insert(qp->uidx, qp)
					       : env.ctx->qp_by_qpn.insert(qp->qpn, qp);

		if (!ok) {
			chk.fail("QP registration failed");
			return false;
		}
	}
	return true;
}

void check_cq_state(const Json &e, Env &env, Checker &chk)
{
	if (e.has("cons_index"))
		chk.eq("cons_index", e["cons_index"].u64(), env.cq->cons_index);
	if (e.has("dbrec_ci"))
		chk.eq("dbrec_ci", e["dbrec_ci"].u64(), be32toh(env.cq_dbrec[0]) & 0xffffff);
	for (size_t i = 0; i < e["sq_tail"].size() && i < env.qps.size(); i++)
		chk.eq("sq_tail[" + std::to_string(i) + "]", e["sq_tail"][i].u64(),
		       env.qps[i]->qp->sq.tail);
}

/** An enum member read as raw bits: the poison is not a valid enumerator. */
template <typename T>
uint32_t raw32(const T &v)
{
	uint32_t r;

	static_assert(sizeof(T) == sizeof(r), "32-bit member");
	memcpy(&r, &v, sizeof(r));
	return r;
}

/** A field the library may leave unwritten (null) keeps its poison. */
void field(Checker &chk, const std::string &pfx, const Json &e, const char *name, uint64_t got,
	   uint64_t poison, bool hex = false)
{
	if (!e.has(name))
		return;
	if (e[name].is_null()) {
		if (got != poison)
			chk.fail(pfx + name + " written, expected untouched");
	} else {
		chk.eq(pfx + name, e[name].u64(), got, hex);
	}
}

void do_poll_cq(Env &env, const Json &c, Checker &chk)
{
	const Json &e = c["expect"];
	struct ibv_wc wc[kMaxWc];
	int n = (int)c["num_entries"].u64();
	int ret;

	if (n > kMaxWc) {
		chk.fail("num_entries too large for the harness");
		return;
	}
	memset(wc, kPoison, sizeof(wc));
	ret = ibv_poll_cq(ibv_cq_ex_to_cq(&env.cq->cqx), n, wc);
	chk.eq("ret", (uint64_t)e["ret"].i64(), (uint64_t)(int64_t)ret);
	for (size_t i = 0; i < e["wc"].size() && (int)i < n; i++) {
		const Json &w = e["wc"][i];

		std::string p = "wc[" + std::to_string(i) + "].";

		field(chk, p, w, "wr_id", wc[i].wr_id, kPoison64, true);
		field(chk, p, w, "status", raw32(wc[i].status), kPoison32);
		field(chk, p, w, "opcode", raw32(wc[i].opcode), kPoison32);
		field(chk, p, w, "vendor_err", wc[i].vendor_err, kPoison32);
		field(chk, p, w, "byte_len", wc[i].byte_len, kPoison32);
		field(chk, p, w, "qp_num", wc[i].qp_num, kPoison32);
		field(chk, p, w, "wc_flags", wc[i].wc_flags, kPoison32);
	}
	check_cq_state(e, env, chk);
}

/** start_poll / next_poll, then the ibv_wc_read_* calls the record lists. */
void do_ext_poll(Env &env, const Json &c, Checker &chk, bool start)
{
	const Json &e = c["expect"];
	struct ibv_cq_ex *cq = &env.cq->cqx;
	int ret;

	cq->wr_id = kPoison64;
	memset(&cq->status, kPoison, sizeof(cq->status));
	if (start) {
		struct ibv_poll_cq_attr attr = {};

		attr.comp_mask = (uint32_t)c["attr_comp_mask"].u64();
		if (!cq->start_poll) {
			chk.fail("start_poll not installed");
			return;
		}
		ret = ibv_start_poll(cq, &attr);
	} else {
		if (!cq->next_poll) {
			chk.fail("next_poll not installed");
			return;
		}
		ret = ibv_next_poll(cq);
	}
	chk.eq("ret", (uint64_t)e["ret"].i64(), (uint64_t)(int64_t)ret);
	if (ret == 0 && e["ret"].i64() == 0) {
		field(chk, "", e, "wr_id", cq->wr_id, kPoison64, true);
		field(chk, "", e, "status", raw32(cq->status), kPoison32);
		if (!cq->read_opcode || !cq->read_vendor_err || !cq->read_byte_len ||
		    !cq->read_qp_num || !cq->read_wc_flags) {
			chk.fail("ibv_wc_read_* not installed");
		} else {
			field(chk, "read_", e, "opcode", (uint32_t)ibv_wc_read_opcode(cq),
			      kPoison32);
			field(chk, "read_", e, "vendor_err", ibv_wc_read_vendor_err(cq), kPoison32);
			field(chk, "read_", e, "byte_len", ibv_wc_read_byte_len(cq), kPoison32);
			field(chk, "read_", e, "qp_num", ibv_wc_read_qp_num(cq), kPoison32);
			field(chk, "read_", e, "wc_flags", ibv_wc_read_wc_flags(cq), kPoison32);
		}
	}
	check_cq_state(e, env, chk);
}

void do_hw_write_cqe(Env &env, const Json &c, Checker &chk)
{
	std::vector<uint8_t> b;
	uint64_t idx = c["index"].u64();

	if (idx >= env.cq->ncqe || !hex_decode(c["bytes"].str(), &b) ||
	    b.size() != env.cq->cqe_size) {
		chk.fail("bad hw_write_cqe");
		return;
	}
	memcpy(env.cq_buf.get() + idx * env.cq->cqe_size, b.data(), b.size());
}

bool do_call(Env &env, const Json &c, Checker &chk)
{
	const std::string &op = c["op"].str();

	if (op == "ibv_poll_cq") {
		do_poll_cq(env, c, chk);
	} else if (op == "ibv_start_poll") {
		do_ext_poll(env, c, chk, true);
	} else if (op == "ibv_next_poll") {
		do_ext_poll(env, c, chk, false);
	} else if (op == "ibv_end_poll") {
		if (env.cq->cqx.end_poll)
			ibv_end_poll(&env.cq->cqx);
		else
			chk.fail("end_poll not installed");
		check_cq_state(c["expect"], env, chk);
	} else if (op == "hw_write_cqe") {
		do_hw_write_cqe(env, c, chk);
	} else if (sig_call(op)) {
		do_sig_call(env, c, chk);
	} else {
		return send_do_call(*env.qps[0], env, c, chk);
	}
	return true;
}

bool replayable(Env &env, const std::string &op)
{
	return op == "ibv_poll_cq" || op == "ibv_start_poll" || op == "ibv_next_poll" ||
	       op == "ibv_end_poll" || op == "hw_write_cqe" || sig_call(op) ||
	       send_call_target(env.qps[0]->qp.get(), op);
}

/** Post-send calls (recovery scenarios) need the QP's builders. */
bool needs_wr_ops(const Json &rec)
{
	for (const Json &c : rec["calls"].items()) {
		const std::string &op = c["op"].str();

		if (op == "wr_start")
			return true;
	}
	return false;
}

} // namespace

void run_poll(const Json &rec, Checker &chk)
{
	Env env;
	size_t i = 0;

	if (!env_build(rec, env, chk) || !env_load_mkeys(rec, env, chk) ||
	    !env_register_mkeys(env, chk) || !register_qps(env, chk) || !build_cq(rec, env, chk))
		return;
	env_load_query_qp(rec, env);
	if (needs_wr_ops(rec) && !env_install_wr_ops(*env.qps[0], chk))
		return;
	for (const Json &c : rec["calls"].items()) {
		if (!replayable(env, c["op"].str())) {
			chk.skip_reason = "needs " + c["op"].str() + " (not implemented yet)";
			return;
		}
	}
	for (const Json &c : rec["calls"].items()) {
		chk.where("call " + std::to_string(i++) + " " + c["op"].str());
		do_call(env, c, chk);
	}
	env_check_qps(rec, env, chk);
	env_check_mkeys(rec, env, chk);
	chk.where("final cq");
	if (rec["expect"].has("cq"))
		check_cq_state(rec["expect"]["cq"], env, chk);
}

} // namespace replay
