/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rclink: the event ring and the decoding of its records (rclink_events.c).
 *
 * The event and interrupt code call no subsystem above them: what a
 * record or a vector means to TYPE1, TYPE3, the contexts, the self-test or
 * the health reporters goes through struct rclink_evt_ops, whose table the
 * board core (rclink_main.c) puts in rclink_dev.evt_ops at probe.
 */
#ifndef _RCLINK_EVENTS_H_
#define _RCLINK_EVENTS_H_

#include <linux/spinlock.h>
#include <linux/types.h>

struct rclink_dev;

/*
 * The consumers of interrupts and event records, and of what the board
 * says when a user context stops.  All but the last are called from
 * interrupt context (hard irq or the event thread, see each) and none of
 * them sleeps; the ones returning bool say whether the object they name
 * exists (false: the event layer counts a drop).
 */
struct rclink_evt_ops {
	/* vectors (rclink_irq.c), hard irq: an armed self-test interrupt */
	bool (*selftest_irq)(struct rclink_dev *rdev, u64 vec);
	/* INTx, hard irq: has the TYPE1 CQ anything for us? */
	bool (*cq_pending)(struct rclink_dev *rdev);
	/* the TYPE1 CQ's interrupt, irq thread */
	void (*cq_irq)(struct rclink_dev *rdev);
	/* the TYPE3 vector, hard irq: schedule NAPI */
	void (*t3_irq)(struct rclink_dev *rdev);

	/* event records, event thread unless said otherwise */
	void (*t3_event)(struct rclink_dev *rdev);	/* TYPE3 in the ring */
	void (*t3_fault)(struct rclink_dev *rdev, u64 faults);	/* also NAPI */
	void (*qp_fatal)(struct rclink_dev *rdev, u32 qpn);
	void (*link)(struct rclink_dev *rdev);
	bool (*recv_ack)(struct rclink_dev *rdev, u64 info);
	bool (*cc_info)(struct rclink_dev *rdev, u64 info, bool cnp);
	bool (*retry_tmo)(struct rclink_dev *rdev, u32 qpn);
	/* a QP's record for the netlink "events" group */
	void (*qp_notify)(struct rclink_dev *rdev, u32 qpn, u8 cmd);
	/* CTX_CQ, CTX_ERR; hard irq on MSI-X */
	void (*ctx_event)(struct rclink_dev *rdev, u32 source, u64 info);
	/* the ring was full: the shim may have dropped records */
	void (*ring_full)(struct rclink_dev *rdev);

	/*
	 * Process context, may sleep: a stopped user context's QP whose
	 * unacknowledged packets the shim dropped (DMAQ_QP_OWNER.flushed),
	 * read by the data path's kill of the context
	 */
	void (*qp_flushed)(struct rclink_dev *rdev, u32 qpn);
};

/* One event ring record (Documentation/hw/registers.rst, Event records) */
struct rclink_evt_rec {
	__le64 info;
	__le64 meta;
};

#define RCLINK_EVT_RING_ORDER	8

struct rclink_evt_ring {
	struct rclink_evt_rec *recs;
	dma_addr_t dma;
	unsigned int order;
	/*
	 * cons: free running; the irq thread and (MSI-X) the hard handler
	 * consume records under @lock, interrupts off
	 */
	spinlock_t lock;
	u32 cons;
	u32 told;		/* the cons last written to SHIM_EVT_CONS */
	bool fast_full;		/* the hard handler consumed a full ring */
	bool enabled;
};

int rclink_evt_ring_alloc(struct rclink_dev *rdev);
void rclink_evt_ring_free(struct rclink_dev *rdev);
int rclink_evt_ring_enable(struct rclink_dev *rdev);
void rclink_evt_ring_disable(struct rclink_dev *rdev);
bool rclink_evt_pending(struct rclink_dev *rdev);
void rclink_evt_drain(struct rclink_dev *rdev);
bool rclink_t3_causes(struct rclink_dev *rdev);
bool rclink_evt_fast(struct rclink_dev *rdev);

#endif /* _RCLINK_EVENTS_H_ */
