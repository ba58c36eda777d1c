/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * What the plain-C rdma-cm tests (test_kernel_rdmacm.c, test_kernel_shared_port.c,
 * dc_rdmacm.c) share: waiting for the next event of a channel, and the address of a
 * port of the software fabric (127.0.x.y, x.y its LID; doc/guides/sim/kernel_side.rst).
 * Only Debian's librdmacm is used.
 */
#ifndef KSIDE_CM_H
#define KSIDE_CM_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>

#include <rdma/rdma_cma.h>

/** Wait at most @p ms for the next event of @p ch: its type, or -1. */
static inline int next_event_within(struct rdma_event_channel *ch, int ms,
				    struct rdma_cm_event **ev)
{
	struct pollfd p = {ch->fd, POLLIN, 0};

	if (poll(&p, 1, ms) != 1 || rdma_get_cm_event(ch, ev))
		return -1;
	return (int)(*ev)->event;
}

/** Wait at most 5 s for the next event of @p ch: its type, or -1. */
static inline int next_event(struct rdma_event_channel *ch, struct rdma_cm_event **ev)
{
	return next_event_within(ch, 5000, ev);
}

/** The address of the port with LID @p lid, port @p port (host order). */
static inline struct sockaddr_in addr_of_lid(uint16_t lid, uint16_t port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(0x7f000000u | lid);
	a.sin_port = htons(port);
	return a;
}

#endif /* KSIDE_CM_H */
