/*
 * rclink board model: state shared by the TYPE1 transport of the IP
 * (rclink_type1.c) and the shim's queue engine (rclink_dmaq.c) that is its
 * upstream: outstanding slots, per-QP transport and engine state, messages.
 * Documentation/hw/shim.rst, "TYPE1: reliable messages", is the contract.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_RCLINK_TYPE1_H
#define HW_RCLINK_TYPE1_H

#include "rclink_core.h"

#define RCLINK_T1_OST_N         RCLINK_PARAM_TYPE1_OST_N_DEFAULT
#define RCLINK_CNP_BUF_N        8       /* CNP MERGE QPID_Buffer depth */
#define RCLINK_T1_PKT_LEN       RCLINK_PARAM_TYPE1_PKT_LEN_DEFAULT
/* data bytes in a packet after the segment header (1336) */
#define RCLINK_T1_SEG_DATA      (RCLINK_T1_PKT_LEN - RCLINK_SEG_BYTES)
#define RCLINK_T1_PSN_MASK      ((1u << RCLINK_PARAM_EPSN_W_DEFAULT) - 1)
#define RCLINK_T1_PSN_HALF      (1u << (RCLINK_PARAM_EPSN_W_DEFAULT - 1))
/* largest queue: 2^DMAQ_CAP.max_order entries */
#define RCLINK_DMAQ_RING_MAX    4096
#define RCLINK_T1_NIL           (-1)
typedef struct RclinkCtx RclinkCtx;
typedef struct RclinkRdma RclinkRdma;

/* Outstanding slot states (seed 000, TYPE1 发送仲裁); no WAIT_CRD yet */
enum {
    RCLINK_SLOT_EMPTY,
    RCLINK_SLOT_WAIT_GRANT,
    RCLINK_SLOT_WAIT_ACK,
};

/* DMAQ_QPS_* in register order (0x5080 + 8 * index) */
enum {
    RCLINK_QPS_TX_PKTS,
    RCLINK_QPS_TX_BYTES,
    RCLINK_QPS_RX_PKTS,
    RCLINK_QPS_RX_BYTES,
    RCLINK_QPS_RETX_PKTS,
    RCLINK_QPS_NAK_RX,
    RCLINK_QPS_NAK_TX,
    RCLINK_QPS_RNR_RX,
    RCLINK_QPS_RNR_TX,
    RCLINK_QPS_TIMEOUTS,
    RCLINK_QPS_RX_DUP,
    RCLINK_QPS_RX_OOS,
    RCLINK_QPS_ACK_TX,
    RCLINK_QPS_ACK_RX,
    /* DMAQ_QPS_ECN_RX, DMAQ_QPS_CNP_RX: at 0x51b0, 0x51b8 */
    RCLINK_QPS_ECN_RX,
    RCLINK_QPS_CNP_RX,
    RCLINK_QPS_N,
};

/* Per-QP registers the transport reads and updates (columns of qp_val) */
enum {
    RCLINK_QCOL_DEST_IP,
    RCLINK_QCOL_DEST_MAC,
    RCLINK_QCOL_UDP_SRC,
    RCLINK_QCOL_CTRL,
    RCLINK_QCOL_EXPECT_RESP,
    RCLINK_QCOL_TX_LAST,
    RCLINK_QCOL_TX_ACK_SN,
    RCLINK_QCOL_TX_SPEED,
    RCLINK_QCOL_TX_EPSN,
    RCLINK_QCOL_RETRY_CNT,
    RCLINK_QCOL_BTH,
    RCLINK_QCOL_REQ_CHK,
    RCLINK_QCOL_MAX_FW,
    RCLINK_QCOL_CC_CNT,
    RCLINK_QCOL_N,
};

/* What a QP's timer is timing */
enum {
    RCLINK_QP_TIMER_OFF,
    RCLINK_QP_TIMER_RETRY,
    RCLINK_QP_TIMER_RNR,
};

/* One piece (WQE) of a message */
typedef struct RclinkDmaqPiece {
    uint64_t addr;
    uint32_t len;
} RclinkDmaqPiece;

/* A message of the send queue, from its WQEs to its completion */
typedef struct RclinkDmaqMsg {
    QSIMPLEQ_ENTRY(RclinkDmaqMsg) next;   /* the QP's messages, SQ order */
    RclinkCtx *ctx;                       /* the context whose SQ it is of */
    uint32_t qpn;
    uint32_t len;
    uint32_t sq_idx;                      /* SQ index of the last WQE */
    bool fack;
    bool quiet;                           /* SEND: no CQE when it is OK */
    bool mcast;                           /* TYPE2: qpn is the group */
    bool all_submitted;                   /* no more packets will be cut */
    uint8_t status;                       /* RCLINK_CQE_ST_* */
    uint32_t off;                         /* message bytes submitted */
    uint32_t outstanding;                 /* packets holding a slot */
    uint32_t piece, piece_off;            /* cursor of the next packet */
    uint32_t npieces;
    uint8_t *t2_pl;                       /* TYPE2: its packet in the IP */
    uint32_t t2_plen;
    /* RDMA (rclink_rdma.c): RCLINK_SEG_KIND_* of its packets, 0 SEND */
    uint8_t rdma;
    bool internal;                        /* a response of the shim's */
    bool responded;                       /* request: its response came */
    bool decided;                         /* its CQE's status is known */
    uint8_t rstatus;                      /* ... with this status */
    uint16_t tag;
    uint32_t rkey;
    uint64_t raddr;
    bool lkey_en;                         /* local side: registration lkey */
    uint32_t lkey;
    uint32_t npkts;                       /* packets cut */
    bool has_imm, imm_sent;               /* WRITE with immediate data */
    uint32_t imm;
    int64_t deadline_ns;                  /* waiting for its response */
    const uint8_t *data;                  /* READ_RESP: the data read */
    QTAILQ_ENTRY(RclinkDmaqMsg) wait_link;
    RclinkDmaqPiece pieces[];
} RclinkDmaqMsg;

/* A completion waiting for room in the CQ */
typedef struct RclinkDmaqHeld {
    QSIMPLEQ_ENTRY(RclinkDmaqHeld) next;
    uint64_t w[3];
} RclinkDmaqHeld;

/* The engine's receive state of a QP */
typedef struct RclinkDmaqRx {
    bool open;                 /* a message is being received */
    bool buf;                  /* a buffer is taken */
    bool first;                /* ... and it is the message's first */
    uint32_t msg_len, msg_off; /* the message, the next offset expected */
    uint32_t idx;              /* RQ index of the buffer */
    uint64_t addr;
    uint32_t size, fill;
} RclinkDmaqRx;

/* An outstanding slot of the IP */
typedef struct RclinkT1Slot {
    uint8_t state;
    bool fack;
    bool sent;                 /* put on the wire at least once */
    uint16_t qpn;
    uint16_t psn;
    uint16_t len;              /* payload: segment header + data */
    int16_t gprev, gnext;      /* WAIT_GRANT list, in entry order */
    int16_t qnext;             /* the QP's slots (PSN order) or free list */
    uint64_t seq;              /* entry order */
    RclinkDmaqMsg *msg;
    uint8_t payload[RCLINK_T1_PKT_LEN];
} RclinkT1Slot;

typedef struct RclinkT1Qp {
    RclinkCore *c;
    uint32_t qpn;

    /* requester */
    int16_t head, tail;        /* the QP's slots in PSN order */
    uint16_t nslots, nwait_ack;
    bool fatal;
    bool rnr_wait;             /* waiting out an RNR NAK */
    uint8_t timer_mode;
    QEMUTimer timer;           /* retry or RNR timer */
    uint64_t cc_win;           /* the CC window acc_cnt was last brought to */
    uint64_t held_round;       /* arbitration round it was found unable in */
    bool cc_backlog;           /* a slot waited for the rate control */
    bool cc_off;               /* CC_TYPE1_QP_EN_CLR_O given, no SET since */

    /* responder */
    bool gap;                  /* a NAK (or RNR) was sent for this gap */
    bool resp_dup;             /* an ACK is due at once */
    bool resp_nak, resp_rnr;   /* a NAK / RNR NAK is due for resp_psn */
    uint16_t resp_psn;
    bool last_fack;            /* the newest accepted REQ had FACK */
    bool last_ts_en;
    uint16_t last_ts;          /* ... and its timestamp */
    bool in_due, in_merge;
    int64_t merge_deadline_ns;
    QTAILQ_ENTRY(RclinkT1Qp) due_link, merge_link;

    /* CC interface (rclink_cnp.c): bytes sent since the last NOCNP report */
    uint64_t nocnp_bytes;
    bool in_nocnp;
    QTAILQ_ENTRY(RclinkT1Qp) nocnp_link;

    /* queue engine */
    QSIMPLEQ_HEAD(, RclinkDmaqMsg) msgs;
    /*
     * Messages done sending whose CQE waits, in SQ order: behind a WRITE
     * or READ that waits for its response, later messages of the QP
     * complete only after it (rclink_dmaq.c, dmaq_qp_complete()).
     */
    QSIMPLEQ_HEAD(, RclinkDmaqMsg) done;
    /*
     * The engine's copy of CC_TYPE1_QP_EN (false after a CLR), and the
     * messages it set aside meanwhile: park_head and the nparked - 1
     * messages of msgs after it that are not all_submitted.
     */
    bool eng_off;
    uint32_t nparked;
    RclinkDmaqMsg *park_head;
    bool in_ready;
    QTAILQ_ENTRY(RclinkT1Qp) ready_link;
    RclinkDmaqRx rx;
    uint64_t stats[RCLINK_QPS_N];
} RclinkT1Qp;

/* TYPE2: a sender of a group, for its PSN sequence */
typedef struct RclinkT2Src {
    uint64_t sa;               /* MAC_SA of its frames */
    uint16_t next;             /* the PSN expected next */
    bool used;
} RclinkT2Src;

#define RCLINK_T2_SRCS          16      /* senders tracked per group */
/* a sender is told apart by the low bits of its MAC, TYPE1_2_RX_M_SA_O[9:0] */
#define RCLINK_T2_SA_MASK       0x3ffu
/*
 * The id of a TYPE2 packet on a bridged RTL board (rclink_dmaq_t2_accept):
 * what the IP hands the shim beside the data on RX_M, the group of the DA
 * (RCLINK_AFH_T2_GROUPS: none) in bits 3:0, TYPE1_2_RX_M_SA_O in 13:4 and
 * the RH's PSN in 25:14.
 */
#define RCLINK_T2_RXM(g, sa, psn) \
    ((g) | ((sa) & RCLINK_T2_SA_MASK) << 4 | (uint32_t)(psn) << 14)

/*
 * TYPE2 packets the model's IP keeps behind a packet held on RX_M
 * (Documentation/hw/shim.rst, "Stalls are the context's own"); the seed
 * gives no depth for the IP's TYPE2 receive buffer.
 */
#define RCLINK_T2_RX_WAIT       16

typedef struct RclinkT2 {
    uint16_t tx_psn[RCLINK_AFH_T2_GROUPS];
    RclinkT2Src src[RCLINK_AFH_T2_GROUPS][RCLINK_T2_SRCS];
    unsigned src_victim[RCLINK_AFH_T2_GROUPS];
    RclinkDmaqRx rx[RCLINK_AFH_T2_GROUPS];   /* the engine's, per group */
    /* TYPE2 rate: acc_cnt as for a QP, brought to window acc_win */
    uint64_t acc, acc_win;
    /* the MAC's multicast credits (128-byte cells), those it keeps */
    uint32_t crd, crd_held;
    bool wait_crd;             /* the next packet waits for credits */
    /*
     * Packets behind a held one on RX_M (rclink_dmaq_rx_held): they wait
     * in the IP's receive buffer, in order, until RX_M moves again.
     */
    struct {
        uint8_t g;
        uint16_t psn;
        uint16_t len;          /* the message's bytes (SEG and data) */
        uint32_t frame;        /* the frame's bytes, for the drop trace */
        uint8_t pl[RCLINK_PARAM_TYPE2_PKT_LEN_DEFAULT];
    } wait[RCLINK_T2_RX_WAIT];
    unsigned nwait;
} RclinkT2;

/* The engine's state shared by the contexts */
typedef struct RclinkDmaq {
    uint64_t wqe[RCLINK_DMAQ_RING_MAX][2];   /* scratch: a WQE chain */
    /* TYPE2 packets in the IP (TYPE2_OST_N) */
    QSIMPLEQ_HEAD(, RclinkDmaqMsg) t2_ost;
    uint32_t t2_nost;
    uint32_t rr;               /* the user context served first next */
} RclinkDmaq;

typedef struct RclinkDmaqRqe {
    uint64_t addr;
    uint32_t len;
    uint8_t status;            /* OK, or why the buffer cannot be used */
} RclinkDmaqRqe;

/*
 * A context (Documentation/hw/shim.rst, "Contexts"): a set of SQ, RQ and
 * CQ with the engine's state of them.  Context 0's rings are the DMAQ_*
 * registers; a user context's are in ring[][] (base, cfg, prod, cons, the
 * cfg made from DMAQ_CTX_QCFG while it runs).
 */
struct RclinkCtx {
    RclinkCore *c;
    uint32_t id;
    uint64_t ring[3][4];
    RclinkDmaqMsg *cur;        /* message being cut into packets */
    QSIMPLEQ_HEAD(, RclinkDmaqHeld) held;
    uint32_t nheld;
    bool irq_pending;          /* CQEs written since the last interrupt */
    /* RQEs read ahead of RQ_CONS (index mod RCLINK_DMAQ_RING_MAX) */
    uint32_t rq_cached;
    RclinkDmaqRqe *rqe;
    RclinkDmaqMsg *t2_parked;  /* a MCAST read, waiting for TYPE2_OST_N */
    /* QPs whose set-aside messages may go again (CC_TYPE1_QP_EN_SET) */
    QTAILQ_HEAD(, RclinkT1Qp) ready;
    uint32_t nparked;          /* set-aside messages of its QPs */

    /* user contexts: DMAQ_CTX_* as written */
    uint64_t qcfg, dbrec, area_tbl, area_cfg, mod;
    bool enabled;              /* DMAQ_CTX_CTRL.enable */
    bool running;              /* enabled, not stopped, not in error */
    bool error;
    uint8_t cause;
    uint64_t err_info;
    uint8_t err_pending;       /* a cause found on the data path */
    uint64_t err_pending_info;
    uint64_t *chunk;           /* the area table, read at enable */
    uint32_t nchunks;
    unsigned chunk_shift;
    uint64_t area_size;
    uint32_t rec_sq, rec_rq;   /* last written to the doorbell record */
    bool armed;
    uint32_t arm_idx;
    bool mod_timer_on;
    QEMUTimer mod_timer;
    uint64_t rx_nobuf, not_owner, events;
    uint64_t ost_max;          /* DMAQ_CTX_OST.max, 0: no limit */
    uint32_t ost_used;         /* slots its packets hold */
};

struct RclinkT1 {
    RclinkCore *c;
    QEMUBH *bh;
    unsigned col[RCLINK_QCOL_N];

    RclinkT1Slot slots[RCLINK_T1_OST_N];
    int16_t free_head;
    uint16_t nfree;
    int16_t ghead, gtail;      /* WAIT_GRANT slots in entry order */
    uint64_t seq;

    RclinkT1Qp *qps;           /* qp_num */
    QTAILQ_HEAD(, RclinkT1Qp) due;    /* responses to send now */
    QTAILQ_HEAD(, RclinkT1Qp) merge;  /* ACKs merging, by deadline */
    QEMUTimer merge_timer;
    int64_t merge_ref_ns;      /* the instant the pending ACKs count from */
    QEMUTimer round_timer;     /* the next arbitration round */
    int64_t wire_free_ns;      /* the last round has left the MAC */
    uint64_t cc_steps;         /* CC windows ended by SHIM_CC_TEST.step */
    uint64_t round;            /* arbitration rounds, from 1 */
    int last_bank;             /* QPN[1:0] of the last REQ granted, or -1 */
    RclinkT2 t2;
    QEMUTimer cc_timer;        /* the end of the window a QP waits for */
    /* CNP MERGE: the 8-entry QPID buffer, replaced round robin */
    struct {
        uint16_t qpn;
        bool used;
        int64_t ns;            /* when its last CNP passed */
    } cnp_buf[RCLINK_CNP_BUF_N];
    unsigned cnp_next;
    uint32_t ncc_off;          /* QPs with cc_off */
    QTAILQ_HEAD(, RclinkT1Qp) nocnp;  /* QPs with bytes to report */
    QEMUTimer nocnp_timer;

    RclinkDmaq q;
    RclinkCtx *ctx;            /* RCLINK_CTX_NUM; [0] the kernel's */
    uint16_t *qp_owner;        /* DMAQ_QP_OWNER, per QP */
    bool *qp_flushed;          /* DMAQ_QP_OWNER.flushed, per QP */
    uint16_t t2_owner[RCLINK_AFH_T2_GROUPS];
    RclinkRdma *rdma;          /* rclink_rdma.c */
    /*
     * RX_M's head: a user context's TYPE1 request the IP took without room
     * for it, waiting DMAQ_CTX_RX_HOLD (FLOW_STOP on every bank meanwhile)
     */
    struct {
        bool on;
        uint16_t ctx;
        uint32_t qpn;
        uint8_t *pl;
        size_t len;
        QEMUTimer timer;
    } hold;
};

static inline uint64_t *rclink_qreg(RclinkCore *c, uint32_t qpn, unsigned col)
{
    return &c->qp_val[(size_t)qpn * c->nqp_regs + c->t1->col[col]];
}

static inline uint32_t rclink_psn(uint32_t v)
{
    return v & RCLINK_T1_PSN_MASK;
}

/* (a - b) mod 2^EPSN_W */
static inline uint32_t rclink_psn_diff(uint32_t a, uint32_t b)
{
    return (a - b) & RCLINK_T1_PSN_MASK;
}

/* a is at or before b in the half window */
static inline bool rclink_psn_le(uint32_t a, uint32_t b)
{
    return rclink_psn_diff(b, a) < RCLINK_T1_PSN_HALF;
}

static inline void rclink_qps_add(RclinkCore *c, uint32_t qpn, unsigned i,
                                  uint64_t n)
{
    c->t1->qps[qpn].stats[i] += n;
}

/* rclink_cnp.c: ECN, CNP, CNP MERGE and NOCNP_TIMER of the CC interface */
void rclink_cnp_rx(RclinkCore *c, RclinkT1Qp *q);
void rclink_cnp_tx_bytes(RclinkCore *c, RclinkT1Qp *q, uint32_t len);
void rclink_cnp_init(RclinkCore *c);
void rclink_cnp_reset(RclinkCore *c);
void rclink_cnp_fini(RclinkCore *c);

/* rclink_type1.c, for the engine */
bool rclink_t1_qp_enabled(RclinkCore *c, uint32_t qpn);
void rclink_t1_irq_info(RclinkCore *c, unsigned code, uint32_t qpn,
                        uint64_t rc_bit);
int rclink_t1_slot_alloc(RclinkCore *c);
void rclink_t1_slot_put(RclinkCore *c, int s);
void rclink_t1_submit(RclinkCore *c, int s);
void rclink_t1_release_all(RclinkCore *c);
void rclink_dfx_update(RclinkCore *c);
uint64_t rclink_cc_now(RclinkCore *c);
uint64_t rclink_cc_decay(uint64_t acc, uint64_t k, uint32_t thr);
void rclink_cc_wait(RclinkCore *c);

/* rclink_dmaq.c: CC_TYPE1_QP_EN_SET_O (en) / CC_TYPE1_QP_EN_CLR_O of qpn */
void rclink_dmaq_cc_qp_en(RclinkCore *c, uint32_t qpn, bool en);

/* rclink_type2.c, for the queue engine: what became of a TYPE2 packet */
enum {
    RCLINK_T2_SENT,                     /* on the wire */
    RCLINK_T2_WAIT,                     /* waits for credits: try again */
    RCLINK_T2_OVER_RATE,                /* dropped by the IP (code 1) */
};
int rclink_t2_try_send(RclinkCore *c, unsigned g, const uint8_t *pl,
                       size_t plen);

/* rclink_dmaq.c, for the transport */
void rclink_dmaq_init(RclinkCore *c);
void rclink_dmaq_fini(RclinkCore *c);
void rclink_dmaq_reset(RclinkCore *c);
void rclink_dmaq_run(RclinkCore *c);
void rclink_dmaq_credit(RclinkCore *c, RclinkDmaqMsg *m, bool ok);
void rclink_t2_rx_resume(RclinkCore *c);
bool rclink_dmaq_t2_accept(RclinkCore *c, unsigned g, const uint8_t *pl,
                           size_t len, bool dry_run);
bool rclink_dmaq_rx_accept(RclinkCore *c, uint32_t qpn, const uint8_t *pl,
                           size_t len, bool dry_run);
void rclink_dmaq_rx_flush_qp(RclinkCore *c, uint32_t qpn);
void rclink_dmaq_irq(RclinkCore *c);
/* the QP belongs to a user context (its refusals are the context's) */
bool rclink_dmaq_qp_user(RclinkCore *c, uint32_t qpn);
/*
 * A TYPE1 request of a user context's QP the IP took (and acknowledged)
 * without room for it in the context: it waits on RX_M, or is dropped
 */
void rclink_dmaq_rx_hold(RclinkCore *c, uint32_t qpn, const uint8_t *pl,
                         size_t len);
/* a packet waits on RX_M: FLOW_STOP on every bank, nothing else passes */
bool rclink_dmaq_rx_held(RclinkCore *c);
unsigned rclink_dmaq_flow_stop(RclinkCore *c);
void rclink_dmaq_t2_nobuf(RclinkCore *c, unsigned g);
bool rclink_t1_detach_qp(RclinkCore *c, uint32_t qpn);

/* rclink_dmaq.c, for rclink_rdma.c */
bool rclink_ctx_dma(RclinkCtx *x, uint64_t a, void *buf, uint64_t len,
                    bool write);
void rclink_dmaq_cqe(RclinkCtx *x, unsigned kind, uint32_t qpn,
                     uint8_t status, uint32_t len, uint32_t sq_idx);
void rclink_dmaq_qp_complete(RclinkCore *c, uint32_t qpn);
bool rclink_dmaq_rx_imm(RclinkCore *c, uint32_t qpn, uint32_t imm,
                        uint32_t len, bool dry_run);

/* rclink_rdma.c: RDMA WRITE and READ (Documentation/hw/shim.rst) */
void rclink_rdma_init(RclinkCore *c);
void rclink_rdma_reset(RclinkCore *c);
void rclink_rdma_fini(RclinkCore *c);
void rclink_rdma_run(RclinkCore *c);
bool rclink_rdma_cut(RclinkCore *c, RclinkDmaqMsg *m);
void rclink_rdma_credit(RclinkCore *c, RclinkDmaqMsg *m);
void rclink_rdma_msg_done(RclinkCore *c, RclinkDmaqMsg *m);
void rclink_rdma_cqe(RclinkCore *c, RclinkDmaqMsg *m);
bool rclink_rdma_rx(RclinkCore *c, uint32_t qpn, const uint8_t *pl,
                    size_t len, bool dry_run);
void rclink_rdma_ctx_stop(RclinkCtx *x);
uint16_t rclink_rdma_tag(RclinkCore *c, uint32_t qpn);
uint32_t rclink_rdma_max_len(RclinkCore *c);
bool rclink_rdma_lkey_ok(RclinkCore *c, RclinkCtx *x, uint32_t lkey,
                         uint64_t off, uint64_t len);
bool rclink_rdma_reg_write(RclinkCore *c, hwaddr reg, uint64_t *p,
                           uint64_t old);
bool rclink_rdma_reg_read(RclinkCore *c, hwaddr reg, uint64_t *v);

#endif
