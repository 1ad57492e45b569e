// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * link_add_race TYPE NETDEV NAME...
 *
 * Sends one RDMA netlink NEWLINK request per NAME ("rdma link add NAME
 * type TYPE netdev NETDEV"), each from its own thread and socket, all
 * released at once, so that the requests overlap in the kernel as two
 * "rdma link add" processes rarely manage to.  Prints each request's
 * result ("NAME: 0" or "NAME: File exists") and exits 0; the caller
 * counts the devices that resulted.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#define RACE_MAX_REQS	8

struct request {
	pthread_t thread;
	int fd;
	int err;
	const char *name;
	struct {
		struct nlmsghdr nlh;
		char attrs[256];
	} msg;
};

static pthread_barrier_t start;

/* Appends a string attribute to @r's message. */
static void put_str(struct request *r, unsigned short type, const char *str)
{
	struct nlattr *a = (void *)((char *)&r->msg + r->msg.nlh.nlmsg_len);
	size_t len = strlen(str) + 1;

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, str, len);
	r->msg.nlh.nlmsg_len += NLA_ALIGN(a->nla_len);
}

/* The errno the kernel's ACK carries, or -1 when none came. */
static int read_ack(int fd)
{
	char buf[1024];
	struct nlmsghdr *h = (void *)buf;
	ssize_t n = recv(fd, buf, sizeof(buf), 0);

	if (n < (ssize_t)sizeof(*h) || h->nlmsg_type != NLMSG_ERROR)
		return -1;
	return -((struct nlmsgerr *)NLMSG_DATA(h))->error;
}

static void *send_request(void *arg)
{
	struct request *r = arg;

	pthread_barrier_wait(&start);
	if (send(r->fd, &r->msg, r->msg.nlh.nlmsg_len, 0) < 0)
		r->err = errno;
	else
		r->err = read_ack(r->fd);
	return NULL;
}

int main(int argc, char **argv)
{
	struct request req[RACE_MAX_REQS] = {};
	int i, n = argc - 3;

	if (argc < 4 || n > RACE_MAX_REQS) {
		fprintf(stderr, "usage: link_add_race TYPE NETDEV NAME...\n");
		return 2;
	}
	pthread_barrier_init(&start, NULL, n);
	for (i = 0; i < n; i++) {
		struct request *r = &req[i];

		r->name = argv[3 + i];
		r->fd = socket(AF_NETLINK, SOCK_RAW, NETLINK_RDMA);
		if (r->fd < 0) {
			perror("link_add_race: socket");
			return 1;
		}
		r->msg.nlh.nlmsg_len = NLMSG_HDRLEN;
		r->msg.nlh.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
							 RDMA_NLDEV_CMD_NEWLINK);
		r->msg.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
		r->msg.nlh.nlmsg_seq = i + 1;
		put_str(r, RDMA_NLDEV_ATTR_DEV_NAME, r->name);
		put_str(r, RDMA_NLDEV_ATTR_LINK_TYPE, argv[1]);
		put_str(r, RDMA_NLDEV_ATTR_NDEV_NAME, argv[2]);
	}
	for (i = 0; i < n; i++)
		pthread_create(&req[i].thread, NULL, send_request, &req[i]);
	for (i = 0; i < n; i++) {
		pthread_join(req[i].thread, NULL);
		printf("%s: %s\n", req[i].name,
		       req[i].err ? strerror(req[i].err) : "0");
		close(req[i].fd);
	}
	return 0;
}
