//! Forcewake: the driver's request and acknowledge registers of the GT,
//! RENDER, VDBOX0-7 and VEBOX0-3 power domains (seed 000 lines 758-777).
//!
//! The seed gives the register offsets but no bit layout; the protocol is
//! upstream's (`regs/xe_gt_regs.h`, `xe_force_wake.c` `__domain_ctl` /
//! `__domain_wait`):
//!
//! - a request register is masked: bits 31:16 enable the writes of bits
//!   15:0, so a write with bits 31:16 = 0 changes nothing (recorded as
//!   `masked_write_no_mask`). Bit 0 is the driver's request
//!   (`FORCEWAKE_KERNEL`): wake = `BIT(16) | BIT(0)`, release = `BIT(16)`.
//!   A read returns the request bits 15:0;
//! - acknowledge bit 0 follows "any request bit set" `--fw-ack-delay-us`
//!   after each change (`[MODEL]`: the seed and upstream give no latency;
//!   upstream allows 50 ms). The mock replays every change with that delay,
//!   so toggling faster than the delay is acknowledged as it happened;
//! - a domain is awake while its acknowledge bit reads 1 ([`Forcewake::awake`]);
//!   the power rule itself is applied by the register file;
//! - requesting while the acknowledge of a release is still 1 is legal: the
//!   domain simply stays (or comes back) up;
//! - a domain whose engine is fused off (`GT_VEBOX_VDBOX_DISABLE`) never
//!   acknowledges, and any write to its request register is recorded as
//!   `fw_absent_domain`. So does a domain under `--fault fw-ack-never[=D]`
//!   (without the violation);
//! - under `--fault fw-ack-dead=D` domain D's acknowledge register reads
//!   0xFFFFFFFF, what a read completes with when nothing answers it
//!   (upstream `xe_force_wake.c` `__domain_wait` reports "MMIO unreliable"
//!   for an ack of `~0`, the driver "device not responding"). `[MODEL]`: only
//!   that register is dead; the domain never wakes either (it acknowledges
//!   nothing, as under `fw-ack-never`), and requests to it are taken
//!   without a violation.
//!
//! Acknowledge changes are applied lazily at the next register access and
//! traced as `fw_ack` events carrying the time they happened.

use std::collections::VecDeque;
use std::time::Duration;

use super::Fuses;
use crate::power::Domain;
use crate::recorder::Recorder;
use crate::regs::forcewake;
use crate::trace::Event;
use crate::trace::Hex;

/// One domain's state.
#[derive(Debug, Clone, Default)]
struct State {
    /// Request bits 15:0.
    req: u16,
    /// What the acknowledge is heading for: any request bit set.
    want: bool,
    /// Acknowledge bit 0 as of the last applied change.
    ack: bool,
    /// Acknowledge changes still to come, in time order.
    pending: VecDeque<(Duration, bool)>,
}

/// The forcewake unit.
#[derive(Debug)]
pub struct Forcewake {
    delay: Duration,
    /// Bit per domain index: its engine exists.
    present: u16,
    /// Bit per domain index: the acknowledge never comes (fault).
    never_ack: u16,
    /// Bit per domain index: the acknowledge register reads all ones (fault).
    dead_ack: u16,
    domains: [State; Domain::COUNT],
}

impl Forcewake {
    /// Reset state: nothing requested, every domain asleep. `never_ack` and
    /// `dead_ack` are the faults `fw-ack-never` and `fw-ack-dead`, a bit per
    /// [`Domain::index`].
    pub fn new(delay: Duration, fuses: &Fuses, never_ack: u16, dead_ack: u16) -> Self {
        let present = Domain::all()
            .filter(|d| fuses.domain_present(*d))
            .fold(0u16, |m, d| m | 1 << d.index());
        Self {
            delay,
            present,
            never_ack,
            dead_ack,
            domains: Default::default(),
        }
    }

    /// Function reset: requests cleared, every domain asleep at once.
    pub fn reset(&mut self) {
        self.domains = Default::default();
    }

    fn state(&self, d: Domain) -> &State {
        &self.domains[d.index()]
    }

    fn is_present(&self, d: Domain) -> bool {
        self.present >> d.index() & 1 != 0
    }

    fn acks(&self, d: Domain) -> bool {
        self.is_present(d) && (self.never_ack | self.dead_ack) >> d.index() & 1 == 0
    }

    /// Applies the acknowledge changes due by `now`, in time order, and
    /// traces each one.
    pub fn advance(&mut self, now: Duration, rec: &mut Recorder) {
        let mut due: Vec<(Duration, Domain, bool)> = Vec::new();
        for d in Domain::all() {
            let st = &mut self.domains[d.index()];
            while let Some(&(t, level)) = st.pending.front() {
                if t > now {
                    break;
                }
                st.pending.pop_front();
                due.push((t, d, level));
            }
        }
        due.sort();
        for (t, d, level) in due {
            let st = &mut self.domains[d.index()];
            if st.ack == level {
                continue;
            }
            st.ack = level;
            rec.emit(Event::FwAck {
                domain: d.name(),
                awake: level,
                at_us: u64::try_from(t.as_micros()).unwrap_or(u64::MAX),
            });
        }
    }

    /// Whether `d` is awake: its acknowledge bit reads 1.
    pub fn awake(&self, d: Domain) -> bool {
        self.state(d).ack
    }

    /// The request register: bits 15:0.
    pub fn read_request(&self, d: Domain) -> u32 {
        u32::from(self.state(d).req)
    }

    /// The acknowledge register: bit 0; all ones under `fw-ack-dead`.
    pub fn read_ack(&self, d: Domain) -> u32 {
        if self.dead_ack >> d.index() & 1 != 0 {
            u32::MAX
        } else if self.awake(d) {
            forcewake::KERNEL.mask32()
        } else {
            0
        }
    }

    /// A request register write at `now`.
    pub fn write_request(&mut self, d: Domain, value: u32, now: Duration, rec: &mut Recorder) {
        rec.emit(Event::FwRequest {
            domain: d.name(),
            value: Hex(value.into()),
        });
        if !self.is_present(d) {
            rec.violation(
                "fw_absent_domain",
                format!(
                    "{} written with {value:#x}: the {} engine is fused off \
                     (GT_VEBOX_VDBOX_DISABLE); it never acknowledges",
                    d.request().name,
                    d.name()
                ),
            );
        }
        // CAST: the mask is bits 31:16.
        let mask = forcewake::MASK.get(value.into()) as u16;
        if mask == 0 {
            rec.violation(
                "masked_write_no_mask",
                format!(
                    "{} written with {value:#x}: bits 31:16 are all 0, so no bit changes",
                    d.request().name
                ),
            );
            return;
        }
        let acks = self.acks(d);
        let delay = self.delay;
        let st = &mut self.domains[d.index()];
        // CAST: the low half of the value.
        st.req = (st.req & !mask) | (value as u16 & mask);
        let want = st.req != 0;
        if want != st.want {
            st.want = want;
            if acks {
                st.pending.push_back((now.saturating_add(delay), want));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Clock;
    use crate::clock::ManualClock;
    use crate::regfile::tests::params;
    use crate::regfile::tests::setup;
    use crate::regfile::RegisterFile;

    const WAKE: u32 = 1 << 16 | 1;
    const RELEASE: u32 = 1 << 16;

    fn req(d: Domain) -> u32 {
        d.request().offset
    }

    fn ack(d: Domain) -> u32 {
        d.ack().offset
    }

    fn ack_of(rf: &mut RegisterFile, rec: &mut Recorder, d: Domain) -> u32 {
        rf.read(ack(d), rec).unwrap_or(u32::MAX)
    }

    fn delayed(us: u64) -> (RegisterFile, Recorder, ManualClock) {
        let mut p = params();
        p.fw_ack_delay = Duration::from_micros(us);
        setup(p)
    }

    #[test]
    fn wake_and_release_follow_the_delay() {
        let (mut rf, mut rec, clock) = delayed(20);
        let gt = Domain::GT;
        assert_eq!(ack_of(&mut rf, &mut rec, gt), 0);
        rf.write(req(gt), WAKE, &mut rec);
        clock.advance(Duration::from_micros(19));
        assert_eq!(ack_of(&mut rf, &mut rec, gt), 0, "not yet");
        clock.advance(Duration::from_micros(1));
        assert_eq!(ack_of(&mut rf, &mut rec, gt), 1, "acknowledged after 20 us");
        // The request register reads its value bits (GT is awake now).
        assert_eq!(rf.read(req(gt), &mut rec), Some(1));
        rf.write(req(gt), RELEASE, &mut rec);
        assert_eq!(
            ack_of(&mut rf, &mut rec, gt),
            1,
            "release not acknowledged yet"
        );
        clock.advance(Duration::from_micros(20));
        assert_eq!(ack_of(&mut rf, &mut rec, gt), 0);
        let s = rec.summary(false);
        assert_eq!(s.fw_wakes.get("gt"), Some(&1));
        assert_eq!(s.fw_requests.get("gt"), Some(&2));
        assert_eq!(s.violations, 0);
    }

    #[test]
    fn ack_events_carry_the_transition_time() {
        let path = std::env::temp_dir().join(format!("xehpg-mock-fw-{}.jsonl", std::process::id()));
        let clock = ManualClock::new();
        let trace = crate::trace::TraceWriter::create(&path).expect("trace");
        let mut rec = Recorder::new(std::sync::Arc::new(clock.clone()), trace, None);
        let mut p = params();
        p.fw_ack_delay = Duration::from_micros(20);
        let mut rf = RegisterFile::new(&p, clock.now()).expect("register file");
        clock.advance(Duration::from_micros(100));
        rf.write(req(Domain::RENDER), WAKE, &mut rec);
        clock.advance(Duration::from_micros(500));
        ack_of(&mut rf, &mut rec, Domain::RENDER);
        rec.flush();
        let text = std::fs::read_to_string(&path).expect("trace");
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON"))
            .collect();
        assert_eq!(
            lines[0],
            serde_json::json!({"seq":0,"t_us":100,"ev":"fw_request","domain":"render","value":"0x10001"})
        );
        assert_eq!(
            lines[1],
            serde_json::json!({"seq":1,"t_us":600,"ev":"fw_ack","domain":"render","awake":true,"at_us":120})
        );
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn masked_write_without_mask_changes_nothing() {
        let (mut rf, mut rec, clock) = delayed(0);
        rf.write(req(Domain::GT), 1, &mut rec);
        clock.advance_ms(1);
        assert_eq!(ack_of(&mut rf, &mut rec, Domain::GT), 0);
        let s = rec.summary(false);
        assert_eq!(s.violation_kinds.get("masked_write_no_mask"), Some(&1));
        assert_eq!(s.fw_requests.get("gt"), Some(&1));
        // Bits whose mask is clear keep their value.
        rf.write(req(Domain::GT), 0x0003_0003, &mut rec);
        rf.write(req(Domain::GT), 0x0002_0000, &mut rec);
        clock.advance_ms(1);
        assert_eq!(rf.read(req(Domain::GT), &mut rec), Some(1));
        assert_eq!(
            ack_of(&mut rf, &mut rec, Domain::GT),
            1,
            "bit 0 still requested"
        );
        // Any request bit keeps the domain up.
        rf.write(req(Domain::GT), 0x8001_8000, &mut rec);
        clock.advance_ms(1);
        assert_eq!(rf.read(req(Domain::GT), &mut rec), Some(0x8000));
        assert_eq!(ack_of(&mut rf, &mut rec, Domain::GT), 1);
    }

    #[test]
    fn rerequest_before_the_release_is_acknowledged_is_legal() {
        let (mut rf, mut rec, clock) = delayed(20);
        let r = Domain::RENDER;
        rf.write(req(r), WAKE, &mut rec);
        clock.advance(Duration::from_micros(20));
        assert_eq!(ack_of(&mut rf, &mut rec, r), 1);
        // Release at t=20, wake again at t=25: the ack replays both edges.
        rf.write(req(r), RELEASE, &mut rec);
        clock.advance(Duration::from_micros(5));
        rf.write(req(r), WAKE, &mut rec);
        clock.advance(Duration::from_micros(16));
        assert_eq!(
            ack_of(&mut rf, &mut rec, r),
            0,
            "t=41: the release landed at 40"
        );
        clock.advance(Duration::from_micros(4));
        assert_eq!(ack_of(&mut rf, &mut rec, r), 1, "t=45: the wake landed");
        let s = rec.summary(false);
        assert_eq!(s.fw_wakes.get("render"), Some(&2));
        assert_eq!(s.violations, 0);
    }

    #[test]
    fn fused_off_domain_never_acknowledges() {
        let (mut rf, mut rec, clock) = delayed(20);
        // ATS-M150 default: VDBOX 1 is fused off, VDBOX 2 is present.
        let vd1 = Domain::vdbox(1).expect("vdbox1");
        let vd2 = Domain::vdbox(2).expect("vdbox2");
        rf.write(req(vd1), WAKE, &mut rec);
        rf.write(req(vd2), WAKE, &mut rec);
        clock.advance_ms(100);
        assert_eq!(ack_of(&mut rf, &mut rec, vd1), 0);
        assert_eq!(ack_of(&mut rf, &mut rec, vd2), 1);
        let s = rec.summary(false);
        assert_eq!(s.violation_kinds.get("fw_absent_domain"), Some(&1));
        assert_eq!(s.fw_wakes.get("vdbox2"), Some(&1));
        assert_eq!(s.fw_wakes.get("vdbox1"), None);
    }

    #[test]
    fn ack_never_faults() {
        let mut p = params();
        p.fw_ack_never = 1 << Domain::RENDER.index();
        let (mut rf, mut rec, clock) = setup(p);
        rf.write(req(Domain::RENDER), WAKE, &mut rec);
        rf.write(req(Domain::GT), WAKE, &mut rec);
        clock.advance_ms(1000);
        assert_eq!(ack_of(&mut rf, &mut rec, Domain::RENDER), 0);
        assert_eq!(ack_of(&mut rf, &mut rec, Domain::GT), 1);
        assert_eq!(
            rec.summary(false).violations,
            0,
            "a fault is not the driver's fault"
        );
        let mut p = params();
        p.fw_ack_never = u16::MAX;
        let (mut rf, mut rec, clock) = setup(p);
        for d in Domain::all() {
            rf.write(req(d), WAKE, &mut rec);
        }
        clock.advance_ms(1000);
        for d in Domain::all() {
            assert_eq!(ack_of(&mut rf, &mut rec, d), 0, "{}", d.name());
        }
    }

    #[test]
    fn ack_dead_fault_reads_all_ones_for_that_domain_only() {
        let mut p = params();
        p.fw_ack_dead = 1 << Domain::RENDER.index();
        let (mut rf, mut rec, clock) = setup(p);
        // All ones from reset on, before any request.
        assert_eq!(ack_of(&mut rf, &mut rec, Domain::RENDER), u32::MAX);
        assert_eq!(ack_of(&mut rf, &mut rec, Domain::GT), 0);
        rf.write(req(Domain::RENDER), WAKE, &mut rec);
        rf.write(req(Domain::GT), WAKE, &mut rec);
        clock.advance_ms(1000);
        assert_eq!(ack_of(&mut rf, &mut rec, Domain::RENDER), u32::MAX);
        assert_eq!(ack_of(&mut rf, &mut rec, Domain::GT), 1);
        // The domain itself never wakes: its registers stay unreachable.
        assert!(!rf.awake(Domain::RENDER));
        let lsc = crate::regs::mcr::LSC_CHICKEN_BIT_0.offset;
        assert_eq!(rf.read(lsc, &mut rec), Some(0));
        let s = rec.summary(false);
        assert_eq!(s.violation_kinds.get("sleeping_domain"), Some(&1));
        assert_eq!(s.violations, 1, "the request itself is no violation");
        assert_eq!(s.fw_wakes.get("render"), None);
        // Releasing changes nothing; a reset does not revive the register.
        rf.write(req(Domain::RENDER), RELEASE, &mut rec);
        rf.reset(clock.now(), &mut rec);
        clock.advance_ms(1);
        assert_eq!(ack_of(&mut rf, &mut rec, Domain::RENDER), u32::MAX);
        assert_eq!(ack_of(&mut rf, &mut rec, Domain::GT), 0);
    }

    #[test]
    fn reset_puts_every_domain_to_sleep() {
        let (mut rf, mut rec, clock) = delayed(0);
        rf.write(req(Domain::GT), WAKE, &mut rec);
        clock.advance_ms(1);
        assert_eq!(ack_of(&mut rf, &mut rec, Domain::GT), 1);
        rf.reset(clock.now(), &mut rec);
        assert_eq!(ack_of(&mut rf, &mut rec, Domain::GT), 0);
        clock.advance_ms(1);
        assert_eq!(ack_of(&mut rf, &mut rec, Domain::GT), 0);
    }
}
