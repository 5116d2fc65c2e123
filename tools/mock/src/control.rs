//! Test control: requests a test sends the running mock, and the pacing of
//! injected interrupt events.
//!
//! A request is one line of text. `xehpg-vm` forwards the guest's
//! `XEHPG-VM-MOCK=<request>` markers verbatim over the mock's control
//! channel (`--control FIFO`, read by a thread in [`crate::server`]); by
//! hand, `echo irq:guc:8000:1 > FIFO`. The grammar:
//!
//! - `surprise-removal`: the card vanishes ([`crate::device::Device::surprise_remove`]);
//! - `irq:SOURCE:DATA:COUNT`: COUNT (decimal, 1..=[`MAX_COUNT`]) events
//!   with the 16 bits DATA (hex, `0x` optional, not 0) at SOURCE
//!   ([`Source::from_name`]: `rcs0 bcs0 ccs0..ccs3 vcs0..vcs7 vecs0..vecs3
//!   guc kcr gsc`), paced by [`Injector`];
//! - `gt-error:SEV:BITS`: GT error bits (hex, not 0) of severity SEV
//!   (`correctable`, `nonfatal`, `fatal`);
//! - `spurious-msi`: one MSI with nothing pending;
//! - `engine:hang:NAME`, `engine:csb-lost:NAME`, `engine:reset-fails:NAME`:
//!   fault switches of the command streamer of engine NAME (`rcs0 bcs0
//!   ccs0..ccs3 vcs0..vcs7 vecs0..vecs3`, [`crate::regfile::engine`]): the
//!   next context started on it stops at its first command for ever / its
//!   next CSB entry is not written (the interrupt still fires) / the next
//!   context hangs and the GuC's reset of the engine fails (the GuC sends
//!   `ENGINE_FAILURE_NOTIFICATION`, [`crate::regfile::guc::ct::submit`]);
//! - `guc:drop-sched:N`, `guc:reset-storm:N`, `guc:refuse-register:N`,
//!   `guc:refuse-doorbell:N` (N decimal, 1..=[`MAX_COUNT`]), `guc:hang:1`:
//!   the GuC's submission model ([`GucRequest`], carried out by
//!   [`crate::regfile::guc::ct::submit`]): the next N `SCHED_CONTEXT`
//!   dropped, N context resets of the registered contexts without a hang,
//!   the next N `REGISTER_CONTEXT` refused, the next N `ALLOCATE_DOORBELL`
//!   refused; the GuC's uKernel stuck until a GuC reset
//!   ([`crate::regfile::guc::Guc::hang`]);
//! - `guc:log-burst:N` (N decimal, 1..=[`MAX_LOG_BURST`]), `guc:crash:1`,
//!   `guc:exception:1`: the GuC's log ([`crate::regfile::guc::log`]), each
//!   only while the uKernel is READY and not stuck: N non-verbose entries
//!   written into the debug section at once (nothing at log level 0), as
//!   a busy firmware would, so a test reaches half full and the flush
//!   notification deterministically; a crash: one non-verbose entry, the
//!   crash record in the crash section (magic, kind, `GUC_STATUS`, EIP,
//!   the last log entries), the notification (G2H
//!   `NOTIFY_CRASH_DUMP_POSTED` with the CT enabled, else
//!   `SOFT_SCRATCH(15)` bit 1 and a GuC-to-host interrupt), then the
//!   uKernel stops answering as under `guc:hang:1`; an exception: the same
//!   with `NOTIFY_EXCEPTION` / bit 30, and `GUC_STATUS` reads uKernel
//!   `EXCEPTION` with the EIP in `SOFT_SCRATCH(13)`. A GuC reset, a device
//!   reset or a Driver-FLR brings the GuC back after either;
//! - `vf:flr:N`, `vf:check`, `guc:refuse-vf-cfg:N`, `guc:flr-stuck:N`,
//!   `guc:bogus-vf-notify:N`: the GuC's SR-IOV PF model ([`SriovRequest`],
//!   carried out by [`crate::regfile::guc::ct::sriov`]): VF N was FLR'ed
//!   (the GuC notifies the PF), the isolation checker runs now, the next N
//!   `UPDATE_VF_CFG` fail, the next N `FLR_START` never complete, N
//!   notifications for a VF that cannot exist;
//! - `vf:adverse:N:KEY`: VF N went past adverse-event threshold KEY (hex);
//!   the GuC reports it to the PF if the PF set that threshold (carried out
//!   by [`crate::regfile::guc::ct::sriov`]);
//! - `vf:scratch:N`, `vf:keep-regs:N`: VF N's driver left a message in its
//!   VF-dedicated registers; the next N VF FLRs leave those registers
//!   (carried out by [`crate::regfile::vf_regs`]);
//! - `vf:relay:N:RID:W0,W1,...`, `vf:relay-raw:N:W0,...`,
//!   `vf:relay-burst:N:COUNT`, `guc:relay-data0:N`: the GuC's relay between
//!   the VFs' drivers and the PF, the mock standing for VF N's driver: a
//!   relay message W (hex dwords) with relay ID RID (decimal, or `0x` hex)
//!   the VF then waits an answer to; a `GUC2PF_RELAY_FROM_VF` of exactly
//!   the dwords W after its header; COUNT (1..=64) `VF2PF_HANDSHAKE`
//!   requests at once; the next N such events with DATA0 set (carried out
//!   by [`crate::regfile::guc::ct::sriov::relay`], grammar in
//!   [`SriovRequest`]'s module);
//! - `ct:...` and `g2h:...`: the GuC's CT engine ([`CtRequest`], carried
//!   out by [`crate::regfile::guc::ct`]): switches for the next requests
//!   read from the H2G ring, and messages or damage written into G2H.
//! - `lmem:dirty:OFFSET:LEN` (hex, LEN 1..=[`MAX_DIRTY`]): a test hook,
//!   not a device behaviour: local memory `OFFSET..OFFSET + LEN` gets the
//!   non-zero [`LMEM_DIRTY_PATTERN`] and the flat-CCS metadata covering it
//!   (one byte per 256 bytes, [`crate::ccs`]) the non-zero
//!   [`CCS_DIRTY_BYTE`], as a previous owner would leave them; the
//!   isolation checker's `lmem_not_cleared` and `ccs_not_cleared` then show
//!   whether the PF clears both before a VF gets that memory (carried out
//!   by [`crate::device::Device::control`]).
//!
//! The CT grammar (N and COUNT decimal, 1..=[`MAX_COUNT`]; MS decimal,
//! 0..=[`MAX_BUSY_MS`]; CODE, ACTION, DATA and BITS hex, `0x` optional):
//!
//! - `ct:no-response:N`: the next N requests (REQUEST or FAST_REQUEST) are
//!   consumed and never answered;
//! - `ct:busy:N:MS`: the next N REQUESTs are answered NO_RESPONSE_BUSY at
//!   once and served MS milliseconds later;
//! - `ct:retry:N`: the next N REQUESTs are answered NO_RESPONSE_RETRY, not
//!   served;
//! - `ct:failure:CODE:N`: the next N requests of any kind are answered
//!   RESPONSE_FAILURE with error CODE (16 bits), not served;
//! - `ct:stray-fence`: one RESPONSE_SUCCESS with a fence no request carries;
//! - `ct:disable`: the GuC drops the channel (DISABLED in both descriptors);
//! - `g2h:event:ACTION[:DATA...]`: one EVENT (ACTION 16 bits, up to
//!   [`MAX_EVENT_DATA`] DATA dwords);
//! - `g2h:flood:N`: N `NOTIFY_FLUSH_LOG_BUFFER_TO_FILE` events, as fast as
//!   the ring has room;
//! - `g2h:len-past-tail`, `g2h:tail-outside`, `g2h:head-outside`: a broken
//!   message, descriptor tail or head;
//! - `g2h:status:BITS`: BITS (not 0) ORed into the G2H descriptor status.
//!
//! Pacing: the first of COUNT events is raised at once, each next one the
//! moment the previous one's service ended (the driver wrote DataValid to
//! clear its identity, [`crate::regfile::intc::IntcEvent::Serviced`]), so
//! no two of them merge in the source's collapsing register and "N
//! injected" means N identities. An event the source's enable drops
//! (counted `dropped_disabled`) has no service to wait for: the next one
//! follows at once. A masked event waits in the collapsing register, and the
//! rest wait behind it until it is delivered and serviced.

use std::collections::BTreeMap;
use std::collections::VecDeque;
use std::fmt;

mod sriov;

pub use sriov::RelayWords;
pub use sriov::SriovRequest;

use crate::regfile::engine;
use crate::regfile::engine::EngineFault;
use crate::regfile::intc::Severity;
use crate::regfile::intc::Source;

/// Largest COUNT of one `irq:` request, and largest N of a `ct:` / `g2h:`
/// one.
pub const MAX_COUNT: u64 = 1_000_000;
/// Largest MS of `ct:busy:N:MS` (one minute).
pub const MAX_BUSY_MS: u64 = 60_000;
/// Most DATA dwords of one `g2h:event:` request.
pub const MAX_EVENT_DATA: usize = 16;
/// Largest N of `guc:log-burst:N` (1 MiB of entries).
pub const MAX_LOG_BURST: u64 = 65_536;

/// A test-control request to the GuC's CT engine (module docs, grammar).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CtRequest {
    /// `ct:no-response:N`.
    NoResponse {
        /// Requests to consume without an answer.
        count: u64,
    },
    /// `ct:busy:N:MS`.
    Busy {
        /// REQUESTs to answer BUSY first.
        count: u64,
        /// Milliseconds until each is served.
        ms: u64,
    },
    /// `ct:retry:N`.
    Retry {
        /// REQUESTs to answer RETRY.
        count: u64,
    },
    /// `ct:failure:CODE:N`.
    Failure {
        /// The FAILURE's error code.
        code: u16,
        /// Requests to fail.
        count: u64,
    },
    /// `ct:stray-fence`.
    StrayFence,
    /// `ct:disable`.
    Disable,
    /// `g2h:event:ACTION[:DATA...]`.
    Event {
        /// HXG ACTION.
        action: u16,
        /// DATA dwords; the first `len` count.
        data: [u32; MAX_EVENT_DATA],
        /// How many DATA dwords.
        len: u8,
    },
    /// `g2h:flood:N`.
    Flood {
        /// Events to write.
        count: u64,
    },
    /// `g2h:len-past-tail`.
    LenPastTail,
    /// `g2h:tail-outside`.
    TailOutside,
    /// `g2h:head-outside`.
    HeadOutside,
    /// `g2h:status:BITS`.
    Status {
        /// Bits ORed into the status (not 0).
        bits: u32,
    },
}

impl CtRequest {
    /// The DATA dwords of an `Event` (empty for the others).
    pub fn event_data(&self) -> &[u32] {
        match self {
            CtRequest::Event { data, len, .. } => &data[..usize::from(*len)],
            _ => &[],
        }
    }

    /// Parses the words after `ct:` / `g2h:` (`family` is which).
    fn parse(family: &str, args: &[&str]) -> Result<CtRequest, String> {
        let n = |text: &str| -> Result<u64, String> {
            let v = decimal(text)?;
            if (1..=MAX_COUNT).contains(&v) {
                Ok(v)
            } else {
                Err(format!("N {v} is not in 1..={MAX_COUNT}"))
            }
        };
        let r = match (family, args) {
            ("ct", ["no-response", count]) => CtRequest::NoResponse { count: n(count)? },
            ("ct", ["busy", count, ms]) => {
                let ms = decimal(ms)?;
                if ms > MAX_BUSY_MS {
                    return Err(format!("MS {ms} is not in 0..={MAX_BUSY_MS}"));
                }
                CtRequest::Busy {
                    count: n(count)?,
                    ms,
                }
            }
            ("ct", ["retry", count]) => CtRequest::Retry { count: n(count)? },
            ("ct", ["failure", code, count]) => CtRequest::Failure {
                code: u16::try_from(hex(code)?)
                    .map_err(|_| format!("CODE `{code}` is not 16 bits"))?,
                count: n(count)?,
            },
            ("ct", ["stray-fence"]) => CtRequest::StrayFence,
            ("ct", ["disable"]) => CtRequest::Disable,
            ("g2h", ["event", action, data @ ..]) => {
                let action = u16::try_from(hex(action)?)
                    .map_err(|_| format!("ACTION `{action}` is not 16 bits"))?;
                if data.len() > MAX_EVENT_DATA {
                    return Err(format!(
                        "{} DATA dwords, at most {MAX_EVENT_DATA}",
                        data.len()
                    ));
                }
                let mut words = [0; MAX_EVENT_DATA];
                for (w, text) in words.iter_mut().zip(data.iter()) {
                    // CAST: hex() takes at most 8 digits.
                    *w = hex(text)? as u32;
                }
                CtRequest::Event {
                    action,
                    data: words,
                    // CAST: at most MAX_EVENT_DATA.
                    len: data.len() as u8,
                }
            }
            ("g2h", ["flood", count]) => CtRequest::Flood { count: n(count)? },
            ("g2h", ["len-past-tail"]) => CtRequest::LenPastTail,
            ("g2h", ["tail-outside"]) => CtRequest::TailOutside,
            ("g2h", ["head-outside"]) => CtRequest::HeadOutside,
            ("g2h", ["status", bits]) => CtRequest::Status {
                // CAST: hex() takes at most 8 digits.
                bits: Some(hex(bits)? as u32)
                    .filter(|&b| b != 0)
                    .ok_or_else(|| format!("BITS `{bits}` is not 32 bits other than 0"))?,
            },
            _ => {
                return Err(format!(
                    "`{family}:{}` is not a CT request (ct:no-response:N, ct:busy:N:MS, \
                     ct:retry:N, ct:failure:CODE:N, ct:stray-fence, ct:disable, \
                     g2h:event:ACTION[:DATA...], g2h:flood:N, g2h:len-past-tail, \
                     g2h:tail-outside, g2h:head-outside, g2h:status:BITS)",
                    args.join(":")
                ))
            }
        };
        Ok(r)
    }
}

impl fmt::Display for CtRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CtRequest::NoResponse { count } => write!(f, "ct:no-response:{count}"),
            CtRequest::Busy { count, ms } => write!(f, "ct:busy:{count}:{ms}"),
            CtRequest::Retry { count } => write!(f, "ct:retry:{count}"),
            CtRequest::Failure { code, count } => write!(f, "ct:failure:{code:x}:{count}"),
            CtRequest::StrayFence => f.write_str("ct:stray-fence"),
            CtRequest::Disable => f.write_str("ct:disable"),
            CtRequest::Event { action, .. } => {
                write!(f, "g2h:event:{action:x}")?;
                for d in self.event_data() {
                    write!(f, ":{d:x}")?;
                }
                Ok(())
            }
            CtRequest::Flood { count } => write!(f, "g2h:flood:{count}"),
            CtRequest::LenPastTail => f.write_str("g2h:len-past-tail"),
            CtRequest::TailOutside => f.write_str("g2h:tail-outside"),
            CtRequest::HeadOutside => f.write_str("g2h:head-outside"),
            CtRequest::Status { bits } => write!(f, "g2h:status:{bits:x}"),
        }
    }
}

/// A test-control request to the GuC's submission model
/// ([`crate::regfile::guc::ct::submit`]); N decimal, 1..=[`MAX_COUNT`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GucRequest {
    /// `guc:drop-sched:N`: the next N `SCHED_CONTEXT` are dropped.
    DropSched {
        /// N.
        count: u64,
    },
    /// `guc:reset-storm:N`: N context resets, round robin, no hang.
    ResetStorm {
        /// N.
        count: u64,
    },
    /// `guc:refuse-register:N`: the next N `REGISTER_CONTEXT` fail.
    RefuseRegister {
        /// N.
        count: u64,
    },
    /// `guc:refuse-doorbell:N`: the next N `ALLOCATE_DOORBELL` fail.
    RefuseDoorbell {
        /// N.
        count: u64,
    },
    /// `guc:hang:1`: the GuC's uKernel gets stuck until a GuC reset
    /// ([`crate::regfile::guc::Guc::hang`]); N must be 1 (a hang does not
    /// add up).
    Hang,
    /// `guc:log-burst:N`: N non-verbose log entries at once
    /// ([`crate::regfile::guc::Guc::log_burst`]).
    LogBurst {
        /// N, 1..=[`MAX_LOG_BURST`].
        count: u64,
    },
    /// `guc:crash:1`: a crash dump, then the uKernel stops
    /// ([`crate::regfile::guc::Guc::log_crash`]); N must be 1.
    Crash,
    /// `guc:exception:1`: an exception, then the uKernel stops; N must be
    /// 1.
    Exception,
}

impl GucRequest {
    /// Whether the GuC's log model carries it out
    /// ([`crate::regfile::guc::Guc::log_inject`]), not its submission
    /// model.
    pub fn is_log(&self) -> bool {
        matches!(
            self,
            GucRequest::LogBurst { .. } | GucRequest::Crash | GucRequest::Exception
        )
    }
}

impl GucRequest {
    fn parse(args: &[&str]) -> Result<GucRequest, String> {
        let [what, n] = args else {
            return Err(format!(
                "`guc:{}` is not guc:drop-sched:N, guc:reset-storm:N, guc:refuse-register:N, \
                 guc:refuse-doorbell:N, guc:log-burst:N, guc:hang:1, guc:crash:1 or \
                 guc:exception:1",
                args.join(":")
            ));
        };
        let count = decimal(n)?;
        if !(1..=MAX_COUNT).contains(&count) {
            return Err(format!("N {count} is not in 1..={MAX_COUNT}"));
        }
        if matches!(*what, "hang" | "crash" | "exception") && count != 1 {
            return Err(format!("guc:{what} takes N 1, not {count}"));
        }
        if *what == "log-burst" && count > MAX_LOG_BURST {
            return Err(format!("guc:log-burst N {count} is above {MAX_LOG_BURST}"));
        }
        match *what {
            "hang" => Ok(GucRequest::Hang),
            "crash" => Ok(GucRequest::Crash),
            "exception" => Ok(GucRequest::Exception),
            "log-burst" => Ok(GucRequest::LogBurst { count }),
            "drop-sched" => Ok(GucRequest::DropSched { count }),
            "reset-storm" => Ok(GucRequest::ResetStorm { count }),
            "refuse-register" => Ok(GucRequest::RefuseRegister { count }),
            "refuse-doorbell" => Ok(GucRequest::RefuseDoorbell { count }),
            other => Err(format!(
                "`{other}` is not a guc: switch (drop-sched, reset-storm, refuse-register, \
                 refuse-doorbell, log-burst, hang, crash, exception)"
            )),
        }
    }
}

impl fmt::Display for GucRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GucRequest::DropSched { count } => write!(f, "guc:drop-sched:{count}"),
            GucRequest::ResetStorm { count } => write!(f, "guc:reset-storm:{count}"),
            GucRequest::RefuseRegister { count } => write!(f, "guc:refuse-register:{count}"),
            GucRequest::RefuseDoorbell { count } => write!(f, "guc:refuse-doorbell:{count}"),
            GucRequest::Hang => f.write_str("guc:hang:1"),
            GucRequest::LogBurst { count } => write!(f, "guc:log-burst:{count}"),
            GucRequest::Crash => f.write_str("guc:crash:1"),
            GucRequest::Exception => f.write_str("guc:exception:1"),
        }
    }
}

/// One test-control request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    /// `surprise-removal`.
    SurpriseRemoval,
    /// `irq:SOURCE:DATA:COUNT`.
    Irq {
        /// Where.
        source: Source,
        /// The event's bits (not 0).
        data: u16,
        /// How many events, one after the other's service.
        count: u64,
    },
    /// `gt-error:SEV:BITS`.
    GtError {
        /// Severity.
        sev: Severity,
        /// Bits (not 0).
        bits: u32,
    },
    /// `spurious-msi`.
    SpuriousMsi,
    /// `ct:...` / `g2h:...`.
    Ct(CtRequest),
    /// `guc:...`.
    Guc(GucRequest),
    /// `vf:...` and the SR-IOV `guc:` switches.
    Sriov(SriovRequest),
    /// `engine:FAULT:NAME`.
    Engine {
        /// The switch.
        fault: EngineFault,
        /// The engine's name.
        engine: &'static str,
    },
    /// `lmem:dirty:OFFSET:LEN` (test hook, not a device behaviour): local
    /// memory `OFFSET..OFFSET + LEN` gets non-zero bytes
    /// ([`LMEM_DIRTY_PATTERN`]), and the flat-CCS metadata covering it (one
    /// byte per 256 bytes, a partly covered 256 bytes counted whole,
    /// [`crate::ccs`]) the non-zero [`CCS_DIRTY_BYTE`], as a previous owner
    /// would leave them, so a scenario can prove the driver clears a VF's
    /// memory and its CCS (`lmem_not_cleared`, `ccs_not_cleared`,
    /// `regfile/isolation.rs`).
    LmemDirty {
        /// First byte (hex).
        offset: u64,
        /// Bytes (hex, 1..=[`MAX_DIRTY`]).
        len: u64,
    },
}

/// The dword `lmem:dirty` writes.
pub const LMEM_DIRTY_PATTERN: u32 = 0xd1d1_d1d1;
/// The CCS byte `lmem:dirty` writes over its range's metadata.
pub const CCS_DIRTY_BYTE: u8 = 0xd1;
/// Largest `lmem:dirty` range: 64 MiB (it allocates what it writes).
pub const MAX_DIRTY: u64 = 64 << 20;

impl Request {
    /// Parses one request (no surrounding white space).
    ///
    /// # Errors
    ///
    /// What is wrong with the text.
    pub fn parse(text: &str) -> Result<Request, String> {
        match text {
            "surprise-removal" => return Ok(Request::SurpriseRemoval),
            "spurious-msi" => return Ok(Request::SpuriousMsi),
            _ => {}
        }
        let parts: Vec<&str> = text.split(':').collect();
        match parts.as_slice() {
            ["irq", source, data, count] => {
                let source = Source::from_name(source)
                    .ok_or_else(|| format!("`{source}` is not an interrupt source"))?;
                let data = u16::try_from(hex(data)?)
                    .ok()
                    .filter(|&d| d != 0)
                    .ok_or_else(|| format!("DATA `{data}` is not 16 bits other than 0"))?;
                let count = decimal(count)?;
                if !(1..=MAX_COUNT).contains(&count) {
                    return Err(format!("COUNT {count} is not in 1..={MAX_COUNT}"));
                }
                Ok(Request::Irq {
                    source,
                    data,
                    count,
                })
            }
            ["gt-error", sev, bits] => {
                let sev = Severity::from_name(sev).ok_or_else(|| {
                    format!("`{sev}` is not a severity (correctable, nonfatal, fatal)")
                })?;
                let bits = u32::try_from(hex(bits)?)
                    .ok()
                    .filter(|&b| b != 0)
                    .ok_or_else(|| format!("BITS `{bits}` is not 32 bits other than 0"))?;
                Ok(Request::GtError { sev, bits })
            }
            [family @ ("ct" | "g2h"), args @ ..] => CtRequest::parse(family, args).map(Request::Ct),
            ["vf", args @ ..] => SriovRequest::parse("vf", args).map(Request::Sriov),
            ["guc", what, args @ ..] if SriovRequest::GUC_SWITCHES.contains(what) => {
                let args: Vec<&str> = std::iter::once(*what).chain(args.iter().copied()).collect();
                SriovRequest::parse("guc", &args).map(Request::Sriov)
            }
            ["guc", args @ ..] => GucRequest::parse(args).map(Request::Guc),
            ["engine", fault, name] => {
                let fault = EngineFault::from_name(fault).ok_or_else(|| {
                    format!("`{fault}` is not an engine fault (hang, csb-lost, reset-fails)")
                })?;
                let engine = engine::def_by_name(name)
                    .ok_or_else(|| format!("`{name}` is not an engine"))?
                    .name;
                Ok(Request::Engine { fault, engine })
            }
            ["lmem", "dirty", offset, len] => {
                let offset = hex64(offset)?;
                let len = hex64(len)?;
                if !(1..=MAX_DIRTY).contains(&len) {
                    return Err(format!("LEN {len:#x} is not in 1..={MAX_DIRTY:#x}"));
                }
                Ok(Request::LmemDirty { offset, len })
            }
            _ => Err(format!(
                "`{text}` is not surprise-removal, spurious-msi, irq:SOURCE:DATA:COUNT, \
                 gt-error:SEV:BITS, ct:..., g2h:..., guc:..., vf:..., engine:FAULT:NAME or \
                 lmem:dirty:OFFSET:LEN"
            )),
        }
    }

    /// Whether `partial` may still become a request as more characters come
    /// (for a reader that must decide before the line ends).
    pub fn could_become(partial: &str) -> bool {
        const WORDS: [&str; 10] = [
            "surprise-removal",
            "spurious-msi",
            "irq:",
            "gt-error:",
            "ct:",
            "g2h:",
            "engine:",
            "guc:",
            "vf:",
            "lmem:",
        ];
        if WORDS.iter().any(|w| w.starts_with(partial)) {
            return true;
        }
        let arguments = WORDS[2..].iter().find_map(|w| partial.strip_prefix(w));
        // The longest: a relay message (`vf:relay...`, comma-separated
        // dwords), else g2h:event with MAX_EVENT_DATA dwords of 8 digits.
        let relay = partial.starts_with("vf:relay");
        let max = if relay {
            sriov::RELAY_TEXT_MAX
        } else {
            16 + 9 * MAX_EVENT_DATA
        };
        arguments.is_some_and(|rest| {
            rest.len() <= max
                && rest.bytes().all(|b| {
                    b.is_ascii_alphanumeric() || b == b':' || b == b'-' || (relay && b == b',')
                })
        })
    }
}

impl fmt::Display for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Request::SurpriseRemoval => f.write_str("surprise-removal"),
            Request::SpuriousMsi => f.write_str("spurious-msi"),
            Request::Irq {
                source,
                data,
                count,
            } => write!(
                f,
                "irq:{}:{data:x}:{count}",
                source.name().unwrap_or("unknown")
            ),
            Request::GtError { sev, bits } => write!(f, "gt-error:{}:{bits:x}", sev.name()),
            Request::Ct(r) => r.fmt(f),
            Request::Guc(r) => r.fmt(f),
            Request::Sriov(r) => r.fmt(f),
            Request::Engine { fault, engine } => write!(f, "engine:{}:{engine}", fault.name()),
            Request::LmemDirty { offset, len } => write!(f, "lmem:dirty:{offset:x}:{len:x}"),
        }
    }
}

/// A hex number, `0x` optional, 1 to 8 digits.
fn hex(text: &str) -> Result<u64, String> {
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    if digits.is_empty() || digits.len() > 8 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("`{text}` is not a hex number"));
    }
    u64::from_str_radix(digits, 16).map_err(|e| format!("`{text}`: {e}"))
}

/// A hex number, `0x` optional, 1 to 12 digits (a local memory address).
fn hex64(text: &str) -> Result<u64, String> {
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    if digits.is_empty() || digits.len() > 12 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("`{text}` is not a hex number of at most 12 digits"));
    }
    u64::from_str_radix(digits, 16).map_err(|e| format!("`{text}`: {e}"))
}

/// A decimal number, digits only.
fn decimal(text: &str) -> Result<u64, String> {
    if text.is_empty() || text.len() > 12 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("`{text}` is not a decimal number"));
    }
    text.parse().map_err(|e| format!("`{text}`: {e}"))
}

/// Paced test events per source: what is still to be raised, and whether
/// the last one raised waits for its service.
#[derive(Debug, Default)]
pub struct Injector {
    /// Per source: (data, events left) in request order.
    queues: BTreeMap<Source, VecDeque<(u16, u64)>>,
    /// Sources whose last injected event is not yet serviced.
    waiting: BTreeMap<Source, ()>,
}

impl Injector {
    /// Queues `count` events of `data` at `src`.
    pub fn push(&mut self, src: Source, data: u16, count: u64) {
        if count > 0 {
            self.queues.entry(src).or_default().push_back((data, count));
        }
    }

    /// The next event to raise at `src` now: `None` while the last one
    /// waits for its service or when nothing is left. The caller raises it
    /// and reports with [`Injector::delivered`] unless it was dropped.
    pub fn next(&mut self, src: Source) -> Option<u16> {
        if self.waiting.contains_key(&src) {
            return None;
        }
        let queue = self.queues.get_mut(&src)?;
        let (data, left) = queue.front_mut()?;
        let data = *data;
        *left -= 1;
        if *left == 0 {
            queue.pop_front();
        }
        if queue.is_empty() {
            self.queues.remove(&src);
        }
        Some(data)
    }

    /// The event just taken with [`Injector::next`] reached the source
    /// (forwarded or pending): the next waits for its service.
    pub fn delivered(&mut self, src: Source) {
        self.waiting.insert(src, ());
    }

    /// `src`'s service ended; returns whether an injected event was waiting
    /// for it (then the caller raises the next, if any).
    pub fn serviced(&mut self, src: Source) -> bool {
        self.waiting.remove(&src).is_some()
    }

    /// Drops everything: per source, the events never raised.
    pub fn abandon(&mut self) -> Vec<(Source, u64)> {
        self.waiting.clear();
        std::mem::take(&mut self.queues)
            .into_iter()
            .map(|(src, q)| (src, q.iter().map(|&(_, n)| n).sum()))
            .collect()
    }

    /// Events not yet raised, over all sources.
    pub fn queued(&self) -> u64 {
        self.queues
            .values()
            .flat_map(|q| q.iter().map(|&(_, n)| n))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regfile::intc::Class;

    #[test]
    fn requests_parse_and_print_back() {
        for (text, want) in [
            ("surprise-removal", Request::SurpriseRemoval),
            ("spurious-msi", Request::SpuriousMsi),
            (
                "irq:guc:8000:1000",
                Request::Irq {
                    source: Source::GUC,
                    data: 0x8000,
                    count: 1000,
                },
            ),
            (
                "irq:vecs3:1:1",
                Request::Irq {
                    source: Source {
                        class: Class::VideoEnhance,
                        instance: 3,
                    },
                    data: 1,
                    count: 1,
                },
            ),
            (
                "gt-error:nonfatal:40",
                Request::GtError {
                    sev: Severity::NonFatal,
                    bits: 0x40,
                },
            ),
        ] {
            assert_eq!(Request::parse(text), Ok(want), "{text}");
            assert_eq!(want.to_string(), text);
        }
        // 0x is optional, case is not significant for hex digits.
        assert_eq!(
            Request::parse("irq:rcs0:0x0101:2"),
            Request::parse("irq:rcs0:101:2")
        );
        assert_eq!(
            Request::parse("gt-error:fatal:0xFFFFFFFF"),
            Ok(Request::GtError {
                sev: Severity::Fatal,
                bits: u32::MAX
            })
        );
    }

    #[test]
    fn malformed_requests_are_rejected() {
        for bad in [
            "",
            "irq",
            "irq:",
            "irq:guc:8000",
            "irq:guc:8000:1:2",
            "irq:gpu:8000:1",
            "irq:GUC:8000:1",
            "irq:sctrg:1:1",
            "irq:guc:0:1",
            "irq:guc:10000:1",
            "irq:guc:zz:1",
            "irq:guc:0x:1",
            "irq:guc:8000:0",
            "irq:guc:8000:-1",
            "irq:guc:8000:0x10",
            "irq:guc:8000:1000001",
            "irq:guc:8000:1 ",
            " irq:guc:8000:1",
            "gt-error:fatal",
            "gt-error:severe:1",
            "gt-error:fatal:0",
            "gt-error:fatal:100000000",
            "spurious-msi:1",
            "surprise-removal ",
            "reboot",
        ] {
            assert!(Request::parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    fn ev(action: u16, words: &[u32]) -> Request {
        let mut data = [0; MAX_EVENT_DATA];
        data[..words.len()].copy_from_slice(words);
        Request::Ct(CtRequest::Event {
            action,
            data,
            len: words.len() as u8,
        })
    }

    #[test]
    fn ct_requests_parse_and_print_back() {
        use CtRequest as C;
        for (text, want) in [
            ("ct:no-response:3", C::NoResponse { count: 3 }),
            ("ct:busy:2:250", C::Busy { count: 2, ms: 250 }),
            ("ct:busy:1:0", C::Busy { count: 1, ms: 0 }),
            ("ct:retry:1000000", C::Retry { count: 1_000_000 }),
            (
                "ct:failure:103:4",
                C::Failure {
                    code: 0x103,
                    count: 4,
                },
            ),
            ("ct:stray-fence", C::StrayFence),
            ("ct:disable", C::Disable),
            ("g2h:flood:500", C::Flood { count: 500 }),
            ("g2h:len-past-tail", C::LenPastTail),
            ("g2h:tail-outside", C::TailOutside),
            ("g2h:head-outside", C::HeadOutside),
            ("g2h:status:8", C::Status { bits: 8 }),
        ] {
            assert_eq!(Request::parse(text), Ok(Request::Ct(want)), "{text}");
            assert_eq!(want.to_string(), text);
            assert!(Request::could_become(text), "{text}");
        }
        for (text, want) in [
            ("g2h:event:8003", ev(0x8003, &[])),
            ("g2h:event:1008:2a", ev(0x1008, &[0x2a])),
            ("g2h:event:6000:1:ffffffff:0", ev(0x6000, &[1, u32::MAX, 0])),
        ] {
            assert_eq!(Request::parse(text), Ok(want), "{text}");
            assert_eq!(want.to_string(), text);
        }
        // Hex with 0x, upper case.
        assert_eq!(
            Request::parse("ct:failure:0x30:1"),
            Ok(Request::Ct(C::Failure {
                code: 0x30,
                count: 1
            }))
        );
        assert_eq!(
            Request::parse("g2h:event:0X8003:0xAB"),
            Ok(ev(0x8003, &[0xab]))
        );
        let full = format!("g2h:event:8003{}", ":ffffffff".repeat(MAX_EVENT_DATA));
        assert!(Request::parse(&full).is_ok());
        assert!(Request::could_become(&full));
    }

    #[test]
    fn malformed_ct_requests_are_rejected() {
        let too_many = format!("g2h:event:8003{}", ":1".repeat(MAX_EVENT_DATA + 1));
        for bad in [
            "ct",
            "ct:",
            "ct:no-response",
            "ct:no-response:0",
            "ct:no-response:1000001",
            "ct:no-response:x",
            "ct:no-response:1:2",
            "ct:busy:1",
            "ct:busy:0:10",
            "ct:busy:1:60001",
            "ct:busy:1:0x10",
            "ct:retry:-1",
            "ct:failure:30",
            "ct:failure:10000:1",
            "ct:failure:zz:1",
            "ct:failure:30:0",
            "ct:stray-fence:1",
            "ct:disable:now",
            "ct:reset",
            "g2h",
            "g2h:event",
            "g2h:event:",
            "g2h:event:10000",
            "g2h:event:8003:",
            "g2h:event:8003:123456789",
            too_many.as_str(),
            "g2h:flood:0",
            "g2h:flood",
            "g2h:status:0",
            "g2h:status:100000000",
            "g2h:status",
            "g2h:head-outside:1",
            "g2h:disable",
            "ct:flood:1",
            "CT:disable",
            "ct:disable ",
        ] {
            assert!(Request::parse(bad).is_err(), "{bad:?} was accepted");
        }
        for p in ["c", "ct", "ct:bu", "g2", "g2h:event:80", "ct:no-resp"] {
            assert!(Request::could_become(p), "{p:?}");
        }
        for p in ["ct:busy 1", "g2h:event;", "ctx"] {
            assert!(!Request::could_become(p), "{p:?}");
        }
    }

    #[test]
    fn engine_requests_parse_and_print_back() {
        for (text, fault, engine) in [
            ("engine:hang:rcs0", EngineFault::Hang, "rcs0"),
            ("engine:csb-lost:vecs3", EngineFault::CsbLost, "vecs3"),
            ("engine:hang:ccs2", EngineFault::Hang, "ccs2"),
            ("engine:reset-fails:bcs0", EngineFault::ResetFails, "bcs0"),
            ("engine:reset-fails:ccs1", EngineFault::ResetFails, "ccs1"),
        ] {
            let want = Request::Engine { fault, engine };
            assert_eq!(Request::parse(text), Ok(want), "{text}");
            assert_eq!(want.to_string(), text);
            assert!(Request::could_become(text), "{text}");
        }
        for bad in [
            "engine",
            "engine:",
            "engine:hang",
            "engine:hang:",
            "engine:hang:guc",
            "engine:hang:rcs8",
            "engine:stall:rcs0",
            "engine:hang:rcs0:1",
            "engine:HANG:rcs0",
            "engine:reset-fails",
            "engine:reset-fails:gsc0",
            "engine:reset-fail:rcs0",
        ] {
            assert!(Request::parse(bad).is_err(), "{bad:?} was accepted");
        }
        assert!(Request::could_become("engine:csb-"));
        assert!(Request::could_become("engine:reset-fa"));
        assert!(!Request::could_become("engine:hang rcs0"));
    }

    #[test]
    fn guc_requests_parse_and_print_back() {
        for (text, want) in [
            ("guc:drop-sched:3", GucRequest::DropSched { count: 3 }),
            ("guc:reset-storm:1", GucRequest::ResetStorm { count: 1 }),
            (
                "guc:refuse-register:1000000",
                GucRequest::RefuseRegister { count: 1_000_000 },
            ),
            (
                "guc:refuse-doorbell:2",
                GucRequest::RefuseDoorbell { count: 2 },
            ),
            ("guc:hang:1", GucRequest::Hang),
            ("guc:crash:1", GucRequest::Crash),
            ("guc:exception:1", GucRequest::Exception),
            ("guc:log-burst:1", GucRequest::LogBurst { count: 1 }),
            (
                "guc:log-burst:65536",
                GucRequest::LogBurst { count: 65_536 },
            ),
        ] {
            assert_eq!(Request::parse(text), Ok(Request::Guc(want)), "{text}");
            assert_eq!(want.to_string(), text);
            assert!(Request::could_become(text), "{text}");
        }
        for bad in [
            "guc",
            "guc:",
            "guc:drop-sched",
            "guc:drop-sched:0",
            "guc:drop-sched:1000001",
            "guc:drop-sched:x",
            "guc:drop-sched:1:2",
            "guc:hang:0",
            "guc:hang:2",
            "guc:hang",
            "guc:crash:2",
            "guc:crash",
            "guc:crash:0",
            "guc:exception:3",
            "guc:log-burst:0",
            "guc:log-burst:65537",
            "guc:log-burst",
            "guc:log-burst:x",
            "guc:crashes:1",
            "guc:refuse-doorbell:0",
        ] {
            assert!(Request::parse(bad).is_err(), "{bad:?} was accepted");
        }
        assert!(Request::could_become("guc:reset-st"));
        assert!(Request::could_become("guc:log-bu"));
        assert!(Request::could_become("guc:exception:1"));
        let log: Vec<bool> = [
            "guc:crash:1",
            "guc:exception:1",
            "guc:log-burst:4",
            "guc:hang:1",
        ]
        .iter()
        .map(|t| matches!(Request::parse(t), Ok(Request::Guc(g)) if g.is_log()))
        .collect();
        assert_eq!(log, [true, true, true, false]);
    }

    #[test]
    fn lmem_dirty_parses_and_prints_back() {
        let r = Request::parse("lmem:dirty:0x3f0000000:1000");
        assert_eq!(
            r,
            Ok(Request::LmemDirty {
                offset: 0x3_f000_0000,
                len: 0x1000
            })
        );
        assert_eq!(
            r.map(|r| r.to_string()),
            Ok("lmem:dirty:3f0000000:1000".into())
        );
        assert!(Request::could_become("lmem:dirty:3f0000000:1000"));
        assert!(Request::could_become("lme"));
        for bad in [
            "lmem:dirty:0",
            "lmem:dirty:0:0",
            "lmem:dirty:0:4000001",
            "lmem:dirty:x:10",
            "lmem:dirty:1000000000000:10",
            "lmem:clean:0:10",
        ] {
            assert!(Request::parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn partial_requests() {
        for p in [
            "",
            "s",
            "surprise-rem",
            "spur",
            "irq",
            "irq:",
            "irq:guc:80",
            "gt-error:fa",
        ] {
            assert!(Request::could_become(p), "{p:?}");
        }
        for p in ["reboot", "irq:guc 1", "surprise-removal ", "gt-error:x;"] {
            assert!(!Request::could_become(p), "{p:?}");
        }
    }

    /// Pacing: one at a time per source; sources are independent; a
    /// dropped event lets the next go at once (the caller does not call
    /// `delivered`).
    #[test]
    fn injector_paces_per_source() {
        let vcs0 = Source {
            class: Class::VideoDecode,
            instance: 0,
        };
        let mut inj = Injector::default();
        inj.push(Source::GUC, 0x8000, 2);
        inj.push(Source::GUC, 0x4000, 1);
        inj.push(vcs0, 1, 1);
        assert_eq!(inj.queued(), 4);
        assert_eq!(inj.next(Source::GUC), Some(0x8000));
        inj.delivered(Source::GUC);
        assert_eq!(inj.next(Source::GUC), None, "waits for the service");
        assert_eq!(inj.next(vcs0), Some(1), "another source is free");
        assert!(!inj.serviced(vcs0), "vcs0 was not reported delivered");
        assert!(inj.serviced(Source::GUC));
        assert!(!inj.serviced(Source::GUC), "once");
        assert_eq!(inj.next(Source::GUC), Some(0x8000));
        // Dropped: no `delivered`, the next is free at once.
        assert_eq!(inj.next(Source::GUC), Some(0x4000));
        assert_eq!(inj.next(Source::GUC), None);
        assert_eq!(inj.queued(), 0);
        inj.push(Source::GUC, 1, 5);
        assert_eq!(inj.next(Source::GUC), Some(1));
        inj.delivered(Source::GUC);
        assert_eq!(inj.abandon(), vec![(Source::GUC, 4)]);
        assert_eq!(inj.next(Source::GUC), None);
        assert!(!inj.serviced(Source::GUC));
    }
}
