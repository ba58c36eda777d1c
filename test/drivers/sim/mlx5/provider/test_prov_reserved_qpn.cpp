/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * mlx5dv_reserved_qpn_alloc / _dealloc on the software HCA through the seam:
 * rdma-core's ReservedQPTest (tests/test_mlx5_rdmacm.py) and libmlx5's block rules
 * (forward only, blocks of 2^granularity QPNs, EINVAL on unknown or double
 * free, EOPNOTSUPP on a device without the object type).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <set>
#include <vector>

#include <CUnit/Basic.h>

#include "cunit_run.h"
#include "glue_test_util.h"

#include "mlx5_glue.h"
#include "mlx5_sim.h"

namespace {

const struct mlx5_glue *g;

int add(const char *name, uint8_t reserved_qpn, uint8_t log_gran)
{
	struct mlx5_sim_device_attr attr;

	mlx5_sim_device_attr_init(&attr);
	attr.exec_mode = MLX5_SIM_EXEC_INLINE;
	attr.reserved_qpn = reserved_qpn;
	attr.log_reserved_qpn_granularity = log_gran;
	return mlx5_sim_device_add(name, &attr);
}

/* tests/test_mlx5_rdmacm.py ReservedQPTest.test_reservered_qpn */
void test_rdma_core_scenario(void)
{
	struct ibv_context *ctx = glue_test_open(g, "sim1");
	std::vector<uint32_t> qpns;
	uint32_t qpn = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	for (int i = 0; i < 1000; i++) {
		CU_ASSERT_EQUAL_FATAL(g->dv_reserved_qpn_alloc(ctx, &qpn), 0);
		qpns.push_back(qpn);
	}
	for (uint32_t q : qpns)
		CU_ASSERT_EQUAL(g->dv_reserved_qpn_dealloc(ctx, q), 0);
	CU_ASSERT_EQUAL_FATAL(g->dv_reserved_qpn_alloc(ctx, &qpn), 0);
	/* forward only: never one handed out before */
	CU_ASSERT(qpn > qpns.back());
	CU_ASSERT_EQUAL(g->dv_reserved_qpn_dealloc(ctx, qpn - 1), EINVAL);
	CU_ASSERT_EQUAL(g->dv_reserved_qpn_dealloc(ctx, qpn), 0);
	CU_ASSERT_EQUAL(g->dv_reserved_qpn_dealloc(ctx, qpn), EINVAL);
	CU_ASSERT_EQUAL(g->close_device(ctx), 0);
}

/* QPNs are distinct, consecutive within a block, never a QP's, never reused */
void test_blocks(void)
{
	struct ibv_context *ctx = glue_test_open(g, "sim1");
	std::set<uint32_t> seen;
	std::vector<uint32_t> qpns;
	uint32_t qpn;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	/* granularity 4: 16 QPNs per block, aligned to 16 */
	for (int i = 0; i < 40; i++) {
		CU_ASSERT_EQUAL_FATAL(g->dv_reserved_qpn_alloc(ctx, &qpn), 0);
		CU_ASSERT(seen.insert(qpn).second);
		if (i % 16 == 0) {
			CU_ASSERT_EQUAL(qpn % 16, 0);
		} else {
			CU_ASSERT_EQUAL(qpn, qpns.back() + 1);
		}
		qpns.push_back(qpn);
	}
	/* a QP created now does not get one of them */
	struct ibv_pd *pd = g->alloc_pd(ctx);
	struct ibv_cq_init_attr_ex ca = {};
	ca.cqe = 16;
	struct ibv_cq_ex *cqx = g->create_cq_ex(ctx, &ca);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cqx);
	struct ibv_cq *cq = ibv_cq_ex_to_cq(cqx);
	struct ibv_qp_init_attr_ex qa = {};
	struct mlx5dv_qp_init_attr dv = {};
	qa.qp_type = IBV_QPT_RC;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD;
	qa.pd = pd;
	qa.send_cq = qa.recv_cq = cq;
	qa.cap.max_send_wr = 4;
	qa.cap.max_send_sge = 1;
	struct ibv_qp *qp = g->dv_create_qp(ctx, &qa, &dv);
	CU_ASSERT_PTR_NOT_NULL_FATAL(qp);
	CU_ASSERT(seen.find(qp->qp_num) == seen.end());
	/* freeing a slot in the middle of the last block does not give it back */
	CU_ASSERT_EQUAL(g->dv_reserved_qpn_dealloc(ctx, qpns[35]), 0);
	CU_ASSERT_EQUAL_FATAL(g->dv_reserved_qpn_alloc(ctx, &qpn), 0);
	CU_ASSERT_EQUAL(qpn, qpns.back() + 1);
	qpns.push_back(qpn);
	/* a fully freed first block is destroyed; its QPNs are unknown afterwards */
	for (int i = 0; i < 16; i++)
		CU_ASSERT_EQUAL(g->dv_reserved_qpn_dealloc(ctx, qpns[i]), 0);
	CU_ASSERT_EQUAL(g->dv_reserved_qpn_dealloc(ctx, qpns[0]), EINVAL);
	/* not a reserved QPN at all */
	CU_ASSERT_EQUAL(g->dv_reserved_qpn_dealloc(ctx, qp->qp_num), EINVAL);
	CU_ASSERT_EQUAL(g->dv_reserved_qpn_dealloc(ctx, 0), EINVAL);
	CU_ASSERT_EQUAL(g->dv_reserved_qpn_dealloc(ctx, 0xffffffffu), EINVAL);
	CU_ASSERT_EQUAL(g->dv_reserved_qpn_alloc(ctx, nullptr), EINVAL);
	CU_ASSERT_EQUAL(g->dv_reserved_qpn_alloc(nullptr, &qpn), EINVAL);
	CU_ASSERT_EQUAL(g->destroy_qp(qp), 0);
	CU_ASSERT_EQUAL(g->destroy_cq(cq), 0);
	CU_ASSERT_EQUAL(g->dealloc_pd(pd), 0);
	/* close releases the device objects of the blocks still held */
	CU_ASSERT_EQUAL(g->close_device(ctx), 0);
}

/* two contexts of one device draw from its one QPN space */
void test_two_contexts(void)
{
	struct ibv_context *a = glue_test_open(g, "sim2");
	struct ibv_context *b = glue_test_open(g, "sim2");
	std::set<uint32_t> seen;
	uint32_t qpn;

	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	for (int i = 0; i < 20; i++) {
		CU_ASSERT_EQUAL_FATAL(g->dv_reserved_qpn_alloc(i % 2 ? a : b, &qpn), 0);
		CU_ASSERT(seen.insert(qpn).second);
	}
	/* granularity 0: one QPN per block, every dealloc destroys its object */
	CU_ASSERT_EQUAL(g->dv_reserved_qpn_dealloc(b, qpn), EINVAL); /* a's (i = 19) */
	CU_ASSERT_EQUAL(g->dv_reserved_qpn_dealloc(a, qpn), 0);
	CU_ASSERT_EQUAL(g->dv_reserved_qpn_dealloc(a, qpn), EINVAL);
	CU_ASSERT_EQUAL(g->close_device(a), 0);
	CU_ASSERT_EQUAL(g->close_device(b), 0);
	/* the objects went with the contexts: a new context starts at the bottom again */
	a = glue_test_open(g, "sim2");
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL(g->dv_reserved_qpn_alloc(a, &qpn), 0);
	CU_ASSERT_EQUAL(qpn, *seen.begin());
	CU_ASSERT_EQUAL(g->close_device(a), 0);
}

/* a device without the RESERVED_QPN object type */
void test_unsupported(void)
{
	struct ibv_context *ctx = glue_test_open(g, "sim3");
	uint32_t qpn = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_EQUAL(g->dv_reserved_qpn_alloc(ctx, &qpn), EOPNOTSUPP);
	CU_ASSERT_EQUAL(g->dv_reserved_qpn_dealloc(ctx, 0x1000), EINVAL);
	CU_ASSERT_EQUAL(g->close_device(ctx), 0);
}

void test_setup(void)
{
	struct mlx5_sim_device_attr attr;

	mlx5_sim_device_attr_init(&attr);
	CU_ASSERT_EQUAL(attr.reserved_qpn, 1);
	CU_ASSERT_EQUAL(attr.log_reserved_qpn_granularity, 4);
	CU_ASSERT_EQUAL_FATAL(add("sim1", 1, 4), 0);
	CU_ASSERT_EQUAL_FATAL(add("sim2", 1, 0), 0);
	CU_ASSERT_EQUAL_FATAL(add("sim3", 0, 4), 0);
	CU_ASSERT_EQUAL(add("sim4", 1, 17), -EINVAL); /* granularity beyond the model */
}

void test_remove(void)
{
	CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim1"), 0);
	CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim2"), 0);
	CU_ASSERT_EQUAL(mlx5_sim_device_remove("sim3"), 0);
}

} // namespace

int main(void)
{
	static const struct cunit_test tests[] = {
		{"devices", test_setup},
		{"test_reservered_qpn (rdma-core)", test_rdma_core_scenario},
		{"blocks, forward only", test_blocks},
		{"two contexts", test_two_contexts},
		{"device without the object type", test_unsupported},
		{"remove", test_remove},
	};

	g = mlx5_glue_sim();
	return CUNIT_RUN_SUITE("prov_reserved_qpn", tests);
}
