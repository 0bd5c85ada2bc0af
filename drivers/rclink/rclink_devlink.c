// SPDX-License-Identifier: GPL-2.0
/*
 * rclink: devlink instance.  Its private area is struct rclink_dev, so it is
 * allocated first in probe and freed last in remove; it is registered only
 * once the device is fully up and unregistered first.
 */

#include <linux/kernel.h>
#include <net/devlink.h>

#include "rclink.h"
#include "rclink_compat.h"

#define RCLINK_DL_BOARD_ID	DEVLINK_INFO_VERSION_GENERIC_BOARD_ID
#define RCLINK_DL_ASIC_REV	DEVLINK_INFO_VERSION_GENERIC_ASIC_REV
#define RCLINK_DL_FW		DEVLINK_INFO_VERSION_GENERIC_FW

static int rclink_devlink_info_get(struct devlink *devlink,
				   struct devlink_info_req *req,
				   struct netlink_ext_ack *extack)
{
	struct rclink_dev *rdev = devlink_priv(devlink);
	struct rclink_params *p = &rdev->params;
	char buf[32];
	int err;

	err = rclink_devlink_put_driver_name(req, KBUILD_MODNAME);
	if (err)
		return err;

	snprintf(buf, sizeof(buf), "%016llx", p->serial);
	err = devlink_info_serial_number_put(req, buf);
	if (err)
		return err;

	snprintf(buf, sizeof(buf), "%04x:%04x", rdev->pdev->vendor,
		 rdev->pdev->device);
	err = devlink_info_version_fixed_put(req, RCLINK_DL_BOARD_ID, buf);
	if (err)
		return err;

	/* SHIM_VERSION.ip is BCD: 0x0204 is "2.4" */
	snprintf(buf, sizeof(buf), "%x.%x", p->ip_version >> 8,
		 p->ip_version & 0xff);
	err = devlink_info_version_fixed_put(req, RCLINK_DL_ASIC_REV, buf);
	if (err)
		return err;

	snprintf(buf, sizeof(buf), "%u.%u", p->shim_major, p->shim_minor);
	return devlink_info_version_running_put(req, RCLINK_DL_FW, buf);
}

static const struct devlink_ops rclink_devlink_ops = {
	.info_get = rclink_devlink_info_get,
};

struct rclink_dev *rclink_devlink_alloc(struct device *dev)
{
	struct devlink *devlink;

	devlink = devlink_alloc(&rclink_devlink_ops, sizeof(struct rclink_dev),
				dev);
	return devlink ? devlink_priv(devlink) : NULL;
}

void rclink_devlink_free(struct rclink_dev *rdev)
{
	devlink_free(priv_to_devlink(rdev));
}

void rclink_devlink_register(struct rclink_dev *rdev)
{
	devlink_register(priv_to_devlink(rdev));
}

void rclink_devlink_unregister(struct rclink_dev *rdev)
{
	devlink_unregister(priv_to_devlink(rdev));
}
