/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * What the plain-C kernel-side tests (test_kernel_verbs.c, test_kernel_events.c)
 * share: the first device of the list opened as the suite's fixture, an RC QP
 * taken to RTS towards a QP of this port, and polling for one completion. Only
 * Debian's libibverbs is used: nothing of the project's code is in these binaries.
 */
#ifndef KSIDE_VERBS_H
#define KSIDE_VERBS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

static struct ibv_device **g_list;
static struct ibv_context *g_ctx;

static inline int suite_init(void)
{
	int n = 0;

	g_list = ibv_get_device_list(&n);
	if (!g_list || n < 1) {
		fprintf(stderr, "no RDMA device: run this under devtools/sim-rdma\n");
		return 1;
	}
	g_ctx = ibv_open_device(g_list[0]);
	return g_ctx ? 0 : 1;
}

static inline int suite_clean(void)
{
	int ret = g_ctx ? ibv_close_device(g_ctx) : 0;

	ibv_free_device_list(g_list);
	return ret;
}

/** RESET -> INIT -> RTR -> RTS of RC QP @p qp towards QP @p dest_qpn at LID @p dlid. */
static inline int modify_to_rts(struct ibv_qp *qp, uint32_t dest_qpn, uint16_t dlid)
{
	struct ibv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	ret = ibv_modify_qp(qp, &a,
			    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_4096;
	a.dest_qp_num = dest_qpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.dlid = dlid;
	a.ah_attr.port_num = 1;
	ret = ibv_modify_qp(qp, &a,
			    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a,
			     IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/** Poll @p cq until one completion arrives (5 s at most): 1, or 0 when none came. */
static inline int poll_one(struct ibv_cq *cq, struct ibv_wc *wc)
{
	for (long i = 0; i < 5000000; i++) {
		int n = ibv_poll_cq(cq, 1, wc);

		if (n)
			return n;
		if (i > 1000)
			usleep(1);
	}
	return 0;
}

#endif /* KSIDE_VERBS_H */
