/*
 * rclink board model: the behaviour of the PCIe shim and the RCLINK-Stream
 * IP registers, independent of the PCI/QOM glue.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_RCLINK_CORE_H
#define HW_RCLINK_CORE_H

#include "qemu/host-utils.h"
#include "qemu/queue.h"
#include "qemu/timer.h"
#include "hw/pci/pci_device.h"
#include "net/net.h"
#include "rclink_hw.h"
#include "rclink_regtab.h"

#define RCLINK_QP_NUM_MAX 1024
/* 4-byte granules of BAR0 */
#define RCLINK_MAP_LEN (RCLINK_BAR0_SIZE / 4)
/* MDs in a TYPE3 ring: the 12-bit size and tail fields */
#define RCLINK_T3_RING_MAX 4096
/* contexts of the shim (DMAQ_CTX_CAP.num), context 0 the kernel's */
#define RCLINK_CTX_NUM 64
/* a context's doorbell page: 64 KiB, for hosts of any page size to 64 KiB */
#define RCLINK_CTX_DB_SHIFT 16

#define RF_GET(mask, v) (((v) & (mask)) >> ctz64(mask))
#define RF_SET(mask, v, x) \
    (((v) & ~(uint64_t)(mask)) | \
     (((uint64_t)(x) << ctz64(mask)) & (uint64_t)(mask)))

/* Class of a frame from the wire (seed 000, 接收报文识别). */
enum {
    RCLINK_CLASS_TYPE1 = 1,
    RCLINK_CLASS_TYPE2 = 2,
    RCLINK_CLASS_TYPE3 = 3,
};

/* TYPE1 header formats (AFH_CFG_EN, Documentation/hw/formats.rst) */
enum {
    RCLINK_T1_FMT_STD,
    RCLINK_T1_FMT_GEN1,
    RCLINK_T1_FMT_GEN2,
    RCLINK_T1_FMT_LITE,
    RCLINK_T1_FMT_NONE,
};

/* TYPE3 directions */
enum {
    RCLINK_T3_TX = 0,
    RCLINK_T3_RX = 1,
};

/* TYPE3 MD engine state beyond the registers (rclink_type3.c). */
typedef struct RclinkT3 {
    bool halted[2];                    /* a fault, until the soft reset */
    uint8_t tx_partial;                /* last SF-only / LF-only TX MD */
    /* RX scratch: the MDs a frame is about to take (words 0 and 1) */
    uint64_t rx_md[RCLINK_T3_RING_MAX][2];
} RclinkT3;

/* A frame the wire fault injector holds back (rclink_wire.c). */
typedef struct RclinkWireFrame {
    QSIMPLEQ_ENTRY(RclinkWireFrame) next;
    int64_t due_ns;                    /* delay stage: when it leaves */
    unsigned copies;                   /* 2 when duplicated */
    size_t len;
    uint8_t data[];
} RclinkWireFrame;

/* Wire fault injector state (Documentation/hw/shim.rst). */
typedef struct RclinkWire {
    uint64_t rng;                      /* generator state */
    RclinkWireFrame *held;             /* the frame being reordered */
    QEMUTimer reorder_timer;           /* sends held after 100 us */
    QSIMPLEQ_HEAD(, RclinkWireFrame) delayq; /* delay stage, in order */
    QEMUTimer delay_timer;
    /* SHIM_WIRE_QUEUE: the switch port's queue, in milli-bits */
    uint64_t q_mbits;
    int64_t q_ns;                      /* when it was last drained */
} RclinkWire;

typedef struct RclinkT1 RclinkT1;      /* rclink_type1.h */

/* Data waiting in a VC's CBFC receive buffer (rclink_cbfc.c). */
/* The MAC's static registers, one entry per instance (RCLINK_STATIC_REGS) */
#define RCLINK_MAC_STATIC_COUNT(off, n, stride) + (n)
#define RCLINK_MAC_STATIC_N (0 RCLINK_STATIC_REGS(RCLINK_MAC_STATIC_COUNT))

typedef struct RclinkCbfcFrame {
    QSIMPLEQ_ENTRY(RclinkCbfcFrame) next;
    unsigned kind;                     /* RCLINK_CBFC_T1.. */
    bool pfc;                          /* PFC (words) or CBFC (credits) */
    uint8_t flow;                      /* the flow it came on */
    uint32_t id;                       /* QP or group */
    uint32_t credits;
    size_t len;
    uint8_t data[];
} RclinkCbfcFrame;

/* CBFC of the IP and of the MAC side (rclink_cbfc.c); totals mod 2^32 */
typedef struct RclinkCbfc {
    int64_t cf[8];                     /* TX: credits left per VC (IP) */
    uint32_t sent[8];                  /* TX: credits sent */
    uint32_t seen[8];                  /* TX: the partner's FREED, last */
    uint16_t epoch;                    /* this board's, new at each reset */
    uint16_t peer_epoch;               /* the partner's, 0: none yet */
    uint8_t loaded;                    /* MAC2TX_CBFC_RST_I since reset */
    uint8_t on;                        /* the IP's VC status */
    uint8_t based;                     /* RX: recv/freed count peer's SENT */
    uint8_t peer_loaded;               /* the partner's VC mask, last */
    uint8_t acked;                     /* TX: VCs the partner based on us */
    uint32_t recv[8];                  /* RX: credits received */
    uint32_t freed[8];                 /* RX: credits freed */
    uint32_t held[8];                  /* RX: credits waiting */
    uint32_t pfc_rdma[8];              /* RX, PFC: words of TYPE1/2 waiting */
    uint32_t pfc_nonr;                 /* RX, PFC: words of TYPE3 waiting */
    QSIMPLEQ_HEAD(, RclinkCbfcFrame) q[8];
    int flow;                          /* the frame being received, or -1 */
    uint32_t cur_credits;
    bool cur_held, cur_pfc, replay;
    uint8_t pfc_req;                   /* TX_PFC_REQ_O */
    unsigned quiet;                    /* sync periods without a change */
    QEMUTimer upd_timer, sync_timer;
} RclinkCbfc;

typedef struct RclinkCore {
    PCIDevice *pci;

    /* board configuration (device properties) */
    uint32_t magic;
    uint16_t shim_major;
    /*
     * false: the register bits whose place rclink assumed (regtab
     * "assumed") are not there, as on an IP that placed them elsewhere:
     * they read zero and writes to them are ignored.
     */
    bool assumed_regs;
    /*
     * Property ip-internal-counters: the board counts the events inside
     * the IP that no IP port reports (SHIM_CAP3.ip_counters).  Off, it is
     * a shim beside the real IP: those counters read zero.
     */
    bool ip_counters;
    uint32_t qp_num;
    uint32_t t2_pkt_len;               /* SHIM_CAP1.type2_pkt_len */
    uint64_t serial;
    unsigned num_vectors;
    uint8_t mac[6];                    /* SHIM_MAC */

    /* the wire */
    NICState *nic;
    bool carrier;                      /* the netdev's link state */
    bool link_up;                      /* SHIM_LINK.up */

    /* register file: regtab entry -> storage slot base */
    int16_t map[RCLINK_MAP_LEN];       /* BAR0 granule -> slot, -1 = none */
    uint16_t slot_reg[RCLINK_MAP_LEN]; /* slot -> regtab index */
    uint64_t slot_val[RCLINK_MAP_LEN]; /* slot -> stored value */
    unsigned nslots;
    int qp_index[RCLINK_REGTAB_LEN];   /* regtab index -> per-QP column */
    unsigned nqp_regs;
    uint64_t *qp_val;                  /* qp_num x nqp_regs */

    /* event ring */
    uint32_t evt_prod;
    uint32_t evt_drops;
    uint32_t inject_lo;                /* low half of SHIM_EVT_INJECT */

    /* DMA self-test result */
    uint64_t dma_status;

    /* hostile-device mode (SHIM_HOSTILE_*) */
    uint64_t hostile_rng;

    RclinkT3 t3;
    RclinkWire wire;
    RclinkT1 *t1;                      /* TYPE1 transport + queue engine */

    /* MAC flow control (rclink_mac.c): the end of each priority's pause */
    int64_t pfc_until[8];
    uint8_t pfc_paused;                /* ends when pfc_timer has run */
    int64_t pfc_deadline;              /* what pfc_timer was armed for */
    QEMUTimer pfc_timer;
    QEMUTimer hold_timer;              /* refresh of signal XOFFs */
    /* the static MAC registers as the MAC uses them (rclink_mac_get) */
    uint32_t mac_static[RCLINK_MAC_STATIC_N];

    RclinkCbfc cbfc;

    /*
     * The bridge (rtl-bridge=on, rclink_cosim.c): the shim is an RTL
     * simulation's, this model is its IP, MAC and wire.  The model's own
     * shim (event ring, interrupts, queue engine) is idle then.
     */
    struct RclinkCosim *bridge;
} RclinkCore;

void rclink_core_init(RclinkCore *core, PCIDevice *pci);
void rclink_core_fini(RclinkCore *core);
void rclink_core_reset(RclinkCore *core);
uint64_t rclink_core_read(RclinkCore *core, hwaddr addr, unsigned size);
void rclink_core_write(RclinkCore *core, hwaddr addr, uint64_t val,
                       unsigned size);
void rclink_core_set_link(RclinkCore *core, bool carrier);
void rclink_core_receive(RclinkCore *core, const uint8_t *buf, size_t len);
/* the doorbell BAR of the contexts (rclink_dmaq.c) */
void rclink_ctx_db_write(RclinkCore *c, hwaddr addr, uint64_t val,
                         unsigned size);

/* Register storage (the register at BAR0 offset off must exist). */
static inline uint64_t *rclink_reg_ptr(RclinkCore *c, hwaddr off)
{
    int s = off < RCLINK_BAR0_SIZE ? c->map[off >> 2] : -1;

    assert(s >= 0);
    return &c->slot_val[s];
}

static inline uint64_t rclink_get(RclinkCore *c, hwaddr off)
{
    return *rclink_reg_ptr(c, off);
}

static inline void rclink_set(RclinkCore *c, hwaddr off, uint64_t v)
{
    *rclink_reg_ptr(c, off) = v;
}

static inline void rclink_count(RclinkCore *c, hwaddr off)
{
    *rclink_reg_ptr(c, off) += 1;
}

/*
 * A drop the IP's own checks make, in a counter a shim beside the real IP
 * counts only in part (count_partial in the contract): without the
 * property ip-internal-counters the board does not see it.
 */
static inline void rclink_count_ip(RclinkCore *c, hwaddr off)
{
    if (c->ip_counters) {
        rclink_count(c, off);
    }
}

/* rclink_core.c, for the engines */
/*
 * Host memory accesses of the queue engines, the event ring and the
 * contexts: with bus mastering off nothing reaches the host, the access
 * fails and SHIM_DMA_BM_DROP counts it (the self-test and TYPE3 report
 * theirs in their own registers)
 */
MemTxResult rclink_dma_read(RclinkCore *c, dma_addr_t addr, void *buf,
                            dma_addr_t len);
MemTxResult rclink_dma_write(RclinkCore *c, dma_addr_t addr, const void *buf,
                             dma_addr_t len);
void rclink_event(RclinkCore *c, unsigned source, uint64_t info);
void rclink_raise_causes(RclinkCore *c, uint64_t rc, uint64_t st0,
                         uint64_t st1);
void rclink_latch_st0(RclinkCore *c, uint64_t st0);
void rclink_irq_raise(RclinkCore *c, unsigned vector);
void rclink_update_intx(RclinkCore *c);
/* hostile-device mode: whether to lie now (counted), and random words */
bool rclink_hostile(RclinkCore *c, uint64_t kind);
uint64_t rclink_hostile_rand(RclinkCore *c);

/* rclink_wire.c: every frame the board sends, through the fault injector */
void rclink_wire_init(RclinkCore *c);
void rclink_wire_fini(RclinkCore *c);
void rclink_wire_reset(RclinkCore *c);
void rclink_wire_reseed(RclinkCore *c);
void rclink_wire_send(RclinkCore *c, const uint8_t *buf, size_t len);
void rclink_wire_inject(RclinkCore *c, uint64_t len);

/* rclink_mac.c: Pause/PFC of the MAC (seed 003) */
void rclink_mac_fc_req(RclinkCore *c, uint64_t old, uint64_t val);
uint8_t rclink_mac_paused(RclinkCore *c);
void rclink_mac_ctrl_receive(RclinkCore *c, const uint8_t *buf, size_t len);
void rclink_mac_init(RclinkCore *c);
void rclink_mac_reset(RclinkCore *c);
uint64_t rclink_mac_get(RclinkCore *c, hwaddr off);
void rclink_mac_phy_config(RclinkCore *c, uint64_t old, uint64_t val);
void rclink_mac_fini(RclinkCore *c);
uint64_t rclink_mac_addr(RclinkCore *c, hwaddr hi, hwaddr lo);
void rclink_mac_signal_req(RclinkCore *c, uint8_t old, uint8_t req);

/* rclink_cbfc.c: CBFC (seed 000, CBFC 流量控制) and its MAC side */
bool rclink_cbfc_tx_ok(RclinkCore *c, unsigned flow);
void rclink_cbfc_tx_sent(RclinkCore *c, unsigned flow, size_t len);
void rclink_cbfc_rx_enter(RclinkCore *c, unsigned flow, size_t len);
/* the data of a frame under CBFC: to the host, queued or dropped */
enum {
    RCLINK_CBFC_DIRECT,                /* to the host now */
    RCLINK_CBFC_QUEUED,                /* waits in the VC's buffer */
    RCLINK_CBFC_FULL,                  /* buffer full: dropped, counted */
};
/* what waits: TYPE1 payload of a QP, TYPE2 payload of a group, a frame */
enum {
    RCLINK_CBFC_T1,
    RCLINK_CBFC_T2,
    RCLINK_CBFC_T3,
};
int rclink_cbfc_rx_defer(RclinkCore *c, unsigned kind, uint32_t id,
                         const uint8_t *data, size_t len, bool room);
void rclink_cbfc_rx_done(RclinkCore *c);
void rclink_cbfc_rx_drain(RclinkCore *c);
void rclink_cbfc_update_rx(RclinkCore *c, const uint8_t *buf, size_t len);
void rclink_cbfc_ctrl(RclinkCore *c, uint64_t val);
void rclink_cbfc_cfg_changed(RclinkCore *c);
bool rclink_cbfc_read(RclinkCore *c, hwaddr off, uint64_t *v);
void rclink_cbfc_init(RclinkCore *c);
void rclink_cbfc_reset(RclinkCore *c);
void rclink_cbfc_fini(RclinkCore *c);

/* rclink_type1.c: the TYPE1 transport of the IP */
void rclink_t1_init(RclinkCore *c);
void rclink_t1_fini(RclinkCore *c);
void rclink_t1_reset(RclinkCore *c);
void rclink_t1_receive(RclinkCore *c, const uint8_t *buf, size_t len);
void rclink_t1_kick(RclinkCore *c);
void rclink_t1_qp_write(RclinkCore *c, hwaddr reg, uint32_t qpn,
                        uint64_t old, uint64_t val);
bool rclink_t1_active(RclinkCore *c);
unsigned rclink_t1_format(RclinkCore *c);
void rclink_t1_cc_read(RclinkCore *c, uint32_t qpn);

/* Frame helpers shared by TYPE1 and TYPE2 (rclink_type1.c) */
enum {
    RCLINK_PARSE_BAD_IP = 1,    /* IPv4 header: version, length, checksum */
    RCLINK_PARSE_BAD_LEN = 2,   /* UDP or AFH length */
};
void rclink_put_mac(uint8_t *p, uint64_t mac);
uint16_t rclink_ip_csum(const uint8_t *p, size_t len);
bool rclink_is_vlan(RclinkCore *c, uint16_t type);
uint8_t *rclink_wire_rx_queue(RclinkCore *c, const uint8_t *buf, size_t len);
size_t rclink_l2_build(RclinkCore *c, uint8_t *f, unsigned fmt, uint64_t da,
                       uint8_t tc, uint8_t kw, unsigned pcp, uint16_t etype);
size_t rclink_ipv4_udp_build(RclinkCore *c, uint8_t *f, uint8_t tos,
                             uint32_t dip, uint16_t sport, uint16_t dport,
                             size_t plen);
int rclink_parse_ipv4_udp(const uint8_t *buf, size_t len, size_t off,
                          size_t tail, size_t *rh_at, size_t *body);
int rclink_parse_afh_len(const uint8_t *buf, size_t len, size_t off,
                         size_t tail, size_t *body);
uint16_t rclink_t1_now_ts(void);

/* rclink_type2.c: TYPE2 multicast (seed 000, TYPE2) */
bool rclink_t2_active(RclinkCore *c);
void rclink_t2_crd_hold(RclinkCore *c, bool hold);
void rclink_t2_receive(RclinkCore *c, const uint8_t *buf, size_t len);
void rclink_t2_irq_info(RclinkCore *c, unsigned code, unsigned sub,
                        uint64_t intr);
void rclink_t2_reset(RclinkCore *c);
void rclink_t2_join(RclinkCore *c, uint64_t old, uint64_t val);
void rclink_t1_cc_test(RclinkCore *c, uint64_t val, uint64_t old);

/* rclink_cosim.c: the IP's outputs to the RTL shim (the bridge) */
void rclink_cosim_ip_credit(struct RclinkCosim *x, unsigned crd,
                            uint32_t qpid, bool qpid_vld);
void rclink_cosim_ip_event(struct RclinkCosim *x, unsigned source,
                           uint64_t info);
bool rclink_cosim_ip_rx(struct RclinkCosim *x, uint32_t qpid,
                        unsigned etype, const uint8_t *pl, size_t len,
                        bool dry_run);
void rclink_cosim_ip_levels(struct RclinkCosim *x);

/* rclink_dmaq.c: the shim's queue engine (DMAQ window) */
/* the bridge: a TX_S packet of the RTL shim */
void rclink_dmaq_bridge_tx(RclinkCore *c, uint32_t qpn, unsigned flags,
                           const uint8_t *pkt, size_t len);
void rclink_dmaq_write(RclinkCore *c, const struct rclink_regdesc *d,
                       hwaddr elem, uint64_t *p, uint64_t old,
                       uint64_t wval);
uint64_t rclink_dmaq_read(RclinkCore *c, const struct rclink_regdesc *d,
                          hwaddr elem, uint64_t v);
bool rclink_dmaq_cq_pending(RclinkCore *c);

/* rclink_type3.c: the TYPE3 MD rings */
void rclink_t3_reset(RclinkCore *c);
void rclink_t3_ctrl_write(RclinkCore *c, uint64_t old, uint64_t val);
void rclink_t3_mdq_write(RclinkCore *c, const struct rclink_regdesc *d,
                         uint64_t *p, uint64_t old);
void rclink_t3_tx_head_write(RclinkCore *c);
void rclink_t3_rx_head_write(RclinkCore *c);
void rclink_t3_receive(RclinkCore *c, const uint8_t *buf, size_t len);

#endif
