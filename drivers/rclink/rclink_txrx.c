// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: the TYPE3 rings (Documentation/hw/shim.rst, TYPE3 rings).
 *
 * TX: one frame per MD (SF = LF = 1), copied into a coherent bounce buffer
 * of the slot; completion when TX_MD_TAIL_PTR passes the MD.  RX: page pool
 * pages of BUF_SIZE 2048, a frame spans the MDs from SF to LF and becomes
 * one skb (the first page as head, the others as frags).
 *
 * Interrupts: xmit arms TAIL_UP_CFG.tx at the head it posts, NAPI arms
 * TAIL_UP_CFG.rx one past the tail it cleaned; the IP then raises TYPE3
 * code 1 (rclink_events.c), which schedules NAPI.  Indices are 0..size-1;
 * the host keeps one MD free.
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/mm.h>
#include <linux/skbuff.h>
#include <linux/slab.h>

#include "rclink_compat.h"
#include "rclink_netdev.h"

const char * const rclink_t3_fault_names[RCLINK_T3_FAULT_NUM] = {
	[RCLINK_T3_FAULT_TX_TWO_SOP] = "tx_two_sop",
	[RCLINK_T3_FAULT_TX_TWO_EOP] = "tx_two_eop",
	[RCLINK_T3_FAULT_TX_MD_SIZE_ZERO] = "tx_md_size_zero",
	[RCLINK_T3_FAULT_TX_OVERSIZE] = "tx_oversize",
	[RCLINK_T3_FAULT_RX_MD_SIZE_ZERO] = "rx_md_size_zero",
	[RCLINK_T3_FAULT_DATA_AXI_RESP_ERR] = "data_axi_resp_err",
};

/*
 * A bus address no host memory or device decodes (the data_axi_resp_err
 * hook reads it: an unsupported request, never a write)
 */
#define RCLINK_T3_FAULT_BAD_ADDR	0xfffffffff000ULL

static u32 rclink_ring_next(u32 idx, u32 size)
{
	return (idx + 1) & (size - 1);
}

/* MDs xmit may still fill (size - 1 may be in flight) */
static u32 rclink_txr_unused(const struct rclink_txr *tx)
{
	return tx->size - 1 -
	       ((READ_ONCE(tx->head) - READ_ONCE(tx->ntc)) & (tx->size - 1));
}

/* Free MDs before a stopped queue wakes */
static u32 rclink_tx_wake_thresh(const struct rclink_txr *tx)
{
	return min(RCLINK_TX_WAKE_THRESH, tx->size / 4);
}

/* ---- allocation ---------------------------------------------------------- */

void rclink_txr_free(struct rclink_net *net, struct rclink_txr *tx)
{
	struct device *dev = net->rdev->dev;
	u32 i;

	/* gone: the engine's stop may not have reached the board */
	rclink_dma_fence(net->rdev);
	if (tx->slot) {
		for (i = 0; i < tx->size; i++) {
			WARN_ON_ONCE(tx->slot[i].skb);
			if (tx->slot[i].buf)
				dma_free_coherent(dev, RCLINK_TX_BUF_SIZE,
						  tx->slot[i].buf,
						  tx->slot[i].dma);
		}
		kvfree(tx->slot);
	}
	if (tx->md)
		dma_free_coherent(dev, tx->size * sizeof(*tx->md), tx->md,
				  tx->md_dma);
	memset(tx, 0, sizeof(*tx));
}

int rclink_txr_alloc(struct rclink_net *net, struct rclink_txr *tx, u32 size)
{
	struct device *dev = net->rdev->dev;
	u32 i;

	BUILD_BUG_ON(sizeof(struct rclink_md) != RCLINK_MD_BYTES);
	BUILD_BUG_ON(FIELD_MAX(RCLINK_TX_MDQ_SIZE_SIZE) < RCLINK_RING_MAX);

	memset(tx, 0, sizeof(*tx));
	tx->size = size;
	/* coherent memory is at least page aligned (MD rings: 64 bytes) */
	tx->md = dma_alloc_coherent(dev, size * sizeof(*tx->md), &tx->md_dma,
				    GFP_KERNEL);
	if (!tx->md)
		goto err;
	tx->slot = kvcalloc(size, sizeof(*tx->slot), GFP_KERNEL);
	if (!tx->slot)
		goto err;
	for (i = 0; i < size; i++) {
		tx->slot[i].buf = dma_alloc_coherent(dev, RCLINK_TX_BUF_SIZE,
						     &tx->slot[i].dma,
						     GFP_KERNEL);
		if (!tx->slot[i].buf)
			goto err;
	}
	return 0;

err:
	rclink_txr_free(net, tx);
	return -ENOMEM;
}

void rclink_rxr_free(struct rclink_net *net, struct rclink_rxr *rx)
{
	struct device *dev = net->rdev->dev;

	WARN_ON_ONCE(rx->skb);
	rclink_dma_fence(net->rdev);	/* as for the TX ring */
	kvfree(rx->page);
	if (rx->md)
		dma_free_coherent(dev, rx->size * sizeof(*rx->md), rx->md,
				  rx->md_dma);
	/* pages still in skbs return to the pool later; it waits for them */
	if (rx->pp)
		page_pool_destroy(rx->pp);
	memset(rx, 0, sizeof(*rx));
}

int rclink_rxr_alloc(struct rclink_net *net, struct rclink_rxr *rx, u32 size)
{
	struct device *dev = net->rdev->dev;
	struct page_pool_params pp = {
		.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV,
		.order = 0,
		.pool_size = size,
		.nid = dev_to_node(dev),
		.dev = dev,
		.dma_dir = DMA_FROM_DEVICE,
		.max_len = RCLINK_RX_BUF_SIZE,
		.offset = RCLINK_RX_HEADROOM,
	};
	int err = -ENOMEM;

	/* the first page of a frame is the skb head: shinfo after the data */
	BUILD_BUG_ON(RCLINK_RX_HEADROOM + RCLINK_RX_BUF_SIZE +
		     SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) >
		     PAGE_SIZE);
	BUILD_BUG_ON(RCLINK_RX_BUF_SIZE % 64);

	memset(rx, 0, sizeof(*rx));
	rx->size = size;
	rclink_page_pool_params_owner(&pp, &net->napi, net->netdev);
	rx->pp = page_pool_create(&pp);
	if (IS_ERR(rx->pp)) {
		err = PTR_ERR(rx->pp);
		rx->pp = NULL;
		goto err;
	}
	/* debugfs t3_ring_alloc_fail (rtnl held) */
	if (READ_ONCE(net->rdev->t3_ring_alloc_fail)) {
		WRITE_ONCE(net->rdev->t3_ring_alloc_fail,
			   net->rdev->t3_ring_alloc_fail - 1);
		goto err;
	}
	rx->md = dma_alloc_coherent(dev, size * sizeof(*rx->md), &rx->md_dma,
				    GFP_KERNEL);
	if (!rx->md)
		goto err;
	rx->page = kvcalloc(size, sizeof(*rx->page), GFP_KERNEL);
	if (!rx->page)
		goto err;
	return 0;

err:
	rclink_rxr_free(net, rx);
	return err;
}

/* ---- TAIL_UP_CFG --------------------------------------------------------- */

/* Arm one direction; called with BHs disabled (xmit, NAPI) */
static void rclink_tail_up_arm(struct rclink_net *net, bool rx, u32 val)
{
	spin_lock(&net->tail_up_lock);
	if (rx) {
		net->tail_up &= ~RCLINK_TAIL_UP_CFG_RX_TAIL_UP;
		net->tail_up |= FIELD_PREP(RCLINK_TAIL_UP_CFG_RX_TAIL_UP, val);
	} else {
		net->tail_up &= ~RCLINK_TAIL_UP_CFG_TX_TAIL_UP;
		net->tail_up |= FIELD_PREP(RCLINK_TAIL_UP_CFG_TX_TAIL_UP, val);
	}
	rclink_wr64(net->rdev, RCLINK_TAIL_UP_CFG, net->tail_up);
	spin_unlock(&net->tail_up_lock);
}

/* ---- RX ------------------------------------------------------------------ */

static void rclink_rx_stat_add(struct rclink_net *net, u64 *cnt, u64 val)
{
	u64_stats_update_begin(&net->rx_stats.syncp);
	*cnt += val;
	u64_stats_update_end(&net->rx_stats.syncp);
}

/* Post pages from head up to one short of ntc; the caller writes the head */
static void rclink_rx_refill(struct rclink_net *net)
{
	struct rclink_rxr *rx = &net->rx;
	u32 head = rx->head;
	struct page *page;
	dma_addr_t dma;

	while (rclink_ring_next(head, rx->size) != rx->ntc) {
		page = page_pool_dev_alloc_pages(rx->pp);
		if (!page) {
			rclink_rx_stat_add(net, &net->rx_stats.alloc_fail, 1);
			break;
		}
		dma = page_pool_get_dma_addr(page) + RCLINK_RX_HEADROOM;
		rx->page[head] = page;
		rx->md[head].addr = cpu_to_le64(dma);
		rx->md[head].ctrl =
			cpu_to_le64(FIELD_PREP(RCLINK_MD_CTRL_BUF_SIZE,
					       RCLINK_RX_BUF_SIZE));
		head = rclink_ring_next(head, rx->size);
	}
	rx->head = head;
}

static void rclink_rx_frame_drop(struct rclink_net *net)
{
	struct rclink_rxr *rx = &net->rx;

	if (rx->skb) {
		dev_kfree_skb_any(rx->skb);
		rx->skb = NULL;
	}
	rx->in_frame = false;
	rx->skb_bad = false;
}

/* A good buffer of the current frame: the skb head or one more frag */
static void rclink_rx_add(struct rclink_net *net, struct page *page, u32 size)
{
	struct rclink_rxr *rx = &net->rx;
	struct sk_buff *skb = rx->skb;

	if (!skb) {
		skb = napi_build_skb(page_address(page), PAGE_SIZE);
		if (unlikely(!skb)) {
			rclink_rx_stat_add(net, &net->rx_stats.alloc_fail, 1);
			rclink_rx_stat_add(net, &net->rx_stats.nobuf, 1);
			page_pool_put_full_page(rx->pp, page, true);
			rx->skb_bad = true;
			return;
		}
		skb_mark_for_recycle(skb);
		skb_reserve(skb, RCLINK_RX_HEADROOM);
		__skb_put(skb, size);
		rx->skb = skb;
		return;
	}
	if (unlikely(skb_shinfo(skb)->nr_frags >= MAX_SKB_FRAGS)) {
		rclink_rx_stat_add(net, &net->rx_stats.len_err, 1);
		page_pool_put_full_page(rx->pp, page, true);
		rx->skb_bad = true;
		return;
	}
	skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, page,
			RCLINK_RX_HEADROOM, size, PAGE_SIZE);
}

/* One MD the IP wrote back; returns true when it ended a frame */
static bool rclink_rx_md(struct rclink_net *net, struct page *page, u64 ctrl)
{
	u32 size = FIELD_GET(RCLINK_MD_CTRL_DATA_SIZE, ctrl);
	struct rclink_rxr *rx = &net->rx;
	struct sk_buff *skb;

	if (ctrl & RCLINK_MD_CTRL_SF) {
		if (rx->in_frame) {
			/* the previous frame never saw its LF */
			rclink_rx_stat_add(net, &net->rx_stats.frame_err, 1);
			rclink_rx_frame_drop(net);
		}
		rx->in_frame = true;
	} else if (!rx->in_frame) {
		rclink_rx_stat_add(net, &net->rx_stats.frame_err, 1);
		page_pool_put_full_page(rx->pp, page, true);
		return false;
	}

	if (unlikely(!size || size > RCLINK_RX_BUF_SIZE)) {
		rclink_rx_stat_add(net, &net->rx_stats.md_size_err, 1);
		rx->skb_bad = true;
	} else if (unlikely(ctrl & RCLINK_MD_CTRL_CRC_ERR)) {
		rclink_rx_stat_add(net, &net->rx_stats.crc_err, 1);
		rx->skb_bad = true;
	} else if (unlikely(ctrl & RCLINK_MD_CTRL_LEN_ERR)) {
		rclink_rx_stat_add(net, &net->rx_stats.len_err, 1);
		rx->skb_bad = true;
	}

	if (rx->skb_bad) {
		page_pool_put_full_page(rx->pp, page, true);
	} else {
		dma_sync_single_range_for_cpu(net->rdev->dev,
					      page_pool_get_dma_addr(page),
					      RCLINK_RX_HEADROOM, size,
					      DMA_FROM_DEVICE);
		rclink_rx_add(net, page, size);
	}

	if (!(ctrl & RCLINK_MD_CTRL_LF))
		return false;

	skb = rx->skb;
	if (rx->skb_bad || !skb) {
		rclink_rx_frame_drop(net);
		return true;
	}
	rx->skb = NULL;
	rx->in_frame = false;

	u64_stats_update_begin(&net->rx_stats.syncp);
	net->rx_stats.packets++;
	net->rx_stats.bytes += skb->len;
	u64_stats_update_end(&net->rx_stats.syncp);

	skb->protocol = eth_type_trans(skb, net->netdev);
	napi_gro_receive(&net->napi, skb);
	return true;
}

static u32 rclink_rx_tail(struct rclink_net *net)
{
	u64 val = rclink_rd64(net->rdev, RCLINK_RX_MD_TAIL_PTR);

	if (unlikely(rclink_gone(net->rdev)))
		return U32_MAX;
	return FIELD_GET(RCLINK_RX_MD_TAIL_PTR_TAIL, val);
}

static u32 rclink_tx_tail(struct rclink_net *net)
{
	u64 val = rclink_rd64(net->rdev, RCLINK_TX_MD_TAIL_PTR);

	if (unlikely(rclink_gone(net->rdev)))
		return U32_MAX;
	return FIELD_GET(RCLINK_TX_MD_TAIL_PTR_TAIL, val);
}

/* Clean the MDs up to the IP's tail (at most @budget frames), refill */
static int rclink_rx_clean(struct rclink_net *net, int budget)
{
	struct rclink_rxr *rx = &net->rx;
	u32 tail = rclink_rx_tail(net);
	u32 ntc = rx->ntc, head = rx->head;
	struct page *page;
	int done = 0;
	u64 ctrl;

	rx->tail_seen = tail;

	/* a tail outside what was posted: a dead or confused device */
	if (unlikely(tail >= rx->size ||
		     ((tail - ntc) & (rx->size - 1)) >
		     ((head - ntc) & (rx->size - 1)))) {
		if (tail != U32_MAX)
			netdev_warn_once(net->netdev,
					 "RX tail %u outside the posted MDs %u..%u\n",
					 tail, ntc, head);
		return 0;
	}

	while (ntc != tail && done < budget) {
		ctrl = le64_to_cpu(READ_ONCE(rx->md[ntc].ctrl));
		page = rx->page[ntc];
		rx->page[ntc] = NULL;
		ntc = rclink_ring_next(ntc, rx->size);
		if (rclink_rx_md(net, page, ctrl))
			done++;
	}
	rx->ntc = ntc;

	rclink_rx_refill(net);
	if (rx->head != head)
		rclink_wr64(net->rdev, RCLINK_RX_MD_HEAD_PTR,
			    FIELD_PREP(RCLINK_RX_MD_HEAD_PTR_HEAD, rx->head));
	return done;
}

/* Give every page and the frame being built back (the path is in reset) */
static void rclink_rx_flush(struct rclink_net *net)
{
	struct rclink_rxr *rx = &net->rx;
	u32 i;

	if (rx->in_frame)
		rclink_rx_stat_add(net, &net->rx_stats.partial, 1);
	rclink_rx_frame_drop(net);
	for (i = 0; i < rx->size; i++) {
		if (!rx->page[i])
			continue;
		page_pool_put_full_page(rx->pp, rx->page[i], false);
		rx->page[i] = NULL;
	}
	rx->head = 0;
	rx->ntc = 0;
}

/* ---- TX ------------------------------------------------------------------ */

static void rclink_tx_doorbell(struct rclink_net *net)
{
	u32 head = net->tx.head;

	/* arm first: the IP may finish the MDs while the head is written */
	rclink_tail_up_arm(net, false, head);
	rclink_wr64(net->rdev, RCLINK_TX_MD_HEAD_PTR,
		    FIELD_PREP(RCLINK_TX_MD_HEAD_PTR_HEAD, head));
	net->tx.db_head = head;
}

static void rclink_tx_xstat_inc(struct rclink_net *net, u64 *cnt)
{
	u64_stats_update_begin(&net->tx_xstats.syncp);
	(*cnt)++;
	u64_stats_update_end(&net->tx_xstats.syncp);
}

/*
 * A frame in one piece of at least ETH_ZLEN bytes goes from its own data:
 * map it (true).  Anything else, or a failed mapping, is copied.
 */
static bool rclink_tx_map(struct rclink_net *net, struct rclink_tx_slot *slot,
			  struct sk_buff *skb)
{
	struct device *dev = net->rdev->dev;
	dma_addr_t map;

	slot->map = 0;
	if (skb_is_nonlinear(skb) || skb->len < ETH_ZLEN)
		return false;
	map = dma_map_single(dev, skb->data, skb->len, DMA_TO_DEVICE);
	if (unlikely(dma_mapping_error(dev, map))) {
		rclink_tx_xstat_inc(net, &net->tx_xstats.map_err);
		return false;
	}
	slot->map = map;
	rclink_tx_xstat_inc(net, &net->tx_xstats.mapped);
	return true;
}

/* The frame of @slot is done with: its mapping goes */
static void rclink_tx_unmap(struct rclink_net *net, struct rclink_tx_slot *slot)
{
	if (!slot->map)
		return;
	dma_unmap_single(net->rdev->dev, slot->map, slot->bytes,
			 DMA_TO_DEVICE);
	slot->map = 0;
}

netdev_tx_t rclink_xmit(struct sk_buff *skb, struct net_device *netdev)
{
	struct netdev_queue *txq = netdev_get_tx_queue(netdev, 0);
	struct rclink_net *net = netdev_priv(netdev);
	struct rclink_txr *tx = &net->tx;
	unsigned int len = skb->len, size;
	struct rclink_tx_slot *slot;
	u32 head = tx->head;
	dma_addr_t addr;

	if (unlikely(!rclink_txr_unused(tx))) {
		/* the queue is stopped before the ring fills: not reached */
		netif_tx_stop_queue(txq);
		rclink_tx_xstat_inc(net, &net->tx_xstats.busy);
		return NETDEV_TX_BUSY;
	}
	slot = &tx->slot[head];
	if (unlikely(len > RCLINK_TX_BUF_SIZE)) {
		rclink_tx_xstat_inc(net, &net->tx_xstats.oversize);
		dev_kfree_skb_any(skb);
		goto out_doorbell;
	}

	if (rclink_tx_map(net, slot, skb)) {
		size = len;
		addr = slot->map;
	} else {
		/* one MD per frame (seed): frags and short frames are copied */
		if (unlikely(skb_copy_bits(skb, 0, slot->buf, len))) {
			rclink_tx_xstat_inc(net, &net->tx_xstats.oversize);
			dev_kfree_skb_any(skb);
			goto out_doorbell;
		}
		size = max_t(unsigned int, len, ETH_ZLEN);
		if (size > len)
			memset(slot->buf + len, 0, size - len);
		addr = slot->dma;
		rclink_tx_xstat_inc(net, &net->tx_xstats.copied);
	}
	slot->skb = skb;
	slot->bytes = len;
	tx->md[head].addr = cpu_to_le64(addr);
	tx->md[head].ctrl =
		cpu_to_le64(RCLINK_MD_CTRL_SF | RCLINK_MD_CTRL_LF |
			    FIELD_PREP(RCLINK_MD_CTRL_DATA_SIZE, size) |
			    FIELD_PREP(RCLINK_MD_CTRL_BUF_SIZE,
				       slot->map ? size : RCLINK_TX_BUF_SIZE));
	skb_tx_timestamp(skb);
	WRITE_ONCE(tx->head, rclink_ring_next(head, tx->size));

	/* the last MD taken: stop (rclink_tx_clean() wakes) */
	if (netif_txq_maybe_stop(txq, rclink_txr_unused(tx), 1,
				 rclink_tx_wake_thresh(tx)) <= 0)
		rclink_tx_xstat_inc(net, &net->tx_xstats.stop);

	/* the IP may complete the frame from here on: skb is not ours */
	if (__netdev_tx_sent_queue(txq, len, netdev_xmit_more()))
		rclink_tx_doorbell(net);
	return NETDEV_TX_OK;

out_doorbell:
	/* a dropped last frame of a batch still rings for the others */
	if (!netdev_xmit_more() && tx->db_head != tx->head)
		rclink_tx_doorbell(net);
	return NETDEV_TX_OK;
}

/* Free what the IP has sent (up to TX_MD_TAIL_PTR), wake the queue */
static void rclink_tx_clean(struct rclink_net *net, int budget)
{
	struct netdev_queue *txq = netdev_get_tx_queue(net->netdev, 0);
	struct rclink_txr *tx = &net->tx;
	u32 tail = rclink_tx_tail(net);
	u32 ntc = tx->ntc, head = READ_ONCE(tx->head);
	unsigned int pkts = 0, bytes = 0;
	struct rclink_tx_slot *slot;

	tx->tail_seen = tail;

	if (unlikely(tail >= tx->size ||
		     ((tail - ntc) & (tx->size - 1)) >
		     ((head - ntc) & (tx->size - 1)))) {
		if (tail != U32_MAX)
			netdev_warn_once(net->netdev,
					 "TX tail %u outside the posted MDs %u..%u\n",
					 tail, ntc, head);
		return;
	}
	if (tail == ntc)
		return;

	while (ntc != tail) {
		slot = &tx->slot[ntc];
		if (slot->skb) {
			pkts++;
			bytes += slot->bytes;
			rclink_tx_unmap(net, slot);
			napi_consume_skb(slot->skb, budget);
			slot->skb = NULL;
		}
		ntc = rclink_ring_next(ntc, tx->size);
	}
	WRITE_ONCE(tx->ntc, ntc);

	u64_stats_update_begin(&net->tx_stats.syncp);
	net->tx_stats.packets += pkts;
	net->tx_stats.bytes += bytes;
	u64_stats_update_end(&net->tx_stats.syncp);

	/* BQL, then wake a stopped queue once enough MDs are free */
	if (!netif_txq_completed_wake(txq, pkts, bytes, rclink_txr_unused(tx),
				      rclink_tx_wake_thresh(tx))) {
		u64_stats_update_begin(&net->tx_stats.syncp);
		net->tx_stats.wake++;
		u64_stats_update_end(&net->tx_stats.syncp);
	}
}

/* Free the frames still in flight (the path is in reset) */
static void rclink_tx_flush(struct rclink_net *net, bool fault)
{
	struct rclink_txr *tx = &net->tx;
	unsigned int n = 0;
	u32 i;

	for (i = 0; i < tx->size; i++) {
		if (!tx->slot[i].skb)
			continue;
		rclink_tx_unmap(net, &tx->slot[i]);
		dev_kfree_skb_any(tx->slot[i].skb);
		tx->slot[i].skb = NULL;
		n++;
	}
	u64_stats_update_begin(&net->tx_stats.syncp);
	if (fault)
		net->tx_stats.flush_fault += n;
	else
		net->tx_stats.flush_down += n;
	u64_stats_update_end(&net->tx_stats.syncp);
	tx->head = 0;
	tx->ntc = 0;
	tx->db_head = 0;
	netdev_tx_reset_queue(netdev_get_tx_queue(net->netdev, 0));
}

/* ---- NAPI ---------------------------------------------------------------- */

int rclink_napi_poll(struct napi_struct *napi, int budget)
{
	struct rclink_net *net = container_of(napi, struct rclink_net, napi);
	u32 rx_tail, tx_tail;
	int done;

	/* vector 2 fired: the causes first (counted, cleared, faults) */
	if (atomic_xchg(&net->t3_irq, 0) && rclink_t3_causes(net->rdev)) {
		rclink_cnt_inc(net->rdev, RCLINK_CNT_T3_nonr);
		rclink_cnt_inc(net->rdev, RCLINK_CNT_T3_VECTOR);
	}
	rclink_tx_clean(net, budget);
	done = rclink_rx_clean(net, budget);
	if (done >= budget)
		return budget;
	if (!napi_complete_done(napi, done))
		return done;

	/* the next frame past what was cleaned raises rx_tail_up */
	rclink_tail_up_arm(net, true,
			   rclink_ring_next(net->rx.ntc, net->rx.size));
	/*
	 * A tail that moved before the arm raised nothing: look again.  (Not
	 * against ntc: a tail the cleaning refused must not spin NAPI.)
	 */
	rx_tail = rclink_rx_tail(net);
	tx_tail = rclink_tx_tail(net);
	if (rx_tail != net->rx.tail_seen || tx_tail != net->tx.tail_seen)
		napi_schedule(napi);
	return done;
}

/* ---- path start / stop --------------------------------------------------- */

/*
 * Program both rings and take the path out of reset (it is in reset: the
 * reset value, or rclink_t3_hw_stop()).  @poison_rx gives the first RX MD
 * BUF_SIZE 0 (the rx_md_size_zero test hook).  NAPI is disabled.
 */
void rclink_t3_hw_start(struct rclink_net *net, bool poison_rx)
{
	struct rclink_dev *rdev = net->rdev;
	struct rclink_txr *tx = &net->tx;
	struct rclink_rxr *rx = &net->rx;

	tx->head = 0;
	tx->ntc = 0;
	tx->db_head = 0;
	tx->tail_seen = 0;
	rx->head = 0;
	rx->ntc = 0;
	rx->tail_seen = 0;
	memset(tx->md, 0, tx->size * sizeof(*tx->md));
	memset(rx->md, 0, rx->size * sizeof(*rx->md));

	rclink_wr64(rdev, RCLINK_TX_MDQ_BA, tx->md_dma);
	rclink_wr64(rdev, RCLINK_TX_MDQ_SIZE,
		    FIELD_PREP(RCLINK_TX_MDQ_SIZE_SIZE, tx->size));
	rclink_wr64(rdev, RCLINK_RX_MDQ_BA, rx->md_dma);
	rclink_wr64(rdev, RCLINK_RX_MDQ_SIZE,
		    FIELD_PREP(RCLINK_RX_MDQ_SIZE_SIZE, rx->size));

	rclink_rx_refill(net);
	if (poison_rx && rx->head != rx->ntc)
		rx->md[rx->ntc].ctrl &= ~cpu_to_le64(RCLINK_MD_CTRL_BUF_SIZE);

	rclink_wr64(rdev, RCLINK_NONR_DMA_CTRL,
		    RCLINK_NONR_DMA_CTRL_TX_EN | RCLINK_NONR_DMA_CTRL_RX_EN |
		    RCLINK_NONR_DMA_CTRL_TX_RESET |
		    RCLINK_NONR_DMA_CTRL_RX_RESET);

	spin_lock_bh(&net->tail_up_lock);
	net->tail_up = FIELD_PREP(RCLINK_TAIL_UP_CFG_TX_TAIL_UP, 0) |
		       FIELD_PREP(RCLINK_TAIL_UP_CFG_RX_TAIL_UP,
				  rclink_ring_next(0, rx->size));
	rclink_wr64(rdev, RCLINK_TAIL_UP_CFG, net->tail_up);
	spin_unlock_bh(&net->tail_up_lock);
	rclink_wr64(rdev, RCLINK_DMA_INT_MASK,
		    RCLINK_DMA_INT_MASK_TX_TAIL_UP |
		    RCLINK_DMA_INT_MASK_RX_TAIL_UP);
	rclink_wr64(rdev, RCLINK_RX_MD_HEAD_PTR,
		    FIELD_PREP(RCLINK_RX_MD_HEAD_PTR_HEAD, rx->head));
}

/*
 * Both paths into reset (no DMA after the read back), then free what was
 * in flight: TX frames count as tx_errors after a fault, else tx_dropped.
 * NAPI and the TX queue are stopped.
 */
void rclink_t3_hw_stop(struct rclink_net *net, bool fault)
{
	struct rclink_dev *rdev = net->rdev;

	rclink_wr64(rdev, RCLINK_DMA_INT_MASK, 0);
	rclink_wr64(rdev, RCLINK_NONR_DMA_CTRL, 0);
	rclink_rd64(rdev, RCLINK_NONR_DMA_CTRL);	/* flush */
	rclink_tx_flush(net, fault);
	rclink_rx_flush(net);
}

/* ---- fault hook ---------------------------------------------------------- */

/*
 * Post deliberately malformed TX MDs (debugfs t3_fault, a test hook): the
 * IP raises the matching DMA_INTR_ST1 fault and halts TX until a reset, or
 * for a data read that fails (data_axi_resp_err) only drops the frame.
 */
int rclink_t3_fault_post_tx(struct rclink_net *net, enum rclink_t3_fault f)
{
	const u64 buf = FIELD_PREP(RCLINK_MD_CTRL_BUF_SIZE, RCLINK_TX_BUF_SIZE);
	const u64 small = FIELD_PREP(RCLINK_MD_CTRL_DATA_SIZE, ETH_ZLEN);
	struct rclink_txr *tx = &net->tx;
	unsigned int i, n = 1;
	u64 ctrl;
	int err = 0;

	switch (f) {
	case RCLINK_T3_FAULT_TX_TWO_SOP:
		ctrl = RCLINK_MD_CTRL_SF | small | buf;
		n = 2;
		break;
	case RCLINK_T3_FAULT_TX_TWO_EOP:
		ctrl = RCLINK_MD_CTRL_LF | small | buf;
		n = 2;
		break;
	case RCLINK_T3_FAULT_TX_MD_SIZE_ZERO:
		ctrl = RCLINK_MD_CTRL_SF | RCLINK_MD_CTRL_LF | buf;
		break;
	case RCLINK_T3_FAULT_TX_OVERSIZE:
		ctrl = RCLINK_MD_CTRL_SF | RCLINK_MD_CTRL_LF | buf |
		       FIELD_PREP(RCLINK_MD_CTRL_DATA_SIZE,
				  RCLINK_MD_TX_MAX_FRAME + 1);
		break;
	case RCLINK_T3_FAULT_DATA_AXI_RESP_ERR:
		ctrl = RCLINK_MD_CTRL_SF | RCLINK_MD_CTRL_LF | small | buf;
		break;
	default:
		return -EINVAL;
	}

	netif_tx_lock_bh(net->netdev);
	if (rclink_txr_unused(tx) < n) {
		err = -EBUSY;
		goto out;
	}
	for (i = 0; i < n; i++) {
		memset(tx->slot[tx->head].buf, 0, ETH_ZLEN);
		tx->slot[tx->head].skb = NULL;
		tx->slot[tx->head].bytes = 0;
		tx->md[tx->head].addr =
			cpu_to_le64(f == RCLINK_T3_FAULT_DATA_AXI_RESP_ERR ?
				    RCLINK_T3_FAULT_BAD_ADDR :
				    tx->slot[tx->head].dma);
		tx->md[tx->head].ctrl = cpu_to_le64(ctrl);
		WRITE_ONCE(tx->head, rclink_ring_next(tx->head, tx->size));
	}
	rclink_tx_doorbell(net);
out:
	netif_tx_unlock_bh(net->netdev);
	return err;
}
