/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Replay of `send` records: the post-send calls go through the real rdma-core
 * inline API (ibv_wr_*, mlx5dv_wr_*) on the SimQp's function tables, the doorbell
 * through a recording UarSink.
 */
#include <string.h>

#include "replay.h"

namespace replay {

namespace {

using Args = const Json &;

} // namespace

const void *send_call_target(SimQp *qp, const std::string &op)
{
	struct ibv_qp_ex *x = &qp->qpx;
	struct mlx5dv_qp_ex *dv = &qp->dv;
	static const void *const kAlways = "";

	if (op == "wr_start" || op == "set_wr_id" || op == "set_wr_flags")
		return x->wr_start ? kAlways : nullptr;
	if (op == "wr_complete")
		return (const void *)x->wr_complete;
	if (op == "wr_abort")
		return (const void *)x->wr_abort;
	if (op == "ibv_wr_send")
		return (const void *)x->wr_send;
	if (op == "mlx5dv_wr_set_dc_addr")
		return (const void *)dv->wr_set_dc_addr;
	if (op == "mlx5dv_wr_set_dc_addr_stream")
		return (const void *)dv->wr_set_dc_addr_stream;
	if (op == "ibv_wr_send_imm")
		return (const void *)x->wr_send_imm;
	if (op == "ibv_wr_send_inv")
		return (const void *)x->wr_send_inv;
	if (op == "ibv_wr_rdma_write")
		return (const void *)x->wr_rdma_write;
	if (op == "ibv_wr_rdma_write_imm")
		return (const void *)x->wr_rdma_write_imm;
	if (op == "ibv_wr_rdma_read")
		return (const void *)x->wr_rdma_read;
	if (op == "ibv_wr_atomic_cmp_swp")
		return (const void *)x->wr_atomic_cmp_swp;
	if (op == "ibv_wr_atomic_fetch_add")
		return (const void *)x->wr_atomic_fetch_add;
	if (op == "ibv_wr_local_inv")
		return (const void *)x->wr_local_inv;
	if (op == "ibv_wr_set_sge")
		return (const void *)x->wr_set_sge;
	if (op == "ibv_wr_set_sge_list")
		return (const void *)x->wr_set_sge_list;
	if (op == "ibv_wr_set_inline_data")
		return (const void *)x->wr_set_inline_data;
	if (op == "ibv_wr_set_inline_data_list")
		return (const void *)x->wr_set_inline_data_list;
	if (op == "mlx5dv_wr_memcpy")
		return (const void *)dv->wr_memcpy;
	if (op == "mlx5dv_wr_raw_wqe")
		return (const void *)dv->wr_raw_wqe;
	if (const void *t = umr_call_target(qp, op))
		return t;
	return nullptr; /* DC address: later issue */
}

namespace {

__be32 imm_arg(Args c, Checker &chk)
{
	std::vector<uint8_t> b;
	__be32 imm = 0;

	if (!hex_decode(c["imm_data"].str(), &b) || b.size() != sizeof(imm))
		chk.fail("bad imm_data");
	else
		memcpy(&imm, b.data(), sizeof(imm));
	return imm;
}

void check_batch_end(Args c, QpBox &box, RecordingUar &uar, Checker &chk, int ret)
{
	const Json &e = c["expect"];
	const Json &db = e["doorbell"];
	SimQp *qp = box.qp.get();

	if (e.has("ret"))
		chk.eq("ret", e["ret"].u64(), (uint64_t)ret);
	chk.eq("cur_post", e["cur_post"].u64(), qp->sq.cur_post);
	chk.eq("head", e["head"].u64(), qp->sq.head);
	chk.eq("fm_cache", e["fm_cache"].u64(), qp->sq.fm_cache);
	chk.eq("dbrec_sq", e["dbrec_sq"].u64(), env_dbrec_sq(box));
	if (db.is_null()) {
		if (!uar.events.empty())
			chk.fail("doorbell rung, none expected");
	} else if (uar.events.size() != 1) {
		chk.fail("expected one doorbell write, got " + std::to_string(uar.events.size()));
	} else {
		const DbEvent &ev = uar.events[0];
		std::vector<uint8_t> data;

		if ((db["method"].str() == "blueflame") != ev.blueflame)
			chk.fail("doorbell method expected " + db["method"].str() + " got " +
				 (ev.blueflame ? "blueflame" : "mmio64"));
		chk.eq("doorbell bf_offset", db["bf_offset"].u64(), ev.offset);
		hex_decode(db["data"].str(), &data);
		chk.bytes("doorbell data", data.data(), data.size(), ev.data.data(),
			  ev.data.size());
	}
	uar.events.clear();
	chk.eq("bf_offset_after", e["bf_offset_after"].u64(), qp->bf.offset);
}

void sge_list(Args list, std::vector<struct ibv_sge> *out)
{
	for (const Json &s : list.items())
		out->push_back(
			{s["addr"].u64(), (uint32_t)s["length"].u64(), (uint32_t)s["lkey"].u64()});
}

void do_inline_list(struct ibv_qp_ex *x, Args c, Checker &chk)
{
	std::vector<std::vector<uint8_t>> bufs;
	std::vector<struct ibv_data_buf> list;

	for (const Json &b : c["buf_list"].items()) {
		bufs.emplace_back();
		if (!hex_decode(b.str(), &bufs.back()))
			chk.fail("bad buf_list entry");
		bufs.back().reserve(1); /* a valid pointer even for an empty entry */
	}
	for (auto &b : bufs)
		list.push_back({b.data(), b.size()});
	ibv_wr_set_inline_data_list(x, list.size(), list.data());
}

void do_raw_wqe(SimQp *qp, Args c, Checker &chk)
{
	std::vector<uint8_t> wqe;

	if (!hex_decode(c["wqe"].str(), &wqe))
		chk.fail("bad raw wqe bytes");
	/* the library reads ds * 16 bytes (at most 1008): never past our buffer */
	wqe.resize(wqe.size() < 1024 ? 1024 : wqe.size(), 0);
	mlx5dv_wr_raw_wqe(&qp->dv, wqe.data());
}

} // namespace

bool send_do_call(QpBox &box, Env &env, Args c, Checker &chk)
{
	SimQp *qp = box.qp.get();
	struct ibv_qp_ex *x = &qp->qpx;
	const std::string &op = c["op"].str();

	if (op == "wr_start") {
		ibv_wr_start(x);
	} else if (op == "set_wr_id") {
		x->wr_id = c["wr_id"].u64();
	} else if (op == "set_wr_flags") {
		x->wr_flags = (unsigned int)c["wr_flags"].u64();
	} else if (op == "wr_complete") {
		int ret = ibv_wr_complete(x);

		check_batch_end(c, box, env.uar, chk, ret);
	} else if (op == "wr_abort") {
		ibv_wr_abort(x);
		check_batch_end(c, box, env.uar, chk, 0);
	} else if (op == "ibv_wr_send") {
		ibv_wr_send(x);
	} else if (op == "ibv_wr_send_imm") {
		ibv_wr_send_imm(x, imm_arg(c, chk));
	} else if (op == "ibv_wr_send_inv") {
		ibv_wr_send_inv(x, (uint32_t)c["invalidate_rkey"].u64());
	} else if (op == "ibv_wr_rdma_write") {
		ibv_wr_rdma_write(x, (uint32_t)c["rkey"].u64(), c["remote_addr"].u64());
	} else if (op == "ibv_wr_rdma_write_imm") {
		ibv_wr_rdma_write_imm(x, (uint32_t)c["rkey"].u64(), c["remote_addr"].u64(),
				      imm_arg(c, chk));
	} else if (op == "ibv_wr_rdma_read") {
		ibv_wr_rdma_read(x, (uint32_t)c["rkey"].u64(), c["remote_addr"].u64());
	} else if (op == "ibv_wr_atomic_cmp_swp") {
		ibv_wr_atomic_cmp_swp(x, (uint32_t)c["rkey"].u64(), c["remote_addr"].u64(),
				      c["compare"].u64(), c["swap"].u64());
	} else if (op == "ibv_wr_atomic_fetch_add") {
		ibv_wr_atomic_fetch_add(x, (uint32_t)c["rkey"].u64(), c["remote_addr"].u64(),
					c["add"].u64());
	} else if (op == "ibv_wr_local_inv") {
		ibv_wr_local_inv(x, (uint32_t)c["invalidate_rkey"].u64());
	} else if (op == "ibv_wr_set_sge") {
		ibv_wr_set_sge(x, (uint32_t)c["lkey"].u64(), c["addr"].u64(),
			       (uint32_t)c["length"].u64());
	} else if (op == "ibv_wr_set_sge_list") {
		std::vector<struct ibv_sge> sg;

		sge_list(c["sg_list"], &sg);
		ibv_wr_set_sge_list(x, sg.size(), sg.data());
	} else if (op == "ibv_wr_set_inline_data") {
		std::vector<uint8_t> d;

		if (!hex_decode(c["data"].str(), &d))
			chk.fail("bad inline data");
		d.reserve(1);
		ibv_wr_set_inline_data(x, d.data(), d.size());
	} else if (op == "ibv_wr_set_inline_data_list") {
		do_inline_list(x, c, chk);
	} else if (op == "mlx5dv_wr_set_dc_addr" || op == "mlx5dv_wr_set_dc_addr_stream") {
		auto it = env.ahs.find(c["ah"].u64());

		if (it == env.ahs.end()) {
			chk.fail("unknown address handle");
			return true;
		}
		struct ibv_ah *ah = &it->second->ibah;
		uint32_t dctn = (uint32_t)c["remote_dctn"].u64();
		uint64_t key = c["remote_dc_key"].u64();

		if (op == "mlx5dv_wr_set_dc_addr")
			mlx5dv_wr_set_dc_addr(&qp->dv, ah, dctn, key);
		else
			mlx5dv_wr_set_dc_addr_stream(&qp->dv, ah, dctn, key,
						     (uint16_t)c["stream_id"].u64());
	} else if (op == "mlx5dv_wr_memcpy") {
		mlx5dv_wr_memcpy(&qp->dv, (uint32_t)c["dest_lkey"].u64(), c["dest_addr"].u64(),
				 (uint32_t)c["src_lkey"].u64(), c["src_addr"].u64(),
				 (size_t)c["length"].u64());
	} else if (op == "mlx5dv_wr_raw_wqe") {
		do_raw_wqe(qp, c, chk);
	} else {
		return do_umr_call(box, env, c, chk);
	}
	return true;
}

void run_send(const Json &rec, Checker &chk)
{
	Env env;
	QpBox *box;
	size_t i = 0;

	if (!env_build(rec, env, chk) || !env_load_mkeys(rec, env, chk))
		return;
	box = env.qps[0].get();
	if (!env_install_wr_ops(*box, chk))
		return;
	for (const Json &c : rec["calls"].items()) {
		if (!send_call_target(box->qp.get(), c["op"].str())) {
			chk.skip_reason = "needs " + c["op"].str() + " (not implemented yet)";
			return;
		}
	}
	for (const Json &c : rec["calls"].items()) {
		chk.where("call " + std::to_string(i++) + " " + c["op"].str());
		if (!send_do_call(*box, env, c, chk)) {
			chk.fail("call not replayed");
			return;
		}
	}
	env_check_qps(rec, env, chk);
	env_check_mkeys(rec, env, chk);
}

} // namespace replay
