/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mlx5_qp_connect_rc() against a scripted seam: the address it builds for a QP
 * connected to its own port (LID on InfiniBand, a RoCE GID on Ethernet), the limits it
 * takes from the port and the device, and its failures. Real RoCE ports exist on no
 * machine here, so the seam is a fake whose answers each test sets.
 */
#include <errno.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "cunit_run.h"

#include "mlx5_qp_state.h"

namespace {

struct Fake {
	struct ibv_port_attr port;
	struct ibv_gid_entry gids[4];
	int ngids;
	int max_rd_atom;
	int modify_calls;
	int reset_calls;
	struct ibv_qp_attr rtr; /* attributes of the RTR transition */
	struct ibv_qp_attr rts;
} fake;

int f_query_port(struct ibv_context *, uint8_t port, struct ibv_port_attr *attr)
{
	if (port != 1)
		return EINVAL;
	*attr = fake.port;
	return 0;
}

int f_query_gid_ex(struct ibv_context *, uint32_t, uint32_t idx, struct ibv_gid_entry *e, uint32_t)
{
	if ((int)idx >= fake.ngids)
		return ENODATA;
	*e = fake.gids[idx];
	return 0;
}

int f_query_device_ex(struct ibv_context *, const struct ibv_query_device_ex_input *,
		      struct ibv_device_attr_ex *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->orig_attr.max_qp_rd_atom = fake.max_rd_atom;
	attr->orig_attr.max_qp_init_rd_atom = fake.max_rd_atom;
	return 0;
}

int f_modify_qp(struct ibv_qp *, struct ibv_qp_attr *attr, int)
{
	fake.modify_calls++;
	if (attr->qp_state == IBV_QPS_RESET)
		fake.reset_calls++;
	if (attr->qp_state == IBV_QPS_RTR)
		fake.rtr = *attr;
	if (attr->qp_state == IBV_QPS_RTS)
		fake.rts = *attr;
	return 0;
}

struct mlx5_glue make_glue()
{
	struct mlx5_glue g;

	memset(&g, 0, sizeof(g));
	g.name = "fake";
	g.query_port = f_query_port;
	g.query_gid_ex = f_query_gid_ex;
	g.query_device_ex = f_query_device_ex;
	g.modify_qp = f_modify_qp;
	return g;
}

const struct mlx5_glue glue = make_glue();
struct ibv_context ctx;
struct ibv_qp qp;

void reset_fake(enum ibv_port_state state, uint8_t link_layer)
{
	memset(&fake, 0, sizeof(fake));
	fake.port.state = state;
	fake.port.link_layer = link_layer;
	fake.port.active_mtu = IBV_MTU_4096;
	fake.port.lid = 0x17;
	fake.port.gid_tbl_len = 4;
	fake.max_rd_atom = 16;
	memset(&qp, 0, sizeof(qp));
	qp.context = &ctx;
	qp.qp_num = 0x123;
}

void add_gid(enum ibv_gid_type type, uint64_t iid)
{
	struct ibv_gid_entry *e = &fake.gids[fake.ngids];

	memset(e, 0, sizeof(*e));
	e->gid_index = (uint32_t)fake.ngids++;
	e->gid_type = type;
	e->gid.global.interface_id = iid;
	if (iid)
		e->gid.global.subnet_prefix = 0xfe80;
}

void test_infiniband(void)
{
	reset_fake(IBV_PORT_ACTIVE, IBV_LINK_LAYER_INFINIBAND);
	CU_ASSERT_EQUAL(mlx5_qp_connect_rc(&glue, &qp, qp.qp_num, 0), 0);
	CU_ASSERT_EQUAL(fake.rtr.dest_qp_num, 0x123u);
	CU_ASSERT_EQUAL(fake.rtr.ah_attr.dlid, 0x17);
	CU_ASSERT_EQUAL(fake.rtr.ah_attr.is_global, 0);
	CU_ASSERT_EQUAL(fake.rtr.ah_attr.port_num, 1);
	CU_ASSERT_EQUAL(fake.rtr.path_mtu, IBV_MTU_4096);
	CU_ASSERT_EQUAL(fake.modify_calls, 3);
}

void test_port_down(void)
{
	reset_fake(IBV_PORT_DOWN, IBV_LINK_LAYER_INFINIBAND);
	CU_ASSERT_EQUAL(mlx5_qp_connect_rc(&glue, &qp, qp.qp_num, 0), -ENETDOWN);
	/* nothing but the reset that leaves the QP where it was */
	CU_ASSERT_EQUAL(fake.modify_calls, fake.reset_calls);
}

void test_roce_prefers_v2(void)
{
	reset_fake(IBV_PORT_ACTIVE, IBV_LINK_LAYER_ETHERNET);
	add_gid(IBV_GID_TYPE_ROCE_V1, 0x1111);
	add_gid(IBV_GID_TYPE_ROCE_V2, 0); /* empty slot */
	add_gid(IBV_GID_TYPE_ROCE_V2, 0x2222);
	add_gid(IBV_GID_TYPE_ROCE_V1, 0x3333);
	fake.port.active_mtu = IBV_MTU_1024; /* 1500-byte netdev */
	fake.max_rd_atom = 4;
	CU_ASSERT_EQUAL(mlx5_qp_connect_rc(&glue, &qp, qp.qp_num, 0), 0);
	CU_ASSERT_EQUAL(fake.rtr.ah_attr.is_global, 1);
	CU_ASSERT_EQUAL(fake.rtr.ah_attr.grh.sgid_index, 2);
	CU_ASSERT_EQUAL(fake.rtr.ah_attr.grh.dgid.global.interface_id, 0x2222u);
	CU_ASSERT_EQUAL(fake.rtr.ah_attr.grh.hop_limit, 64);
	CU_ASSERT_EQUAL(fake.rtr.path_mtu, IBV_MTU_1024);
	CU_ASSERT_EQUAL(fake.rtr.max_dest_rd_atomic, 4);
	CU_ASSERT_EQUAL(fake.rts.max_rd_atomic, 4);
}

void test_roce_v1_only(void)
{
	reset_fake(IBV_PORT_ACTIVE, IBV_LINK_LAYER_ETHERNET);
	add_gid(IBV_GID_TYPE_ROCE_V1, 0x4444);
	CU_ASSERT_EQUAL(mlx5_qp_connect_rc(&glue, &qp, qp.qp_num, 0), 0);
	CU_ASSERT_EQUAL(fake.rtr.ah_attr.grh.sgid_index, 0);
}

void test_roce_without_gid(void)
{
	reset_fake(IBV_PORT_ACTIVE, IBV_LINK_LAYER_ETHERNET);
	add_gid(IBV_GID_TYPE_ROCE_V2, 0);
	CU_ASSERT_EQUAL(mlx5_qp_connect_rc(&glue, &qp, qp.qp_num, 0), -EADDRNOTAVAIL);
	CU_ASSERT_EQUAL(fake.modify_calls, fake.reset_calls);
}

} // namespace

int main(void)
{
	static const struct cunit_test tests[] = {
		{"infiniband", test_infiniband},
		{"port_down", test_port_down},
		{"roce_prefers_v2", test_roce_prefers_v2},
		{"roce_v1_only", test_roce_v1_only},
		{"roce_without_gid", test_roce_without_gid},
	};

	return CUNIT_RUN_SUITE("qp_state", tests);
}
