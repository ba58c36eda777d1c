/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by the tests that drive an HCA through the seam (struct mlx5_glue): a
 * monotonic clock for poll deadlines, opening a device by name, and taking an RC QP
 * through INIT, RTR and RTS with the attributes every such test uses.
 */
#ifndef GLUE_TEST_UTIL_H
#define GLUE_TEST_UTIL_H

#include <stdint.h>
#include <string.h>
#include <time.h>

#include "mlx5_glue.h"

/** Milliseconds of CLOCK_MONOTONIC, for poll deadlines. */
static inline uint64_t glue_test_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/** Open the device called @p name, or NULL when the seam lists none by that name. */
static inline struct ibv_context *glue_test_open(const struct mlx5_glue *g, const char *name)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int n = 0;

	list = g->get_device_list(&n);
	if (!list)
		return NULL;
	for (int i = 0; i < n && !ctx; i++)
		if (!strcmp(g->get_device_name(list[i]), name))
			ctx = g->open_device(list[i]);
	g->free_device_list(list);
	return ctx;
}

/**
 * Move an RC QP to @p state (INIT, RTR or RTS; any other state with no attribute but the
 * state). RTR connects it to @p dest_qpn on port 1; PSNs start at 0; local write, remote
 * write and remote read are allowed.
 */
static inline int glue_test_modify_rc(const struct mlx5_glue *g, struct ibv_qp *qp,
				      enum ibv_qp_state state, uint32_t dest_qpn)
{
	struct ibv_qp_attr a = {};
	int mask = IBV_QP_STATE;

	a.qp_state = state;
	switch (state) {
	case IBV_QPS_INIT:
		a.port_num = 1;
		a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
		break;
	case IBV_QPS_RTR:
		a.path_mtu = IBV_MTU_4096;
		a.dest_qp_num = dest_qpn;
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		a.ah_attr.port_num = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		break;
	case IBV_QPS_RTS:
		a.timeout = 14;
		a.retry_cnt = 7;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			IBV_QP_MAX_QP_RD_ATOMIC;
		break;
	default:
		break;
	}
	return g->modify_qp(qp, &a, mask);
}

#endif /* GLUE_TEST_UTIL_H */
