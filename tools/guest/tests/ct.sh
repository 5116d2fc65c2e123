#!/bin/sh
# The command transport comes up after hwconfig: six SELF_CFG KLVs over MMIO
# register the H2G and G2H rings (upstream's layout: H2G descriptor at +0 and
# a 4 KiB ring at +4 KiB of its object, G2H descriptor at +2 KiB and a 128 KiB
# ring at +4 KiB), then CONTROL_CTB enables the channel. The mock checks what
# the firmware would (addresses reachable through the GGTT, sizes, zeroed
# descriptors) and counts a violation otherwise. Unbind disables the channel
# before it resets the GuC; five reload cycles and the final rmmod do it all
# again (the rmmod is the scenario's own, so both lanes count the same).
# expect-mock: ct.registrations == 36
# expect-mock: ct.enables == 6
# expect-mock: ct.disables == 6
# expect-mock: violations == 0
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
expect_eq "GuC status" "$(guc_get "$bdf" status)" running
ct=$(guc_get "$bdf" ct)
case $ct in
"enabled (h2g desc "*" size 0x1000, g2h desc "*" size 0x20000)") ok "CT enabled: $ct" ;;
*) not_ok "CT enabled" "ct: $ct" ;;
esac
# The G2H descriptor sits 2 KiB into its object, each ring 4 KiB in.
set -- $(echo "$ct" | sed 's/[(),]/ /g')
# $1 enabled, h2g: $4 descriptor, $6 ring; g2h: $11 descriptor, $13 ring.
if [ $(($6 - $4)) -eq 4096 ] && [ $((${13} - ${11})) -eq 2048 ]; then
	ok "ring and descriptor offsets as upstream"
else
	not_ok "ring and descriptor offsets as upstream" "$ct"
fi
expect_eq "interrupts armed for GuC mode" "$(irq_get "$bdf" mode)" guc
i=0
while [ $i -lt 5 ]; do
	reload || break
	[ "$(guc_get "$bdf" ct | cut -d' ' -f1)" = enabled ] || break
	i=$((i + 1))
done
expect_eq "reloads with the CT enabled" "$i" 5
check rmmod xehpg
check_dmesg_clean
done_testing
