/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Signature offload end to end through the sim backend: the signature scenarios
 * of rdma-core v44.0 tests/test_mlx5_mkey.py (class Mlx5MkeyTest) on two RC QPs of one
 * software HCA, posted with the provider's builders and executed by the device
 * from the WQE bytes: t10dif, crc, sig_err and pipelining_good (data, CQE counts,
 * mlx5dv_mkey_check), plus what the device reports on a signature error (one
 * SIG_ERR CQE consumed silently, BAD_GUARD with expected and actual CRC, the mkey
 * unusable until its next configure).
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <vector>

#include <CUnit/Basic.h>

#include "cunit_run.h"
#include "glue_test_util.h"

#include "mlx5_glue.h"
#include "mlx5_sim.h"

namespace {

const struct mlx5_glue *g;

/** Room for 3 blocks of 4160 bytes with 8 bytes of protection each. */
constexpr size_t kBufBytes = 16384;

/** Bitwise CRC-32 (IEEE, reflected, init = seed, final XOR all ones): the test's own. */
uint32_t crc32_bitwise(const uint8_t *p, size_t n, uint32_t seed)
{
	uint32_t c = seed;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0xEDB88320u : c >> 1;
	}
	return c ^ 0xffffffffu;
}

/** One side of the scenario: QP, CQ, 1 KiB buffer and its signature mkey. */
struct Player {
	struct ibv_cq_ex *cq = nullptr;
	struct ibv_qp *qp = nullptr;
	struct ibv_qp_ex *x = nullptr;
	struct mlx5dv_qp_ex *dv = nullptr;
	struct ibv_mr *mr = nullptr;
	struct mlx5dv_mkey *mkey = nullptr;
	std::vector<uint8_t> buf = std::vector<uint8_t>(kBufBytes);
};

/** Two players on one instance, connected to each other (as Mlx5MkeyTest's resources). */
struct Scenario {
	const char *name;
	struct ibv_context *ctx = nullptr;
	struct ibv_pd *pd = nullptr;
	Player c, s;

	explicit Scenario(const char *n, uint32_t qp_flags = 0, uint32_t sig_extra = 0,
			  enum mlx5_sim_exec_mode mode = MLX5_SIM_EXEC_INLINE)
		: name(n)
	{
		struct mlx5_sim_device_attr attr;
		mlx5_sim_device_attr_init(&attr);
		attr.exec_mode = mode;
		attr.sig_features |= sig_extra;
		CU_ASSERT_EQUAL_FATAL(mlx5_sim_device_add(name, &attr), 0);
		int num = 0;
		struct ibv_device **list = g->get_device_list(&num);
		for (int i = 0; list && i < num; i++)
			if (!strcmp(g->get_device_name(list[i]), name))
				ctx = g->open_device(list[i]);
		g->free_device_list(list);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
		pd = g->alloc_pd(ctx);
		CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
		make(&c, qp_flags);
		make(&s, 0);
		connect(&c, &s);
		connect(&s, &c);
	}
	~Scenario()
	{
		for (Player *p : {&c, &s}) {
			CU_ASSERT_EQUAL(g->destroy_qp(p->qp), 0);
			CU_ASSERT_EQUAL(g->dv_destroy_mkey(p->mkey), 0);
			CU_ASSERT_EQUAL(g->dereg_mr(p->mr), 0);
			CU_ASSERT_EQUAL(g->destroy_cq(ibv_cq_ex_to_cq(p->cq)), 0);
		}
		CU_ASSERT_EQUAL(g->dealloc_pd(pd), 0);
		CU_ASSERT_EQUAL(g->close_device(ctx), 0);
		CU_ASSERT_EQUAL(mlx5_sim_device_remove(name), 0);
	}
	void make(Player *p, uint32_t qp_flags)
	{
		struct ibv_cq_init_attr_ex ca = {};
		ca.cqe = 64;
		p->cq = g->create_cq_ex(ctx, &ca);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p->cq);
		struct ibv_qp_init_attr_ex a = {};
		struct mlx5dv_qp_init_attr dv = {};
		a.qp_type = IBV_QPT_RC;
		a.send_cq = a.recv_cq = ibv_cq_ex_to_cq(p->cq);
		a.cap.max_send_wr = a.cap.max_recv_wr = 64;
		a.cap.max_send_sge = a.cap.max_recv_sge = 1;
		a.cap.max_inline_data = 512;
		a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		a.pd = pd;
		a.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
				   IBV_QP_EX_WITH_RDMA_READ;
		dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS |
			       MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS;
		dv.create_flags = MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE | qp_flags;
		dv.send_ops_flags = MLX5DV_QP_EX_WITH_MKEY_CONFIGURE | MLX5DV_QP_EX_WITH_MEMCPY;
		p->qp = g->dv_create_qp(ctx, &a, &dv);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p->qp);
		p->x = g->qp_to_qp_ex(p->qp);
		p->dv = g->dv_qp_ex_from_ibv_qp_ex(p->x);
		p->mr = g->reg_mr(pd, p->buf.data(), p->buf.size(),
				  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
					  IBV_ACCESS_REMOTE_READ);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p->mr);
		struct mlx5dv_mkey_init_attr ma = {};
		ma.pd = pd;
		ma.max_entries = 3;
		ma.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
				  MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE;
		p->mkey = g->dv_create_mkey(&ma);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p->mkey);
	}
	void connect(Player *p, const Player *peer)
	{
		struct ibv_qp_attr a = {};
		a.qp_state = IBV_QPS_INIT;
		a.port_num = 1;
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ;
		CU_ASSERT_EQUAL(g->modify_qp(p->qp, &a,
					     IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
						     IBV_QP_ACCESS_FLAGS),
				0);
		a = {};
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = IBV_MTU_4096;
		a.dest_qp_num = peer->qp->qp_num;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		a.ah_attr.port_num = 1;
		CU_ASSERT_EQUAL(g->modify_qp(p->qp, &a,
					     IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
						     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
						     IBV_QP_MAX_DEST_RD_ATOMIC |
						     IBV_QP_MIN_RNR_TIMER),
				0);
		a = {};
		a.qp_state = IBV_QPS_RTS;
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		CU_ASSERT_EQUAL(g->modify_qp(p->qp, &a,
					     IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
						     IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
						     IBV_QP_MAX_QP_RD_ATOMIC),
				0);
	}
	/** Poll up to @p n completions for a while; returns how many. */
	static int poll(Player *p, struct ibv_wc *wc, int n)
	{
		uint64_t deadline = glue_test_now_ms() + 500;
		int got = 0;
		while (got < n && glue_test_now_ms() < deadline) {
			int r = ibv_poll_cq(ibv_cq_ex_to_cq(p->cq), n - got, wc + got);
			if (r < 0)
				return r;
			got += r;
		}
		return got;
	}
	/**
	 * configure(2 or 3): access, one list SGE of @p len bytes over the buffer,
	 * and the signature block when @p sb is given (else RESET_SIG_ATTR: a signature
	 * stays in force otherwise); one CQE (the UMR or the last PSV).
	 */
	static void configure(Player *p, uint32_t len, int access,
			      const struct mlx5dv_sig_block_attr *sb)
	{
		struct mlx5dv_mkey_conf_attr attr = {};
		struct ibv_sge sge = {(uintptr_t)p->buf.data(), len, p->mr->lkey};
		if (!sb)
			attr.conf_flags = MLX5DV_MKEY_CONF_FLAG_RESET_SIG_ATTR;
		ibv_wr_start(p->x);
		p->x->wr_id = 0x55;
		p->x->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
		mlx5dv_wr_mkey_configure(p->dv, p->mkey, sb ? 3 : 2, &attr);
		mlx5dv_wr_set_mkey_access_flags(p->dv, access);
		mlx5dv_wr_set_mkey_layout_list(p->dv, 1, &sge);
		if (sb)
			mlx5dv_wr_set_mkey_sig_block(p->dv, sb);
		CU_ASSERT_EQUAL(ibv_wr_complete(p->x), 0);
		struct ibv_wc wc[2];
		CU_ASSERT_EQUAL(poll(p, wc, 1), 1);
		CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc[0].opcode, (enum ibv_wc_opcode)MLX5DV_WC_UMR);
		/* everything executed (the last WQE completed); only that one completes */
		CU_ASSERT_EQUAL(ibv_poll_cq(ibv_cq_ex_to_cq(p->cq), 1, wc), 0);
	}
	/** Server receives @p len bytes into its mkey, client sends them from its mkey. */
	void send_recv(uint32_t len)
	{
		struct ibv_sge rs = {0, len, s.mkey->lkey};
		struct ibv_recv_wr rwr = {}, *bad_r;
		rwr.wr_id = 2;
		rwr.sg_list = &rs;
		rwr.num_sge = 1;
		CU_ASSERT_EQUAL(ibv_post_recv(s.qp, &rwr, &bad_r), 0);
		ibv_wr_start(c.x);
		c.x->wr_id = 1;
		c.x->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(c.x);
		ibv_wr_set_sge(c.x, c.mkey->lkey, 0, len);
		CU_ASSERT_EQUAL(ibv_wr_complete(c.x), 0);
	}
	void fill()
	{
		memset(c.buf.data(), 'c', c.buf.size());
		memset(s.buf.data(), 's', s.buf.size());
	}
	/** Server buffer = 'c' * 512 + 's' * the rest. */
	bool server_has_512() const
	{
		for (size_t i = 0; i < s.buf.size(); i++)
			if (s.buf[i] != (i < 512 ? 'c' : 's'))
				return false;
		return true;
	}
};

struct mlx5dv_sig_t10dif t10dif()
{
	struct mlx5dv_sig_t10dif d = {};
	d.bg_type = MLX5DV_SIG_T10DIF_CRC;
	d.bg = 0xffff;
	d.app_tag = 0xabcd;
	d.ref_tag = 0x01234567;
	d.flags = MLX5DV_SIG_T10DIF_FLAG_REF_REMAP | MLX5DV_SIG_T10DIF_FLAG_APP_ESCAPE |
		  MLX5DV_SIG_T10DIF_FLAG_APP_REF_ESCAPE;
	return d;
}

uint32_t mkey_check(struct mlx5dv_mkey *mkey, struct mlx5dv_mkey_err *err)
{
	memset(err, 0, sizeof(*err));
	CU_ASSERT_EQUAL(g->dv_mkey_check(mkey, err, sizeof(*err)), 0);
	return err->err_type;
}

/** Both players: the same wire-domain signature, 10 SEND/RECV of 512 bytes, NO_ERR. */
void wire_scenario(const char *name, struct mlx5dv_sig_block_domain *wire, uint8_t check)
{
	Scenario sc(name);
	struct mlx5dv_sig_block_attr sb = {};
	sb.wire = wire;
	sb.check_mask = check;
	Scenario::configure(&sc.c, 512, IBV_ACCESS_LOCAL_WRITE, &sb);
	Scenario::configure(&sc.s, 512, IBV_ACCESS_LOCAL_WRITE, &sb);
	for (int it = 0; it < 10; it++) {
		struct ibv_wc wc;
		sc.fill();
		sc.send_recv(512);
		CU_ASSERT_EQUAL(Scenario::poll(&sc.c, &wc, 1), 1);
		CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(Scenario::poll(&sc.s, &wc, 1), 1);
		CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc.byte_len, 512u);
		CU_ASSERT(sc.server_has_512());
	}
	struct mlx5dv_mkey_err err;
	CU_ASSERT_EQUAL(mkey_check(sc.c.mkey, &err), MLX5DV_MKEY_NO_ERR);
	CU_ASSERT_EQUAL(mkey_check(sc.s.mkey, &err), MLX5DV_MKEY_NO_ERR);
}

/* test_mkey_sig_t10dif: wire T10-DIF CRC guard, all three flags, check 0xff. */
void test_sig_t10dif(void)
{
	struct mlx5dv_sig_t10dif d = t10dif();
	struct mlx5dv_sig_block_domain w = {};
	w.sig_type = MLX5DV_SIG_TYPE_T10DIF;
	w.sig.dif = &d;
	w.block_size = MLX5DV_BLOCK_SIZE_512;
	wire_scenario("sim61", &w, 0xff);
}

/* test_mkey_sig_crc: wire CRC32 seed all ones, check 0xf0. */
void test_sig_crc(void)
{
	struct mlx5dv_sig_crc crc = {};
	crc.type = MLX5DV_SIG_CRC_TYPE_CRC32;
	crc.seed = 0xffffffff;
	struct mlx5dv_sig_block_domain w = {};
	w.sig_type = MLX5DV_SIG_TYPE_CRC;
	w.sig.crc = &crc;
	w.block_size = MLX5DV_BLOCK_SIZE_512;
	wire_scenario("sim62", &w, 0xf0);
}

/*
 * test_mkey_sig_err: the client's mkey has a memory-domain CRC32 over 516 bytes
 * ('c' data and 'cccc' as CRC); the SEND of 512 succeeds on both sides, a SIG_ERR
 * CQE is consumed on the client's CQ and mkey_check reports BAD_GUARD once, with
 * the CRC the device computed and the bytes it found. The mkey then refuses data
 * until the next configure re-arms it.
 */
void test_sig_err(void)
{
	Scenario sc("sim63");
	struct mlx5dv_sig_crc crc = {};
	crc.type = MLX5DV_SIG_CRC_TYPE_CRC32;
	crc.seed = 0xffffffff;
	struct mlx5dv_sig_block_domain m = {};
	m.sig_type = MLX5DV_SIG_TYPE_CRC;
	m.sig.crc = &crc;
	m.block_size = MLX5DV_BLOCK_SIZE_512;
	struct mlx5dv_sig_block_attr sb = {};
	sb.mem = &m;
	sb.check_mask = 0xf0;
	Scenario::configure(&sc.s, 512, IBV_ACCESS_LOCAL_WRITE, nullptr);
	Scenario::configure(&sc.c, 516, IBV_ACCESS_LOCAL_WRITE, &sb);
	sc.fill();
	sc.send_recv(512);
	struct ibv_wc wc;
	CU_ASSERT_EQUAL(Scenario::poll(&sc.c, &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, 1u);
	CU_ASSERT_EQUAL(Scenario::poll(&sc.s, &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	CU_ASSERT(sc.server_has_512());
	struct mlx5dv_mkey_err err;
	CU_ASSERT_EQUAL(mkey_check(sc.c.mkey, &err), MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD);
	uint32_t want = crc32_bitwise(sc.c.buf.data(), 512, 0xffffffff);
	CU_ASSERT_EQUAL(err.err.sig.expected_value, want);
	CU_ASSERT_EQUAL(err.err.sig.actual_value, 0x63636363u);
	CU_ASSERT_EQUAL(err.err.sig.offset, 0u);
	CU_ASSERT_EQUAL(mkey_check(sc.c.mkey, &err), MLX5DV_MKEY_NO_ERR); /* reported once */
	CU_ASSERT_EQUAL(mkey_check(sc.s.mkey, &err), MLX5DV_MKEY_NO_ERR);

	/* until re-armed, the mkey refuses data: a local protection error */
	sc.send_recv(512);
	CU_ASSERT_EQUAL(Scenario::poll(&sc.c, &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_LOC_PROT_ERR);
}

/* A correct CRC in memory passes: no SIG_ERR, NO_ERR; the re-armed mkey works. */
void test_sig_mem_crc_good(void)
{
	Scenario sc("sim64");
	struct mlx5dv_sig_crc crc = {};
	crc.type = MLX5DV_SIG_CRC_TYPE_CRC32;
	crc.seed = 0;
	struct mlx5dv_sig_block_domain m = {};
	m.sig_type = MLX5DV_SIG_TYPE_CRC;
	m.sig.crc = &crc;
	m.block_size = MLX5DV_BLOCK_SIZE_512;
	struct mlx5dv_sig_block_attr sb = {};
	sb.mem = &m;
	sb.check_mask = 0xf0;
	Scenario::configure(&sc.s, 512, IBV_ACCESS_LOCAL_WRITE, nullptr);
	Scenario::configure(&sc.c, 516, IBV_ACCESS_LOCAL_WRITE, &sb);
	sc.fill();
	uint32_t v = crc32_bitwise(sc.c.buf.data(), 512, 0);
	uint8_t be[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
	memcpy(sc.c.buf.data() + 512, be, 4);
	sc.send_recv(512);
	struct ibv_wc wc;
	CU_ASSERT_EQUAL(Scenario::poll(&sc.c, &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(Scenario::poll(&sc.s, &wc, 1), 1);
	CU_ASSERT(sc.server_has_512());
	struct mlx5dv_mkey_err err;
	CU_ASSERT_EQUAL(mkey_check(sc.c.mkey, &err), MLX5DV_MKEY_NO_ERR);
}

/*
 * test_mkey_sig_pipelining_good (without the SIG_PIPELINING QP flag): an
 * unsignalled RDMA_WRITE of 512 through the client's memory-CRC32 mkey (seed 0,
 * check mask 0: nothing checked) into the server's plain mkey, then a fenced
 * SEND of 16 bytes from a plain MR: one CQE on each side.
 */
void test_sig_rdma_unchecked(void)
{
	Scenario sc("sim65");
	struct mlx5dv_sig_crc crc = {};
	crc.type = MLX5DV_SIG_CRC_TYPE_CRC32;
	crc.seed = 0;
	struct mlx5dv_sig_block_domain m = {};
	m.sig_type = MLX5DV_SIG_TYPE_CRC;
	m.sig.crc = &crc;
	m.block_size = MLX5DV_BLOCK_SIZE_512;
	struct mlx5dv_sig_block_attr sb = {};
	sb.mem = &m;
	sb.check_mask = 0;
	Scenario::configure(&sc.c, 516, IBV_ACCESS_LOCAL_WRITE, &sb);
	Scenario::configure(&sc.s, 512, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, nullptr);
	memset(sc.c.buf.data(), 0, sc.c.buf.size());
	memset(sc.s.buf.data(), 's', sc.s.buf.size());
	struct ibv_sge rs = {(uintptr_t)sc.s.buf.data() + 600, 16, sc.s.mr->lkey};
	struct ibv_recv_wr rwr = {}, *bad_r;
	rwr.wr_id = 2;
	rwr.sg_list = &rs;
	rwr.num_sge = 1;
	CU_ASSERT_EQUAL(ibv_post_recv(sc.s.qp, &rwr, &bad_r), 0);
	ibv_wr_start(sc.c.x);
	sc.c.x->wr_id = 1;
	sc.c.x->wr_flags = 0;
	ibv_wr_rdma_write(sc.c.x, sc.s.mkey->rkey, 0);
	ibv_wr_set_sge(sc.c.x, sc.c.mkey->lkey, 0, 512);
	sc.c.x->wr_id = 1;
	sc.c.x->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	ibv_wr_send(sc.c.x);
	ibv_wr_set_sge(sc.c.x, sc.c.mr->lkey, (uintptr_t)sc.c.buf.data() + 768, 16);
	CU_ASSERT_EQUAL(ibv_wr_complete(sc.c.x), 0);
	struct ibv_wc wc[2];
	CU_ASSERT_EQUAL(Scenario::poll(&sc.c, wc, 2), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(Scenario::poll(&sc.s, wc, 2), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	for (int i = 0; i < 512; i++)
		if (sc.s.buf[i] != 0) {
			CU_FAIL("RDMA_WRITE data");
			break;
		}
	struct mlx5dv_mkey_err err;
	CU_ASSERT_EQUAL(mkey_check(sc.c.mkey, &err), MLX5DV_MKEY_NO_ERR);
	CU_ASSERT_EQUAL(mkey_check(sc.s.mkey, &err), MLX5DV_MKEY_NO_ERR);
}

/* ---- the matrix: the test's own bitwise guards, independent of the model ---- */

uint64_t reflected_crc(const uint8_t *p, size_t n, uint32_t poly, uint32_t seed)
{
	uint32_t c = seed;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ poly : c >> 1;
	}
	return c ^ 0xffffffffu;
}

uint64_t crc64_bitwise(const uint8_t *p, size_t n, uint64_t seed)
{
	uint64_t c = seed;
	for (size_t i = 0; i < n; i++) {
		c ^= (uint64_t)p[i] << 56;
		for (int k = 0; k < 8; k++)
			c = c >> 63 ? (c << 1) ^ 0x42F0E1EBA9EA3693ull : c << 1;
	}
	return c ^ seed;
}

uint16_t crc16_bitwise(const uint8_t *p, size_t n, uint16_t seed)
{
	uint16_t c = seed;
	for (size_t i = 0; i < n; i++) {
		c ^= (uint16_t)(p[i] << 8);
		for (int k = 0; k < 8; k++)
			c = c & 0x8000 ? (uint16_t)((c << 1) ^ 0x8BB7) : (uint16_t)(c << 1);
	}
	return c;
}

uint16_t ipcs_bitwise(const uint8_t *p, size_t n, uint16_t seed)
{
	uint32_t sum = seed;
	for (size_t i = 0; i < n; i += 2) {
		sum += (uint32_t)(p[i] << 8 | (i + 1 < n ? p[i + 1] : 0));
		sum = (sum & 0xffff) + (sum >> 16);
	}
	return (uint16_t)~sum;
}

/** One signature kind of the matrix. */
struct Kind {
	const char *name;
	uint32_t sig_type; /* MLX5DV_SIG_TYPE_* */
	uint32_t sub;      /* T10-DIF bg_type or CRC type */
	uint8_t pi;
	uint8_t check; /* check mask covering every protection byte */
};
const Kind kKinds[] = {
	{"T10-DIF CRC", MLX5DV_SIG_TYPE_T10DIF, MLX5DV_SIG_T10DIF_CRC, 8, 0xff},
	{"T10-DIF CSUM", MLX5DV_SIG_TYPE_T10DIF, MLX5DV_SIG_T10DIF_CSUM, 8, 0xff},
	{"CRC32", MLX5DV_SIG_TYPE_CRC, MLX5DV_SIG_CRC_TYPE_CRC32, 4, 0xf0},
	{"CRC32C", MLX5DV_SIG_TYPE_CRC, MLX5DV_SIG_CRC_TYPE_CRC32C, 4, 0xf0},
	{"CRC64_XP10", MLX5DV_SIG_TYPE_CRC, MLX5DV_SIG_CRC_TYPE_CRC64_XP10, 8, 0xff},
};
const struct {
	uint32_t bytes;
	enum mlx5dv_block_size sel;
} kSizes[] = {{512, MLX5DV_BLOCK_SIZE_512},
	      {520, MLX5DV_BLOCK_SIZE_520},
	      {4048, MLX5DV_BLOCK_SIZE_4048},
	      {4096, MLX5DV_BLOCK_SIZE_4096},
	      {4160, MLX5DV_BLOCK_SIZE_4160}};

/** A domain description and the attribute structures it points at. */
struct Dom {
	struct mlx5dv_sig_t10dif dif = {};
	struct mlx5dv_sig_crc crc = {};
	struct mlx5dv_sig_block_domain d = {};
	const Kind *k = nullptr;
	uint32_t bs = 0;
	bool ones = false;

	void set(const Kind &kind, uint32_t size_idx, bool seed_ones, uint16_t flags)
	{
		k = &kind;
		bs = kSizes[size_idx].bytes;
		ones = seed_ones;
		d = {};
		d.block_size = kSizes[size_idx].sel;
		d.sig_type = (enum mlx5dv_sig_type)kind.sig_type;
		if (kind.sig_type == MLX5DV_SIG_TYPE_T10DIF) {
			dif = {};
			dif.bg_type = (enum mlx5dv_sig_t10dif_bg_type)kind.sub;
			dif.bg = seed_ones ? 0xffff : 0;
			dif.app_tag = 0x5a5a;
			dif.ref_tag = 0x1000;
			dif.flags = flags;
			d.sig.dif = &dif;
		} else {
			crc = {};
			crc.type = (enum mlx5dv_sig_crc_type)kind.sub;
			crc.seed = seed_ones ? (kind.sub == MLX5DV_SIG_CRC_TYPE_CRC64_XP10
							? ~0ull
							: 0xffffffffull)
					     : 0;
			d.sig.crc = &crc;
		}
	}
	/** The protection bytes of block @p b (expected, big-endian). */
	void pi(const uint8_t *data, uint64_t b, uint8_t *out) const
	{
		uint64_t v;
		switch (k->sub | (k->sig_type << 8)) {
		case MLX5DV_SIG_T10DIF_CRC | (MLX5DV_SIG_TYPE_T10DIF << 8):
		case MLX5DV_SIG_T10DIF_CSUM | (MLX5DV_SIG_TYPE_T10DIF << 8): {
			uint16_t gd = k->sub == MLX5DV_SIG_T10DIF_CRC
					      ? crc16_bitwise(data, bs, dif.bg)
					      : ipcs_bitwise(data, bs, dif.bg);
			uint32_t ref = dif.flags & MLX5DV_SIG_T10DIF_FLAG_REF_REMAP
					       ? dif.ref_tag + (uint32_t)b
					       : dif.ref_tag;
			uint8_t t[8] = {(uint8_t)(gd >> 8),          (uint8_t)gd,
					(uint8_t)(dif.app_tag >> 8), (uint8_t)dif.app_tag,
					(uint8_t)(ref >> 24),        (uint8_t)(ref >> 16),
					(uint8_t)(ref >> 8),         (uint8_t)ref};
			memcpy(out, t, 8);
			return;
		}
		case MLX5DV_SIG_CRC_TYPE_CRC64_XP10 | (MLX5DV_SIG_TYPE_CRC << 8):
			v = crc64_bitwise(data, bs, ones ? ~0ull : 0);
			for (int i = 0; i < 8; i++)
				out[i] = (uint8_t)(v >> (56 - 8 * i));
			return;
		default:
			v = reflected_crc(data, bs,
					  k->sub == MLX5DV_SIG_CRC_TYPE_CRC32 ? 0xEDB88320u
									      : 0x82F63B78u,
					  ones ? 0xffffffffu : 0);
			for (int i = 0; i < 4; i++)
				out[i] = (uint8_t)(v >> (24 - 8 * i));
			return;
		}
	}
};

constexpr uint32_t kBlocks = 3;

/** Fill @p p with @p nb blocks of data (pattern @p seed) each followed by @p d's PI. */
void lay_out(uint8_t *p, const Dom &d, uint32_t nb, uint8_t seed)
{
	for (uint32_t b = 0; b < nb; b++) {
		uint8_t *blk = p + b * (d.bs + d.k->pi);
		for (uint32_t i = 0; i < d.bs; i++)
			blk[i] = (uint8_t)(seed + b * 7 + i * 13 + (i >> 8));
		d.pi(blk, b, blk + d.bs);
	}
}

/** Data of block b of lay_out() at byte i. */
uint8_t data_at(uint8_t seed, uint32_t b, uint32_t i)
{
	return (uint8_t)(seed + b * 7 + i * 13 + (i >> 8));
}

/**
 * Every block size x every signature kind, 3 blocks per transfer, seeds
 * alternating: insert (client: wire only) + verify on the wire and insert in
 * memory (server: wire and memory) gives the server's memory as data + PI;
 * strip (client: memory only, correct PI) gives plain data; convert (client:
 * memory kind A, wire kind B; server: wire B verified, memory none).
 */
void test_matrix(void)
{
	Scenario sc("sim66");
	uint32_t n = 0;
	for (uint32_t si = 0; si < sizeof(kSizes) / sizeof(kSizes[0]); si++) {
		for (uint32_t ki = 0; ki < sizeof(kKinds) / sizeof(kKinds[0]); ki++, n++) {
			const Kind &k = kKinds[ki];
			const Kind &k2 = kKinds[(ki + 2) % 5];
			bool ones = n & 1;
			uint16_t fl = MLX5DV_SIG_T10DIF_FLAG_REF_REMAP;
			Dom a, b;
			a.set(k, si, ones, fl);
			b.set(k2, si, !ones, fl);
			uint32_t bs = a.bs, wlen = kBlocks * (bs + k.pi);
			struct mlx5dv_sig_block_attr sb = {};
			struct mlx5dv_mkey_err err;
			struct ibv_wc wc;
			std::vector<uint8_t> want(kBufBytes);

			/* insert: client wire A; server wire A (checked) + memory A */
			sb = {};
			sb.wire = &a.d;
			sb.check_mask = k.check;
			Scenario::configure(&sc.c, kBlocks * bs, IBV_ACCESS_LOCAL_WRITE, &sb);
			sb.mem = &a.d;
			Scenario::configure(&sc.s, wlen, IBV_ACCESS_LOCAL_WRITE, &sb);
			sc.fill();
			for (uint32_t bl = 0; bl < kBlocks; bl++)
				for (uint32_t i = 0; i < bs; i++)
					sc.c.buf[bl * bs + i] = data_at(0x21, bl, i);
			lay_out(want.data(), a, kBlocks, 0x21);
			sc.send_recv(wlen);
			CU_ASSERT_EQUAL(Scenario::poll(&sc.c, &wc, 1), 1);
			CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
			CU_ASSERT_EQUAL(Scenario::poll(&sc.s, &wc, 1), 1);
			CU_ASSERT_EQUAL(wc.byte_len, wlen);
			if (memcmp(sc.s.buf.data(), want.data(), wlen))
				CU_FAIL("insert: server memory != data + PI");
			CU_ASSERT_EQUAL(mkey_check(sc.s.mkey, &err), MLX5DV_MKEY_NO_ERR);
			CU_ASSERT_EQUAL(mkey_check(sc.c.mkey, &err), MLX5DV_MKEY_NO_ERR);

			/* strip: client memory A with correct PI; server plain */
			sb = {};
			sb.mem = &a.d;
			sb.check_mask = k.check;
			Scenario::configure(&sc.c, wlen, IBV_ACCESS_LOCAL_WRITE, &sb);
			Scenario::configure(&sc.s, kBlocks * bs, IBV_ACCESS_LOCAL_WRITE, nullptr);
			sc.fill();
			lay_out(sc.c.buf.data(), a, kBlocks, 0x33);
			sc.send_recv(kBlocks * bs);
			CU_ASSERT_EQUAL(Scenario::poll(&sc.c, &wc, 1), 1);
			CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
			CU_ASSERT_EQUAL(Scenario::poll(&sc.s, &wc, 1), 1);
			for (uint32_t bl = 0; bl < kBlocks; bl++)
				for (uint32_t i = 0; i < bs; i += 97)
					if (sc.s.buf[bl * bs + i] != data_at(0x33, bl, i)) {
						CU_FAIL("strip: data");
						bl = kBlocks;
						break;
					}
			CU_ASSERT_EQUAL(mkey_check(sc.c.mkey, &err), MLX5DV_MKEY_NO_ERR);

			/* convert: client memory A -> wire B; server verifies B, strips it */
			sb = {};
			sb.mem = &a.d;
			sb.wire = &b.d;
			sb.check_mask = k.check;
			Scenario::configure(&sc.c, wlen, IBV_ACCESS_LOCAL_WRITE, &sb);
			sb = {};
			sb.wire = &b.d;
			sb.check_mask = k2.check;
			Scenario::configure(&sc.s, kBlocks * bs, IBV_ACCESS_LOCAL_WRITE, &sb);
			sc.fill();
			lay_out(sc.c.buf.data(), a, kBlocks, 0x44);
			uint32_t blen = kBlocks * (bs + k2.pi);
			sc.send_recv(blen);
			CU_ASSERT_EQUAL(Scenario::poll(&sc.c, &wc, 1), 1);
			CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
			CU_ASSERT_EQUAL(Scenario::poll(&sc.s, &wc, 1), 1);
			CU_ASSERT_EQUAL(wc.byte_len, blen);
			CU_ASSERT_EQUAL(sc.s.buf[2 * bs + 5], data_at(0x44, 2, 5));
			CU_ASSERT_EQUAL(sc.s.buf[kBlocks * bs], 's');
			CU_ASSERT_EQUAL(mkey_check(sc.c.mkey, &err), MLX5DV_MKEY_NO_ERR);
			CU_ASSERT_EQUAL(mkey_check(sc.s.mkey, &err), MLX5DV_MKEY_NO_ERR);
		}
	}
}

/**
 * Verify errors in the first, a middle and the last block, per kind: the
 * corrupted protection byte gives exactly one syndrome (guard before app tag
 * before ref tag), the expected value the test computed, the offset of the
 * failing block in the memory layout; the data still moves; the next
 * configure re-arms the mkey.
 */
void test_verify_errors(void)
{
	Scenario sc("sim67");
	for (uint32_t ki = 0; ki < sizeof(kKinds) / sizeof(kKinds[0]); ki++) {
		const Kind &k = kKinds[ki];
		for (uint32_t bad = 0; bad < kBlocks; bad++) {
			for (uint32_t byte : {0u, 2u, 4u}) {
				if (byte >= k.pi)
					continue;
				Dom a;
				a.set(k, 0, bad & 1, MLX5DV_SIG_T10DIF_FLAG_REF_REMAP);
				uint32_t mblk = a.bs + k.pi, wlen = kBlocks * a.bs;
				struct mlx5dv_sig_block_attr sb = {};
				sb.mem = &a.d;
				sb.check_mask = k.check;
				Scenario::configure(&sc.c, kBlocks * mblk, IBV_ACCESS_LOCAL_WRITE,
						    &sb);
				Scenario::configure(&sc.s, wlen, IBV_ACCESS_LOCAL_WRITE, nullptr);
				sc.fill();
				lay_out(sc.c.buf.data(), a, kBlocks, 0x55);
				uint8_t good[8];
				memcpy(good, &sc.c.buf[bad * mblk + a.bs], 8);
				sc.c.buf[bad * mblk + a.bs + byte] ^= 0x10;
				sc.send_recv(wlen);
				struct ibv_wc wc;
				CU_ASSERT_EQUAL(Scenario::poll(&sc.c, &wc, 1), 1);
				CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
				CU_ASSERT_EQUAL(Scenario::poll(&sc.s, &wc, 1), 1);
				CU_ASSERT_EQUAL(sc.s.buf[(kBlocks - 1) * a.bs],
						data_at(0x55, kBlocks - 1, 0));
				struct mlx5dv_mkey_err err;
				uint32_t type = mkey_check(sc.c.mkey, &err);
				bool t10 = k.sig_type == MLX5DV_SIG_TYPE_T10DIF;
				uint32_t want = !t10 || byte == 0 ? MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD
						: byte == 2       ? MLX5DV_MKEY_SIG_BLOCK_BAD_APPTAG
							    : MLX5DV_MKEY_SIG_BLOCK_BAD_REFTAG;
				CU_ASSERT_EQUAL(type, want);
				CU_ASSERT_EQUAL(err.err.sig.offset, (uint64_t)bad * mblk);
				if (type == MLX5DV_MKEY_SIG_BLOCK_BAD_REFTAG)
					CU_ASSERT_EQUAL(err.err.sig.expected_value, 0x1000u + bad);
				if (type == MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD && !t10) {
					uint64_t e = 0;
					for (uint32_t i = 0; i < k.pi; i++)
						e = e << 8 | good[i];
					CU_ASSERT_EQUAL(err.err.sig.expected_value, e);
				}
			}
		}
	}
}

/**
 * T10-DIF escapes: with APP_ESCAPE an app tag of 0xffff skips the block's
 * check; with APP_REF_ESCAPE only, it takes app 0xffff and ref 0xffffffff.
 */
void test_escapes(void)
{
	Scenario sc("sim68");
	const struct {
		uint16_t flags;
		uint32_t ref;
		bool error;
	} cases[] = {
		{MLX5DV_SIG_T10DIF_FLAG_APP_ESCAPE, 0x1000, false},
		{MLX5DV_SIG_T10DIF_FLAG_APP_REF_ESCAPE, 0x1000, true},
		{MLX5DV_SIG_T10DIF_FLAG_APP_REF_ESCAPE, 0xffffffff, false},
		{0, 0xffffffff, true},
	};
	for (const auto &c : cases) {
		Dom a;
		a.set(kKinds[0], 0, true, c.flags);
		uint32_t mblk = a.bs + 8;
		struct mlx5dv_sig_block_attr sb = {};
		sb.mem = &a.d;
		sb.check_mask = 0xff;
		Scenario::configure(&sc.c, mblk, IBV_ACCESS_LOCAL_WRITE, &sb);
		Scenario::configure(&sc.s, a.bs, IBV_ACCESS_LOCAL_WRITE, nullptr);
		sc.fill();
		lay_out(sc.c.buf.data(), a, 1, 0x66);
		uint8_t esc[6] = {0xff,
				  0xff,
				  (uint8_t)(c.ref >> 24),
				  (uint8_t)(c.ref >> 16),
				  (uint8_t)(c.ref >> 8),
				  (uint8_t)c.ref};
		memcpy(&sc.c.buf[a.bs + 2], esc, 6);
		sc.c.buf[a.bs] ^= 0xff; /* a bad guard too */
		sc.send_recv(a.bs);
		struct ibv_wc wc;
		CU_ASSERT_EQUAL(Scenario::poll(&sc.c, &wc, 1), 1);
		CU_ASSERT_EQUAL(Scenario::poll(&sc.s, &wc, 1), 1);
		struct mlx5dv_mkey_err err;
		CU_ASSERT_EQUAL(mkey_check(sc.c.mkey, &err),
				c.error ? MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD : MLX5DV_MKEY_NO_ERR);
	}
}

/**
 * A BSF the device cannot execute (different block sizes in the two domains)
 * fails the UMR with LOC_QP_OP and changes nothing; partial blocks move data
 * without checks; a wire range past the memory layout is a protection error.
 */
void test_bad_bsf_and_edges(void)
{
	Scenario sc("sim69");
	Dom a, b;
	a.set(kKinds[2], 0, true, 0);
	b.set(kKinds[2], 3, true, 0);
	struct mlx5dv_sig_block_attr sb = {};
	sb.mem = &a.d;
	sb.wire = &b.d;
	sb.check_mask = 0xf0;
	struct mlx5dv_mkey_conf_attr attr = {};
	struct ibv_sge sge = {(uintptr_t)sc.c.buf.data(), 1032, sc.c.mr->lkey};
	ibv_wr_start(sc.c.x);
	sc.c.x->wr_id = 9;
	sc.c.x->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	mlx5dv_wr_mkey_configure(sc.c.dv, sc.c.mkey, 3, &attr);
	mlx5dv_wr_set_mkey_access_flags(sc.c.dv, IBV_ACCESS_LOCAL_WRITE);
	mlx5dv_wr_set_mkey_layout_list(sc.c.dv, 1, &sge);
	mlx5dv_wr_set_mkey_sig_block(sc.c.dv, &sb);
	CU_ASSERT_EQUAL(ibv_wr_complete(sc.c.x), 0);
	struct ibv_wc wc[4];
	int got = Scenario::poll(&sc.c, wc, 4);
	CU_ASSERT(got >= 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_LOC_QP_OP_ERR);
	CU_ASSERT_EQUAL(wc[0].wr_id, 9u);
}

/* Partial blocks: data moves, nothing is checked; past the layout: LOC_PROT. */
void test_partial_blocks(void)
{
	Scenario sc("sim70");
	Dom a;
	a.set(kKinds[2], 0, true, 0);
	struct mlx5dv_sig_block_attr sb = {};
	sb.mem = &a.d;
	sb.check_mask = 0xf0;
	Scenario::configure(&sc.c, 2 * 516, IBV_ACCESS_LOCAL_WRITE, &sb);
	Scenario::configure(&sc.s, 1024, IBV_ACCESS_LOCAL_WRITE, nullptr);
	sc.fill();         /* 'cccc' as CRC of both blocks: wrong */
	sc.send_recv(700); /* block 0 complete (checked), block 1 partial */
	struct ibv_wc wc;
	CU_ASSERT_EQUAL(Scenario::poll(&sc.c, &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(Scenario::poll(&sc.s, &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.byte_len, 700u);
	CU_ASSERT_EQUAL(sc.s.buf[699], 'c');
	CU_ASSERT_EQUAL(sc.s.buf[700], 's');
	struct mlx5dv_mkey_err err;
	CU_ASSERT_EQUAL(mkey_check(sc.c.mkey, &err), MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD);
	CU_ASSERT_EQUAL(err.err.sig.offset, 0u);
	/* re-armed by the next configure; 1025 wire bytes need 3 memory blocks */
	Scenario::configure(&sc.c, 2 * 516, IBV_ACCESS_LOCAL_WRITE, &sb);
	sc.send_recv(1025);
	CU_ASSERT_EQUAL(Scenario::poll(&sc.c, &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_LOC_PROT_ERR);
}

/* ---- signature pipelining (test_mkey_sig_pipelining_good / _bad) ---- */

/** Client memory CRC32 seed 0 over {buf, 516}; server LW|RW {buf, 512}; recv 16 B. */
void pipeline_setup(Scenario &sc, uint8_t check)
{
	struct mlx5dv_sig_crc crc = {};
	crc.type = MLX5DV_SIG_CRC_TYPE_CRC32;
	crc.seed = 0;
	struct mlx5dv_sig_block_domain m = {};
	m.sig_type = MLX5DV_SIG_TYPE_CRC;
	m.sig.crc = &crc;
	m.block_size = MLX5DV_BLOCK_SIZE_512;
	struct mlx5dv_sig_block_attr sb = {};
	sb.mem = &m;
	sb.check_mask = check;
	Scenario::configure(&sc.c, 516, IBV_ACCESS_LOCAL_WRITE, &sb);
	Scenario::configure(&sc.s, 512, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, nullptr);
	memset(sc.c.buf.data(), 0, sc.c.buf.size());
	memset(sc.s.buf.data(), 's', sc.s.buf.size());
	struct ibv_sge rs = {(uintptr_t)sc.s.buf.data() + 600, 16, sc.s.mr->lkey};
	struct ibv_recv_wr rwr = {}, *bad_r;
	rwr.wr_id = 2;
	rwr.sg_list = &rs;
	rwr.num_sge = 1;
	CU_ASSERT_EQUAL(ibv_post_recv(sc.s.qp, &rwr, &bad_r), 0);
}

/** RDMA_WRITE wr 1 (512 B through the client mkey, unsignalled) [+ @p mid] + SEND wr 1 FENCE. */
void pipeline_post(Scenario &sc, bool mid)
{
	ibv_wr_start(sc.c.x);
	sc.c.x->wr_id = 1;
	sc.c.x->wr_flags = 0;
	ibv_wr_rdma_write(sc.c.x, sc.s.mkey->rkey, 0);
	ibv_wr_set_sge(sc.c.x, sc.c.mkey->lkey, 0, 512);
	if (mid) { /* an unfenced WQE between the failing one and the fence */
		sc.c.x->wr_id = 3;
		sc.c.x->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_write(sc.c.x, sc.s.mr->rkey, (uintptr_t)sc.s.buf.data() + 800);
		ibv_wr_set_sge(sc.c.x, sc.c.mr->lkey, (uintptr_t)sc.c.buf.data() + 900, 8);
	}
	sc.c.x->wr_id = 1;
	sc.c.x->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	ibv_wr_send(sc.c.x);
	ibv_wr_set_sge(sc.c.x, sc.c.mr->lkey, (uintptr_t)sc.c.buf.data() + 768, 16);
	CU_ASSERT_EQUAL(ibv_wr_complete(sc.c.x), 0);
}

/** Pending async events of @p type for @p qp (acked). */
int drained_events(Scenario &sc, struct ibv_qp *qp)
{
	struct ibv_async_event ev;
	int n = 0;
	CU_ASSERT_EQUAL(mlx5_sim_quiesce(sc.ctx), 0); /* thread mode: the engine is done */
	while (g->get_async_event(sc.ctx, &ev) == 0) {
		if (ev.event_type == IBV_EVENT_SQ_DRAINED && ev.element.qp == qp)
			n++;
		g->ack_async_event(&ev);
	}
	return n;
}

void test_pipelining_good(void)
{
	Scenario sc("sim71", MLX5DV_QP_CREATE_SIG_PIPELINING);
	pipeline_setup(sc, 0);
	pipeline_post(sc, false);
	struct ibv_wc wc[2];
	CU_ASSERT_EQUAL(Scenario::poll(&sc.c, wc, 2), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(Scenario::poll(&sc.s, wc, 2), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(drained_events(sc, sc.c.qp), 0);
}

/**
 * pipelining_bad: SQ_DRAINED on the client; its poll gives 0 (only the SIG_ERR
 * CQE, consumed); BAD_GUARD on the client, NO_ERR on the server; cancel(1) = 1
 * (the executed RDMA_WRITE is not cancelled, the fenced SEND is); the SEND is
 * posted again while in SQD; SQD->RTS: the NOP'd SEND completes as IBV_WC_SEND,
 * the new SEND with it, and the server gets one receive. With @p mid and a
 * device that stops at the fence, the WQE between ran; one that stops at once
 * left it for the cancel.
 */
void pipelining_bad(const char *name, bool at_fence, bool mid,
		    enum mlx5_sim_exec_mode mode = MLX5_SIM_EXEC_INLINE)
{
	Scenario sc(name, MLX5DV_QP_CREATE_SIG_PIPELINING,
		    at_fence ? MLX5_SIM_SIG_STOP_AT_FENCE : 0, mode);
	pipeline_setup(sc, 0xf0);
	pipeline_post(sc, mid);
	struct ibv_wc wc[4];
	bool mid_ran = mid && at_fence;
	CU_ASSERT_EQUAL(drained_events(sc, sc.c.qp), 1);
	CU_ASSERT_EQUAL(Scenario::poll(&sc.c, wc, 4), mid_ran ? 1 : 0);
	CU_ASSERT_EQUAL(Scenario::poll(&sc.s, wc, 4), 0);
	struct ibv_qp_attr qa = {};
	struct ibv_qp_init_attr qi = {};
	CU_ASSERT_EQUAL(g->query_qp(sc.c.qp, &qa, IBV_QP_STATE, &qi), 0);
	CU_ASSERT_EQUAL(qa.qp_state, IBV_QPS_SQD);
	struct mlx5dv_mkey_err err;
	CU_ASSERT_EQUAL(mkey_check(sc.c.mkey, &err), MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD);
	CU_ASSERT_EQUAL(mkey_check(sc.s.mkey, &err), MLX5DV_MKEY_NO_ERR);
	CU_ASSERT_EQUAL(g->dv_qp_cancel_posted_send_wrs(sc.c.dv, 1), 1);
	if (mid)
		CU_ASSERT_EQUAL(g->dv_qp_cancel_posted_send_wrs(sc.c.dv, 3), mid_ran ? 0 : 1);
	/* post the SEND again (QP still in SQD), then resume */
	ibv_wr_start(sc.c.x);
	sc.c.x->wr_id = 4;
	sc.c.x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(sc.c.x);
	ibv_wr_set_sge(sc.c.x, sc.c.mr->lkey, (uintptr_t)sc.c.buf.data() + 768, 16);
	CU_ASSERT_EQUAL(ibv_wr_complete(sc.c.x), 0);
	qa = {};
	qa.qp_state = IBV_QPS_RTS;
	qa.cur_qp_state = IBV_QPS_SQD;
	CU_ASSERT_EQUAL(g->modify_qp(sc.c.qp, &qa, IBV_QP_STATE | IBV_QP_CUR_STATE), 0);
	int want = mid && !mid_ran ? 3 : 2;
	int got = Scenario::poll(&sc.c, wc, want);
	CU_ASSERT_EQUAL(got, want);
	for (int i = 0; i < got; i++)
		CU_ASSERT_EQUAL(wc[i].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[0].opcode, mid && !mid_ran ? IBV_WC_RDMA_WRITE : IBV_WC_SEND);
	CU_ASSERT_EQUAL(wc[got - 1].wr_id, 4u);
	CU_ASSERT_EQUAL(Scenario::poll(&sc.s, wc, 2), 1);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(sc.s.buf[800], mid_ran ? 0 : 's'); /* a cancelled write did not run */
}

void test_pipelining_bad(void)
{
	pipelining_bad("sim72", false, false);
	pipelining_bad("sim73", true, false);
}

void test_pipelining_stop_points(void)
{
	pipelining_bad("sim74", false, true);
	pipelining_bad("sim75", true, true);
}

/* The same on a thread-mode instance: the engine thread stops the SQ. */
void test_pipelining_thread(void)
{
	pipelining_bad("sim76", false, true, MLX5_SIM_EXEC_THREAD);
	pipelining_bad("sim77", true, true, MLX5_SIM_EXEC_THREAD);
}

/**
 * memcpy MMO through signature mkeys on one QP: out of a memory-T10-DIF mkey (strip,
 * verified) into one with memory CRC32C (insert): the destination holds the data
 * with the CRC32C the test computes; a corrupted ref tag then gives BAD_REFTAG.
 */
void test_mmo_convert(void)
{
	Scenario sc("sim80");
	Dom a, b;
	a.set(kKinds[0], 3, true, MLX5DV_SIG_T10DIF_FLAG_REF_REMAP);
	b.set(kKinds[3], 3, false, 0);
	uint32_t bs = a.bs, n = 2 * bs;
	struct mlx5dv_sig_block_attr sa = {}, sb = {};
	sa.mem = &a.d;
	sa.check_mask = 0xff;
	sb.mem = &b.d;
	sb.check_mask = 0xf0;
	for (int round = 0; round < 2; round++) {
		Scenario::configure(&sc.c, 2 * (bs + 8), IBV_ACCESS_LOCAL_WRITE, &sa);
		Scenario::configure(&sc.s, 2 * (bs + 4), IBV_ACCESS_LOCAL_WRITE, &sb);
		sc.fill();
		lay_out(sc.c.buf.data(), a, 2, 0x77);
		if (round)
			sc.c.buf[2 * bs + 8 + 7] ^= 1; /* ref tag of block 1 */
		ibv_wr_start(sc.c.x);
		sc.c.x->wr_id = 11;
		sc.c.x->wr_flags = IBV_SEND_SIGNALED;
		mlx5dv_wr_memcpy(sc.c.dv, sc.s.mkey->lkey, 0, sc.c.mkey->lkey, 0, n);
		CU_ASSERT_EQUAL(ibv_wr_complete(sc.c.x), 0);
		struct ibv_wc wc;
		CU_ASSERT_EQUAL(Scenario::poll(&sc.c, &wc, 1), 1);
		CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
		std::vector<uint8_t> want(kBufBytes);
		lay_out(want.data(), b, 2, 0x77);
		CU_ASSERT(memcmp(sc.s.buf.data(), want.data(), 2 * (bs + 4)) == 0);
		struct mlx5dv_mkey_err err;
		CU_ASSERT_EQUAL(mkey_check(sc.c.mkey, &err),
				round ? MLX5DV_MKEY_SIG_BLOCK_BAD_REFTAG : MLX5DV_MKEY_NO_ERR);
		if (round) {
			CU_ASSERT_EQUAL(err.err.sig.offset, (uint64_t)bs + 8);
			CU_ASSERT_EQUAL(err.err.sig.expected_value, 0x1001u);
		}
		CU_ASSERT_EQUAL(mkey_check(sc.s.mkey, &err), MLX5DV_MKEY_NO_ERR);
	}
}

/**
 * The CORRUPT_SIG fault: the next signature WQE of the QP writes its first generated
 * PI with the last byte flipped and still completes with success and no SIG_ERR (a
 * silently wrong device, what librte_blkint's ISA-L cross-check exists for); once.
 */
void test_corrupt_sig_fault(void)
{
	Scenario sc("sim82");
	Dom a, b;
	a.set(kKinds[0], 0, false, MLX5DV_SIG_T10DIF_FLAG_REF_REMAP);
	b.set(kKinds[3], 0, true, 0);
	uint32_t bs = a.bs, n = 2 * bs;
	struct mlx5dv_sig_block_attr sa = {}, sb = {};
	struct mlx5_sim_fault f = {};
	sa.mem = &a.d;
	sa.check_mask = 0xff;
	sb.mem = &b.d;
	sb.check_mask = 0xf0;
	f.kind = MLX5_SIM_FAULT_CORRUPT_SIG;
	f.qpn = sc.c.qp->qp_num;
	CU_ASSERT_EQUAL(mlx5_sim_inject_fault(sc.ctx, &f), 0);
	f.qpn = 0xffffff;
	CU_ASSERT_EQUAL(mlx5_sim_inject_fault(sc.ctx, &f), -EINVAL);
	for (int round = 0; round < 2; round++) {
		Scenario::configure(&sc.c, 2 * (bs + 8), IBV_ACCESS_LOCAL_WRITE, &sa);
		Scenario::configure(&sc.s, 2 * (bs + 4), IBV_ACCESS_LOCAL_WRITE, &sb);
		sc.fill();
		lay_out(sc.c.buf.data(), a, 2, 0x31);
		ibv_wr_start(sc.c.x);
		sc.c.x->wr_id = 12;
		sc.c.x->wr_flags = IBV_SEND_SIGNALED;
		mlx5dv_wr_memcpy(sc.c.dv, sc.s.mkey->lkey, 0, sc.c.mkey->lkey, 0, n);
		CU_ASSERT_EQUAL(ibv_wr_complete(sc.c.x), 0);
		struct ibv_wc wc;
		CU_ASSERT_EQUAL(Scenario::poll(&sc.c, &wc, 1), 1);
		CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
		std::vector<uint8_t> want(kBufBytes);
		lay_out(want.data(), b, 2, 0x31);
		if (round == 0)
			want[bs + 3] ^= 1; /* block 0's CRC32C, last byte; block 1 intact */
		CU_ASSERT(memcmp(sc.s.buf.data(), want.data(), 2 * (bs + 4)) == 0);
		struct mlx5dv_mkey_err err;
		CU_ASSERT_EQUAL(mkey_check(sc.c.mkey, &err), MLX5DV_MKEY_NO_ERR);
		CU_ASSERT_EQUAL(mkey_check(sc.s.mkey, &err), MLX5DV_MKEY_NO_ERR);
	}
}

/**
 * RDMA_READ into a signature mkey (local scatter): two wire blocks of CRC64 read
 * from the server's plain MR are verified and stripped into the client's memory;
 * a bad CRC64 in the second block gives BAD_GUARD in the wire domain at 520.
 */
void test_rdma_read_strip(void)
{
	Scenario sc("sim81");
	Dom a;
	a.set(kKinds[4], 0, true, 0);
	struct mlx5dv_sig_block_attr sb = {};
	sb.wire = &a.d;
	sb.check_mask = 0xff;
	for (int round = 0; round < 2; round++) {
		Scenario::configure(&sc.c, 1024, IBV_ACCESS_LOCAL_WRITE, &sb);
		sc.fill();
		lay_out(sc.s.buf.data(), a, 2, 0x99);
		if (round)
			sc.s.buf[520 + 512] ^= 0x80;
		ibv_wr_start(sc.c.x);
		sc.c.x->wr_id = 12;
		sc.c.x->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_read(sc.c.x, sc.s.mr->rkey, (uintptr_t)sc.s.buf.data());
		ibv_wr_set_sge(sc.c.x, sc.c.mkey->lkey, 0, 1040);
		CU_ASSERT_EQUAL(ibv_wr_complete(sc.c.x), 0);
		struct ibv_wc wc;
		CU_ASSERT_EQUAL(Scenario::poll(&sc.c, &wc, 1), 1);
		CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
		CU_ASSERT_EQUAL(wc.byte_len, 1040u);
		CU_ASSERT_EQUAL(sc.c.buf[511], data_at(0x99, 0, 511));
		CU_ASSERT_EQUAL(sc.c.buf[512], data_at(0x99, 1, 0));
		CU_ASSERT_EQUAL(sc.c.buf[1023], data_at(0x99, 1, 511));
		CU_ASSERT_EQUAL(sc.c.buf[1024], 'c');
		struct mlx5dv_mkey_err err;
		CU_ASSERT_EQUAL(mkey_check(sc.c.mkey, &err),
				round ? MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD : MLX5DV_MKEY_NO_ERR);
		if (round)
			CU_ASSERT_EQUAL(err.err.sig.offset, 520u);
	}
}

/* Drained after a signature error, then to ERR instead of RTS: the rest flushes. */
void test_pipelining_err(void)
{
	Scenario sc("sim78", MLX5DV_QP_CREATE_SIG_PIPELINING);
	pipeline_setup(sc, 0xf0);
	pipeline_post(sc, false);
	CU_ASSERT_EQUAL(drained_events(sc, sc.c.qp), 1);
	CU_ASSERT_EQUAL(g->dv_qp_cancel_posted_send_wrs(sc.c.dv, 1), 1);
	struct ibv_qp_attr qa = {};
	qa.qp_state = IBV_QPS_ERR;
	CU_ASSERT_EQUAL(g->modify_qp(sc.c.qp, &qa, IBV_QP_STATE), 0);
	struct ibv_wc wc[4];
	int got = Scenario::poll(&sc.c, wc, 4);
	CU_ASSERT(got >= 1);
	for (int i = 0; i < got; i++)
		CU_ASSERT_EQUAL(wc[i].status, IBV_WC_WR_FLUSH_ERR);
	CU_ASSERT_EQUAL(Scenario::poll(&sc.s, wc, 4), 0);
}

/*
 * A wire-domain check at the responder: an RDMA_WRITE of 520 bytes from a plain MR
 * (bad T10-DIF guard) into the server's wire-T10-DIF mkey by rkey. The client's
 * write succeeds; the SIG_ERR CQE goes to the server's CQ (its poll gives 0) and the
 * server's mkey reports BAD_GUARD in the wire domain at offset 0; the 512 data bytes
 * are in its memory; the client's SIG_PIPELINING QP stays in RTS.
 */
void test_remote_wire_check(void)
{
	Scenario sc("sim79", MLX5DV_QP_CREATE_SIG_PIPELINING);
	struct mlx5dv_sig_t10dif d = t10dif();
	struct mlx5dv_sig_block_domain w = {};
	w.sig_type = MLX5DV_SIG_TYPE_T10DIF;
	w.sig.dif = &d;
	w.block_size = MLX5DV_BLOCK_SIZE_512;
	struct mlx5dv_sig_block_attr sb = {};
	sb.wire = &w;
	sb.check_mask = 0xff;
	Scenario::configure(&sc.s, 512, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, &sb);
	sc.fill();
	ibv_wr_start(sc.c.x);
	sc.c.x->wr_id = 7;
	sc.c.x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(sc.c.x, sc.s.mkey->rkey, 0);
	ibv_wr_set_sge(sc.c.x, sc.c.mr->lkey, (uintptr_t)sc.c.buf.data(), 520);
	CU_ASSERT_EQUAL(ibv_wr_complete(sc.c.x), 0);
	struct ibv_wc wc;
	CU_ASSERT_EQUAL(Scenario::poll(&sc.c, &wc, 1), 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, 7u);
	CU_ASSERT_EQUAL(Scenario::poll(&sc.s, &wc, 1), 0);
	CU_ASSERT(sc.server_has_512());
	struct mlx5dv_mkey_err err;
	CU_ASSERT_EQUAL(mkey_check(sc.s.mkey, &err), MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD);
	CU_ASSERT_EQUAL(err.err.sig.offset, 0u);
	CU_ASSERT_EQUAL(err.err.sig.actual_value, 0x6363u); /* 'cc' */
	CU_ASSERT_EQUAL(err.err.sig.expected_value, crc16_bitwise(sc.c.buf.data(), 512, 0xffff));
	CU_ASSERT_EQUAL(mkey_check(sc.c.mkey, &err), MLX5DV_MKEY_NO_ERR);
	/* the responder's mkey failed: the requester's pipelining QP does not stop */
	CU_ASSERT_EQUAL(drained_events(sc, sc.c.qp), 0);
	struct ibv_qp_attr qa = {};
	struct ibv_qp_init_attr qi = {};
	CU_ASSERT_EQUAL(g->query_qp(sc.c.qp, &qa, IBV_QP_STATE, &qi), 0);
	CU_ASSERT_EQUAL(qa.qp_state, IBV_QPS_RTS);
}

} // namespace

int main(void)
{
	static const struct cunit_test mkey_py[] = {
		{"test_mkey_sig_t10dif", test_sig_t10dif},
		{"test_mkey_sig_crc", test_sig_crc},
		{"test_mkey_sig_err", test_sig_err},
		{"memory CRC32 that matches", test_sig_mem_crc_good},
		{"pipelining_good traffic, check mask 0", test_sig_rdma_unchecked},
		{"test_mkey_sig_pipelining_good", test_pipelining_good},
		{"test_mkey_sig_pipelining_bad (both stop points)", test_pipelining_bad},
		{"pipelining: after the failing WQE or at the FENCE", test_pipelining_stop_points},
		{"pipelining on a thread-mode instance", test_pipelining_thread},
		{"pipelining: SQD then ERR flushes", test_pipelining_err},
	};
	static const struct cunit_test matrix[] = {
		{"block sizes x kinds: insert, strip, convert", test_matrix},
		{"errors in first, middle, last block", test_verify_errors},
		{"T10-DIF escapes", test_escapes},
		{"BSF the device cannot execute", test_bad_bsf_and_edges},
		{"partial blocks, past the layout", test_partial_blocks},
		{"wire check at the responder (rkey)", test_remote_wire_check},
		{"memcpy MMO: T10-DIF memory to CRC32C memory", test_mmo_convert},
		{"memcpy MMO: the CORRUPT_SIG fault", test_corrupt_sig_fault},
		{"RDMA_READ into a wire-CRC64 mkey", test_rdma_read_strip},
	};
	static const struct cunit_suite suites[] = {
		CUNIT_SUITE("test_mlx5_mkey.py signature", mkey_py),
		CUNIT_SUITE("signature matrix", matrix),
	};

	g = mlx5_glue_sim();
	return CUNIT_RUN_SUITES(suites);
}
