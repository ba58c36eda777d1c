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
	CU_ASSERT_EQUAL(c.mkeys, 16);
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

	/* a device without signature caps */
	id = t_open("dma_mlx5_sigc", sim_args(S_NOSIG), 1, 64);
	CU_ASSERT_TRUE_FATAL(id >= 0);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_caps(id, &c), -ENOTSUP);
	CU_ASSERT_EQUAL(rte_pmd_dma_mlx5_sig_copy(id, 0, &x, 0), -ENOTSUP);
	CU_ASSERT_EQUAL(t_close("dma_mlx5_sigc"), 0);
}

/*
 * Every block size x type: insert, strip, verify only, convert (to the next type,
 * new ref tags) and pass-through, 3 blocks each, bytes against the reference.
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

const struct cunit_test tests[] = {
	{"reference check values", test_reference},
	{"caps, sig=1, no caps", test_caps},
	{"matrix inline", test_matrix_inline},
	{"matrix thread", test_matrix_thread},
};

} // namespace

int main(void)
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
	ret = CUNIT_RUN_SUITE("sig", tests);
	rte_eal_cleanup();
	return ret;
}
