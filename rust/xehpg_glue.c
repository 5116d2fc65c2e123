// SPDX-License-Identifier: GPL-2.0
/*
 * C glue for what the 7.3 Rust kernel crate cannot express:
 *
 * - a string module parameter (module! supports integer and bool parameters
 *   only). Rust reads it through xehpg_guc_firmware_path().
 * - the sriov_admin sysfs tree (kobjects, attribute groups and sysfs links
 *   have no Rust abstraction in 7.3): the PF's and the VFs' settings, VF stop
 *   and links to the VF devices, in the layout of upstream xe's
 *   (xe_sriov_pf_sysfs.c); each file's show and store are Rust's.
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
 * - device coredumps (include/linux/devcoredump.h has no Rust binding in
 *   7.3): the GuC's crash dump is handed to dev_coredumpv and dropped with
 *   dev_coredump_put at unbind, as upstream xe does (xe_devcoredump.c).
 */
#include <linux/devcoredump.h>
#include <linux/kobject.h>
#include <linux/kstrtox.h>
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

/*
 * A device coredump of `dev` holding the `len` bytes at `data`, which Rust
 * allocated with vmalloc: devcoredump owns them from here and vfrees them when
 * the dump is read and dismissed, times out, is put, or cannot be made (also
 * without CONFIG_DEV_COREDUMP). Process context.
 */
void xehpg_coredump(struct device *dev, void *data, size_t len)
{
	dev_coredumpv(dev, data, len, GFP_KERNEL);
}

/* Unbind: the device's coredump, if one is still there, goes with it. */
void xehpg_coredump_put(struct device *dev)
{
	dev_coredump_put(dev);
}

struct xehpg_admin;
static void xehpg_sriov_sysfs_link(struct xehpg_admin *a, struct pci_dev *pdev,
				   unsigned int num_vfs);
static void xehpg_sriov_sysfs_unlink(struct xehpg_admin *a);

/* Set once module exit has started: no VF may be enabled after that. */
static bool xehpg_unloading;

static int xehpg_sriov_configure(struct pci_dev *pdev, int num_vfs)
{
	void *data = pci_get_drvdata(pdev);
	int ret;

	if (num_vfs && READ_ONCE(xehpg_unloading))
		return -ESHUTDOWN;
	if (!num_vfs) {
		xehpg_sriov_sysfs_unlink(xehpg_sriov_admin(data));
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
	xehpg_sriov_sysfs_link(xehpg_sriov_admin(data), pdev, num_vfs);
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
 * sriov_admin/                      the layout of upstream xe's (xe_sriov_pf_sysfs.c)
 *   .bulk_profile/{exec_quantum_ms,preempt_timeout_us,sched_priority,vram_quota}
 *                                   write-only: the PF's and every VF's
 *   pf/device -> the PF
 *   pf/profile/{exec_quantum_ms,preempt_timeout_us,sched_priority}
 *   vfN/device -> VF N, while it is enabled      N = 1..TotalVFs
 *   vfN/stop                        write-only
 *   vfN/profile/{exec_quantum_ms,preempt_timeout_us,sched_priority (read-only),vram_quota}
 *
 * The root and each function's directory carry the PF (Rust's, alive until
 * the tree is removed at unbind; sysfs removal waits for running show/store)
 * and their function number: 0 the PF, N VF N, XEHPG_SRIOV_BULK the root.
 * Profile file i is Rust's setting i (xehpg_sriov_show and xehpg_sriov_store,
 * rust/driver.rs); Rust applies upstream's rules (rust/sriov/pf/admin.rs).
 */

struct xehpg_fn {
	struct kobject kobj;
	const void *pf;
	unsigned int id;
};

#define to_xehpg_fn(k) container_of(k, struct xehpg_fn, kobj)

static struct kobj_attribute xehpg_profile_files[];
static struct kobj_attribute xehpg_bulk_files[];

static ssize_t xehpg_profile_show(struct kobject *kobj, struct kobj_attribute *a, char *buf)
{
	struct xehpg_fn *f = to_xehpg_fn(kobj);

	return xehpg_sriov_show(f->pf, f->id, a - xehpg_profile_files, buf);
}

static ssize_t xehpg_profile_store(struct kobject *kobj, struct kobj_attribute *a,
				   const char *buf, size_t len)
{
	struct xehpg_fn *f = to_xehpg_fn(kobj);

	return xehpg_sriov_store(f->pf, f->id, a - xehpg_profile_files, buf, len);
}

static ssize_t xehpg_bulk_store(struct kobject *kobj, struct kobj_attribute *a,
				const char *buf, size_t len)
{
	struct xehpg_fn *f = to_xehpg_fn(kobj);

	return xehpg_sriov_store(f->pf, f->id, a - xehpg_bulk_files, buf, len);
}

/* A true value (kstrtobool's) stops the VF; a false one does nothing, as upstream. */
static ssize_t xehpg_stop_store(struct kobject *kobj, struct kobj_attribute *a,
				const char *buf, size_t len)
{
	struct xehpg_fn *f = to_xehpg_fn(kobj);
	bool yes;
	int ret;

	ret = kstrtobool(buf, &yes);
	if (ret)
		return ret;
	if (!yes)
		return len;
	ret = xehpg_sriov_stop(f->pf, f->id);
	return ret ?: len;
}

/* In Rust's setting order (rust/sriov/pf/admin.rs, Setting::ALL). */
static struct kobj_attribute xehpg_profile_files[] = {
	__ATTR(exec_quantum_ms, 0644, xehpg_profile_show, xehpg_profile_store),
	__ATTR(preempt_timeout_us, 0644, xehpg_profile_show, xehpg_profile_store),
	__ATTR(sched_priority, 0644, xehpg_profile_show, xehpg_profile_store),
	__ATTR(vram_quota, 0644, xehpg_profile_show, xehpg_profile_store),
};

static struct kobj_attribute xehpg_bulk_files[] = {
	__ATTR(exec_quantum_ms, 0200, NULL, xehpg_bulk_store),
	__ATTR(preempt_timeout_us, 0200, NULL, xehpg_bulk_store),
	__ATTR(sched_priority, 0200, NULL, xehpg_bulk_store),
	__ATTR(vram_quota, 0200, NULL, xehpg_bulk_store),
};

static struct kobj_attribute xehpg_stop_file = __ATTR(stop, 0200, NULL, xehpg_stop_store);

static struct attribute *xehpg_profile_attrs[] = {
	&xehpg_profile_files[0].attr,
	&xehpg_profile_files[1].attr,
	&xehpg_profile_files[2].attr,
	&xehpg_profile_files[3].attr,
	NULL,
};

/* The PF has no local-memory quota; a VF's priority only follows the policy. */
static umode_t xehpg_profile_visible(struct kobject *kobj, struct attribute *attr, int i)
{
	unsigned int id = to_xehpg_fn(kobj)->id;

	if (attr == &xehpg_profile_files[3].attr && id == 0)
		return 0;
	if (attr == &xehpg_profile_files[2].attr && id != 0)
		return attr->mode & 0444;
	return attr->mode;
}

static const struct attribute_group xehpg_profile_group = {
	.name = "profile",
	.attrs = xehpg_profile_attrs,
	.is_visible = xehpg_profile_visible,
};

static struct attribute *xehpg_control_attrs[] = {
	&xehpg_stop_file.attr,
	NULL,
};

/* Only a VF can be stopped. */
static umode_t xehpg_control_visible(struct kobject *kobj, struct attribute *attr, int i)
{
	return to_xehpg_fn(kobj)->id ? attr->mode : 0;
}

static const struct attribute_group xehpg_control_group = {
	.attrs = xehpg_control_attrs,
	.is_visible = xehpg_control_visible,
};

static const struct attribute_group *xehpg_fn_groups[] = {
	&xehpg_profile_group,
	&xehpg_control_group,
	NULL,
};

static struct attribute *xehpg_bulk_attrs[] = {
	&xehpg_bulk_files[0].attr,
	&xehpg_bulk_files[1].attr,
	&xehpg_bulk_files[2].attr,
	&xehpg_bulk_files[3].attr,
	NULL,
};

static const struct attribute_group xehpg_bulk_group = {
	.name = ".bulk_profile",
	.attrs = xehpg_bulk_attrs,
};

static const struct attribute_group *xehpg_root_groups[] = {
	&xehpg_bulk_group,
	NULL,
};

static void xehpg_fn_release(struct kobject *kobj)
{
	kfree(to_xehpg_fn(kobj));
}

static const struct kobj_type xehpg_fn_ktype = {
	.release = xehpg_fn_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = xehpg_fn_groups,
};

static const struct kobj_type xehpg_root_ktype = {
	.release = xehpg_fn_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = xehpg_root_groups,
};

/* The tree of one PF: the root, and per function (0 the PF) its directory. */
struct xehpg_admin {
	struct kobject *root;
	unsigned int total;
	struct kobject *fns[];
};

/* A directory of the tree, or NULL (the kobject put on failure). */
static struct kobject *xehpg_admin_dir(struct kobject *parent, const struct kobj_type *type,
				       const void *pf, unsigned int id)
{
	struct xehpg_fn *f = kzalloc(sizeof(*f), GFP_KERNEL);
	int ret;

	if (!f)
		return NULL;
	f->pf = pf;
	f->id = id;
	if (id == XEHPG_SRIOV_BULK)
		ret = kobject_init_and_add(&f->kobj, type, parent, "sriov_admin");
	else if (id)
		ret = kobject_init_and_add(&f->kobj, type, parent, "vf%u", id);
	else
		ret = kobject_init_and_add(&f->kobj, type, parent, "pf");
	if (ret) {
		kobject_put(&f->kobj);
		return NULL;
	}
	return &f->kobj;
}

void xehpg_sriov_sysfs_remove(void *handle)
{
	struct xehpg_admin *a = handle;
	unsigned int n;

	if (!a)
		return;
	/* Children first; a directory's removal takes its links and groups along. */
	for (n = a->total + 1; n-- > 0;)
		kobject_put(a->fns[n]);
	kobject_put(a->root);
	kfree(a);
}

/* Creates sriov_admin under the PF for `total` VFs; NULL on failure (logged). */
void *xehpg_sriov_sysfs_add(struct pci_dev *pdev, const void *pf, unsigned int total)
{
	struct xehpg_admin *a = kzalloc(struct_size(a, fns, total + 1), GFP_KERNEL);
	unsigned int n;

	if (!a)
		goto fail;
	a->total = total;
	a->root = xehpg_admin_dir(&pdev->dev.kobj, &xehpg_root_ktype, pf, XEHPG_SRIOV_BULK);
	if (!a->root)
		goto fail;
	for (n = 0; n <= total; n++) {
		a->fns[n] = xehpg_admin_dir(a->root, &xehpg_fn_ktype, pf, n);
		if (!a->fns[n])
			goto fail;
	}
	if (sysfs_create_link(a->fns[0], &pdev->dev.kobj, "device"))
		goto fail;
	return a;
fail:
	pci_err(pdev, "sriov: creating sriov_admin in sysfs failed\n");
	xehpg_sriov_sysfs_remove(a);
	return NULL;
}

/*
 * vfN/device -> VF N for the `num_vfs` VFs just enabled, as upstream
 * (xe_sriov_pf_sysfs_link_vfs). A link that cannot be made is logged and the
 * rest skipped: the VFs work without them.
 */
static void xehpg_sriov_sysfs_link(struct xehpg_admin *a, struct pci_dev *pdev,
				   unsigned int num_vfs)
{
	unsigned int n;

	for (n = 1; a && n <= num_vfs && n <= a->total; n++) {
		/* On the PF's bus, as upstream's xe_pci_sriov_get_vf_pdev. */
		struct pci_dev *vf = pci_get_domain_bus_and_slot(pci_domain_nr(pdev->bus),
								 pdev->bus->number,
								 pci_iov_virtfn_devfn(pdev, n - 1));
		int ret = vf ? sysfs_create_link(a->fns[n], &vf->dev.kobj, "device") : -ENODEV;

		pci_dev_put(vf);
		if (ret) {
			pci_warn(pdev, "sriov: linking VF%u into sriov_admin failed: %d\n", n, ret);
			return;
		}
	}
}

/* Before the VFs go: their links (missing ones are ignored). */
static void xehpg_sriov_sysfs_unlink(struct xehpg_admin *a)
{
	unsigned int n;

	for (n = 1; a && n <= a->total; n++)
		sysfs_remove_link(a->fns[n], "device");
}
