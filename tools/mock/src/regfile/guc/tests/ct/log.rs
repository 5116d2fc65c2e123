//! The GuC log (`log.rs`) through the register file: the header page a
//! boot writes, entries by level, the half-full notification and its
//! acknowledgement, overflows, and the crash dump / exception.

use super::*;
use crate::regfile::guc::log;
use crate::regfile::guc::log::state;

/// The debug section's state and data, and the crash section's, in guest
/// memory (the harness's `GUC_CTL_LOG_PARAMS`: 64 KiB debug, 16 KiB crash).
const STATE_DEBUG: u64 = LOG_PHYS;
const STATE_CRASH: u64 = LOG_PHYS + log::STATE_BYTES;
const DEBUG_DATA: u64 = LOG_PHYS + 0x1000;
const CRASH_DATA: u64 = LOG_PHYS + 0x1000 + 0x1_0000;
const DEBUG_SIZE: u32 = 0x1_0000;
/// `GUC_CTL_DEBUG` as upstream writes it for levels 0 and 1.
const QUIET: u32 = log::LOG_DISABLED;

impl H {
    fn sys32(&self, addr: u64) -> u32 {
        u32::from_le_bytes(self.bus.sys_bytes(addr, 4).try_into().expect("4 bytes"))
    }

    fn put_sys32(&mut self, addr: u64, v: u32) {
        self.bus
            .write(Target::Sys, addr, &v.to_le_bytes())
            .expect("guest memory");
    }

    /// Dword `off` of the state struct at `at`.
    fn log_state(&self, at: u64, off: u64) -> u32 {
        self.sys32(at + off)
    }

    /// Entry `i` of the debug section: four dwords.
    pub(super) fn entry(&self, i: u32) -> [u32; 4] {
        let at = DEBUG_DATA + 16 * u64::from(i);
        [0, 4, 8, 12].map(|o| self.sys32(at + o))
    }

    fn guc_control(&mut self, text: &str) {
        let Ok(Control::Guc(r)) = Control::parse(text) else {
            panic!("{text} is no guc: request");
        };
        self.rf.guc_inject(r, &mut self.rec, &mut self.bus);
    }

    fn log_results(&mut self) -> Vec<String> {
        self.ct_results("guc_log_inject")
    }

    pub(super) fn log_summary(&self) -> crate::summary::GucLogSummary {
        self.rec.summary(false).guc_log
    }

    /// A READY GuC booted with `GUC_CTL_DEBUG` = `debug`.
    fn log_ready(debug: u32) -> H {
        let mut h = H::ct_ready();
        h.guc_reset();
        h.wopcm();
        h.params();
        h.w(scratch(1 + log::CTL_DEBUG as usize), debug);
        h.prepare();
        h.rsa();
        h.upload();
        h.ms(20);
        assert_eq!(h.status(), READY, "{:?}", h.kinds());
        h
    }

    /// [`H::log_ready`] with the CT enabled on the default layout.
    pub(super) fn log_ct(debug: u32) -> H {
        let mut h = H::log_ready(debug);
        assert_eq!(h.register(&LAYOUT), [mmio::success(1); 6]);
        assert_eq!(h.mmio(&ENABLE), mmio::success(0));
        h
    }

    /// The G2H EVENT actions written so far.
    fn g2h_event_actions(&self) -> Vec<u32> {
        let tail = self.desc(G2H_DESC_LMEM)[1];
        let mut out = Vec::new();
        let mut at = 0;
        while at < tail {
            let hdr = self.g2h(at, 1)[0];
            let n = hdr & 0xff;
            let h0 = self.g2h(at + 1, 1)[0];
            if h0 >> 28 == 9 {
                out.push(h0 & 0xFFFF);
            }
            at += 1 + n;
        }
        out
    }
}

#[test]
fn boot_writes_the_header_page_and_records_the_config() {
    // Some stale bytes from an earlier load: the boot starts afresh.
    let mut h = H::ct_ready();
    h.put_sys32(STATE_DEBUG + state::WRITE_PTR, 0x40);
    h.put_sys32(STATE_DEBUG + state::FLAGS, 1);
    h.guc_reset();
    h.load_ready();
    for (i, (markers, size)) in log::MARKERS
        .iter()
        .zip([DEBUG_SIZE, 0x4000, 0x10_0000])
        .enumerate()
    {
        let at = LOG_PHYS + log::STATE_BYTES * i as u64;
        assert_eq!(h.log_state(at, 0), markers[0], "section {i}");
        assert_eq!(h.log_state(at, 4), markers[1], "section {i}");
        assert_eq!(h.log_state(at, state::SIZE), size, "section {i}");
        assert_eq!(h.log_state(at, state::VERSION), log::FORMAT_VERSION);
        for off in [
            state::READ_PTR,
            state::WRITE_PTR,
            state::SAMPLED_WRITE_PTR,
            state::WRAP_OFFSET,
            state::FLAGS,
        ] {
            assert_eq!(h.log_state(at, off), 0, "section {i} at {off}");
        }
    }
    // The fourth slot stays empty: the host's walk ends there.
    assert_eq!(h.sys32(LOG_PHYS + 3 * log::STATE_BYTES), 0);
    let s = h.log_summary();
    assert_eq!(s.boots, 2, "both loads");
    assert_eq!(s.buf, crate::trace::Hex(LOG_GGTT));
    assert_eq!((s.level, s.verbosity), (1, 0), "GUC_LOG_DISABLED: level 1");
    assert!(s.notify_on_half_full);
    assert_eq!(
        (s.debug_size, s.crash_size, s.capture_size),
        (0x1_0000, 0x4000, 0x10_0000)
    );
    assert_eq!(s.entries, 0, "nothing logged by a boot");
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    // Verbosity 3: level 5.
    let h = H::log_ready(3);
    assert_eq!((h.log_summary().level, h.log_summary().verbosity), (5, 3));
}

/// Level 0 (the all-off bit) writes nothing, not even a burst; level 1
/// does not log H2G requests; level 2 logs each one (action, fence).
#[test]
fn levels_decide_what_is_logged() {
    let mut h = H::log_ct(log::DEFAULT_DISABLED | QUIET);
    assert_eq!(h.log_summary().level, 0);
    h.guc_control("guc:log-burst:10");
    h.send(&[(7, &[0x1234])]);
    assert_eq!(h.log_results(), ["log_off"]);
    assert_eq!(h.log_summary().entries, 0);
    assert_eq!(h.entry(0), [0; 4]);

    let mut h = H::log_ct(QUIET);
    h.send(&[(7, &[0x1234])]);
    assert_eq!(h.log_summary().entries, 0, "H2G is verbose");
    h.guc_control("guc:log-burst:2");
    assert_eq!(h.log_summary().entries, 2);
    // seq 0 and 1, code BURST, index, N.
    assert_eq!(h.entry(0)[1..], [log::code::BURST, 0, 2]);
    assert_eq!(h.entry(1)[1..], [1 << 16 | log::code::BURST, 1, 2]);
    assert_eq!(h.log_state(STATE_DEBUG, state::WRITE_PTR), 32);

    let mut h = H::log_ct(0);
    // The registration and the enable were MMIO, not CT: nothing yet.
    assert_eq!(h.log_summary().entries, 0);
    h.ms(3);
    let t = h.clock.now().as_micros() as u32;
    h.send(&[(7, &[0x1234, 5]), (8, &[FAST])]);
    assert_eq!(h.log_summary().entries, 2);
    let e = h.entry(0);
    assert_eq!(e[0], t, "device time in us");
    assert_eq!(e[1..], [log::code::H2G, 0x1234, 7]);
    assert_eq!(h.entry(1)[1..], [1 << 16 | log::code::H2G, 0x1234, 8]);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

/// Half full: flush_to_file, sampled_write_ptr and one G2H
/// NOTIFY_FLUSH_LOG_BUFFER_TO_FILE; a host that never acknowledges gets no
/// second one, the section wraps and the GuC counts an overflow per lap.
#[test]
fn half_full_notifies_once_then_wraps_and_overflows() {
    let mut h = H::log_ct(QUIET);
    let half = DEBUG_SIZE / 16 / 2;
    h.guc_control(&format!("guc:log-burst:{}", half - 1));
    assert_eq!(h.log_state(STATE_DEBUG, state::FLAGS), 0);
    assert!(h.g2h_event_actions().is_empty());
    h.guc_control("guc:log-burst:1");
    assert_eq!(h.log_state(STATE_DEBUG, state::FLAGS), log::FLUSH_TO_FILE);
    assert_eq!(
        h.log_state(STATE_DEBUG, state::SAMPLED_WRITE_PTR),
        DEBUG_SIZE / 2
    );
    assert_eq!(h.g2h_event_actions(), [0x8003]);
    // The rest of the section and one more entry: a wrap, an overflow,
    // still one notification.
    h.guc_control(&format!("guc:log-burst:{}", half + 1));
    h.ms(5);
    h.service();
    assert_eq!(h.g2h_event_actions(), [0x8003]);
    assert_eq!(h.log_state(STATE_DEBUG, state::WRITE_PTR), 16);
    assert_eq!(h.log_state(STATE_DEBUG, state::WRAP_OFFSET), DEBUG_SIZE);
    // flush_to_file and buffer_full_cnt 1.
    assert_eq!(h.log_state(STATE_DEBUG, state::FLAGS), 1 | 1 << 1);
    // The newest entry went over the oldest: seq 4096, index `half`.
    assert_eq!(
        h.entry(0)[1..],
        [(2 * half) << 16 | log::code::BURST, half, half + 1]
    );
    let s = h.log_summary();
    assert_eq!(
        (s.entries, s.wraps, s.flush_notifies, s.overflows, s.acks),
        (u64::from(2 * half + 1), 1, 1, 1, 0)
    );
    assert_eq!(s.buffer_full_cnt, 1);
    // A whole lap more: one more overflow.
    h.guc_control(&format!("guc:log-burst:{}", 2 * half));
    assert_eq!(h.log_summary().overflows, 2);
    assert_eq!(h.log_summary().flush_notifies, 1);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

/// The acknowledgement i915 gives (read_ptr = sampled_write_ptr, then
/// flush_to_file cleared) is seen within a millisecond and re-arms the
/// notification; a wrong read_ptr is a violation.
#[test]
fn acknowledgement_rearms_the_notification() {
    let mut h = H::log_ct(QUIET);
    let half = DEBUG_SIZE / 16 / 2;
    h.guc_control(&format!("guc:log-burst:{half}"));
    assert_eq!(h.log_summary().flush_notifies, 1);
    let sampled = h.log_state(STATE_DEBUG, state::SAMPLED_WRITE_PTR);
    // read_ptr alone is no acknowledgement.
    h.put_sys32(STATE_DEBUG + state::READ_PTR, sampled);
    h.ms(2);
    h.service();
    assert_eq!(h.log_summary().acks, 0);
    h.put_sys32(STATE_DEBUG + state::FLAGS, 0);
    h.ms(2);
    h.service();
    assert_eq!(h.log_summary().acks, 1);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
    // The GuC did not set the flag again: half a section is not unread.
    assert_eq!(h.log_state(STATE_DEBUG, state::FLAGS), 0);
    // Another half: another notification.
    h.guc_control(&format!("guc:log-burst:{half}"));
    assert_eq!(h.log_summary().flush_notifies, 2);
    assert_eq!(h.g2h_event_actions(), [0x8003, 0x8003]);
    assert_eq!(
        h.log_state(STATE_DEBUG, state::SAMPLED_WRITE_PTR),
        0,
        "wrapped"
    );
    // An acknowledgement that left read_ptr behind.
    h.put_sys32(STATE_DEBUG + state::FLAGS, 0);
    h.ms(2);
    h.service();
    assert_eq!(h.kind("guc_log_ack_bad"), 1);
    assert_eq!(h.log_summary().acks, 2);
    // read_ptr was still half a section behind: notified again at once.
    assert_eq!(h.log_summary().flush_notifies, 3);
    assert_eq!(h.log_state(STATE_DEBUG, state::FLAGS), log::FLUSH_TO_FILE);
}

/// Without a CT the notification cannot go out: counted as lost, the flag
/// still set.
#[test]
fn notification_without_ct_is_lost() {
    let mut h = H::log_ready(QUIET);
    h.guc_control(&format!("guc:log-burst:{}", DEBUG_SIZE / 32));
    let s = h.log_summary();
    assert_eq!((s.flush_notifies, s.flush_notifies_lost), (1, 1));
    assert_eq!(h.log_state(STATE_DEBUG, state::FLAGS), log::FLUSH_TO_FILE);
}

/// guc:crash:1: the entry, the record in the crash section, the G2H
/// NOTIFY_CRASH_DUMP_POSTED, then the GuC answers nothing until a reset.
#[test]
fn crash_dump_record_event_and_stop() {
    let mut h = H::log_ct(QUIET);
    h.guc_control("guc:log-burst:10");
    h.guc_control("guc:crash:1");
    assert_eq!(h.log_results(), ["done", "done"]);
    assert_eq!(h.g2h_event_actions(), [0x8004]);
    let n = log::CRASH_ENTRIES as u32;
    assert_eq!(h.sys32(CRASH_DATA), log::CRASH_MAGIC);
    assert_eq!(h.sys32(CRASH_DATA + 4), 1, "kind: crash dump");
    assert_eq!(h.sys32(CRASH_DATA + 8), READY, "GUC_STATUS");
    assert_eq!(h.sys32(CRASH_DATA + 12), 0, "no EIP");
    assert_eq!(h.sys32(CRASH_DATA + 16), n);
    // The last entry carried is the crash's own, seq 10.
    let last = CRASH_DATA + 24 + 16 * u64::from(n - 1);
    assert_eq!(h.sys32(last + 4), 10 << 16 | log::code::CRASH);
    assert_eq!(h.sys32(last + 8), READY);
    // The one before it: burst entry 9.
    assert_eq!(h.sys32(last - 16 + 8), 9);
    let len = 24 + 16 * n;
    assert_eq!(h.log_state(STATE_CRASH, state::WRITE_PTR), len);
    assert_eq!(h.log_state(STATE_CRASH, state::SAMPLED_WRITE_PTR), len);
    assert_eq!(h.rec.summary(false).guc.crash_dumps_posted, 1);
    assert_eq!(h.r(scratch(15)), 0, "posted over CT");
    // Stopped: a request stays unread, no more log or crash.
    let head = h.desc(H2G_LMEM)[0];
    h.send(&[(9, &[0x1234])]);
    assert_eq!(h.desc(H2G_LMEM)[0], head);
    h.guc_control("guc:log-burst:1");
    h.guc_control("guc:exception:1");
    assert_eq!(h.log_results()[2..], ["guc_hung", "guc_hung"]);
    assert_eq!(h.rec.summary(false).guc.exceptions_posted, 0);
    // A GuC reset brings it back; before the next boot nothing runs.
    h.guc_reset();
    h.guc_control("guc:crash:1");
    assert_eq!(h.log_results()[4..], ["not_running"]);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

/// guc:exception:1 before the CT is up: SOFT_SCRATCH(15) bit 30 and an
/// interrupt, GUC_STATUS EXCEPTION, the EIP in SOFT_SCRATCH(13).
#[test]
fn exception_without_ct_posts_in_soft_scratch_15() {
    let mut h = H::log_ready(QUIET);
    let irqs = h.guc_irqs();
    h.guc_control("guc:exception:1");
    assert_eq!(h.log_results(), ["done"]);
    assert_eq!(h.r(scratch(15)), log::RECV_MSG_EXCEPTION);
    assert_eq!(ukernel(h.status()), abi::ukernel::EXCEPTION);
    assert_eq!(h.r(scratch(13)), log::RUNTIME_EIP);
    assert_eq!(h.guc_irqs(), irqs + 1);
    assert_eq!(h.sys32(CRASH_DATA), log::CRASH_MAGIC);
    assert_eq!(h.sys32(CRASH_DATA + 4), 2, "kind: exception");
    assert_eq!(h.sys32(CRASH_DATA + 12), log::RUNTIME_EIP);
    assert_eq!(h.sys32(CRASH_DATA + 16), 1, "its own entry");
    assert_eq!(
        h.entry(0)[1..],
        [log::code::EXCEPTION, READY, log::RUNTIME_EIP]
    );
    let s = h.rec.summary(false).guc;
    assert_eq!((s.exceptions_posted, s.crash_dumps_posted), (1, 0));
    // Upstream clears the register when it reads it.
    h.w(scratch(15), 0);
    assert_eq!(h.r(scratch(15)), 0);

    // A crash dump at level 0: the record, no entries.
    let mut h = H::log_ready(log::DEFAULT_DISABLED);
    h.guc_control("guc:crash:1");
    assert_eq!(h.r(scratch(15)), log::RECV_MSG_CRASH_DUMP_POSTED);
    assert_eq!(ukernel(h.status()), 0xF0, "a crash dump leaves GUC_STATUS");
    assert_eq!(h.sys32(CRASH_DATA + 16), 0);
    assert_eq!(h.log_summary().entries, 0);
    assert!(h.kinds().is_empty(), "{:?}", h.kinds());
}

/// The log's requests need a READY uKernel.
#[test]
fn requests_before_the_boot_do_nothing() {
    let mut h = H::new();
    h.guc_control("guc:log-burst:3");
    h.guc_control("guc:crash:1");
    assert_eq!(h.log_results(), ["not_running", "not_running"]);
    assert_eq!(h.log_summary().boots, 0);
}
