/*
 * rclink board model: the RTL variant's state (rclink_cosim.c).
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef RCLINK_COSIM_DEV_H
#define RCLINK_COSIM_DEV_H

#include "hw/pci/pci_device.h"
#include "rclink_core.h"

/* the TX_S packet the bridge takes: at most TYPE1_PKT_LEN */
#define RCLINK_T1_PKT_MAX RCLINK_PARAM_TYPE1_PKT_LEN_DEFAULT

typedef struct RclinkCosim {
    PCIDevice *pdev;
    const char *path;
    unsigned num_vectors;
    int fd;                 /* -1: no simulator (dead or never there) */
    uint32_t cfg;           /* the configuration state last sent */
    bool intx;
    bool read_pending;      /* a BAR0 read waits for its completion */
    bool cpl_ready;         /* ... and it came: cpl */
    uint64_t cpl;
    QEMUBH *bh;             /* handles what a blocked send took in */
    /* the bridge (rtl-bridge=on): this model's IP behind the RTL shim */
    RclinkCore *core;       /* NULL: the simulator's stand-ins */
    uint64_t epoch;         /* IP_RESETs taken */
    uint8_t flow_stop;      /* the shim's FLOW_STOP */
    unsigned rx_pending;    /* RX_M packets handed over, not yet taken */
    bool rx_slow;           /* a wait for one to be taken took none */
    bool drain_due;         /* room came while a packet was refused */
    bool levels_sent;
    uint64_t levels[3];     /* the IP_LEVELS last sent */
    size_t txlen;           /* the TX_S packet being taken */
    bool tx_bad;
    uint8_t txbuf[(RCLINK_PARAM_TYPE2_PKT_LEN_DEFAULT > RCLINK_T1_PKT_MAX ?
                  RCLINK_PARAM_TYPE2_PKT_LEN_DEFAULT : RCLINK_T1_PKT_MAX) + 8];
    size_t inoff, inlen;    /* the messages not handled: inbuf[inoff..inlen) */
    uint8_t inbuf[65536];
} RclinkCosim;

void rclink_cosim_init(RclinkCosim *c, PCIDevice *pdev, const char *path,
                       unsigned num_vectors, RclinkCore *core);
void rclink_cosim_fini(RclinkCosim *c);
uint64_t rclink_cosim_read(RclinkCosim *c, hwaddr addr, unsigned size);
void rclink_cosim_write(RclinkCosim *c, hwaddr addr, uint64_t val,
                        unsigned size);
void rclink_cosim_db_write(RclinkCosim *c, hwaddr addr, uint64_t val,
                           unsigned size);
void rclink_cosim_config(RclinkCosim *c);
void rclink_cosim_reset(RclinkCosim *c);

#endif
