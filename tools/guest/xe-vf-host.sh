#!/bin/sh
# Host side of the xe-vf suite (tools/check/src/suites/xe_vf.rs): xehpg is
# the PF. It enables two VFs, lets the runner start the second VM on VF1
# (`peer guest`: upstream xe probes VF1 there, tools/guest/xe-vf-guest.sh),
# then disables the VFs. Each fact is a `xe-vf-host: KEY=VALUE` line; the
# host judges them with the mock's record.
. /tests/lib.sh

dev=$(gpu_dev 0x56c0)
bdf=${dev##*/}
sriov_visible "$bdf"
echo "xe-vf-host: visible=$?"
# The host VM's own PCI core must not bind the VFs: the second VM has VF1.
echo 0 >"$dev/sriov_drivers_autoprobe"
numvfs "$bdf" 2
echo "xe-vf-host: numvfs=$?"
for n in 1 2; do
	echo "xe-vf-host: vf$n=$(sed -n "s/^vf$n: //p" "$DBG/$bdf/sriov")"
done
peer guest
echo "xe-vf-host: peer=$?"
# What the PF saw of VF1 meanwhile (its FLRs: QEMU resets the function when
# the second VM starts and stops).
echo "xe-vf-host: vf1-after=$(sed -n "s/^vf1: //p" "$DBG/$bdf/sriov")"
numvfs "$bdf" 0
echo "xe-vf-host: disable=$?"
echo "xe-vf-host: vfs-left=$(cat "$dev/sriov_numvfs")"
echo "xe-vf-host: unbind=$(echo "$bdf" >/sys/bus/pci/drivers/xehpg/unbind 2>&1 && echo ok || echo failed)"
echo "xe-vf-host: done"
