/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * CUnit suites of the provider's signature side (libmlx5 v44.0, qp.c):
 * sig_block: every EINVAL of mlx5dv_wr_set_mkey_sig_block, the BSF and SET_PSV
 * bytes of libmlx5's own examples, finalisation errors and the
 * INIT/RESET/SET/UPDATED state machine; sig_err: SIG_ERR CQEs in both poll paths
 * and mlx5dv_mkey_check; cancel: mlx5dv_qp_cancel_posted_send_wrs against a
 * canned QUERY_QP; device: the same paths on a sim instance (signature caps,
 * PSVs, SIG_PIPELINING QPs, cancel in SQD with NOP completions).
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include <memory>
#include <vector>

#include <CUnit/Basic.h>

#include "cunit_run.h"
#include "glue_test_util.h"

#include "mlx5_glue.h"
#include "mlx5_hw.h"
#include "mlx5_sim.h"
#include "provider/provider.h"
#include "provider/sim_internal.h"
#include "provider/sim_mkey.h"

using namespace mlx5sim;

namespace {

class NullUar : public UarSink {
public:
	void mmio64(SimQp *, uint32_t, uint64_t) override { rings++; }
	void blueflame(SimQp *, uint32_t, const void *, size_t) override { rings++; }
	unsigned rings = 0;
};

/** QUERY_QP with a settable answer. */
class FakeDevx : public DevxCmd {
public:
	int query_qp(SimQp *, uint8_t *st, QpcInfo *out) override
	{
		calls++;
		*st = status;
		*out = qpc;
		return ret;
	}
	int ret = 0;
	uint8_t status = 0;
	QpcInfo qpc = {MLX5_HW_QPC_STATE_SQDRAINED, 0};
	unsigned calls = 0;
};

constexpr uint32_t kMemPsv = 0x111;
constexpr uint32_t kWirePsv = 0x222;
constexpr uint32_t kQpn = 0x00abcd;
constexpr uint32_t kUidx = 0x77;

/** An RTS RC QP (64-WQEBB SQ, max_post 16, max_inline 512) and a fresh signature mkey. */
struct Fixture {
	static constexpr uint32_t kWqeCnt = 64;

	std::unique_ptr<SimContext> ctx{new SimContext()};
	std::unique_ptr<SimQp> qp{new SimQp()};
	alignas(64) uint8_t ring[kWqeCnt * 64];
	uint64_t wrid[kWqeCnt];
	uint32_t wqe_head[kWqeCnt], wr_data[kWqeCnt];
	uint32_t dbrec[2] = {};
	NullUar uar;
	FakeDevx devx;
	SimMkey mkey{};

	explicit Fixture(uint32_t max_inline = 512)
	{
		memset(ring, 0x5c, sizeof(ring));
		memset(wrid, 0, sizeof(wrid));
		memset(wqe_head, 0, sizeof(wqe_head));
		memset(wr_data, 0, sizeof(wr_data));
		ctx->max_sq_desc_sz = 1024;
		ctx->max_send_wqebb = 32768;
		ctx->cqe_version = 1;
		ctx->devx = &devx;
		qp->ctx = ctx.get();
		qp->qpn = kQpn;
		qp->uidx = kUidx;
		qp->type = IBV_QPT_RC;
		qp->send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE;
		qp->dv_send_ops_flags = MLX5DV_QP_EX_WITH_MKEY_CONFIGURE;
		qp->operational = true;
		qp->qpx.qp_base.qp_num = qp->qpn;
		qp->sq.buf = ring;
		qp->sq.qend = ring + sizeof(ring);
		qp->sq.wqe_cnt = kWqeCnt;
		qp->sq.max_post = 16;
		qp->sq.max_gs = 2;
		qp->sq.max_inline_data = max_inline;
		qp->sq.wrid = wrid;
		qp->sq.wqe_head = wqe_head;
		qp->sq.wr_data = wr_data;
		qp->bf = {&uar, 0, 256};
		qp->dbrec = dbrec;
		mkey.dv.lkey = mkey.dv.rkey = 0x00123400;
		mkey.num_desc = 4;
		mkey.has_sig = true;
		mkey.sig.mem_psv_index = kMemPsv;
		mkey.sig.wire_psv_index = kWirePsv;
		mkey.sig.state = SigState::INIT;
		mkey.sig.err_count = 1;
		mkey.sig.err_count_updated = true;
		CU_ASSERT_EQUAL_FATAL(sim_qp_install_wr_ops(qp.get()), 0);
	}
	struct ibv_qp_ex *x() { return &qp->qpx; }
	struct mlx5dv_qp_ex *dv() { return &qp->dv; }
	uint8_t *slot(uint32_t s) { return ring + (s % kWqeCnt) * 64; }
	void start(unsigned flags, uint64_t wr_id = 0x77)
	{
		ibv_wr_start(x());
		qp->qpx.wr_flags = flags;
		qp->qpx.wr_id = wr_id;
	}
	/** configure(3): LOCAL_WRITE, one 512-byte SGE, the signature block. */
	int configure_sig(const struct mlx5dv_sig_block_attr *sb, unsigned flags)
	{
		struct mlx5dv_mkey_conf_attr attr = {};
		struct ibv_sge sge = {0x10000, 512, 0x42};

		start(flags);
		mlx5dv_wr_mkey_configure(dv(), &mkey.dv, 3, &attr);
		mlx5dv_wr_set_mkey_access_flags(dv(), IBV_ACCESS_LOCAL_WRITE);
		mlx5dv_wr_set_mkey_layout_list(dv(), 1, &sge);
		mlx5dv_wr_set_mkey_sig_block(dv(), sb);
		return ibv_wr_complete(x());
	}
};

constexpr unsigned kInl = IBV_SEND_INLINE | IBV_SEND_SIGNALED;

struct mlx5dv_sig_t10dif t10(uint16_t bg = 0xffff, uint16_t flags = 7)
{
	struct mlx5dv_sig_t10dif d = {};

	d.bg_type = MLX5DV_SIG_T10DIF_CRC;
	d.bg = bg;
	d.app_tag = 0xabcd;
	d.ref_tag = 0x01234567;
	d.flags = flags;
	return d;
}

struct mlx5dv_sig_block_domain domain_t10(struct mlx5dv_sig_t10dif *d)
{
	struct mlx5dv_sig_block_domain b = {};

	b.sig_type = MLX5DV_SIG_TYPE_T10DIF;
	b.sig.dif = d;
	b.block_size = MLX5DV_BLOCK_SIZE_512;
	return b;
}

struct mlx5dv_sig_block_domain domain_crc(struct mlx5dv_sig_crc *c)
{
	struct mlx5dv_sig_block_domain b = {};

	b.sig_type = MLX5DV_SIG_TYPE_CRC;
	b.sig.crc = c;
	b.block_size = MLX5DV_BLOCK_SIZE_512;
	return b;
}

bool bytes_eq(const uint8_t *p, const std::vector<uint8_t> &exp)
{
	return memcmp(p, exp.data(), exp.size()) == 0;
}

/* ---- sig_block ---- */

/* mlx5_umr_fill_sig_bsf() example 1: T10-DIF on the wire domain, 3 setters */
void test_bsf_t10dif_wire(void)
{
	Fixture f;
	struct mlx5dv_sig_t10dif dif = t10();
	struct mlx5dv_sig_block_domain wire = domain_t10(&dif);
	struct mlx5dv_sig_block_attr sb = {};

	sb.wire = &wire;
	sb.check_mask = 0xff;
	f.qp->sq.fm_cache = MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE; /* after an earlier UMR */
	CU_ASSERT_EQUAL(f.configure_sig(&sb, kInl), 0);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post, 5); /* UMR 4 WQEBBs + 1 SET_PSV */
	CU_ASSERT_EQUAL(f.qp->sq.head, 2);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(f.slot(0) + 4) & 0xff, 16u); /* UMR ds */
	CU_ASSERT_EQUAL(f.slot(0)[11], 0x20);                        /* CE suppressed */
	CU_ASSERT_EQUAL(mlx5_hw_ld_be64(f.slot(0) + 24), 0x203c3201ull);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be16(f.slot(0) + 22), 4u); /* bsf_octowords */
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(f.slot(1) + 12), 0x44000000u);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be64(f.slot(1) + 24), 0x200ull);
	CU_ASSERT(bytes_eq(f.slot(3), {0x80, 0xff, 0x01, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00,
				       0x02, 0x22, 0x00, 0x00, 0x00, 0x00}));
	CU_ASSERT(bytes_eq(f.slot(3) + 32, {0xc0, 0x00, 0xab, 0xcd, 0x01, 0x23, 0x45, 0x67, 0x01,
					    0x88, 0x00, 0x00, 0x00, 0x42, 0xff, 0xff}));
	/* one SET_PSV with the caller's flags and the small fence */
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(f.slot(4)), 0x00000420u);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(f.slot(4) + 4), kQpn << 8 | 2);
	CU_ASSERT_EQUAL(f.slot(4)[11], 0x28);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(f.slot(4) + 16), kWirePsv);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be64(f.slot(4) + 24), 0xffffabcd01234567ull);
	CU_ASSERT_EQUAL(f.wr_data[4], (uint32_t)IBV_WC_DRIVER1);
	CU_ASSERT_EQUAL(f.wrid[4], 0x77u);
	CU_ASSERT_EQUAL(f.wqe_head[4], 1u);
	CU_ASSERT(f.mkey.sig.state == SigState::UPDATED);
	CU_ASSERT_FALSE(f.mkey.sig.err_count_updated);
}

/* mlx5_umr_fill_sig_bsf() example 2: CRC32 memory (seed 0) + CRC32 wire (seed all ones) */
void test_bsf_crc_both(void)
{
	Fixture f;
	struct mlx5dv_sig_crc cm = {MLX5DV_SIG_CRC_TYPE_CRC32, 0};
	struct mlx5dv_sig_crc cw = {MLX5DV_SIG_CRC_TYPE_CRC32, 0xffffffff};
	struct mlx5dv_sig_block_domain mem = domain_crc(&cm), wire = domain_crc(&cw);
	struct mlx5dv_sig_block_attr sb = {};

	sb.mem = &mem;
	sb.wire = &wire;
	sb.check_mask = 0xf0;
	f.qp->sq.fm_cache = MLX5_WQE_CTRL_INITIATOR_SMALL_FENCE;
	CU_ASSERT_EQUAL(f.configure_sig(&sb, kInl), 0);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post, 6); /* 6 WQEBBs */
	CU_ASSERT(bytes_eq(f.slot(3), {0x90, 0xf0, 0xf0, 0x01, 0xff, 0xff, 0xff, 0xff, 0x22, 0x00,
				       0x02, 0x22, 0x23, 0x00, 0x01, 0x11}));
	/* memory PSV first, unsignalled; the wire PSV carries the completion */
	CU_ASSERT_EQUAL(f.slot(4)[11], 0x20);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(f.slot(4) + 16), kMemPsv);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be64(f.slot(4) + 24), 0ull);
	CU_ASSERT_EQUAL(f.slot(5)[11], 0x28);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(f.slot(5) + 16), kWirePsv);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be64(f.slot(5) + 24), 0xffffffff00000000ull);
	CU_ASSERT_EQUAL(f.qp->sq.head, 3);
}

/* T10-DIF on both domains: equal fields give the copy mask, COPY_MASK replaces it */
void test_bsf_t10dif_sbs_copy_mask(void)
{
	Fixture f;
	struct mlx5dv_sig_t10dif dm = t10(0, 0), dw = t10(0, 0);
	struct mlx5dv_sig_block_domain mem = domain_t10(&dm), wire = domain_t10(&dw);
	struct mlx5dv_sig_block_attr sb = {};

	dw.app_tag = 0x1111; /* guard and ref tag equal, app tag differs */
	sb.mem = &mem;
	sb.wire = &wire;
	CU_ASSERT_EQUAL(f.configure_sig(&sb, kInl), 0);
	CU_ASSERT_EQUAL(f.slot(3)[0], 0x90);        /* with inline, SBS */
	CU_ASSERT_EQUAL(f.slot(3)[2], 0xc0 | 0x0f); /* guard + ref tag copied */
	CU_ASSERT_EQUAL(f.slot(3)[3], 0x01);        /* memory selector 512 */
	CU_ASSERT_EQUAL(f.slot(3)[32 + 9], 0x80);   /* bg 0: no seed bit */
	sb.flags = MLX5DV_SIG_BLOCK_ATTR_FLAG_COPY_MASK;
	sb.copy_mask = 0x30;
	CU_ASSERT_EQUAL(f.configure_sig(&sb, kInl), 0);
	CU_ASSERT_EQUAL(f.slot(3 + f.qp->sq.cur_post - 6)[2], 0x30);
	/* without the same block structure COPY_MASK fails at finalisation */
	wire.block_size = MLX5DV_BLOCK_SIZE_4096;
	CU_ASSERT_EQUAL(f.configure_sig(&sb, kInl), EINVAL);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post, 12);
}

void test_bsf_block_selectors(void)
{
	static const uint8_t sel[] = {1, 2, 6, 3, 4}; /* 512, 520, 4048, 4096, 4160 */

	for (uint32_t bs = 0; bs <= MLX5DV_BLOCK_SIZE_4160; bs++) {
		Fixture f;
		struct mlx5dv_sig_crc cm = {MLX5DV_SIG_CRC_TYPE_CRC64_XP10, 0};
		struct mlx5dv_sig_crc cw = {MLX5DV_SIG_CRC_TYPE_CRC32C, 0};
		struct mlx5dv_sig_block_domain mem = domain_crc(&cm), wire = domain_crc(&cw);
		struct mlx5dv_sig_block_attr sb = {};

		mem.block_size = (enum mlx5dv_block_size)bs;
		wire.block_size = (enum mlx5dv_block_size)((bs + 1) % 5);
		sb.mem = &mem;
		sb.wire = &wire;
		CU_ASSERT_EQUAL(f.configure_sig(&sb, kInl), 0);
		CU_ASSERT_EQUAL(f.slot(3)[0], 0x80); /* different types: no SBS */
		CU_ASSERT_EQUAL(f.slot(3)[2], sel[(bs + 1) % 5]);
		CU_ASSERT_EQUAL(f.slot(3)[3], sel[bs]);
		CU_ASSERT_EQUAL(f.slot(3)[8], 0x43);  /* CRC32C, seed 0 */
		CU_ASSERT_EQUAL(f.slot(3)[12], 0x53); /* CRC64_XP10, seed 0 */
		/* CRC64 transient signature is the seed itself */
		CU_ASSERT_EQUAL(mlx5_hw_ld_be64(f.slot(4) + 24), 0ull);
	}
}

/** One rejected setter: EINVAL from wr_complete, nothing posted, state unchanged. */
void expect_einval(const struct mlx5dv_sig_block_attr &sb, const char *what)
{
	Fixture f;
	struct mlx5dv_mkey_conf_attr attr = {};

	f.start(kInl);
	mlx5dv_wr_mkey_configure(f.dv(), &f.mkey.dv, 1, &attr);
	mlx5dv_wr_set_mkey_sig_block(f.dv(), &sb);
	if (ibv_wr_complete(f.x()) != EINVAL)
		fprintf(stderr, "not EINVAL: %s\n", what);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post, 0);
	CU_ASSERT_EQUAL(f.qp->sq.head, 0);
	CU_ASSERT(f.mkey.sig.state == SigState::INIT);
	CU_ASSERT_FALSE(f.mkey.sig.mem.present || f.mkey.sig.wire.present);
}

void test_setter_einval(void)
{
	struct mlx5dv_sig_t10dif dif = t10();
	struct mlx5dv_sig_crc crc = {MLX5DV_SIG_CRC_TYPE_CRC32, 0};
	struct mlx5dv_sig_block_domain good = domain_crc(&crc), bad;
	struct mlx5dv_sig_block_attr sb;
	uint8_t zero[16] = {};

	sb = {};
	expect_einval(sb, "both NULL");
	sb = {};
	sb.wire = &good;
	sb.flags = 2;
	expect_einval(sb, "flags");
	sb.flags = 0;
	sb.comp_mask = 1;
	expect_einval(sb, "attr comp_mask");
	sb.comp_mask = 0;
	bad = good;
	bad.block_size = (enum mlx5dv_block_size)5;
	sb.wire = &bad;
	expect_einval(sb, "block size");
	bad = good;
	bad.comp_mask = 1;
	expect_einval(sb, "domain comp_mask");
	for (int i = 0; i < 3; i++) {
		struct mlx5dv_sig_t10dif d = dif;

		if (i == 0)
			d.bg = 0x1234;
		else if (i == 1)
			d.bg_type = (enum mlx5dv_sig_t10dif_bg_type)2;
		else
			d.flags = 8;
		bad = domain_t10(&d);
		expect_einval(sb, "t10dif field");
	}
	for (int i = 0; i < 4; i++) {
		struct mlx5dv_sig_crc c = crc;

		if (i == 0)
			c.type = (enum mlx5dv_sig_crc_type)3;
		else if (i == 1)
			c.seed = 1;
		else if (i == 2)
			c = {MLX5DV_SIG_CRC_TYPE_CRC32C, 0xffffffffffffffffull};
		else
			c = {MLX5DV_SIG_CRC_TYPE_CRC64_XP10, 0xffffffff};
		bad = domain_crc(&c);
		expect_einval(sb, "crc field");
	}
	bad = good;
	bad.sig_type = (enum mlx5dv_sig_type)2;
	bad.sig.dif = reinterpret_cast<struct mlx5dv_sig_t10dif *>(zero);
	expect_einval(sb, "sig type");
	/* a valid memory domain does not save a bad wire domain */
	sb.mem = &good;
	expect_einval(sb, "valid mem, bad wire");
}

void test_setter_einval_context(void)
{
	Fixture f;
	struct mlx5dv_mkey_conf_attr attr = {};
	struct mlx5dv_sig_crc crc = {MLX5DV_SIG_CRC_TYPE_CRC32, 0};
	struct mlx5dv_sig_block_domain d = domain_crc(&crc);
	struct mlx5dv_sig_block_attr sb = {};

	sb.mem = &d;
	/* no open mkey WQE */
	f.start(kInl);
	mlx5dv_wr_set_mkey_sig_block(f.dv(), &sb);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), EINVAL);
	/* twice for one WQE */
	f.start(kInl);
	mlx5dv_wr_mkey_configure(f.dv(), &f.mkey.dv, 2, &attr);
	mlx5dv_wr_set_mkey_sig_block(f.dv(), &sb);
	mlx5dv_wr_set_mkey_sig_block(f.dv(), &sb);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), EINVAL);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post, 0);
	/* the library does not roll the state back (man page: undefined until reset) */
	CU_ASSERT(f.mkey.sig.state == SigState::UPDATED);
	/* an mkey without a signature context */
	f.mkey.has_sig = false;
	f.start(kInl);
	mlx5dv_wr_mkey_configure(f.dv(), &f.mkey.dv, 1, &attr);
	mlx5dv_wr_set_mkey_sig_block(f.dv(), &sb);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), EINVAL);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post, 0);
	/* not checked against the device's caps: 4048 blocks and CRC64 accepted */
	Fixture g;
	struct mlx5dv_sig_crc c64 = {MLX5DV_SIG_CRC_TYPE_CRC64_XP10, ~0ull};

	d = domain_crc(&c64);
	d.block_size = MLX5DV_BLOCK_SIZE_4048;
	CU_ASSERT_EQUAL(g.configure_sig(&sb, kInl), 0);
	CU_ASSERT_EQUAL(g.slot(3)[12], 0x52); /* all-ones seed: no seed bit */
	CU_ASSERT_EQUAL(g.slot(3)[3], 6);
}

void test_finalise_errors(void)
{
	struct mlx5dv_sig_crc crc = {MLX5DV_SIG_CRC_TYPE_CRC32, 0};
	struct mlx5dv_sig_block_domain d = domain_crc(&crc);
	struct mlx5dv_sig_block_attr sb = {};

	sb.wire = &d;
	{
		/* default inline size: translation area + BSF do not fit -> ENOMEM */
		Fixture f(60);

		CU_ASSERT_EQUAL(f.configure_sig(&sb, kInl), ENOMEM);
		CU_ASSERT_EQUAL(f.qp->sq.cur_post, 0);
		CU_ASSERT_PTR_NOT_NULL(f.qp->wr.cur_mkey); /* left open, as v44.0 */
	}
	{
		/* exactly max_inline_data + 4 bytes fit */
		Fixture f(124);

		CU_ASSERT_EQUAL(f.configure_sig(&sb, kInl), 0);
	}
	{
		/* a layout length above 4 GiB (raw_data_size is 32 bits) -> EINVAL */
		Fixture f;
		struct mlx5dv_mkey_conf_attr attr = {};

		f.mkey.length = 1ull << 32;
		f.start(kInl);
		mlx5dv_wr_mkey_configure(f.dv(), &f.mkey.dv, 1, &attr);
		mlx5dv_wr_set_mkey_sig_block(f.dv(), &sb);
		CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), EINVAL);
	}
	{
		/* max_post too small for the PSV: ENOMEM from its builder, batch rolled back */
		Fixture f;

		f.qp->sq.max_post = 1;
		CU_ASSERT_EQUAL(f.configure_sig(&sb, kInl), ENOMEM);
		CU_ASSERT_EQUAL(f.qp->sq.cur_post, 0);
		CU_ASSERT_EQUAL(f.qp->sq.head, 0);
	}
}

void test_state_machine(void)
{
	Fixture f;
	struct mlx5dv_sig_crc crc = {MLX5DV_SIG_CRC_TYPE_CRC32, 0};
	struct mlx5dv_sig_block_domain d = domain_crc(&crc);
	struct mlx5dv_sig_block_attr sb = {};
	struct mlx5dv_mkey_conf_attr attr = {};
	struct ibv_sge sge = {0x10000, 512, 0x42};
	uint32_t p;

	sb.wire = &d;
	CU_ASSERT(f.mkey.sig.state == SigState::INIT);
	CU_ASSERT_EQUAL(f.configure_sig(&sb, kInl), 0);
	CU_ASSERT(f.mkey.sig.state == SigState::UPDATED);
	/* UPDATED -> SET: no BSF, no PSV, the UMR keeps its completion */
	p = f.qp->sq.cur_post;
	f.start(kInl);
	mlx5dv_wr_mkey_configure(f.dv(), &f.mkey.dv, 1, &attr);
	mlx5dv_wr_set_mkey_layout_list(f.dv(), 1, &sge);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), 0);
	CU_ASSERT(f.mkey.sig.state == SigState::SET);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post - p, 3u);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be64(f.slot(p) + 24), 0x20002001ull);
	CU_ASSERT_EQUAL(f.slot(p)[11] & MLX5_WQE_CTRL_CQ_UPDATE, MLX5_WQE_CTRL_CQ_UPDATE);
	/* a SIG_ERR bumped the counter: SET re-posts the PSV, UMR completion suppressed */
	f.mkey.sig.err_count = 2;
	f.mkey.sig.err_count_updated = true;
	p = f.qp->sq.cur_post;
	f.start(kInl);
	mlx5dv_wr_mkey_configure(f.dv(), &f.mkey.dv, 0, &attr);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), 0);
	CU_ASSERT_EQUAL(f.qp->sq.cur_post - p, 3u); /* UMR 2 + PSV 1 */
	CU_ASSERT_EQUAL(mlx5_hw_ld_be64(f.slot(p) + 24), 0x20002200ull);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(f.slot(p + 1) + 12), 0u); /* err_count 2: bit 0 */
	CU_ASSERT_EQUAL(f.slot(p)[11] & MLX5_WQE_CTRL_CQ_UPDATE, 0);
	CU_ASSERT_EQUAL(f.slot(p + 2)[3], MLX5_OPCODE_SET_PSV);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(f.slot(p + 2) + 16), kWirePsv);
	CU_ASSERT_FALSE(f.mkey.sig.err_count_updated);
	/* RESET: both domains gone, BSF disabled by the mask bit with value 0 */
	attr.conf_flags = MLX5DV_MKEY_CONF_FLAG_RESET_SIG_ATTR;
	p = f.qp->sq.cur_post;
	f.start(kInl);
	mlx5dv_wr_mkey_configure(f.dv(), &f.mkey.dv, 0, &attr);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), 0);
	CU_ASSERT(f.mkey.sig.state == SigState::RESET);
	CU_ASSERT_FALSE(f.mkey.sig.wire.present);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be64(f.slot(p) + 24), 0x20003000ull);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(f.slot(p + 1) + 12), 0u);
	/* RESET -> INIT at the next configure; a new block makes it UPDATED again */
	attr.conf_flags = 0;
	f.start(kInl);
	mlx5dv_wr_mkey_configure(f.dv(), &f.mkey.dv, 0, &attr);
	CU_ASSERT_EQUAL(ibv_wr_complete(f.x()), 0);
	CU_ASSERT(f.mkey.sig.state == SigState::INIT);
	CU_ASSERT_EQUAL(f.configure_sig(&sb, kInl), 0);
	CU_ASSERT(f.mkey.sig.state == SigState::UPDATED);
}

/* ---- sig_err ---- */

/** A CQ of 8 64-byte entries on the fixture's context, the QP and mkey registered. */
struct PollFixture : Fixture {
	std::unique_ptr<SimCq> cq{new SimCq()};
	std::vector<uint8_t> cqbuf = std::vector<uint8_t>(8 * 64, 0);
	uint32_t cqdb[2] = {};

	PollFixture()
	{
		for (uint32_t i = 0; i < 8; i++)
			cqbuf[i * 64 + 63] = MLX5_HW_CQE_INVALID_OP_OWN;
		cq->ctx = ctx.get();
		cq->buf = cqbuf.data();
		cq->ncqe = 8;
		cq->cqe_size = 64;
		cq->dbrec = cqdb;
		cq->wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM;
		sim_cq_install_poll_ops(cq.get());
		ctx->qp_by_uidx.insert(kUidx, qp.get());
		ctx->mkey_by_idx.insert(mkey.dv.lkey >> 8, &mkey);
		mkey.sig.wire.present = true;
		mkey.sig.wire.sig_type = MLX5DV_SIG_TYPE_T10DIF;
		mkey.sig.mem.present = true;
		mkey.sig.mem.sig_type = MLX5DV_SIG_TYPE_CRC;
		mkey.sig.mem.crc.type = MLX5DV_SIG_CRC_TYPE_CRC32;
		mkey.sig.err_count_updated = false;
		wrid[3] = 0xabc;
		wqe_head[3] = 9;
	}
	uint8_t *cqe(uint32_t n) { return cqbuf.data() + (n % 8) * 64; }
	void sigerr(uint32_t n, uint16_t synd, uint8_t domain, uint32_t key, uint8_t sig_type = 0)
	{
		uint8_t *c = cqe(n);

		memset(c, 0, 64);
		mlx5_hw_st_be32(c + 16, 0x11112222);
		mlx5_hw_st_be32(c + 20, 0x33334444);
		mlx5_hw_st_be32(c + 24, 0x55556666);
		mlx5_hw_st_be32(c + 28, 0x77778888);
		mlx5_hw_st_be16(c + 32, synd);
		c[34] = sig_type;
		c[35] = domain;
		mlx5_hw_st_be32(c + 36, key);
		mlx5_hw_st_be64(c + 40, 0x1200);
		c[63] = (uint8_t)(MLX5_CQE_SIG_ERR << 4 | ((n & 8) ? 1 : 0));
	}
	void req(uint32_t n)
	{
		uint8_t *c = cqe(n);

		memset(c, 0, 64);
		mlx5_hw_st_be32(c + 32, kUidx);
		mlx5_hw_st_be32(c + 56, (uint32_t)MLX5_OPCODE_RDMA_WRITE << 24 | kQpn);
		mlx5_hw_st_be16(c + 60, 3);
		c[63] = (uint8_t)(MLX5_CQE_REQ << 4 | ((n & 8) ? 1 : 0));
	}
	int poll(int n, struct ibv_wc *wc) { return sim_poll_cq(ibv_cq_ex_to_cq(&cq->cqx), n, wc); }
};

void test_sigerr_legacy(void)
{
	PollFixture f;
	struct ibv_wc wc[4];

	/* SIG_ERR then a completion: the SIG_ERR is consumed, the completion returned */
	f.sigerr(0, MLX5_HW_SIGERR_GUARD, 1, f.mkey.dv.lkey);
	f.req(1);
	CU_ASSERT_EQUAL(f.poll(4, wc), 1);
	CU_ASSERT_EQUAL(wc[0].wr_id, 0xabcu);
	CU_ASSERT_EQUAL(wc[0].opcode, IBV_WC_RDMA_WRITE);
	CU_ASSERT_EQUAL(f.cq->cons_index, 2);
	CU_ASSERT(f.mkey.sig.err_exists);
	CU_ASSERT_EQUAL(f.mkey.sig.err_count, 2);
	CU_ASSERT(f.mkey.sig.err_count_updated);
	CU_ASSERT_EQUAL(f.mkey.sig.last_error.expected, 0x1111222255556666ull);
	CU_ASSERT_EQUAL(f.mkey.sig.last_error.actual, 0x3333444477778888ull);
	CU_ASSERT_EQUAL(f.mkey.sig.last_error.offset, 0x1200u);
	CU_ASSERT_EQUAL(f.mkey.sig.last_error.domain, 1);
	/* a lone SIG_ERR: poll returns 0 although the consumer index moved (v44.0) */
	f.sigerr(2, MLX5_HW_SIGERR_REFTAG, 0, f.mkey.dv.lkey | 0x5a); /* tag byte ignored */
	CU_ASSERT_EQUAL(f.poll(4, wc), 0);
	CU_ASSERT_EQUAL(f.cq->cons_index, 3);
	CU_ASSERT_EQUAL(be32toh(f.cqdb[0]), 3u);
	CU_ASSERT_EQUAL(f.mkey.sig.err_count, 3);
	/* unknown mkey, and an mkey without a signature context: -2 */
	f.sigerr(3, MLX5_HW_SIGERR_GUARD, 0, 0x00999900);
	CU_ASSERT_EQUAL(f.poll(4, wc), -2);
	f.mkey.has_sig = false;
	f.sigerr(4, MLX5_HW_SIGERR_GUARD, 0, f.mkey.dv.lkey);
	CU_ASSERT_EQUAL(f.poll(4, wc), -2);
	CU_ASSERT_EQUAL(f.cq->cons_index, 5);
}

void test_sigerr_extended(void)
{
	PollFixture f;
	struct ibv_poll_cq_attr attr = {};
	struct ibv_cq_ex *x = &f.cq->cqx;

	f.sigerr(0, MLX5_HW_SIGERR_APPTAG, 0, f.mkey.dv.lkey);
	CU_ASSERT_EQUAL(ibv_start_poll(x, &attr), ENOENT);
	CU_ASSERT_EQUAL(f.cq->cons_index, 1);
	CU_ASSERT(f.mkey.sig.err_exists);
	f.sigerr(1, MLX5_HW_SIGERR_APPTAG, 0, f.mkey.dv.lkey);
	f.req(2);
	CU_ASSERT_EQUAL(ibv_start_poll(x, &attr), 0);
	CU_ASSERT_EQUAL(x->wr_id, 0xabcu);
	CU_ASSERT_EQUAL(ibv_wc_read_opcode(x), IBV_WC_RDMA_WRITE);
	CU_ASSERT_EQUAL(ibv_wc_read_qp_num(x), kQpn);
	f.sigerr(3, MLX5_HW_SIGERR_APPTAG, 0, f.mkey.dv.lkey);
	CU_ASSERT_EQUAL(ibv_next_poll(x), ENOENT);
	ibv_end_poll(x);
	CU_ASSERT_EQUAL(be32toh(f.cqdb[0]), 4u);
	CU_ASSERT_EQUAL(f.mkey.sig.err_count, 4);
}

/** mkey_check after one SIG_ERR CQE. */
int check_after(PollFixture &f, uint16_t synd, uint8_t domain, struct mlx5dv_mkey_err *e,
		uint8_t sig_type = 0)
{
	struct ibv_wc wc;

	f.sigerr(f.cq->cons_index, synd, domain, f.mkey.dv.lkey, sig_type);
	CU_ASSERT_EQUAL(f.poll(1, &wc), 0);
	memset(e, 0xa5, sizeof(*e));
	return sim_dv_mkey_check(&f.mkey.dv, e, sizeof(*e));
}

void test_mkey_check(void)
{
	PollFixture f;
	struct mlx5dv_mkey_err e;

	memset(&e, 0xa5, sizeof(e));
	CU_ASSERT_EQUAL(sim_dv_mkey_check(&f.mkey.dv, &e, sizeof(e)), 0);
	CU_ASSERT_EQUAL(e.err_type, MLX5DV_MKEY_NO_ERR);
	CU_ASSERT_EQUAL(e.err.sig.offset, 0xa5a5a5a5a5a5a5a5ull); /* only err_type written */
	/* several bits: ref tag first, low 32 bits */
	CU_ASSERT_EQUAL(check_after(f, MLX5_HW_SIGERR_REFTAG | MLX5_HW_SIGERR_GUARD, 0, &e), 0);
	CU_ASSERT_EQUAL(e.err_type, MLX5DV_MKEY_SIG_BLOCK_BAD_REFTAG);
	CU_ASSERT_EQUAL(e.err.sig.expected_value, 0x55556666u);
	CU_ASSERT_EQUAL(e.err.sig.actual_value, 0x77778888u);
	CU_ASSERT_EQUAL(e.err.sig.offset, 0x1200u);
	/* reported once */
	CU_ASSERT_EQUAL(sim_dv_mkey_check(&f.mkey.dv, &e, sizeof(e)), 0);
	CU_ASSERT_EQUAL(e.err_type, MLX5DV_MKEY_NO_ERR);
	/* app tag: bits 47:32 */
	CU_ASSERT_EQUAL(check_after(f, MLX5_HW_SIGERR_APPTAG | MLX5_HW_SIGERR_GUARD, 0, &e), 0);
	CU_ASSERT_EQUAL(e.err_type, MLX5DV_MKEY_SIG_BLOCK_BAD_APPTAG);
	CU_ASSERT_EQUAL(e.err.sig.expected_value, 0x2222u);
	CU_ASSERT_EQUAL(e.err.sig.actual_value, 0x4444u);
	/* guard of a T10-DIF domain (wire): bits 63:48 */
	CU_ASSERT_EQUAL(check_after(f, MLX5_HW_SIGERR_GUARD, 0, &e), 0);
	CU_ASSERT_EQUAL(e.err_type, MLX5DV_MKEY_SIG_BLOCK_BAD_GUARD);
	CU_ASSERT_EQUAL(e.err.sig.expected_value, 0x1111u);
	/* guard of a CRC32 domain (memory): bits 63:32 */
	CU_ASSERT_EQUAL(check_after(f, MLX5_HW_SIGERR_GUARD, 1, &e), 0);
	CU_ASSERT_EQUAL(e.err.sig.expected_value, 0x11112222u);
	CU_ASSERT_EQUAL(e.err.sig.actual_value, 0x33334444u);
	/* guard of a CRC64 domain: all 64 bits */
	f.mkey.sig.mem.crc.type = MLX5DV_SIG_CRC_TYPE_CRC64_XP10;
	CU_ASSERT_EQUAL(check_after(f, MLX5_HW_SIGERR_GUARD, 1, &e), 0);
	CU_ASSERT_EQUAL(e.err.sig.expected_value, 0x1111222255556666ull);
	/* failures leave the error pending */
	CU_ASSERT_EQUAL(check_after(f, 0x0400, 0, &e), EINVAL); /* unknown syndrome */
	CU_ASSERT(f.mkey.sig.err_exists);
	CU_ASSERT_EQUAL(check_after(f, MLX5_HW_SIGERR_GUARD, 0, &e, 1), EINVAL); /* transaction */
	CU_ASSERT_EQUAL(check_after(f, MLX5_HW_SIGERR_GUARD, 2, &e), EINVAL);
	CU_ASSERT_EQUAL(check_after(f, MLX5_HW_SIGERR_GUARD, 8, &e), EINVAL); /* not masked */
	CU_ASSERT_EQUAL(check_after(f, MLX5_HW_SIGERR_GUARD, 9, &e), EINVAL);
	f.mkey.sig.wire.present = false;
	CU_ASSERT_EQUAL(check_after(f, MLX5_HW_SIGERR_GUARD, 0, &e), EINVAL); /* no wire sig */
	f.mkey.has_sig = false;
	CU_ASSERT_EQUAL(sim_dv_mkey_check(&f.mkey.dv, &e, sizeof(e)), EINVAL);
}

/* ---- cancel ---- */

/** WQEs: RDMA_WRITE wr 1, SEND wr 2, SEND wr 1 (FENCE, signalled), RDMA_WRITE_IMM wr 1. */
void post_mix(Fixture &f)
{
	f.start(0, 1);
	ibv_wr_rdma_write(f.x(), 0x99, 0x2000);
	ibv_wr_set_sge(f.x(), 0x42, 0x1000, 512);
	f.qp->qpx.wr_id = 2;
	ibv_wr_send(f.x());
	ibv_wr_set_sge(f.x(), 0x42, 0x1000, 16);
	f.qp->qpx.wr_id = 1;
	f.qp->qpx.wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	ibv_wr_send(f.x());
	ibv_wr_set_sge(f.x(), 0x42, 0x1000, 16);
	f.qp->qpx.wr_flags = 0;
	ibv_wr_rdma_write_imm(f.x(), 0x99, 0x2000, htobe32(5));
	ibv_wr_set_sge(f.x(), 0x42, 0x1000, 8);
	CU_ASSERT_EQUAL_FATAL(ibv_wr_complete(f.x()), 0);
	CU_ASSERT_EQUAL_FATAL(f.qp->sq.cur_post, 4);
}

void test_cancel(void)
{
	Fixture f;
	uint8_t before[64];

	post_mix(f);
	memcpy(before, f.slot(2), 64);
	/* the first WQE was executed: only the fenced SEND and the WRITE_IMM of wr 1 */
	f.devx.qpc.hw_sq_wqebb_counter = 1;
	CU_ASSERT_EQUAL(sim_dv_qp_cancel_posted_send_wrs(f.dv(), 1), 2);
	CU_ASSERT_EQUAL(f.devx.calls, 1u);
	CU_ASSERT_EQUAL(f.slot(0)[3], MLX5_OPCODE_RDMA_WRITE); /* executed: kept */
	CU_ASSERT_EQUAL(f.slot(1)[3], MLX5_OPCODE_SEND);
	/* NOP keeps index, ds, fence/completion bits and everything else */
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(f.slot(2)), 2u << 8 | MLX5_OPCODE_NOP);
	CU_ASSERT_EQUAL(memcmp(f.slot(2) + 4, before + 4, 60), 0);
	CU_ASSERT_EQUAL(f.slot(2)[11], MLX5_WQE_CTRL_FENCE | MLX5_WQE_CTRL_CQ_UPDATE);
	CU_ASSERT_EQUAL(f.wr_data[2], (uint32_t)IBV_WC_SEND);
	CU_ASSERT_EQUAL(mlx5_hw_ld_be32(f.slot(3)), 3u << 8 | MLX5_OPCODE_NOP);
	CU_ASSERT_EQUAL(f.wr_data[3], (uint32_t)IBV_WC_RDMA_WRITE);
	/* no match: 0; a second cancel meets a NOP: -EINVAL */
	CU_ASSERT_EQUAL(sim_dv_qp_cancel_posted_send_wrs(f.dv(), 7), 0);
	CU_ASSERT_EQUAL(sim_dv_qp_cancel_posted_send_wrs(f.dv(), 1), -EINVAL);
	/* everything executed (counter == producer): nothing walked */
	f.devx.qpc.hw_sq_wqebb_counter = 4;
	CU_ASSERT_EQUAL(sim_dv_qp_cancel_posted_send_wrs(f.dv(), 2), 0);
	/* from the start: one match of wr 2 */
	f.devx.qpc.hw_sq_wqebb_counter = 0;
	CU_ASSERT_EQUAL(sim_dv_qp_cancel_posted_send_wrs(f.dv(), 2), 1);
	CU_ASSERT_EQUAL(f.slot(1)[3], MLX5_OPCODE_NOP);
}

void test_cancel_errors(void)
{
	Fixture f;
	uint8_t before[sizeof(f.ring)];

	post_mix(f);
	memcpy(before, f.ring, sizeof(before));
	/* not drained: -EINVAL, nothing touched */
	f.devx.qpc.state = MLX5_HW_QPC_STATE_RTS;
	CU_ASSERT_EQUAL(sim_dv_qp_cancel_posted_send_wrs(f.dv(), 1), -EINVAL);
	/* command failures: firmware status mapped, other errnos passed through */
	f.devx.qpc.state = MLX5_HW_QPC_STATE_SQDRAINED;
	f.devx.ret = EREMOTEIO;
	f.devx.status = 0x6;
	CU_ASSERT_EQUAL(sim_dv_qp_cancel_posted_send_wrs(f.dv(), 1), -EBUSY);
	f.devx.status = 0x8;
	CU_ASSERT_EQUAL(sim_dv_qp_cancel_posted_send_wrs(f.dv(), 1), -ENOMEM);
	f.devx.status = 0x51;
	CU_ASSERT_EQUAL(sim_dv_qp_cancel_posted_send_wrs(f.dv(), 1), -EIO);
	f.devx.status = 0;
	CU_ASSERT_EQUAL(sim_dv_qp_cancel_posted_send_wrs(f.dv(), 1), 0); /* v44.0: status OK */
	f.devx.ret = ENODEV;
	CU_ASSERT_EQUAL(sim_dv_qp_cancel_posted_send_wrs(f.dv(), 1), -ENODEV);
	CU_ASSERT_EQUAL(memcmp(before, f.ring, sizeof(before)), 0);
	/* bookkeeping that names no next WR ends the walk instead of spinning */
	f.devx.ret = 0;
	f.devx.qpc.hw_sq_wqebb_counter = 0;
	f.qp->sq.head = 100;
	CU_ASSERT_EQUAL(sim_dv_qp_cancel_posted_send_wrs(f.dv(), 9), 0);
}

/* ---- device ---- */

const struct mlx5_glue *g;

struct ibv_context *open_instance(const char *name, uint32_t sig_features,
				  enum mlx5_sim_exec_mode mode = MLX5_SIM_EXEC_INLINE)
{
	struct mlx5_sim_device_attr attr;
	struct ibv_context *ctx = nullptr;
	struct ibv_device **list;
	int n = 0;

	mlx5_sim_device_attr_init(&attr);
	attr.exec_mode = mode;
	attr.sig_features = sig_features;
	if (mlx5_sim_device_add(name, &attr))
		return nullptr;
	list = g->get_device_list(&n);
	for (int i = 0; list && i < n; i++)
		if (!strcmp(g->get_device_name(list[i]), name))
			ctx = g->open_device(list[i]);
	g->free_device_list(list);
	return ctx;
}

void close_instance(struct ibv_context *ctx, const char *name)
{
	CU_ASSERT_EQUAL(g->close_device(ctx), 0);
	CU_ASSERT_EQUAL(mlx5_sim_device_remove(name), 0);
}

struct ibv_qp *create_qp(struct ibv_context *ctx, struct ibv_pd *pd, struct ibv_cq_ex *cq,
			 uint32_t dv_flags)
{
	struct ibv_qp_init_attr_ex a = {};
	struct mlx5dv_qp_init_attr dv = {};

	a.qp_type = IBV_QPT_RC;
	a.send_cq = a.recv_cq = ibv_cq_ex_to_cq(cq);
	a.cap.max_send_wr = 16;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_wr = 4;
	a.cap.max_recv_sge = 1;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	a.pd = pd;
	a.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE;
	dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS;
	dv.create_flags = dv_flags;
	return g->dv_create_qp(ctx, &a, &dv);
}

void test_device_caps(void)
{
	struct ibv_context *full = open_instance("sim41", MLX5_SIM_SIG_ALL);
	struct ibv_context *base = open_instance("sim42", MLX5_SIM_SIG_OFFLOAD);
	struct ibv_context *none = open_instance("sim43", 0);
	struct mlx5dv_context dv = {};
	struct mlx5_sim_device_attr attr;

	CU_ASSERT_PTR_NOT_NULL_FATAL(full);
	CU_ASSERT_PTR_NOT_NULL_FATAL(base);
	CU_ASSERT_PTR_NOT_NULL_FATAL(none);
	dv.comp_mask = MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD;
	CU_ASSERT_EQUAL(g->dv_query_device(full, &dv), 0);
	CU_ASSERT_EQUAL(dv.comp_mask, MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD);
	CU_ASSERT_EQUAL(dv.sig_caps.block_prot,
			MLX5DV_SIG_PROT_CAP_T10DIF | MLX5DV_SIG_PROT_CAP_CRC);
	CU_ASSERT_EQUAL(dv.sig_caps.block_size, 0x1fu); /* 512, 520, 4048, 4096, 4160 */
	CU_ASSERT_EQUAL(dv.sig_caps.t10dif_bg, 3);
	CU_ASSERT_EQUAL(dv.sig_caps.crc_type, 7); /* CRC32, CRC32C, CRC64_XP10 */
	dv.comp_mask = MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD;
	CU_ASSERT_EQUAL(g->dv_query_device(base, &dv), 0);
	CU_ASSERT_EQUAL(dv.sig_caps.block_size, 0x1bu); /* no 4048 */
	CU_ASSERT_EQUAL(dv.sig_caps.crc_type, MLX5DV_SIG_CRC_TYPE_CAP_CRC32);
	dv.comp_mask = MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD;
	CU_ASSERT_EQUAL(g->dv_query_device(none, &dv), 0);
	CU_ASSERT_EQUAL(dv.comp_mask, MLX5DV_CONTEXT_MASK_SIGNATURE_OFFLOAD); /* echoed */
	CU_ASSERT_EQUAL(dv.sig_caps.block_prot, 0u);
	CU_ASSERT_EQUAL(dv.sig_caps.block_size, 0u);
	/* without the mask the caps stay zero */
	dv.comp_mask = 0;
	CU_ASSERT_EQUAL(g->dv_query_device(full, &dv), 0);
	CU_ASSERT_EQUAL(dv.sig_caps.block_prot, 0u);
	/* unknown feature bits are refused */
	mlx5_sim_device_attr_init(&attr);
	attr.sig_features = 1u << 7;
	CU_ASSERT_EQUAL(mlx5_sim_device_add("sim44", &attr), -EINVAL);
	close_instance(full, "sim41");
	close_instance(base, "sim42");
	close_instance(none, "sim43");
}

void test_device_psv_mkey_sig(void)
{
	struct ibv_context *full = open_instance("sim45", MLX5_SIM_SIG_ALL);
	struct ibv_context *none = open_instance("sim46", 0);
	struct ibv_pd *pd, *pd0;
	SimMkey a{}, b{}, c{};

	CU_ASSERT_PTR_NOT_NULL_FATAL(full);
	CU_ASSERT_PTR_NOT_NULL_FATAL(none);
	pd = g->alloc_pd(full);
	pd0 = g->alloc_pd(none);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd0);
	SimCtxFull *ctx = to_ctx_full(full);

	CU_ASSERT_EQUAL(sim_mkey_sig_create(ctx, to_pd_full(pd), &a), 0);
	CU_ASSERT_EQUAL(sim_mkey_sig_create(ctx, to_pd_full(pd), &b), 0);
	CU_ASSERT(a.has_sig);
	CU_ASSERT(a.sig.state == SigState::INIT);
	CU_ASSERT_EQUAL(a.sig.err_count, 1u);
	CU_ASSERT(a.sig.err_count_updated);
	CU_ASSERT_FALSE(a.sig.err_exists);
	CU_ASSERT_NOT_EQUAL(a.sig.mem_psv_index, a.sig.wire_psv_index);
	CU_ASSERT_NOT_EQUAL(a.sig.mem_psv_index, b.sig.mem_psv_index);
	CU_ASSERT(a.sig.wire_psv_index <= 0xffffff && b.sig.wire_psv_index <= 0xffffff);
	/* PSVs keep the PD busy */
	CU_ASSERT_NOT_EQUAL_FATAL(g->dealloc_pd(pd), 0);
	CU_ASSERT_EQUAL(sim_mkey_sig_destroy(ctx, &a), 0);
	CU_ASSERT_FALSE(a.has_sig);
	CU_ASSERT_EQUAL(sim_mkey_sig_destroy(ctx, &b), 0);
	CU_ASSERT_EQUAL(g->dealloc_pd(pd), 0);
	/* a device without signature offload refuses BLOCK_SIGNATURE */
	CU_ASSERT_EQUAL(sim_mkey_sig_create(to_ctx_full(none), to_pd_full(pd0), &c), EOPNOTSUPP);
	CU_ASSERT_FALSE(c.has_sig);
	CU_ASSERT_EQUAL(g->dealloc_pd(pd0), 0);
	close_instance(full, "sim45");
	close_instance(none, "sim46");
}

/*
 * mlx5dv_create_mkey with BLOCK_SIGNATURE: a device mkey with a BSF, two PSVs, the
 * mkey in the context's table under lkey >> 8 (where SIG_ERR CQEs look it up, plain
 * mkeys too); destroy takes all of it away. Without signature caps: EOPNOTSUPP.
 */
void test_create_sig_mkey(void)
{
	struct ibv_context *full = open_instance("sim47", MLX5_SIM_SIG_ALL);
	struct ibv_context *none = open_instance("sim48", 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(full);
	CU_ASSERT_PTR_NOT_NULL_FATAL(none);
	struct ibv_pd *pd = g->alloc_pd(full), *pd0 = g->alloc_pd(none);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd0);
	struct mlx5dv_mkey_init_attr ma = {};
	ma.pd = pd;
	ma.max_entries = 3;
	ma.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT |
			  MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE;
	struct mlx5dv_mkey *sig = g->dv_create_mkey(&ma);
	CU_ASSERT_PTR_NOT_NULL_FATAL(sig);
	CU_ASSERT_EQUAL(ma.max_entries, 4);
	ma.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT;
	struct mlx5dv_mkey *plain = g->dv_create_mkey(&ma);
	CU_ASSERT_PTR_NOT_NULL_FATAL(plain);
	SimCtxFull *ctx = to_ctx_full(full);
	SimMkey *s = to_sim_mkey(sig);
	CU_ASSERT(s->has_sig);
	CU_ASSERT_EQUAL(s->sig.state, SigState::INIT);
	CU_ASSERT(s->sig.mem_psv_index != 0 && s->sig.wire_psv_index != 0);
	CU_ASSERT_PTR_EQUAL(ctx->mkey_by_idx.find(sig->lkey >> 8), s);
	CU_ASSERT_PTR_EQUAL(ctx->mkey_by_idx.find(plain->lkey >> 8), to_sim_mkey(plain));
	CU_ASSERT_FALSE(to_sim_mkey(plain)->has_sig);
	/* PSVs keep the PD busy until the mkey is gone */
	uint32_t lkey = sig->lkey;
	CU_ASSERT_EQUAL(g->dv_destroy_mkey(sig), 0);
	CU_ASSERT_PTR_NULL(ctx->mkey_by_idx.find(lkey >> 8));
	CU_ASSERT_EQUAL(g->dv_destroy_mkey(plain), 0);
	CU_ASSERT_EQUAL(g->dealloc_pd(pd), 0);
	ma.pd = pd0;
	ma.max_entries = 1;
	ma.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_BLOCK_SIGNATURE;
	errno = 0;
	CU_ASSERT_PTR_NULL(g->dv_create_mkey(&ma));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	CU_ASSERT_EQUAL(ma.max_entries, 1);
	CU_ASSERT_EQUAL(g->dealloc_pd(pd0), 0);
	close_instance(full, "sim47");
	close_instance(none, "sim48");
}

/* A failing second CREATE_PSV keeps nothing: the first PSV is destroyed again. */
void test_psv_failure_keeps_nothing(void)
{
	HcaCaps caps;
	SimCtxFull ctx{};
	SimPd pd{};
	SimMkey a{}, b{};
	uint32_t extra, more;

	caps.max_psv = 3;
	ctx.hca = Hca::create("sigpsv", caps, ExecMode::Inline);
	CU_ASSERT_FATAL(ctx.hca != nullptr);
	ctx.sig_caps.block_prot = MLX5DV_SIG_PROT_CAP_T10DIF | MLX5DV_SIG_PROT_CAP_CRC;
	CU_ASSERT_EQUAL_FATAL(ctx.hca->alloc_pd(&pd.pdn), 0);
	CU_ASSERT_EQUAL(sim_mkey_sig_create(&ctx, &pd, &a), 0);
	CU_ASSERT_EQUAL(sim_mkey_sig_create(&ctx, &pd, &b), ENOMEM);
	CU_ASSERT_FALSE(b.has_sig);
	/* exactly one PSV is left for others */
	CU_ASSERT_EQUAL(ctx.hca->create_psv(pd.pdn, &extra), 0);
	CU_ASSERT_EQUAL(ctx.hca->create_psv(pd.pdn, &more), -ENOMEM);
	CU_ASSERT_EQUAL(ctx.hca->destroy_psv(extra), 0);
	CU_ASSERT_EQUAL(sim_mkey_sig_destroy(&ctx, &a), 0);
	CU_ASSERT_EQUAL(sim_mkey_sig_destroy(&ctx, &a), 0); /* nothing left: no-op */
	CU_ASSERT_EQUAL(ctx.hca->dealloc_pd(pd.pdn), 0);
}

void test_sig_pipelining_qp(void)
{
	struct ibv_context *full = open_instance("sim47", MLX5_SIM_SIG_ALL);
	struct ibv_context *nopipe = open_instance("sim48", MLX5_SIM_SIG_OFFLOAD);
	struct ibv_cq_init_attr_ex ca = {};
	struct ibv_pd *pd, *pd2;
	struct ibv_cq_ex *cq, *cq2;
	struct ibv_qp *qp, *plain;
	QpInfo info;

	CU_ASSERT_PTR_NOT_NULL_FATAL(full);
	CU_ASSERT_PTR_NOT_NULL_FATAL(nopipe);
	pd = g->alloc_pd(full);
	pd2 = g->alloc_pd(nopipe);
	ca.cqe = 16;
	cq = g->create_cq_ex(full, &ca);
	cq2 = g->create_cq_ex(nopipe, &ca);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq2);
	qp = create_qp(full, pd, cq, MLX5DV_QP_CREATE_SIG_PIPELINING);
	plain = create_qp(full, pd, cq, MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(plain);
	CU_ASSERT_EQUAL(to_ctx_full(full)->hca->query_qp(qp->qp_num, &info), 0);
	CU_ASSERT(info.drain_sigerr);
	CU_ASSERT_EQUAL(to_ctx_full(full)->hca->query_qp(plain->qp_num, &info), 0);
	CU_ASSERT_FALSE(info.drain_sigerr);
	/* without the kernel's SQD->RTS support: EOPNOTSUPP, as libmlx5 */
	CU_ASSERT_PTR_NULL(create_qp(nopipe, pd2, cq2, MLX5DV_QP_CREATE_SIG_PIPELINING));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	CU_ASSERT_PTR_NULL(create_qp(full, pd, cq, 1u << 9));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	CU_ASSERT_EQUAL(g->destroy_qp(qp), 0);
	CU_ASSERT_EQUAL(g->destroy_qp(plain), 0);
	CU_ASSERT_EQUAL(g->destroy_cq(ibv_cq_ex_to_cq(cq)), 0);
	CU_ASSERT_EQUAL(g->destroy_cq(ibv_cq_ex_to_cq(cq2)), 0);
	CU_ASSERT_EQUAL(g->dealloc_pd(pd), 0);
	CU_ASSERT_EQUAL(g->dealloc_pd(pd2), 0);
	close_instance(full, "sim47");
	close_instance(nopipe, "sim48");
}

/** Up to @p n completions (legacy poll) within the poll timeout. */
int poll_n(struct ibv_cq_ex *cq, struct ibv_wc *wc, int n)
{
	uint64_t deadline = glue_test_now_ms() + 2000;
	int got = 0;

	while (got < n && glue_test_now_ms() < deadline) {
		int r = ibv_poll_cq(ibv_cq_ex_to_cq(cq), n - got, wc + got);

		if (r < 0)
			return r;
		got += r;
	}
	return got;
}

/*
 * Cancel on the device: WQEs posted while the SQ is drained (SQD) are cancelled
 * by wr_id; SQD->RTS then completes them as NOPs reporting the original opcode.
 * The cancelled SEND would have waited for a receive WQE that never comes.
 */
void cancel_in_sqd(const char *name, enum mlx5_sim_exec_mode mode)
{
	struct ibv_context *ctx = open_instance(name, MLX5_SIM_SIG_ALL, mode);
	struct ibv_cq_init_attr_ex ca = {};
	std::vector<uint8_t> buf(4096, 0x11);
	struct ibv_wc wc[4];
	struct ibv_qp_ex *x;
	struct mlx5dv_qp_ex *dv;
	struct ibv_mr *mr;
	struct ibv_pd *pd;
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	struct ibv_qp_attr qa = {};

	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	pd = g->alloc_pd(ctx);
	ca.cqe = 16;
	cq = g->create_cq_ex(ctx, &ca);
	mr = g->reg_mr(pd, buf.data(), buf.size(),
		       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	qp = create_qp(ctx, pd, cq, MLX5DV_QP_CREATE_SIG_PIPELINING);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	x = g->qp_to_qp_ex(qp);
	dv = g->dv_qp_ex_from_ibv_qp_ex(x);
	CU_ASSERT_EQUAL(glue_test_modify_rc(g, qp, IBV_QPS_INIT, qp->qp_num), 0);
	CU_ASSERT_EQUAL(glue_test_modify_rc(g, qp, IBV_QPS_RTR, qp->qp_num), 0);
	CU_ASSERT_EQUAL(glue_test_modify_rc(g, qp, IBV_QPS_RTS, qp->qp_num), 0);
	/* not drained: -EINVAL */
	CU_ASSERT_EQUAL(g->dv_qp_cancel_posted_send_wrs(dv, 1), -EINVAL);
	/* an executed unsignalled RDMA_WRITE with wr_id 1 */
	ibv_wr_start(x);
	x->wr_id = 1;
	x->wr_flags = 0;
	ibv_wr_rdma_write(x, mr->rkey, (uintptr_t)buf.data() + 2048);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf.data(), 64);
	CU_ASSERT_EQUAL(ibv_wr_complete(x), 0);
	CU_ASSERT_EQUAL(mlx5_sim_quiesce(ctx), 0); /* thread mode: executed for sure */
	/* drain, then post what the device must not start */
	qa.qp_state = IBV_QPS_SQD;
	CU_ASSERT_EQUAL(g->modify_qp(qp, &qa, IBV_QP_STATE), 0);
	ibv_wr_start(x);
	x->wr_id = 1;
	x->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
	ibv_wr_send(x);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf.data(), 16);
	x->wr_id = 2;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(x, mr->rkey, (uintptr_t)buf.data() + 1024);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)buf.data(), 32);
	CU_ASSERT_EQUAL(ibv_wr_complete(x), 0);
	CU_ASSERT_EQUAL(mlx5_sim_quiesce(ctx), 0); /* nothing runs in SQD, in any mode */
	CU_ASSERT_EQUAL(poll_n(cq, wc, 1), 0);
	CU_ASSERT_EQUAL(g->dv_qp_cancel_posted_send_wrs(dv, 3), 0);
	CU_ASSERT_EQUAL(g->dv_qp_cancel_posted_send_wrs(dv, 1), 1); /* the SEND only */
	CU_ASSERT_EQUAL(g->dv_qp_cancel_posted_send_wrs(dv, 1), -EINVAL);
	/* SQD -> RTS: the NOP completes as a SEND, then the RDMA_WRITE */
	qa.qp_state = IBV_QPS_RTS;
	qa.cur_qp_state = IBV_QPS_SQD;
	CU_ASSERT_EQUAL(g->modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_CUR_STATE), 0);
	CU_ASSERT_EQUAL(poll_n(cq, wc, 2), 2);
	CU_ASSERT_EQUAL(wc[0].wr_id, 1u);
	CU_ASSERT_EQUAL(wc[0].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[0].opcode, IBV_WC_SEND);
	CU_ASSERT_EQUAL(wc[1].wr_id, 2u);
	CU_ASSERT_EQUAL(wc[1].status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc[1].opcode, IBV_WC_RDMA_WRITE);
	CU_ASSERT_EQUAL(buf[1024], 0x11); /* the write ran */
	/* everything executed: nothing to cancel */
	qa.qp_state = IBV_QPS_SQD;
	CU_ASSERT_EQUAL(g->modify_qp(qp, &qa, IBV_QP_STATE), 0);
	CU_ASSERT_EQUAL(g->dv_qp_cancel_posted_send_wrs(dv, 2), 0);
	CU_ASSERT_EQUAL(g->dv_qp_cancel_posted_send_wrs(dv, 1), 0);
	CU_ASSERT_EQUAL(g->destroy_qp(qp), 0);
	CU_ASSERT_EQUAL(g->dereg_mr(mr), 0);
	CU_ASSERT_EQUAL(g->destroy_cq(ibv_cq_ex_to_cq(cq)), 0);
	CU_ASSERT_EQUAL(g->dealloc_pd(pd), 0);
	close_instance(ctx, name);
}

void test_device_cancel_in_sqd(void)
{
	cancel_in_sqd("sim49", MLX5_SIM_EXEC_INLINE);
	cancel_in_sqd("sim50", MLX5_SIM_EXEC_THREAD);
}

} // namespace

int main(void)
{
	static const struct cunit_test block[] = {
		{"BSF: T10-DIF wire (libmlx5 example)", test_bsf_t10dif_wire},
		{"BSF: CRC32 both domains (libmlx5 example)", test_bsf_crc_both},
		{"BSF: T10-DIF same block structure, copy mask", test_bsf_t10dif_sbs_copy_mask},
		{"BSF: block-size selectors, CRC32C/CRC64", test_bsf_block_selectors},
		{"setter EINVAL per attribute", test_setter_einval},
		{"setter EINVAL per context", test_setter_einval_context},
		{"finalisation errors", test_finalise_errors},
		{"INIT/RESET/SET/UPDATED", test_state_machine},
	};
	static const struct cunit_test err[] = {
		{"SIG_ERR in ibv_poll_cq", test_sigerr_legacy},
		{"SIG_ERR in start/next_poll", test_sigerr_extended},
		{"mlx5dv_mkey_check", test_mkey_check},
	};
	static const struct cunit_test cancel[] = {
		{"0, 1, several matches; NOP rewrite", test_cancel},
		{"not drained, QUERY_QP failures", test_cancel_errors},
	};
	static const struct cunit_test dev[] = {
		{"signature caps per instance", test_device_caps},
		{"PSVs of a signature mkey", test_device_psv_mkey_sig},
		{"create/destroy a BLOCK_SIGNATURE mkey", test_create_sig_mkey},
		{"PSV failure keeps nothing", test_psv_failure_keeps_nothing},
		{"SIG_PIPELINING QPs", test_sig_pipelining_qp},
		{"cancel in SQD, NOP completions", test_device_cancel_in_sqd},
	};
	static const struct cunit_suite suites[] = {
		CUNIT_SUITE("sig_block", block),
		CUNIT_SUITE("sig_err", err),
		CUNIT_SUITE("cancel", cancel),
		CUNIT_SUITE("device", dev),
	};

	g = mlx5_glue_sim();
	return CUNIT_RUN_SUITES(suites);
}
