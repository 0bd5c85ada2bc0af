// SPDX-License-Identifier: GPL-2.0
/*
 * Host-side checks of the generated hardware contract against the exact
 * values of the hardware documents (seed 000 register appendix, IRQ_INFO
 * layout, TYPE3 fault bits of 0x1170; seed 003 MAC IDs) and of the
 * register table's internal consistency.  KTAP output.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rclink_hw.h"
#include "rclink_regtab.h"

static int test_no, failed;

#define FIELD_GET64(mask, v) (((v) & (mask)) >> __builtin_ctzll(mask))

static void result(int ok, const char *name)
{
	printf("%s %d %s\n", ok ? "ok" : "not ok", ++test_no, name);
	if (!ok)
		failed++;
}

#define CHECK_EQ(name, got, want) do {					\
	unsigned long long g_ = (got), w_ = (want);			\
	if (g_ != w_)							\
		printf("# %s: got 0x%llx want 0x%llx\n", name, g_, w_);	\
	result(g_ == w_, name);						\
} while (0)

static const struct rclink_regdesc *find(const char *name)
{
	unsigned int i;

	for (i = 0; i < RCLINK_REGTAB_LEN; i++)
		if (!strcmp(rclink_regtab[i].name, name))
			return &rclink_regtab[i];
	return NULL;
}

static void test_seed_addresses(void)
{
	/* seed 000, 附录: 关键寄存器地址速查 */
	static const struct { const char *name; unsigned int addr; } v[] = {
		{ "RDMA_EN", 0x0000 }, { "XON_THR_RDMA", 0x0008 },
		{ "MAC_ADDR", 0x0010 }, { "XON_THR_NON_RDMA", 0x0018 },
		{ "IP_ADDR", 0x0020 }, { "VLAN_CTRL", 0x0028 },
		{ "RETRY_TIMER_CFG", 0x0040 }, { "INTR_STATUS", 0x00a0 },
		{ "DEST_IP_MEM2", 0x0110 }, { "DEST_MAC_MEM2", 0x0118 },
		{ "UDP_PORT_MEM2", 0x0120 }, { "AFH_CFG_EN", 0x0160 },
		{ "TYPE2_DA_0", 0x0168 }, { "TYPE2_DA_7", 0x01a0 },
		{ "TRAFFIC_CLASS", 0x0220 }, { "TX_MD_HEAD_PTR", 0x1000 },
		{ "RX_MD_HEAD_PTR", 0x1020 }, { "TX_MD_TAIL_PTR", 0x1040 },
		{ "RX_MD_TAIL_PTR", 0x1060 }, { "TX_MDQ_BA", 0x1080 },
		{ "RX_MDQ_BA", 0x10c0 }, { "TX_MDQ_SIZE", 0x1100 },
		{ "RX_MDQ_SIZE", 0x1120 }, { "NONR_DMA_CTRL", 0x1140 },
		{ "DMA_INTR_ST0", 0x1150 }, { "DMA_INTR_ST1", 0x1170 },
		{ "DMA_INT_MASK", 0x1178 }, { "TAIL_UP_CFG", 0x1190 },
		{ "DEST_IP_MEM", 0x2008 }, { "DEST_MAC_MEM", 0x2010 },
		{ "UDP_SRC_PORT_MEM", 0x2018 },
		{ "QP_CONTROL_STATUS", 0x2028 },
		{ "EXPECT_RESP_PSN_MEM", 0x2030 },
		{ "TX_LAST_PSN_MEM", 0x2038 }, { "TX_ACK_SN_MEM", 0x2040 },
		{ "TX_SPEED_MEM", 0x2048 }, { "TX_CC_BYTE_CNT_MEM", 0x2050 },
		{ "TX_EPSN_MEM", 0x2058 }, { "RETRY_CNT_MEM", 0x2060 },
		{ "BTH_QP_CFG_MEM", 0x2070 }, { "REQ_CHK_SN_MEM", 0x2078 },
		{ "TX_MAX_FW_PSN_MEM", 0x2080 }, { "QP_ID_SET", 0x2088 },
	};
	unsigned int i, bad = 0;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		const struct rclink_regdesc *d = find(v[i].name);

		if (!d || d->offset != RCLINK_WIN_RC_BASE + v[i].addr) {
			printf("# %s not at 0x%04x\n", v[i].name, v[i].addr);
			bad++;
		}
	}
	result(!bad, "seed_register_addresses");
}

static void test_irq_info_layout(void)
{
	/* TYPE1, qpid 1023 (QP_AW = 10), code 2 "TX retry times out" */
	uint64_t info = (1ULL << 31) | (1023ULL << 5) | 2;
	/* TYPE3 with rx md tail 0x1abc and tx md tail 0x0123, code 1 */
	uint64_t t3 = (3ULL << 31) | (0x1abcULL << 18) | (0x0123ULL << 5) | 1;

	CHECK_EQ("irq_info_type1", FIELD_GET64(RCLINK_IRQ_INFO_TYPE, info),
		 RCLINK_IRQ_TYPE1);
	CHECK_EQ("irq_info_t1_qpid", FIELD_GET64(RCLINK_IRQ_INFO_T1_QPID, info),
		 1023);
	CHECK_EQ("irq_info_t1_code", FIELD_GET64(RCLINK_IRQ_INFO_CODE, info),
		 RCLINK_IRQ_TYPE1_RETRY_TIMEOUT);
	CHECK_EQ("irq_info_type3", FIELD_GET64(RCLINK_IRQ_INFO_TYPE, t3),
		 RCLINK_IRQ_TYPE3);
	CHECK_EQ("irq_info_t3_rx_tail",
		 FIELD_GET64(RCLINK_IRQ_INFO_T3_RX_TAIL, t3), 0x1abc);
	CHECK_EQ("irq_info_t3_tx_tail",
		 FIELD_GET64(RCLINK_IRQ_INFO_T3_TX_TAIL, t3), 0x0123);
	CHECK_EQ("irq_info_t2_subtype",
		 FIELD_GET64(RCLINK_IRQ_INFO_T2_SUBTYPE, (2ULL << 31) |
			     (1 << 5) | 4), 1);
}

static void test_type3_fault_bits(void)
{
	/* seed 000, NONR_FAULT_INTR_O: 0x1170 bits 0..10 */
	uint64_t all = RCLINK_DMA_INTR_ST1_RX_FIFO_OVERFLOW |
		RCLINK_DMA_INTR_ST1_TX_FIFO_UNDERFLOW |
		RCLINK_DMA_INTR_ST1_MD_AXI_WR_RESP_ERR |
		RCLINK_DMA_INTR_ST1_MD_AXI_RD_RESP_ERR |
		RCLINK_DMA_INTR_ST1_DATA_AXI_RESP_ERR |
		RCLINK_DMA_INTR_ST1_TX_TWO_SOP | RCLINK_DMA_INTR_ST1_TX_TWO_EOP |
		RCLINK_DMA_INTR_ST1_TX_OVERSIZE |
		RCLINK_DMA_INTR_ST1_RX_OVERSIZE |
		RCLINK_DMA_INTR_ST1_TX_MD_SIZE_ZERO |
		RCLINK_DMA_INTR_ST1_RX_MD_SIZE_ZERO;

	CHECK_EQ("type3_fault_bits_cover_10_0", all, 0x7ff);
	CHECK_EQ("type3_tx_two_sop_bit5", RCLINK_DMA_INTR_ST1_TX_TWO_SOP,
		 1 << 5);
	CHECK_EQ("type3_rx_md_size_zero_bit10",
		 RCLINK_DMA_INTR_ST1_RX_MD_SIZE_ZERO, 1 << 10);
	CHECK_EQ("type3_st0_abnormal_bit4", RCLINK_DMA_INTR_ST0_ABNORMAL,
		 1 << 4);
	CHECK_EQ("nonr_dma_ctrl_bits", RCLINK_NONR_DMA_CTRL_TX_EN |
		 RCLINK_NONR_DMA_CTRL_RX_EN | RCLINK_NONR_DMA_CTRL_TX_RESET |
		 RCLINK_NONR_DMA_CTRL_RX_RESET,
		 (1ULL << 0) | (1ULL << 8) | (1ULL << 16) | (1ULL << 31));
}

static void test_rc_intr_bits(void)
{
	/* seed 000, RC_INTR_O: bits 0, 1, 3, 6, 9, 12, 14, 15 */
	uint64_t all = RCLINK_INTR_STATUS_T1_TX_OVERSIZE |
		RCLINK_INTR_STATUS_T1_TX_OVERCREDIT |
		RCLINK_INTR_STATUS_T1_RETRY_OVER |
		RCLINK_INTR_STATUS_T2_TX_OVERSIZE |
		RCLINK_INTR_STATUS_T2_TX_OVERCREDIT |
		RCLINK_INTR_STATUS_T2_RX_OVERSIZE |
		RCLINK_INTR_STATUS_T1_TX_QP_DISABLED |
		RCLINK_INTR_STATUS_T1_RX_QP_DISABLED;

	CHECK_EQ("rc_intr_bits", all, 0xd24b);
}

static void test_mac_ids(void)
{
	/* seed 003: word address N sits at byte 4 * N of the MAC window */
	CHECK_EQ("mac_tx_fc_variant0_addr", RCLINK_TX_FC_VARIANT0,
		 RCLINK_WIN_MAC_BASE + 4 * 0x602);
	CHECK_EQ("mac_tx_fc_variant0_reset", RCLINK_TX_FC_VARIANT0_RSTVAL,
		 0x31303047);
	CHECK_EQ("mac_rx_fc_variant1_reset", RCLINK_RX_FC_VARIANT1_RSTVAL,
		 0x46435278);
	CHECK_EQ("mac_tx_fc_quanta7_addr", RCLINK_TX_FC_QUANTA(7),
		 RCLINK_WIN_MAC_BASE + 4 * 0x627);
	CHECK_EQ("mac_rx_fc_daddr_hi_reset", RCLINK_RX_FC_DADDR_HI_RSTVAL,
		 0x0180);
}

static void test_regtab_consistency(void)
{
	unsigned int i, bad = 0;

	for (i = 0; i < RCLINK_REGTAB_LEN; i++) {
		const struct rclink_regdesc *d = &rclink_regtab[i];
		uint64_t all = d->rw | d->ro | d->w1c | d->wo;
		uint64_t width = d->width == 64 ? ~0ULL : 0xffffffffULL;

		if ((d->rw & d->ro) || (d->rw & d->w1c) || (d->rw & d->wo) ||
		    (d->ro & d->w1c) || (d->ro & d->wo) || (d->w1c & d->wo) ||
		    (d->sc & ~d->rw) || (d->reset & ~all) || (all & ~width) ||
		    (d->per_qp && (d->offset < 0x2000 || d->offset > 0x2080)) ||
		    d->offset % (d->width / 8)) {
			printf("# %s inconsistent\n", d->name);
			bad++;
		}
	}
	result(!bad, "regtab_consistency");
}

int main(void)
{
	printf("TAP version 13\n1..20\n");
	test_seed_addresses();
	test_irq_info_layout();
	test_type3_fault_bits();
	test_rc_intr_bits();
	test_mac_ids();
	test_regtab_consistency();
	if (test_no != 20)
		printf("# planned 20 tests, ran %d\n", test_no);
	return failed || test_no != 20;
}
