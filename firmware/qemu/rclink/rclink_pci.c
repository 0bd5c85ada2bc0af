/*
 * rclink board model: PCI/QOM glue.  The board is a PCIe endpoint with BAR0
 * (RCLINK IP, shim, queue engine and MAC windows), MSI-X in BAR2, MSI and
 * INTx; its wire is a QEMU netdev.  The behaviour lives in rclink_core.c.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "qemu/osdep.h"
#include "qemu/module.h"
#include "qapi/error.h"
#include "hw/pci/pci_device.h"
#include "hw/pci/pcie.h"
#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "hw/qdev-properties.h"
#include "migration/vmstate.h"
#include "net/net.h"
#include "qom/object.h"
#include "rclink_core.h"
#include "rclink_cosim.h"
#include "rclink_cosim_dev.h"
#include "trace.h"

#define TYPE_RCLINK "rclink"
OBJECT_DECLARE_SIMPLE_TYPE(RclinkState, RCLINK)

#define RCLINK_PCIE_CAP_OFFSET 0x80
#define RCLINK_MSI_CAP_OFFSET 0x50
#define RCLINK_AER_OFFSET 0x100
#define RCLINK_PM_CAP_OFFSET 0xc0

struct RclinkState {
    PCIDevice parent_obj;

    MemoryRegion mmio;
    MemoryRegion db;                   /* BAR4: the contexts' doorbells */
    NICState *nic;
    NICConf conf;
    RclinkCore core;

    /* properties */
    uint32_t magic;
    uint16_t shim_major;
    bool assumed_regs;
    bool ip_counters;
    uint32_t qp_num;
    uint32_t t2_pkt_len;
    uint64_t serial;
    bool msix;
    bool msi;
    /* the RTL variant: BAR0, DMA and interrupts of a simulator's socket */
    char *rtl;
    bool rtl_bridge;        /* ... with this model's IP behind its shim */
    RclinkCosim cosim;
};

static uint64_t rclink_mmio_read(void *opaque, hwaddr addr, unsigned size)
{
    RclinkState *s = opaque;

    if (s->rtl) {
        return rclink_cosim_read(&s->cosim, addr, size);
    }
    return rclink_core_read(&s->core, addr, size);
}

static void rclink_mmio_write(void *opaque, hwaddr addr, uint64_t val,
                              unsigned size)
{
    RclinkState *s = opaque;

    if (s->rtl) {
        rclink_cosim_write(&s->cosim, addr, val, size);
        return;
    }
    rclink_core_write(&s->core, addr, val, size);
}

static const MemoryRegionOps rclink_mmio_ops = {
    .read = rclink_mmio_read,
    .write = rclink_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    /* Every size reaches the core, which refuses the bad ones loudly. */
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

/*
 * BAR4, the doorbell pages of the contexts (Documentation/hw/shim.rst,
 * "Contexts"): write only, reads return 0.
 */
static uint64_t rclink_db_read(void *opaque, hwaddr addr, unsigned size)
{
    return 0;
}

static void rclink_db_write(void *opaque, hwaddr addr, uint64_t val,
                            unsigned size)
{
    RclinkState *s = opaque;

    if (s->rtl) {
        rclink_cosim_db_write(&s->cosim, addr, val, size);
        return;
    }
    rclink_ctx_db_write(&s->core, addr, val, size);
}

static const MemoryRegionOps rclink_db_ops = {
    .read = rclink_db_read,
    .write = rclink_db_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

/* The model drops (and counts) what it cannot take: never stall the wire. */
static bool rclink_can_receive(NetClientState *nc)
{
    return true;
}

static ssize_t rclink_receive(NetClientState *nc, const uint8_t *buf,
                              size_t size)
{
    RclinkState *s = qemu_get_nic_opaque(nc);

    trace_rclink_rx(size);
    rclink_core_receive(&s->core, buf, size);
    return size;
}

/* The wire's carrier: our end and the netdev we are plugged into. */
static bool rclink_carrier(NetClientState *nc)
{
    return !nc->link_down && !(nc->peer && nc->peer->link_down);
}

static void rclink_link_status_changed(NetClientState *nc)
{
    RclinkState *s = qemu_get_nic_opaque(nc);

    trace_rclink_link(rclink_carrier(nc));
    rclink_core_set_link(&s->core, rclink_carrier(nc));
}

static NetClientInfo rclink_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .can_receive = rclink_can_receive,
    .receive = rclink_receive,
    .link_status_changed = rclink_link_status_changed,
};

static void rclink_realize(PCIDevice *pdev, Error **errp)
{
    RclinkState *s = RCLINK(pdev);
    DeviceState *dev = DEVICE(pdev);
    uint8_t *mac;
    unsigned v;

    if (s->rtl_bridge && !s->rtl) {
        error_setg(errp, "rclink: rtl-bridge needs rtl=SOCKET");
        return;
    }
    if (s->qp_num < 4 || s->qp_num > RCLINK_QP_NUM_MAX ||
        !is_power_of_2(s->qp_num)) {
        error_setg(errp, "rclink: qp-num must be a power of two in 4..%u",
                   RCLINK_QP_NUM_MAX);
        return;
    }
    /* the TYPE2 frame buffers hold packets of the default length */
    if (s->t2_pkt_len > RCLINK_PARAM_TYPE2_PKT_LEN_DEFAULT) {
        error_setg(errp, "rclink: type2-pkt-len must be in 0..%u",
                   RCLINK_PARAM_TYPE2_PKT_LEN_DEFAULT);
        return;
    }

    pdev->config[PCI_INTERRUPT_PIN] = 1;
    memory_region_init_io(&s->mmio, OBJECT(s), &rclink_mmio_ops, s,
                          "rclink-bar0", RCLINK_BAR0_SIZE);
    pci_register_bar(pdev, 0, PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64, &s->mmio);
    /*
     * one doorbell page per context: the model's RCLINK_CTX_NUM, or the
     * simulated shim's (its DMAQ_CTX_CAP.num), whose writes go to it
     */
    memory_region_init_io(&s->db, OBJECT(s), &rclink_db_ops, s,
                          "rclink-doorbells",
                          (uint64_t)(s->rtl ? RCLINK_COSIM_NCTX : RCLINK_CTX_NUM)
                          << RCLINK_CTX_DB_SHIFT);
    pci_register_bar(pdev, RF_GET(RCLINK_DMAQ_CTX_CAP_DB_BAR,
                                  RCLINK_DMAQ_CTX_CAP_RSTVAL),
                     PCI_BASE_ADDRESS_SPACE_MEMORY |
                     PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH, &s->db);

    if (pcie_endpoint_cap_init(pdev, RCLINK_PCIE_CAP_OFFSET) < 0) {
        error_setg(errp, "rclink: PCIe capability init failed");
        return;
    }
    /* function level reset and advanced error reporting */
    pcie_cap_flr_init(pdev);
    pcie_cap_deverr_init(pdev);
    if (pcie_aer_init(pdev, PCI_ERR_VER, RCLINK_AER_OFFSET, PCI_ERR_SIZEOF,
                      errp) < 0) {
        return;
    }
    /*
     * Power management, D0 and D3hot.  No_Soft_Reset is 0: the return from
     * D3hot to D0 resets the board (rclink_write_config), as the hard IP's
     * function reset would.
     */
    if (pci_pm_init(pdev, RCLINK_PM_CAP_OFFSET, errp) < 0) {
        return;
    }
    pci_set_word(pdev->config + pdev->pm_cap + PCI_PM_PMC, 0x3);
    pci_set_word(pdev->wmask + pdev->pm_cap + PCI_PM_CTRL,
                 PCI_PM_CTRL_STATE_MASK);
    if (s->msi && msi_init(pdev, RCLINK_MSI_CAP_OFFSET, 1, true, false,
                           errp) < 0) {
        return;
    }
    if (s->msix) {
        if (msix_init_exclusive_bar(pdev, RCLINK_MSIX_VECTORS,
                                    RCLINK_MSIX_BAR, errp) < 0) {
            msi_uninit(pdev);
            return;
        }
        for (v = 0; v < RCLINK_MSIX_VECTORS; v++) {
            msix_vector_use(pdev, v);
        }
    }

    qemu_macaddr_default_if_unset(&s->conf.macaddr);
    s->nic = qemu_new_nic(&rclink_net_info, &s->conf,
                          object_get_typename(OBJECT(s)), dev->id,
                          &dev->mem_reentrancy_guard, s);
    mac = s->conf.macaddr.a;
    qemu_format_nic_info_str(qemu_get_queue(s->nic), mac);

    s->core.magic = s->magic;
    s->core.shim_major = s->shim_major;
    s->core.assumed_regs = s->assumed_regs;
    s->core.ip_counters = s->ip_counters;
    s->core.qp_num = s->qp_num;
    s->core.t2_pkt_len = s->t2_pkt_len;
    s->core.num_vectors = RCLINK_MSIX_VECTORS;
    /* Default serial: "RC" and the wire MAC, unique per board. */
    s->core.serial = s->serial ? s->serial :
        0x5243000000000000ULL | ((uint64_t)mac[0] << 40) |
        ((uint64_t)mac[1] << 32) | ((uint64_t)mac[2] << 24) |
        ((uint64_t)mac[3] << 16) | ((uint64_t)mac[4] << 8) | mac[5];
    memcpy(s->core.mac, mac, sizeof(s->core.mac));
    s->core.nic = s->nic;
    s->core.carrier = rclink_carrier(qemu_get_queue(s->nic));
    rclink_core_init(&s->core, pdev);
    rclink_core_reset(&s->core);
    if (s->rtl) {
        /*
         * BAR0 never reaches the model's core: it stays idle, or (the
         * bridge) serves as the IP, MAC and wire behind the RTL's shim
         */
        rclink_cosim_init(&s->cosim, pdev, s->rtl, RCLINK_MSIX_VECTORS,
                          s->rtl_bridge ? &s->core : NULL);
        if (s->rtl_bridge) {
            s->core.bridge = &s->cosim;
        }
    }
}

static uint8_t rclink_pm_state(PCIDevice *pdev)
{
    return pci_get_word(pdev->config + pdev->pm_cap + PCI_PM_CTRL) &
           PCI_PM_CTRL_STATE_MASK;
}

/*
 * Config space writes: a FLR resets the board (rclink_reset_hold), and so
 * does the way back from D3hot to D0 (the board's state, not the
 * configuration space: the host restores that)
 */
static void rclink_write_config(PCIDevice *pdev, uint32_t addr, uint32_t val,
                                int len)
{
    RclinkState *s = RCLINK(pdev);
    uint8_t pm = rclink_pm_state(pdev);

    pci_default_write_config(pdev, addr, val, len);
    pcie_cap_flr_write_config(pdev, addr, val, len);
    if (pm != rclink_pm_state(pdev)) {
        trace_rclink_pm_state(pm, rclink_pm_state(pdev));
        if (pm == 3 && !rclink_pm_state(pdev)) {
            rclink_core_reset(&s->core);
            if (s->rtl) {
                rclink_cosim_reset(&s->cosim);
            }
        }
    }
    if (s->rtl) {
        rclink_cosim_config(&s->cosim);
    }
}

static void rclink_exit(PCIDevice *pdev)
{
    RclinkState *s = RCLINK(pdev);

    pcie_aer_exit(pdev);
    qemu_del_nic(s->nic);
    if (s->msix) {
        msix_uninit_exclusive_bar(pdev);
    }
    msi_uninit(pdev);
    if (s->rtl) {
        rclink_cosim_fini(&s->cosim);
    }
    rclink_core_fini(&s->core);
}

static void rclink_reset_hold(Object *obj, ResetType type)
{
    RclinkState *s = RCLINK(obj);

    rclink_core_reset(&s->core);
    if (s->rtl) {
        rclink_cosim_reset(&s->cosim);
    }
}

static const Property rclink_properties[] = {
    DEFINE_NIC_PROPERTIES(RclinkState, conf),
    DEFINE_PROP_UINT32("magic", RclinkState, magic, RCLINK_MAGIC),
    DEFINE_PROP_UINT16("shim-major", RclinkState, shim_major,
                       RCLINK_SHIM_MAJOR),
    DEFINE_PROP_UINT32("qp-num", RclinkState, qp_num,
                       RCLINK_PARAM_QP_NUM_DEFAULT),
    /* TYPE2_PKT_LEN, at most the default (a board that limits TYPE2) */
    DEFINE_PROP_UINT32("type2-pkt-len", RclinkState, t2_pkt_len,
                       RCLINK_PARAM_TYPE2_PKT_LEN_DEFAULT),
    DEFINE_PROP_UINT64("serial", RclinkState, serial, 0),
    DEFINE_PROP_BOOL("msix", RclinkState, msix, true),
    DEFINE_PROP_BOOL("msi", RclinkState, msi, true),
    /* off: the bits whose place rclink assumed are absent (read 0) */
    DEFINE_PROP_BOOL("assumed-regs", RclinkState, assumed_regs, true),
    /*
     * off: the counters of events inside the IP that no IP port or
     * register reports read 0 and SHIM_CAP3.ip_counters is 0, as on a
     * shim beside the real IP (shim.rst, "What a shim can count")
     */
    DEFINE_PROP_BOOL("ip-internal-counters", RclinkState, ip_counters,
                     true),
    /* UNIX socket of an RTL simulator (firmware/rtl/cosim): BAR0 is its */
    DEFINE_PROP_STRING("rtl", RclinkState, rtl),
    /* on: the simulator's IP side is this model's IP and wire (--ip-bridge) */
    DEFINE_PROP_BOOL("rtl-bridge", RclinkState, rtl_bridge, false),
};

static const VMStateDescription rclink_vmstate = {
    .name = "rclink",
    .unmigratable = 1,
};

static void rclink_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);
    ResettableClass *rc = RESETTABLE_CLASS(klass);
    PCIDeviceClass *k = PCI_DEVICE_CLASS(klass);

    k->realize = rclink_realize;
    k->exit = rclink_exit;
    k->config_write = rclink_write_config;
    k->vendor_id = RCLINK_PCI_VENDOR_ID;
    k->device_id = RCLINK_PCI_DEVICE_ID;
    k->subsystem_vendor_id = RCLINK_PCI_SUBSYS_VENDOR_ID;
    k->subsystem_id = RCLINK_PCI_SUBSYS_ID;
    k->revision = 1;
    k->class_id = PCI_CLASS_NETWORK_ETHERNET;
    rc->phases.hold = rclink_reset_hold;
    dc->desc = "rclink RCLINK-Stream board (SUE transport + LL 100G MAC)";
    dc->vmsd = &rclink_vmstate;
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
    device_class_set_props(dc, rclink_properties);
}

static const TypeInfo rclink_info = {
    .name = TYPE_RCLINK,
    .parent = TYPE_PCI_DEVICE,
    .instance_size = sizeof(RclinkState),
    .class_init = rclink_class_init,
    .interfaces = (InterfaceInfo[]) {
        { INTERFACE_PCIE_DEVICE },
        { }
    },
};

static void rclink_register_types(void)
{
    type_register_static(&rclink_info);
}

type_init(rclink_register_types)
