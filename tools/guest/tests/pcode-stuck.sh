#!/bin/sh
# PCODE never completes a command: the first query times out after upstream's
# 1 ms, and every later one finds READY still set (busy, -EAGAIN upstream) and
# is retried without touching the mailbox, until the budget (300 ms: 14
# queries) is spent. Probe refuses the device with a clear message, leaves
# nothing behind (no debugfs directory, no claimed BAR region) and unloads
# cleanly; writing the busy mailbox would be a pcode_busy_write violation.
# mock-args: --fault pcode-stuck
# params: pcode_init_timeout_ms=300
. /tests/lib.sh

probe_refused 0x56c0 "probe: PCODE did not report init complete within 300 ms: 14 queries (13 busy, 1 failed), last: mailbox busy (READY set) (0x0)"
mock_expect pcode_commands == 0
done_testing
