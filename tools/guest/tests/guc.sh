#!/bin/sh
# The real GuC firmware (Debian's i915/dg2_guc_70.bin, 70.53.0) goes through
# the DMA engine into the mock, boots to READY and answers GET_HWCONFIG. The
# mock compares what it received (image and RSA key) with the file and counts
# a mismatch as a violation, which fails "mock clean". Each probe boots the
# GuC twice (hwconfig, then the full load, as upstream). Ten rmmod/insmod
# cycles each reach READY again: unbind resets the GuC, the WOPCM registers
# stay locked and the driver accepts them.
# expect-mock: guc_loads == 22
# expect-mock: guc_last_release == 70.53.0
# distro
. /tests/lib.sh

bdf=$(gpu_bdf 0x56c0)
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
# The mock's table: 14 single-dword attributes of 3 dwords each, Mesa's key
# numbers and names (tools/mock/data/hwconfig-keys.tsv), an ATS-M150's values.
expect_eq "hwconfig_dwords" "$n" 42
hw=$DBG/$bdf/hwconfig
expect_eq "hwconfig lines" "$(grep -c . "$hw")" 14
bad=$(grep -vE '^[A-Z][A-Z0-9_]* \([0-9]+\):( [0-9]+)+$' "$hw")
if [ -z "$bad" ]; then ok "every hwconfig line reads NAME (KEY): VALUES"; else not_ok "every hwconfig line reads NAME (KEY): VALUES" "$bad"; fi
expect_eq "hwconfig MAX_SLICES_SUPPORTED" "$(hwconfig_get "$bdf" MAX_SLICES_SUPPORTED)" "(1): 4"
expect_eq "hwconfig MAX_DUAL_SUBSLICES_SUPPORTED" "$(hwconfig_get "$bdf" MAX_DUAL_SUBSLICES_SUPPORTED)" "(2): 32"
expect_eq "hwconfig MAX_NUM_EU_PER_DSS" "$(hwconfig_get "$bdf" MAX_NUM_EU_PER_DSS)" "(3): 16"
expect_eq "hwconfig DEPRECATED_L3_BANK_COUNT" "$(hwconfig_get "$bdf" DEPRECATED_L3_BANK_COUNT)" "(7): 32"
expect_eq "hwconfig MAX_MEMORY_CHANNELS" "$(hwconfig_get "$bdf" MAX_MEMORY_CHANNELS)" "(10): 8"
expect_eq "hwconfig NUM_THREADS_PER_EU" "$(hwconfig_get "$bdf" NUM_THREADS_PER_EU)" "(15): 8"
expect_eq "hwconfig MAX_CCS" "$(hwconfig_get "$bdf" MAX_CCS)" "(24): 4"
expect_eq "hwconfig MAX_VCS" "$(hwconfig_get "$bdf" MAX_VCS)" "(25): 2"
expect_eq "hwconfig L3_BANK_SIZE_IN_KB" "$(hwconfig_get "$bdf" L3_BANK_SIZE_IN_KB)" "(64): 512"
dss=$(hwconfig_get "$bdf" MAX_DUAL_SUBSLICES_SUPPORTED | sed 's/.*: //')
eus=$(hwconfig_get "$bdf" MAX_NUM_EU_PER_DSS | sed 's/.*: //')
expect_eq "EUs (DSS x EUs per DSS)" "$((${dss:-0} * ${eus:-0}))" 512
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
