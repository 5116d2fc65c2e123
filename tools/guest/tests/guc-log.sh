#!/bin/sh
# The GuC's log (Documentation/debugfs.rst, guc_log): guc_log_level=3 reaches
# the GuC as upstream encodes it (verbosity 1), with the half-full
# notification asked for; debugfs guc_log is the buffer, binary, in
# upstream's layout. A burst of entries past half the event-data section
# makes the GuC ask for a flush; the driver answers as the guc_log_abi.h
# handshake says (read_ptr = sampled_write_ptr, flush_to_file cleared,
# LOG_BUFFER_FILE_FLUSH_COMPLETE), read back from the buffer itself and
# counted by the mock. Then the GuC crashes: NOTIFY_CRASH_DUMP_POSTED leaves
# a device coredump whose log bytes are the buffer's, crash record included,
# and unbind removes it.
# params: guc_log_level=3
# expect-mock: guc_log.level == 3
# expect-mock: guc_log.verbosity == 1
# expect-mock: guc_log.notify_on_half_full == true
# expect-mock: guc_log.flush_notifies == 1
# expect-mock: guc_log.acks == 1
# expect-mock: guc_log.entries >= 2100
# expect-mock: guc.crash_dumps_posted == 1
# expect-mock: violations == 0
# timeout: 180
. /tests/lib.sh

# has_devcd BDF: the device has a coredump.
has_devcd() { [ -n "$(devcd_of "$1")" ]; }

bdf=$(gpu_bdf 0x56c0)
check is_bound "$bdf"
log=$DBG/$bdf/guc_log
expect_eq "guc_info log_level" "$(guc_get "$bdf" log_level)" "3 (GUC_CTL_DEBUG 0x1)"
expect_eq "guc_log bytes" "$(wc -c <"$log")" $((0x115000))

# u32 FILE OFFSET: the little-endian dword at byte OFFSET of FILE.
u32() { dd if="$1" bs=4 skip=$(($2 / 4)) count=1 2>/dev/null | od -An -tu4 | tr -d ' '; }
# The event-data section's state is the first of three 36-byte
# guc_log_buffer_state (read_ptr 8, write_ptr 12, size 16,
# sampled_write_ptr 20, flags 28), the crash dump's the second.
cp "$log" /tmp/log0
expect_eq "event data: size" "$(u32 /tmp/log0 16)" 65536
expect_eq "crash dump: size" "$(u32 /tmp/log0 $((36 + 16)))" 16384
expect_eq "event data: nothing asked yet" "$(($(u32 /tmp/log0 28) & 1))" 0
w0=$(u32 /tmp/log0 12)

# Past half of 64 KiB in 16-byte entries: the GuC asks once, the driver answers.
mock_request guc:log-burst:2100
check wait_until 20 sh -c "grep -q '^log_flushes: acked 1 not_asked 0 refused 0 ' $DBG/$bdf/guc_info"
cp "$log" /tmp/log1
sampled=$(u32 /tmp/log1 20)
diag "write_ptr $w0 -> $(u32 /tmp/log1 12), sampled $sampled, read_ptr $(u32 /tmp/log1 8)"
check test "$sampled" -ge 32768
expect_eq "read_ptr moved to the sampled pointer" "$(u32 /tmp/log1 8)" "$sampled"
expect_eq "flush_to_file cleared" "$(($(u32 /tmp/log1 28) & 1))" 0
expect_eq "no overflow" "$((($(u32 /tmp/log1 28) >> 1) & 15))" 0

# The crash: a dump of this device, its log bytes the buffer's.
mock_request guc:crash:1
check wait_until 20 has_devcd "$bdf"
cd_dir=$(devcd_of "$bdf")
cp "$cd_dir/data" /tmp/crash.dump
check grep -q '^reason: NOTIFY_CRASH_DUMP_POSTED$' /tmp/crash.dump
expect_eq "guc_info crash_dumps" "$(guc_get "$bdf" crash_dumps)" "1 failed 0"
check dmesg_has "guc: the GuC posted a crash dump; capturing it"
text_len=$(sed -n '1,/^guc_log: /p' /tmp/crash.dump | wc -c)
tail -c +$((text_len + 1)) /tmp/crash.dump >/tmp/crash.log
# The GuC stopped after its crash: the buffer is what the dump holds.
check cmp /tmp/crash.log "$log"
# The crash section (after the header page and the event data) starts with
# the mock's crash record, and the GuC advanced the section's write pointer.
expect_eq "crash record magic" "$(dd if=/tmp/crash.log bs=4096 skip=17 count=1 2>/dev/null | head -c 4)" GCRD
check test "$(u32 /tmp/crash.log $((36 + 12)))" -gt 0

check rmmod xehpg
expect_eq "coredump gone with the driver" "$(devcd_of "$bdf")" ""
check_dmesg_clean
done_testing
