#!/bin/sh
# The real GuC firmware (Debian's i915/dg2_guc_70.bin, 70.53.0) goes through
# the DMA engine into the mock, boots to READY and answers GET_HWCONFIG. The
# mock compares what it received (image and RSA key) with the file and counts
# a mismatch as a violation, which fails "mock clean". Ten rmmod/insmod
# cycles each reach READY again: unbind resets the GuC, the WOPCM registers
# stay locked and the driver accepts them.
# expect-mock: guc_loads == 11
# expect-mock: guc_last_release == 70.53.0
. /tests/lib.sh

bdf=$(basename "$(gpu_dev 0x56c0)")
check is_bound "$bdf"
expect_eq "GuC status" "$(guc_get "$bdf" status)" running
expect_eq "release" "$(guc_get "$bdf" release)" 70.53.0
expect_eq "submission interface" "$(guc_get "$bdf" submission)" 1.26.0
expect_eq "firmware" "$(guc_get "$bdf" firmware)" i915/dg2_guc_70.bin
expect_eq "rsa_size" "$(guc_get "$bdf" rsa_size)" 0x180
expect_eq "private_data_size" "$(guc_get "$bdf" private_data_size)" 0x801000
expect_eq "WOPCM on first load" "$(guc_get "$bdf" wopcm)" "base 0x4000 size 0x3f3000 (programmed)"
expect_eq "last_error" "$(guc_get "$bdf" last_error)" none
t=$(guc_get "$bdf" load_time_us)
if [ "${t:-0}" -gt 0 ]; then ok "load time reported ($t us)"; else not_ok "load time reported" "load_time_us: $t"; fi
n=$(guc_get "$bdf" hwconfig_dwords)
if [ "${n:-0}" -gt 2 ]; then ok "hwconfig table read ($n dwords)"; else not_ok "hwconfig table read" "hwconfig_dwords: $n"; fi
mock_expect hwconfig_served_bytes == $((${n:-0} * 4))
lines=$(grep -c '^\[' "$(dbg "$bdf" hwconfig)")
if [ "$lines" -gt 0 ]; then ok "hwconfig decoded ($lines attributes)"; else not_ok "hwconfig decoded" "$(cat "$(dbg "$bdf" hwconfig)")"; fi
check dmesg_has "guc: firmware 70.53.0 running"

ready=0
i=0
while [ $i -lt 10 ]; do
	i=$((i + 1))
	reload || break
	[ "$(guc_get "$bdf" status)" = running ] || break
	ready=$i
done
expect_eq "reload cycles reaching READY" "$ready" 10
expect_eq "WOPCM after reload" "$(guc_get "$bdf" wopcm)" "base 0x4000 size 0x3f3000 (found locked)"
check_dmesg_clean
done_testing
