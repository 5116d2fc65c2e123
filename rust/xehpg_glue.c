// SPDX-License-Identifier: GPL-2.0
/*
 * C glue for what the 7.3 Rust kernel crate cannot express:
 *
 * - a string module parameter (module! supports integer and bool parameters
 *   only). Rust reads it through xehpg_guc_firmware_path().
 * - the sriov_admin sysfs tree (kobjects and attributes have no Rust
 *   abstraction in 7.3): per-VF settings for the next enable, in the layout of
 *   upstream xe's (xe_sriov_pf_sysfs.c); each file's show and store are Rust's.
 * - sriov_configure: the PCI core calls it when sriov_numvfs is written, but
 *   the Rust PCI driver abstraction has no hook for it. Probe installs it on
 *   the driver (xehpg_sriov_hook); it asks Rust to provision the VFs, then
 *   enables them, and disables them before Rust gives their shares back. The
 *   PCI core calls it with the device lock held, so the driver is bound and
 *   its data (the Rust device state) alive for the whole call.
 * - disabling VFs at module unload (xehpg_sriov_disable_all): removing the VF
 *   devices needs pci_rescan_remove_lock (7.3 drivers/pci/remove.c asserts
 *   it), which rmmod's path to remove does not hold and a module cannot take
 *   there (the PF's sysfs remove attribute calls remove with it held). Module
 *   exit is known not to hold it, so VFs are disabled there first, under it,
 *   as sriov_numvfs does (drivers/pci/iov.c sriov_numvfs_store).
 */
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "xehpg_glue.h"

static char guc_firmware_path[256];
module_param_string(guc_firmware_path, guc_firmware_path, sizeof(guc_firmware_path), 0400);
MODULE_PARM_DESC(guc_firmware_path,
		 "GuC firmware to load instead of i915/dg2_guc_70.bin (relative to the firmware search path)");

/* The parameter, NUL-terminated; empty when not set. */
const char *xehpg_guc_firmware_path(void)
{
	return guc_firmware_path;
}

/* Set once module exit has started: no VF may be enabled after that. */
static bool xehpg_unloading;

static int xehpg_sriov_configure(struct pci_dev *pdev, int num_vfs)
{
	void *data = pci_get_drvdata(pdev);
	int ret;

	if (num_vfs && READ_ONCE(xehpg_unloading))
		return -ESHUTDOWN;
	if (!num_vfs) {
		pci_disable_sriov(pdev);
		xehpg_sriov_unprovision(data);
		return 0;
	}
	ret = xehpg_sriov_provision(data, num_vfs);
	if (ret)
		return ret;
	ret = pci_enable_sriov(pdev, num_vfs);
	if (ret) {
		pci_err(pdev, "sriov: enabling %d VFs failed: %d; giving their shares back\n",
			num_vfs, ret);
		xehpg_sriov_unprovision(data);
		return ret;
	}
	return num_vfs;
}

/* Called by probe for a PF: sriov_numvfs writes now reach xehpg_sriov_configure. */
void xehpg_sriov_hook(struct pci_dev *pdev)
{
	if (pdev->driver)
		WRITE_ONCE(pdev->driver->sriov_configure, xehpg_sriov_configure);
}

static int xehpg_sriov_disable_one(struct device *dev, void *drv)
{
	struct pci_dev *pdev = to_pci_dev(dev);

	/* The order sriov_numvfs takes them in: device lock, then rescan-remove. */
	device_lock(dev);
	if (dev->driver == drv && pci_num_vf(pdev)) {
		pci_lock_rescan_remove();
		xehpg_sriov_configure(pdev, 0);
		pci_unlock_rescan_remove();
	}
	device_unlock(dev);
	return 0;
}

/*
 * Called by module exit before the driver is unregistered: every bound PF's
 * VFs disabled and given back, and no new enable accepted.
 */
void xehpg_sriov_disable_all(const char *name)
{
	struct device_driver *drv = driver_find(name, &pci_bus_type);
	int ret;

	WRITE_ONCE(xehpg_unloading, true);
	ret = drv ? driver_for_each_device(drv, NULL, drv, xehpg_sriov_disable_one) : -ENODEV;
	if (ret)
		pr_err("%s: unload: disabling VFs: driver not found: %d\n", name, ret);
}

/*
 * Called by unbind before the shares go: VFs cannot outlive their
 * provisioning. After rmmod's xehpg_sriov_disable_all there are none; a sysfs
 * unbind with VFs enabled still gets here without pci_rescan_remove_lock
 * (Documentation/sriov.rst, "Known gaps").
 */
void xehpg_sriov_disable(struct pci_dev *pdev)
{
	if (pci_num_vf(pdev))
		pci_disable_sriov(pdev);
}

/*
 * sriov_admin/
 *   .bulk_profile/{exec_quantum_ms,preempt_timeout_us,sched_priority,vram_quota}
 *   vfN/profile/{the same}          N = 1..TotalVFs
 *
 * A profile directory carries the PF (Rust's, alive until the tree is removed
 * at unbind; sysfs removal waits for running show/store) and its VF number, 0
 * for the bulk profile. File i is Rust's setting i (xehpg_sriov_show and
 * xehpg_sriov_store, rust/driver.rs).
 */

struct xehpg_profile {
	struct kobject kobj;
	const void *pf;
	unsigned int vfid;
};

static struct kobj_attribute xehpg_profile_files[];

static unsigned int xehpg_setting(const struct kobj_attribute *a)
{
	return a - xehpg_profile_files;
}

static ssize_t xehpg_profile_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	struct xehpg_profile *p = container_of(kobj, struct xehpg_profile, kobj);

	return xehpg_sriov_show(p->pf, p->vfid, xehpg_setting(a), buf);
}

static ssize_t xehpg_profile_store(struct kobject *kobj, struct kobj_attribute *a,
				   const char *buf, size_t len)
{
	struct xehpg_profile *p = container_of(kobj, struct xehpg_profile, kobj);

	return xehpg_sriov_store(p->pf, p->vfid, xehpg_setting(a), buf, len);
}

static struct kobj_attribute xehpg_profile_files[] = {
	__ATTR(exec_quantum_ms, 0644, xehpg_profile_show, xehpg_profile_store),
	__ATTR(preempt_timeout_us, 0644, xehpg_profile_show, xehpg_profile_store),
	__ATTR(sched_priority, 0644, xehpg_profile_show, xehpg_profile_store),
	__ATTR(vram_quota, 0644, xehpg_profile_show, xehpg_profile_store),
};

static struct attribute *xehpg_profile_attrs[] = {
	&xehpg_profile_files[0].attr,
	&xehpg_profile_files[1].attr,
	&xehpg_profile_files[2].attr,
	&xehpg_profile_files[3].attr,
	NULL,
};
ATTRIBUTE_GROUPS(xehpg_profile);

static void xehpg_profile_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct xehpg_profile, kobj));
}

static const struct kobj_type xehpg_profile_ktype = {
	.release = xehpg_profile_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = xehpg_profile_groups,
};

/* The tree of one PF: what removal puts back, last first. */
struct xehpg_admin {
	struct kobject *root;
	unsigned int count;
	struct kobject *kobjs[];
};

static int xehpg_admin_profile(struct xehpg_admin *a, struct kobject *parent,
			       const char *name, const void *pf, unsigned int vfid)
{
	struct xehpg_profile *p = kzalloc(sizeof(*p), GFP_KERNEL);
	int ret;

	if (!p)
		return -ENOMEM;
	p->pf = pf;
	p->vfid = vfid;
	ret = kobject_init_and_add(&p->kobj, &xehpg_profile_ktype, parent, "%s", name);
	if (ret) {
		kobject_put(&p->kobj);
		return ret;
	}
	a->kobjs[a->count++] = &p->kobj;
	return 0;
}

void xehpg_sriov_sysfs_remove(void *handle)
{
	struct xehpg_admin *a = handle;

	if (!a)
		return;
	while (a->count)
		kobject_put(a->kobjs[--a->count]);
	kobject_put(a->root);
	kfree(a);
}

/* Creates sriov_admin under the PF for `total` VFs; NULL on failure (logged). */
void *xehpg_sriov_sysfs_add(struct pci_dev *pdev, const void *pf, unsigned int total)
{
	/* The bulk profile, and per VF its directory and its profile. */
	struct xehpg_admin *a = kzalloc(struct_size(a, kobjs, 1 + 2 * total), GFP_KERNEL);
	unsigned int vf;
	char name[8];

	if (!a)
		goto fail;
	a->root = kobject_create_and_add("sriov_admin", &pdev->dev.kobj);
	if (!a->root)
		goto fail;
	if (xehpg_admin_profile(a, a->root, ".bulk_profile", pf, 0))
		goto fail;
	for (vf = 1; vf <= total; vf++) {
		struct kobject *dir;

		snprintf(name, sizeof(name), "vf%u", vf);
		dir = kobject_create_and_add(name, a->root);
		if (!dir)
			goto fail;
		a->kobjs[a->count++] = dir;
		if (xehpg_admin_profile(a, dir, "profile", pf, vf))
			goto fail;
	}
	return a;
fail:
	pci_err(pdev, "sriov: creating sriov_admin in sysfs failed\n");
	xehpg_sriov_sysfs_remove(a);
	return NULL;
}
