/*
 * rclink board model: the behaviour of the PCIe shim and the RCLINK-Stream
 * IP registers, independent of the PCI/QOM glue.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HW_RCLINK_CORE_H
#define HW_RCLINK_CORE_H

#include "hw/pci/pci_device.h"
#include "rclink_hw.h"
#include "rclink_regtab.h"

#define RCLINK_QP_NUM_MAX 1024
/* 4-byte granules of BAR0 */
#define RCLINK_MAP_LEN (RCLINK_BAR0_SIZE / 4)

typedef struct RclinkCore {
    PCIDevice *pci;

    /* board configuration (device properties) */
    uint32_t magic;
    uint16_t shim_major;
    uint32_t qp_num;
    uint64_t serial;
    unsigned num_vectors;
    bool link_up;

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
} RclinkCore;

void rclink_core_init(RclinkCore *core, PCIDevice *pci);
void rclink_core_fini(RclinkCore *core);
void rclink_core_reset(RclinkCore *core);
uint64_t rclink_core_read(RclinkCore *core, hwaddr addr, unsigned size);
void rclink_core_write(RclinkCore *core, hwaddr addr, uint64_t val,
                       unsigned size);
void rclink_core_set_link(RclinkCore *core, bool up);

#endif
