/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rclink: the TYPE3 Ethernet netdev (Documentation/hw/shim.rst, TYPE3
 * rings): one TX and one RX ring of memory descriptors (MDs), one NAPI
 * context driven by the TYPE3 events of the event ring.
 */
#ifndef _RCLINK_NETDEV_H_
#define _RCLINK_NETDEV_H_

#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>

#include "rclink.h"

struct page_pool;

/* One MD: word 0 control/status (RCLINK_MD_CTRL_*), word 1 buffer address */
struct rclink_md {
	__le64 ctrl;
	__le64 addr;
};

/*
 * Ring sizes: powers of two.  MDQ_SIZE has 12 bits, so 2048 is the largest
 * power of two it holds.
 */
#define RCLINK_RING_MIN		64
#define RCLINK_RING_MAX		2048
#define RCLINK_RING_DEFAULT	256

/* TX: one frame per MD, copied into a per-slot coherent bounce buffer */
#define RCLINK_TX_BUF_SIZE	RCLINK_MD_TX_MAX_FRAME
#define RCLINK_TX_WAKE_THRESH	16	/* free MDs before the queue wakes */

/*
 * RX: one page per MD, BUF_SIZE 2048 bytes after NET_SKB_PAD of headroom,
 * the skb_shared_info behind it; longer frames span several MDs.
 */
#define RCLINK_RX_BUF_SIZE	2048
#define RCLINK_RX_HEADROOM	NET_SKB_PAD

#define RCLINK_MTU_MIN		ETH_MIN_MTU
#define RCLINK_MTU_MAX		(RCLINK_MD_TX_MAX_FRAME - ETH_HLEN - VLAN_HLEN)

struct rclink_tx_slot {
	struct sk_buff *skb;	/* NULL for MDs posted by the fault hook */
	void *buf;		/* RCLINK_TX_BUF_SIZE bytes, coherent */
	dma_addr_t dma;
	dma_addr_t map;		/* the skb's data mapped, or 0: copied */
	unsigned int bytes;	/* skb->len, for BQL and the stats */
};

struct rclink_txr {
	struct rclink_md *md;
	dma_addr_t md_dma;
	struct rclink_tx_slot *slot;
	u32 size;
	u32 head;		/* next MD the host fills (xmit) */
	u32 ntc;		/* next MD the host cleans (NAPI) */
	u32 db_head;		/* head last written to TX_MD_HEAD_PTR */
	u32 tail_seen;		/* TX_MD_TAIL_PTR at the last cleaning */
};

struct rclink_rxr {
	struct rclink_md *md;
	dma_addr_t md_dma;
	struct page **page;
	struct page_pool *pp;
	u32 size;
	u32 head;		/* next MD the host posts */
	u32 ntc;		/* next MD the host cleans */
	u32 tail_seen;		/* RX_MD_TAIL_PTR at the last cleaning */
	bool in_frame;		/* SF seen, LF not yet */
	bool skb_bad;		/* ... and one of its MDs was bad: drop it */
	struct sk_buff *skb;	/* the frame so far (NULL when bad) */
};

/* Written by NAPI (or under rtnl with NAPI disabled) */
struct rclink_tx_stats {
	struct u64_stats_sync syncp;
	u64 packets;
	u64 bytes;
	u64 wake;		/* queue woken after ring full */
	u64 flush_down;		/* in flight at ifdown: tx_dropped */
	u64 flush_fault;	/* in flight at a fault recovery: tx_errors */
};

/* Written by xmit, under the TX queue lock */
struct rclink_tx_xstats {
	struct u64_stats_sync syncp;
	u64 oversize;		/* frame above 4096 bytes: tx_dropped */
	u64 busy;		/* NETDEV_TX_BUSY returned */
	u64 stop;		/* queue stopped, ring full */
	u64 mapped;		/* frames sent from the skb's own data */
	u64 copied;		/* frames copied into the slot's buffer */
	u64 map_err;		/* mapping failed: copied instead */
};

/* Written by NAPI (or under rtnl with NAPI disabled) */
struct rclink_rx_stats {
	struct u64_stats_sync syncp;
	u64 packets;
	u64 bytes;
	u64 alloc_fail;		/* page or skb allocation failed */
	u64 nobuf;		/* frame dropped, no skb: rx_dropped */
	u64 md_size_err;	/* DATA_SIZE 0 or above BUF_SIZE */
	u64 frame_err;		/* SF/LF out of order: rx_frame_errors */
	u64 crc_err;		/* CRC_ERR: rx_crc_errors */
	u64 len_err;		/* LEN_ERR: rx_length_errors */
	u64 partial;		/* frame cut by ifdown or a reset */
};

/* The shim's counters of the TYPE3 path (read live, last value kept) */
enum rclink_shim_cnt {
	RCLINK_SHIM_CNT_WIRE_TX,
	RCLINK_SHIM_CNT_WIRE_RX,
	RCLINK_SHIM_CNT_RX_NOMD,
	RCLINK_SHIM_CNT_RX_OFF,
	RCLINK_SHIM_CNT_RX_T12,
	RCLINK_SHIM_CNT_TX_LINK,
	RCLINK_SHIM_CNT_RX_ERR,
	RCLINK_SHIM_CNT_MAC_CTRL_DROP,	/* bad PFC/Pause/CBFC frames */
	RCLINK_SHIM_CNT_T3_DMA_ERR,	/* TYPE3 host accesses that failed */
	RCLINK_SHIM_CNT_NUM
};

/* Malformed MDs the t3_fault debugfs hook posts */
enum rclink_t3_fault {
	RCLINK_T3_FAULT_TX_TWO_SOP,
	RCLINK_T3_FAULT_TX_TWO_EOP,
	RCLINK_T3_FAULT_TX_MD_SIZE_ZERO,
	RCLINK_T3_FAULT_TX_OVERSIZE,
	RCLINK_T3_FAULT_RX_MD_SIZE_ZERO,
	RCLINK_T3_FAULT_DATA_AXI_RESP_ERR,
	RCLINK_T3_FAULT_NUM
};

extern const char * const rclink_t3_fault_names[RCLINK_T3_FAULT_NUM];

/* rclink_dcb.c: PFC through dcbnl */
void rclink_dcb_init(struct net_device *netdev);

struct rclink_net {
	struct net_device *netdev;
	struct rclink_dev *rdev;
	struct napi_struct napi;

	/* rings: valid while up; sizes for the next up (rtnl) */
	struct rclink_txr tx;
	struct rclink_rxr rx;
	u32 tx_size;
	u32 rx_size;

	/* up: rings running, carrier follows SHIM_LINK (carrier_lock) */
	spinlock_t carrier_lock;
	bool up;

	/* TYPE3 on vector 2 (SHIM_T3_IRQ): its hard interrupt sets t3_irq */
	atomic_t t3_irq;

	/* TAIL_UP_CFG holds both directions: xmit and NAPI share it */
	spinlock_t tail_up_lock;
	u64 tail_up;

	struct rclink_tx_stats tx_stats;
	struct rclink_tx_xstats tx_xstats;
	struct rclink_rx_stats rx_stats;
	atomic64_t tx_timeout;
	u64 shim_cnt[RCLINK_SHIM_CNT_NUM];
};

/* rclink_txrx.c */
int rclink_txr_alloc(struct rclink_net *net, struct rclink_txr *tx, u32 size);
void rclink_txr_free(struct rclink_net *net, struct rclink_txr *tx);
int rclink_rxr_alloc(struct rclink_net *net, struct rclink_rxr *rx, u32 size);
void rclink_rxr_free(struct rclink_net *net, struct rclink_rxr *rx);
void rclink_t3_hw_start(struct rclink_net *net, bool poison_rx);
void rclink_t3_hw_stop(struct rclink_net *net, bool fault);
netdev_tx_t rclink_xmit(struct sk_buff *skb, struct net_device *netdev);
int rclink_napi_poll(struct napi_struct *napi, int budget);
int rclink_t3_fault_post_tx(struct rclink_net *net, enum rclink_t3_fault f);

/* rclink_netdev.c */
void rclink_net_shim_cnt_update(struct rclink_net *net);
int rclink_net_set_rings(struct rclink_net *net, u32 tx_size, u32 rx_size);

/* rclink_ethtool.c */
void rclink_set_ethtool_ops(struct net_device *netdev);

#endif /* _RCLINK_NETDEV_H_ */
