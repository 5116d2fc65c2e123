#!/bin/sh
# An Intel display function whose ID is in no DG2/ATS-M list: the driver is
# loaded and must neither bind it nor touch its registers (the harness fails
# the run on any mock access it did not expect).
# device-id: 0x56ff
# mock-args: --foreign-id
# expect-mock: mmio_reads == 0
# expect-mock: mmio_writes == 0
. /tests/lib.sh

dev=$(gpu_dev 0x56ff)
bdf=${dev##*/}
check test -n "$bdf"
check test -d /sys/bus/pci/drivers/xehpg
check not is_bound "$bdf"
check not test -e /sys/kernel/debug/xehpg/"$bdf"
check not dmesg_has "xehpg $bdf"
check_dmesg_clean
done_testing
