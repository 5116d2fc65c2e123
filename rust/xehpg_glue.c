// SPDX-License-Identifier: GPL-2.0
/*
 * C glue for what the 7.3 Rust kernel crate cannot express:
 *
 * - a string module parameter (module! supports integer and bool parameters
 *   only). Rust reads it through xehpg_guc_firmware_path().
 * - sriov_configure: the PCI core calls it when sriov_numvfs is written, but
 *   the Rust PCI driver abstraction has no hook for it. Probe installs it on
 *   the driver (xehpg_sriov_hook); it asks Rust to provision the VFs, then
 *   enables them, and disables them before Rust gives their shares back. The
 *   PCI core calls it with the device lock held, so the driver is bound and
 *   its data (the Rust device state) alive for the whole call.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pci.h>

static char guc_firmware_path[256];
module_param_string(guc_firmware_path, guc_firmware_path, sizeof(guc_firmware_path), 0400);
MODULE_PARM_DESC(guc_firmware_path,
		 "GuC firmware to load instead of i915/dg2_guc_70.bin (relative to the firmware search path)");

/* The parameter, NUL-terminated; empty when not set. */
const char *xehpg_guc_firmware_path(void);
const char *xehpg_guc_firmware_path(void)
{
	return guc_firmware_path;
}

/* Rust (rust/driver.rs): provision num_vfs VFs (0 or -errno); give them back. */
int xehpg_sriov_provision(void *data, int num_vfs);
void xehpg_sriov_unprovision(void *data);

static int xehpg_sriov_configure(struct pci_dev *pdev, int num_vfs)
{
	void *data = pci_get_drvdata(pdev);
	int ret;

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
void xehpg_sriov_hook(struct pci_dev *pdev);
void xehpg_sriov_hook(struct pci_dev *pdev)
{
	if (pdev->driver)
		WRITE_ONCE(pdev->driver->sriov_configure, xehpg_sriov_configure);
}

/* Called by unbind before the shares go: VFs cannot outlive their provisioning. */
void xehpg_sriov_disable(struct pci_dev *pdev);
void xehpg_sriov_disable(struct pci_dev *pdev)
{
	if (pci_num_vf(pdev))
		pci_disable_sriov(pdev);
}
