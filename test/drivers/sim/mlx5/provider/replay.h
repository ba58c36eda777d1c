/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Golden-vector replay (FORMAT.md §10): shared pieces of the `mlx5-vector-replay`
 * tool — the result checker, the doorbell recorder, and the environment (context,
 * PD, QPs, CQ) built from a record.
 */
#ifndef MLX5_REPLAY_H
#define MLX5_REPLAY_H

#include <stdint.h>
#include <stdlib.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "provider/provider.h"
#include "provider/sim_mkey.h"
#include "replay_json.h"

namespace replay {

using namespace mlx5sim;

/** Collects the differences of one case; the first one is reported. */
class Checker {
public:
	/** Context prefixed to later messages (e.g. "call 7 wr_complete"). */
	void where(const std::string &w) { where_ = w; }
	void fail(const std::string &msg);
	/** Compare integers; @p hex prints them in hex. */
	void eq(const std::string &what, uint64_t exp, uint64_t got, bool hex = false);
	/** Compare byte strings; reports the first differing offset. */
	void bytes(const std::string &what, const uint8_t *exp, size_t exp_len, const uint8_t *got,
		   size_t got_len);
	bool ok() const { return count_ == 0; }
	std::string summary() const;

	/** Set when the case needs something not implemented yet. */
	std::string skip_reason;

private:
	std::string where_;
	std::string first_;
	unsigned count_ = 0;
};

/** One doorbell-register write. */
struct DbEvent {
	bool blueflame;
	uint32_t offset;
	std::vector<uint8_t> data;
};

/** UarSink that records every doorbell write. */
class RecordingUar : public UarSink {
public:
	void mmio64(SimQp *qp, uint32_t bf_offset, uint64_t value) override;
	void blueflame(SimQp *qp, uint32_t bf_offset, const void *data, size_t len) override;
	std::vector<DbEvent> events;
};

struct FreeDeleter {
	void operator()(void *p) const { free(p); }
};
using AlignedBuf = std::unique_ptr<uint8_t, FreeDeleter>;

/** A QP of a record with the memory behind it. */
struct QpBox {
	int handle = 0;
	std::unique_ptr<SimQp> qp;
	AlignedBuf ring;
	size_t ring_len = 0;
	std::vector<uint8_t> ring_init; /* ring before the first call */
	std::vector<uint64_t> wrid;
	std::vector<uint32_t> wqe_head;
	std::vector<uint32_t> wr_data;
	std::vector<uint64_t> wrid_init;
	std::vector<uint32_t> wqe_head_init;
	std::vector<uint32_t> wr_data_init;
	uint32_t dbrec[2] = {};
};

/** QUERY_QP answered from a record's `query_qp` (FORMAT.md §7). */
class CannedDevx : public DevxCmd {
public:
	int query_qp(SimQp *qp, uint8_t *status, QpcInfo *out) override;
	int ret = 0;
	uint8_t status = 0;
	QpcInfo qpc = {};
	uint32_t queries = 0;   /**< commands issued */
	bool wrong_qpn = false; /**< a command named another QP */
};

/** Everything a record describes. */
struct Env {
	std::unique_ptr<SimContext> ctx;
	std::unique_ptr<SimPd> pd;
	std::vector<std::unique_ptr<QpBox>> qps;
	RecordingUar uar;
	std::vector<std::unique_ptr<SimMkey>> mkeys;
	std::vector<int> mkey_handles;                  /* parallel to mkeys */
	std::map<uint64_t, std::unique_ptr<SimAh>> ahs; /* by handle (DCI records) */
	CannedDevx devx;
	std::unique_ptr<SimCq> cq;
	AlignedBuf cq_buf;
	uint32_t cq_dbrec[2] = {};
};

/** Kinds. Each returns with chk holding differences or a skip reason. */
void run_sizing(const Json &rec, Checker &chk);
void run_send(const Json &rec, Checker &chk);
void run_poll(const Json &rec, Checker &chk);
void run_cancel(const Json &rec, Checker &chk);

/* ---- post-send calls (replay_send.cpp) ---- */

/** Table entry a post-send call needs; NULL when the harness does not replay it. */
const void *send_call_target(SimQp *qp, const std::string &op);
/** Perform one post-send call on QP 0 of @p env; false if @p c is not one. */
bool send_do_call(QpBox &box, Env &env, const Json &c, Checker &chk);

/* ---- signature and cancel calls (replay_sig.cpp) ---- */

/** True for the calls replay_sig.cpp performs. */
bool sig_call(const std::string &op);
/** mlx5dv_mkey_check or mlx5dv_qp_cancel_posted_send_wrs with its expectations. */
void do_sig_call(Env &env, const Json &c, Checker &chk);
/** Answer QUERY_QP with the record's `query_qp` (when it has one). */
void env_load_query_qp(const Json &rec, Env &env);
/** Register every loaded mkey by lkey >> 8 (poll records, FORMAT.md §10 step 4). */
bool env_register_mkeys(Env &env, Checker &chk);

/* ---- environment (replay_env.cpp) ---- */

/** ibv send_ops_flags from the vector encoding (FORMAT.md §5.4). */
uint64_t send_ops_from_vector(uint64_t v);
/** Context, PD and QPs (geometry from `derived`, state from `initial`). */
bool env_build(const Json &rec, Env &env, Checker &chk);
/** Install the QP's post-send tables; unimplemented flags are dropped with a note. */
bool env_install_wr_ops(QpBox &box, Checker &chk);
/** expect.qps: slots, bookkeeping, final counters. */
void env_check_qps(const Json &rec, Env &env, Checker &chk);
/** Decoded SQ doorbell-record word. */
uint32_t env_dbrec_sq(const QpBox &box);

/* ---- mkeys and UMR calls (replay_umr.cpp) ---- */

/** mkeys[] of a record (FORMAT.md §4.1). */
bool env_load_mkeys(const Json &rec, Env &env, Checker &chk);
/** The mkey of @p handle, or NULL. */
SimMkey *env_mkey(Env &env, int handle);
/** expect.mkeys (FORMAT.md §4.2). */
void env_check_mkeys(const Json &rec, Env &env, Checker &chk);
/** Table entry a UMR call needs; NULL when @p op is not a UMR call. */
const void *umr_call_target(SimQp *qp, const std::string &op);
/** Perform a UMR call; false if @p c is not one. */
bool do_umr_call(QpBox &box, Env &env, const Json &c, Checker &chk);

} // namespace replay

#endif /* MLX5_REPLAY_H */
