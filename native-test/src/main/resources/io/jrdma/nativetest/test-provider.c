/*
 * A test provider: one device context, protection domain, memory region, completion channel, completion queue and
 * queue pair in plain memory, whose data-path ops (ctx->ops.post_send, post_recv, poll_cq, req_notify_cq) are
 * trivial C functions. jrdma's data path runs against it unchanged, so benchmarks can measure what the Java side
 * adds over C on any machine. The tp_bench_* loops are the C baseline: the same calls through verbs.h's inline
 * verbs, as a C application makes them.
 */
#include <infiniband/verbs.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define CHAIN 16

struct tp {
	/*
	 * ibv_get_device_guid reads libibverbs' private fields that follow struct ibv_device in its struct
	 * verbs_device; zeroed, they say "no sysfs entry" and the GUID reads 0.
	 */
	union {
		struct ibv_device device;
		char room[sizeof(struct ibv_device) + 256];
	} dev;
	struct ibv_context context;
	struct ibv_pd pd;
	struct ibv_mr mr;
	struct ibv_comp_channel channel;
	struct ibv_cq cq;
	struct ibv_qp qp;
	/* What every polled completion looks like (wr_id counts up). */
	struct ibv_wc completion;
	/* What the ops saw: requests posted, completions handed out, arms, bytes in posted scatter/gather lists. */
	uint64_t sends, recvs, polled, notifies, bytes, last_id;
	/* The C baseline's own requests over the region: one send, one receive, a chain of CHAIN sends. */
	struct ibv_sge sge;
	struct ibv_send_wr send;
	struct ibv_recv_wr recv;
	struct ibv_send_wr chain[CHAIN];
	struct ibv_wc wc[CHAIN];
	char memory[4096];
};

static struct tp *of(struct ibv_context *context)
{
	return (struct tp *)((char *)context - offsetof(struct tp, context));
}

static int post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	struct tp *tp = of(qp->context);

	for (; wr; wr = wr->next) {
		for (int i = 0; i < wr->num_sge; i++)
			tp->bytes += wr->sg_list[i].length;
		tp->last_id = wr->wr_id;
		tp->sends++;
	}
	return 0;
}

static int post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	struct tp *tp = of(qp->context);

	for (; wr; wr = wr->next) {
		for (int i = 0; i < wr->num_sge; i++)
			tp->bytes += wr->sg_list[i].length;
		tp->last_id = wr->wr_id;
		tp->recvs++;
	}
	return 0;
}

static int poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct tp *tp = of(cq->context);

	for (int i = 0; i < n; i++) {
		wc[i] = tp->completion;
		wc[i].wr_id = tp->polled++;
	}
	return n;
}

static int req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	of(cq->context)->notifies++;
	return 0;
}

struct tp *tp_create(void)
{
	struct tp *tp = calloc(1, sizeof(*tp));

	if (!tp)
		return NULL;
	tp->dev.device.node_type = IBV_NODE_CA;
	tp->dev.device.transport_type = IBV_TRANSPORT_IB;
	strcpy(tp->dev.device.name, "test0");

	struct ibv_context *ctx = &tp->context;
	ctx->device = &tp->dev.device;
	ctx->ops.post_send = post_send;
	ctx->ops.post_recv = post_recv;
	ctx->ops.poll_cq = poll_cq;
	ctx->ops.req_notify_cq = req_notify_cq;
	ctx->cmd_fd = -1;
	ctx->async_fd = eventfd(0, 0);
	ctx->num_comp_vectors = 1;

	tp->pd.context = ctx;
	tp->pd.handle = 1;
	tp->mr.context = ctx;
	tp->mr.pd = &tp->pd;
	tp->mr.addr = tp->memory;
	tp->mr.length = sizeof(tp->memory);
	tp->mr.lkey = 0x1234;
	tp->mr.rkey = 0x5678;
	tp->channel.context = ctx;
	tp->channel.fd = eventfd(0, 0);
	tp->cq.context = ctx;
	tp->cq.channel = &tp->channel;
	tp->cq.cqe = 256;
	tp->cq.handle = 1;
	tp->completion.status = IBV_WC_SUCCESS;
	tp->completion.opcode = IBV_WC_SEND;
	tp->completion.byte_len = 64;
	tp->completion.qp_num = 0x11;

	tp->sge = (struct ibv_sge){ .addr = (uintptr_t)tp->memory, .length = 64, .lkey = tp->mr.lkey };
	tp->send = (struct ibv_send_wr){ .wr_id = 1, .sg_list = &tp->sge, .num_sge = 1, .opcode = IBV_WR_SEND,
					 .send_flags = IBV_SEND_SIGNALED };
	tp->recv = (struct ibv_recv_wr){ .wr_id = 1, .sg_list = &tp->sge, .num_sge = 1 };
	for (int i = 0; i < CHAIN; i++) {
		tp->chain[i] = tp->send;
		tp->chain[i].wr_id = i;
		tp->chain[i].next = i + 1 < CHAIN ? &tp->chain[i + 1] : NULL;
	}
	return tp;
}

/* Fills the queue pair from a struct ibv_qp_init_attr as ibv_create_qp would; the capabilities stay as asked. */
struct ibv_qp *tp_create_qp(struct tp *tp, struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp *qp = &tp->qp;

	qp->context = pd->context;
	qp->pd = pd;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->qp_type = attr->qp_type;
	qp->qp_num = 0x11;
	qp->handle = 1;
	qp->state = IBV_QPS_RESET;
	return qp;
}

void tp_destroy(struct tp *tp)
{
	close(tp->context.async_fd);
	close(tp->channel.fd);
	free(tp);
}

struct ibv_context *tp_context(struct tp *tp) { return &tp->context; }
struct ibv_pd *tp_pd(struct tp *tp) { return &tp->pd; }
struct ibv_mr *tp_mr(struct tp *tp) { return &tp->mr; }
void *tp_memory(struct tp *tp) { return tp->memory; }
long tp_memory_size(void) { return sizeof(((struct tp *)0)->memory); }
struct ibv_comp_channel *tp_channel(struct tp *tp) { return &tp->channel; }
struct ibv_cq *tp_cq(struct tp *tp) { return &tp->cq; }
struct ibv_qp *tp_qp(struct tp *tp) { return &tp->qp; }
struct ibv_send_wr *tp_send_wr(struct tp *tp) { return &tp->send; }
uint64_t tp_sends(struct tp *tp) { return tp->sends; }
uint64_t tp_recvs(struct tp *tp) { return tp->recvs; }
uint64_t tp_polled(struct tp *tp) { return tp->polled; }
uint64_t tp_notifies(struct tp *tp) { return tp->notifies; }
uint64_t tp_bytes(struct tp *tp) { return tp->bytes; }
uint64_t tp_last_id(struct tp *tp) { return tp->last_id; }

/* The C baseline: n calls each, as an application makes them; returns the first failure or 0. */

int tp_bench_post_send(struct tp *tp, long n)
{
	struct ibv_send_wr *bad;

	for (long i = 0; i < n; i++) {
		int rc = ibv_post_send(&tp->qp, &tp->send, &bad);
		if (rc)
			return rc;
	}
	return 0;
}

int tp_bench_post_send_chain(struct tp *tp, long n)
{
	struct ibv_send_wr *bad;

	for (long i = 0; i < n; i++) {
		int rc = ibv_post_send(&tp->qp, tp->chain, &bad);
		if (rc)
			return rc;
	}
	return 0;
}

int tp_bench_post_recv(struct tp *tp, long n)
{
	struct ibv_recv_wr *bad;

	for (long i = 0; i < n; i++) {
		int rc = ibv_post_recv(&tp->qp, &tp->recv, &bad);
		if (rc)
			return rc;
	}
	return 0;
}

/* Polls batch completions n times and reads each one's id and status, as a consumer would; returns the id sum. */
uint64_t tp_bench_poll(struct tp *tp, int batch, long n)
{
	uint64_t sum = 0;

	for (long i = 0; i < n; i++) {
		int got = ibv_poll_cq(&tp->cq, batch, tp->wc);
		for (int j = 0; j < got; j++) {
			if (tp->wc[j].status != IBV_WC_SUCCESS)
				return 0;
			sum += tp->wc[j].wr_id;
		}
	}
	return sum;
}

int tp_bench_req_notify(struct tp *tp, long n)
{
	for (long i = 0; i < n; i++) {
		int rc = ibv_req_notify_cq(&tp->cq, 0);
		if (rc)
			return rc;
	}
	return 0;
}
