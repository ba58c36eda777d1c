/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Software mlx5 HCA: internal numbering and model limits shared by its objects,
 * the two WQE facts every stage asks (remote opcode, data segment length), and
 * the verdict every check returns.
 */
#ifndef MLX5_SIM_HCA_LIMITS_H
#define MLX5_SIM_HCA_LIMITS_H

#include <stdint.h>

#include "mlx5_hw.h"

namespace mlx5sim {

/** Internal numbering. */
enum {
	HCA_QPN_BASE = 0x100,   /**< first QPN handed out */
	HCA_QPN_END = 1u << 24, /**< QPNs are 24 bits */
	/*
	 * A LID shared by the processes of one port (HcaCaps::lid_member): member m's
	 * QPNs (and DCT numbers, reserved QPNs) lie in [m << 20, (m + 1) << 20), so a
	 * (LID, QPN) names one process. Only for max_qp <= HCA_MEMBER_MAX_QP.
	 */
	HCA_MEMBER_SHIFT = 20,
	HCA_MAX_MEMBERS = 16, /**< processes of one LID: the owner (0) and 15 more */
	HCA_MEMBER_MAX_QP = (1u << 20) - 0x100 - 0x10000,
	HCA_RSV_QPN_MAX_LOG = 16, /**< largest reserved QPN object: 2^16 QPNs */
	HCA_CQN_BASE = 0x40,      /**< first CQN handed out */
	HCA_MAX_GATHER = 64,      /**< spans one side of a WQE can name */
	HCA_MAX_WQE_BYTES = MLX5_HW_WQE_MAX_DS * MLX5_HW_DS_BYTES,
	HCA_MAX_GROUP = 32,           /**< WQEs planned before their data is moved */
	HCA_RQ_MAX_SHIFT = 10,        /**< RQ stride at most 1 KiB = 64 data segments */
	HCA_FLUSH_VENDOR = 0,         /**< vendor syndrome of flush CQEs (UNVERIFIED) */
	HCA_MMO_DS = 4,               /**< ctrl, opaque metadata, source, destination */
	HCA_PASS_GROUPS = 4,          /**< groups (of HCA_MAX_GROUP WQEs) per QP per engine pass */
	HCA_RNR_INFINITE = 7,         /**< rnr_retry value meaning "retry for ever" */
	HCA_MAX_PATTERNS = 4,         /**< repeat-block spans one plan can hold */
	HCA_MAX_PAT_ENT = 64,         /**< entries of one repeat block (a WQE holds at most 55) */
	HCA_MAX_MKEY_DESC = 1u << 16, /**< largest num_desc of create_mkey */
	HCA_DC_AV_BYTES = 48,         /**< DC address vector after a DCI WQE's ctrl */
	HCA_UD_MTU = 4096,            /**< port MTU (query_port's active_mtu): largest datagram */
	HCA_UD_GRH_BYTES = 40,        /**< GRH space at the start of a UD receive buffer */
};

/**
 * Reserved bit of Plan::nsrc: the plan needs exec_special() (UMR, repeat-block
 * spans, remote invalidation). It makes nsrc != 1, so exec_plan()'s one-span test
 * sends such plans to exec_general() without looking at anything else.
 */
constexpr uint32_t HCA_NSRC_SPECIAL = 1u << 31;
/** Span::len bit: the span is a repeat block; Span::p points at its Pattern. */
constexpr uint64_t HCA_SPAN_PATTERN = 1ull << 63;
/** Span::len bit: the span is wire-domain bytes of a signature mkey; Span::p is its SigXfer. */
constexpr uint64_t HCA_SPAN_SIG = 1ull << 62;

/** Opcodes that reach a responder (RC peer or DCT): sends, RDMA, atomics. */
static inline bool hca_remote_opcode(uint8_t op)
{
	return op == MLX5_OPCODE_SEND || op == MLX5_OPCODE_SEND_IMM ||
	       op == MLX5_OPCODE_SEND_INVAL || op == MLX5_OPCODE_RDMA_WRITE ||
	       op == MLX5_OPCODE_RDMA_WRITE_IMM || op == MLX5_OPCODE_RDMA_READ ||
	       op == MLX5_OPCODE_ATOMIC_CS || op == MLX5_OPCODE_ATOMIC_FA;
}

/** IB message size limit, also what a data segment byte_count of 0 means. */
constexpr uint64_t HCA_MAX_MSG = 1ull << 31;

/** Length named by a data segment's byte_count (0 means 2 GiB). */
static inline uint64_t hca_seg_len(uint32_t byte_count)
{
	return byte_count ? byte_count : HCA_MAX_MSG;
}

/** Result of checking or planning: 0 or a CQE syndrome plus vendor syndrome. */
struct Verdict {
	uint8_t syndrome;
	uint8_t vendor;
};

} // namespace mlx5sim

#endif /* MLX5_SIM_HCA_LIMITS_H */
