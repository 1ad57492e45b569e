/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What lf_cntr and lf_cntr_bench share: one side's setup (fabric,
 * domain, a registered buffer; for verbs MSG endpoints the EQ and the
 * server's passive endpoint, for verbs;ofi_rxm RDM endpoints the AV), an
 * endpoint with its CQ, the EQ's connection events and the clock.
 * Included by each program's one source file.  Each program defines
 * lf_fail(), which reports a failed step its own way (a TAP line, or a
 * comment line and a failure count).
 */
#ifndef LF_COMMON_H
#define LF_COMMON_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#define __printf(a, b)	__attribute__((format(printf, a, b)))
/* How long a connection event may take (ms): libfabric starts slowly under emulation. */
#define LF_EQ_MS	60000

/*
 * What the server hands the client: in fi_accept()'s data (MSG), in a
 * message (RDM).
 */
struct lf_cm_data {
	uint64_t		addr;
	uint64_t		key;
};

static struct fi_info *info;
static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_eq *eq;
static struct fid_pep *pep;
static struct fid_av *av;
static struct fid_mr *mr;
static uint8_t *buf;

static void lf_fail(const char *fmt, ...) __printf(1, 2);

/* A libfabric call that must succeed: lf_fail() when it does not. */
static bool fi_ok(int ret, const char *call)
{
	if (ret)
		lf_fail("%s: %s (%d)", call, fi_strerror(-ret), ret);
	return !ret;
}

static uint64_t lf_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000ull + ts.tv_nsec / 1000;
}

/* The next EQ event, which must be want. */
static bool eq_wait(uint32_t want, struct fi_eq_cm_entry *entry, size_t len)
{
	struct fi_eq_err_entry err;
	uint32_t event = 0;
	ssize_t ret;

	ret = fi_eq_sread(eq, &event, entry, len, LF_EQ_MS, 0);
	if (ret == -FI_EAVAIL) {
		memset(&err, 0, sizeof(err));
		fi_eq_readerr(eq, &err, 0);
		lf_fail("EQ error: %s (prov %d)", fi_strerror(err.err),
			err.prov_errno);
		return false;
	}
	if (ret < 0 || event != want) {
		lf_fail("EQ: event %u, want %u (%zd: %s)", event, want, ret,
			ret < 0 ? fi_strerror((int)-ret) : "");
		return false;
	}
	return true;
}

/* The provider of type's endpoints: verbs itself, or ofi_rxm over it. */
static const char *lf_prov_of(enum fi_ep_type type)
{
	return type == FI_EP_RDM ? "verbs;ofi_rxm" : "verbs";
}

/*
 * fi_getinfo() for type's endpoints (FI_EP_MSG or FI_EP_RDM, see
 * lf_prov_of()) with caps, a send queue of tx_size and threading; NULL
 * when none.  A missing FI_RMA_EVENT is not a failure: the caller asks
 * again without it.
 */
static struct fi_info *lf_get_info(enum fi_ep_type type, const char *addr,
				   const char *port, bool server, uint64_t caps,
				   size_t tx_size, enum fi_threading threading)
{
	struct fi_info *hints, *fi = NULL;
	int ret;

	/*
	 * ofi_rxm sizes its verbs CQ for FI_UNIVERSE_SIZE peers (default
	 * 1024), 256 entries each: more than rxc's and rdma_rxe's 32767
	 * entries, and fi_enable() fails with -FI_EINVAL.  Libfabric reads it
	 * at its first call; these programs have one peer.
	 */
	if (type == FI_EP_RDM)
		setenv("FI_UNIVERSE_SIZE", "64", 0);
	hints = fi_allocinfo();
	if (!hints)
		return NULL;
	hints->ep_attr->type = type;
	hints->caps = caps;
	hints->mode = FI_RX_CQ_DATA;
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR |
				      FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	hints->domain_attr->threading = threading;
	hints->tx_attr->size = tx_size;
	hints->fabric_attr->prov_name = strdup(lf_prov_of(type));
	ret = fi_getinfo(FI_VERSION(1, 20), addr, port, server ? FI_SOURCE : 0,
			 hints, &fi);
	fi_freeinfo(hints);
	if (ret && !((caps & FI_RMA_EVENT) && ret == -FI_ENODATA))
		fi_ok(ret, "fi_getinfo");
	return ret ? NULL : fi;
}

/* The buffer of buf_size, registered for every access. */
static bool lf_reg_buf(size_t buf_size)
{
	buf = aligned_alloc(4096, buf_size);
	if (!buf) {
		lf_fail("aligned_alloc(%zu) failed", buf_size);
		return false;
	}
	return fi_ok(fi_mr_reg(domain, buf, buf_size, FI_SEND | FI_RECV |
			       FI_READ | FI_WRITE | FI_REMOTE_READ |
			       FI_REMOTE_WRITE, 0, 0, 0, &mr, NULL), "fi_mr_reg");
}

/*
 * The connection side of MSG endpoints: the EQ, and on the server a
 * passive endpoint listening.
 */
static bool lf_open_cm(bool server)
{
	struct fi_eq_attr eq_attr = { .wait_obj = FI_WAIT_UNSPEC };

	if (!fi_ok(fi_eq_open(fabric, &eq_attr, &eq, NULL), "fi_eq_open"))
		return false;
	if (!server)
		return true;
	return fi_ok(fi_passive_ep(fabric, info, &pep, NULL), "fi_passive_ep") &&
	       fi_ok(fi_pep_bind(pep, &eq->fid, 0), "fi_pep_bind") &&
	       fi_ok(fi_listen(pep), "fi_listen");
}

/*
 * Fabric, domain and a registered buffer of buf_size for info; then
 * an AV for RDM endpoints (ofi_rxm connects by itself when an address is
 * first used), the EQ and, on the server, a listening passive endpoint
 * for MSG ones.
 */
static bool lf_open(size_t buf_size, bool server)
{
	struct fi_av_attr av_attr = { .type = FI_AV_UNSPEC };

	if (!fi_ok(fi_fabric(info->fabric_attr, &fabric, NULL), "fi_fabric") ||
	    !fi_ok(fi_domain(fabric, info, &domain, NULL), "fi_domain") ||
	    !lf_reg_buf(buf_size))
		return false;
	if (info->ep_attr->type == FI_EP_RDM)
		return fi_ok(fi_av_open(domain, &av_attr, &av, NULL), "fi_av_open");
	return lf_open_cm(server);
}

static void lf_close(void)
{
	if (pep)
		fi_close(&pep->fid);
	if (av)
		fi_close(&av->fid);
	if (mr)
		fi_close(&mr->fid);
	if (domain)
		fi_close(&domain->fid);
	if (eq)
		fi_close(&eq->fid);
	if (fabric)
		fi_close(&fabric->fid);
	fi_freeinfo(info);
	free(buf);
}

/*
 * An endpoint for fi (a connection request's on the server) with a CQ
 * bound for FI_SELECTIVE_COMPLETION, whose wait object is cq_wait, and
 * the EQ (MSG) or the AV (RDM); not yet enabled, so that counters can
 * still be bound.
 */
static bool lf_ep_open(struct fi_info *fi, enum fi_wait_obj cq_wait,
		       struct fid_ep **ep, struct fid_cq **cq)
{
	struct fi_cq_attr cq_attr = { .size = 1024, .format = FI_CQ_FORMAT_CONTEXT,
				      .wait_obj = cq_wait };
	struct fid *cm = fi->ep_attr->type == FI_EP_RDM ? &av->fid : &eq->fid;

	return fi_ok(fi_endpoint(domain, fi, ep, NULL), "fi_endpoint") &&
	       fi_ok(fi_cq_open(domain, &cq_attr, cq, NULL), "fi_cq_open") &&
	       fi_ok(fi_ep_bind(*ep, &(*cq)->fid, FI_TRANSMIT | FI_RECV |
				FI_SELECTIVE_COMPLETION), "fi_ep_bind(cq)") &&
	       fi_ok(fi_ep_bind(*ep, cm, 0), "fi_ep_bind(eq or av)");
}

#endif /* LF_COMMON_H */
