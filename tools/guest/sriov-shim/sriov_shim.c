// SPDX-License-Identifier: GPL-2.0
/*
 * xehpg_sriov_shim: test-only glue that lets the guest's PCI core see the
 * mock ATS-M's SR-IOV capability and its VFs. Not part of the driver; never
 * load it on real hardware (it refuses a device without the mock's window).
 *
 * Why it exists (Documentation/sriov.rst, "Guest shim"): QEMU's vfio-pci,
 * and so vfio-user-pci, hides the SR-IOV extended capability from the guest
 * by rewriting the extended capability chain head at 0x100 (the capability's
 * body still passes through to the device), and it forwards config cycles
 * for the PF's routing ID only. The PCI core finds SR-IOV by walking the
 * chain at scan time (pci_iov_init, drivers/pci/iov.c), so it never sees it.
 *
 * What it does: it wraps the config accessors of the PF's bus with
 * pci_bus_set_ops (the technique of drivers/pci/pcie/aer_inject.c) so that
 *  - a read of the PF's dword at 0x100 returns the mock's own dword there
 *    (the SR-IOV header, read through the window below), restoring the chain;
 *  - a config cycle for a VF routing ID (PF RID + First VF Offset + n * VF
 *    Stride, n < TotalVFs) becomes an access to the mock's test-only config
 *    window in the PF's config space (WINDOW below: select, then data), where
 *    the mock keeps the VFs' config spaces and answers all ones for a VF
 *    that does not exist (VF Enable clear, or n >= NumVFs);
 *  - everything else goes to the original accessors unchanged.
 * After loading it, remove and rescan the PF so the PCI core parses SR-IOV.
 *
 * Window layout (the mock's tools/mock/src/config_space/sriov.rs): dword at
 * 0xF00 reads "XVCW"; 0xF04 selects (bits 7:0 function: 0 = the PF as the
 * mock holds it, n = VF n; bits 27:16 dword-aligned offset); 0xF08 is the
 * selected dword.
 *
 * Parameter: pf=DDDD:BB:DD.F, the mock PF.
 */
#include <linux/errno.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/pci.h>
#include <linux/spinlock.h>

#define SHIM_WINDOW 0xF00
#define SHIM_WINDOW_SIGNATURE (SHIM_WINDOW + 0x0)
#define SHIM_WINDOW_SELECT (SHIM_WINDOW + 0x4)
#define SHIM_WINDOW_DATA (SHIM_WINDOW + 0x8)
/* "XVCW", little-endian. */
#define SHIM_SIGNATURE 0x57435658u
/* The extended capability chain head (PCIe: extended capabilities start here). */
#define SHIM_EXT_HEAD 0x100

static char pf[32];
module_param_string(pf, pf, sizeof(pf), 0400);
MODULE_PARM_DESC(pf, "The mock PF, DDDD:BB:DD.F (required)");

/*
 * The wrapped bus and what the shim learnt at load. The VF routing IDs are
 * computed from TotalVFs, First VF Offset and VF Stride as read at load: the
 * mock's do not depend on NumVFs or ARI (the SR-IOV chapter allows a device
 * to vary them; this shim is for the mock only).
 */
static struct {
	struct pci_bus *bus;
	struct pci_ops *orig;
	unsigned int pf_devfn;
	u16 total_vfs;
	u16 offset;
	u16 stride;
} shim;

/*
 * Select-then-data must not interleave. x86 selects PCI_LOCKLESS_CONFIG, so
 * the PCI core takes no lock around bus->ops (drivers/pci/access.c) and
 * accessors may run in atomic context: a raw spinlock of our own, always
 * taken inside pci_lock when the caller holds that (never the reverse).
 */
static DEFINE_RAW_SPINLOCK(shim_lock);

static struct pci_ops shim_ops;

/* A dword of function @func (0 = PF, n = VF n) through the window. */
static int shim_window_read(unsigned int func, int where, u32 *val)
{
	u32 sel = func | ((u32)(where & 0xffc) << 16);
	unsigned long flags;
	int ret;

	raw_spin_lock_irqsave(&shim_lock, flags);
	ret = shim.orig->write(shim.bus, shim.pf_devfn, SHIM_WINDOW_SELECT, 4, sel);
	if (ret == PCIBIOS_SUCCESSFUL)
		ret = shim.orig->read(shim.bus, shim.pf_devfn, SHIM_WINDOW_DATA, 4, val);
	raw_spin_unlock_irqrestore(&shim_lock, flags);
	return ret;
}

/* @size bytes of VF @func at @where written through the window. */
static int shim_window_write(unsigned int func, int where, int size, u32 val)
{
	u32 sel = func | ((u32)(where & 0xffc) << 16);
	unsigned long flags;
	int ret;

	raw_spin_lock_irqsave(&shim_lock, flags);
	ret = shim.orig->write(shim.bus, shim.pf_devfn, SHIM_WINDOW_SELECT, 4, sel);
	if (ret == PCIBIOS_SUCCESSFUL)
		ret = shim.orig->write(shim.bus, shim.pf_devfn,
				       SHIM_WINDOW_DATA + (where & 3), size, val);
	raw_spin_unlock_irqrestore(&shim_lock, flags);
	return ret;
}

/* @size bytes at @where out of the dword @dword read at @where & ~3. */
static u32 shim_extract(u32 dword, int where, int size)
{
	u32 v = dword >> (8 * (where & 3));

	return size == 4 ? v : v & ((1u << (8 * size)) - 1);
}

/* VF number (1-based) for routing ID @bus/@devfn, or 0 if it is none. */
static unsigned int shim_vf(struct pci_bus *bus, unsigned int devfn)
{
	int first = (shim.bus->number << 8) + shim.pf_devfn + shim.offset;
	int rid = (bus->number << 8) + devfn;
	int n;

	if (bus != shim.bus || !shim.total_vfs || rid < first)
		return 0;
	if (shim.total_vfs == 1)
		return rid == first ? 1 : 0;
	if ((rid - first) % shim.stride)
		return 0;
	n = (rid - first) / shim.stride;
	return n < shim.total_vfs ? n + 1 : 0;
}

static int shim_read(struct pci_bus *bus, unsigned int devfn, int where, int size, u32 *val)
{
	unsigned int vf;
	u32 dword;
	int ret;

	if (bus == shim.bus && devfn == shim.pf_devfn && where >= SHIM_EXT_HEAD &&
	    where < SHIM_EXT_HEAD + 4) {
		ret = shim_window_read(0, where, &dword);
		if (ret == PCIBIOS_SUCCESSFUL)
			*val = shim_extract(dword, where, size);
		return ret;
	}
	vf = shim_vf(bus, devfn);
	if (!vf)
		return shim.orig->read(bus, devfn, where, size, val);
	ret = shim_window_read(vf, where, &dword);
	if (ret == PCIBIOS_SUCCESSFUL)
		*val = shim_extract(dword, where, size);
	return ret;
}

static int shim_write(struct pci_bus *bus, unsigned int devfn, int where, int size, u32 val)
{
	unsigned int vf = shim_vf(bus, devfn);

	if (!vf)
		return shim.orig->write(bus, devfn, where, size, val);
	return shim_window_write(vf, where, size, val);
}

/* A PF dword through the original accessors (what QEMU shows). */
static int shim_pf_read(int where, u32 *val)
{
	return shim.orig->read(shim.bus, shim.pf_devfn, where, 4, val) == PCIBIOS_SUCCESSFUL ?
		       0 : -EIO;
}

/*
 * Reads the SR-IOV capability the mock holds at the chain head (through the
 * window: QEMU shows 0 there) and its VF routing parameters (the body passes
 * through QEMU); refuses a layout the shim cannot serve.
 */
static int shim_learn(void)
{
	u32 head, total, route;
	int vf, last, ret;

	ret = shim_window_read(0, SHIM_EXT_HEAD, &head) == PCIBIOS_SUCCESSFUL ? 0 : -EIO;
	if (ret)
		return ret;
	if (PCI_EXT_CAP_ID(head) != PCI_EXT_CAP_ID_SRIOV) {
		pr_err("xehpg_sriov_shim: %s: no SR-IOV capability at %#x (header %#x)\n",
		       pf, SHIM_EXT_HEAD, head);
		return -ENODEV;
	}
	ret = shim_pf_read(SHIM_EXT_HEAD + PCI_SRIOV_INITIAL_VF, &total);
	if (!ret)
		ret = shim_pf_read(SHIM_EXT_HEAD + PCI_SRIOV_VF_OFFSET, &route);
	if (ret)
		return ret;
	shim.total_vfs = total >> 16;
	shim.offset = route & 0xffff;
	shim.stride = route >> 16;
	if (shim.total_vfs && (!shim.offset || (shim.total_vfs > 1 && !shim.stride))) {
		pr_err("xehpg_sriov_shim: %s: VF offset %u stride %u\n", pf, shim.offset,
		       shim.stride);
		return -EINVAL;
	}
	/*
	 * Every VF must sit on the PF's bus (a VF bus created later would
	 * inherit these ops and outlive the module) and on a free routing ID.
	 */
	last = shim.pf_devfn + shim.offset + (shim.total_vfs - 1) * shim.stride;
	if (shim.total_vfs && last > 0xff) {
		pr_err("xehpg_sriov_shim: %s: VF routing IDs leave bus %02x\n", pf,
		       shim.bus->number);
		return -ERANGE;
	}
	for (vf = 0; vf < shim.total_vfs; vf++) {
		unsigned int devfn = shim.pf_devfn + shim.offset + vf * shim.stride;
		struct pci_dev *other = pci_get_slot(shim.bus, devfn);

		if (other) {
			pci_err(other, "xehpg_sriov_shim: VF %d of %s would shadow this device\n",
				vf + 1, pf);
			pci_dev_put(other);
			return -EBUSY;
		}
	}
	return 0;
}

static int __init shim_init(void)
{
	unsigned int domain, busnr, slot, fn;
	u32 sig;
	int ret;

	if (sscanf(pf, "%x:%x:%x.%x", &domain, &busnr, &slot, &fn) != 4 || slot > 31 || fn > 7) {
		pr_err("xehpg_sriov_shim: pf=%s is not DDDD:BB:DD.F\n", pf);
		return -EINVAL;
	}
	shim.bus = pci_find_bus(domain, busnr);
	if (!shim.bus) {
		pr_err("xehpg_sriov_shim: no PCI bus %04x:%02x\n", domain, busnr);
		return -ENODEV;
	}
	shim.pf_devfn = PCI_DEVFN(slot, fn);
	shim.orig = shim.bus->ops;
	/* Only the mock has the window: anything else is left alone. */
	if (shim_pf_read(SHIM_WINDOW_SIGNATURE, &sig) || sig != SHIM_SIGNATURE) {
		pr_err("xehpg_sriov_shim: %s has no mock config window\n", pf);
		return -ENODEV;
	}
	ret = shim_learn();
	if (ret)
		return ret;
	shim_ops.read = shim_read;
	shim_ops.write = shim_write;
	shim_ops.add_bus = shim.orig->add_bus;
	shim_ops.remove_bus = shim.orig->remove_bus;
	shim_ops.map_bus = shim.orig->map_bus;
	shim.orig = pci_bus_set_ops(shim.bus, &shim_ops);
	pr_info("xehpg_sriov_shim: %s: SR-IOV visible, TotalVFs %u, VF offset %u stride %u\n",
		pf, shim.total_vfs, shim.offset, shim.stride);
	return 0;
}

static void __exit shim_exit(void)
{
	struct pci_dev *pdev = pci_get_slot(shim.bus, shim.pf_devfn);
	unsigned long flags;

	if (pdev && pci_num_vf(pdev))
		pci_warn(pdev, "xehpg_sriov_shim: unloading with %d VFs enabled\n",
			 pci_num_vf(pdev));
	pci_dev_put(pdev);
	pci_bus_set_ops(shim.bus, shim.orig);
	/*
	 * A caller that entered shim_read before the swap holds shim_lock or
	 * is about to call the original ops; the lock's round trip waits out
	 * the first kind (the PCI core has no way to wait for the second,
	 * which aer_inject.c lives with as well).
	 */
	raw_spin_lock_irqsave(&shim_lock, flags);
	raw_spin_unlock_irqrestore(&shim_lock, flags);
	pr_info("xehpg_sriov_shim: %s: original config accessors restored\n", pf);
}

module_init(shim_init);
module_exit(shim_exit);
MODULE_DESCRIPTION("Test-only: SR-IOV of the xehpg mock device behind QEMU's vfio-user-pci");
MODULE_LICENSE("GPL");
