/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * One WQE built segment by segment in a local buffer, with rdma-core's ctrl and data
 * segment setters: the device-side suites (hca_test_util.h) and the fuzzer's seed
 * generator (test/fuzz) write WQE bytes with it. No CUnit, no device.
 */
#ifndef TEST_SIM_HCA_WQE_SEGS_H
#define TEST_SIM_HCA_WQE_SEGS_H

#include <stdint.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#include "mlx5_hw.h"

/** A WQE under construction: the ctrl segment, then segments appended in order. */
struct WqeSegs {
	uint8_t b[1024] = {};
	uint32_t off = 16; /**< bytes written, the ctrl segment included */

	void ctrl(uint32_t idx, uint8_t opcode, uint8_t opmod, uint32_t qpn, uint8_t fm_ce_se,
		  uint32_t imm)
	{
		mlx5dv_set_ctrl_seg(reinterpret_cast<struct mlx5_wqe_ctrl_seg *>(b), (uint16_t)idx,
				    opcode, opmod, qpn, fm_ce_se, 0, 0, imm);
	}
	WqeSegs &data(uint32_t len, uint32_t lkey, const void *addr)
	{
		mlx5dv_set_data_seg(reinterpret_cast<struct mlx5_wqe_data_seg *>(b + off), len,
				    lkey, (uintptr_t)addr);
		off += 16;
		return *this;
	}
	WqeSegs &raddr(const void *addr, uint32_t rkey)
	{
		mlx5_hw_st_be64(b + off, (uintptr_t)addr);
		mlx5_hw_st_be32(b + off + 8, rkey);
		off += 16;
		return *this;
	}
	WqeSegs &atomic(uint64_t swap_add, uint64_t compare)
	{
		mlx5_hw_st_be64(b + off, swap_add);
		mlx5_hw_st_be64(b + off + 8, compare);
		off += 16;
		return *this;
	}
	WqeSegs &inl(const void *data, uint32_t len)
	{
		mlx5_hw_st_be32(b + off, len | MLX5_INLINE_SEG);
		memcpy(b + off + 4, data, len);
		off += (4 + len + 15) & ~15u;
		return *this;
	}
	/** MMO meta segment (opaque buffer key/address). */
	WqeSegs &meta(uint32_t lkey, const void *addr)
	{
		mlx5_hw_st_be32(b + off, 0);
		mlx5_hw_st_be32(b + off + 4, lkey);
		mlx5_hw_st_be64(b + off + 8, (uintptr_t)addr);
		off += 16;
		return *this;
	}
	/** UMR ctrl segment (48 bytes): flags, translation octowords, mkey_mask. */
	WqeSegs &umr_ctrl(uint8_t flags, uint16_t klm_octowords, uint64_t mkey_mask)
	{
		memset(b + off, 0, 48);
		b[off] = flags;
		mlx5_hw_st_be16(b + off + 4, klm_octowords);
		mlx5_hw_st_be64(b + off + 8, mkey_mask);
		off += 48;
		return *this;
	}
	/** Mkey context (64 bytes): free byte, access byte, length, qpn_mkey, start. */
	WqeSegs &mkey_ctx(uint8_t free, uint8_t access, uint64_t len,
			  uint32_t qpn_mkey = 0xffffff00, uint64_t start = 0)
	{
		memset(b + off, 0, 64);
		b[off] = free;
		b[off + 2] = access;
		mlx5_hw_st_be32(b + off + 4, qpn_mkey);
		mlx5_hw_st_be64(b + off + 16, start);
		mlx5_hw_st_be64(b + off + 24, len);
		off += 64;
		return *this;
	}
	/** One KLM of a UMR translation list. */
	WqeSegs &klm(uint32_t byte_count, uint32_t mkey, const void *addr)
	{
		mlx5_hw_st_be32(b + off, byte_count);
		mlx5_hw_st_be32(b + off + 4, mkey);
		mlx5_hw_st_be64(b + off + 8, (uintptr_t)addr);
		off += 16;
		return *this;
	}
	/** Repeat-block header: bytes per repetition, repetitions, entries. */
	WqeSegs &repeat_hdr(uint32_t byte_count, uint32_t repeat_count, uint16_t num_ent,
			    uint32_t op = MLX5_HW_UMR_REPEAT_OP)
	{
		mlx5_hw_st_be32(b + off, byte_count);
		mlx5_hw_st_be32(b + off + 4, op);
		mlx5_hw_st_be32(b + off + 8, repeat_count);
		mlx5_hw_st_be16(b + off + 12, 0);
		mlx5_hw_st_be16(b + off + 14, num_ent);
		off += 16;
		return *this;
	}
	/** Repeat-block entry: stride, bytes, key, address. */
	WqeSegs &repeat_ent(uint16_t stride, uint16_t byte_count, uint32_t mkey, const void *addr)
	{
		mlx5_hw_st_be16(b + off, stride);
		mlx5_hw_st_be16(b + off + 2, byte_count);
		mlx5_hw_st_be32(b + off + 4, mkey);
		mlx5_hw_st_be64(b + off + 8, (uintptr_t)addr);
		off += 16;
		return *this;
	}
	/** Zero octowords up to the next 64-byte boundary (padding of a translation area). */
	WqeSegs &pad64()
	{
		while (off % 64) {
			memset(b + off, 0, 16);
			off += 16;
		}
		return *this;
	}
	uint32_t ds() const { return off / 16; }
};

#endif /* TEST_SIM_HCA_WQE_SEGS_H */
