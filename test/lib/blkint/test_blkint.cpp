/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * librte_blkint: known answers, the CPU engine over every block size x format x op, error
 * reports, escapes, ref tags, bad input, the cross-check against a scripted faulty
 * device, and the fallback of devices without signature offload.
 */
#include <string.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>

#include <rte_dmadev.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include "blkint_pi.h"
#include "blkint_priv.h"
#include "blkint_util.h"
#include "cunit_run.h"
#include "dpdk_test_util.h"
#include "fake_dev.h"
#include "ref_pi.h"
#ifdef BLKINT_TEST_SIM
#include "test_blkint_dev.h"
#endif

using util::run;

namespace {

const uint8_t check_str[] = "123456789";

struct rte_blkint_format fmt_of(enum rte_blkint_pi_type t, uint64_t seed)
{
	struct rte_blkint_format f = {};

	f.type = t;
	f.block_size = 512;
	if (t == RTE_BLKINT_PI_T10DIF)
		f.guard_seed = (uint16_t)seed;
	else
		f.crc_seed = seed;
	return f;
}

/* The standard check values: the library's ISA-L mapping and the tests' bitwise reference. */
void t_check_values(void)
{
	static const struct {
		enum rte_blkint_pi_type type;
		uint64_t seed;
		uint64_t check; /* catalogue name */
	} kat[] = {
		{RTE_BLKINT_PI_CRC32C, 0xffffffffu, 0xE3069283u},    /* CRC-32/ISCSI */
		{RTE_BLKINT_PI_CRC32, 0xffffffffu, 0xCBF43926u},     /* CRC-32/ISO-HDLC */
		{RTE_BLKINT_PI_T10DIF, 0, 0xD0DBu},                  /* CRC-16/T10-DIF */
		{RTE_BLKINT_PI_CRC64, 0, 0x6C40DF5F0B497347ull},     /* CRC-64/ECMA-182 */
		{RTE_BLKINT_PI_CRC64, ~0ull, 0x62EC59E3F1A4F00Aull}, /* CRC-64/WE */
	};

	for (const auto &k : kat) {
		struct rte_blkint_format f = fmt_of(k.type, k.seed);

		CU_ASSERT_EQUAL(blkint_pi_sum(&f, check_str, 9), k.check);
		CU_ASSERT_EQUAL(ref::sum(f, check_str, 9), k.check);
	}
	/* IP checksum: 0x3132 + 0x3334 + 0x3536 + 0x3738 + 0x3900 = 0x109d4 -> 0x09d5 -> ~ */
	struct rte_blkint_format ip = fmt_of(RTE_BLKINT_PI_T10DIF, 0);

	ip.guard = RTE_BLKINT_GUARD_IPCSUM;
	CU_ASSERT_EQUAL(blkint_pi_sum(&ip, check_str, 9), 0xf62a);
	CU_ASSERT_EQUAL(ref::ip_csum(0, check_str, 9), 0xf62a);
}

/* ISA-L (through the library) against the bitwise reference: every format, many lengths. */
void t_isal_vs_bitwise(void)
{
	for (uint32_t bs : util::block_sizes)
		for (const auto &f : util::formats(bs))
			for (uint32_t seed = 0; seed < 4; seed++) {
				std::vector<uint8_t> d = util::random_data(bs, seed * 7 + bs);

				CU_ASSERT_EQUAL(blkint_pi_sum(&f, d.data(), bs),
						ref::sum(f, d.data(), bs));
			}
	/* a few all-equal blocks, where seeds matter most */
	for (uint8_t fill : {0x00, 0xff}) {
		std::vector<uint8_t> d(4096, fill);

		for (const auto &f : util::formats(4096))
			CU_ASSERT_EQUAL(blkint_pi_sum(&f, d.data(), 4096),
					ref::sum(f, d.data(), 4096));
	}
}

/* T10-DIF protected 512-byte blocks: the library's insert equals the bitwise construction. */
void t_t10dif_blocks(void)
{
	struct rte_blkint_ctx *ctx = util::ctx_cpu();
	struct rte_blkint_format f = fmt_of(RTE_BLKINT_PI_T10DIF, 0);
	std::vector<uint8_t> data(4 * 512);
	struct rte_blkint_result r;

	f.app_tag = 0x0a0b;
	f.flags = RTE_BLKINT_F_REF_INC;
	/* zeros, ones, a counting pattern, random */
	memset(data.data() + 512, 0xff, 512);
	for (int i = 0; i < 512; i++)
		data[1024 + i] = (uint8_t)i;
	std::vector<uint8_t> rnd = util::random_data(512, 99);
	memcpy(data.data() + 1536, rnd.data(), 512);
	std::vector<uint8_t> want = ref::protect(f, data, 0x00c0ffee), got(want.size());
	struct rte_blkint_op op = {};

	op.type = RTE_BLKINT_OP_INSERT;
	op.nb_blocks = 4;
	op.src = data.data();
	op.dst = got.data();
	op.dst_fmt = &f;
	op.dst_ref_tag = 0x00c0ffee;
	CU_ASSERT_FATAL(run(ctx, op, &r));
	CU_ASSERT_EQUAL(r.status, RTE_BLKINT_OK);
	CU_ASSERT(got == want);
	/* the zero block: guard 0 with seed 0; tags big-endian after it */
	static const uint8_t pi0[8] = {0, 0, 0x0a, 0x0b, 0x00, 0xc0, 0xff, 0xee};
	CU_ASSERT_EQUAL(memcmp(got.data() + 512, pi0, 8), 0);
	CU_ASSERT_EQUAL(got[4 * 520 - 1], 0xee + 3);
	rte_blkint_free(ctx);
}

/* Expected bytes of a protected buffer, with the op's start ref tag. */
std::vector<uint8_t> prot(const struct rte_blkint_format &f, const std::vector<uint8_t> &d,
			  uint32_t ref)
{
	return ref::protect(f, d, ref);
}

void matrix_one(struct rte_blkint_ctx *ctx, const struct rte_blkint_format &f,
		const struct rte_blkint_format &g)
{
	const uint32_t nb = 3, bs = f.block_size;
	std::vector<uint8_t> data = util::random_data(nb * bs, bs + f.type);
	std::vector<uint8_t> pf = prot(f, data, 77), pg = prot(g, data, 5000);
	std::vector<uint8_t> buf, out;
	struct rte_blkint_result r;
	struct rte_blkint_op op = {};

	op.nb_blocks = nb;
	op.src_ref_tag = 77;
	op.dst_ref_tag = 77;
	/* insert, copy */
	op.type = RTE_BLKINT_OP_INSERT;
	out.assign(pf.size(), 0);
	op.src = data.data();
	op.dst = out.data();
	op.dst_fmt = &f;
	CU_ASSERT(run(ctx, op, &r) && r.status == RTE_BLKINT_OK && out == pf);
	/* insert, in place: data in place, PI slots garbage */
	buf = pf;
	for (uint32_t b = 0; b < nb; b++)
		buf[b * (bs + ref::pi_size(f)) + bs] ^= 0xff;
	op.src = op.dst = buf.data();
	CU_ASSERT(run(ctx, op, &r) && r.status == RTE_BLKINT_OK && buf == pf);
	/* verify */
	op.type = RTE_BLKINT_OP_VERIFY;
	op.src = pf.data();
	op.dst = NULL;
	op.src_fmt = &f;
	op.dst_fmt = NULL;
	CU_ASSERT(run(ctx, op, &r) && r.status == RTE_BLKINT_OK);
	/* strip, copy and in place */
	op.type = RTE_BLKINT_OP_STRIP;
	out.assign(data.size(), 0);
	op.dst = out.data();
	CU_ASSERT(run(ctx, op, &r) && r.status == RTE_BLKINT_OK && out == data);
	buf = pf;
	op.src = op.dst = buf.data();
	CU_ASSERT(run(ctx, op, &r) && r.status == RTE_BLKINT_OK &&
		  memcmp(buf.data(), data.data(), data.size()) == 0);
	/* convert f -> g, copy; in place when the PI sizes match */
	op.type = RTE_BLKINT_OP_CONVERT;
	op.src = pf.data();
	out.assign(pg.size(), 0);
	op.dst = out.data();
	op.dst_fmt = &g;
	op.dst_ref_tag = 5000;
	CU_ASSERT(run(ctx, op, &r) && r.status == RTE_BLKINT_OK && out == pg);
	if (ref::pi_size(f) == ref::pi_size(g)) {
		buf = pf;
		op.src = op.dst = buf.data();
		CU_ASSERT(run(ctx, op, &r) && r.status == RTE_BLKINT_OK && buf == pg);
	}
}

/* Every block size x format x op (convert to the next format) on the CPU engine. */
void t_cpu_matrix(void)
{
	struct rte_blkint_ctx *ctx = util::ctx_cpu();
	struct rte_blkint_stats s;

	for (uint32_t bs : util::block_sizes) {
		std::vector<struct rte_blkint_format> fs = util::formats(bs);

		for (size_t i = 0; i < fs.size(); i++)
			matrix_one(ctx, fs[i], fs[(i + 1) % fs.size()]);
	}
	CU_ASSERT_EQUAL(rte_blkint_stats_get(ctx, &s), 0);
	/* 5 sizes x (8 formats x 6 ops + 6 in-place converts where the PI sizes agree) */
	CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_CPU].ops, 5 * (8 * 6 + 6));
	CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_DEV].ops, 0);
	CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_CPU].op_kind[RTE_BLKINT_OP_VERIFY], 40);
	rte_blkint_free(ctx);
}

/* Byte offset of PI byte @p i of block @p b. */
size_t pi_off(const struct rte_blkint_format &f, uint32_t b, uint32_t i)
{
	return (size_t)b * (f.block_size + ref::pi_size(f)) + f.block_size + i;
}

/* An error in the first, a middle or the last block, in each field: the exact report. */
void t_error_positions(void)
{
	struct rte_blkint_ctx *ctx = util::ctx_cpu();
	const uint32_t nb = 9;

	for (const auto &f : util::formats(520)) {
		std::vector<uint8_t> data = util::random_data(nb * 520, 5);
		std::vector<uint8_t> good = prot(f, data, 1000);

		for (uint32_t b : {0u, nb / 2, nb - 1})
			for (uint32_t where = 0; where < 4; where++) {
				std::vector<uint8_t> bad = good, out(data.size());
				struct rte_blkint_error want = {};
				struct rte_blkint_result r;
				struct rte_blkint_op op = {};
				bool t10 = f.type == RTE_BLKINT_PI_T10DIF;
				uint32_t ref_b = (f.flags & RTE_BLKINT_F_REF_INC) ? 1000 + b : 1000;
				uint64_t s = ref::sum(f, data.data() + b * 520, 520);

				want.block = b;
				if (where == 0) { /* a data byte: guard/CRC */
					bad[(size_t)b * (520 + ref::pi_size(f)) + 17] ^= 0x40;
					want.field = t10 ? RTE_BLKINT_FIELD_GUARD
							 : RTE_BLKINT_FIELD_CRC;
					want.expected = ref::sum(
						f, bad.data() + (size_t)b * (520 + ref::pi_size(f)),
						520);
					want.actual = t10 ? (s & 0xffff) : s;
				} else if (!t10) {
					continue;
				} else if (where == 1) { /* guard itself */
					bad[pi_off(f, b, 1)] ^= 1;
					want.field = RTE_BLKINT_FIELD_GUARD;
					want.expected = s;
					want.actual = s ^ 1;
				} else if (where == 2) {
					bad[pi_off(f, b, 2)] ^= 0x80;
					want.field = RTE_BLKINT_FIELD_APPTAG;
					want.expected = f.app_tag;
					want.actual = f.app_tag ^ 0x8000;
				} else {
					bad[pi_off(f, b, 7)] ^= 0x02;
					want.field = RTE_BLKINT_FIELD_REFTAG;
					want.expected = ref_b;
					want.actual = ref_b ^ 2;
				}
				op.type = RTE_BLKINT_OP_VERIFY;
				op.nb_blocks = nb;
				op.src = bad.data();
				op.src_fmt = &f;
				op.src_ref_tag = 1000;
				CU_ASSERT_FATAL(run(ctx, op, &r));
				CU_ASSERT_EQUAL(r.status, RTE_BLKINT_ERR_PI);
				CU_ASSERT_EQUAL(r.error.block, want.block);
				CU_ASSERT_EQUAL(r.error.field, want.field);
				CU_ASSERT_EQUAL(r.error.expected, want.expected);
				CU_ASSERT_EQUAL(r.error.actual, want.actual);
				/* strip: same report, and the data still moves, bad block too */
				op.type = RTE_BLKINT_OP_STRIP;
				op.dst = out.data();
				CU_ASSERT_FATAL(run(ctx, op, &r));
				CU_ASSERT(r.status == RTE_BLKINT_ERR_PI && r.error.block == b &&
					  r.error.field == want.field);
				for (uint32_t k = 0; k < nb; k++)
					CU_ASSERT_EQUAL(
						memcmp(out.data() + k * 520,
						       bad.data() +
							       (size_t)k * (520 + ref::pi_size(f)),
						       520),
						0);
				/* convert to itself with new tags: PI of every block rewritten */
				std::vector<uint8_t> conv(good.size());
				op.type = RTE_BLKINT_OP_CONVERT;
				op.dst = conv.data();
				op.dst_fmt = &f;
				op.dst_ref_tag = 1000;
				CU_ASSERT_FATAL(run(ctx, op, &r));
				CU_ASSERT(r.status == RTE_BLKINT_ERR_PI && r.error.block == b);
				std::vector<uint8_t> moved(data.size());
				for (uint32_t k = 0; k < nb; k++)
					memcpy(moved.data() + k * 520,
					       bad.data() + (size_t)k * (520 + ref::pi_size(f)),
					       520);
				CU_ASSERT(conv == prot(f, moved, 1000));
			}
	}
	rte_blkint_free(ctx);
}

/* APP_ESCAPE and APP_REF_ESCAPE skip exactly the blocks the device skips. */
void t_escapes(void)
{
	struct rte_blkint_ctx *ctx = util::ctx_cpu();
	struct rte_blkint_format f = fmt_of(RTE_BLKINT_PI_T10DIF, 0);
	std::vector<uint8_t> data = util::random_data(4 * 512, 3);
	struct rte_blkint_result r;
	struct rte_blkint_op op = {};

	f.app_tag = 0x0101;
	f.flags = RTE_BLKINT_F_REF_INC;
	std::vector<uint8_t> buf = prot(f, data, 10);
	/* block 2: app 0xffff, guard garbage, ref kept */
	buf[pi_off(f, 2, 0)] ^= 0xff;
	buf[pi_off(f, 2, 2)] = 0xff;
	buf[pi_off(f, 2, 3)] = 0xff;
	op.type = RTE_BLKINT_OP_VERIFY;
	op.nb_blocks = 4;
	op.src = buf.data();
	op.src_fmt = &f;
	op.src_ref_tag = 10;
	CU_ASSERT(run(ctx, op, &r) && r.status == RTE_BLKINT_ERR_PI && r.error.block == 2 &&
		  r.error.field == RTE_BLKINT_FIELD_GUARD);
	f.flags |= RTE_BLKINT_F_APP_ESCAPE;
	CU_ASSERT(run(ctx, op, &r) && r.status == RTE_BLKINT_OK);
	/* APP_REF_ESCAPE wins over APP_ESCAPE: the ref tag must be all ones too */
	f.flags |= RTE_BLKINT_F_APP_REF_ESCAPE;
	CU_ASSERT(run(ctx, op, &r) && r.status == RTE_BLKINT_ERR_PI && r.error.block == 2);
	memset(&buf[pi_off(f, 2, 4)], 0xff, 4);
	CU_ASSERT(run(ctx, op, &r) && r.status == RTE_BLKINT_OK);
	rte_blkint_free(ctx);
}

/* Ref tags across ops: consecutive inserts make one run a single verify accepts. */
void t_ref_tags_across_ops(void)
{
	struct rte_blkint_ctx *ctx = util::ctx_cpu();
	struct rte_blkint_format f = fmt_of(RTE_BLKINT_PI_T10DIF, 0xffff);
	std::vector<uint8_t> data = util::random_data(12 * 512, 4), buf(12 * 520);
	struct rte_blkint_result r;
	struct rte_blkint_op ops[3] = {};

	f.flags = RTE_BLKINT_F_REF_INC;
	for (int i = 0; i < 3; i++) {
		ops[i].type = RTE_BLKINT_OP_INSERT;
		ops[i].nb_blocks = 4;
		ops[i].src = data.data() + i * 4 * 512;
		ops[i].dst = buf.data() + i * 4 * 520;
		ops[i].dst_fmt = &f;
		ops[i].dst_ref_tag = 0xfffffffe + 4 * i; /* wraps past 2^32 */
		ops[i].user_data = i;
	}
	CU_ASSERT_EQUAL(rte_blkint_enqueue(ctx, ops, 3), 3);
	struct rte_blkint_result res[3];
	CU_ASSERT_EQUAL(rte_blkint_dequeue(ctx, res, 3), 3);
	for (int i = 0; i < 3; i++)
		CU_ASSERT(res[i].status == RTE_BLKINT_OK && res[i].user_data == (uint64_t)i);
	CU_ASSERT(buf == prot(f, data, 0xfffffffe));
	struct rte_blkint_op v = {};
	v.type = RTE_BLKINT_OP_VERIFY;
	v.nb_blocks = 12;
	v.src = buf.data();
	v.src_fmt = &f;
	v.src_ref_tag = 0xfffffffe;
	CU_ASSERT(run(ctx, v, &r) && r.status == RTE_BLKINT_OK);
	v.src_ref_tag = 0;
	CU_ASSERT(run(ctx, v, &r) && r.status == RTE_BLKINT_ERR_PI && r.error.block == 0 &&
		  r.error.field == RTE_BLKINT_FIELD_REFTAG && r.error.expected == 0 &&
		  r.error.actual == 0xfffffffe);
	/* without REF_INC every block carries the same tag */
	f.flags = 0;
	v.src_ref_tag = 0xfffffffe;
	CU_ASSERT(run(ctx, v, &r) && r.status == RTE_BLKINT_ERR_PI && r.error.block == 1 &&
		  r.error.expected == 0xfffffffe && r.error.actual == 0xffffffff);
	/* a check mask without the ref tag accepts it */
	f.check = RTE_BLKINT_CHECK_GUARD | RTE_BLKINT_CHECK_APPTAG;
	CU_ASSERT(run(ctx, v, &r) && r.status == RTE_BLKINT_OK);
	rte_blkint_free(ctx);
}

/* Bad formats, ops and confs: refused with EINVAL, nothing queued; names are unique. */
void t_bad_input(void)
{
	struct rte_blkint_ctx *ctx = util::ctx_cpu();
	struct rte_blkint_format f = fmt_of(RTE_BLKINT_PI_CRC32C, 0), bad;
	std::vector<uint8_t> a(8 * 4100), b(8 * 4100);
	struct rte_blkint_op op = {};
	struct rte_blkint_conf conf = {};

	CU_ASSERT_EQUAL(rte_blkint_format_check(&f), 0);
	bad = f;
	bad.block_size = 1024;
	CU_ASSERT_EQUAL(rte_blkint_format_check(&bad), -EINVAL);
	bad = f;
	bad.crc_seed = 5;
	CU_ASSERT_EQUAL(rte_blkint_format_check(&bad), -EINVAL);
	bad = f;
	bad.flags = RTE_BLKINT_F_REF_INC; /* T10-DIF only */
	CU_ASSERT_EQUAL(rte_blkint_format_check(&bad), -EINVAL);
	bad = fmt_of(RTE_BLKINT_PI_T10DIF, 0x1234);
	CU_ASSERT_EQUAL(rte_blkint_format_check(&bad), -EINVAL);
	bad = fmt_of(RTE_BLKINT_PI_T10DIF, 0);
	unsigned int guard7 = 7;
	memcpy(&bad.guard, &guard7, sizeof(bad.guard));
	CU_ASSERT_EQUAL(rte_blkint_format_check(&bad), -EINVAL);
	bad = fmt_of(RTE_BLKINT_PI_CRC64, 0xffffffffu);
	CU_ASSERT_EQUAL(rte_blkint_format_check(&bad), -EINVAL);
	CU_ASSERT_EQUAL(rte_blkint_format_check(NULL), -EINVAL);

	struct rte_blkint_op ops[4] = {};
	for (auto &o : ops) {
		o.type = RTE_BLKINT_OP_VERIFY;
		o.nb_blocks = 1;
		o.src = a.data();
		o.src_fmt = &f;
	}
	ops[2].dst = b.data(); /* verify with a destination */
	rte_errno = 0;
	CU_ASSERT_EQUAL(rte_blkint_enqueue(ctx, ops, 4), 2);
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	CU_ASSERT_EQUAL(rte_blkint_pending(ctx), 2);
	struct rte_blkint_result res[4];
	CU_ASSERT_EQUAL(rte_blkint_dequeue(ctx, res, 4), 2);
	CU_ASSERT_EQUAL(rte_blkint_pending(ctx), 0);

	struct {
		unsigned int type; /* raw: an out-of-range value is a case */
		uint32_t nb;
		void *src, *dst;
		const struct rte_blkint_format *sf, *df;
	} cases[] = {
		{9, 1, a.data(), b.data(), &f, &f},
		{RTE_BLKINT_OP_INSERT, 0, a.data(), b.data(), NULL, &f},
		{RTE_BLKINT_OP_INSERT, 1, NULL, b.data(), NULL, &f},
		{RTE_BLKINT_OP_INSERT, 1, a.data(), b.data(), NULL, NULL},
		{RTE_BLKINT_OP_STRIP, 1, a.data(), NULL, &f, NULL},
		{RTE_BLKINT_OP_STRIP, 1, a.data(), b.data(), NULL, NULL},
		{RTE_BLKINT_OP_STRIP, 2, a.data(), a.data() + 100, &f, NULL}, /* overlap */
		{RTE_BLKINT_OP_CONVERT, 1, a.data(), b.data(), &f, NULL},
		{RTE_BLKINT_OP_VERIFY, 1, a.data(), NULL, &bad, NULL},
		{RTE_BLKINT_OP_VERIFY, 1u << 30, a.data(), NULL, &f, NULL}, /* > 4 GiB */
	};
	struct rte_blkint_format f4096 = fmt_of(RTE_BLKINT_PI_T10DIF, 0), none = f;
	none.type = RTE_BLKINT_PI_NONE;
	f4096.block_size = 4096;
	for (const auto &c : cases) {
		op = {};
		memcpy(&op.type, &c.type, sizeof(op.type));
		op.nb_blocks = c.nb;
		op.src = c.src;
		op.dst = c.dst;
		op.src_fmt = c.sf;
		op.dst_fmt = c.df;
		rte_errno = 0;
		CU_ASSERT_EQUAL(rte_blkint_enqueue(ctx, &op, 1), 0);
		CU_ASSERT_EQUAL(rte_errno, EINVAL);
	}
	/* convert: block sizes differ; in place with PI sizes that differ; no PI */
	op = {};
	op.type = RTE_BLKINT_OP_CONVERT;
	op.nb_blocks = 1;
	op.src = a.data();
	op.dst = b.data();
	op.src_fmt = &f;
	op.dst_fmt = &f4096;
	CU_ASSERT_EQUAL(rte_blkint_enqueue(ctx, &op, 1), 0);
	struct rte_blkint_format t10 = fmt_of(RTE_BLKINT_PI_T10DIF, 0);
	op.dst_fmt = &t10;
	op.dst = a.data();
	CU_ASSERT_EQUAL(rte_blkint_enqueue(ctx, &op, 1), 0);
	op.dst_fmt = &none;
	op.dst = b.data();
	CU_ASSERT_EQUAL(rte_blkint_enqueue(ctx, &op, 1), 0);
	CU_ASSERT_EQUAL(rte_blkint_pending(ctx), 0);

	/* confs */
	CU_ASSERT_PTR_NULL(rte_blkint_create(NULL));
	conf.dev_id = -1;
	conf.name = "dup";
	struct rte_blkint_ctx *d1 = rte_blkint_create(&conf);
	CU_ASSERT_PTR_NOT_NULL(d1);
	CU_ASSERT_PTR_NULL(rte_blkint_create(&conf));
	CU_ASSERT_EQUAL(rte_errno, EEXIST);
	conf.name = "rate";
	conf.xcheck_rate = 1.5;
	CU_ASSERT_PTR_NULL(rte_blkint_create(&conf));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	conf.xcheck_rate = 0;
	conf.max_inflight = 100;
	CU_ASSERT_PTR_NULL(rte_blkint_create(&conf));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	conf.max_inflight = 0;
	conf.dev_id = 77; /* no such dmadev */
	CU_ASSERT_PTR_NULL(rte_blkint_create(&conf));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	rte_blkint_free(d1);
	rte_blkint_free(ctx);
	rte_blkint_free(NULL);
}

/* A full context refuses with ENOSPC until results are dequeued. */
void t_full(void)
{
	struct rte_blkint_conf conf = {};
	struct rte_blkint_format f = fmt_of(RTE_BLKINT_PI_CRC32, 0xffffffffu);
	std::vector<uint8_t> buf = prot(f, util::random_data(512, 1), 0);
	struct rte_blkint_op ops[8] = {};
	struct rte_blkint_result res[8];

	conf.dev_id = -1;
	conf.max_inflight = 4;
	struct rte_blkint_ctx *ctx = util::ctx_conf(conf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	for (auto &o : ops) {
		o.type = RTE_BLKINT_OP_VERIFY;
		o.nb_blocks = 1;
		o.src = buf.data();
		o.src_fmt = &f;
	}
	rte_errno = 0;
	CU_ASSERT_EQUAL(rte_blkint_enqueue(ctx, ops, 8), 4);
	CU_ASSERT_EQUAL(rte_errno, ENOSPC);
	CU_ASSERT_EQUAL(rte_blkint_dequeue(ctx, res, 3), 3);
	CU_ASSERT_EQUAL(rte_blkint_enqueue(ctx, ops, 8), 3);
	CU_ASSERT_EQUAL(rte_blkint_dequeue(ctx, res, 8), 4);
	rte_blkint_free(ctx);
}

/* /blkint/list and /blkint/stats give the context and its counters. */
void t_telemetry(void)
{
	struct rte_blkint_conf conf = {};
	struct rte_blkint_format f = fmt_of(RTE_BLKINT_PI_T10DIF, 0);
	std::vector<uint8_t> buf = prot(f, util::random_data(2 * 512, 13), 0);
	struct rte_blkint_result r;
	struct rte_blkint_op op = {};

	conf.name = "teltest";
	conf.dev_id = -1;
	struct rte_blkint_ctx *ctx = rte_blkint_create(&conf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	op.type = RTE_BLKINT_OP_VERIFY;
	op.nb_blocks = 2;
	op.src = buf.data();
	op.src_fmt = &f;
	CU_ASSERT(run(ctx, op, &r) && r.status == RTE_BLKINT_OK);
	buf[512] ^= 1;
	CU_ASSERT(run(ctx, op, &r) && r.status == RTE_BLKINT_ERR_PI);
	std::string list = dpdk_test_telemetry("/blkint/list");
	std::string st = dpdk_test_telemetry("/blkint/stats,teltest");
	CU_ASSERT(list.find("\"teltest\"") != std::string::npos);
	CU_ASSERT(st.find("\"engine\":\"cpu\"") != std::string::npos);
	CU_ASSERT(st.find("\"cpu\":{\"ops\":2,\"blocks\":4,\"bytes\":2048") != std::string::npos);
	CU_ASSERT(st.find("\"pi_errors\":{\"guard\":1,") != std::string::npos);
	CU_ASSERT(dpdk_test_telemetry("/blkint/stats,nosuch").find("null") != std::string::npos);
	if (st.empty() || list.empty())
		printf("telemetry replies: '%s' '%s'\n", list.c_str(), st.c_str());
	rte_blkint_free(ctx);
	CU_ASSERT(dpdk_test_telemetry("/blkint/list").find("teltest") == std::string::npos);
}

/* ---- device engines ---- */

struct rte_blkint_ctx *ctx_fake(fake_dev *dev, double rate, uint32_t min_blocks = 0)
{
	static int seq;
	std::string name = "fake" + std::to_string(seq++);
	struct rte_blkint_conf conf = {};

	conf.name = name.c_str();
	conf.dev_id = -1;
	conf.xcheck_rate = rate;
	conf.min_dev_blocks = min_blocks;
	return blkint_create_with_dev(&conf, dev);
}

/* Routing: small and in-place ops to the CPU, the rest to the device; same results. */
void t_routing(void)
{
	fake_dev *dev = new fake_dev();
	struct rte_blkint_ctx *ctx = ctx_fake(dev, 0, 4);
	struct rte_blkint_format f = fmt_of(RTE_BLKINT_PI_T10DIF, 0);
	std::vector<uint8_t> data = util::random_data(8 * 512, 8), out(8 * 520);
	struct rte_blkint_result r;
	struct rte_blkint_stats s;
	struct rte_blkint_op op = {};

	CU_ASSERT_FATAL(ctx != NULL);
	CU_ASSERT_EQUAL(rte_blkint_on_device(ctx), 1);
	op.type = RTE_BLKINT_OP_INSERT;
	op.src = data.data();
	op.dst = out.data();
	op.dst_fmt = &f;
	op.nb_blocks = 3;
	CU_ASSERT(run(ctx, op, &r) && r.status == RTE_BLKINT_OK && !r.on_device);
	op.nb_blocks = 8;
	CU_ASSERT(run(ctx, op, &r) && r.status == RTE_BLKINT_OK && r.on_device);
	CU_ASSERT(out == prot(f, data, 0));
	op.src = out.data(); /* in place */
	CU_ASSERT(run(ctx, op, &r) && r.status == RTE_BLKINT_OK && !r.on_device);
	dev->refuse_upto = 100; /* the engine cannot take it: the CPU does */
	op.src = data.data();
	CU_ASSERT(run(ctx, op, &r) && r.status == RTE_BLKINT_OK && !r.on_device);
	dev->refuse_upto = 0;
	dev->depth = 0; /* ring full: left to the caller */
	rte_errno = 0;
	CU_ASSERT_EQUAL(rte_blkint_enqueue(ctx, &op, 1), 0);
	CU_ASSERT_EQUAL(rte_errno, ENOSPC);
	rte_blkint_stats_get(ctx, &s);
	CU_ASSERT_EQUAL(s.small_to_cpu, 1);
	CU_ASSERT_EQUAL(s.inplace_to_cpu, 1);
	CU_ASSERT_EQUAL(s.refused_to_cpu, 1);
	CU_ASSERT_EQUAL(s.dev_busy, 1);
	CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_DEV].ops, 1);
	CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_DEV].blocks, 8);
	CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_CPU].ops, 3);
	rte_blkint_free(ctx);
}

/* A device that corrupts a PI byte: caught by a full cross-check, unnoticed without. */
void t_xcheck_corrupt(void)
{
	for (double rate : {1.0, 0.0}) {
		fake_dev *dev = new fake_dev();
		struct rte_blkint_ctx *ctx = ctx_fake(dev, rate);
		struct rte_blkint_format f = fmt_of(RTE_BLKINT_PI_CRC32C, 0xffffffffu);
		std::vector<uint8_t> data = util::random_data(16 * 512, 9), out(16 * 516);
		struct rte_blkint_result r;
		struct rte_blkint_stats s;
		struct rte_blkint_op op = {};

		dev->corrupt_block = 15;
		op.type = RTE_BLKINT_OP_INSERT;
		op.nb_blocks = 16;
		op.src = data.data();
		op.dst = out.data();
		op.dst_fmt = &f;
		CU_ASSERT_FATAL(run(ctx, op, &r));
		rte_blkint_stats_get(ctx, &s);
		if (rate == 1.0) {
			uint32_t want = (uint32_t)ref::sum(f, data.data() + 15 * 512, 512);

			CU_ASSERT_EQUAL(r.status, RTE_BLKINT_ERR_XCHECK);
			CU_ASSERT_EQUAL(r.error.block, 15);
			CU_ASSERT_EQUAL(r.error.field, RTE_BLKINT_FIELD_CRC);
			CU_ASSERT_EQUAL(r.error.expected, want);
			CU_ASSERT_EQUAL(r.error.actual, want ^ 0x5a);
			CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_DEV].xcheck_run, 1);
			CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_DEV].xcheck_failed, 1);
		} else {
			CU_ASSERT_EQUAL(r.status, RTE_BLKINT_OK);
			CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_DEV].xcheck_run, 0);
		}
		/* T10-DIF convert: the ref tag's last byte flipped in block 0 */
		struct rte_blkint_format t = fmt_of(RTE_BLKINT_PI_T10DIF, 0);
		std::vector<uint8_t> src = prot(f, data, 0), conv(16 * 520);
		dev->corrupt_block = 0;
		op.type = RTE_BLKINT_OP_CONVERT;
		op.src = src.data();
		op.src_fmt = &f;
		op.dst = conv.data();
		op.dst_fmt = &t;
		op.dst_ref_tag = 0x100;
		CU_ASSERT_FATAL(run(ctx, op, &r));
		if (rate == 1.0) {
			CU_ASSERT(r.status == RTE_BLKINT_ERR_XCHECK && r.error.block == 0 &&
				  r.error.field == RTE_BLKINT_FIELD_REFTAG &&
				  r.error.expected == 0x100 && r.error.actual == (0x100 ^ 0x5a));
		} else {
			CU_ASSERT_EQUAL(r.status, RTE_BLKINT_OK);
		}
		rte_blkint_free(ctx);
	}
}

/* A device whose verdict is wrong either way is caught. */
void t_xcheck_verdict(void)
{
	fake_dev *dev = new fake_dev();
	struct rte_blkint_ctx *ctx = ctx_fake(dev, 1.0);
	struct rte_blkint_format f = fmt_of(RTE_BLKINT_PI_T10DIF, 0xffff);
	std::vector<uint8_t> data = util::random_data(4 * 512, 10);
	std::vector<uint8_t> good = prot(f, data, 0), bad = good;
	struct rte_blkint_result r;
	struct rte_blkint_stats s;
	struct rte_blkint_op op = {};

	bad[pi_off(f, 3, 3)] ^= 1; /* app tag of the last block */
	op.type = RTE_BLKINT_OP_VERIFY;
	op.nb_blocks = 4;
	op.src_fmt = &f;
	op.src = bad.data();
	CU_ASSERT(run(ctx, op, &r) && r.status == RTE_BLKINT_ERR_PI && r.error.block == 3 &&
		  r.error.field == RTE_BLKINT_FIELD_APPTAG);
	dev->hide_errors = true;
	CU_ASSERT(run(ctx, op, &r) && r.status == RTE_BLKINT_ERR_XCHECK && r.error.block == 3 &&
		  r.error.field == RTE_BLKINT_FIELD_APPTAG && r.error.actual == 1);
	dev->hide_errors = false;
	dev->invent_error = true;
	op.src = good.data();
	CU_ASSERT(run(ctx, op, &r) && r.status == RTE_BLKINT_ERR_XCHECK && r.error.block == 0 &&
		  r.error.field == RTE_BLKINT_FIELD_GUARD);
	rte_blkint_stats_get(ctx, &s);
	CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_DEV].xcheck_run, 3);
	CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_DEV].xcheck_failed, 2);
	CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_DEV].pi_errors[RTE_BLKINT_FIELD_APPTAG], 1);
	rte_blkint_free(ctx);
}

/* The sampling rate: exactly rate x ops are recomputed. */
void t_xcheck_sampling(void)
{
	fake_dev *dev = new fake_dev();
	struct rte_blkint_ctx *ctx = ctx_fake(dev, 1.0 / 64);
	struct rte_blkint_format f = fmt_of(RTE_BLKINT_PI_CRC64, 0);
	std::vector<uint8_t> buf = prot(f, util::random_data(512, 11), 0);
	struct rte_blkint_result res[32];
	struct rte_blkint_stats s;
	struct rte_blkint_op ops[32] = {};
	uint32_t got = 0;

	for (auto &o : ops) {
		o.type = RTE_BLKINT_OP_VERIFY;
		o.nb_blocks = 1;
		o.src = buf.data();
		o.src_fmt = &f;
	}
	for (int i = 0; i < 20; i++) {
		CU_ASSERT_EQUAL(rte_blkint_enqueue(ctx, ops, 32), 32);
		while (rte_blkint_pending(ctx))
			got += rte_blkint_dequeue(ctx, res, 32);
	}
	CU_ASSERT_EQUAL(got, 640);
	rte_blkint_stats_get(ctx, &s);
	CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_DEV].ops, 640);
	CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_DEV].xcheck_run, 10);
	CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_DEV].xcheck_failed, 0);
	rte_blkint_stats_reset(ctx);
	rte_blkint_stats_get(ctx, &s);
	CU_ASSERT_EQUAL(s.engine[RTE_BLKINT_ENGINE_DEV].ops, 0);
	rte_blkint_free(ctx);
}

/* Ops that never complete: rte_blkint_free() gives up after its bound and frees. */
void t_free_never_completes(void)
{
	fake_dev *dev = new fake_dev();
	struct rte_blkint_ctx *ctx = ctx_fake(dev, 0);
	struct rte_blkint_format f = fmt_of(RTE_BLKINT_PI_CRC32C, 0);
	std::vector<uint8_t> data = util::random_data(8 * 512, 13), out(8 * 516);
	struct rte_blkint_op op = {};
	uint64_t ms;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	dev->stall = true;
	op.type = RTE_BLKINT_OP_INSERT;
	op.nb_blocks = 8;
	op.src = data.data();
	op.dst = out.data();
	op.dst_fmt = &f;
	CU_ASSERT_EQUAL(rte_blkint_enqueue(ctx, &op, 1), 1);
	CU_ASSERT_EQUAL(rte_blkint_enqueue(ctx, &op, 1), 1);
	CU_ASSERT_EQUAL(rte_blkint_pending(ctx), 2);
	ms = util::free_bounded(ctx); /* the context, its slots and the engine: released */
	CU_ASSERT(ms >= 900 && ms < 5000);
}

/* dmadevs without signature offload: the context runs on the CPU with the same results. */
void t_fallback(void)
{
	for (const char *name : {"dma_skeleton", "dma_mlx5_nosig"}) {
		int16_t id = (int16_t)rte_dma_get_dev_id_by_name(name);
		struct rte_blkint_conf conf = {};
		struct rte_blkint_format f = fmt_of(RTE_BLKINT_PI_T10DIF, 0);
		std::vector<uint8_t> data = util::random_data(16 * 512, 12), out(16 * 520);
		struct rte_blkint_result r;
		struct rte_blkint_op op = {};

		if (id < 0)
			continue;
		conf.dev_id = id;
		struct rte_blkint_ctx *ctx = util::ctx_conf(conf);
		CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
		CU_ASSERT_EQUAL(rte_blkint_on_device(ctx), 0);
		op.type = RTE_BLKINT_OP_INSERT;
		op.nb_blocks = 16;
		op.src = data.data();
		op.dst = out.data();
		op.dst_fmt = &f;
		CU_ASSERT(run(ctx, op, &r) && r.status == RTE_BLKINT_OK && !r.on_device);
		CU_ASSERT(out == prot(f, data, 0));
		rte_blkint_free(ctx);
	}
}

/*
 * An engine module registered for the dma_skeleton driver (rte_blkint_driver.h), its
 * engine the scripted device: found by the dmadev's driver name, not by any name the
 * library knows; declining (ENOTSUP) leaves the CPU, another error fails the create.
 */
int test_module_refuse; /* rte_errno create() fails with, 0: it makes an engine */
uint32_t test_module_freed;

void *test_module_create(int16_t dev_id, uint16_t vchan, uint32_t depth)
{
	RTE_SET_USED(dev_id);
	RTE_SET_USED(vchan);
	RTE_SET_USED(depth);
	if (test_module_refuse) {
		rte_errno = test_module_refuse;
		return NULL;
	}
	return new fake_dev();
}

int test_module_submit(void *e, const struct rte_blkint_dev_job *job, uint32_t slot)
{
	return ((fake_dev *)e)->submit(job, slot);
}

void test_module_doorbell(void *e)
{
	((fake_dev *)e)->doorbell();
}

uint16_t test_module_poll(void *e, struct rte_blkint_dev_done *done, uint16_t n)
{
	return ((fake_dev *)e)->poll(done, n);
}

void test_module_destroy(void *e)
{
	test_module_freed++;
	delete (fake_dev *)e;
}

const struct rte_blkint_dev_ops test_module_ops = {
	test_module_submit, test_module_doorbell, test_module_poll, NULL, test_module_destroy,
};
const struct rte_blkint_dev_driver test_module_driver = {
	"dma_skeleton",
	"test-module",
	test_module_create,
	&test_module_ops,
};

void t_engine_module(void)
{
	int16_t id = (int16_t)rte_dma_get_dev_id_by_name("dma_skeleton");
	struct rte_blkint_dev_driver bad = test_module_driver;
	struct rte_blkint_format f = fmt_of(RTE_BLKINT_PI_CRC32C, 0);
	std::vector<uint8_t> data = util::random_data(16 * 512, 13), out(16 * 516);
	struct rte_blkint_conf conf = {};
	struct rte_blkint_result r;
	struct rte_blkint_op op = {};
	struct rte_blkint_ctx *ctx;

	CU_ASSERT_FATAL(id >= 0);
	CU_ASSERT_EQUAL(rte_blkint_dev_driver_register(NULL), -EINVAL);
	bad.create = NULL;
	CU_ASSERT_EQUAL(rte_blkint_dev_driver_register(&bad), -EINVAL);
	CU_ASSERT_EQUAL(rte_blkint_dev_driver_unregister(&test_module_driver), -ENOENT);
	CU_ASSERT_EQUAL(rte_blkint_dev_driver_register(&test_module_driver), 0);
	CU_ASSERT_EQUAL(rte_blkint_dev_driver_register(&test_module_driver), -EEXIST);
	conf.name = "module";
	conf.dev_id = id;
	ctx = rte_blkint_create(&conf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_EQUAL(rte_blkint_on_device(ctx), 1);
	CU_ASSERT_STRING_EQUAL(blkint_ctx_engine_kind(ctx), "test-module");
	op.type = RTE_BLKINT_OP_INSERT;
	op.nb_blocks = 16;
	op.src = data.data();
	op.dst = out.data();
	op.dst_fmt = &f;
	CU_ASSERT(run(ctx, op, &r) && r.status == RTE_BLKINT_OK && r.on_device);
	CU_ASSERT(out == prot(f, data, 0));
	rte_blkint_free(ctx);
	CU_ASSERT_EQUAL(test_module_freed, 1);
	/* the module declines the device: the CPU; any other error fails the create */
	test_module_refuse = ENOTSUP;
	ctx = rte_blkint_create(&conf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_EQUAL(rte_blkint_on_device(ctx), 0);
	rte_blkint_free(ctx);
	test_module_refuse = ENOMEM;
	CU_ASSERT_PTR_NULL(rte_blkint_create(&conf));
	CU_ASSERT_EQUAL(rte_errno, ENOMEM);
	test_module_refuse = 0;
	/* a bad vchan is refused before any module is asked */
	conf.vchan = 7;
	CU_ASSERT_PTR_NULL(rte_blkint_create(&conf));
	CU_ASSERT_EQUAL(rte_errno, EINVAL);
	conf.vchan = 0;
	CU_ASSERT_EQUAL(rte_blkint_dev_driver_unregister(&test_module_driver), 0);
	ctx = rte_blkint_create(&conf);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_EQUAL(rte_blkint_on_device(ctx), 0);
	rte_blkint_free(ctx);
	CU_ASSERT_EQUAL(test_module_freed, 1);
}

} // namespace

/* argv[1], optional: "dev=DEV", a device of Debian's libmlx5 under devtools/sim-rdma, for
 * sim1 and sim2 (the cases that need the imitation's fault injection say skipped). */
int main(int argc, char **argv)
{
#ifdef BLKINT_TEST_SIM
	std::string sig_vdev = "--vdev=dma_mlx5,dev=sim1,sig=1";
	std::string nosig_vdev = "--vdev=dma_mlx5_nosig,dev=sim2";

	if (argc > 1) {
		if (strncmp(argv[1], "dev=", 4) != 0 || !argv[1][4]) {
			fprintf(stderr, "test_lib_blkint: argument %s: dev=DEV expected\n",
				argv[1]);
			return 2;
		}
		blkint_test_kernel_dev = argv[1] + 4;
		sig_vdev = std::string("--vdev=dma_mlx5,") + argv[1] + ",sig=1";
		nosig_vdev = std::string("--vdev=dma_mlx5_nosig,") + argv[1];
	}
#endif
	char *eal[] = {(char *)"test_lib_blkint",
		       (char *)"--no-huge",
		       (char *)"-m",
		       (char *)"512",
		       (char *)"--no-pci",
		       (char *)"--no-shconf",
		       (char *)"-l",
		       (char *)"0-1",
		       (char *)"--log-level=lib.eal:warning",
		       (char *)"--vdev=dma_skeleton,lcore=1",
#ifdef BLKINT_TEST_SIM
		       (char *)sig_vdev.c_str(),
		       (char *)nosig_vdev.c_str(),
#endif
		       NULL, /* --file-prefix */
		       NULL};
	static const struct cunit_test kat[] = {
		{"check values", t_check_values},
		{"isa-l vs bitwise", t_isal_vs_bitwise},
		{"t10-dif 512-byte blocks", t_t10dif_blocks},
	};
	static const struct cunit_test cpu[] = {
		{"block size x format x op", t_cpu_matrix},
		{"error in first/middle/last block", t_error_positions},
		{"escapes", t_escapes},
		{"ref tags across ops", t_ref_tags_across_ops},
		{"bad input", t_bad_input},
		{"full context", t_full},
		{"telemetry", t_telemetry},
	};
	static const struct cunit_test dev[] = {
		{"routing (scripted device)", t_routing},
		{"cross-check: corrupted PI", t_xcheck_corrupt},
		{"cross-check: wrong verdicts", t_xcheck_verdict},
		{"cross-check: sampling rate", t_xcheck_sampling},
		{"fallback without signature caps", t_fallback},
		{"engine module (dma_skeleton)", t_engine_module},
		{"free: ops that never complete", t_free_never_completes},
	};
	const struct cunit_suite suites[] = {
		CUNIT_SUITE("known answers", kat),
		CUNIT_SUITE("cpu", cpu),
		CUNIT_SUITE("device", dev),
#ifdef BLKINT_TEST_SIM
		blkint_dev_suite,
#endif
	};
	int ret;

	RTE_SET_USED(argc);
	RTE_SET_USED(argv);
	/* a runtime directory of its own: the telemetry test talks to this process's socket */
	std::string prefix = dpdk_test_own_prefix("blkint");
	eal[RTE_DIM(eal) - 2] = (char *)prefix.c_str();
	if (rte_eal_init((int)RTE_DIM(eal) - 1, eal) < 0) {
		fprintf(stderr, "rte_eal_init failed\n");
		return 1;
	}
	for (const char *d : {"dma_skeleton", "dma_mlx5", "dma_mlx5_nosig"})
		if (rte_dma_get_dev_id_by_name(d) >= 0 && dpdk_test_dma_start(d) < 0) {
			fprintf(stderr, "cannot start %s\n", d);
			return 1;
		}
	dpdk_test_rundir_note();
	ret = CUNIT_RUN_SUITES(suites);
	dpdk_test_dma_close_all();
	rte_eal_cleanup();
	return ret;
}
