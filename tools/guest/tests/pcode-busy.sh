#!/bin/sh
# Another agent holds the PCODE mailbox (READY set) for 10 s after a device
# reset. The driver once gave up at the first busy read; upstream retries
# busy like any failure (xe_pcode.c __pcode_mailbox_rw returns -EAGAIN,
# pcode_try_request asks again after 10 us, doubling, for up to 3 minutes).
# Probe must ride it out without writing the busy mailbox, then bind. The
# test resets the device right before insmod (as pcode-slow does) so the busy
# window covers the first queries (10 s: loading the module on the debug
# kernel outlasted a 3 s window). The mock's count of the busy reads it gave
# is the assertion; the driver's own count must agree with it.
# no-load
# mock-args: --pcode-busy-ms 10000
. /tests/lib.sh

dev=$(gpu_dev 0x56c0)
bdf=${dev##*/}
check sh -c "echo 1 > $dev/reset"
check insmod /lib/modules/xehpg.ko
check is_bound "$bdf"
b=$(info_get "$bdf" pcode_retries | sed -n 's/^busy \([0-9]*\) failed 0$/\1/p')
if [ -n "$b" ] && [ "$b" -gt 1 ]; then
	ok "probe retried $b busy PCODE queries"
else
	not_ok "probe retried busy PCODE queries" "pcode_retries: $(info_get "$bdf" pcode_retries)"
fi
# Several busy reads, each one of the driver's retries, and one command run
# once the mailbox was free; a write while busy would be a violation.
mock_expect "pcode_busy_replies >= 2"
mock_expect pcode_busy_replies == "${b:-0}"
mock_expect pcode_commands == 1
check_dmesg_clean
done_testing
