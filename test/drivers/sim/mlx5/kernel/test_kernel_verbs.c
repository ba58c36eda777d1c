/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The kernel side through Debian's own libibverbs and libmlx5, as any verbs
 * program uses them: run under devtools/sim-rdma (meson test does), it finds
 * mlx5_0, opens it, queries device, port and GIDs, allocates a PD, registers
 * MRs, and gets the kernel's errnos for bad input. Plain C, linked with
 * -libverbs -lmlx5 only: nothing of the project's code is in this binary.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <linux/capability.h>
#include <infiniband/verbs.h>

#include "cunit_run.h"
#include "kside_verbs.h"

static void test_device_list(void)
{
	CU_ASSERT_STRING_EQUAL(ibv_get_device_name(g_list[0]), "mlx5_0");
	CU_ASSERT_EQUAL(g_list[0]->node_type, IBV_NODE_CA);
	CU_ASSERT_EQUAL(g_list[0]->transport_type, IBV_TRANSPORT_IB);
	CU_ASSERT_EQUAL(be64toh(ibv_get_device_guid(g_list[0])) >> 32, 0x0002c903u);
	/* libmlx5 claimed it (mlx5dv works only on its contexts) */
	CU_ASSERT_TRUE(mlx5dv_is_supported(g_list[0]));
}

static void test_query_device(void)
{
	struct ibv_device_attr_ex a;

	memset(&a, 0, sizeof(a));
	CU_ASSERT_EQUAL_FATAL(ibv_query_device_ex(g_ctx, NULL, &a), 0);
	CU_ASSERT_EQUAL(a.orig_attr.vendor_id, 0x02c9);
	CU_ASSERT_EQUAL(a.orig_attr.vendor_part_id, 4129);
	CU_ASSERT_TRUE(a.orig_attr.max_qp > 0);
	CU_ASSERT_TRUE(a.orig_attr.max_pd > 0);
	CU_ASSERT_EQUAL(a.orig_attr.phys_port_cnt, 1);
	CU_ASSERT_EQUAL(a.orig_attr.node_guid, ibv_get_device_guid(g_list[0]));
	CU_ASSERT_STRING_EQUAL(a.orig_attr.fw_ver, "1.0.0000");
	/* the extended part arrived (response_length covered it) */
	CU_ASSERT_TRUE(a.odp_caps.general_caps & IBV_ODP_SUPPORT);
}

static void test_query_port_gid(void)
{
	struct ibv_port_attr p;
	union ibv_gid gid;
	uint16_t pkey;

	CU_ASSERT_EQUAL_FATAL(ibv_query_port(g_ctx, 1, &p), 0);
	CU_ASSERT_EQUAL(p.state, IBV_PORT_ACTIVE);
	CU_ASSERT_EQUAL(p.link_layer, IBV_LINK_LAYER_INFINIBAND);
	CU_ASSERT_EQUAL(p.lid, 1);
	CU_ASSERT_EQUAL(p.gid_tbl_len, 1);
	CU_ASSERT_EQUAL(ibv_query_gid(g_ctx, 1, 0, &gid), 0);
	CU_ASSERT_EQUAL(be64toh(gid.global.subnet_prefix), 0xfe80000000000000ull);
	CU_ASSERT_EQUAL(gid.global.interface_id, ibv_get_device_guid(g_list[0]));
	CU_ASSERT_EQUAL(ibv_query_pkey(g_ctx, 1, 0, &pkey), 0); /* from the sysfs tree */
	CU_ASSERT_EQUAL(pkey, 0xffff);
	/* port 2 does not exist: EINVAL from the kernel */
	CU_ASSERT_NOT_EQUAL(ibv_query_port(g_ctx, 2, &p), 0);
	CU_ASSERT_NOT_EQUAL(ibv_query_gid(g_ctx, 1, 5, &gid), 0);
}

static void test_pd_mr(void)
{
	size_t len = 1 << 20;
	void *buf = malloc(len);
	struct ibv_pd *pd = ibv_alloc_pd(g_ctx);
	struct ibv_mr *mr, *mr2;

	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	mr = ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	CU_ASSERT_EQUAL(mr->lkey, mr->rkey);
	CU_ASSERT_PTR_EQUAL(mr->addr, buf);
	/* optional access bits pass (CORE_SUPPORT says the kernel takes them) */
	mr2 = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING);
	CU_ASSERT_PTR_NOT_NULL(mr2);
	/* a PD with MRs cannot go */
	CU_ASSERT_EQUAL(ibv_dealloc_pd(pd), EBUSY);
	CU_ASSERT_EQUAL(ibv_dereg_mr(mr), 0);
	if (mr2)
		CU_ASSERT_EQUAL(ibv_dereg_mr(mr2), 0);
	CU_ASSERT_EQUAL(ibv_dealloc_pd(pd), 0);
	free(buf);
}

static void test_mr_refused(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	struct ibv_pd *pd = ibv_alloc_pd(g_ctx);
	uint8_t *area;

	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	area = mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(area != MAP_FAILED);
	CU_ASSERT_EQUAL(munmap(area + pg, pg), 0);
	/* memory the process does not have: EFAULT, as pinning fails */
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_reg_mr(pd, area, 3 * pg, IBV_ACCESS_LOCAL_WRITE));
	CU_ASSERT_EQUAL(errno, EFAULT);
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_reg_mr(pd, area + pg, pg, IBV_ACCESS_LOCAL_WRITE));
	CU_ASSERT_EQUAL(errno, EFAULT);
	/* read-only memory for a writable MR */
	CU_ASSERT_EQUAL(mprotect(area, pg, PROT_READ), 0);
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_reg_mr(pd, area, pg, IBV_ACCESS_LOCAL_WRITE));
	CU_ASSERT_EQUAL(errno, EFAULT);
	/* remote write without local write: EINVAL */
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_reg_mr(pd, area + 2 * pg, pg, IBV_ACCESS_REMOTE_WRITE));
	CU_ASSERT_EQUAL(errno, EINVAL);
	munmap(area, pg);
	munmap(area + 2 * pg, pg);
	CU_ASSERT_EQUAL(ibv_dealloc_pd(pd), 0);
}

static void test_mlx5dv(void)
{
	struct mlx5dv_context dv;
	uint32_t in[4] = {0}, out[1028] = {0};

	memset(&dv, 0, sizeof(dv));
	dv.comp_mask = MLX5DV_CONTEXT_MASK_DCI_STREAMS | MLX5DV_CONTEXT_MASK_WR_MEMCPY_LENGTH;
	CU_ASSERT_EQUAL_FATAL(mlx5dv_query_device(g_ctx, &dv), 0);
	CU_ASSERT_TRUE(dv.flags & MLX5DV_CONTEXT_FLAGS_CQE_V1);
	/* from QUERY_HCA_CAP (dma_mmo_qp, log_dma_mmo_max_size) and the mlx5 driver data */
	CU_ASSERT_EQUAL(dv.max_wr_memcpy_length, 1u << 31);
	CU_ASSERT_EQUAL(dv.dci_streams_caps.max_log_num_concurent, 4);
	/* a DevX command of our own: QUERY_HCA_CAP, general caps, current */
	in[0] = htobe32(0x100 << 16);
	in[1] = htobe32(0x1);
	CU_ASSERT_EQUAL(mlx5dv_devx_general_cmd(g_ctx, in, sizeof(in), out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(out[0] >> 24 & 0xff, 0); /* status */
	/* a capability type the device does not have: the PRM status, mapped to EINVAL */
	in[1] = htobe32(0x7f);
	CU_ASSERT_NOT_EQUAL(mlx5dv_devx_general_cmd(g_ctx, in, sizeof(in), out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(be32toh(out[0]) >> 24, 0x3); /* BAD_PARAM */
}

static void test_async_fd(void)
{
	struct ibv_async_event ev;
	int fl = fcntl(g_ctx->async_fd, F_GETFL);

	/* nothing happened: a non-blocking read finds no event */
	CU_ASSERT_EQUAL_FATAL(fcntl(g_ctx->async_fd, F_SETFL, fl | O_NONBLOCK), 0);
	errno = 0;
	CU_ASSERT_NOT_EQUAL(ibv_get_async_event(g_ctx, &ev), 0);
	CU_ASSERT_EQUAL(errno, EAGAIN);
	CU_ASSERT_EQUAL(fcntl(g_ctx->async_fd, F_SETFL, fl), 0);
}

static void test_second_context(void)
{
	/* a second open is a second context on the same device: its own PDs */
	struct ibv_context *c2 = ibv_open_device(g_list[0]);
	struct ibv_pd *pd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(c2);
	pd = ibv_alloc_pd(c2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	CU_ASSERT_EQUAL(ibv_dealloc_pd(pd), 0);
	CU_ASSERT_EQUAL(ibv_close_device(c2), 0);
}

/* ---- CQ and RC QP: Debian's libmlx5 builds the WQEs, the model executes them --------- */

static void test_rc_loopback(void)
{
	struct ibv_pd *pd = ibv_alloc_pd(g_ctx);
	struct ibv_cq *cq = ibv_create_cq(g_ctx, 16, NULL, NULL, 0);
	struct ibv_qp_init_attr ia;
	struct ibv_qp *a, *b;
	struct ibv_port_attr port;
	struct ibv_qp_attr qa;
	struct ibv_wc wc;
	size_t len = 8192;
	uint8_t *src = aligned_alloc(4096, len), *dst = aligned_alloc(4096, len);
	struct ibv_mr *smr, *dmr;

	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	CU_ASSERT_EQUAL_FATAL(ibv_query_port(g_ctx, 1, &port), 0);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 8;
	ia.cap.max_recv_wr = 8;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	a = ibv_create_qp(pd, &ia);
	b = ibv_create_qp(pd, &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	/* two QPs of one port, connected to each other by LID */
	CU_ASSERT_EQUAL_FATAL(modify_to_rts(a, b->qp_num, port.lid), 0);
	CU_ASSERT_EQUAL_FATAL(modify_to_rts(b, a->qp_num, port.lid), 0);
	memset(&qa, 0, sizeof(qa));
	CU_ASSERT_EQUAL(ibv_query_qp(a, &qa, IBV_QP_STATE | IBV_QP_DEST_QPN, &ia), 0);
	CU_ASSERT_EQUAL(qa.qp_state, IBV_QPS_RTS);
	CU_ASSERT_EQUAL(qa.dest_qp_num, b->qp_num);
	/* an illegal transition is refused and changes nothing */
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTR;
	CU_ASSERT_NOT_EQUAL(ibv_modify_qp(a, &qa, IBV_QP_STATE), 0);

	CU_ASSERT_PTR_NOT_NULL_FATAL(src);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dst);
	for (size_t i = 0; i < len; i++)
		src[i] = (uint8_t)(i * 7 + 3);
	memset(dst, 0, len);
	smr = ibv_reg_mr(pd, src, len, IBV_ACCESS_LOCAL_WRITE);
	dmr = ibv_reg_mr(pd, dst, len,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	CU_ASSERT_PTR_NOT_NULL_FATAL(smr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dmr);

	/* RDMA write a -> b's buffer: the doorbell record is all the device sees */
	struct ibv_sge sge = {(uintptr_t)src, (uint32_t)len, smr->lkey};
	struct ibv_send_wr wr, *bad;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 0x1234;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)dst;
	wr.wr.rdma.rkey = dmr->rkey;
	CU_ASSERT_EQUAL_FATAL(ibv_post_send(a, &wr, &bad), 0);
	CU_ASSERT_EQUAL_FATAL(poll_one(cq, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, 0x1234);
	CU_ASSERT_EQUAL(wc.qp_num, a->qp_num);
	CU_ASSERT_EQUAL(memcmp(src, dst, len), 0);

	/* SEND a -> b into a posted receive */
	struct ibv_sge rsge = {(uintptr_t)dst, 256, dmr->lkey};
	struct ibv_recv_wr rwr, *rbad;
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 0x77;
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	memset(dst, 0, 256);
	CU_ASSERT_EQUAL_FATAL(ibv_post_recv(b, &rwr, &rbad), 0);
	sge.length = 200;
	wr.opcode = IBV_WR_SEND;
	wr.wr_id = 0x99;
	CU_ASSERT_EQUAL_FATAL(ibv_post_send(a, &wr, &bad), 0);
	int got_send = 0, got_recv = 0;
	for (int i = 0; i < 2 && poll_one(cq, &wc) == 1; i++) {
		CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
		if (wc.wr_id == 0x99)
			got_send = 1;
		if (wc.wr_id == 0x77) {
			got_recv = 1;
			CU_ASSERT_EQUAL(wc.byte_len, 200);
			CU_ASSERT_EQUAL(wc.qp_num, b->qp_num);
		}
	}
	CU_ASSERT_TRUE(got_send && got_recv);
	CU_ASSERT_EQUAL(memcmp(src, dst, 200), 0);

	/* a bad rkey: the device completes with an error, libmlx5 reports it */
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.wr.rdma.rkey = dmr->rkey ^ 0x80;
	sge.length = 64;
	CU_ASSERT_EQUAL_FATAL(ibv_post_send(a, &wr, &bad), 0);
	CU_ASSERT_EQUAL_FATAL(poll_one(cq, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_REM_ACCESS_ERR);

	/* a CQ in use cannot go; in order, everything can */
	CU_ASSERT_EQUAL(ibv_destroy_cq(cq), EBUSY);
	CU_ASSERT_EQUAL(ibv_destroy_qp(a), 0);
	CU_ASSERT_EQUAL(ibv_destroy_qp(b), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(cq), 0);
	CU_ASSERT_EQUAL(ibv_dereg_mr(smr), 0);
	CU_ASSERT_EQUAL(ibv_dereg_mr(dmr), 0);
	CU_ASSERT_EQUAL(ibv_dealloc_pd(pd), 0);
	free(src);
	free(dst);
}

/** An RC QP of @p pd with the ibv_wr_* API, RDMA write and mlx5dv's MR list. */
static struct ibv_qp *mkey_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr_ex ia;
	struct mlx5dv_qp_init_attr dv;

	memset(&ia, 0, sizeof(ia));
	memset(&dv, 0, sizeof(dv));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 8;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 2;
	ia.cap.max_recv_sge = 1;
	ia.pd = pd;
	ia.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ia.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE;
	dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS;
	dv.send_ops_flags = MLX5DV_QP_EX_WITH_MR_LIST;
	return mlx5dv_create_qp(g_ctx, &ia, &dv);
}

/**
 * Fill @p mkey with the one entry @p sge by a UMR on @p qp (connected to itself),
 * then RDMA write @p len bytes from offset 0 of the mkey to @p dst: the write's
 * completion status.
 */
/*
 * QPs destroyed right after their doorbells: the device's watcher names each doorbell
 * it notices to the device without the device lock, so the destroy must stop it
 * watching first. ThreadSanitizer (devtools/test.sh runs this suite under it) reports
 * the watcher's read of a freed QP if not; every build checks that nothing is lost.
 */
static void test_destroy_after_doorbell(void)
{
	struct ibv_pd *pd = ibv_alloc_pd(g_ctx);
	struct ibv_cq *cq = ibv_create_cq(g_ctx, 64, NULL, NULL, 0);
	uint8_t *buf = aligned_alloc(4096, 4096);
	struct ibv_qp_init_attr ia;
	struct ibv_port_attr port;
	struct ibv_mr *mr;

	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	CU_ASSERT_EQUAL_FATAL(ibv_query_port(g_ctx, 1, &port), 0);
	mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mr);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	for (int round = 0; round < 50; round++) {
		struct ibv_qp *a = ibv_create_qp(pd, &ia), *b = ibv_create_qp(pd, &ia);
		struct ibv_sge sge = {(uintptr_t)buf, 64, mr->lkey};
		struct ibv_recv_wr rwr, *rbad;

		CU_ASSERT_PTR_NOT_NULL_FATAL(a);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		CU_ASSERT_EQUAL_FATAL(modify_to_rts(a, b->qp_num, port.lid), 0);
		CU_ASSERT_EQUAL_FATAL(modify_to_rts(b, a->qp_num, port.lid), 0);
		memset(&rwr, 0, sizeof(rwr));
		rwr.sg_list = &sge;
		rwr.num_sge = 1;
		CU_ASSERT_EQUAL(ibv_post_recv(a, &rwr, &rbad), 0);
		/* let the watcher notice it on some rounds, race it on others */
		if (round & 1)
			usleep(200);
		CU_ASSERT_EQUAL(ibv_destroy_qp(a), 0);
		CU_ASSERT_EQUAL(ibv_destroy_qp(b), 0);
	}
	/* nothing completes for QPs destroyed with only receives posted */
	struct ibv_wc wc;
	CU_ASSERT_EQUAL(ibv_poll_cq(cq, 1, &wc), 0);
	CU_ASSERT_EQUAL(ibv_dereg_mr(mr), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(cq), 0);
	CU_ASSERT_EQUAL(ibv_dealloc_pd(pd), 0);
	free(buf);
}

static int write_through_mkey(struct ibv_qp *qp, struct ibv_cq *cq, struct mlx5dv_mkey *mkey,
			      struct ibv_sge *sge, struct ibv_mr *dst, uint32_t len)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
	struct mlx5dv_qp_ex *dvqp = mlx5dv_qp_ex_from_ibv_qp_ex(qpx);
	struct ibv_wc wc;

	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE; /* libmlx5: KLMs inline */
	mlx5dv_wr_mr_list(dvqp, mkey, IBV_ACCESS_LOCAL_WRITE, 1, sge);
	if (ibv_wr_complete(qpx) || poll_one(cq, &wc) != 1 || wc.status != IBV_WC_SUCCESS)
		return -1;
	ibv_wr_start(qpx);
	qpx->wr_id = 2;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qpx, dst->rkey, (uintptr_t)dst->addr);
	ibv_wr_set_sge(qpx, mkey->lkey, 0, len);
	if (ibv_wr_complete(qpx) || poll_one(cq, &wc) != 1)
		return -1;
	return wc.status;
}

/*
 * Indirect mkeys through Debian's libmlx5 (DevX CREATE_MKEY + UMR WQEs): one grants
 * what its entries' keys grant, never more. An entry naming a key of another PD or
 * longer than its MR makes every access through the mkey a LOC_PROT error before a
 * byte moves; CREATE_MKEY on another context's PD is the device's BAD_PARAM.
 */
static void test_mkey_refused(void)
{
	struct ibv_port_attr port;
	struct ibv_pd *pd = ibv_alloc_pd(g_ctx), *other = ibv_alloc_pd(g_ctx);
	struct ibv_cq *cq = ibv_create_cq(g_ctx, 16, NULL, NULL, 0);
	size_t len = 4096;
	uint8_t *src = aligned_alloc(4096, len), *dst = aligned_alloc(4096, 2 * len);
	struct mlx5dv_mkey_init_attr ma;
	struct mlx5dv_mkey *mkey;
	struct ibv_mr *smr, *fmr, *dmr;
	struct ibv_qp *qp;

	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(other);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	CU_ASSERT_PTR_NOT_NULL_FATAL(src);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dst);
	CU_ASSERT_EQUAL_FATAL(ibv_query_port(g_ctx, 1, &port), 0);
	memset(src, 0x5a, len);
	smr = ibv_reg_mr(pd, src, len, IBV_ACCESS_LOCAL_WRITE);
	fmr = ibv_reg_mr(other, src, len, IBV_ACCESS_LOCAL_WRITE); /* another PD's key */
	/* twice as long: the too-long entry must fail on the mkey's side, not here */
	dmr = ibv_reg_mr(pd, dst, 2 * len, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(smr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fmr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dmr);
	memset(&ma, 0, sizeof(ma));
	ma.pd = pd;
	ma.create_flags = MLX5DV_MKEY_INIT_ATTR_FLAGS_INDIRECT;
	ma.max_entries = 1;
	mkey = mlx5dv_create_mkey(&ma);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkey);
	CU_ASSERT_EQUAL(mkey->lkey & 0xff, 0);

	struct ibv_sge good = {(uintptr_t)src, (uint32_t)len, smr->lkey};
	struct ibv_sge foreign = {(uintptr_t)src, (uint32_t)len, fmr->lkey};
	struct ibv_sge too_long = {(uintptr_t)src, (uint32_t)len + 4096, smr->lkey};
	struct {
		struct ibv_sge *sge;
		int status;
	} cases[] = {
		{&good, IBV_WC_SUCCESS},
		{&foreign, IBV_WC_LOC_PROT_ERR},
		{&too_long, IBV_WC_LOC_PROT_ERR},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		qp = mkey_qp(pd, cq);
		CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
		CU_ASSERT_EQUAL_FATAL(modify_to_rts(qp, qp->qp_num, port.lid), 0);
		memset(dst, 0, 2 * len);
		/* the too-long entry: 64 bytes past the end of its MR */
		uint32_t n = cases[i].sge == &too_long ? (uint32_t)len + 64 : (uint32_t)len;
		CU_ASSERT_EQUAL(write_through_mkey(qp, cq, mkey, cases[i].sge, dmr, n),
				cases[i].status);
		if (cases[i].status == IBV_WC_SUCCESS) {
			CU_ASSERT_EQUAL(memcmp(src, dst, len), 0);
		} else {
			CU_ASSERT_EQUAL(dst[0], 0); /* nothing moved */
		}
		CU_ASSERT_EQUAL(ibv_destroy_qp(qp), 0);
	}

	/* CREATE_MKEY naming a PD of another context: the device's BAD_PARAM */
	struct ibv_context *ctx2 = ibv_open_device(g_list[0]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx2);
	struct ibv_pd *pd2 = ibv_alloc_pd(ctx2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd2);
	struct mlx5dv_pd dvpd;
	struct mlx5dv_obj obj;
	memset(&obj, 0, sizeof(obj));
	obj.pd.in = pd2;
	obj.pd.out = &dvpd;
	CU_ASSERT_EQUAL_FATAL(mlx5dv_init_obj(&obj, MLX5DV_OBJ_PD), 0);
	uint32_t in[68] = {0}, out[4] = {0}; /* create_mkey_in: 272 bytes */
	in[0] = htobe32(0x200u << 16);
	in[4] = htobe32(1u << 30 | 1u << 15 | 1u << 10 | 2u << 8); /* free umr_en lr KLMs */
	in[5] = htobe32(0xffffffu << 8);                           /* qpn, tag 0 */
	in[7] = htobe32(dvpd.pdn);
	in[17] = htobe32(4); /* translations_octword_size: mkc bit 0x1a0 */
	errno = 0;
	CU_ASSERT_PTR_NULL(mlx5dv_devx_obj_create(g_ctx, in, sizeof(in), out, sizeof(out)));
	CU_ASSERT_EQUAL(errno, EREMOTEIO);
	CU_ASSERT_EQUAL(be32toh(out[0]) >> 24, 0x3); /* BAD_PARAM */
	/* the same on the context's own PD is an mkey */
	struct mlx5dv_devx_obj *o = mlx5dv_devx_obj_create(ctx2, in, sizeof(in), out, sizeof(out));
	CU_ASSERT_PTR_NOT_NULL(o);
	if (o) {
		CU_ASSERT_EQUAL(mlx5dv_devx_obj_destroy(o), 0);
	}
	CU_ASSERT_EQUAL(ibv_dealloc_pd(pd2), 0);
	CU_ASSERT_EQUAL(ibv_close_device(ctx2), 0);

	CU_ASSERT_EQUAL(mlx5dv_destroy_mkey(mkey), 0);
	CU_ASSERT_EQUAL(ibv_dereg_mr(smr), 0);
	CU_ASSERT_EQUAL(ibv_dereg_mr(fmr), 0);
	CU_ASSERT_EQUAL(ibv_dereg_mr(dmr), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(cq), 0);
	CU_ASSERT_EQUAL(ibv_dealloc_pd(pd), 0);
	CU_ASSERT_EQUAL(ibv_dealloc_pd(other), 0);
	free(src);
	free(dst);
}

/** RESET -> INIT -> RTR -> RTS of a UD QP with Q_Key @p qkey. */
static int ud_to_rts(struct ibv_qp *qp, uint32_t qkey)
{
	struct ibv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = qkey;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	ret = ibv_modify_qp(qp, &a, IBV_QP_STATE);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN);
}

static void test_ud_loopback(void)
{
	struct ibv_pd *pd = ibv_alloc_pd(g_ctx);
	struct ibv_cq *scq = ibv_create_cq(g_ctx, 16, NULL, NULL, 0);
	struct ibv_cq *rcq = ibv_create_cq(g_ctx, 16, NULL, NULL, 0);
	struct ibv_qp_init_attr ia;
	struct ibv_port_attr port;
	struct ibv_qp_attr qa;
	struct ibv_wc wc;
	uint8_t *src = aligned_alloc(4096, 4096), *dst = aligned_alloc(4096, 4096);

	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(scq);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rcq);
	CU_ASSERT_PTR_NOT_NULL_FATAL(src);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dst);
	CU_ASSERT_EQUAL_FATAL(ibv_query_port(g_ctx, 1, &port), 0);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = scq;
	ia.recv_cq = rcq;
	ia.qp_type = IBV_QPT_UD;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 5;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	struct ibv_qp *a = ibv_create_qp(pd, &ia), *b = ibv_create_qp(pd, &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	/* UD masks: RESET->INIT without the Q_Key, or with access flags, is EINVAL */
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = 1;
	CU_ASSERT_EQUAL(ibv_modify_qp(a, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT),
			EINVAL);
	CU_ASSERT_EQUAL(ibv_modify_qp(a, &qa,
				      IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY |
					      IBV_QP_ACCESS_FLAGS),
			EINVAL);
	CU_ASSERT_EQUAL_FATAL(ud_to_rts(a, 0x1111), 0);
	CU_ASSERT_EQUAL_FATAL(ud_to_rts(b, 0x2222), 0);
	memset(&qa, 0, sizeof(qa));
	CU_ASSERT_EQUAL(ibv_query_qp(b, &qa, IBV_QP_STATE | IBV_QP_QKEY | IBV_QP_CAP, &ia), 0);
	CU_ASSERT_EQUAL(qa.qp_state, IBV_QPS_RTS);
	CU_ASSERT_EQUAL(qa.qkey, 0x2222);
	CU_ASSERT_EQUAL(qa.cap.max_recv_wr, 8); /* the ring libmlx5 built for 5 */

	/* an IB address handle: no kernel command, libmlx5 builds the vector */
	struct ibv_ah_attr aa;
	memset(&aa, 0, sizeof(aa));
	aa.dlid = port.lid;
	aa.sl = 2;
	aa.port_num = 1;
	struct ibv_ah *ah = ibv_create_ah(pd, &aa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ah);

	struct ibv_mr *smr = ibv_reg_mr(pd, src, 4096, 0);
	struct ibv_mr *dmr = ibv_reg_mr(pd, dst, 4096, IBV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(smr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dmr);
	memset(dst, 0xaa, 4096);
	struct ibv_sge rsge = {(uintptr_t)dst, 300, dmr->lkey};
	struct ibv_recv_wr rwr, *rbad;
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 0x77;
	rwr.sg_list = &rsge;
	rwr.num_sge = 1;
	CU_ASSERT_EQUAL_FATAL(ibv_post_recv(b, &rwr, &rbad), 0);

	struct ibv_sge sge = {(uintptr_t)src, 100, smr->lkey};
	struct ibv_send_wr wr, *bad;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = b->qp_num;
	/* A's own Q_Key is not B's: dropped, and the sender cannot tell */
	wr.wr.ud.remote_qkey = 0x1111;
	memset(src, 1, 100);
	CU_ASSERT_EQUAL_FATAL(ibv_post_send(a, &wr, &bad), 0);
	CU_ASSERT_EQUAL_FATAL(poll_one(scq, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	/* the right one takes the receive that is still posted */
	wr.wr_id = 2;
	wr.wr.ud.remote_qkey = 0x2222;
	sge.length = 200;
	memset(src, 2, 200);
	CU_ASSERT_EQUAL_FATAL(ibv_post_send(a, &wr, &bad), 0);
	CU_ASSERT_EQUAL_FATAL(poll_one(scq, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(poll_one(rcq, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, IBV_WC_SUCCESS);
	CU_ASSERT_EQUAL(wc.wr_id, 0x77);
	CU_ASSERT_EQUAL(wc.opcode, IBV_WC_RECV);
	CU_ASSERT_EQUAL(wc.byte_len, 240); /* the GRH space counts */
	CU_ASSERT_EQUAL(wc.src_qp, a->qp_num);
	CU_ASSERT_EQUAL(wc.slid, port.lid);
	CU_ASSERT_EQUAL(wc.sl, 2);
	CU_ASSERT_FALSE(wc.wc_flags & IBV_WC_GRH);
	CU_ASSERT_EQUAL(dst[0], 0xaa);
	CU_ASSERT_EQUAL(dst[39], 0xaa);
	CU_ASSERT_EQUAL(memcmp(dst + 40, src, 200), 0);
	CU_ASSERT_EQUAL(dst[240], 0xaa);
	CU_ASSERT_EQUAL(ibv_poll_cq(rcq, 1, &wc), 0);

	CU_ASSERT_EQUAL(ibv_destroy_ah(ah), 0);
	CU_ASSERT_EQUAL(ibv_destroy_qp(a), 0);
	CU_ASSERT_EQUAL(ibv_destroy_qp(b), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(scq), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(rcq), 0);
	CU_ASSERT_EQUAL(ibv_dereg_mr(smr), 0);
	CU_ASSERT_EQUAL(ibv_dereg_mr(dmr), 0);
	CU_ASSERT_EQUAL(ibv_dealloc_pd(pd), 0);
	free(src);
	free(dst);
}

/** Set or clear CAP_NET_RAW in the effective set: 0, or -1 if not permitted. */
static int net_raw(int on)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];
	uint32_t bit = 1u << (CAP_NET_RAW % 32);

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) || !(d[CAP_NET_RAW / 32].permitted & bit))
		return -1;
	if (on)
		d[CAP_NET_RAW / 32].effective |= bit;
	else
		d[CAP_NET_RAW / 32].effective &= ~bit;
	return (int)syscall(SYS_capset, &h, d);
}

/*
 * A controlled Q_Key (bit 31 set) is the kernel's to grant: MODIFY_QP setting one
 * needs CAP_NET_RAW (uverbs_cmd.c, modify_qp), else any process could take the
 * datagrams of a privileged QP's Q_Key or send with it.
 */
static void test_ud_controlled_qkey(void)
{
	struct ibv_pd *pd = ibv_alloc_pd(g_ctx);
	struct ibv_cq *cq = ibv_create_cq(g_ctx, 4, NULL, NULL, 0);
	struct ibv_qp_init_attr ia;
	struct ibv_qp *qp;
	int privileged;

	CU_ASSERT_FATAL(pd && cq);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_UD;
	ia.cap.max_send_wr = 1;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
	privileged = net_raw(0) == 0;
	CU_ASSERT_EQUAL(ud_to_rts(qp, 0x80010000u), EPERM);
	CU_ASSERT_EQUAL(ud_to_rts(qp, 0x7fffffffu), 0);
	if (privileged) {
		struct ibv_qp_attr a;

		CU_ASSERT_EQUAL_FATAL(net_raw(1), 0);
		memset(&a, 0, sizeof(a));
		a.qkey = 0x80010000u;
		CU_ASSERT_EQUAL(ibv_modify_qp(qp, &a, IBV_QP_QKEY), 0);
	}
	CU_ASSERT_EQUAL(ibv_destroy_qp(qp), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(cq), 0);
	CU_ASSERT_EQUAL(ibv_dealloc_pd(pd), 0);
}

static void test_qp_refused(void)
{
	struct ibv_pd *pd = ibv_alloc_pd(g_ctx);
	struct ibv_cq *cq = ibv_create_cq(g_ctx, 4, NULL, NULL, 0);
	struct ibv_qp_init_attr ia;

	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	/* not served yet: EOPNOTSUPP, as a kernel without the feature */
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RAW_PACKET;
	ia.cap.max_send_wr = 1;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	errno = 0;
	CU_ASSERT_PTR_NULL(ibv_create_qp(pd, &ia));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	/* a CQ larger than the device's */
	CU_ASSERT_PTR_NULL(ibv_create_cq(g_ctx, 1 << 23, NULL, NULL, 0));
	CU_ASSERT_EQUAL(ibv_destroy_cq(cq), 0);
	CU_ASSERT_EQUAL(ibv_dealloc_pd(pd), 0);
}

/** Post @p n signalled 64-byte RDMA writes on @p qp, wr_id @p first and up. */
static int post_writes(struct ibv_qp *qp, struct ibv_mr *smr, struct ibv_mr *dmr, uint64_t first,
		       int n)
{
	for (int i = 0; i < n; i++) {
		struct ibv_sge sge = {(uintptr_t)smr->addr, 64, smr->lkey};
		struct ibv_send_wr wr, *bad;

		memset(&wr, 0, sizeof(wr));
		wr.wr_id = first + (uint64_t)i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_WRITE;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = (uintptr_t)dmr->addr;
		wr.wr.rdma.rkey = dmr->rkey;
		if (ibv_post_send(qp, &wr, &bad))
			return -1;
	}
	return 0;
}

/** Poll @p n successful completions with wr_id @p first and up, in order: how many. */
static int poll_ids(struct ibv_cq *cq, uint64_t first, int n)
{
	struct ibv_wc wc;
	int i;

	for (i = 0; i < n; i++)
		if (poll_one(cq, &wc) != 1 || wc.status != IBV_WC_SUCCESS ||
		    wc.wr_id != first + (uint64_t)i)
			break;
	return i;
}

/*
 * ibv_resize_cq through Debian's libmlx5 (mlx5_resize_cq): the CQEs not yet polled
 * move to the new ring (libmlx5 copies them up to the device's RESIZE_CQ CQE), the
 * device goes on in the new ring with its ownership bits, through several wraps;
 * an arm after the resize raises its event; shrinking below the unpolled CQEs is
 * EINVAL and changes nothing.
 */
static void test_resize_cq(void)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(g_ctx);
	struct ibv_pd *pd = ibv_alloc_pd(g_ctx);
	struct ibv_cq *cq, *ev_cq;
	struct ibv_qp_init_attr ia;
	struct ibv_port_attr port;
	struct ibv_qp *a, *b;
	uint8_t *buf = aligned_alloc(4096, 8192);
	struct ibv_mr *smr, *dmr;
	uint64_t id = 1;
	void *ev_ctx;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ch);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	cq = ibv_create_cq(g_ctx, 3, NULL, ch, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	CU_ASSERT_EQUAL(cq->cqe, 3);
	CU_ASSERT_EQUAL_FATAL(ibv_query_port(g_ctx, 1, &port), 0);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_RC;
	ia.cap.max_send_wr = 16;
	ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	a = ibv_create_qp(pd, &ia);
	b = ibv_create_qp(pd, &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL_FATAL(modify_to_rts(a, b->qp_num, port.lid), 0);
	CU_ASSERT_EQUAL_FATAL(modify_to_rts(b, a->qp_num, port.lid), 0);
	smr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	dmr = ibv_reg_mr(pd, buf + 4096, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(smr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dmr);

	/* 3 CQEs unpolled in 4 entries, then 16 entries: they move over */
	CU_ASSERT_EQUAL_FATAL(post_writes(a, smr, dmr, id, 3), 0);
	CU_ASSERT_EQUAL_FATAL(ibv_resize_cq(cq, 12), 0);
	CU_ASSERT_EQUAL(cq->cqe, 15);
	CU_ASSERT_EQUAL(poll_ids(cq, id, 3), 3);
	id += 3;
	/* 60 more CQEs: the new ring wraps almost four times */
	for (int r = 0; r < 20; r++, id += 3) {
		CU_ASSERT_EQUAL_FATAL(post_writes(a, smr, dmr, id, 3), 0);
		CU_ASSERT_EQUAL_FATAL(poll_ids(cq, id, 3), 3);
	}
	/* an arm on the new ring: one event for the next CQE */
	CU_ASSERT_EQUAL(ibv_req_notify_cq(cq, 0), 0);
	CU_ASSERT_EQUAL_FATAL(post_writes(a, smr, dmr, id, 1), 0);
	CU_ASSERT_EQUAL(ibv_get_cq_event(ch, &ev_cq, &ev_ctx), 0);
	CU_ASSERT_PTR_EQUAL(ev_cq, cq);
	ibv_ack_cq_events(cq, 1);
	CU_ASSERT_EQUAL(poll_ids(cq, id, 1), 1);
	id += 1;
	/* 10 unpolled do not fit 4 entries: EINVAL, the CQ is as it was */
	CU_ASSERT_EQUAL_FATAL(post_writes(a, smr, dmr, id, 10), 0);
	CU_ASSERT_EQUAL(ibv_resize_cq(cq, 3), EINVAL);
	CU_ASSERT_EQUAL(cq->cqe, 15);
	CU_ASSERT_EQUAL(poll_ids(cq, id, 10), 10);
	id += 10;
	/* 2 unpolled into 4 entries, then traffic through the small ring */
	CU_ASSERT_EQUAL_FATAL(post_writes(a, smr, dmr, id, 2), 0);
	CU_ASSERT_EQUAL(ibv_resize_cq(cq, 3), 0);
	CU_ASSERT_EQUAL(cq->cqe, 3);
	CU_ASSERT_EQUAL(poll_ids(cq, id, 2), 2);
	id += 2;
	for (int r = 0; r < 20; r++, id += 3) {
		CU_ASSERT_EQUAL_FATAL(post_writes(a, smr, dmr, id, 3), 0);
		CU_ASSERT_EQUAL_FATAL(poll_ids(cq, id, 3), 3);
	}
	/* the same size: nothing to do */
	CU_ASSERT_EQUAL(ibv_resize_cq(cq, 2), 0);
	CU_ASSERT_EQUAL(cq->cqe, 3);

	CU_ASSERT_EQUAL(ibv_destroy_qp(a), 0);
	CU_ASSERT_EQUAL(ibv_destroy_qp(b), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(cq), 0);
	CU_ASSERT_EQUAL(ibv_destroy_comp_channel(ch), 0);
	CU_ASSERT_EQUAL(ibv_dereg_mr(smr), 0);
	CU_ASSERT_EQUAL(ibv_dereg_mr(dmr), 0);
	CU_ASSERT_EQUAL(ibv_dealloc_pd(pd), 0);
	free(buf);
}

/** ibv_modify_qp of @p qp to @p state with @p mask (IBV_QP_STATE added), from @p a. */
static int uc_modify(struct ibv_qp *qp, struct ibv_qp_attr *a, enum ibv_qp_state state, int mask)
{
	a->qp_state = state;
	return ibv_modify_qp(qp, a, mask | IBV_QP_STATE);
}

/*
 * A UC QP's MODIFY_QP masks as ib_modify_qp_is_ok (drivers/infiniband/core/verbs.c)
 * has them, per transition: the required ones, the optional ones, nothing of RC's
 * reliability (timeout, retries, RNR timer, RDMA read resources); CUR_STATE only on
 * the transitions to RTS from RTR, RTS, SQD and SQE; RESET -> ERR is no transition.
 * Each refusal is EINVAL and leaves the QP as it was.
 */
static void test_uc_modify_masks(void)
{
	struct ibv_cq *cq = ibv_create_cq(g_ctx, 4, NULL, NULL, 0);
	struct ibv_pd *pd = ibv_alloc_pd(g_ctx);
	struct ibv_qp_init_attr ia;
	struct ibv_port_attr port;
	struct ibv_qp_attr a, qa;
	struct ibv_qp *qp;
	const int init_req = IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
	const int rtr_req = IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;

	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	CU_ASSERT_EQUAL_FATAL(ibv_query_port(g_ctx, 1, &port), 0);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = cq;
	ia.recv_cq = cq;
	ia.qp_type = IBV_QPT_UC;
	ia.cap.max_send_wr = 4;
	ia.cap.max_recv_wr = 4;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = 1;
	qp = ibv_create_qp(pd, &ia);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
	memset(&a, 0, sizeof(a));
	a.port_num = 1;
	a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = qp->qp_num;
	a.ah_attr.dlid = port.lid;
	a.ah_attr.port_num = 1;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.min_rnr_timer = 12;
	/* RESET: no ERR; CUR_STATE nowhere; INIT needs pkey, port and access */
	CU_ASSERT_EQUAL(uc_modify(qp, &a, IBV_QPS_ERR, 0), EINVAL);
	a.cur_qp_state = IBV_QPS_RESET;
	CU_ASSERT_EQUAL(uc_modify(qp, &a, IBV_QPS_INIT, init_req | IBV_QP_CUR_STATE), EINVAL);
	CU_ASSERT_EQUAL(uc_modify(qp, &a, IBV_QPS_INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT), EINVAL);
	CU_ASSERT_EQUAL(uc_modify(qp, &a, IBV_QPS_INIT, init_req | IBV_QP_QKEY), EINVAL);
	CU_ASSERT_EQUAL_FATAL(uc_modify(qp, &a, IBV_QPS_INIT, init_req), 0);
	/* INIT -> RTR: no RC responder resources or RNR timer */
	CU_ASSERT_EQUAL(uc_modify(qp, &a, IBV_QPS_RTR, rtr_req | IBV_QP_MIN_RNR_TIMER), EINVAL);
	CU_ASSERT_EQUAL(uc_modify(qp, &a, IBV_QPS_RTR, rtr_req | IBV_QP_MAX_DEST_RD_ATOMIC),
			EINVAL);
	CU_ASSERT_EQUAL(uc_modify(qp, &a, IBV_QPS_RTR, rtr_req & ~IBV_QP_RQ_PSN), EINVAL);
	a.cur_qp_state = IBV_QPS_INIT;
	CU_ASSERT_EQUAL(uc_modify(qp, &a, IBV_QPS_RTR, rtr_req | IBV_QP_CUR_STATE), EINVAL);
	CU_ASSERT_EQUAL_FATAL(uc_modify(qp, &a, IBV_QPS_RTR, rtr_req | IBV_QP_ACCESS_FLAGS), 0);
	/* RTR -> RTS: the send PSN; no timeout or retries; CUR_STATE allowed */
	CU_ASSERT_EQUAL(uc_modify(qp, &a, IBV_QPS_RTS, IBV_QP_SQ_PSN | IBV_QP_TIMEOUT), EINVAL);
	CU_ASSERT_EQUAL(uc_modify(qp, &a, IBV_QPS_RTS, IBV_QP_SQ_PSN | IBV_QP_RETRY_CNT), EINVAL);
	CU_ASSERT_EQUAL(uc_modify(qp, &a, IBV_QPS_RTS, 0), EINVAL);
	a.cur_qp_state = IBV_QPS_RTR;
	CU_ASSERT_EQUAL_FATAL(uc_modify(qp, &a, IBV_QPS_RTS, IBV_QP_SQ_PSN | IBV_QP_CUR_STATE), 0);
	/* RTS -> RTS: access, CUR_STATE; no RNR timer */
	a.cur_qp_state = IBV_QPS_RTS;
	CU_ASSERT_EQUAL(uc_modify(qp, &a, IBV_QPS_RTS, IBV_QP_MIN_RNR_TIMER), EINVAL);
	CU_ASSERT_EQUAL(uc_modify(qp, &a, IBV_QPS_RTS, IBV_QP_ACCESS_FLAGS | IBV_QP_CUR_STATE), 0);
	/* RTS -> SQD: no CUR_STATE; SQD -> RTS with it */
	CU_ASSERT_EQUAL(uc_modify(qp, &a, IBV_QPS_SQD, IBV_QP_CUR_STATE), EINVAL);
	CU_ASSERT_EQUAL_FATAL(uc_modify(qp, &a, IBV_QPS_SQD, 0), 0);
	a.cur_qp_state = IBV_QPS_SQD;
	CU_ASSERT_EQUAL(uc_modify(qp, &a, IBV_QPS_SQD, IBV_QP_CUR_STATE), EINVAL);
	CU_ASSERT_EQUAL(uc_modify(qp, &a, IBV_QPS_SQD, IBV_QP_TIMEOUT), EINVAL);
	CU_ASSERT_EQUAL(uc_modify(qp, &a, IBV_QPS_SQD, IBV_QP_PKEY_INDEX), 0);
	CU_ASSERT_EQUAL_FATAL(uc_modify(qp, &a, IBV_QPS_RTS, IBV_QP_CUR_STATE), 0);
	/* to ERR: nothing beside the state */
	a.cur_qp_state = IBV_QPS_RTS;
	CU_ASSERT_EQUAL(uc_modify(qp, &a, IBV_QPS_ERR, IBV_QP_CUR_STATE), EINVAL);
	memset(&qa, 0, sizeof(qa));
	CU_ASSERT_EQUAL(ibv_query_qp(qp, &qa, IBV_QP_STATE, &ia), 0);
	CU_ASSERT_EQUAL(qa.qp_state, IBV_QPS_RTS); /* the refusals changed nothing */
	CU_ASSERT_EQUAL(uc_modify(qp, &a, IBV_QPS_ERR, 0), 0);
	CU_ASSERT_EQUAL(ibv_destroy_qp(qp), 0);
	CU_ASSERT_EQUAL(ibv_destroy_cq(cq), 0);
	CU_ASSERT_EQUAL(ibv_dealloc_pd(pd), 0);
}

static const struct cunit_test tests[] = {
	{"device list: mlx5_0, CA, IB, libmlx5", test_device_list},
	{"query device (ex)", test_query_device},
	{"query port, GID, pkey; bad port and index", test_query_port_gid},
	{"PD, MRs, PD busy while MRs live", test_pd_mr},
	{"MR of memory the process lacks: EFAULT; bad access: EINVAL", test_mr_refused},
	{"mlx5dv query device, DevX QUERY_HCA_CAP", test_mlx5dv},
	{"async event fd", test_async_fd},
	{"second context", test_second_context},
	{"RC loopback: RDMA write, send/recv, bad rkey, teardown", test_rc_loopback},
	{"QPs destroyed right after their doorbells", test_destroy_after_doorbell},
	{"UD loopback: masks, Q_Key, address handle, drop, GRH space", test_ud_loopback},
	{"UD: a controlled Q_Key needs CAP_NET_RAW", test_ud_controlled_qkey},
	{"QP and CQ refusals", test_qp_refused},
	{"indirect mkeys: foreign and too-short entries, foreign PD", test_mkey_refused},
	{"resize CQ: unpolled CQEs move, wraps, arm, EINVAL below them", test_resize_cq},
	{"UC modify masks per transition as ib_modify_qp_is_ok", test_uc_modify_masks},
};

int main(void)
{
	static const struct cunit_suite suites[] = {
		CUNIT_SUITE_INIT("kernel side via libibverbs", tests, suite_init, suite_clean),
	};

	return CUNIT_RUN_SUITES(suites);
}
