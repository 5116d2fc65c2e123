#!/bin/sh
# Broken firmware files, made in the guest from the real one: each is refused
# before anything reaches the device, with a message that says what and why,
# and the device stays bound with the GuC down. A missing file likewise.
# A file with bytes past what its header accounts for is not broken: upstream
# loads it (xe_uc_fw.c parse_css_header refuses only short files), and so must
# the driver, with the same uCode the mock's GuC checks against the real file.
# no-load
. /tests/lib.sh

src=/lib/firmware/i915/dg2_guc_70.bin
mkdir -p /lib/firmware/xehpg
# patch FILE OFFSET B0 B1 B2 B3: overwrite a little-endian dword.
patch() {
	printf "\\$(printf %o "$3")\\$(printf %o "$4")\\$(printf %o "$5")\\$(printf %o "$6")" |
		dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
head -c 100 $src >/lib/firmware/xehpg/short.bin
head -c 200000 $src >/lib/firmware/xehpg/truncated.bin
cp $src /lib/firmware/xehpg/padded.bin && head -c 1024 /dev/zero >>/lib/firmware/xehpg/padded.bin
cp $src /lib/firmware/xehpg/header.bin && patch /lib/firmware/xehpg/header.bin 4 226 0 0 0
cp $src /lib/firmware/xehpg/old.bin && patch /lib/firmware/xehpg/old.bin 64 0 20 70 0
cp $src /lib/firmware/xehpg/nokey.bin && patch /lib/firmware/xehpg/nokey.bin 28 0 0 0 0

bdf=$(gpu_bdf 0x56c0)
try() {
	reload guc_firmware_path="xehpg/$1.bin"
	if is_bound "$bdf" && [ "$(guc_get "$bdf" status)" = failed ] && dmesg | tail -n 20 | grep -qF -- "$2"; then
		ok "$1: refused ($2)"
	else
		not_ok "$1: refused ($2)" "status: $(guc_get "$bdf" status)" "$(dmesg | grep guc | tail -n 3)"
	fi
}
try short "shorter than the 128-byte CSS header"
try truncated "header + uCode + RSA key need 381760"
try header "header_size_dw 226 is not 32 + key 96 + modulus 96 + exponent 1"
try old "release 70.20.0 is not a 70.x release at least 70.29.2"
try nokey "header_size_dw 225 is not 32 + key 0 + modulus 96 + exponent 1"
try missing "cannot get firmware xehpg/missing.bin"
# The padded file loads and the GuC runs it.
check reload guc_firmware_path=xehpg/padded.bin
expect_eq "GuC status with 1024 trailing bytes" "$(guc_get "$bdf" status)" running
# And the real file still loads afterwards.
check reload
expect_eq "GuC status with the real file" "$(guc_get "$bdf" status)" running
check rmmod xehpg
check_dmesg_clean
done_testing
