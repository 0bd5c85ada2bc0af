// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: debugfs, /sys/kernel/debug/rclink/<pci name>/
 *
 *   events    one "<name> <value>" line per counter; the set of names is
 *             constant (rclink_cnt_names)
 *   irq_mode  "msix N", "msi 1" or "intx 1"
 *   selftest  one "<step> <result>" line per probe self-test step
 *   t3_fault  test hook: writing a fault name (tx_two_sop, tx_two_eop,
 *             tx_md_size_zero, tx_oversize, rx_md_size_zero,
 *             data_axi_resp_err) posts a malformed MD on the TYPE3 rings,
 *             so that the IP raises that DMA_INTR_ST1 fault (the last: a
 *             TX buffer at a bus address nothing decodes; behind an IOMMU
 *             that is a DMA fault); reading lists the names.  -ENETDOWN
 *             while the interface is down.
 *   t3_ring_alloc_fail
 *             test hook: the next N TYPE3 RX ring allocations fail with
 *             -ENOMEM once their page pool exists (ethtool -G, ifup)
 *   t1        the TYPE1 data path: queue indices, receive buffers, flow
 *             control, drop counters ("<name> <value>", rclink_dmaq.c)
 *   reg_timeout
 *             SHIM_REG_TIMEOUT: BAR0 accesses the IP's ("rc") or the
 *             MAC's ("mac") register port did not answer in time
 */

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "rclink.h"
#include "rclink_netdev.h"

static struct dentry *rclink_dbg_root;

static int rclink_dbg_events_show(struct seq_file *s, void *unused)
{
	struct rclink_dev *rdev = s->private;
	unsigned int i;

	for (i = 0; i < RCLINK_CNT_NUM; i++)
		seq_printf(s, "%s %llu\n", rclink_cnt_names[i],
			   rclink_cnt_read(rdev, i));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rclink_dbg_events);

static int rclink_dbg_irq_mode_show(struct seq_file *s, void *unused)
{
	struct rclink_dev *rdev = s->private;

	seq_printf(s, "%s %u\n", rclink_irq_mode_name(rdev->irq_mode),
		   rdev->num_vecs);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rclink_dbg_irq_mode);

static int rclink_dbg_selftest_show(struct seq_file *s, void *unused)
{
	static const char * const result[] = {
		[RCLINK_ST_NOT_RUN] = "not_run",
		[RCLINK_ST_OK] = "ok",
		[RCLINK_ST_FAILED] = "failed",
	};
	struct rclink_dev *rdev = s->private;
	unsigned int i;

	for (i = 0; i < RCLINK_ST_NUM; i++)
		seq_printf(s, "%s %s\n", rclink_selftest_step_names[i],
			   result[rdev->st.result[i]]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rclink_dbg_selftest);

/* The assumed register fields the probe found, what is disabled */
static int rclink_dbg_assumed_show(struct seq_file *s, void *unused)
{
	rclink_assumed_show(s, s->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rclink_dbg_assumed);

/* PCI faults and resets survived ("name value" lines) */
static int rclink_dbg_pci_show(struct seq_file *s, void *unused)
{
	const struct rclink_pci_stats *st =
		&((struct rclink_dev *)s->private)->pci_stats;

	seq_printf(s, "err_detected %llu\n", st->err_detected);
	seq_printf(s, "err_perm_failure %llu\n", st->err_perm_failure);
	seq_printf(s, "slot_resets %llu\n", st->slot_resets);
	seq_printf(s, "slot_reset_failed %llu\n", st->slot_reset_failed);
	seq_printf(s, "resumed %llu\n", st->resumed);
	seq_printf(s, "resets %llu\n", st->resets);
	seq_printf(s, "up_failed %llu\n", st->up_failed);
	seq_printf(s, "teardown_flushed %llu\n", st->teardown_flushed);
	seq_printf(s, "teardown_unread %llu\n", st->teardown_unread);
	seq_printf(s, "qps_kept %llu\n", st->qps_kept);
	seq_printf(s, "suspends %llu\n", st->suspends);
	seq_printf(s, "sleep_resumes %llu\n", st->sleep_resumes);
	seq_printf(s, "gone %llu\n", st->gone);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rclink_dbg_pci);

/* A wedged IP or MAC register port (Documentation/hw/shim.rst) */
static int rclink_dbg_reg_timeout_show(struct seq_file *s, void *unused)
{
	struct rclink_dev *rdev = s->private;
	u64 val;

	if (rclink_gone(rdev))
		return -ENODEV;
	val = rclink_rd64(rdev, RCLINK_SHIM_REG_TIMEOUT);
	seq_printf(s, "rc %llu\n", FIELD_GET(RCLINK_SHIM_REG_TIMEOUT_RC, val));
	seq_printf(s, "mac %llu\n",
		   FIELD_GET(RCLINK_SHIM_REG_TIMEOUT_MAC, val));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rclink_dbg_reg_timeout);

static int rclink_dbg_t3_fault_show(struct seq_file *s, void *unused)
{
	unsigned int i;

	for (i = 0; i < RCLINK_T3_FAULT_NUM; i++)
		seq_printf(s, "%s\n", rclink_t3_fault_names[i]);
	return 0;
}

static int rclink_dbg_t3_fault_open(struct inode *inode, struct file *file)
{
	return single_open(file, rclink_dbg_t3_fault_show, inode->i_private);
}

static ssize_t rclink_dbg_t3_fault_write(struct file *file,
					 const char __user *ubuf, size_t len,
					 loff_t *ppos)
{
	struct rclink_dev *rdev = file_inode(file)->i_private;
	char buf[32];
	int fault, err;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	fault = sysfs_match_string(rclink_t3_fault_names, buf);
	if (fault < 0)
		return fault;
	err = rclink_netdev_t3_fault(rdev, fault);
	return err ? err : len;
}

static const struct file_operations rclink_dbg_t3_fault_fops = {
	.owner = THIS_MODULE,
	.open = rclink_dbg_t3_fault_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = rclink_dbg_t3_fault_write,
};

void rclink_debugfs_init(struct rclink_dev *rdev)
{
	struct dentry *dir;

	dir = debugfs_create_dir(pci_name(rdev->pdev), rclink_dbg_root);
	rdev->dbg_dir = dir;
	debugfs_create_file("events", 0400, dir, rdev, &rclink_dbg_events_fops);
	debugfs_create_file("irq_mode", 0400, dir, rdev,
			    &rclink_dbg_irq_mode_fops);
	debugfs_create_file("selftest", 0400, dir, rdev,
			    &rclink_dbg_selftest_fops);
	debugfs_create_file("pci", 0400, dir, rdev, &rclink_dbg_pci_fops);
	debugfs_create_file("reg_timeout", 0400, dir, rdev,
			    &rclink_dbg_reg_timeout_fops);
	debugfs_create_file("assumed", 0400, dir, rdev,
			    &rclink_dbg_assumed_fops);
	debugfs_create_file("t3_fault", 0600, dir, rdev,
			    &rclink_dbg_t3_fault_fops);
	debugfs_create_u32("t3_ring_alloc_fail", 0600, dir,
			   &rdev->t3_ring_alloc_fail);
	rclink_dp_debugfs_init(rdev, dir);
}

void rclink_debugfs_exit(struct rclink_dev *rdev)
{
	debugfs_remove_recursive(rdev->dbg_dir);
	rdev->dbg_dir = NULL;
}

void rclink_debugfs_module_init(void)
{
	rclink_dbg_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
}

void rclink_debugfs_module_exit(void)
{
	debugfs_remove_recursive(rclink_dbg_root);
	rclink_dbg_root = NULL;
}
