/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * One device, two drivers: the differential test. One software HCA instance, the
 * kernel side's mlx5_0, is driven at once by Debian's libmlx5 v44 (through
 * libibverbs and the kernel side linked into this binary) and by the imitation
 * provider (the "sim" backend of the seam, the same Hca registered as sim0 by
 * sim_device_add_hca). The same seeded random stream of work requests (memcpy MMO,
 * RDMA write / read, send / receive, inline sends; 1..4 SGEs, 1..700 bytes each) is
 * posted through both, one at a time, and compared:
 *  - the WQE each provider wrote into its SQ (through mlx5dv_init_obj and the
 *    imitation's dv_init_obj), after the masking rule of mask_wqe();
 *  - the send and receive CQEs (opcode, syndrome, byte count, WQE counter) and the
 *    work completions (status, opcode, byte length);
 *  - the destination bytes (both sides start from the same source bytes).
 * Where they differ, libmlx5 is right (doc/guides/sim/kernel_side.rst).
 * MLX5_SIM_RDMA_DEVICES=1 comes from meson test; MLX5_SIM_DIFF_SEED and
 * MLX5_SIM_DIFF_OPS change the stream.
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "cunit_run.h"
#include "glue_test_util.h"
#include "kside.h"
#include "mlx5_glue.h"
#include "mlx5_sim.h"
#include "sim_internal.h"

namespace {

constexpr size_t kRegion = 64 * 1024; /**< source region, then destination region */
constexpr size_t kBuf = 2 * kRegion;
constexpr uint32_t kMaxSge = 4;
constexpr uint32_t kMaxInline = 128;
constexpr uint32_t kMaxSgeLen = 700;
constexpr int kTimeoutMs = 10000;
constexpr int kAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

enum Op {
	OP_WRITE,
	OP_READ,
	OP_SEND,
	OP_SEND_INLINE,
	OP_MEMCPY,
	OP_N
};
const char *const kOpName[OP_N] = {"rdma_write", "rdma_read", "send", "send_inline", "memcpy"};

/* ---- Debian's libibverbs + libmlx5 in the seam's table shape ------------------------ */

struct mlx5_glue g_deb;

void deb_init()
{
	g_deb.get_device_list = [](int *n) { return ibv_get_device_list(n); };
	g_deb.free_device_list = ibv_free_device_list;
	g_deb.get_device_name = ibv_get_device_name;
	g_deb.open_device = ibv_open_device;
	g_deb.close_device = ibv_close_device;
	g_deb.alloc_pd = ibv_alloc_pd;
	g_deb.dealloc_pd = ibv_dealloc_pd;
	g_deb.reg_mr = [](struct ibv_pd *pd, void *addr, size_t len, int access) {
		return ibv_reg_mr(pd, addr, len, access);
	};
	g_deb.dereg_mr = ibv_dereg_mr;
	g_deb.create_cq_ex = ibv_create_cq_ex;
	g_deb.destroy_cq = ibv_destroy_cq;
	g_deb.dv_create_qp = mlx5dv_create_qp;
	g_deb.modify_qp = ibv_modify_qp;
	g_deb.destroy_qp = ibv_destroy_qp;
	g_deb.qp_to_qp_ex = ibv_qp_to_qp_ex;
	g_deb.dv_qp_ex_from_ibv_qp_ex = mlx5dv_qp_ex_from_ibv_qp_ex;
	g_deb.dv_init_obj = mlx5dv_init_obj;
}

/* ---- one side: a driver's objects on the shared device ------------------------------- */

struct Side {
	const char *name;
	const struct mlx5_glue *g;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq_ex *scq, *rcq;
	struct ibv_qp *qa, *qb; /**< qa posts, qb is its peer (receives, is read/written) */
	struct ibv_qp_ex *qx;
	struct mlx5dv_qp_ex *dvx;
	uint8_t *buf;
	struct ibv_mr *mr;
	struct mlx5dv_qp sq;
	struct mlx5dv_cq scq_dv, rcq_dv;
	uint32_t scq_ci, rcq_ci;
	uint32_t sq_pi; /**< in WQEBBs: where the next WQE starts */
};

Side g_side[2];
bool g_mmo; /**< both QPs take memcpy MMO */

struct ibv_qp *create_qp(Side &s, bool mmo)
{
	struct ibv_qp_init_attr_ex qa = {};
	struct mlx5dv_qp_init_attr dv = {};

	qa.qp_type = IBV_QPT_RC;
	qa.send_cq = ibv_cq_ex_to_cq(s.scq);
	qa.recv_cq = ibv_cq_ex_to_cq(s.rcq);
	qa.cap.max_send_wr = 64;
	qa.cap.max_send_sge = kMaxSge;
	qa.cap.max_recv_wr = 64;
	qa.cap.max_recv_sge = 1;
	qa.cap.max_inline_data = kMaxInline;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	qa.pd = s.pd;
	qa.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
			    IBV_QP_EX_WITH_RDMA_READ;
	if (mmo) {
		dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS;
		dv.send_ops_flags = MLX5DV_QP_EX_WITH_MEMCPY;
	}
	return s.g->dv_create_qp(s.ctx, &qa, &dv);
}

int connect_qp(const Side &s, struct ibv_qp *qp, uint32_t dest)
{
	int ret = glue_test_modify_rc(s.g, qp, IBV_QPS_INIT, dest);

	if (!ret)
		ret = glue_test_modify_rc(s.g, qp, IBV_QPS_RTR, dest);
	if (!ret)
		ret = glue_test_modify_rc(s.g, qp, IBV_QPS_RTS, dest);
	return ret;
}

/** Open @p dev through @p g and make the objects (MMO QPs when @p mmo). */
int side_open(Side &s, const char *name, const struct mlx5_glue *g, const char *dev, bool mmo)
{
	struct ibv_cq_init_attr_ex ca = {};
	struct mlx5dv_obj obj = {};

	memset(&s, 0, sizeof(s));
	s.name = name;
	s.g = g;
	s.ctx = glue_test_open(g, dev);
	if (!s.ctx)
		return -ENODEV;
	s.pd = g->alloc_pd(s.ctx);
	ca.cqe = 255;
	ca.wc_flags = IBV_WC_EX_WITH_BYTE_LEN;
	s.scq = s.pd ? g->create_cq_ex(s.ctx, &ca) : nullptr;
	s.rcq = s.scq ? g->create_cq_ex(s.ctx, &ca) : nullptr;
	if (!s.rcq || posix_memalign((void **)&s.buf, 4096, kBuf))
		return -ENOMEM;
	s.mr = g->reg_mr(s.pd, s.buf, kBuf, kAccess);
	s.qa = s.mr ? create_qp(s, mmo) : nullptr;
	s.qb = s.qa ? create_qp(s, false) : nullptr;
	if (!s.qb)
		return -EINVAL;
	if (connect_qp(s, s.qa, s.qb->qp_num) || connect_qp(s, s.qb, s.qa->qp_num))
		return -EIO;
	s.qx = g->qp_to_qp_ex(s.qa);
	s.dvx = s.qx ? g->dv_qp_ex_from_ibv_qp_ex(s.qx) : nullptr;
	obj.qp.in = s.qa;
	obj.qp.out = &s.sq;
	if (!s.dvx || g->dv_init_obj(&obj, MLX5DV_OBJ_QP))
		return -EIO;
	obj.cq.in = ibv_cq_ex_to_cq(s.scq);
	obj.cq.out = &s.scq_dv;
	if (g->dv_init_obj(&obj, MLX5DV_OBJ_CQ))
		return -EIO;
	obj.cq.in = ibv_cq_ex_to_cq(s.rcq);
	obj.cq.out = &s.rcq_dv;
	return g->dv_init_obj(&obj, MLX5DV_OBJ_CQ) ? -EIO : 0;
}

/** Destroy what @p s holds; @p check: inside a test, each destroy asserted to succeed. */
void side_close(Side &s, bool check)
{
	int bad = 0;

	if (!s.g)
		return;
	if (s.qb)
		bad += s.g->destroy_qp(s.qb) != 0;
	if (s.qa)
		bad += s.g->destroy_qp(s.qa) != 0;
	if (s.mr)
		bad += s.g->dereg_mr(s.mr) != 0;
	if (s.rcq)
		bad += s.g->destroy_cq(ibv_cq_ex_to_cq(s.rcq)) != 0;
	if (s.scq)
		bad += s.g->destroy_cq(ibv_cq_ex_to_cq(s.scq)) != 0;
	if (s.pd)
		bad += s.g->dealloc_pd(s.pd) != 0;
	if (s.ctx)
		bad += s.g->close_device(s.ctx) != 0;
	if (check)
		CU_ASSERT_EQUAL(bad, 0);
	free(s.buf);
	memset(&s, 0, sizeof(s));
}

/* ---- the stream ----------------------------------------------------------------------- */

struct Sge {
	uint32_t off; /**< in the buffer */
	uint32_t len;
};

/** One work request, in offsets: the same for both sides. */
struct Wr {
	Op op;
	std::vector<Sge> sges; /**< local: gather (write, send, memcpy source), scatter (read) */
	uint32_t remote_off;   /**< write/read: the peer's address; send: the receive
				  buffer; memcpy: the destination */
	uint32_t total;
};

uint64_t g_rng;

uint32_t rnd(uint32_t n)
{
	g_rng = g_rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(g_rng >> 33) % n;
}

Wr make_wr(uint32_t max_mmo)
{
	Wr w;

	w.op = (Op)rnd(g_mmo ? OP_N : OP_MEMCPY);
	unsigned n = w.op == OP_MEMCPY ? 1 : 1 + rnd(kMaxSge);
	uint32_t cap = w.op == OP_SEND_INLINE ? kMaxInline : kMaxSgeLen * kMaxSge;
	bool local_in_dst = w.op == OP_READ;

	w.total = 0;
	for (unsigned i = 0; i < n; i++) {
		uint32_t len = 1 + rnd(w.op == OP_MEMCPY ? max_mmo : kMaxSgeLen);
		if (w.total + len > cap)
			len = cap - w.total;
		if (!len)
			break;
		Sge s = {rnd((uint32_t)kRegion - len), len};
		if (local_in_dst)
			s.off += kRegion;
		w.sges.push_back(s);
		w.total += len;
	}
	w.remote_off = rnd((uint32_t)kRegion - w.total);
	if (!local_in_dst)
		w.remote_off += kRegion;
	return w;
}

/** Post @p w on side @p s (one signaled WR). */
int post(Side &s, const Wr &w, uint64_t wr_id)
{
	struct ibv_sge sg[kMaxSge];
	struct ibv_data_buf ib[kMaxSge];
	size_t n = w.sges.size();

	for (size_t i = 0; i < n; i++) {
		sg[i].addr = (uint64_t)(uintptr_t)(s.buf + w.sges[i].off);
		sg[i].length = w.sges[i].len;
		sg[i].lkey = s.mr->lkey;
		ib[i].addr = s.buf + w.sges[i].off;
		ib[i].length = w.sges[i].len;
	}
	if (w.op == OP_SEND || w.op == OP_SEND_INLINE) {
		struct ibv_sge rs = {(uint64_t)(uintptr_t)(s.buf + w.remote_off), w.total,
				     s.mr->lkey};
		struct ibv_recv_wr rwr = {}, *bad;

		rwr.wr_id = wr_id;
		rwr.sg_list = &rs;
		rwr.num_sge = 1;
		if (ibv_post_recv(s.qb, &rwr, &bad))
			return -EIO;
	}
	ibv_wr_start(s.qx);
	s.qx->wr_id = wr_id;
	s.qx->wr_flags = IBV_SEND_SIGNALED;
	uint64_t raddr = (uint64_t)(uintptr_t)(s.buf + w.remote_off);
	switch (w.op) {
	case OP_WRITE:
		ibv_wr_rdma_write(s.qx, s.mr->rkey, raddr);
		ibv_wr_set_sge_list(s.qx, n, sg);
		break;
	case OP_READ:
		ibv_wr_rdma_read(s.qx, s.mr->rkey, raddr);
		ibv_wr_set_sge_list(s.qx, n, sg);
		break;
	case OP_SEND:
		ibv_wr_send(s.qx);
		ibv_wr_set_sge_list(s.qx, n, sg);
		break;
	case OP_SEND_INLINE:
		s.qx->wr_flags |= IBV_SEND_INLINE;
		ibv_wr_send(s.qx);
		ibv_wr_set_inline_data_list(s.qx, n, ib);
		break;
	default:
		mlx5dv_wr_memcpy(s.dvx, s.mr->lkey, raddr, s.mr->lkey, sg[0].addr, sg[0].length);
		break;
	}
	return ibv_wr_complete(s.qx);
}

/* ---- WQE capture and the masking rule -------------------------------------------------- */

constexpr uint8_t kOpcRdmaWrite = 0x08;
constexpr uint8_t kOpcSend = 0x0a;
constexpr uint8_t kOpcRdmaRead = 0x10;
constexpr uint8_t kOpcMmo = 0x2f;

/**
 * Poison the next WQEBBs of the SQ (the device is done with them: every WR before
 * was completed) with the same bytes on both sides, so that a byte a builder leaves
 * untouched compares equal on both only if both leave it.
 */
void poison(Side &s)
{
	uint8_t *ring = static_cast<uint8_t *>(s.sq.sq.buf);
	uint32_t cnt = s.sq.sq.wqe_cnt, stride = s.sq.sq.stride;

	for (uint32_t i = 0; i < 4; i++)
		memset(ring + (size_t)((s.sq_pi + i) & (cnt - 1)) * stride, 0xa5, stride);
}

/** The WQE at the SQ producer index (ds from its ctrl), unwrapped; the index moves on. */
std::vector<uint8_t> capture(Side &s)
{
	uint32_t idx = s.sq_pi;
	const uint8_t *ring = static_cast<const uint8_t *>(s.sq.sq.buf);
	uint32_t cnt = s.sq.sq.wqe_cnt, stride = s.sq.sq.stride;
	uint32_t slot = idx & (cnt - 1);
	const uint8_t *ctrl = ring + (size_t)slot * stride;
	size_t len = (size_t)(ctrl[7] & 0x3f) * 16;
	std::vector<uint8_t> out(len);
	size_t ring_bytes = (size_t)cnt * stride;
	size_t at = (size_t)slot * stride;

	for (size_t i = 0; i < len; i++)
		out[i] = ring[(at + i) % ring_bytes];
	s.sq_pi += (uint32_t)((len + stride - 1) / stride);
	return out;
}

void put_be64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, 8);
}

uint64_t get_be64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

/** A data segment: byte count compared, lkey masked, address as an offset in the buffer. */
void mask_data(const Side &s, uint8_t *d)
{
	memset(d + 4, 0, 4);
	put_be64(d + 8, get_be64(d + 8) - (uint64_t)(uintptr_t)s.buf);
}

/**
 * The masking rule: what may differ between two drivers posting the same WR on two
 * QPs of one device, all else compared byte for byte (the WQE index included: both
 * streams start at 0; bytes a builder leaves stale included: the next WQEBBs hold
 * the same poison on both sides before each post).
 *  - ctrl: the QPN (bytes 4..6): another QP; the signature (byte 8): a checksum over
 *    bytes that hold the QPN and keys.
 *  - remote address segment: rkey masked, address taken relative to the side's buffer.
 *  - data segments: lkey masked, address relative to the side's buffer; inline data
 *    segments compared whole.
 *  - MMO metadata: the key and address of the per-PD opaque buffer (another PD, another
 *    allocation).
 */
void mask_wqe(const Side &s, std::vector<uint8_t> &w)
{
	uint8_t *p = w.data();
	size_t len = w.size(), at = 16;

	if (len < 16)
		return;
	memset(p + 4, 0, 3);
	p[8] = 0;
	switch (p[3]) {
	case kOpcRdmaWrite:
	case kOpcRdmaRead:
		if (len >= 32) {
			put_be64(p + 16, get_be64(p + 16) - (uint64_t)(uintptr_t)s.buf);
			memset(p + 24, 0, 4);
		}
		at = 32;
		break;
	case kOpcMmo:
		if (len >= 32)
			memset(p + 20, 0, 12);
		at = 32;
		break;
	case kOpcSend: /* its data segments follow the control segment */
	default:
		break;
	}
	if (at < len && (p[at] & 0x80))
		return; /* inline data: compared as is */
	for (; at + 16 <= len; at += 16)
		mask_data(s, p + at);
}

std::string hex(const std::vector<uint8_t> &w)
{
	std::string out;
	char b[4];

	for (size_t i = 0; i < w.size(); i++) {
		snprintf(b, sizeof(b), "%02x", w[i]);
		out += b;
		if (i % 16 == 15)
			out += i + 1 < w.size() ? "\n      " : "";
		else if (i % 4 == 3)
			out += ' ';
	}
	return out;
}

/* ---- completions ------------------------------------------------------------------------- */

/** What is compared of one completion. */
struct Cqe {
	int status = -1;
	int wc_opcode = -1;
	uint32_t wc_len = 0;
	uint8_t opcode = 0;   /**< CQE op_own >> 4 */
	uint8_t syndrome = 0; /**< error CQEs */
	uint32_t byte_cnt = 0;
	uint16_t wqe_counter = 0;

	bool operator==(const Cqe &o) const
	{
		return status == o.status && wc_opcode == o.wc_opcode && wc_len == o.wc_len &&
		       opcode == o.opcode && syndrome == o.syndrome && byte_cnt == o.byte_cnt &&
		       wqe_counter == o.wqe_counter;
	}
};

/** Poll one completion of @p cq: its raw CQE (read at the consumer index) and its wc. */
int poll_one(struct ibv_cq_ex *cq, const struct mlx5dv_cq &dv, uint32_t *ci, Cqe *out)
{
	struct ibv_poll_cq_attr pa = {};
	uint64_t deadline = glue_test_now_ms() + kTimeoutMs;
	int ret;

	while ((ret = ibv_start_poll(cq, &pa)) == ENOENT && glue_test_now_ms() < deadline)
		;
	if (ret)
		return ret == ENOENT ? -ETIMEDOUT : -EIO;
	const uint8_t *cqe = static_cast<const uint8_t *>(dv.buf) +
			     (size_t)(*ci & (dv.cqe_cnt - 1)) * dv.cqe_size;
	if (dv.cqe_size == 128)
		cqe += 64;
	uint32_t bc;
	uint16_t wc;

	memcpy(&bc, cqe + 44, 4);
	memcpy(&wc, cqe + 60, 2);
	out->opcode = cqe[63] >> 4;
	out->syndrome = out->opcode == 0xd || out->opcode == 0xe ? cqe[55] : 0;
	out->byte_cnt = out->opcode == 0xd || out->opcode == 0xe ? 0 : be32toh(bc);
	out->wqe_counter = be16toh(wc);
	out->status = cq->status;
	out->wc_opcode = ibv_wc_read_opcode(cq);
	out->wc_len = out->status == IBV_WC_SUCCESS ? ibv_wc_read_byte_len(cq) : 0;
	ibv_end_poll(cq);
	(*ci)++;
	return 0;
}

/* ---- the test ------------------------------------------------------------------------------ */

unsigned g_counts[OP_N];
unsigned g_wqe_cmp, g_cqe_cmp;

int suite_init()
{
	const struct mlx5_glue *gs = mlx5_glue_sim();
	struct ibv_context *probe;
	bool mmo = true;

	deb_init();
	/* the kernel side creates mlx5_0's Hca at the first open; the imitation shares it */
	probe = glue_test_open(&g_deb, "mlx5_0");
	if (!probe)
		return fprintf(stderr, "mlx5_0 does not open: %s\n", strerror(errno)), -1;
	auto hca = mlx5sim::kernel::device_hca(mlx5sim::kernel::device(0));
	if (!hca || mlx5sim::sim_device_add_hca("sim0", hca))
		return fprintf(stderr, "mlx5_0's HCA cannot be registered as sim0\n"), -1;
	ibv_close_device(probe);
	for (int attempt = 0; attempt < 2; attempt++, mmo = false) {
		int r0 = side_open(g_side[0], "libmlx5", &g_deb, "mlx5_0", mmo);
		int r1 = r0 ? r0 : side_open(g_side[1], "imitation", gs, "sim0", mmo);

		if (!r0 && !r1) {
			g_mmo = mmo;
			if (!mmo)
				printf("\n  (no memcpy MMO QP on one side: memcpy left out)\n");
			return 0;
		}
		side_close(g_side[1], false);
		side_close(g_side[0], false);
		fprintf(stderr, "sides (mmo %d): libmlx5 %d, imitation %d\n", mmo, r0, r1);
	}
	return -1;
}

int suite_clean()
{
	side_close(g_side[1], false);
	side_close(g_side[0], false);
	return 0;
}

void test_close()
{
	side_close(g_side[1], true);
	side_close(g_side[0], true);
}

void test_same_ring_shape()
{
	CU_ASSERT_EQUAL(g_side[0].sq.sq.wqe_cnt, g_side[1].sq.sq.wqe_cnt);
	CU_ASSERT_EQUAL(g_side[0].sq.sq.stride, g_side[1].sq.sq.stride);
	CU_ASSERT_EQUAL(g_side[0].scq_dv.cqe_cnt, g_side[1].scq_dv.cqe_cnt);
	CU_ASSERT_EQUAL(g_side[0].scq_dv.cqe_size, g_side[1].scq_dv.cqe_size);
}

void test_stream()
{
	const char *e = getenv("MLX5_SIM_DIFF_SEED");
	uint64_t seed = e ? strtoull(e, nullptr, 0) : 0xd1ff5eedULL;
	unsigned n_ops = (e = getenv("MLX5_SIM_DIFF_OPS")) ? (unsigned)atoi(e) : 600;
	unsigned fails = 0;

	CU_ASSERT_EQUAL_FATAL(g_side[0].sq.sq.wqe_cnt, g_side[1].sq.sq.wqe_cnt);
	g_rng = seed;
	/* the same source bytes on both sides, destinations zero */
	for (size_t i = 0; i < kRegion; i++)
		g_side[0].buf[i] = g_side[1].buf[i] = (uint8_t)rnd(256);
	memset(g_side[0].buf + kRegion, 0, kRegion);
	memset(g_side[1].buf + kRegion, 0, kRegion);
	for (unsigned i = 0; i < n_ops && fails < 5; i++) {
		Wr w = make_wr(2 * kMaxSgeLen);
		std::vector<uint8_t> wqe[2];
		Cqe sc[2], rc[2];
		bool recv = w.op == OP_SEND || w.op == OP_SEND_INLINE;

		g_counts[w.op]++;
		for (int k = 0; k < 2; k++) {
			Side &s = g_side[k];

			poison(s);
			CU_ASSERT_EQUAL_FATAL(post(s, w, i), 0);
			wqe[k] = capture(s);
			mask_wqe(s, wqe[k]);
			CU_ASSERT_EQUAL_FATAL(poll_one(s.scq, s.scq_dv, &s.scq_ci, &sc[k]), 0);
			if (recv)
				CU_ASSERT_EQUAL_FATAL(poll_one(s.rcq, s.rcq_dv, &s.rcq_ci, &rc[k]),
						      0);
		}
		g_wqe_cmp++;
		g_cqe_cmp += recv ? 2 : 1;
		bool same_wqe = wqe[0] == wqe[1];
		bool same_cqe = sc[0] == sc[1] && (!recv || rc[0] == rc[1]);
		bool same_data = !memcmp(g_side[0].buf, g_side[1].buf, kBuf);

		if (same_wqe && same_cqe && same_data)
			continue;
		fails++;
		printf("\n  op %u %s, %zu sge, %u bytes: wqe %s, cqe %s, data %s\n", i,
		       kOpName[w.op], w.sges.size(), w.total, same_wqe ? "same" : "DIFFERS",
		       same_cqe ? "same" : "DIFFERS", same_data ? "same" : "DIFFERS");
		for (int k = 0; k < 2 && !same_wqe; k++)
			printf("  %-9s %s\n", g_side[k].name, hex(wqe[k]).c_str());
		for (int k = 0; k < 2 && !same_cqe; k++)
			printf("  %-9s send: status %d op %d len %u cqe op %u synd 0x%x bc %u "
			       "wqe_counter %u; recv: op %u bc %u\n",
			       g_side[k].name, sc[k].status, sc[k].wc_opcode, sc[k].wc_len,
			       sc[k].opcode, sc[k].syndrome, sc[k].byte_cnt, sc[k].wqe_counter,
			       rc[k].opcode, rc[k].byte_cnt);
		CU_FAIL("libmlx5 and the imitation differ");
	}
	printf("\n  seed 0x%llx: %u WQEs and %u CQEs compared (", (unsigned long long)seed,
	       g_wqe_cmp, g_cqe_cmp);
	for (int k = 0; k < OP_N; k++)
		printf("%s%s %u", k ? ", " : "", kOpName[k], g_counts[k]);
	printf("), %u differences\n", fails);
	CU_ASSERT_EQUAL(fails, 0);
	if (g_mmo)
		CU_ASSERT_TRUE(g_counts[OP_MEMCPY] > 0);
}

const struct cunit_test tests[] = {
	{"both drivers size the rings alike", test_same_ring_shape},
	{"the same WR stream: WQE bytes, CQEs, destination bytes", test_stream},
	{"both sides destroy their objects", test_close},
};

} // namespace

int main()
{
	const struct cunit_suite s = {"one device, two drivers (libmlx5 v44 vs imitation)", tests,
				      CUNIT_NELEM(tests), suite_init, suite_clean};

	return cunit_run_suites(&s, 1);
}
