/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * test_pmd_dma_mlx5_sig: signature copies of dma_mlx5 (rte_pmd_dma_mlx5_sig_*) on
 * software HCAs: every block size x signature type x insert / strip / verify /
 * convert / pass-through, against the test's own bitwise CRC and T10-DIF reference
 * (not the model's code); failures in the first / middle / last block with their
 * details; escapes; reference tags across ops; SG; mkey reuse; bad input; a device
 * without signature caps; and "verify, then respond" pairs at both model stop
 * points, inline and thread mode.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include <rte_eal.h>
#include <rte_malloc.h>

#include "rte_pmd_dma_mlx5.h"
#include "test_dma_mlx5.h"

namespace {

/* ---- reference: bitwise, from the algorithms' definitions ---- */

uint16_t ref_crc16_t10(const uint8_t *p, size_t n, uint16_t seed)
{
	uint16_t c = seed;

	for (size_t i = 0; i < n; i++) {
		c ^= (uint16_t)(p[i] << 8);
		for (int k = 0; k < 8; k++)
			c = (c & 0x8000) ? (uint16_t)((c << 1) ^ 0x8BB7) : (uint16_t)(c << 1);
	}
	return c;
}

uint16_t ref_ip_csum(const uint8_t *p, size_t n, uint16_t seed)
{
	uint32_t sum = seed;

	for (size_t i = 0; i < n; i += 2) {
		sum += (uint32_t)p[i] << 8 | (i + 1 < n ? p[i + 1] : 0);
		sum = (sum & 0xffff) + (sum >> 16);
	}
	return (uint16_t)~sum;
}

/* reflected CRC32 family: register = seed, final XOR all ones */
uint32_t ref_crc32_refl(const uint8_t *p, size_t n, uint32_t poly_refl, uint32_t seed)
{
	uint32_t c = seed;

	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ poly_refl : c >> 1;
	}
	return c ^ 0xffffffffu;
}

/* CRC64 XP10 as the model documents it (ECMA-182 poly, init = final XOR = seed) */
uint64_t ref_crc64(const uint8_t *p, size_t n, uint64_t seed)
{
	uint64_t c = seed;

	for (size_t i = 0; i < n; i++) {
		c ^= (uint64_t)p[i] << 56;
		for (int k = 0; k < 8; k++)
			c = (c >> 63) ? (c << 1) ^ 0x42F0E1EBA9EA3693ull : c << 1;
	}
	return c ^ seed;
}

typedef struct rte_pmd_dma_mlx5_sig_domain Dom;

uint32_t pi_len(enum rte_pmd_dma_mlx5_sig_type t)
{
	switch (t) {
	case RTE_PMD_DMA_MLX5_SIG_NONE:
		return 0;
	case RTE_PMD_DMA_MLX5_SIG_CRC32:
	case RTE_PMD_DMA_MLX5_SIG_CRC32C:
		return 4;
	default:
		return 8;
	}
}

/* The PI of block @p b (data @p d of d.block_size bytes), big-endian, into @p out. */
void ref_pi(const Dom &dom, const uint8_t *d, uint32_t b, uint8_t *out)
{
	bool ones = dom.flags & RTE_PMD_DMA_MLX5_SIG_F_SEED_ONES;
	uint64_t v;

	switch (dom.type) {
	case RTE_PMD_DMA_MLX5_SIG_T10DIF_CRC:
	case RTE_PMD_DMA_MLX5_SIG_T10DIF_CSUM: {
		uint16_t g = dom.type == RTE_PMD_DMA_MLX5_SIG_T10DIF_CRC
				     ? ref_crc16_t10(d, dom.block_size, ones ? 0xffff : 0)
				     : ref_ip_csum(d, dom.block_size, ones ? 0xffff : 0);
		uint32_t ref = dom.ref_tag + ((dom.flags & RTE_PMD_DMA_MLX5_SIG_F_REF_INC) ? b : 0);

		out[0] = (uint8_t)(g >> 8);
		out[1] = (uint8_t)g;
		out[2] = (uint8_t)(dom.app_tag >> 8);
		out[3] = (uint8_t)dom.app_tag;
		for (int i = 0; i < 4; i++)
			out[4 + i] = (uint8_t)(ref >> (24 - 8 * i));
		return;
	}
	case RTE_PMD_DMA_MLX5_SIG_CRC64:
		v = ref_crc64(d, dom.block_size, ones ? ~0ull : 0);
		for (int i = 0; i < 8; i++)
			out[i] = (uint8_t)(v >> (56 - 8 * i));
		return;
	default:
		v = ref_crc32_refl(d, dom.block_size,
				   dom.type == RTE_PMD_DMA_MLX5_SIG_CRC32 ? 0xEDB88320u
									  : 0x82F63B78u,
				   ones ? 0xffffffffu : 0);
		for (int i = 0; i < 4; i++)
			out[i] = (uint8_t)(v >> (24 - 8 * i));
		return;
	}
}

/* @p nb blocks of data (pattern @p seed), each followed by @p dom's PI. */
std::vector<uint8_t> ref_layout(const Dom &dom, uint16_t bs, uint32_t nb, uint32_t seed)
{
	uint32_t pl = pi_len(dom.type);
	std::vector<uint8_t> v((size_t)nb * (bs + pl));

	for (uint32_t b = 0; b < nb; b++) {
		uint8_t *blk = v.data() + (size_t)b * (bs + pl);

		for (uint32_t i = 0; i < bs; i++)
			blk[i] = t_pat(seed + b, i);
		if (pl)
			ref_pi(dom, blk, b, blk + bs);
	}
	return v;
}

Dom dom(enum rte_pmd_dma_mlx5_sig_type t, uint16_t bs, uint16_t flags = 0, uint32_t ref = 0x100,
	uint16_t app = 0x5a5a)
{
	Dom d = {};

	d.type = t;
	d.block_size = bs;
	d.flags = flags;
	d.app_tag = app;
	d.ref_tag = ref;
	return d;
}

const enum rte_pmd_dma_mlx5_sig_type kTypes[] = {
	RTE_PMD_DMA_MLX5_SIG_T10DIF_CRC, RTE_PMD_DMA_MLX5_SIG_T10DIF_CSUM,
	RTE_PMD_DMA_MLX5_SIG_CRC32,      RTE_PMD_DMA_MLX5_SIG_CRC32C,
	RTE_PMD_DMA_MLX5_SIG_CRC64,
};
const uint16_t kSizes[] = {512, 520, 4048, 4096, 4160};

/* ---- environment ---- */

#define S_INLINE "sim41"
#define S_THREAD "sim42"
#define S_FENCE_INLINE "sim43"
#define S_FENCE_THREAD "sim44"
#define S_NOSIG "sim45"
#define S_NOPIPE "sim46"

int add_sims(void)
{
	struct {
		const char *name;
		enum mlx5_sim_exec_mode mode;
		uint32_t sig;
	} const sims[] = {
		{S_INLINE, MLX5_SIM_EXEC_INLINE, MLX5_SIM_SIG_ALL},
		{S_THREAD, MLX5_SIM_EXEC_THREAD, MLX5_SIM_SIG_ALL},
		{S_FENCE_INLINE, MLX5_SIM_EXEC_INLINE,
		 MLX5_SIM_SIG_ALL | MLX5_SIM_SIG_STOP_AT_FENCE},
		{S_FENCE_THREAD, MLX5_SIM_EXEC_THREAD,
		 MLX5_SIM_SIG_ALL | MLX5_SIM_SIG_STOP_AT_FENCE},
		{S_NOSIG, MLX5_SIM_EXEC_INLINE, 0},
		{S_NOPIPE, MLX5_SIM_EXEC_INLINE, MLX5_SIM_SIG_ALL & ~MLX5_SIM_SIG_PIPELINING},
	};

	for (const auto &s : sims) {
		struct mlx5_sim_device_attr attr;

		mlx5_sim_device_attr_init(&attr);
		attr.exec_mode = s.mode;
		attr.sig_features = s.sig;
		if (mlx5_sim_device_add(s.name, &attr)) {
			fprintf(stderr, "cannot add software HCA %s\n", s.name);
			return -1;
		}
	}
	return 0;
}

const char *sim_args(const char *sim, const char *extra = "sig=1")
{
	static char buf[4][160];
	static unsigned int turn;
	char *b = buf[turn++ % 4];
	bool thread = !strcmp(sim, S_THREAD) || !strcmp(sim, S_FENCE_THREAD);

	if (t_kernel_dev) { /* --kernel: every case that runs there is on DEV */
		snprintf(b, sizeof(buf[0]), "dev=%s%s%s", t_kernel_dev, extra[0] ? "," : "", extra);
		return b;
	}
	snprintf(b, sizeof(buf[0]), "dev=%s,sim_exec=%s%s%s", sim, thread ? "thread" : "inline",
		 extra[0] ? "," : "", extra);
	return b;
}

/* A DPDK buffer (registered by the PMD's MR registry). */
struct Buf {
	uint8_t *p;
	size_t n;
	explicit Buf(size_t len) : p((uint8_t *)rte_zmalloc(NULL, len, 64)), n(len) {}
	~Buf() { rte_free(p); }
	Buf(const Buf &) = delete;
	Buf &operator=(const Buf &) = delete;
	rte_iova_t iova(size_t off = 0) const { return t_iova(p + off); }
};

/* One op: enqueue with SUBMIT, wait for its status. */
enum rte_dma_status_code run1(int16_t id, const struct rte_pmd_dma_mlx5_sig_xfer &x, int *idx)
{
	enum rte_dma_status_code st = RTE_DMA_STATUS_ERROR_UNKNOWN;
	uint16_t last;

	*idx = rte_pmd_dma_mlx5_sig_copy(id, 0, &x, RTE_DMA_OP_FLAG_SUBMIT);
	if (*idx < 0)
		return RTE_DMA_STATUS_ERROR_UNKNOWN;
	if (t_wait_status(id, 0, 1, &st, &last) != 1 || last != (uint16_t)*idx)
		return RTE_DMA_STATUS_ERROR_UNKNOWN;
	return st;
}

struct rte_pmd_dma_mlx5_sig_xfer xfer(const Dom &s, const struct rte_dma_sge *src, uint16_t ns,
				      const Dom &d, const struct rte_dma_sge *dst, uint16_t nd)
{
	struct rte_pmd_dma_mlx5_sig_xfer x = {};

	x.src = src;
	x.nb_src = ns;
	x.dst = dst;
	x.nb_dst = nd;
	x.src_dom = s;
	x.dst_dom = d;
	return x;
}

/* ---- tests ---- */

/* The reference itself: the standard check values on "123456789". */
void test_reference(void)
{
	const uint8_t s[] = "123456789";

	CU_ASSERT_EQUAL(ref_crc16_t10(s, 9, 0), 0xD0DB);
	CU_ASSERT_EQUAL(ref_crc32_refl(s, 9, 0xEDB88320u, 0xffffffffu), 0xCBF43926u);
	CU_ASSERT_EQUAL(ref_crc32_refl(s, 9, 0x82F63B78u, 0xffffffffu), 0xE3069283u);
	CU_ASSERT_EQUAL(ref_crc64(s, 9, 0), 0x6C40DF5F0B497347ull);
	CU_ASSERT_EQUAL(ref_crc64(s, 9, ~0ull), 0x62EC59E3F1A4F00Aull); /* CRC-64/WE */
	/* RFC 1071 example: words 0001 f203 f4f5 f6f7 sum to 0xddf2 */
	const uint8_t w[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};

	CU_ASSERT_EQUAL(ref_ip_csum(w, 8, 0), (uint16_t)~0xddf2);
}

void test_caps(void)
{
	struct rte_pmd_dma_mlx5_sig_caps c;
	int id = t_open("dma_mlx5_sigc", sim_args(S_INLINE), 1, 64);

	CU_ASSERT_TRUE_FATAL(id >= 0);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_caps(id, &c), 0);
	CU_ASSERT_EQUAL(c.types, 0x3eu);
	CU_ASSERT_EQUAL(c.block_sizes, 0x1fu);
	CU_ASSERT_EQUAL(c.enabled, 1);
	CU_ASSERT_EQUAL(c.pipelining, 1);
	CU_ASSERT_TRUE(c.max_sge >= 4);
	CU_ASSERT_EQUAL(c.mkeys, 32);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_caps(id, NULL), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_caps(-1, &c), -EINVAL);
	CU_ASSERT_EQUAL(t_close("dma_mlx5_sigc"), 0);

	/* without sig=1: caps say so and ops are refused */
	id = t_open("dma_mlx5_sigc", sim_args(S_INLINE, ""), 1, 64);
	CU_ASSERT_TRUE_FATAL(id >= 0);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_caps(id, &c), 0);
	CU_ASSERT_EQUAL(c.enabled, 0);
	Buf b(4096);
	struct rte_dma_sge sg = {b.iova(), 512}, dg = {b.iova(2048), 520};
	auto x = xfer(dom(RTE_PMD_DMA_MLX5_SIG_NONE, 0), &sg, 1,
		      dom(RTE_PMD_DMA_MLX5_SIG_CRC32C, 512), &dg, 1);

	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_copy(id, 0, &x, 0), -ENOTSUP);
	CU_ASSERT_EQUAL(t_close("dma_mlx5_sigc"), 0);

	/* a device without signature caps (the imitation's instance) */
	if (t_kernel_dev)
		return;
	id = t_open("dma_mlx5_sigc", sim_args(S_NOSIG), 1, 64);
	CU_ASSERT_TRUE_FATAL(id >= 0);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_caps(id, &c), -ENOTSUP);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_copy(id, 0, &x, 0), -ENOTSUP);
	CU_ASSERT_EQUAL(t_close("dma_mlx5_sigc"), 0);
}

/*
 * Every block size x type: insert, strip, verify only, convert (to the next type,
 * new ref tags), pass-through and re-seed (the same type, the other seed), 3 blocks
 * each, bytes against the reference.
 */
void matrix(const char *sim)
{
	const uint32_t nb = 3;
	Buf src(3 * 4168 + 64), dst(3 * 4168 + 64);
	int id = t_open("dma_mlx5_sigm", sim_args(sim), 1, 256), idx, n = 0;

	CU_ASSERT_TRUE_FATAL(id >= 0 && src.p && dst.p);
	for (uint16_t bs : kSizes) {
		for (size_t ti = 0; ti < RTE_DIM(kTypes); ti++, n++) {
			uint16_t fl = (n & 1 ? RTE_PMD_DMA_MLX5_SIG_F_SEED_ONES : 0) |
				      (pi_len(kTypes[ti]) == 8 &&
						       kTypes[ti] != RTE_PMD_DMA_MLX5_SIG_CRC64
					       ? RTE_PMD_DMA_MLX5_SIG_F_REF_INC
					       : 0);
			Dom a = dom(kTypes[ti], bs, fl, 0x1000 + n);
			enum rte_pmd_dma_mlx5_sig_type tb = kTypes[(ti + 1) % RTE_DIM(kTypes)];
			Dom b = dom(tb, bs,
				    (uint16_t)(fl ^ RTE_PMD_DMA_MLX5_SIG_F_SEED_ONES) &
					    (pi_len(tb) == 8 && tb != RTE_PMD_DMA_MLX5_SIG_CRC64
						     ? 0xffff
						     : RTE_PMD_DMA_MLX5_SIG_F_SEED_ONES),
				    0x7000 + n, 0x1234);
			Dom none = dom(RTE_PMD_DMA_MLX5_SIG_NONE, 0);
			auto plain = ref_layout(none, bs, nb, n);
			auto pa = ref_layout(a, bs, nb, n);
			auto pb = ref_layout(b, bs, nb, n);
			struct rte_dma_sge s, d;
			struct rte_pmd_dma_mlx5_sig_xfer x;
			char what[96];

			snprintf(what, sizeof(what), "bs %u type %d", bs, kTypes[ti]);
			/* insert */
			memcpy(src.p, plain.data(), plain.size());
			memset(dst.p, 0xee, dst.n);
			s = {src.iova(), (uint32_t)plain.size()};
			d = {dst.iova(), (uint32_t)pa.size()};
			x = xfer(none, &s, 1, a, &d, 1);
			CU_ASSERT_EQUAL(run1(id, x, &idx), RTE_DMA_STATUS_SUCCESSFUL);
			if (memcmp(dst.p, pa.data(), pa.size()))
				fprintf(stderr, "insert mismatch: %s\n", what);
			CU_ASSERT(memcmp(dst.p, pa.data(), pa.size()) == 0);
			CU_ASSERT_EQUAL(dst.p[pa.size()], 0xee);
			/* strip */
			memcpy(src.p, pa.data(), pa.size());
			memset(dst.p, 0xee, dst.n);
			s = {src.iova(), (uint32_t)pa.size()};
			d = {dst.iova(), (uint32_t)plain.size()};
			x = xfer(a, &s, 1, none, &d, 1);
			CU_ASSERT_EQUAL(run1(id, x, &idx), RTE_DMA_STATUS_SUCCESSFUL);
			CU_ASSERT(memcmp(dst.p, plain.data(), plain.size()) == 0);
			CU_ASSERT_EQUAL(dst.p[plain.size()], 0xee);
			/* verify only */
			memset(dst.p, 0xee, dst.n);
			x = xfer(a, &s, 1, none, NULL, 0);
			x.flags = RTE_PMD_DMA_MLX5_SIG_XFER_VERIFY_ONLY;
			CU_ASSERT_EQUAL(run1(id, x, &idx), RTE_DMA_STATUS_SUCCESSFUL);
			CU_ASSERT_EQUAL(dst.p[0], 0xee);
			/* convert */
			d = {dst.iova(), (uint32_t)pb.size()};
			x = xfer(a, &s, 1, b, &d, 1);
			CU_ASSERT_EQUAL(run1(id, x, &idx), RTE_DMA_STATUS_SUCCESSFUL);
			if (memcmp(dst.p, pb.data(), pb.size()))
				fprintf(stderr, "convert mismatch: %s\n", what);
			CU_ASSERT(memcmp(dst.p, pb.data(), pb.size()) == 0);
			/* pass-through */
			memset(dst.p, 0xee, dst.n);
			d = {dst.iova(), (uint32_t)pa.size()};
			x = xfer(a, &s, 1, a, &d, 1);
			CU_ASSERT_EQUAL(run1(id, x, &idx), RTE_DMA_STATUS_SUCCESSFUL);
			CU_ASSERT(memcmp(dst.p, pa.data(), pa.size()) == 0);
			/* re-seed: the same type with the other seed, so the guard the source is
			 * checked with is not the one the destination gets */
			Dom c = dom(kTypes[ti], bs,
				    (uint16_t)(fl ^ RTE_PMD_DMA_MLX5_SIG_F_SEED_ONES), 0x1000 + n);
			auto pc = ref_layout(c, bs, nb, n);

			memset(dst.p, 0xee, dst.n);
			d = {dst.iova(), (uint32_t)pc.size()};
			x = xfer(a, &s, 1, c, &d, 1);
			CU_ASSERT_EQUAL(run1(id, x, &idx), RTE_DMA_STATUS_SUCCESSFUL);
			CU_ASSERT(memcmp(dst.p, pc.data(), pc.size()) == 0);
		}
	}
	CU_ASSERT_EQUAL(t_close("dma_mlx5_sigm"), 0);
}

void test_matrix_inline(void)
{
	matrix(S_INLINE);
}

void test_matrix_thread(void)
{
	matrix(S_THREAD);
}

/*
 * A wrong PI byte in the first, a middle or the last of 3 blocks, per type and per
 * field: the op ends DATA_POISION with the field, block, offset, expected and actual
 * values; the next op through the same (re-armed) mkey succeeds.
 */
void test_verify_errors(void)
{
	const uint32_t nb = 3;
	const uint16_t bs = 512;
	Buf src(3 * 520 + 64), dst(3 * 520 + 64);
	int id = t_open("dma_mlx5_sige", sim_args(S_INLINE), 1, 256), idx;

	CU_ASSERT_TRUE_FATAL(id >= 0);
	for (auto t : kTypes) {
		uint32_t pl = pi_len(t);
		bool t10 = pl == 8 && t != RTE_PMD_DMA_MLX5_SIG_CRC64;
		Dom a = dom(t, bs, t10 ? RTE_PMD_DMA_MLX5_SIG_F_REF_INC : 0, 0x40);
		Dom none = dom(RTE_PMD_DMA_MLX5_SIG_NONE, 0);

		for (uint32_t bad = 0; bad < nb; bad++) {
			for (uint32_t byte : {0u, 2u, 4u}) {
				if (!t10 && byte)
					continue;
				auto pa = ref_layout(a, bs, nb, 9 + bad);
				uint8_t *pi = pa.data() + bad * (bs + pl) + bs;
				uint8_t good[8];
				struct rte_pmd_dma_mlx5_sig_err e = {};

				memcpy(good, pi, pl);
				pi[byte] ^= 0x21;
				memcpy(src.p, pa.data(), pa.size());
				struct rte_dma_sge s = {src.iova(), (uint32_t)pa.size()};
				struct rte_dma_sge d = {dst.iova(), nb * bs};
				auto x = xfer(a, &s, 1, none, &d, 1);

				CU_ASSERT_EQUAL(run1(id, x, &idx), RTE_DMA_STATUS_DATA_POISION);
				CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_sig_error(id, 0, idx, &e),
						      0);
				CU_ASSERT_EQUAL(e.ring_idx, idx);
				CU_ASSERT_EQUAL(e.block, bad);
				CU_ASSERT_EQUAL(e.offset, (uint64_t)bad * (bs + pl));
				CU_ASSERT_EQUAL(e.is_dst, 0);
				/* the data moved anyway */
				CU_ASSERT_EQUAL(dst.p[bad * bs + 7], t_pat(9 + bad + bad, 7));
				uint64_t want = 0, got = 0;

				if (byte == 0) {
					CU_ASSERT_EQUAL(e.kind, RTE_PMD_DMA_MLX5_SIG_ERR_GUARD);
					uint32_t gl = t10 ? 2 : pl;

					for (uint32_t i = 0; i < gl; i++) {
						want = want << 8 | good[i];
						got = got << 8 | pi[i];
					}
				} else if (byte == 2) {
					CU_ASSERT_EQUAL(e.kind, RTE_PMD_DMA_MLX5_SIG_ERR_APPTAG);
					want = 0x5a5a;
					got = (uint64_t)pi[2] << 8 | pi[3];
				} else {
					CU_ASSERT_EQUAL(e.kind, RTE_PMD_DMA_MLX5_SIG_ERR_REFTAG);
					want = 0x40 + bad;
					for (int i = 4; i < 8; i++)
						got = got << 8 | pi[i];
				}
				CU_ASSERT_EQUAL(e.expected, want);
				CU_ASSERT_EQUAL(e.actual, got);
				/* good data through the same layout: the mkey was re-armed */
				pa = ref_layout(a, bs, nb, 9 + bad);
				memcpy(src.p, pa.data(), pa.size());
				CU_ASSERT_EQUAL(run1(id, x, &idx), RTE_DMA_STATUS_SUCCESSFUL);
				CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_error(id, 0, idx, &e),
						-ENOENT);
			}
		}
	}
	CU_ASSERT_EQUAL(t_close("dma_mlx5_sige"), 0);
}

/* T10-DIF escapes: app tag 0xffff (APP_ESCAPE), app 0xffff + ref 0xffffffff (APP_REF). */
void test_escapes(void)
{
	const uint16_t bs = 512;
	Buf src(2 * 520), dst(2 * 520);
	int id = t_open("dma_mlx5_sigx", sim_args(S_INLINE), 1, 64), idx;

	CU_ASSERT_TRUE_FATAL(id >= 0);
	struct {
		uint16_t flags;
		uint32_t ref;
		enum rte_dma_status_code want;
	} const cases[] = {
		{0, 7, RTE_DMA_STATUS_DATA_POISION},
		{RTE_PMD_DMA_MLX5_SIG_F_APP_ESCAPE, 7, RTE_DMA_STATUS_SUCCESSFUL},
		{RTE_PMD_DMA_MLX5_SIG_F_APP_REF_ESCAPE, 7, RTE_DMA_STATUS_DATA_POISION},
		{RTE_PMD_DMA_MLX5_SIG_F_APP_REF_ESCAPE, 0xffffffff, RTE_DMA_STATUS_SUCCESSFUL},
	};
	for (const auto &c : cases) {
		/* block 1 carries app tag 0xffff (and ref c.ref) with a wrong guard */
		Dom a = dom(RTE_PMD_DMA_MLX5_SIG_T10DIF_CRC, bs, c.flags, c.ref, 0xffff);
		auto pa = ref_layout(a, bs, 2, 3);

		pa[520 + 512] ^= 0xff;
		memcpy(src.p, pa.data(), pa.size());
		struct rte_dma_sge s = {src.iova(), 1040}, d = {dst.iova(), 1024};
		auto x = xfer(a, &s, 1, dom(RTE_PMD_DMA_MLX5_SIG_NONE, 0), &d, 1);

		CU_ASSERT_EQUAL(run1(id, x, &idx), c.want);
	}
	CU_ASSERT_EQUAL(t_close("dma_mlx5_sigx"), 0);
}

/* Insert with reference tags continuing across ops into one buffer (LBA stream). */
void test_ref_tag_across_ops(void)
{
	const uint16_t bs = 520;
	const uint32_t per_op = 2, ops = 4;
	Buf src(ops * per_op * bs), dst(ops * per_op * (bs + 8));
	int id = t_open("dma_mlx5_sigr", sim_args(S_THREAD), 1, 64);
	Dom all = dom(RTE_PMD_DMA_MLX5_SIG_T10DIF_CRC, bs,
		      RTE_PMD_DMA_MLX5_SIG_F_REF_INC | RTE_PMD_DMA_MLX5_SIG_F_SEED_ONES, 1000);
	enum rte_dma_status_code st[ops];
	uint16_t last;

	CU_ASSERT_TRUE_FATAL(id >= 0);
	auto want = ref_layout(all, bs, ops * per_op, 77);
	auto plain = ref_layout(dom(RTE_PMD_DMA_MLX5_SIG_NONE, 0), bs, ops * per_op, 77);

	memcpy(src.p, plain.data(), plain.size());
	for (uint32_t k = 0; k < ops; k++) {
		Dom d = all;
		struct rte_dma_sge s = {src.iova(k * per_op * bs), per_op * bs};
		struct rte_dma_sge o = {dst.iova(k * per_op * (bs + 8)), per_op * (bs + 8)};

		d.ref_tag = 1000 + k * per_op;
		auto x = xfer(dom(RTE_PMD_DMA_MLX5_SIG_NONE, 0), &s, 1, d, &o, 1);
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_copy(id, 0, &x, 0), (int)k);
	}
	rte_dma_submit(id, 0);
	CU_ASSERT_EQUAL(t_wait_status(id, 0, ops, st, &last), ops);
	for (uint32_t k = 0; k < ops; k++)
		CU_ASSERT_EQUAL(st[k], RTE_DMA_STATUS_SUCCESSFUL);
	CU_ASSERT(memcmp(dst.p, want.data(), want.size()) == 0);
	CU_ASSERT_EQUAL(t_close("dma_mlx5_sigr"), 0);
}

/* SG on both sides, segments cut anywhere (not on block boundaries). */
void test_sg(void)
{
	const uint16_t bs = 4096;
	const uint32_t nb = 3;
	Buf src(4 * 4200), dst(4 * 4200), back(4 * 4200);
	int id = t_open("dma_mlx5_sigs", sim_args(S_INLINE), 1, 128), idx;
	struct rte_pmd_dma_mlx5_sig_caps c;

	CU_ASSERT_TRUE_FATAL(id >= 0);
	CU_ASSERT_EQUAL_FATAL(rte_pmd_dma_mlx5_sig_caps(id, &c), 0);
	CU_ASSERT_TRUE_FATAL(c.max_sge >= 4);
	Dom a = dom(RTE_PMD_DMA_MLX5_SIG_CRC64, bs, RTE_PMD_DMA_MLX5_SIG_F_SEED_ONES);
	Dom none = dom(RTE_PMD_DMA_MLX5_SIG_NONE, 0);
	auto plain = ref_layout(none, bs, nb, 5);
	auto pa = ref_layout(a, bs, nb, 5);

	/* source pieces scattered in the buffer: 1000 + 5000 + 6288 bytes */
	memcpy(src.p + 100, plain.data(), 1000);
	memcpy(src.p + 2000, plain.data() + 1000, 5000);
	memcpy(src.p + 8000, plain.data() + 6000, 6288);
	struct rte_dma_sge s[3] = {
		{src.iova(100), 1000}, {src.iova(2000), 5000}, {src.iova(8000), 6288}};
	/* destination: 3 pieces, 12312 bytes in all */
	struct rte_dma_sge d[3] = {
		{dst.iova(0), 4000}, {dst.iova(5000), 4}, {dst.iova(6000), 8308}};
	auto x = xfer(none, s, 3, a, d, 3);

	CU_ASSERT_EQUAL(run1(id, x, &idx), RTE_DMA_STATUS_SUCCESSFUL);
	std::vector<uint8_t> got(pa.size());

	memcpy(got.data(), dst.p, 4000);
	memcpy(got.data() + 4000, dst.p + 5000, 4);
	memcpy(got.data() + 4004, dst.p + 6000, 8308);
	CU_ASSERT(got == pa);
	/* and back: strip from the 3 pieces into 2 */
	struct rte_dma_sge b[2] = {{back.iova(0), 3}, {back.iova(64), 12285}};
	x = xfer(a, d, 3, none, b, 2);
	CU_ASSERT_EQUAL(run1(id, x, &idx), RTE_DMA_STATUS_SUCCESSFUL);
	CU_ASSERT(memcmp(back.p, plain.data(), 3) == 0);
	CU_ASSERT(memcmp(back.p + 64, plain.data() + 3, 12285) == 0);
	/* one segment more than the caps allow: refused, nothing posted */
	std::vector<struct rte_dma_sge> many(c.max_sge + 1, {src.iova(), 512});
	x = xfer(none, many.data(), (uint16_t)many.size(), a, d, 1);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_copy(id, 0, &x, 0), -EINVAL);
	CU_ASSERT_EQUAL(t_close("dma_mlx5_sigs"), 0);
}

/*
 * A failure whose SIG_ERR CQE is never read (the device is stopped first) leaves
 * the mkey in error: after rte_dma_start() the same layout still works.
 */
void test_restart_after_unread_failure(void)
{
	Buf src(1040), dst(1024);
	int id = t_open("dma_mlx5_sigt", sim_args(S_INLINE), 1, 64), idx;
	Dom a = dom(RTE_PMD_DMA_MLX5_SIG_T10DIF_CRC, 512, RTE_PMD_DMA_MLX5_SIG_F_REF_INC, 0);
	auto pa = ref_layout(a, 512, 2, 4);

	CU_ASSERT_TRUE_FATAL(id >= 0);
	pa[512] ^= 1;
	memcpy(src.p, pa.data(), pa.size());
	struct rte_dma_sge s = {src.iova(), 1040}, d = {dst.iova(), 1024};
	auto x = xfer(a, &s, 1, dom(RTE_PMD_DMA_MLX5_SIG_NONE, 0), &d, 1);

	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_copy(id, 0, &x, RTE_DMA_OP_FLAG_SUBMIT), 0);
	CU_ASSERT_EQUAL(rte_dma_stop(id), 0); /* inline: it ran; its CQEs are never read */
	CU_ASSERT_EQUAL(rte_dma_start(id), 0);
	/* a new reference tag each time: every pooled mkey in turn, the failed one too */
	for (uint32_t k = 0; k <= 32; k++) {
		x.src_dom.ref_tag = 100 + k;
		pa = ref_layout(x.src_dom, 512, 2, 4);
		memcpy(src.p, pa.data(), pa.size());
		CU_ASSERT_EQUAL(run1(id, x, &idx), RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(idx, (int)k);
	}
	CU_ASSERT_EQUAL(t_close("dma_mlx5_sigt"), 0);
}

/* WQEs of the ring from slot 0 on: opcode of each WQE, in order. */
std::vector<uint8_t> ring_opcodes(int16_t id, uint32_t upto)
{
	const uint8_t *ring;
	uint32_t wqebbs, pi = 0;
	std::vector<uint8_t> ops;

	if (test_hook_sq_ring(id, 0, &ring, &wqebbs))
		return ops;
	while (pi < upto) {
		const uint8_t *w = ring + (pi % wqebbs) * 64;
		uint32_t ds = w[7] & 0x3f;

		ops.push_back(w[3]);
		pi += ds ? (ds + 3) / 4 : 1;
	}
	return ops;
}

/* The pool: the same layout again needs no UMR; a new ref tag or an error does. */
void test_mkey_reuse(void)
{
	const uint16_t bs = 512;
	Buf src(1040), dst(1040);
	int id = t_open("dma_mlx5_sigp", sim_args(S_INLINE), 1, 256), idx;
	Dom a = dom(RTE_PMD_DMA_MLX5_SIG_T10DIF_CSUM, bs, RTE_PMD_DMA_MLX5_SIG_F_REF_INC, 20);
	Dom none = dom(RTE_PMD_DMA_MLX5_SIG_NONE, 0);

	CU_ASSERT_TRUE_FATAL(id >= 0);
	auto pa = ref_layout(a, bs, 2, 1);
	memcpy(src.p, pa.data(), pa.size());
	struct rte_dma_sge s = {src.iova(), 1040}, d = {dst.iova(), 1024};
	auto x = xfer(a, &s, 1, none, &d, 1);

	for (int k = 0; k < 3; k++)
		CU_ASSERT_EQUAL(run1(id, x, &idx), RTE_DMA_STATUS_SUCCESSFUL);
	x.src_dom.ref_tag = 21; /* a new domain: new UMR; block 0 now fails (ref 20) */
	CU_ASSERT_EQUAL(run1(id, x, &idx), RTE_DMA_STATUS_DATA_POISION);
	x.src_dom.ref_tag = 20; /* re-armed: the old layout is in another mkey */
	CU_ASSERT_EQUAL(run1(id, x, &idx), RTE_DMA_STATUS_SUCCESSFUL);
	x.src_dom.ref_tag = 21; /* the failed mkey: configured again */
	CU_ASSERT_EQUAL(run1(id, x, &idx), RTE_DMA_STATUS_DATA_POISION);
	auto ops = ring_opcodes(id, 45);
	/* a configuration: UMR (4 WQEBBs: ctrl, mkey context, 1 entry, BSF) + SET_PSV; a
	 * reused mkey: one NOP of as many WQEBBs instead (room for a re-arming UMR after a
	 * recovery; the walk steps by ds, so a NOP of another size shifts what follows) */
	const uint8_t U = MLX5_OPCODE_UMR, P = MLX5_OPCODE_SET_PSV, M = MLX5_OPCODE_MMO,
		      N = MLX5_OPCODE_NOP;
	const uint8_t want[] = {U, P, M, N, M, N, M, U, P, M, N, M, U, P, M};
	CU_ASSERT_TRUE_FATAL(ops.size() >= RTE_DIM(want));
	for (size_t i = 0; i < RTE_DIM(want); i++)
		CU_ASSERT_EQUAL(ops[i], want[i]);
	CU_ASSERT_EQUAL(t_close("dma_mlx5_sigp"), 0);
}

/*
 * The signature UMR + SET_PSV bytes the direct path writes are libmlx5's: 3000
 * random layouts (every type, block size, flag, check mask, 1..max entries)
 * against the builders on the pad, then ops through those mkeys still verify.
 */
void test_umr_bytes_equal_builders(void)
{
	char why[256] = "";
	/* umr_entries=16: layouts of up to 16 entries */
	int id = t_open("dma_mlx5_sigb", sim_args(S_INLINE, "sig=1,umr_entries=16"), 1, 256);

	CU_ASSERT_TRUE_FATAL(id >= 0);
	int bad = test_hook_sig_umr_compare((int16_t)id, 0, 12345, 3000, why, sizeof(why));
	CU_ASSERT_EQUAL(bad, 0);
	if (bad)
		printf("\n    %d layouts differ; %s ", bad, why);
	CU_ASSERT_EQUAL(t_close("dma_mlx5_sigb"), 0);
}

/* Bad input: -EINVAL, one log line, nothing posted (the next op takes index 0). */
void test_bad_input(void)
{
	Buf src(8192), dst(8192);
	uint8_t *heap = (uint8_t *)malloc(4096);
	int id = t_open("dma_mlx5_sigb", sim_args(S_INLINE), 1, 64), idx;
	Dom none = dom(RTE_PMD_DMA_MLX5_SIG_NONE, 0);
	Dom c32 = dom(RTE_PMD_DMA_MLX5_SIG_CRC32C, 512);
	struct rte_dma_sge s = {src.iova(), 1024}, d = {dst.iova(), 1032};
	struct rte_pmd_dma_mlx5_sig_xfer x;

	CU_ASSERT_TRUE_FATAL(id >= 0 && heap);
	struct {
		const char *what;
		Dom sd, dd;
		uint32_t slen, dlen, flags;
		bool heap_src;
	} const cases[] = {
		{"block size 1000", none, dom(RTE_PMD_DMA_MLX5_SIG_CRC32C, 1000), 1000, 1004},
		{"type 99", none, dom((enum rte_pmd_dma_mlx5_sig_type)99, 512), 1024, 1032},
		{"domain flags", none, dom(RTE_PMD_DMA_MLX5_SIG_CRC32C, 512, 0x100), 1024, 1032},
		{"T10 flag on CRC", none,
		 dom(RTE_PMD_DMA_MLX5_SIG_CRC32C, 512, RTE_PMD_DMA_MLX5_SIG_F_REF_INC), 1024, 1032},
		{"source not whole blocks", c32, none, 1000, 992},
		{"destination length", none, c32, 1024, 1030},
		{"no domain", none, none, 1024, 1024},
		{"block sizes differ", c32, dom(RTE_PMD_DMA_MLX5_SIG_CRC32, 520), 1032, 1048},
		{"transfer flags", none, c32, 1024, 1032, 0x80},
		{"verify-only with destination", c32, none, 1032, 1024,
		 RTE_PMD_DMA_MLX5_SIG_XFER_VERIFY_ONLY},
		{"unregistered source", none, c32, 1024, 1032, 0, true},
	};
	for (const auto &c : cases) {
		s = {c.heap_src ? t_iova(heap) : src.iova(), c.slen};
		d = {dst.iova(), c.dlen};
		x = xfer(c.sd, &s, 1, c.dd, &d, 1);
		x.flags = c.flags;
		int ret = rte_pmd_dma_mlx5_sig_copy(id, 0, &x, RTE_DMA_OP_FLAG_SUBMIT);

		if (ret != -EINVAL)
			fprintf(stderr, "case '%s': %d\n", c.what, ret);
		CU_ASSERT_EQUAL(ret, -EINVAL);
	}
	x = xfer(none, &s, 1, c32, &d, 1);
	x.nb_src = 0;
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_copy(id, 0, &x, 0), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_copy(id, 0, NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_copy_respond(id, 0, &x, NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_copy(id, 3, &x, 0), -EINVAL);
	/* a response from unregistered memory: neither op posted */
	s = {src.iova(), 1024};
	d = {dst.iova(), 1032};
	x = xfer(none, &s, 1, c32, &d, 1);
	struct rte_pmd_dma_mlx5_sig_response r = {t_iova(heap), dst.iova(4096), 64, 0, 0};
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_copy_respond(id, 0, &x, &r, 0), -EINVAL);
	/* nothing was posted: the next op is ring index 0 */
	CU_ASSERT_EQUAL(run1(id, x, &idx), RTE_DMA_STATUS_SUCCESSFUL);
	CU_ASSERT_EQUAL(idx, 0);
	CU_ASSERT_EQUAL(t_close("dma_mlx5_sigb"), 0);
	free(heap);
}

/*
 * "Verify, then respond": 5 pairs with a plain copy after each, the bad transfer
 * at position @p bad (or none): every good response goes out, the bad pair's
 * response is cancelled or replaced by the error response, every copy runs once.
 */
void pairs(const char *sim, int bad, bool err_resp)
{
	const uint16_t bs = 512;
	const int n = 5;
	Buf src(n * 2 * 516), dst(n * 1024), resp(4096), out(4096), cp(4096);
	int id = t_open("dma_mlx5_sigq", sim_args(sim), 1, 256);
	Dom a = dom(RTE_PMD_DMA_MLX5_SIG_CRC32C, bs, RTE_PMD_DMA_MLX5_SIG_F_SEED_ONES);
	Dom none = dom(RTE_PMD_DMA_MLX5_SIG_NONE, 0);
	enum rte_dma_status_code st[3 * n];
	uint16_t last;

	CU_ASSERT_TRUE_FATAL(id >= 0);
	t_fill(resp.p, 4096, 3);
	t_fill(cp.p, 4096, 4);
	memset(out.p, 0, 4096);
	for (int k = 0; k < n; k++) {
		auto pa = ref_layout(a, bs, 2, 50 + k);

		if (k == bad)
			pa[516 + 512] ^= 1; /* CRC of block 1 */
		memcpy(src.p + k * 1032, pa.data(), pa.size());
		struct rte_dma_sge s = {src.iova(k * 1032), 1032}, d = {dst.iova(k * 1024), 1024};
		auto x = xfer(a, &s, 1, none, &d, 1);
		struct rte_pmd_dma_mlx5_sig_response r = {resp.iova(k * 64), out.iova(k * 128), 64,
							  0, 0};

		if (err_resp) {
			r.err_src = resp.iova(2048 + k * 64);
			r.err_len = 32;
		}
		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_copy_respond(id, 0, &x, &r, 0), 3 * k);
		CU_ASSERT_EQUAL(rte_dma_copy(id, 0, cp.iova(k * 64), out.iova(1024 + k * 64), 64,
					     k == n - 1 ? RTE_DMA_OP_FLAG_SUBMIT : 0),
				3 * k + 2);
	}
	CU_ASSERT_EQUAL(t_wait_status(id, 0, 3 * n, st, &last), 3 * n);
	CU_ASSERT_EQUAL(last, 3 * n - 1);
	for (int k = 0; k < n; k++) {
		bool b = k == bad;

		CU_ASSERT_EQUAL(st[3 * k],
				b ? RTE_DMA_STATUS_DATA_POISION : RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(st[3 * k + 1], b && !err_resp ? RTE_DMA_STATUS_NOT_ATTEMPTED
							      : RTE_DMA_STATUS_SUCCESSFUL);
		CU_ASSERT_EQUAL(st[3 * k + 2], RTE_DMA_STATUS_SUCCESSFUL);
		if (!b) {
			CU_ASSERT(memcmp(out.p + k * 128, resp.p + k * 64, 64) == 0);
		} else if (err_resp) {
			CU_ASSERT(memcmp(out.p + k * 128, resp.p + 2048 + k * 64, 32) == 0);
			CU_ASSERT_EQUAL(out.p[k * 128 + 32], 0); /* 32 bytes, no more */
		} else {
			CU_ASSERT_EQUAL(out.p[k * 128], 0); /* cancelled: nothing went out */
		}
		CU_ASSERT(memcmp(out.p + 1024 + k * 64, cp.p + k * 64, 64) == 0);
		CU_ASSERT_EQUAL(dst.p[k * 1024 + 600], t_pat(50 + k + 1, 600 - 512));
	}
	if (bad >= 0) {
		struct rte_pmd_dma_mlx5_sig_err e;

		CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_error(id, 0, 3 * bad, &e), 0);
		CU_ASSERT_EQUAL(e.block, 1u);
		CU_ASSERT_EQUAL(e.kind, RTE_PMD_DMA_MLX5_SIG_ERR_GUARD);
		/* the dump counts the stop and the withdrawn response */
		char *dump = NULL;
		size_t dlen = 0;
		FILE *f = open_memstream(&dump, &dlen);

		CU_ASSERT_TRUE_FATAL(f != NULL);
		rte_dma_dump(id, f);
		fclose(f);
		CU_ASSERT_PTR_NOT_NULL(strstr(dump, "signature: 1 failed verifications, 1 SQD "
						    "resumes, 1 responses withdrawn"));
		free(dump);
	}
	CU_ASSERT_EQUAL(t_close("dma_mlx5_sigq"), 0);
}

void pairs_all(const char *sim)
{
	pairs(sim, -1, false);
	for (int bad : {0, 2, 4}) {
		pairs(sim, bad, false);
		pairs(sim, bad, true);
	}
}

/*
 * A device without pipelining (no SQD->RTS): caps say so, QPs are created without
 * drain_sigerr, and the response of a failed transfer goes out anyway.
 */
void test_pairs_no_pipelining(void)
{
	Buf src(1032), dst(1024), resp(64), out(64);
	int id = t_open("dma_mlx5_sign", sim_args(S_NOPIPE), 1, 64);
	struct rte_pmd_dma_mlx5_sig_caps c;
	enum rte_dma_status_code st[2];
	uint16_t last;

	CU_ASSERT_TRUE_FATAL(id >= 0);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_caps(id, &c), 0);
	CU_ASSERT_EQUAL(c.enabled, 1);
	CU_ASSERT_EQUAL(c.pipelining, 0);
	Dom a = dom(RTE_PMD_DMA_MLX5_SIG_CRC32, 512);
	auto pa = ref_layout(a, 512, 2, 8);

	pa[516 + 513] ^= 4;
	memcpy(src.p, pa.data(), pa.size());
	t_fill(resp.p, 64, 9);
	struct rte_dma_sge s = {src.iova(), 1032}, d = {dst.iova(), 1024};
	auto x = xfer(a, &s, 1, dom(RTE_PMD_DMA_MLX5_SIG_NONE, 0), &d, 1);
	struct rte_pmd_dma_mlx5_sig_response r = {resp.iova(), out.iova(), 64, 0, 0};

	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_copy_respond(id, 0, &x, &r, RTE_DMA_OP_FLAG_SUBMIT),
			0);
	CU_ASSERT_EQUAL(t_wait_status(id, 0, 2, st, &last), 2);
	CU_ASSERT_EQUAL(st[0], RTE_DMA_STATUS_DATA_POISION);
	CU_ASSERT_EQUAL(st[1], RTE_DMA_STATUS_SUCCESSFUL);
	CU_ASSERT(memcmp(out.p, resp.p, 64) == 0);
	/* verify only: the same failure, nothing written */
	memset(dst.p, 0x3c, 1024);
	x = xfer(a, &s, 1, dom(RTE_PMD_DMA_MLX5_SIG_NONE, 0), NULL, 0);
	x.flags = RTE_PMD_DMA_MLX5_SIG_XFER_VERIFY_ONLY;
	int idx;
	struct rte_pmd_dma_mlx5_sig_err e;

	CU_ASSERT_EQUAL(run1(id, x, &idx), RTE_DMA_STATUS_DATA_POISION);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_error(id, 0, idx, &e), 0);
	CU_ASSERT_EQUAL(e.block, 1u);
	CU_ASSERT_EQUAL(e.offset, 516u);
	CU_ASSERT_EQUAL(dst.p[0], 0x3c);
	CU_ASSERT_EQUAL(t_close("dma_mlx5_sign"), 0);
}

void test_pairs_inline(void)
{
	pairs_all(S_INLINE);
}

void test_pairs_thread(void)
{
	pairs_all(S_THREAD);
}

void test_pairs_fence_inline(void)
{
	pairs_all(S_FENCE_INLINE);
}

void test_pairs_fence_thread(void)
{
	pairs_all(S_FENCE_THREAD);
}

const struct cunit_test tests[] = {
	{"reference check values", test_reference},
	{"caps, sig=1, no caps", test_caps},
	{"matrix inline", test_matrix_inline},
	{"matrix thread", test_matrix_thread},
	{"verify errors first/middle/last", test_verify_errors},
	{"T10-DIF escapes", test_escapes},
	{"ref tags across ops", test_ref_tag_across_ops},
	{"SG both sides", test_sg},
	{"mkey pool reuse", test_mkey_reuse},
	{"UMR bytes equal libmlx5's builders", test_umr_bytes_equal_builders},
	{"restart after an unread failure", test_restart_after_unread_failure},
	{"bad input", test_bad_input},
	{"pairs inline", test_pairs_inline},
	{"pairs thread", test_pairs_thread},
	{"pairs stop at fence, inline", test_pairs_fence_inline},
	{"pairs stop at fence, thread", test_pairs_fence_thread},
	{"pairs without pipelining; verify-only failure", test_pairs_no_pipelining},
};

const char *const kOneMode = "one execution mode per run (sim-rdma -a sim_exec=): its "
			     "inline twin ran in it";

/* What --kernel leaves out, and why (every other case runs on DEV). */
const struct {
	const char *test;
	const char *why;
} kKernelSkips[] = {
	{"matrix thread", kOneMode},
	{"pairs thread", kOneMode},
	{"pairs stop at fence, inline",
	 "needs an imitation instance whose signature errors stop at the fence"},
	{"pairs stop at fence, thread",
	 "needs an imitation instance whose signature errors stop at the fence"},
	{"pairs without pipelining; verify-only failure",
	 "needs an imitation instance without SQD->RTS pipelining"},
};

const char *kernel_skip(const char *test)
{
	for (const auto &k : kKernelSkips)
		if (!strcmp(k.test, test))
			return k.why;
	return NULL;
}

} // namespace

/* With --kernel DEV (under devtools/sim-rdma): the cases on DEV, a device of Debian's
 * libmlx5 on the software HCA's kernel side; the others printed with their reason. */
int main(int argc, char **argv)
{
	char *eal_argv[] = {(char *)"test_pmd_dma_mlx5_sig",
			    (char *)"--no-huge",
			    (char *)"-m",
			    (char *)"512",
			    (char *)"--no-pci",
			    (char *)"--no-shconf",
			    NULL};
	int ret;

	if (rte_eal_init(6, eal_argv) < 0) {
		fprintf(stderr, "rte_eal_init failed\n");
		return 1;
	}
	if (add_sims())
		return 1;
	if (argc == 3 && !strcmp(argv[1], "--kernel")) {
		std::vector<struct cunit_test> kept;

		t_kernel_dev = argv[2];
		for (const auto &t : tests) {
			const char *why = kernel_skip(t.name);

			if (why)
				printf("skipped on %s: sig/%s: %s\n", argv[2], t.name, why);
			else
				kept.push_back(t);
		}
		struct cunit_suite s = {"sig", kept.data(), kept.size(), NULL, NULL};

		ret = cunit_run_suites(&s, 1);
	} else {
		ret = CUNIT_RUN_SUITE("sig", tests);
	}
	rte_eal_cleanup();
	return ret;
}
