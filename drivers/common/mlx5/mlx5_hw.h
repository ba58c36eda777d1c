/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * mlx5 hardware layouts: the one header that describes WQE and CQE bytes.
 *
 * The public layouts come from rdma-core's <infiniband/mlx5dv.h> (the types the
 * real hardware path uses); this header pins their sizes and adds the layouts
 * libmlx5 keeps private (MMO metadata, SET_PSV, BSF, SIG_ERR CQE). Every
 * multi-byte field is big-endian in memory. Both the software HCA (which
 * executes these bytes) and the PMD (which builds them) include this header.
 */
#ifndef MLX5_HW_H
#define MLX5_HW_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- sizes of rdma-core's public layouts (a changed header must not go unnoticed) ---- */
static_assert(sizeof(struct mlx5_wqe_ctrl_seg) == 16, "ctrl segment");
static_assert(sizeof(struct mlx5_wqe_data_seg) == 16, "data segment");
static_assert(sizeof(struct mlx5_wqe_raddr_seg) == 16, "raddr segment");
static_assert(sizeof(struct mlx5_wqe_atomic_seg) == 16, "atomic segment");
static_assert(sizeof(struct mlx5_wqe_av) == 48, "address vector");
static_assert(sizeof(struct mlx5_wqe_inl_data_seg) == 4, "inline header");
static_assert(sizeof(struct mlx5_wqe_umr_ctrl_seg) == 48, "UMR ctrl segment");
static_assert(sizeof(struct mlx5_wqe_umr_klm_seg) == 16, "KLM entry");
static_assert(sizeof(struct mlx5_wqe_umr_repeat_ent_seg) == 16, "repeat entry");
static_assert(sizeof(struct mlx5_wqe_mkey_context_seg) == 64, "mkey context");
static_assert(sizeof(struct mlx5_cqe64) == 64, "CQE");
static_assert(sizeof(struct mlx5_err_cqe) == 64, "error CQE");
static_assert(offsetof(struct mlx5_cqe64, byte_cnt) == 44, "CQE byte_cnt");
static_assert(offsetof(struct mlx5_cqe64, sop_drop_qpn) == 56, "CQE sop_drop_qpn");
static_assert(offsetof(struct mlx5_cqe64, wqe_counter) == 60, "CQE wqe_counter");
static_assert(offsetof(struct mlx5_cqe64, op_own) == 63, "CQE op_own");
static_assert(offsetof(struct mlx5_err_cqe, vendor_err_synd) == 54, "err CQE vendor");
static_assert(offsetof(struct mlx5_err_cqe, syndrome) == 55, "err CQE syndrome");

/* ---- constants libmlx5 keeps private ---- */
enum {
	MLX5_HW_DS_BYTES = 16,               /**< one "DS" (octoword) */
	MLX5_HW_WQE_MAX_DS = 0x3f,           /**< ds is a 6-bit field */
	MLX5_HW_OPC_MOD_MMO_DMA = 0x1,       /**< opmod of a memcpy MMO WQE */
	MLX5_HW_DMA_MMO_MAX_SIZE = 1u << 31, /**< byte_count 0 in an MMO data segment */
	MLX5_HW_FM_MASK = 0xe0,              /**< fence mode bits of fm_ce_se */
	MLX5_HW_CE_MASK = 0x0c,              /**< completion-enable bits of fm_ce_se */
	MLX5_HW_OPAQUE_BUF_LEN = 64,         /**< per-PD MMO opaque buffer */
	MLX5_HW_CQE_OPCODE_SHIFT = 4,
	MLX5_HW_BF_OFFSET = 0x800,         /**< first BlueFlame register in a UAR page */
	MLX5_HW_CQE_INVALID_OP_OWN = 0xf0, /**< op_own of a never-written CQE */
	MLX5_HW_UMR_REPEAT_OP = 0x400,     /**< op of a UMR repeat-block header */
	MLX5_HW_UMR_HDR_DS = 8,            /**< ctrl + UMR ctrl + mkey context, in DS */
};

/** Signature-error CQE syndromes (mlx5_sigerr_cqe.syndrome). */
enum {
	MLX5_HW_SIGERR_REFTAG = 1u << 11,
	MLX5_HW_SIGERR_APPTAG = 1u << 12,
	MLX5_HW_SIGERR_GUARD = 1u << 13,
};

/** Signature BSF encodings (libmlx5 wqe.h): basic section, block format selectors, inline section.
 */
enum {
	MLX5_HW_BSF_SIZE_WITH_INLINE = 2, /**< bsf_size_sbs bits 7:6: basic + inline sections */
	MLX5_HW_BSF_SIZE_SIG_AND_CRYPTO = 3,
	MLX5_HW_BSF_SIZE_SHIFT = 6,
	MLX5_HW_BSF_SBS_SHIFT = 4, /**< same block structure in both domains */
	MLX5_HW_BFS_CRC32_BASE = 0x20,
	MLX5_HW_BFS_CRC32C_BASE = 0x40,
	MLX5_HW_BFS_CRC64_XP10_BASE = 0x50,
	MLX5_HW_BFS_CRC_REPEAT_BIT = 0x2,
	MLX5_HW_BFS_CRC_SEED_BIT = 0x1, /**< set when the seed is 0 */
	MLX5_HW_BFS_SHIFT = 24,
	MLX5_HW_BSF_PSV_INDEX_MASK = 0xffffff,
	MLX5_HW_BSF_INL_VALID = 1 << 15,
	MLX5_HW_BSF_REFRESH_DIF = 1 << 14,
	MLX5_HW_BSF_REPEAT_BLOCK = 1 << 7,
	MLX5_HW_BSF_INC_REFTAG = 1 << 6,
	MLX5_HW_BSF_SEED = 1 << 3, /**< T10-DIF guard seed 0xffff */
	MLX5_HW_BSF_APPTAG_ESCAPE = 0x1,
	MLX5_HW_BSF_APPREF_ESCAPE = 0x2,
	MLX5_HW_T10DIF_CRC = 0x1,  /**< inline sig_type: CRC16 guard */
	MLX5_HW_T10DIF_IPCS = 0x2, /**< inline sig_type: IP-checksum guard */
	MLX5_HW_BSF_OCTOWORDS = 4, /**< a signature BSF is 64 bytes */
};

/** Signature-error CQE sig_type / domain values. */
enum {
	MLX5_HW_SIGERR_SIG_TYPE_BLOCK = 0,
	MLX5_HW_SIGERR_DOMAIN_WIRE = 0,
	MLX5_HW_SIGERR_DOMAIN_MEMORY = 1,
};

/** QPC state values of QUERY_QP (qpc.state). */
enum {
	MLX5_HW_QPC_STATE_RST = 0,
	MLX5_HW_QPC_STATE_INIT = 1,
	MLX5_HW_QPC_STATE_RTR = 2,
	MLX5_HW_QPC_STATE_RTS = 3,
	MLX5_HW_QPC_STATE_SQER = 4,
	MLX5_HW_QPC_STATE_SQDRAINED = 5,
	MLX5_HW_QPC_STATE_ERR = 6,
};

/* ---- private layouts ---- */

/** MMO metadata segment (second octoword of a memcpy MMO WQE). */
struct mlx5_hw_mmo_meta_seg {
	uint32_t mmo_control_31_0; /**< BE32, 0 for DMA */
	uint32_t local_key;        /**< BE32, lkey of the opaque buffer */
	uint64_t local_address;    /**< BE64, VA of the opaque buffer */
};
static_assert(sizeof(struct mlx5_hw_mmo_meta_seg) == 16, "MMO metadata");

/** A whole memcpy MMO WQE: exactly one WQEBB, ds = 4. */
struct mlx5_hw_mmo_wqe {
	struct mlx5_wqe_ctrl_seg ctrl;
	struct mlx5_hw_mmo_meta_seg meta;
	struct mlx5_wqe_data_seg src;
	struct mlx5_wqe_data_seg dst;
};
static_assert(sizeof(struct mlx5_hw_mmo_wqe) == MLX5_SEND_WQE_BB, "MMO WQE");

/** SET_PSV segment. */
struct mlx5_hw_set_psv_seg {
	uint32_t psv_index; /**< BE32 */
	uint16_t syndrome;  /**< BE16 */
	uint8_t rsvd[2];
	uint64_t transient_signature; /**< BE64 */
} __attribute__((packed));
static_assert(sizeof(struct mlx5_hw_set_psv_seg) == 16, "SET_PSV segment");

/** Basic section of a signature BSF. */
struct mlx5_hw_bsf_basic {
	uint8_t bsf_size_sbs;
	uint8_t check_byte_mask;
	uint8_t wire_byte; /**< copy_byte_mask with SBS, wire bs_selector otherwise */
	uint8_t mem_bs_selector;
	uint32_t raw_data_size; /**< BE32 */
	uint32_t w_bfs_psv;     /**< BE32 */
	uint32_t m_bfs_psv;     /**< BE32 */
};
static_assert(sizeof(struct mlx5_hw_bsf_basic) == 16, "BSF basic");

/** Inline (T10-DIF) section of a signature BSF. */
struct mlx5_hw_bsf_inl {
	uint16_t vld_refresh; /**< BE16 */
	uint16_t dif_apptag;  /**< BE16 */
	uint32_t dif_reftag;  /**< BE32 */
	uint8_t sig_type;
	uint8_t rp_inv_seed;
	uint8_t rsvd[3];
	uint8_t dif_inc_ref_guard_check;
	uint16_t dif_app_bitmask_check; /**< BE16 */
} __attribute__((packed));
static_assert(sizeof(struct mlx5_hw_bsf_inl) == 16, "BSF inline");

/** Signature BSF (64 bytes after the translation area of a UMR WQE). */
struct mlx5_hw_bsf {
	struct mlx5_hw_bsf_basic basic;
	uint8_t ext[16];
	struct mlx5_hw_bsf_inl w_inl;
	struct mlx5_hw_bsf_inl m_inl;
};
static_assert(sizeof(struct mlx5_hw_bsf) == 64, "BSF");

/** Signature-error CQE (opcode MLX5_CQE_SIG_ERR). */
struct mlx5_hw_sigerr_cqe {
	uint8_t rsvd0[16];
	uint32_t expected_trans_sig; /**< BE32 */
	uint32_t actual_trans_sig;   /**< BE32 */
	uint32_t expected_ref_tag;   /**< BE32 */
	uint32_t actual_ref_tag;     /**< BE32 */
	uint16_t syndrome;           /**< BE16 */
	uint8_t sig_type;
	uint8_t domain;
	uint32_t mkey;           /**< BE32 */
	uint64_t sig_err_offset; /**< BE64 */
	uint8_t rsvd1[14];
	uint8_t signature;
	uint8_t op_own;
} __attribute__((packed));
static_assert(sizeof(struct mlx5_hw_sigerr_cqe) == 64, "SIG_ERR CQE");

/* ---- field helpers: device byte order, unaligned-safe ---- */

static inline uint32_t mlx5_hw_ld_be32(const void *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return be32toh(v);
}

static inline uint16_t mlx5_hw_ld_be16(const void *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return be16toh(v);
}

static inline uint64_t mlx5_hw_ld_be64(const void *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

static inline void mlx5_hw_st_be32(void *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, sizeof(v));
}

static inline void mlx5_hw_st_be16(void *p, uint16_t v)
{
	v = htobe16(v);
	memcpy(p, &v, sizeof(v));
}

static inline void mlx5_hw_st_be64(void *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, sizeof(v));
}

/** Opcode (bits 7:0) of a ctrl segment's first dword. */
static inline uint8_t mlx5_hw_ctrl_opcode(const struct mlx5_wqe_ctrl_seg *c)
{
	return (uint8_t)(be32toh(c->opmod_idx_opcode) & 0xff);
}

/** WQE index (bits 23:8) of a ctrl segment's first dword. */
static inline uint16_t mlx5_hw_ctrl_index(const struct mlx5_wqe_ctrl_seg *c)
{
	return (uint16_t)((be32toh(c->opmod_idx_opcode) >> 8) & 0xffff);
}

/** Opmod (bits 31:24) of a ctrl segment's first dword. */
static inline uint8_t mlx5_hw_ctrl_opmod(const struct mlx5_wqe_ctrl_seg *c)
{
	return (uint8_t)(be32toh(c->opmod_idx_opcode) >> 24);
}

/** ds (6 bits) of a ctrl segment. */
static inline uint8_t mlx5_hw_ctrl_ds(const struct mlx5_wqe_ctrl_seg *c)
{
	return (uint8_t)(be32toh(c->qpn_ds) & MLX5_HW_WQE_MAX_DS);
}

/** WQEBBs a WQE of @p ds octowords occupies. */
static inline uint32_t mlx5_hw_ds_to_wqebbs(uint32_t ds)
{
	return (ds * MLX5_HW_DS_BYTES + MLX5_SEND_WQE_BB - 1) / MLX5_SEND_WQE_BB;
}

#ifdef __cplusplus
}
#endif

#endif /* MLX5_HW_H */
