#!/bin/sh
# The copy engine copies 16 MiB of local memory (debugfs submit `blit 16`):
# the driver fills a source buffer with a pattern and zeroes a destination
# through BAR 2, maps both into the GGTT, submits four linear
# XY_FAST_COPY_BLTs of 4 MiB on bcs0 (each followed by the flush that writes
# the seqno), waits for the last to retire, and reads every dword of the
# destination back through BAR 2. It also times the same copy by the CPU in
# kernel memory; the report gives both. Then `clear 16`: a pattern written
# through BAR 2 is cleared by the copy engine (XY_FAST_COLOR_BLT, the code
# that clears VFs' local memory) in four 4 MiB windows of one GGTT range,
# re-pointed between them; every dword reads back zero and the 64 KiB after
# the range keep the pattern. Run in execlist mode, then under the GuC.
# expect-mock: engines.bcs0.fills == 8
# expect-mock: engines.bcs0.fill_bytes == 33554432
# expect-mock: engines.bcs0.errors == 0
# expect-mock: engines.gtt_faults == 0
# expect-mock: violations == 0
# timeout: 240
. /tests/lib.sh

blit_get() { submit_get "$1" blit "$2"; }
clear_get() { submit_get "$1" clear "$2"; }

# clear_ok MODE: `clear 16` and its report.
clear_ok() {
	check submit_cmd "$bdf" "clear 16"
	diag "$(sed -n 's/^clear: //p' "$DBG/$bdf/submit")"
	expect_eq "$1: clear: no error" "$(clear_get "$bdf" errno)" 0
	expect_eq "$1: cleared, the guard untouched" "$(clear_get "$bdf" data)" ok
}

bdf=$(gpu_bdf 0x56c0)
check reload force_execlist=1
check is_bound "$bdf"
check submit_cmd "$bdf" "blit 16"
diag "$(sed -n 's/^blit: //p' "$DBG/$bdf/submit")"
expect_eq "execlist: 16 MiB copied" "$(blit_get "$bdf" mib)" 16
expect_eq "execlist: no error" "$(blit_get "$bdf" errno)" 0
expect_eq "execlist: every dword read back right" "$(blit_get "$bdf" data)" ok
expect_eq "bcs0: four copies retired" "$(eng_get "$bdf" bcs0 completed)" 4
clear_ok execlist
expect_eq "bcs0: four fills retired" "$(eng_get "$bdf" bcs0 completed)" 8
for bad in "blit 0" "blit 65" "blit x" "blit" "clear 0" "clear 65" "clear x"; do
	check not submit_cmd "$bdf" "$bad"
done

check reload
if [ "$(eng_get "$bdf" bcs0 mode)" = guc ]; then
	check submit_cmd "$bdf" "blit 16"
	diag "$(sed -n 's/^blit: //p' "$DBG/$bdf/submit")"
	expect_eq "GuC: no error" "$(blit_get "$bdf" errno)" 0
	expect_eq "GuC: every dword read back right" "$(blit_get "$bdf" data)" ok
	clear_ok GuC
else
	not_ok "GuC mode after reload" "mode $(eng_get "$bdf" bcs0 mode)"
fi
no_nudges "$bdf"
check rmmod xehpg
check_dmesg_clean
done_testing
