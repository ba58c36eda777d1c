/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * CUnit suites of the device's signature pieces. sig_crc: the model's guard
 * reference (sig_crc.h): the catalogue check values on "123456789", chunked
 * computation equal to one-shot for every algorithm and seed, and a cross-check
 * of each table-driven CRC against a bit-at-a-time implementation written here
 * from the polynomial alone, and of the IP checksum against RFC 1071's worked
 * example and a plain 32-bit sum. psv: the PSV commands.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include <CUnit/Basic.h>

#include "cunit_run.h"

#include "hca.h"
#include "sig_crc.h"

using namespace mlx5sim;

namespace {

const char kCheck[] = "123456789";
constexpr size_t kCheckLen = 9;

const GuardKind kAll[] = {GuardKind::T10DIF_CRC16, GuardKind::T10DIF_IPCS, GuardKind::CRC32,
			  GuardKind::CRC32C, GuardKind::CRC64_XP10};

/** Generic bitwise CRC (the Rocksoft model), independent of the tables. */
uint64_t crc_bitwise(unsigned width, uint64_t poly, uint64_t init, bool refl, uint64_t xorout,
		     const uint8_t *p, size_t len)
{
	uint64_t top = 1ull << (width - 1);
	uint64_t mask = width == 64 ? ~0ull : (1ull << width) - 1;
	uint64_t r = init;

	for (size_t i = 0; i < len; i++) {
		uint8_t b = p[i];

		if (refl) {
			uint8_t rb = 0;

			for (int k = 0; k < 8; k++)
				rb |= (uint8_t)(((b >> k) & 1) << (7 - k));
			b = rb;
		}
		r ^= (uint64_t)b << (width - 8);
		for (int k = 0; k < 8; k++)
			r = (r & top) ? ((r << 1) ^ poly) & mask : (r << 1) & mask;
	}
	if (refl) {
		uint64_t rr = 0;

		for (unsigned k = 0; k < width; k++)
			rr |= ((r >> k) & 1) << (width - 1 - k);
		r = rr;
	}
	return (r ^ xorout) & mask;
}

/** The documented parameters of each guard (sig_crc.h), computed bitwise. */
uint64_t reference(GuardKind k, bool ones, const uint8_t *p, size_t len)
{
	switch (k) {
	case GuardKind::T10DIF_CRC16:
		return crc_bitwise(16, 0x8bb7, ones ? 0xffff : 0, false, 0, p, len);
	case GuardKind::CRC32:
		return crc_bitwise(32, 0x04c11db7, ones ? 0xffffffff : 0, true, 0xffffffff, p, len);
	case GuardKind::CRC32C:
		return crc_bitwise(32, 0x1edc6f41, ones ? 0xffffffff : 0, true, 0xffffffff, p, len);
	case GuardKind::CRC64_XP10:
		return crc_bitwise(64, 0x42f0e1eba9ea3693ull, ones ? ~0ull : 0, false,
				   ones ? ~0ull : 0, p, len);
	case GuardKind::T10DIF_IPCS: {
		uint32_t sum = ones ? 0xffff : 0;

		for (size_t i = 0; i < len; i += 2)
			sum += (uint32_t)p[i] << 8 | (i + 1 < len ? p[i + 1] : 0);
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		return ~sum & 0xffff;
	}
	}
	return 0;
}

const uint8_t *check_bytes()
{
	return reinterpret_cast<const uint8_t *>(kCheck);
}

void test_check_values(void)
{
	CU_ASSERT_EQUAL(guard_compute(GuardKind::CRC32, true, kCheck, kCheckLen), 0xcbf43926u);
	CU_ASSERT_EQUAL(guard_compute(GuardKind::CRC32C, true, kCheck, kCheckLen), 0xe3069283u);
	CU_ASSERT_EQUAL(guard_compute(GuardKind::T10DIF_CRC16, false, kCheck, kCheckLen), 0xd0dbu);
	CU_ASSERT_EQUAL(guard_compute(GuardKind::CRC64_XP10, false, kCheck, kCheckLen),
			0x6c40df5f0b497347ull); /* CRC-64/ECMA-182 */
	CU_ASSERT_EQUAL(guard_compute(GuardKind::CRC64_XP10, true, kCheck, kCheckLen),
			0x62ec59e3f1a4f00aull); /* CRC-64/WE */
	CU_ASSERT_EQUAL(guard_bytes(GuardKind::T10DIF_CRC16), 2u);
	CU_ASSERT_EQUAL(guard_bytes(GuardKind::T10DIF_IPCS), 2u);
	CU_ASSERT_EQUAL(guard_bytes(GuardKind::CRC32C), 4u);
	CU_ASSERT_EQUAL(guard_bytes(GuardKind::CRC64_XP10), 8u);
}

/* RFC 1071 section 3: 00 01 f2 03 f4 f5 f6 f7 sums to 0xddf2, checksum 0x220d. */
void test_ip_checksum(void)
{
	const uint8_t rfc[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
	const uint8_t odd[] = {0x12, 0x34, 0x56};

	CU_ASSERT_EQUAL(guard_compute(GuardKind::T10DIF_IPCS, false, rfc, sizeof(rfc)), 0x220du);
	/* an odd trailing byte is the high half of a zero-padded word */
	CU_ASSERT_EQUAL(guard_compute(GuardKind::T10DIF_IPCS, false, odd, sizeof(odd)),
			(uint64_t)(~(0x1234u + 0x5600u) & 0xffff));
	CU_ASSERT_EQUAL(guard_compute(GuardKind::T10DIF_IPCS, false, nullptr, 0), 0xffffu);
}

/* rdma-core tests/test_mlx5_mkey.py: with seed 0 a zero block must not give CRC32 0. */
void test_zero_block_seed0(void)
{
	std::vector<uint8_t> zeros(512, 0);

	CU_ASSERT_NOT_EQUAL(guard_compute(GuardKind::CRC32, false, zeros.data(), zeros.size()), 0u);
	CU_ASSERT_NOT_EQUAL(guard_compute(GuardKind::CRC32C, false, zeros.data(), zeros.size()),
			    0u);
}

void test_against_bitwise(void)
{
	std::mt19937 rng(0x5eed);
	std::vector<uint8_t> buf(4160 + 8);

	for (auto &b : buf)
		b = (uint8_t)rng();
	for (GuardKind k : kAll) {
		for (int ones = 0; ones < 2; ones++) {
			CU_ASSERT_EQUAL(guard_compute(k, ones, kCheck, kCheckLen),
					reference(k, ones, check_bytes(), kCheckLen));
			/* 8-byte slices, tails of every length, unaligned starts */
			for (size_t off : {0ul, 3ul})
				for (size_t len : {0ul, 1ul, 7ul, 8ul, 9ul, 15ul, 17ul, 512ul,
						   520ul, 4048ul, 4096ul, 4099ul, 4160ul})
					CU_ASSERT_EQUAL(
						guard_compute(k, ones, buf.data() + off, len),
						reference(k, ones, buf.data() + off, len));
		}
	}
}

void test_chunked_equals_one_shot(void)
{
	std::mt19937 rng(42);
	std::vector<uint8_t> buf(4160);

	for (auto &b : buf)
		b = (uint8_t)rng();
	for (GuardKind k : kAll) {
		for (int ones = 0; ones < 2; ones++) {
			uint64_t whole = guard_compute(k, ones, buf.data(), buf.size());

			for (int round = 0; round < 20; round++) {
				GuardCalc g;
				size_t off = 0;

				guard_init(&g, k, ones);
				while (off < buf.size()) {
					size_t n = rng() % 37; /* odd sizes, empty chunks too */

					if (n > buf.size() - off)
						n = buf.size() - off;
					guard_update(&g, buf.data() + off, n);
					off += n;
				}
				CU_ASSERT_EQUAL(guard_final(&g), whole);
			}
			/* final() does not end the computation */
			GuardCalc g;

			guard_init(&g, k, ones);
			guard_update(&g, buf.data(), 100);
			(void)guard_final(&g);
			guard_update(&g, buf.data() + 100, buf.size() - 100);
			CU_ASSERT_EQUAL(guard_final(&g), whole);
		}
	}
}

std::shared_ptr<Hca> make_hca(const HcaCaps &caps)
{
	static int n;

	return Hca::create("sigtest" + std::to_string(n++), caps, ExecMode::Inline);
}

void test_psv_create_destroy(void)
{
	std::shared_ptr<Hca> hca = make_hca(HcaCaps());
	uint32_t pdn, a, b;

	CU_ASSERT_EQUAL_FATAL(hca->alloc_pd(&pdn), 0);
	CU_ASSERT_EQUAL(hca->create_psv(pdn, &a), 0);
	CU_ASSERT_EQUAL(hca->create_psv(pdn, &b), 0);
	CU_ASSERT_NOT_EQUAL(a, b);
	CU_ASSERT(a >= 1 && a <= 0xffffff && b >= 1 && b <= 0xffffff);
	/* the PSVs keep their PD busy */
	CU_ASSERT_EQUAL(hca->dealloc_pd(pdn), -EBUSY);
	CU_ASSERT_EQUAL(hca->destroy_psv(a), 0);
	CU_ASSERT_EQUAL(hca->destroy_psv(a), -EINVAL);
	CU_ASSERT_EQUAL(hca->destroy_psv(b), 0);
	CU_ASSERT_EQUAL(hca->dealloc_pd(pdn), 0);
}

void test_psv_bad_input(void)
{
	HcaCaps caps;
	uint32_t pdn, idx[3];

	caps.max_psv = 2;
	std::shared_ptr<Hca> hca = make_hca(caps);

	CU_ASSERT_EQUAL_FATAL(hca->alloc_pd(&pdn), 0);
	CU_ASSERT_EQUAL(hca->create_psv(pdn + 1, &idx[0]), -EINVAL);
	CU_ASSERT_EQUAL(hca->create_psv(0, &idx[0]), -EINVAL);
	CU_ASSERT_EQUAL(hca->create_psv(pdn, nullptr), -EINVAL);
	CU_ASSERT_EQUAL(hca->destroy_psv(0), -EINVAL);
	CU_ASSERT_EQUAL(hca->destroy_psv(0xffffff), -EINVAL);
	CU_ASSERT_EQUAL(hca->create_psv(pdn, &idx[0]), 0);
	CU_ASSERT_EQUAL(hca->create_psv(pdn, &idx[1]), 0);
	CU_ASSERT_EQUAL(hca->create_psv(pdn, &idx[2]), -ENOMEM); /* caps.max_psv */
	/* a freed index is handed out again */
	CU_ASSERT_EQUAL(hca->destroy_psv(idx[0]), 0);
	CU_ASSERT_EQUAL(hca->create_psv(pdn, &idx[2]), 0);
	CU_ASSERT_EQUAL(idx[2], idx[0]);
	CU_ASSERT_EQUAL(hca->destroy_psv(idx[1]), 0);
	CU_ASSERT_EQUAL(hca->destroy_psv(idx[2]), 0);
	CU_ASSERT_EQUAL(hca->dealloc_pd(pdn), 0);
}

} // namespace

int main(void)
{
	static const struct cunit_test crc[] = {
		{"check values on 123456789", test_check_values},
		{"IP checksum (RFC 1071)", test_ip_checksum},
		{"CRC32 of a zero block with seed 0", test_zero_block_seed0},
		{"tables against bitwise references", test_against_bitwise},
		{"chunked equals one-shot", test_chunked_equals_one_shot},
	};
	static const struct cunit_test psv[] = {
		{"create, destroy, PD busy", test_psv_create_destroy},
		{"bad input and the PSV limit", test_psv_bad_input},
	};
	static const struct cunit_suite suites[] = {
		CUNIT_SUITE("sig_crc", crc),
		CUNIT_SUITE("psv", psv),
	};

	return CUNIT_RUN_SUITES(suites);
}
