#!/bin/sh
# PCODE reports init complete 10 s after a device reset: probe keeps asking
# until it does, then binds. QEMU resets the device at VM start, long before
# the module loads, so the test resets it again right before insmod. The delay
# outlasts insmod itself on the debug kernel (KASAN makes loading the module
# take well over the 500 ms this once used, so PCODE was ready at the first
# query and the test proved nothing there; 3 s, too, once the module grew).
# no-load
# mock-args: --pcode-init-delay-ms 10000
. /tests/lib.sh

dev=$(gpu_dev 0x56c0)
bdf=${dev##*/}
check sh -c "echo 1 > $dev/reset"
check insmod /lib/modules/xehpg.ko
check is_bound "$bdf"
q=$(info_get "$bdf" pcode_init | sed -n 's/complete after \([0-9]*\) queries/\1/p')
if [ -n "$q" ] && [ "$q" -gt 1 ]; then
	ok "PCODE asked $q times before init completed"
else
	not_ok "PCODE asked more than once" "pcode_init: $(info_get "$bdf" pcode_init)"
fi
# The driver's count of its queries is the mock's count of the commands it ran.
mock_expect pcode_commands == "${q:-0}"
check_dmesg_clean
done_testing
