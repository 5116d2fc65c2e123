/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The interface between the C glue (rust/xehpg_glue.c) and the Rust crate,
 * in both directions. Rust declares its side again in its own `extern "C"`
 * blocks (rust/xehpg.rs, rust/driver.rs, rust/guc/fw.rs); the C compiler
 * checks the glue's definitions and calls against this file.
 */
#ifndef XEHPG_GLUE_H
#define XEHPG_GLUE_H

#include <linux/limits.h>
#include <linux/pci.h>
#include <linux/types.h>

/* Defined by the glue, called by Rust. */

/* The guc_firmware_path parameter, NUL-terminated; empty when not set. */
const char *xehpg_guc_firmware_path(void);
/* Probe, for a PF: sriov_numvfs writes now reach the glue's sriov_configure. */
void xehpg_sriov_hook(struct pci_dev *pdev);
/* Module exit, before the driver is unregistered: every PF's VFs disabled. */
void xehpg_sriov_disable_all(const char *name);
/* Unbind, before the VFs' shares go. */
void xehpg_sriov_disable(struct pci_dev *pdev);
/* The sriov_admin tree of a PF for `total` VFs: a handle, NULL on failure. */
void *xehpg_sriov_sysfs_add(struct pci_dev *pdev, const void *pf, unsigned int total);
void xehpg_sriov_sysfs_remove(void *handle);
/* A device coredump of `len` vmalloc'd bytes at `data`, which it then owns. */
void xehpg_coredump(struct device *dev, void *data, size_t len);
/* Unbind: drop the device's coredump, if any. */
void xehpg_coredump_put(struct device *dev);

/* Defined by Rust (rust/driver.rs), called by the glue. */

/* Provision num_vfs VFs (0 or -errno); give them back. */
int xehpg_sriov_provision(void *data, int num_vfs);
void xehpg_sriov_unprovision(void *data);
/* The function number of sriov_admin's bulk profile (0 is the PF, N VF N). */
#define XEHPG_SRIOV_BULK UINT_MAX
/* Show and store of sriov_admin setting `setting` of function `id`. */
ssize_t xehpg_sriov_show(const void *pf, unsigned int id, unsigned int setting, char *buf);
ssize_t xehpg_sriov_store(const void *pf, unsigned int id, unsigned int setting,
			  const char *buf, size_t len);
/* Stop VF `id` (vfN/stop written with a true value): 0 or -errno. */
int xehpg_sriov_stop(const void *pf, unsigned int id);
/* The sriov_admin tree of the device whose driver data is `data`, or NULL. */
void *xehpg_sriov_admin(void *data);

#endif /* XEHPG_GLUE_H */
