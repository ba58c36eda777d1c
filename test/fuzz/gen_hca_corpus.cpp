/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Writes the seed corpus of fuzz_hca_sq (hca_fuzz_env.h format) into a directory:
 * valid WQEs with the keys a fresh software HCA hands out (NOP, memcpy MMO, RDMA
 * write/read, SEND into a posted receive, atomics), batches, a ring wrap, a stale and
 * a foreign-PD key, UMR WQEs (KLM list, stride-0 repeat block, LOCAL_INV, a BSF
 * with SET_PSV) and the WQEs that use their mkeys. Each seed is executed once here and must pass
 * the target's checks. gen_hca_corpus <dir>
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <string>
#include <vector>

#include "hca_fuzz_env.h"
#include "wqe_segs.h"

using namespace hcafuzz;

namespace {

/* One WQE being built: the device suites' segment builder, ctrl first. */
struct W : WqeSegs {
	W(uint16_t idx, uint8_t opcode, uint32_t qpn, uint8_t opmod = 0,
	  uint8_t fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE, uint32_t imm = 0)
	{
		ctrl(idx, opcode, opmod, qpn, fm_ce_se, imm);
	}
};

/* A seed: header, then the WQEs laid out in the ring from WQEBB 0. */
struct Seed {
	HcaFuzzHdr h{};
	std::vector<uint8_t> sq, rq;
	uint16_t pi = 0;
	uint32_t last_ctrl = 0;
	Env env;

	explicit Seed(uint8_t log_sq = 4, uint8_t nrecv = 0, uint16_t start = 0)
	{
		h.log_sq = log_sq;
		h.start = start;
		pi = start;
		h.n_mr = kSlots;
		h.qp_access = kMrAccessMask;
		h.flags = (uint8_t)(nrecv << 1);
		/* MR0: source (slot 0, read only); MR1: destination, every access;
		 * MR2: the other PD; MR3: deregistered (stale key) */
		h.mr[0] = {0, kSlot - 1, IBV_ACCESS_REMOTE_READ, 0, 0, 0};
		h.mr[1] = {0, kSlot - 1, (uint8_t)kMrAccessMask, 0, 0, 0};
		h.mr[2] = {0, kSlot - 1, (uint8_t)kMrAccessMask, 1, 0, 0};
		h.mr[3] = {0, kSlot - 1, (uint8_t)kMrAccessMask, 0, 1, 0};
		if (env.setup(h))
			abort();
		sq.assign((size_t)env.sq_cnt * 64, 0);
		rq.assign(kRqCnt * 64, 0);
	}
	uint32_t k(int i) const { return env.key[i]; }
	uint8_t *a(int i, uint32_t off = 0) const { return slot(i) + off; }
	uint16_t idx() const { return pi; }
	uint32_t qpn() const { return env.qpn; }
	void post(WqeSegs &w)
	{
		auto *c = reinterpret_cast<struct mlx5_wqe_ctrl_seg *>(w.b);
		uint32_t ds = w.off / 16;
		c->qpn_ds = htobe32((be32toh(c->qpn_ds) & ~0x3fu) | ds);
		uint32_t off = (pi & (env.sq_cnt - 1)) * 64;
		last_ctrl = off;
		for (uint32_t i = 0; i < w.off; i++)
			sq[(off + i) % sq.size()] = w.b[i];
		pi = (uint16_t)(pi + mlx5_hw_ds_to_wqebbs(ds));
	}
	void recv(uint32_t i, uint32_t len, uint32_t key, const void *addr)
	{
		mlx5dv_set_data_seg(reinterpret_cast<struct mlx5_wqe_data_seg *>(&rq[i * 64]), len,
				    key, (uintptr_t)addr);
		mlx5dv_set_data_seg(reinterpret_cast<struct mlx5_wqe_data_seg *>(&rq[i * 64 + 16]),
				    0, MLX5_INVALID_LKEY, 0);
	}
	void write(const std::string &dir, const char *name)
	{
		h.pi = (uint16_t)(pi - h.start);
		memcpy(&h.ctrl8, &sq[last_ctrl], 8);
		std::vector<uint8_t> out(sizeof(h));
		memcpy(out.data(), &h, sizeof(h));
		out.insert(out.end(), sq.begin(), sq.end());
		if (h.flags >> 1)
			out.insert(out.end(), rq.begin(), rq.end());
		std::string p = dir + "/" + name;
		FILE *f = fopen(p.c_str(), "wb");
		if (!f || fwrite(out.data(), 1, out.size(), f) != out.size() || fclose(f)) {
			perror(p.c_str());
			exit(1);
		}
	}
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
		return 2;
	}
	std::string d = argv[1];
	const uint8_t mmo = MLX5_HW_OPC_MOD_MMO_DMA;
	{
		Seed s;
		W w(s.idx(), MLX5_OPCODE_NOP, s.qpn());
		s.post(w);
		s.write(d, "nop");
	}
	{
		Seed s;
		W w(s.idx(), MLX5_OPCODE_MMO, s.qpn(), mmo);
		w.meta(s.k(1), s.a(1, 8192))
			.data(1000, s.k(0), s.a(0, 3))
			.data(1000, s.k(1), s.a(1, 5));
		s.post(w);
		s.write(d, "mmo");
	}
	{
		Seed s(4, 1);
		s.recv(0, 64, s.k(1), s.a(1, 3000));
		W w(s.idx(), MLX5_OPCODE_RDMA_WRITE, s.qpn());
		w.raddr(s.a(1, 100), s.k(1)).data(300, s.k(0), s.a(0));
		s.post(w);
		W x(s.idx(), MLX5_OPCODE_RDMA_WRITE_IMM, s.qpn(), 0, MLX5_WQE_CTRL_CQ_UPDATE, 7);
		x.raddr(s.a(1, 900), s.k(1)).inl("inline-bytes", 12);
		s.post(x);
		s.write(d, "rdma_write");
	}
	{
		Seed s;
		W w(s.idx(), MLX5_OPCODE_RDMA_READ, s.qpn());
		w.raddr(s.a(0, 64), s.k(0))
			.data(128, s.k(1), s.a(1, 64))
			.data(64, s.k(1), s.a(1, 4096));
		s.post(w);
		s.write(d, "rdma_read");
	}
	{
		Seed s(4, 1);
		s.recv(0, 512, s.k(1), s.a(1, 2048));
		W w(s.idx(), MLX5_OPCODE_SEND, s.qpn());
		w.data(200, s.k(0), s.a(0, 10)).inl("tail", 4);
		s.post(w);
		s.write(d, "send");
	}
	{
		Seed s;
		W fa(s.idx(), MLX5_OPCODE_ATOMIC_FA, s.qpn());
		fa.raddr(s.a(1, 64), s.k(1)).atomic(23, 0).data(8, s.k(1), s.a(1, 128));
		s.post(fa);
		W cs(s.idx(), MLX5_OPCODE_ATOMIC_CS, s.qpn());
		cs.raddr(s.a(1, 64), s.k(1))
			.atomic(1, 0xa5a5a5a5a5a5a5bcull)
			.data(8, s.k(1), s.a(1, 136));
		s.post(cs);
		s.write(d, "atomics");
	}
	{
		/* a batch, most WQEs unsignaled, the last fenced */
		Seed s;
		for (int i = 0; i < 6; i++) {
			W w(s.idx(), MLX5_OPCODE_MMO, s.qpn(), mmo,
			    i == 5 ? MLX5_WQE_CTRL_CQ_UPDATE | MLX5_WQE_CTRL_FENCE : 0);
			w.meta(s.k(1), s.a(1, 8192))
				.data(64 << i, s.k(0), s.a(0, 64 * i))
				.data(64 << i, s.k(1), s.a(1, 4096 + 64 * i));
			s.post(w);
		}
		s.write(d, "batch_unsignaled");
	}
	{
		/* a stale key in the middle: error CQE, the rest flushed */
		Seed s;
		W a(s.idx(), MLX5_OPCODE_MMO, s.qpn(), mmo);
		a.meta(s.k(1), s.a(1, 8192)).data(64, s.k(0), s.a(0)).data(64, s.k(1), s.a(1));
		s.post(a);
		W b(s.idx(), MLX5_OPCODE_MMO, s.qpn(), mmo);
		b.meta(s.k(1), s.a(1, 8192)).data(64, s.k(3), s.a(3)).data(64, s.k(1), s.a(1));
		s.post(b);
		W c(s.idx(), MLX5_OPCODE_NOP, s.qpn());
		s.post(c);
		s.write(d, "stale_key_flush");
	}
	{
		/* a key of the other PD as destination */
		Seed s;
		W w(s.idx(), MLX5_OPCODE_MMO, s.qpn(), mmo);
		w.meta(s.k(1), s.a(1, 8192)).data(64, s.k(0), s.a(0)).data(64, s.k(2), s.a(2));
		s.post(w);
		s.write(d, "foreign_pd");
	}
	{
		/* a 4-WQEBB ring three WQEBBs in: a two-WQEBB WQE crosses the end */
		Seed s(1, 0, 3);
		W w(s.idx(), MLX5_OPCODE_RDMA_WRITE, s.qpn());
		w.raddr(s.a(1), s.k(1))
			.data(8, s.k(0), s.a(0))
			.data(8, s.k(0), s.a(0, 8))
			.data(8, s.k(0), s.a(0, 16));
		s.post(w);
		s.write(d, "ring_wrap");
	}
	const uint64_t layout_mask = MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE |
				     MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY |
				     MLX5_WQE_UMR_CTRL_MKEY_MASK_LEN |
				     MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_LOCAL_WRITE |
				     MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_READ |
				     MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_REMOTE_WRITE |
				     MLX5_WQE_UMR_CTRL_MKEY_MASK_ACCESS_ATOMIC;
	const uint8_t small_fence = MLX5_WQE_CTRL_CQ_UPDATE | 0x20;
	{
		/* mr_list over MR0 into mkey 0, an MMO out of it, an RDMA write into mkey 1 */
		Seed s;
		W u(s.idx(), MLX5_OPCODE_UMR, s.qpn(), 0, MLX5_WQE_CTRL_CQ_UPDATE,
		    htobe32(s.env.mkey[0]));
		u.umr_ctrl(0x80, 4, layout_mask)
			.mkey_ctx(0, 0, 24)
			.klm(8, s.k(0), s.a(0, 64))
			.klm(16, s.k(0), s.a(0))
			.pad64();
		s.post(u);
		W v(s.idx(), MLX5_OPCODE_UMR, s.qpn(), 0, small_fence, htobe32(s.env.mkey[1]));
		v.umr_ctrl(0x80, 4, layout_mask)
			.mkey_ctx(0, 0x28, 32)
			.klm(16, s.k(1), s.a(1, 512))
			.klm(16, s.k(1), s.a(1, 128))
			.pad64();
		s.post(v);
		W m(s.idx(), MLX5_OPCODE_MMO, s.qpn(), mmo, small_fence);
		m.meta(s.k(1), s.a(1, 8192)).data(20, s.env.mkey[0], (const void *)2);
		m.data(20, s.k(1), s.a(1, 40));
		s.post(m);
		W r(s.idx(), MLX5_OPCODE_RDMA_WRITE, s.qpn());
		r.raddr((const void *)8, s.env.mkey[1]).data(20, s.env.mkey[0], nullptr);
		s.post(r);
		s.write(d, "umr_list");
	}
	{
		/* a stride-0 repeat block (fill pattern), a fill, LOCAL_INV, a use after it */
		Seed s;
		W u(s.idx(), MLX5_OPCODE_UMR, s.qpn(), 0, MLX5_WQE_CTRL_CQ_UPDATE,
		    htobe32(s.env.mkey[0]));
		u.umr_ctrl(0x80, 4, layout_mask)
			.mkey_ctx(0, 0, 8 * 1024)
			.repeat_hdr(8, 1024, 1)
			.repeat_ent(0, 8, s.k(0), s.a(0, 16))
			.pad64();
		s.post(u);
		W m(s.idx(), MLX5_OPCODE_MMO, s.qpn(), mmo, small_fence);
		m.meta(s.k(1), s.a(1, 8192)).data(4096, s.env.mkey[0], (const void *)3);
		m.data(4096, s.k(1), s.a(1, 1024));
		s.post(m);
		W inv(s.idx(), MLX5_OPCODE_UMR, s.qpn(), 0, MLX5_WQE_CTRL_CQ_UPDATE,
		      htobe32(s.env.mkey[0]));
		inv.umr_ctrl(0x98, 0,
			     MLX5_WQE_UMR_CTRL_MKEY_MASK_FREE | MLX5_WQE_UMR_CTRL_MKEY_MASK_MKEY |
				     MLX5_WQE_UMR_CTRL_MKEY_MASK_QPN)
			.mkey_ctx(MLX5_WQE_MKEY_CONTEXT_FREE, 0, 0);
		s.post(inv);
		W m2(s.idx(), MLX5_OPCODE_MMO, s.qpn(), mmo, small_fence);
		m2.meta(s.k(1), s.a(1, 8192)).data(64, s.env.mkey[0], nullptr);
		m2.data(64, s.k(1), s.a(1));
		s.post(m2);
		s.write(d, "umr_fill_inv");
	}
	{
		/*
		 * The signature mkey: a UMR with a BSF (memory domain CRC32, seed 0, 512-byte
		 * blocks, check mask 0xf0) over 516 bytes of MR1, SET_PSV, an MMO of 512 wire
		 * bytes out of it (the 0xa5 fill fails the check: a SIG_ERR CQE), then a
		 * re-arming UMR and a T10-DIF wire-domain BSF with an MMO that inserts.
		 */
		Seed s;
		const uint64_t sig_mask = layout_mask | MLX5_WQE_UMR_CTRL_MKEY_MASK_BSF_ENABLE |
					  MLX5_WQE_UMR_CTRL_MKEY_MASK_SIG_ERR;
		for (int round = 0; round < 2; round++) {
			W u(s.idx(), MLX5_OPCODE_UMR, s.qpn(), 0, round ? small_fence : 0,
			    htobe32(s.env.mkey[0]));
			u.umr_ctrl(0x80, 4, sig_mask);
			mlx5_hw_st_be16(u.b + 16 + 6, MLX5_HW_BSF_OCTOWORDS);
			u.mkey_ctx(0, 0x08, round ? 512 : 516)
				.klm(round ? 512 : 516, s.k(1), s.a(1, 4096))
				.pad64();
			mlx5_hw_st_be32(u.b + 64 + 12, 1u << 30 | 1u << 26); /* BSF on, err cnt */
			struct mlx5_hw_bsf bsf = {};
			bsf.basic.bsf_size_sbs = MLX5_HW_BSF_SIZE_WITH_INLINE
						 << MLX5_HW_BSF_SIZE_SHIFT;
			bsf.basic.raw_data_size = htobe32(0xffffffff);
			if (!round) {
				bsf.basic.check_byte_mask = 0xf0;
				bsf.basic.mem_bs_selector = 1;
				bsf.basic.m_bfs_psv = htobe32((MLX5_HW_BFS_CRC32_BASE |
							       MLX5_HW_BFS_CRC_REPEAT_BIT |
							       MLX5_HW_BFS_CRC_SEED_BIT)
								      << MLX5_HW_BFS_SHIFT |
							      s.env.psv[0]);
			} else {
				bsf.basic.check_byte_mask = 0xff;
				bsf.basic.wire_byte = 1;
				bsf.basic.w_bfs_psv = htobe32(s.env.psv[1]);
				bsf.w_inl.vld_refresh = htobe16(MLX5_HW_BSF_INL_VALID |
								MLX5_HW_BSF_REFRESH_DIF);
				bsf.w_inl.dif_apptag = htobe16(0xabcd);
				bsf.w_inl.dif_reftag = htobe32(0x01234567);
				bsf.w_inl.sig_type = MLX5_HW_T10DIF_CRC;
				bsf.w_inl.rp_inv_seed = MLX5_HW_BSF_REPEAT_BLOCK | MLX5_HW_BSF_SEED;
				bsf.w_inl.dif_inc_ref_guard_check = MLX5_HW_BSF_INC_REFTAG;
				bsf.w_inl.dif_app_bitmask_check = htobe16(0xffff);
			}
			memcpy(u.b + u.off, &bsf, sizeof(bsf));
			u.off += sizeof(bsf);
			s.post(u);
			W p(s.idx(), MLX5_OPCODE_SET_PSV, s.qpn(), 0, small_fence);
			struct mlx5_hw_set_psv_seg psv = {};
			psv.psv_index = htobe32(s.env.psv[round]);
			psv.transient_signature = htobe64(round ? 0xffffabcd01234567ull : 0);
			memcpy(p.b + p.off, &psv, sizeof(psv));
			p.off += sizeof(psv);
			s.post(p);
			W m(s.idx(), MLX5_OPCODE_MMO, s.qpn(), mmo, small_fence);
			uint32_t wire = round ? 520 : 512; /* wire-domain bytes */
			m.meta(s.k(1), s.a(1, 8192)).data(wire, s.env.mkey[0], nullptr);
			m.data(wire, s.k(1), s.a(1, 10240));
			s.post(m);
		}
		s.write(d, "umr_sig");
	}
	/* every seed passes the target's oracle */
	for (const char *n : {"nop", "mmo", "rdma_write", "rdma_read", "send", "atomics",
			      "batch_unsignaled", "stale_key_flush", "foreign_pd", "ring_wrap",
			      "umr_list", "umr_fill_inv", "umr_sig"}) {
		std::string p = d + "/" + n;
		FILE *f = fopen(p.c_str(), "rb");
		std::vector<uint8_t> buf(65536);
		size_t len = f ? fread(buf.data(), 1, buf.size(), f) : 0;
		if (f)
			fclose(f);
		LLVMFuzzerTestOneInput(buf.data(), len);
		printf("%s: %zu bytes\n", n, len);
	}
	return 0;
}
