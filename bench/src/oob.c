// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Pair mode's out-of-band channel: one TCP connection over which the two
 * processes swap QP numbers, keys and GIDs, and say when a run is over.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include "bench.h"

int oob_listen(int port)
{
	struct sockaddr_storage sa = {};
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&sa;
	int one = 1, lfd, fd;

	lfd = socket(AF_INET6, SOCK_STREAM, 0);
	if (lfd < 0)
		bench_die("socket: %s", strerror(errno));
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons(port);
	in6->sin6_addr = in6addr_any;
	if (bind(lfd, (struct sockaddr *)in6, sizeof(*in6)) || listen(lfd, 1))
		bench_die("listen on port %d: %s", port, strerror(errno));
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		bench_die("accept: %s", strerror(errno));
	close(lfd);
	return fd;
}

int oob_connect(const char *host, int port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	char service[16];
	int fd = -1, tries, err;

	snprintf(service, sizeof(service), "%d", port);
	err = getaddrinfo(host, service, &hints, &res);
	if (err)
		bench_die("%s: %s", host, gai_strerror(err));
	/* The responder may still be starting: retry for some 30 s. */
	for (tries = 0; fd < 0 && tries < 300; tries++) {
		for (ai = res; ai; ai = ai->ai_next) {
			fd = socket(ai->ai_family, ai->ai_socktype, 0);
			if (fd >= 0 && !connect(fd, ai->ai_addr, ai->ai_addrlen))
				break;
			if (fd >= 0)
				close(fd);
			fd = -1;
		}
		if (fd < 0)
			usleep(100000);
	}
	freeaddrinfo(res);
	if (fd < 0)
		bench_die("cannot reach %s port %d", host, port);
	return fd;
}

static void oob_io(int fd, void *buf, size_t len, bool out)
{
	uint8_t *p = buf;
	ssize_t n;

	while (len) {
		n = out ? write(fd, p, len) : read(fd, p, len);
		if (n <= 0)
			bench_die("out-of-band %s: %s", out ? "write" : "read",
				  n ? strerror(errno) : "peer closed");
		p += n;
		len -= (size_t)n;
	}
}

/* Send @len bytes from @out, then receive @len bytes into @in. */
void oob_swap(int fd, const void *out, void *in, size_t len)
{
	oob_io(fd, (void *)out, len, true);
	oob_io(fd, in, len, false);
}

/*
 * Both sides meet here: each sends @tag and waits for the other's.  The
 * requester calls it before it starts the clock (the responder then has
 * its receives posted) and once it has stopped it.
 */
void oob_sync(int fd, char tag)
{
	char peer;

	oob_swap(fd, &tag, &peer, 1);
	if (peer != tag)
		bench_die("out-of-band: expected '%c', got '%c'", tag, peer);
}

/* Has the peer sent a byte?  Leaves it to be read; never blocks. */
bool oob_ready(int fd)
{
	char c;

	return recv(fd, &c, 1, MSG_DONTWAIT | MSG_PEEK) == 1;
}
