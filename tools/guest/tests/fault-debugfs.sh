#!/bin/sh
# Fault-injection sweep of the debugfs commands that allocate (issue 27
# item 2; Documentation/testing.rst, "Fault-injection sweeps"): a submit
# selftest on the render engine (`submit`: `rcs0 2`, its requests and their
# buffers), a copy-engine blit (`submit`: `blit 1`, two local-memory buffers
# and their GGTT mappings), a CT load (`ct`: `ping 4`), VF provisioning at
# the provisioning layer (`sriov`: `provision 2`, with the test-only shim
# making the PF's SR-IOV capability visible) and a GT reset request
# (`gt_reset`: `1`; the reset itself runs on a workqueue, outside the
# task's fail-nth). Each command runs in this shell's task, in the write;
# lib.sh fault_sweep fails its 1st, 2nd, ... Nth fault-injectable call
# (failslab and fail_page_alloc through the task's fail-nth) until a write
# finishes with nothing injected, which must succeed. After each injected
# failure: no detector report in the attempt's kernel log, the device still
# bound with the GuC running, and what the command makes given back (no VF
# left provisioned; a queued reset finished). The mock's isolation checker
# and its engine model watch every step. kmemleak scans after the boot's
# last scenario. Each failure point is a diagnostic line (lib.sh
# fault_sweep); MIN_* are the least each command's sweep accepts. Not
# sampled: every N is run.
# debug-only: per-task fail-nth with failslab and fail_page_alloc exists in the debug kernel only
# guest-module: sriov-shim
# timeout: 300
# expect-mock: sriov.isolation_violations == 0
# expect-mock: sriov.vfs_configured == 0
# expect-mock: engines.gtt_faults == 0
# expect-mock: bus_master_clears_guc_running == 0
# expect-mock: guc_running_at_exit == false
# expect-mock: violations == 0
. /tests/lib.sh

# Failure points each sweep must find at least; measured (Documentation/
# testing.rst): submit 1, blit 3, ct 0, provision 10 and 15 (the vmalloc of
# the reference copy falls back inside the allocator as memory allows), and
# gt_reset 0 (the reset runs on a workqueue).
MIN_SUBMIT=1
MIN_BLIT=2
MIN_CT=0
MIN_PROVISION=8
MIN_RESET=0

dev=$(gpu_dev 0x56c0)
bdf=${dev##*/}
check sriov_visible "$bdf"
check fault_setup

# still_up: the device is bound and its GuC runs (fault_sweep's CLEAN).
still_up() {
	is_bound "$bdf" || fault_why="$fault_why; the device is no longer bound"
	_gs=$(guc_get "$bdf" status)
	[ "$_gs" = running ] || fault_why="$fault_why; GuC status $_gs"
}

# nothing: a command that succeeded despite the failure leaves nothing to
# give back (fault_sweep's UNDO).
nothing() { :; }

# latencies_refused: a selftest the injected failure did not stop (fault_sweep's
# UNDO). The run's one allocation in this task is the room for its latencies
# (rust/submit/port.rs, record_latencies), and a run without it ends with
# ENOMEM in its report. The kernel also makes allocations of its own here
# that have a fallback (which, and how many, moves between runs: one CI run
# found a second failure point that the run absorbed); those ask for
# __GFP_NOWARN, and
# an injected failure of such a call is not logged (mm/failslab.c and
# mm/fail_page_alloc.c pass FAULT_NOWARN, lib/fault-inject.c then prints
# nothing). The driver never asks for __GFP_NOWARN, so: a logged failure
# must be the driver's, under the debugfs write, with ENOMEM in the report;
# an unlogged one is the kernel's fallback, and the run must be clean.
latencies_refused() {
	_se=$(submit_get "$bdf" rcs0 errno)
	case $fault_log in
	*"FAULT_INJECTION: forcing a failure"*)
		[ "$_se" = -12 ] || fault_why="$fault_why; the run's report says errno $_se, not -12"
		case $(printf '%s\n' "$fault_log" | fault_frames) in
		*xehpg*) ;;
		*) fault_why="$fault_why; a logged failure outside the driver was absorbed" ;;
		esac
		;;
	*)
		[ "$_se" = 0 ] || fault_why="$fault_why; an unlogged (__GFP_NOWARN) failure left errno $_se in the report"
		;;
	esac
}

# none_provisioned: still_up, and no VF is provisioned.
none_provisioned() {
	still_up
	_pv=$(sriov_get "$bdf" provisioned)
	[ "$_pv" = 0 ] || fault_why="$fault_why; $_pv VF(s) left provisioned"
}

# unprovision: gives back VFs provisioned despite the injected failure.
unprovision() { put "$bdf" sriov_ctl unprovision || fault_why="$fault_why; unprovision failed"; }

# reset_idle: still_up once the GT reset a write queued has finished.
reset_idle() {
	wait_until 30 reset_phase_idle || fault_why="$fault_why; the GT reset never finished"
	still_up
}
reset_phase_idle() { [ "$(reset_get "$bdf" phase)" = idle ]; }

fault_sweep "fault-debugfs submit" "$DBG/$bdf/submit_ctl" "rcs0 2" still_up latencies_refused
fault_report "fault-debugfs submit" "$MIN_SUBMIT"
expect_eq "submit: the run with nothing injected succeeded" "$fault_rc" 0
submit_ok "$bdf" rcs0 2

fault_sweep "fault-debugfs blit" "$DBG/$bdf/submit_ctl" "blit 1" still_up nothing
fault_report "fault-debugfs blit" "$MIN_BLIT"
expect_eq "blit: the run with nothing injected succeeded" "$fault_rc" 0
expect_eq "blit: data" "$(submit_get "$bdf" blit data)" ok

fault_sweep "fault-debugfs ct" "$DBG/$bdf/ct_ctl" "ping 4" still_up nothing
fault_report "fault-debugfs ct" "$MIN_CT"
expect_eq "ct: the load with nothing injected succeeded" "$fault_rc" 0
expect_eq "ct: all done" "$(ct_load "$bdf" done)" 4

fault_sweep "fault-debugfs provision" "$DBG/$bdf/sriov_ctl" "provision 2" none_provisioned unprovision
fault_report "fault-debugfs provision" "$MIN_PROVISION"
expect_eq "provision: with nothing injected it succeeded" "$fault_rc" 0
expect_eq "provision: 2 VFs provisioned" "$(sriov_get "$bdf" provisioned)" 2
mock_request vf:check
check put "$bdf" sriov_ctl unprovision
expect_eq "provision: none left" "$(sriov_get "$bdf" provisioned)" 0

fault_sweep "fault-debugfs gt_reset" "$DBG/$bdf/gt_reset_ctl" 1 reset_idle reset_idle
fault_report "fault-debugfs gt_reset" "$MIN_RESET"
expect_eq "gt_reset: the request with nothing injected was taken" "$fault_rc" 0
check wait_until 30 reset_phase_idle
expect_eq "gt_reset: none failed" "$(reset_get "$bdf" failed)" 0

# Everything still works: a selftest on every engine.
mock_engines_driven "$bdf"
check submit_cmd "$bdf" "all 4"
for e in $engines; do
	submit_ok "$bdf" "$e" 4
done
fault_teardown
check rmmod xehpg
check sriov_shim_unload "$bdf"
check_dmesg_clean
done_testing
