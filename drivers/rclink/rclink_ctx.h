/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rclink: kernel-bypass contexts of /dev/rclinkN (rclink_ctx.c,
 * Documentation/uapi/rclink-dev.rst "Contexts", Documentation/hw/shim.rst
 * "Contexts").
 */
#ifndef _RCLINK_CTX_H_
#define _RCLINK_CTX_H_

#include <linux/idr.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <linux/rclink_dev.h>

struct rclink_dev;
struct rclink_dmaq;
struct rclink_file;
struct rclink_t1_qp;
struct vm_area_struct;
struct file;
struct rclink_mr_hw;

/* mmap offsets of a context's memory (the doorbell page: + id << 16) */
#define RCLINK_CTX_MMAP_SQ	0x80000000ULL
#define RCLINK_CTX_MMAP_RQ	0x81000000ULL
#define RCLINK_CTX_MMAP_CQ	0x82000000ULL
#define RCLINK_CTX_MMAP_DBREC	0x83000000ULL
#define RCLINK_CTX_MMAP_AREA	0x84000000ULL
#define RCLINK_CTX_MMAP_DB	0x100000000ULL
#define RCLINK_CTX_MMAP_DB_SHIFT	16

/* The contexts of one board's shim (rclink_dmaq.ctx) */
struct rclink_ctx_hw {
	struct rclink_dev *rdev;
	struct device *dev;
	/* DMAQ_CTX_SEL and DMAQ_QP_OWNER_SEL, and what they select */
	struct mutex sel_lock;
	struct ida ida;			/* context numbers 1..num - 1 */
	struct xarray ctxs;		/* number -> context, for the events */
	u32 num;			/* DMAQ_CTX_CAP.num, with context 0 */
	u32 db_shift;
	u32 max_chunks;
	u32 chunk_min;
	u32 chunk_max;
	u32 max_order;			/* DMAQ_CAP.max_order */
	u32 max_msg;
	u32 ost_max;			/* DMAQ_CTX_OST.max of every context */
	u32 db_bar;			/* requested (pci_request_region) */
	phys_addr_t db_phys;		/* the doorbell BAR */
	resource_size_t db_len;
	bool db_wc;			/* its memory type reserved WC */
	struct rclink_mr_hw *mr;	/* registration table (rclink_mr.c) */
};

/* Pages of a context: one block of 2^order pages, mapped for the device */
struct rclink_ctx_mem {
	struct page *page;
	dma_addr_t dma;
	u32 order;
};

enum rclink_ctx_life {
	RCLINK_CTX_LIVE,		/* enabled on the board */
	RCLINK_CTX_DEAD,		/* stopped, disabled, DMA unmapped */
	RCLINK_CTX_LEAKED,		/* did not stop: memory never freed */
};

/* The board's counters of a context (rclink_ctx_counters()) */
enum {
	RCLINK_CTX_CNT_EVENTS,		/* DMAQ_CTX_EVENTS */
	RCLINK_CTX_CNT_RX_NOBUF,	/* DMAQ_CTX_RX_NOBUF */
	RCLINK_CTX_CNT_NOT_OWNER,	/* DMAQ_CTX_NOT_OWNER */
	RCLINK_CTX_CNT_NUM
};

/* The context of an open file (rclink_file.ctx), freed with the file */
struct rclink_ctx {
	struct rclink_ctx_hw *hw;	/* until killed */
	u32 id;
	u32 sq_order;
	u32 rq_order;
	u32 cq_order;
	u32 area_size;
	u32 chunk_shift;
	u32 nchunks;
	struct rclink_ctx_mem sq;
	struct rclink_ctx_mem rq;
	struct rclink_ctx_mem cq;
	struct rclink_ctx_mem rec;	/* the doorbell record's page */
	struct rclink_ctx_mem tbl;	/* the area table (the shim's only) */
	struct rclink_ctx_mem *chunks;
	unsigned long pinned;		/* pages charged to RLIMIT_MEMLOCK */
	struct mm_struct *mm;		/* ... of this mm */
	enum rclink_ctx_life life;	/* under the file's bind_lock/cd rw */

	/* QPs and groups given to the context (owner tables) */
	struct xarray qps;		/* qpn -> rclink_t1_qp */
	struct rclink_t1_qp *groups[RCLINK_T2_GROUPS];

	/* the doorbell page: inserted at fault time, revoked by a zap */
	struct address_space *mapping;
	u64 db_off;
	phys_addr_t db_phys;
	struct mutex db_lock;		/* the fault against the revocation */
	bool db_revoked;

	/*
	 * events, written under @lock (WRITE_ONCE: a sleeper's wake-up
	 * condition reads events, error and dead without it); their pollers
	 * wait on the file's queue (rclink_file.wq), so that an epoll that
	 * took the file before the context existed sees them too
	 */
	wait_queue_head_t *wq;
	spinlock_t lock;		/* the four below */
	u32 events;			/* CQ events not yet reported */
	bool error;			/* CTX_ERR, or dead */
	bool dead;
	u32 cause;
	struct pid *pid;		/* the creating process, for ctx-get */
	/* the board's counters of the number when it was enabled */
	u64 base[RCLINK_CTX_CNT_NUM];
	struct rcu_head rcu;
};

/* A user context, for netlink's ctx-get (rclink_ctx_info()) */
struct rclink_ctx_info {
	u32 id;
	u32 pid;			/* in the caller's PID namespace */
	u32 state;			/* enum rclink_ctx_state */
	u32 cause;			/* in error */
	u64 err_info;
	u32 sq_entries, rq_entries, cq_entries;
	u32 area_size;
	u64 count[RCLINK_CTX_CNT_NUM];	/* since it was created */
	u32 ost_used, ost_max;
	u32 nqps;			/* qpns[0..nqps) */
	u32 *qpns;			/* the caller's, qps_size entries */
	u32 qps_size;
	unsigned long groups;		/* bit n: TYPE2 group n */
};

int rclink_ctx_hw_init(struct rclink_dmaq *dq);
void rclink_ctx_hw_fini(struct rclink_dmaq *dq);
long rclink_ctx_create(struct file *file, struct rclink_file *rf,
		       struct rclink_dmaq *dq, void __user *argp);
long rclink_ctx_bind(struct file *file, struct rclink_file *rf,
		     struct rclink_dev *rdev, void __user *argp);
long rclink_ctx_events(struct rclink_file *rf, void __user *argp);
int rclink_ctx_mmap(struct rclink_file *rf, struct vm_area_struct *vma);
__poll_t rclink_ctx_poll(struct rclink_ctx *ctx);
void rclink_ctx_kill(struct rclink_ctx *ctx);
void rclink_ctx_free(struct rclink_ctx *ctx);
void rclink_ctx_event(struct rclink_dev *rdev, u32 source, u64 info);
int rclink_ctx_info(struct rclink_dev *rdev, u32 *id,
		    struct rclink_ctx_info *ci);
u64 rclink_ctx_db_drop(struct rclink_dev *rdev, bool *absent);

/* rclink_mr.c: the registration table of RDMA WRITE and READ */

/* A registration in use, for netlink's mr-get */
struct rclink_mr_info {
	u32 key;
	u32 ctx;			/* DMAQ_MR_CTRL.ctx */
	u32 qpn;			/* qp_only: the QP it is served on */
	bool qp_only;
	bool user;			/* RCLINK_MR_REG_USER */
	bool busy;			/* the board did not let go */
	u32 access;			/* RCLINK_MR_REMOTE_* */
	u64 offset;			/* in the area; 0 for user memory */
	u64 length;
	u32 pages;			/* 4 KiB pieces of its table, or 0 */
	u32 pid;			/* in the caller's PID namespace */
};

int rclink_mr_hw_init(struct rclink_ctx_hw *hw);
void rclink_mr_hw_fini(struct rclink_ctx_hw *hw);
u32 rclink_mr_max_len(const struct rclink_ctx_hw *hw);
void rclink_mr_ctx_kill(struct rclink_ctx_hw *hw, struct rclink_ctx *ctx);
void rclink_mr_file_kill(struct rclink_ctx_hw *hw, struct rclink_file *rf);
long rclink_mr_reg(struct rclink_file *rf, void __user *argp);
long rclink_mr_dereg(struct rclink_file *rf, void __user *argp);
int rclink_mr_info(struct rclink_dev *rdev, u32 *idx,
		   struct rclink_mr_info *mi);

#endif /* _RCLINK_CTX_H_ */
