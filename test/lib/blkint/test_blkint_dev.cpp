/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librte_blkint on dma_mlx5 (software HCA, sig=1): every block size x format x op on the
 * device gives the bytes and the result the CPU engine gives; errors in the first, a
 * middle and the last block, escapes, check masks, ref tags across ops; the routing of
 * small ops; and the ISA-L cross-check catching the model's CORRUPT_SIG fault.
 */
#include <string.h>

#include <string>
#include <vector>

#include <rte_bus_vdev.h>
#include <rte_dmadev.h>
#include <rte_errno.h>
#include <rte_log.h>
#include <rte_malloc.h>

#include "blkint_util.h"
#include "dpdk_test_util.h"
#include "mlx5_glue.h"
#include "mlx5_sim.h"
#include "ref_pi.h"
#include "rte_pmd_dma_mlx5.h"
#include "test_blkint_dev.h"

namespace {

/** A buffer in DPDK memory (the memory dma_mlx5 registers). */
struct dbuf {
	uint8_t *p;
	size_t n;
	explicit dbuf(size_t len) : p((uint8_t *)rte_zmalloc("t", len ? len : 1, 64)), n(len) {}
	~dbuf() { rte_free(p); }
	dbuf(const dbuf &) = delete;
	dbuf &operator=(const dbuf &) = delete;
	void set(const std::vector<uint8_t> &v) { memcpy(p, v.data(), v.size()); }
	std::vector<uint8_t> get() const { return std::vector<uint8_t>(p, p + n); }
};

int16_t dev_id(void)
{
	return (int16_t)rte_dma_get_dev_id_by_name("dma_mlx5");
}

struct rte_blkint_ctx *ctx_dev(double rate, uint32_t min_blocks = 0)
{
	struct rte_blkint_conf conf = {};

	conf.dev_id = dev_id();
	conf.xcheck_rate = rate;
	conf.min_dev_blocks = min_blocks;
	return util::ctx_conf(conf);
}

bool same_result(const struct rte_blkint_result &a, const struct rte_blkint_result &b)
{
	return a.status == b.status && a.error.block == b.error.block &&
	       a.error.field == b.error.field && a.error.expected == b.error.expected &&
	       a.error.actual == b.error.actual;
}

/**
 * Run @p op (its src already set) on the device and on the CPU, each into its own
 * destination of @p dst_len bytes; the bytes and results must be equal. Returns the
 * device's result.
 */
struct rte_blkint_result both(struct rte_blkint_ctx *dev, struct rte_blkint_ctx *cpu,
			      struct rte_blkint_op op, size_t dst_len)
{
	dbuf d1(dst_len), d2(dst_len);
	struct rte_blkint_result rd = {}, rc = {};

	if (op.type != RTE_BLKINT_OP_VERIFY)
		op.dst = d1.p;
	CU_ASSERT_FATAL(util::run(dev, op, &rd));
	CU_ASSERT_EQUAL(rd.on_device, 1);
	if (op.type != RTE_BLKINT_OP_VERIFY)
		op.dst = d2.p;
	CU_ASSERT_FATAL(util::run(cpu, op, &rc));
	CU_ASSERT_EQUAL(rc.on_device, 0);
	CU_ASSERT(same_result(rd, rc));
	CU_ASSERT(memcmp(d1.p, d2.p, dst_len) == 0);
	if (!same_result(rd, rc) || memcmp(d1.p, d2.p, dst_len) != 0)
		printf("\n  device %d/%u/%d/0x%lx/0x%lx cpu %d/%u/%d/0x%lx/0x%lx\n", rd.status,
		       rd.error.block, rd.error.field, (unsigned long)rd.error.expected,
		       (unsigned long)rd.error.actual, rc.status, rc.error.block, rc.error.field,
		       (unsigned long)rc.error.expected, (unsigned long)rc.error.actual);
	return rd;
}

void t_caps(void)
{
	struct rte_pmd_dma_mlx5_sig_caps caps = {};
	struct rte_blkint_ctx *ctx = ctx_dev(0);

	CU_ASSERT_FATAL(dev_id() >= 0);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_caps(dev_id(), &caps), 0);
	CU_ASSERT_EQUAL(caps.enabled, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_EQUAL(rte_blkint_on_device(ctx), 1);
	rte_blkint_free(ctx);
}

/* Every block size x format x op (convert to the next format): device == CPU. */
void t_matrix(void)
{
	struct rte_blkint_ctx *dev = ctx_dev(0), *cpu = util::ctx_cpu();
	const uint32_t nb = 3;
	struct rte_blkint_stats s;

	for (uint32_t bs : util::block_sizes) {
		std::vector<struct rte_blkint_format> fs = util::formats(bs);

		for (size_t i = 0; i < fs.size(); i++) {
			const struct rte_blkint_format &f = fs[i], &g = fs[(i + 1) % fs.size()];
			std::vector<uint8_t> data = util::random_data(nb * bs, bs + i);
			dbuf plain(data.size()), prot(ref::protect(f, data, 9).size());
			struct rte_blkint_op op = {};

			plain.set(data);
			prot.set(ref::protect(f, data, 9));
			op.nb_blocks = nb;
			op.src_ref_tag = 9;
			op.dst_ref_tag = 9;
			op.type = RTE_BLKINT_OP_INSERT;
			op.src = plain.p;
			op.dst_fmt = &f;
			CU_ASSERT_EQUAL(both(dev, cpu, op, prot.n).status, RTE_BLKINT_OK);
			op.src = prot.p;
			op.src_fmt = &f;
			op.dst_fmt = NULL;
			op.type = RTE_BLKINT_OP_VERIFY;
			CU_ASSERT_EQUAL(both(dev, cpu, op, 0).status, RTE_BLKINT_OK);
			op.type = RTE_BLKINT_OP_STRIP;
			CU_ASSERT_EQUAL(both(dev, cpu, op, plain.n).status, RTE_BLKINT_OK);
			op.type = RTE_BLKINT_OP_CONVERT;
			op.dst_fmt = &g;
			op.dst_ref_tag = 0xabcdef;
			CU_ASSERT_EQUAL(both(dev, cpu, op, nb * (bs + ref::pi_size(g))).status,
					RTE_BLKINT_OK);
		}
	}
	rte_blkint_stats_get(dev, &s);
	CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_DEV].ops, 5 * 8 * 4);
	CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_CPU].ops, 0);
	rte_blkint_free(dev);
	rte_blkint_free(cpu);
}

size_t pi_off(const struct rte_blkint_format &f, uint32_t b, uint32_t i)
{
	return (size_t)b * (f.block_size + ref::pi_size(f)) + f.block_size + i;
}

/* Errors in the first, a middle and the last block, each field: identical reports. */
void t_errors(void)
{
	struct rte_blkint_ctx *dev = ctx_dev(0), *cpu = util::ctx_cpu();
	const uint32_t nb = 7;

	for (uint32_t bs : {520u, 4096u})
		for (const auto &f : util::formats(bs)) {
			std::vector<uint8_t> data = util::random_data(nb * bs, 77);
			std::vector<uint8_t> good = ref::protect(f, data, 500);
			bool t10 = f.type == RTE_BLKINT_PI_T10DIF;

			for (uint32_t b : {0u, nb / 2, nb - 1})
				for (uint32_t where = 0; where < (t10 ? 4u : 2u); where++) {
					dbuf bad(good.size());
					struct rte_blkint_op op = {};
					struct rte_blkint_result r;
					/* a data byte; then a byte of the guard/CRC, app tag, ref
					 * tag */
					static const uint32_t pi_byte[] = {0, 1, 2, 7};

					bad.set(good);
					if (where == 0)
						bad.p[(size_t)b * (bs + ref::pi_size(f)) + 100] ^=
							8;
					else if (!t10)
						bad.p[pi_off(f, b, ref::pi_size(f) - 1)] ^= 0x10;
					else
						bad.p[pi_off(f, b, pi_byte[where])] ^= 0x10;
					op.nb_blocks = nb;
					op.src = bad.p;
					op.src_fmt = &f;
					op.src_ref_tag = 500;
					op.type = RTE_BLKINT_OP_VERIFY;
					r = both(dev, cpu, op, 0);
					CU_ASSERT(r.status == RTE_BLKINT_ERR_PI &&
						  r.error.block == b);
					op.type = RTE_BLKINT_OP_STRIP;
					both(dev, cpu, op, (size_t)nb * bs);
					op.type = RTE_BLKINT_OP_CONVERT;
					op.dst_fmt = &f;
					op.dst_ref_tag = 42;
					both(dev, cpu, op, good.size());
				}
		}
	rte_blkint_free(dev);
	rte_blkint_free(cpu);
}

/* Escapes and check masks on the device. */
void t_escapes_and_masks(void)
{
	struct rte_blkint_ctx *dev = ctx_dev(0), *cpu = util::ctx_cpu();
	struct rte_blkint_format f = util::formats(512)[0];
	std::vector<uint8_t> data = util::random_data(4 * 512, 5);
	std::vector<uint8_t> v = ref::protect(f, data, 10);
	dbuf buf(v.size());
	struct rte_blkint_op op = {};

	/* block 1: app 0xffff, guard wrong; block 3: app and ref all ones, guard wrong */
	v[pi_off(f, 1, 0)] ^= 0xff;
	v[pi_off(f, 1, 2)] = v[pi_off(f, 1, 3)] = 0xff;
	v[pi_off(f, 3, 0)] ^= 0xff;
	memset(&v[pi_off(f, 3, 2)], 0xff, 6);
	buf.set(v);
	op.type = RTE_BLKINT_OP_VERIFY;
	op.nb_blocks = 4;
	op.src = buf.p;
	op.src_fmt = &f;
	op.src_ref_tag = 10;
	const uint32_t flag_sets[] = {0, RTE_BLKINT_F_APP_ESCAPE, RTE_BLKINT_F_APP_REF_ESCAPE,
				      RTE_BLKINT_F_APP_ESCAPE | RTE_BLKINT_F_APP_REF_ESCAPE};
	const uint32_t checks[] = {0, RTE_BLKINT_CHECK_GUARD, RTE_BLKINT_CHECK_APPTAG,
				   RTE_BLKINT_CHECK_REFTAG,
				   RTE_BLKINT_CHECK_APPTAG | RTE_BLKINT_CHECK_REFTAG};
	for (uint32_t fl : flag_sets)
		for (uint32_t ck : checks) {
			f.flags = RTE_BLKINT_F_REF_INC | fl;
			f.check = ck;
			both(dev, cpu, op, 0);
			op.type = RTE_BLKINT_OP_STRIP;
			both(dev, cpu, op, 4 * 512);
			op.type = RTE_BLKINT_OP_VERIFY;
		}
	rte_blkint_free(dev);
	rte_blkint_free(cpu);
}

/* Consecutive inserts carry the ref tag on; one verify of the whole run accepts it. */
void t_ref_tags(void)
{
	struct rte_blkint_ctx *dev = ctx_dev(1.0);
	struct rte_blkint_format f = util::formats(4096)[0];
	std::vector<uint8_t> data = util::random_data(12 * 4096, 6);
	dbuf plain(data.size()), prot(12 * 4104);
	struct rte_blkint_op ops[3] = {};
	struct rte_blkint_result res[3], r;
	uint32_t got = 0;

	plain.set(data);
	for (int i = 0; i < 3; i++) {
		ops[i].type = RTE_BLKINT_OP_INSERT;
		ops[i].nb_blocks = 4;
		ops[i].src = plain.p + i * 4 * 4096;
		ops[i].dst = prot.p + i * 4 * 4104;
		ops[i].dst_fmt = &f;
		ops[i].dst_ref_tag = 0x7ffffffeu + 4u * (uint32_t)i;
		ops[i].user_data = 100 + i;
	}
	CU_ASSERT_EQUAL(rte_blkint_enqueue(dev, ops, 3), 3);
	while (got < 3)
		got += rte_blkint_dequeue(dev, res + got, (uint16_t)(3 - got));
	for (int i = 0; i < 3; i++)
		CU_ASSERT(res[i].status == RTE_BLKINT_OK && res[i].on_device &&
			  res[i].user_data == 100u + i);
	CU_ASSERT(prot.get() == ref::protect(f, data, 0x7ffffffe));
	struct rte_blkint_op v = {};
	v.type = RTE_BLKINT_OP_VERIFY;
	v.nb_blocks = 12;
	v.src = prot.p;
	v.src_fmt = &f;
	v.src_ref_tag = 0x7ffffffe;
	CU_ASSERT(util::run(dev, v, &r) && r.status == RTE_BLKINT_OK && r.on_device);
	v.src_ref_tag = 0x7fffffff;
	CU_ASSERT(util::run(dev, v, &r) && r.status == RTE_BLKINT_ERR_PI && r.error.block == 0 &&
		  r.error.field == RTE_BLKINT_FIELD_REFTAG && r.error.expected == 0x7fffffff &&
		  r.error.actual == 0x7ffffffe);
	rte_blkint_free(dev);
}

/* Ops under min_dev_blocks and in-place ops run on the CPU; the rest on the device. */
void t_routing(void)
{
	struct rte_blkint_ctx *dev = ctx_dev(0, 4);
	struct rte_blkint_format f = util::formats(512)[3];
	std::vector<uint8_t> data = util::random_data(4 * 512, 7);
	dbuf plain(data.size()), prot(4 * 516);
	struct rte_blkint_op op = {};
	struct rte_blkint_result r;
	struct rte_blkint_stats s;

	plain.set(data);
	op.type = RTE_BLKINT_OP_INSERT;
	op.src = plain.p;
	op.dst = prot.p;
	op.dst_fmt = &f;
	op.nb_blocks = 3;
	CU_ASSERT(util::run(dev, op, &r) && r.status == RTE_BLKINT_OK && !r.on_device);
	op.nb_blocks = 4;
	CU_ASSERT(util::run(dev, op, &r) && r.status == RTE_BLKINT_OK && r.on_device);
	op.src = prot.p;
	CU_ASSERT(util::run(dev, op, &r) && r.status == RTE_BLKINT_OK && !r.on_device);
	CU_ASSERT(prot.get() == ref::protect(f, data, 0));
	/* memory outside DPDK's: the device cannot reach it, the CPU does the op */
	std::vector<uint8_t> heap(4 * 516);
	op.src = plain.p;
	op.dst = heap.data();
	CU_ASSERT(util::run(dev, op, &r) && r.status == RTE_BLKINT_OK && !r.on_device);
	CU_ASSERT(heap == ref::protect(f, data, 0));
	rte_blkint_stats_get(dev, &s);
	CU_ASSERT_EQUAL(s.small_to_cpu, 1);
	CU_ASSERT_EQUAL(s.inplace_to_cpu, 1);
	CU_ASSERT_EQUAL(s.refused_to_cpu, 1);
	CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_DEV].ops, 1);
	CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_CPU].ops, 3);
	rte_blkint_free(dev);
}

/** devargs of a device beside "dma_mlx5": instance sim5, or the kernel device. */
std::string other_dev(const char *extra)
{
	std::string a = std::string("dev=") +
			(blkint_test_kernel_dev ? blkint_test_kernel_dev : "sim5");

	return *extra ? a + "," + extra : a;
}

/** Arm the model's CORRUPT_SIG fault on the QP of dma_mlx5's vchan 0. */
int corrupt_next_sig(void)
{
	struct rte_pmd_dma_mlx5_vchan_info vi;
	const struct mlx5_glue *glue;
	struct ibv_device *device;
	struct ibv_context *ctx;
	struct mlx5_sim_fault f = {};
	int ret;

	if (rte_pmd_dma_mlx5_vchan_info(dev_id(), 0, &vi) ||
	    mlx5_glue_find_device("sim1", &glue, &device))
		return -1;
	ctx = glue->open_device(device);
	mlx5_glue_put_device(glue, device);
	if (!ctx)
		return -1;
	f.kind = MLX5_SIM_FAULT_CORRUPT_SIG;
	f.qpn = vi.qpn;
	ret = mlx5_sim_inject_fault(ctx, &f);
	glue->close_device(ctx);
	return ret;
}

/* The model corrupts a signature: the cross-check catches it; without it, it passes. */
void t_xcheck_catches_fault(void)
{
	if (blkint_test_kernel_dev) {
		printf("[skipped on %s: the fault is injected through the imitation "
		       "provider's mlx5_sim_inject_fault] ",
		       blkint_test_kernel_dev);
		return;
	}
	for (double rate : {1.0, 0.0}) {
		struct rte_blkint_ctx *dev = ctx_dev(rate);
		struct rte_blkint_format f = util::formats(4096)[4]; /* CRC32C, seed 0 */
		std::vector<uint8_t> data = util::random_data(16 * 4096, 8);
		std::vector<uint8_t> want = ref::protect(f, data, 0);
		dbuf plain(data.size()), prot(want.size());
		struct rte_blkint_op op = {};
		struct rte_blkint_result r;
		struct rte_blkint_stats s;

		plain.set(data);
		op.type = RTE_BLKINT_OP_INSERT;
		op.nb_blocks = 16;
		op.src = plain.p;
		op.dst = prot.p;
		op.dst_fmt = &f;
		CU_ASSERT_EQUAL_FATAL(corrupt_next_sig(), 0);
		CU_ASSERT_FATAL(util::run(dev, op, &r));
		CU_ASSERT_EQUAL(r.on_device, 1);
		CU_ASSERT(prot.get() != want); /* the device did write a wrong CRC */
		rte_blkint_stats_get(dev, &s);
		if (rate == 1.0) {
			uint32_t crc = (uint32_t)ref::sum(f, data.data(), 4096);

			CU_ASSERT_EQUAL(r.status, RTE_BLKINT_ERR_XCHECK);
			CU_ASSERT_EQUAL(r.error.block, 0);
			CU_ASSERT_EQUAL(r.error.field, RTE_BLKINT_FIELD_CRC);
			CU_ASSERT_EQUAL(r.error.expected, crc);
			CU_ASSERT_EQUAL(r.error.actual, crc ^ 1);
			CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_DEV].xcheck_run, 1);
			CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_DEV].xcheck_failed, 1);
		} else {
			CU_ASSERT_EQUAL(r.status, RTE_BLKINT_OK);
			CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_DEV].xcheck_failed, 0);
		}
		/* the fault fires once: the next op is right */
		CU_ASSERT(util::run(dev, op, &r) && r.status == RTE_BLKINT_OK);
		CU_ASSERT(prot.get() == want);
		rte_blkint_free(dev);
	}
}

/* Sampling 1/64 of 128 device ops: 2 recomputed. */
void t_xcheck_sampling(void)
{
	struct rte_blkint_ctx *dev = ctx_dev(1.0 / 64);
	struct rte_blkint_format f = util::formats(512)[0];
	std::vector<uint8_t> data = util::random_data(512, 9);
	dbuf plain(data.size()), prot(520);
	struct rte_blkint_op ops[16] = {};
	struct rte_blkint_result res[16];
	struct rte_blkint_stats s;
	uint32_t got = 0;

	plain.set(data);
	for (auto &o : ops) {
		o.type = RTE_BLKINT_OP_INSERT;
		o.nb_blocks = 1;
		o.src = plain.p;
		o.dst = prot.p;
		o.dst_fmt = &f;
	}
	for (int i = 0; i < 8; i++) {
		CU_ASSERT_EQUAL(rte_blkint_enqueue(dev, ops, 16), 16);
		while (rte_blkint_pending(dev))
			got += rte_blkint_dequeue(dev, res, 16);
	}
	CU_ASSERT_EQUAL(got, 128);
	rte_blkint_stats_get(dev, &s);
	CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_DEV].ops, 128);
	CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_DEV].xcheck_run, 2);
	CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_DEV].xcheck_failed, 0);
	rte_blkint_free(dev);
}

/* Freeing a context with device ops in flight waits for them; a busy device says ENOSPC. */
void t_free_in_flight_and_busy(void)
{
	struct rte_blkint_ctx *dev = ctx_dev(1.0);
	struct rte_blkint_format f = util::formats(4096)[1]; /* T10-DIF, IP checksum */
	std::vector<uint8_t> data = util::random_data(4 * 4096, 10);
	dbuf plain(data.size()), prot(64 * 4 * 4104);
	struct rte_blkint_op ops[64] = {};
	struct rte_blkint_stats s;
	uint16_t n;

	plain.set(data);
	for (int i = 0; i < 64; i++) {
		ops[i].type = RTE_BLKINT_OP_INSERT;
		ops[i].nb_blocks = 4;
		ops[i].src = plain.p;
		ops[i].dst = prot.p + (size_t)i * 4 * 4104;
		ops[i].dst_fmt = &f;
	}
	rte_errno = 0;
	n = rte_blkint_enqueue(dev, ops, 64);
	/* one signature mkey per insert: the device takes as many ops as it has mkeys */
	struct rte_pmd_dma_mlx5_sig_caps caps = {};
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_caps(dev_id(), &caps), 0);
	CU_ASSERT(caps.mkeys > 0 && caps.mkeys < 64);
	CU_ASSERT_EQUAL(n, caps.mkeys);
	CU_ASSERT_EQUAL(rte_errno, ENOSPC);
	rte_blkint_stats_get(dev, &s);
	CU_ASSERT_EQUAL(s.dev_busy, 1);
	CU_ASSERT_EQUAL(rte_blkint_pending(dev), n);
	rte_blkint_free(dev); /* waits; ASan would see a use after free otherwise */
	for (uint16_t i = 0; i < n; i++)
		CU_ASSERT(memcmp(prot.p + (size_t)i * 4 * 4104, ref::protect(f, data, 0).data(),
				 4 * 4104) == 0);
}

/*
 * Ops in flight when the context's dmadev is closed (hot-unplugged), or when its vchan is
 * set up again: they never complete; rte_blkint_free() returns (at once, or after its
 * 1 s bound) and releases the context. Round 2: a new owner of the vchan has copies in
 * flight when the context is freed: the context takes no more completions than it
 * posted (it freed its slots twice and crashed in free otherwise).
 */
void t_free_device_gone(void)
{
	static const char *const names[] = {"dma_mlx5_gone0", "dma_mlx5_gone1", "dma_mlx5_gone2"};

	for (int again = 0; again < 3; again++) {
		struct rte_blkint_format f = util::formats(4096)[4]; /* CRC32C */
		std::vector<uint8_t> data = util::random_data(4 * 4096, 14);
		dbuf plain(data.size()), prot(4 * 4 * 4100);
		struct rte_blkint_conf conf = {};
		struct rte_dma_vchan_conf vc = {};
		struct rte_blkint_op ops[4] = {};
		struct rte_blkint_ctx *ctx;
		uint64_t ms;
		int id;

		CU_ASSERT_EQUAL_FATAL(rte_vdev_init(names[again], other_dev("sig=1").c_str()), 0);
		id = dpdk_test_dma_start(names[again], 64);
		CU_ASSERT_FATAL(id >= 0);
		conf.dev_id = (int16_t)id;
		ctx = util::ctx_conf(conf);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
		CU_ASSERT_EQUAL(rte_blkint_on_device(ctx), 1);
		plain.set(data);
		for (int i = 0; i < 4; i++) {
			ops[i].type = RTE_BLKINT_OP_INSERT;
			ops[i].nb_blocks = 4;
			ops[i].src = plain.p;
			ops[i].dst = prot.p + (size_t)i * 4 * 4100;
			ops[i].dst_fmt = &f;
		}
		CU_ASSERT_EQUAL(rte_blkint_enqueue(ctx, ops, 4), 4);
		CU_ASSERT_EQUAL(rte_blkint_pending(ctx), 4);
		CU_ASSERT_EQUAL(rte_dma_stop(id), 0);
		if (!again) {
			CU_ASSERT_EQUAL(rte_vdev_uninit(names[again]), 0); /* closes it */
		} else {
			vc.direction = RTE_DMA_DIR_MEM_TO_MEM;
			vc.nb_desc = 64;
			CU_ASSERT_EQUAL(rte_dma_vchan_setup(id, 0, &vc), 0);
			CU_ASSERT_EQUAL(rte_dma_start(id), 0);
		}
		dbuf from(8 * 64), to(8 * 64);
		if (again == 2) { /* the vchan's new owner: 8 copies in flight */
			for (int i = 0; i < 8; i++)
				CU_ASSERT(rte_dma_copy(id, 0, rte_mem_virt2iova(from.p + i * 64),
						       rte_mem_virt2iova(to.p + i * 64), 64,
						       0) >= 0);
			CU_ASSERT_EQUAL(rte_dma_submit(id, 0), 0);
		}
		ms = util::free_bounded(ctx);
		if (!again) {
			CU_ASSERT(ms < 500); /* nothing to wait for */
		} else if (again == 1) {
			CU_ASSERT(ms >= 900 && ms < 5000);
		} else {
			CU_ASSERT(ms < 5000);
		}
		if (again) {
			CU_ASSERT_EQUAL(rte_dma_stop(id), 0);
			CU_ASSERT_EQUAL(rte_vdev_uninit(names[again]), 0);
		}
	}
}

/*
 * A dma_mlx5 device without the signature ops: the library runs on the CPU and its log
 * line says which devarg it was (path=verbs has none even with sig=1: the PMD writes
 * signature WQEs on the direct path only).
 */
void t_fallback_says_why(void)
{
	static const struct {
		const char *name, *args, *want, *not_want;
	} cases[] = {
		{"dma_mlx5_why0", "sig=1,path=verbs", "probed with path=verbs", "without sig=1"},
		{"dma_mlx5_why1", "", "probed without sig=1", "path=verbs"},
	};

	for (const auto &c : cases) {
		struct rte_blkint_conf conf = {};
		char *text = NULL;
		size_t len = 0;
		FILE *old = rte_log_get_stream();
		FILE *mem = open_memstream(&text, &len);
		int id;

		CU_ASSERT_PTR_NOT_NULL_FATAL(mem);
		CU_ASSERT_EQUAL_FATAL(rte_vdev_init(c.name, other_dev(c.args).c_str()), 0);
		id = dpdk_test_dma_start(c.name, 64);
		CU_ASSERT_FATAL(id >= 0);
		conf.dev_id = (int16_t)id;
		rte_openlog_stream(mem);
		struct rte_blkint_ctx *ctx = util::ctx_conf(conf);
		rte_openlog_stream(old == stderr ? NULL : old);
		fclose(mem);
		CU_ASSERT_PTR_NOT_NULL(ctx);
		if (ctx) {
			CU_ASSERT_EQUAL(rte_blkint_on_device(ctx), 0);
			rte_blkint_free(ctx);
		}
		std::string log(text ? text : "");
		free(text);
		CU_ASSERT(log.find(c.want) != std::string::npos);
		CU_ASSERT(log.find(c.not_want) == std::string::npos);
		if (log.find(c.want) == std::string::npos)
			printf("\n    %s: log [%s] ", c.args, log.c_str());
		CU_ASSERT_EQUAL(rte_dma_stop(id), 0);
		CU_ASSERT_EQUAL(rte_vdev_uninit(c.name), 0);
	}
}

const struct cunit_test tests[] = {
	{"signature caps", t_caps},
	{"block size x format x op: device == cpu", t_matrix},
	{"errors in first/middle/last block: device == cpu", t_errors},
	{"escapes and check masks: device == cpu", t_escapes_and_masks},
	{"ref tags across ops", t_ref_tags},
	{"routing: small, in place, foreign memory", t_routing},
	{"cross-check catches CORRUPT_SIG", t_xcheck_catches_fault},
	{"cross-check sampling 1/64", t_xcheck_sampling},
	{"free with ops in flight, busy device", t_free_in_flight_and_busy},
	{"free after the dmadev closed or its vchan set up again", t_free_device_gone},
	{"CPU fallback says which devarg", t_fallback_says_why},
};

} // namespace

const struct cunit_suite blkint_dev_suite = CUNIT_SUITE("dma_mlx5", tests);
const char *blkint_test_kernel_dev;
