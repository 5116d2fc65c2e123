#!/bin/sh
# `make run`'s report, run inside the VM after xehpg.ko is loaded: what the
# PCI core sees, what the driver bound and what it read from the hardware.
echo "== PCI functions (vendor:device, driver)"
for d in /sys/bus/pci/devices/*; do
	v=$(cat "$d/vendor"); id=$(cat "$d/device")
	drv=$(basename "$(readlink "$d/driver" 2>/dev/null)" 2>/dev/null)
	echo "  $(basename "$d")  ${v#0x}:${id#0x}  class $(cat "$d/class")  ${drv:-(no driver)}"
done
echo
echo "== xehpg kernel messages"
dmesg | grep -i xehpg | sed 's/^/  /'
echo
for d in /sys/kernel/debug/xehpg/*/; do
	[ -f "$d/info" ] || { echo "== no device bound (no debugfs directory)"; continue; }
	for f in info topology guc_info hwconfig; do
		echo "== $d$f"
		sed 's/^/  /' "$d$f"
		echo
	done
	# Interrupts: the mock raises 10 GuC-to-host and 5 RCS0 user interrupts
	# (through the runner, Documentation/mock.rst); the driver counts them.
	echo "== interrupts: asking the mock for 10 GuC and 5 rcs0 interrupts"
	# Each request is answered on the command channel once the mock has it.
	for req in irq:guc:0x8000:10 irq:rcs0:0x0001:5; do
		echo "XEHPG-VM-MOCK=$req"
		ack=
		read -r -t 15 ack </dev/ttyS1
		[ "$ack" = "XEHPG-VM-ACK=mock ok" ] || echo "  the mock did not take $req (answer: '$ack')"
	done
	i=0
	while [ $i -lt 20 ] && ! grep -q '^source rcs0: 5 ' "$d/irq"; do
		sleep 1
		i=$((i + 1))
	done
	echo "== ${d}irq"
	sed 's/^/  /' "$d/irq"
	echo
	# The CT: 100 blocking requests, 640 batched fast requests, 100 MMIO
	# round trips for comparison; the file then shows the counters.
	if [ "$(sed -n 's/^state: //p' "$d/ct")" = up ]; then
		for cmd in "ping 100" "fast 640" "mmio-ping 100"; do
			echo "== CT load: echo '$cmd' > ${d}ct_ctl"
			echo "$cmd" >"$d/ct_ctl" && sed -n 's/^load: /  /p' "$d/ct"
		done
	fi
	echo "== ${d}ct"
	sed 's/^/  /' "$d/ct"
	echo
	# Submission: 100 requests on every engine (store, seqno, user
	# interrupt), each slot read back through BAR 2; then the engines' state.
	echo "== submission: echo 'all 100' > ${d}submit"
	echo "all 100" >"$d/submit_ctl" && sed 's/^/  /' "$d/submit"
	echo "== ${d}engines"
	sed 's/^/  /' "$d/engines"
	echo
done
# SR-IOV: QEMU hides the mock PF's SR-IOV capability; the test-only shim
# (Documentation/sriov.rst) shows it to the PCI core, then the driver
# provisions 4 VFs through sriov_numvfs and gives them back.
shim=/lib/modules/xehpg_sriov_shim.ko
for d in /sys/kernel/debug/xehpg/*/; do
	bdf=$(basename "$d")
	dev=/sys/bus/pci/devices/$bdf
	[ -f "$shim" ] && [ "$(sed -n 's/^sriov_pf_capable: //p' "$d/info")" = yes ] || continue
	echo "== SR-IOV: the test-only shim, then the PF removed and rescanned"
	insmod "$shim" "pf=$bdf" && echo 1 >"$dev/remove" && echo 1 >/sys/bus/pci/rescan
	i=0
	while [ $i -lt 10 ] && [ ! -e "/sys/bus/pci/drivers/xehpg/$bdf" ]; do
		sleep 1
		i=$((i + 1))
	done
	[ -e "$dev/sriov_totalvfs" ] || { echo "  no SR-IOV capability visible"; continue; }
	echo "  sriov_totalvfs: $(cat "$dev/sriov_totalvfs")"
	echo 0 >"$dev/sriov_drivers_autoprobe"
	echo "== echo 4 > sriov_numvfs"
	echo 4 >"$dev/sriov_numvfs" && echo "  sriov_numvfs: $(cat "$dev/sriov_numvfs")"
	echo "== ${d}sriov"
	sed 's/^/  /' "$d/sriov"
	echo "== echo 0 > sriov_numvfs"
	echo 0 >"$dev/sriov_numvfs" && sed -n 's/^provisioned: /  provisioned: /p' "$d/sriov"
	echo "== xehpg SR-IOV messages"
	dmesg | grep "sriov" | sed 's/^/  /'
	echo 1 >"$dev/remove" && rmmod xehpg_sriov_shim && echo 1 >/sys/bus/pci/rescan
	echo
done

