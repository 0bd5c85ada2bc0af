// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: PCI driver, probe/remove, identity, the board's life cycle.
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/pci.h>

#include "rclink.h"
#include "rclink_compat.h"
#include "rclink_ctx.h"
#include "rclink_qp.h"

/* The lifecycle lock (rclink_up()): the devlink instance lock */
static void rclink_lock(struct rclink_dev *rdev)
{
	devl_lock(priv_to_devlink(rdev));
}

static void rclink_unlock(struct rclink_dev *rdev)
{
	devl_unlock(priv_to_devlink(rdev));
}

/*
 * The board vanished while bound: take it down (sleepers of /dev/rclinkN
 * get ENODEV, messages in flight complete flushed, the netdev goes), so
 * that nothing waits for it; the netdev stays, detached.  A PCI reset
 * (sysfs "reset") brings it back when it answers again; remove, resets and
 * resume hold the device lock, so the work waits for them.
 */
static void rclink_gone_work(struct work_struct *work)
{
	struct rclink_dev *rdev;

	rdev = container_of(to_delayed_work(work), struct rclink_dev,
			    regs.gone_work);

	if (!device_trylock(rdev->dev)) {
		schedule_delayed_work(&rdev->regs.gone_work, HZ / 10);
		return;
	}
	rclink_lock(rdev);
	if (rclink_gone(rdev) && rclink_is_up(rdev)) {
		rdev->pci_stats.gone++;
		rclink_down(rdev);
	}
	rclink_unlock(rdev);
	device_unlock(rdev->dev);
}

static void rclink_read_params(struct rclink_dev *rdev, u64 ver)
{
	struct rclink_params *p = &rdev->params;
	u64 cap;

	p->shim_major = FIELD_GET(RCLINK_SHIM_VERSION_MAJOR, ver);
	p->shim_minor = FIELD_GET(RCLINK_SHIM_VERSION_MINOR, ver);
	p->ip_version = FIELD_GET(RCLINK_SHIM_VERSION_IP, ver);
	p->serial = rclink_rd64(rdev, RCLINK_SHIM_SERIAL);

	cap = rclink_rd64(rdev, RCLINK_SHIM_CAP0);
	p->qp_num = FIELD_GET(RCLINK_SHIM_CAP0_QP_NUM, cap);
	p->type1_ost_n = FIELD_GET(RCLINK_SHIM_CAP0_TYPE1_OST_N, cap);
	p->type1_pkt_len = FIELD_GET(RCLINK_SHIM_CAP0_TYPE1_PKT_LEN, cap);
	p->type1_vc_num = FIELD_GET(RCLINK_SHIM_CAP0_TYPE1_VC_NUM, cap);
	p->epsn_w = FIELD_GET(RCLINK_SHIM_CAP0_EPSN_W, cap);

	cap = rclink_rd64(rdev, RCLINK_SHIM_CAP1);
	p->type2_ost_n = FIELD_GET(RCLINK_SHIM_CAP1_TYPE2_OST_N, cap);
	p->type2_pkt_len = FIELD_GET(RCLINK_SHIM_CAP1_TYPE2_PKT_LEN, cap);
	p->type2_crd_rst_num = FIELD_GET(RCLINK_SHIM_CAP1_TYPE2_CRD_RST_NUM,
					 cap);
	p->type1_rx_buf_aw = FIELD_GET(RCLINK_SHIM_CAP1_TYPE1_RX_BUF_AW, cap);
	p->use_qdma = FIELD_GET(RCLINK_SHIM_CAP1_USE_QDMA, cap);

	cap = rclink_rd64(rdev, RCLINK_SHIM_CAP2);
	p->nonr_tx_depth = FIELD_GET(RCLINK_SHIM_CAP2_NONR_TX_DEPTH, cap);
	p->nonr_rx_depth = FIELD_GET(RCLINK_SHIM_CAP2_NONR_RX_DEPTH, cap);
	p->nonr_dat_id_w = FIELD_GET(RCLINK_SHIM_CAP2_NONR_DAT_ID_W, cap);
	p->nonr_md_id_w = FIELD_GET(RCLINK_SHIM_CAP2_NONR_MD_ID_W, cap);
	p->ram_rd_latency = FIELD_GET(RCLINK_SHIM_CAP2_RAM_RD_LATENCY, cap);

	cap = rclink_rd64(rdev, RCLINK_SHIM_CAP3);
	p->dw = FIELD_GET(RCLINK_SHIM_CAP3_DW, cap);
	p->mac_dw = FIELD_GET(RCLINK_SHIM_CAP3_MAC_DW, cap);
	p->num_vectors = FIELD_GET(RCLINK_SHIM_CAP3_NUM_VECTORS, cap);
	p->evt_ring_max_order = FIELD_GET(RCLINK_SHIM_CAP3_EVT_RING_MAX_ORDER,
					  cap);
	p->ip_counters = FIELD_GET(RCLINK_SHIM_CAP3_IP_COUNTERS, cap);
}

/* Refuse anything but an RCLINK shim of the major version we know */
static int rclink_identify(struct rclink_dev *rdev)
{
	struct rclink_params *p = &rdev->params;
	u32 magic, major;
	u64 val;

	val = rclink_rd64(rdev, RCLINK_SHIM_ID);
	if (rclink_gone(rdev))
		return -ENODEV;
	magic = FIELD_GET(RCLINK_SHIM_ID_MAGIC, val);
	if (magic != RCLINK_MAGIC) {
		dev_err(rdev->dev, "unknown board: magic 0x%08x (expected 0x%08x)\n",
			magic, RCLINK_MAGIC);
		return -ENODEV;
	}

	val = rclink_rd64(rdev, RCLINK_SHIM_VERSION);
	major = FIELD_GET(RCLINK_SHIM_VERSION_MAJOR, val);
	if (major != RCLINK_SHIM_MAJOR) {
		dev_err(rdev->dev,
			"unsupported shim version %u.%u (driver supports major %u)\n",
			major, (u32)FIELD_GET(RCLINK_SHIM_VERSION_MINOR, val),
			RCLINK_SHIM_MAJOR);
		return -ENODEV;
	}

	rclink_read_params(rdev, val);
	if (rclink_gone(rdev))
		return -ENODEV;

	dev_info(rdev->dev,
		 "RCLINK-Stream IP v%x.%x, shim %u.%u: QP_NUM %u, TYPE1 OST %u PKT_LEN %u, TYPE2 OST %u PKT_LEN %u, %u vectors\n",
		 p->ip_version >> 8, p->ip_version & 0xff,
		 p->shim_major, p->shim_minor, p->qp_num,
		 p->type1_ost_n, p->type1_pkt_len,
		 p->type2_ost_n, p->type2_pkt_len, p->num_vectors);
	return 0;
}

/* Return the shim and the IP to their reset values (event ring disabled) */
static int rclink_reset(struct rclink_dev *rdev)
{
	rclink_wr64(rdev, RCLINK_SHIM_RESET, RCLINK_SHIM_RESET_RESET);
	/* flush the posted write */
	rclink_rd64(rdev, RCLINK_SHIM_ID);
	return rclink_gone(rdev) ? -ENODEV : 0;
}

/*
 * Bring the board up behind its enabled, mapped PCI function: identity,
 * reset, self-tests, interrupts and event ring, TYPE1 and TYPE3.  Undone
 * by rclink_down(); a PCI reset runs down, the reset, then up again.
 * Both run under the lifecycle lock, the devlink instance lock: probe,
 * remove, devlink reload, the PCI error and reset handlers, system sleep
 * and the device-gone work take it (Documentation/driver.rst, "Life
 * cycle").
 */
int rclink_up(struct rclink_dev *rdev)
{
	struct pci_dev *pdev = rdev->pdev;
	int err;

	devl_assert_locked(priv_to_devlink(rdev));

	err = rclink_identify(rdev);
	if (err)
		return err;
	err = rclink_reset(rdev);
	if (err)
		return err;
	pci_set_master(pdev);

	err = rclink_selftest_regs(rdev);
	if (err)
		goto err_clear_master;
	err = rclink_assumed_probe(rdev);
	if (err)
		goto err_clear_master;

	err = rclink_qp_init(rdev);
	if (err)
		goto err_clear_master;
	err = rclink_irq_alloc_vectors(rdev);
	if (err)
		goto err_qp_fini;
	err = rclink_evt_ring_alloc(rdev);
	if (err)
		goto err_irq_free_vectors;
	err = rclink_health_init(rdev);
	if (err)
		goto err_evt_ring_free;
	err = rclink_irq_request(rdev);
	if (err)
		goto err_health_fini;
	err = rclink_evt_ring_enable(rdev);
	if (err)
		goto err_irq_free;

	err = rclink_selftest_irq(rdev);
	if (err)
		goto err_evt_ring_disable;
	err = rclink_selftest_dma(rdev);
	if (err)
		goto err_evt_ring_disable;

	err = rclink_t1_init(rdev);
	if (err)
		goto err_evt_ring_disable;
	err = rclink_dp_init(rdev);
	if (err)
		goto err_t1_fini;

	/* the netdev of an earlier up, kept across the reset */
	err = rclink_netdev_attach(rdev);
	if (err)
		goto err_dp_fini;

	rclink_debugfs_init(rdev);
	rclink_health_start(rdev);
	set_bit(RCLINK_FLAG_UP, &rdev->flags);

	dev_info(rdev->dev, "ready: %s, %u vector(s), event ring of %u records\n",
		 rclink_irq_mode_name(rdev->irq_mode), rdev->num_vecs,
		 1U << rdev->evt.order);
	return 0;

err_dp_fini:
	rclink_dp_fini(rdev);
err_t1_fini:
	rclink_t1_fini(rdev);
err_evt_ring_disable:
	rclink_evt_ring_disable(rdev);
err_irq_free:
	rclink_irq_free(rdev);
	rclink_cc_fini(rdev);
	rclink_qp_stop(rdev);
err_health_fini:
	rclink_health_fini(rdev);
err_evt_ring_free:
	rclink_evt_ring_free(rdev);
err_irq_free_vectors:
	rclink_irq_free_vectors(rdev);
err_qp_fini:
	rclink_qp_fini(rdev);
err_clear_master:
	pci_clear_master(pdev);
	return err;
}

/*
 * Everything rclink_up() did, in reverse.  Works on a board that is gone:
 * register accesses are skipped then, memory is freed all the same; open
 * files of /dev/rclinkN fail with ENODEV from here on and the messages in
 * flight complete flushed (counted).
 */
void rclink_down(struct rclink_dev *rdev)
{
	devl_assert_locked(priv_to_devlink(rdev));
	if (!test_and_clear_bit(RCLINK_FLAG_UP, &rdev->flags))
		return;
	/* gone: no DMA from here on, before any of its memory goes */
	rclink_dma_fence(rdev);
	rclink_health_stop(rdev);
	rclink_debugfs_exit(rdev);
	rclink_netdev_detach(rdev);
	rclink_dp_fini(rdev);
	rclink_t1_fini(rdev);
	rclink_evt_ring_disable(rdev);
	rclink_irq_free(rdev);
	rclink_cc_fini(rdev);
	rclink_qp_stop(rdev);
	rclink_health_fini(rdev);
	rclink_evt_ring_free(rdev);
	rclink_irq_free_vectors(rdev);
	rclink_qp_fini(rdev);
	pci_clear_master(rdev->pdev);
}

/*
 * Who gets what the board's interrupts and event records say: the event
 * and interrupt layers call up only through this table (rclink_events.h).
 */
static const struct rclink_evt_ops rclink_evt_consumers = {
	.selftest_irq	= rclink_selftest_irq_seen,
	.cq_pending	= rclink_dp_cq_pending,
	.cq_irq		= rclink_dp_cq_irq,
	.t3_irq		= rclink_netdev_t3_irq,
	.t3_event	= rclink_netdev_t3_event,
	.t3_fault	= rclink_health_t3_fault,
	.qp_fatal	= rclink_qp_fatal,
	.link		= rclink_netdev_link_event,
	.recv_ack	= rclink_cc_recv_ack,
	.cc_info	= rclink_cc_info,
	.retry_tmo	= rclink_cc_retry_tmo,
	.qp_notify	= rclink_nl_notify_qp_event,
	.ctx_event	= rclink_ctx_event,
	.ring_full	= rclink_health_evt_ring_full,
	.qp_flushed	= rclink_t1_qp_flushed,
};

/* What the "type3" health reporter asks of the netdev */
static const struct rclink_health_ops rclink_health_consumers = {
	.t3_present	= rclink_netdev_present,
	.t3_reset	= rclink_netdev_t3_reset,
};

static int rclink_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct rclink_dev *rdev;
	int err;

	rdev = rclink_devlink_alloc(&pdev->dev);
	if (!rdev)
		return -ENOMEM;
	rdev->pdev = pdev;
	rdev->dev = &pdev->dev;
	rdev->evt_ops = &rclink_evt_consumers;
	rdev->health_ops = &rclink_health_consumers;
	atomic_set(&rdev->st.irq_vec, -1);
	init_completion(&rdev->st.irq_done);
	rclink_regs_init(&rdev->regs, pdev, rclink_gone_work);
	rclink_cc_init(rdev);
	rclink_qp_early_init(rdev);
	pci_set_drvdata(pdev, rdev);
	err = rclink_t1_probe(rdev);
	if (err)
		goto err_devlink_free;

	/* managed: undone by devres after remove or a failed probe */
	err = pcim_enable_device(pdev);
	if (err) {
		dev_err(rdev->dev, "cannot enable PCI device: %d\n", err);
		goto err_t1_remove;
	}
	err = rclink_regs_map(&rdev->regs);
	if (err)
		goto err_t1_remove;
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err) {
		dev_err(rdev->dev, "no usable 64-bit DMA: %d\n", err);
		goto err_t1_remove;
	}

	rclink_lock(rdev);
	err = rclink_up(rdev);
	if (err)
		goto err_unlock;
	err = rclink_netdev_register(rdev);
	if (err)
		goto err_down;
	/* the configuration space a slot reset restores */
	pci_save_state(pdev);
	rclink_unlock(rdev);
	rclink_devlink_register(rdev);
	return 0;

err_down:
	rclink_down(rdev);
err_unlock:
	rclink_unlock(rdev);
err_t1_remove:
	rclink_t1_remove(rdev);
err_devlink_free:
	cancel_delayed_work_sync(&rdev->regs.gone_work);
	rclink_devlink_free(rdev);
	return err;
}

static void rclink_remove(struct pci_dev *pdev)
{
	struct rclink_dev *rdev = pci_get_drvdata(pdev);

	rclink_devlink_unregister(rdev);
	rclink_lock(rdev);
	/* a board that is gone: no DMA into the rings the netdev frees */
	rclink_dma_fence(rdev);
	rclink_netdev_unregister(rdev);
	rclink_down(rdev);
	rclink_unlock(rdev);
	cancel_delayed_work_sync(&rdev->regs.gone_work);
	rclink_t1_remove(rdev);
	rclink_devlink_free(rdev);
}

/* Quiesce DMA for reboot and kexec: no event record or frame lands any more */
static void rclink_shutdown(struct pci_dev *pdev)
{
	struct rclink_dev *rdev = pci_get_drvdata(pdev);

	rclink_lock(rdev);
	if (rclink_is_up(rdev)) {
		rclink_netdev_shutdown(rdev);
		rclink_dp_shutdown(rdev);
		rclink_evt_ring_disable(rdev);
		pci_clear_master(pdev);
	}
	rclink_unlock(rdev);
}

/* ---- PCI faults and resets ----------------------------------------------- */

/* After a reset: the board answers again, bring it back (lock held) */
static void rclink_reup(struct rclink_dev *rdev, const char *why)
{
	int err;

	rclink_regs_revive(&rdev->regs);
	err = rclink_up(rdev);
	if (err) {
		rdev->pci_stats.up_failed++;
		dev_err(rdev->dev, "board not back after %s: %d; unbind and bind the driver to retry\n",
			why, err);
		return;
	}
	dev_info(rdev->dev, "board back after %s\n", why);
}

/*
 * AER reported an error (Documentation/driver.rst, "PCI faults"): stop
 * every access, tear the board down (files get ENODEV, messages in flight
 * complete flushed) and ask for a reset, or give up when the link is lost.
 */
static pci_ers_result_t rclink_pci_error_detected(struct pci_dev *pdev,
						  pci_channel_state_t state)
{
	struct rclink_dev *rdev = pci_get_drvdata(pdev);

	rdev->pci_stats.err_detected++;
	dev_err(rdev->dev, "PCI error detected (channel state %d)\n", state);
	rclink_lock(rdev);
	rclink_regs_block(&rdev->regs);
	rclink_down(rdev);
	rclink_unlock(rdev);
	if (state == pci_channel_io_perm_failure) {
		rdev->pci_stats.err_perm_failure++;
		return PCI_ERS_RESULT_DISCONNECT;
	}
	pci_disable_device(pdev);
	return PCI_ERS_RESULT_NEED_RESET;
}

static pci_ers_result_t rclink_pci_slot_reset(struct pci_dev *pdev)
{
	struct rclink_dev *rdev = pci_get_drvdata(pdev);
	bool answers;

	rdev->pci_stats.slot_resets++;
	if (pci_enable_device(pdev)) {
		rdev->pci_stats.slot_reset_failed++;
		dev_err(rdev->dev, "cannot enable the device after the reset\n");
		return PCI_ERS_RESULT_DISCONNECT;
	}
	pci_restore_state(pdev);
	pci_save_state(pdev);
	rclink_lock(rdev);
	answers = rclink_regs_answers(&rdev->regs);
	rclink_unlock(rdev);
	if (!answers) {
		rdev->pci_stats.slot_reset_failed++;
		dev_err(rdev->dev, "board does not answer after the reset\n");
		return PCI_ERS_RESULT_DISCONNECT;
	}
	return PCI_ERS_RESULT_RECOVERED;
}

static void rclink_pci_resume(struct pci_dev *pdev)
{
	struct rclink_dev *rdev = pci_get_drvdata(pdev);

	rclink_lock(rdev);
	rdev->pci_stats.resumed++;
	rclink_reup(rdev, "PCI error recovery");
	rclink_unlock(rdev);
}

/* A function reset (FLR, bus reset, sysfs "reset") is about to happen */
static void rclink_pci_reset_prepare(struct pci_dev *pdev)
{
	struct rclink_dev *rdev = pci_get_drvdata(pdev);

	rclink_lock(rdev);
	rdev->pci_stats.resets++;
	rclink_down(rdev);
	rclink_unlock(rdev);
}

static void rclink_pci_reset_done(struct pci_dev *pdev)
{
	struct rclink_dev *rdev = pci_get_drvdata(pdev);

	rclink_lock(rdev);
	rclink_reup(rdev, "a function reset");
	rclink_unlock(rdev);
}

static const struct pci_error_handlers rclink_err_handlers = {
	.error_detected = rclink_pci_error_detected,
	.slot_reset = rclink_pci_slot_reset,
	.resume = rclink_pci_resume,
	.reset_prepare = rclink_pci_reset_prepare,
	.reset_done = rclink_pci_reset_done,
};

/*
 * System sleep (suspend to RAM or idle, hibernation).  The function's
 * state does not survive D3hot (PMCSR No_Soft_Reset is 0: the return to D0
 * resets the board), so suspend takes the board down as before a function
 * reset and resume brings it up as after one; the PCI core saves the
 * configuration space and moves the function to D3hot and back.
 */
static int rclink_pm_suspend(struct device *dev)
{
	struct rclink_dev *rdev = dev_get_drvdata(dev);

	rclink_lock(rdev);
	rdev->pci_stats.suspends++;
	rclink_down(rdev);
	rclink_unlock(rdev);
	return 0;
}

static int rclink_pm_resume(struct device *dev)
{
	struct rclink_dev *rdev = dev_get_drvdata(dev);

	rclink_lock(rdev);
	rdev->pci_stats.sleep_resumes++;
	rclink_reup(rdev, "system sleep");
	rclink_unlock(rdev);
	return 0;
}

static DEFINE_SIMPLE_DEV_PM_OPS(rclink_pm_ops, rclink_pm_suspend,
				rclink_pm_resume);

static const struct pci_device_id rclink_pci_ids[] = {
	{ PCI_DEVICE(RCLINK_PCI_VENDOR_ID, RCLINK_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, rclink_pci_ids);

static struct pci_driver rclink_pci_driver = {
	.name = KBUILD_MODNAME,
	.id_table = rclink_pci_ids,
	.probe = rclink_probe,
	.remove = rclink_remove,
	.shutdown = rclink_shutdown,
	.err_handler = &rclink_err_handlers,
	.driver.pm = pm_sleep_ptr(&rclink_pm_ops),
};

static int __init rclink_init(void)
{
	int err;

	rclink_debugfs_module_init();
	err = rclink_cdev_module_init();
	if (err)
		goto err_debugfs_exit;
	err = rclink_nl_init();
	if (err)
		goto err_cdev_exit;
	err = pci_register_driver(&rclink_pci_driver);
	if (err)
		goto err_nl_exit;
	return 0;

err_nl_exit:
	rclink_nl_exit();
err_cdev_exit:
	rclink_cdev_module_exit();
err_debugfs_exit:
	rclink_debugfs_module_exit();
	return err;
}
module_init(rclink_init);

static void __exit rclink_exit(void)
{
	pci_unregister_driver(&rclink_pci_driver);
	rclink_nl_exit();
	rclink_cdev_module_exit();
	rclink_debugfs_module_exit();
}
module_exit(rclink_exit);

MODULE_DESCRIPTION("RCLINK-Stream PCIe board driver");
MODULE_LICENSE("GPL");
