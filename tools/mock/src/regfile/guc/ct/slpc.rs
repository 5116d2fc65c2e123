//! SLPC, the GuC's power and frequency manager, GuC RC and the engine
//! activity buffers: what the host asks of them over CT and what the
//! firmware writes back.
//!
//! Sources: upstream `abi/guc_actions_slpc_abi.h` (the request, the events,
//! `struct slpc_shared_data`, `SETUP_PC_GUCRC`) and `xe_guc_pc.c` (what the
//! host sends and waits for: `pc_action_reset` then `wait_for_pc_state`
//! polling `header.global_state` for RUNNING; `pc_action_set_param`,
//! `pc_action_unset_param`, `pc_action_query_task_state`,
//! `pc_action_setup_gucrc`). The firmware's own checks and its frequency
//! decisions are not published: everything they decide here is `[MODEL]`.
//! The mock has no frequencies (Documentation/xe-probe.rst): SLPC runs, keeps
//! the host's overrides in the shared page and reports no task enabled and
//! 0 MHz.
//!
//! `HOST2GUC_PC_SLPC_REQUEST` (0x3003) {hdr, event id 15:8 | argc 7:0, argc
//! dwords}; refusals record `guc_slpc_bad` and answer FAILURE:
//! - a message shorter than 2 dwords, or argc not the dwords that follow:
//!   `INVALID_SIZE`;
//! - `RESET` {address lo, hi}: the shared page's GGTT address; unreachable,
//!   or its `header.size` below `sizeof(struct slpc_shared_data)`:
//!   `INVALID_GGTT_ADDRESS` / `INVALID_PARAMS`. Else SLPC takes the page,
//!   applies the overrides it holds and sets `header.global_state` RUNNING;
//! - `QUERY_TASK_STATE` {address lo, hi} (the same page): before a RESET,
//!   or another page, `INVALID_STATE`; else `task_state_data` is written
//!   (status 0, freq 0: `[MODEL]`);
//! - `PARAMETER_SET` {id, value} / `PARAMETER_UNSET` {id}: before a RESET
//!   `INVALID_STATE`; an id of 256 or more `INVALID_PARAMS`; else the
//!   override's bit and value in the page change;
//! - `SHUTDOWN`: the state goes back to not running; any other event:
//!   `NOT_SUPPORTED`.
//!
//! `HOST2GUC_SETUP_PC_GUCRC` (0x3004) {hdr, mode}: mode 0 (host) or 1
//! (firmware) is kept; another mode, or another length, is refused
//! (`INVALID_PARAMS` / `INVALID_SIZE`).
//!
//! `SET_DEVICE_ENGINE_ACTIVITY_BUFFER` (0x550C) {hdr, metadata lo, hi,
//! activity lo, hi}: both buffers must be reachable through the GGTT
//! (`INVALID_GGTT_ADDRESS`; another length `INVALID_SIZE`). The GuC takes
//! them and, `[MODEL]`, never counts: the mock keeps no engine busyness, so
//! the host reads no activity.
//!
//! A GuC reset forgets all of it ([`super::Ct::keeping_switches`]).

use super::Ct;
use crate::abi;
use crate::abi::slpc;
use crate::recorder::Recorder;
use crate::regfile::guc::ggtt::Gtt;
use crate::trace::Event;

/// The violation kind of a request SLPC refuses.
const BAD: &str = "guc_slpc_bad";

/// What SLPC holds: the shared page once a RESET gave it, and GuC RC's mode.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Slpc {
    /// GGTT address of the shared data page, while SLPC runs.
    pub shared: Option<u64>,
    /// The GuC RC mode the host set.
    pub gucrc: Option<u32>,
}

/// Serves `action` if it is SLPC's or GuC RC's; `None` otherwise.
pub(super) fn serve(
    ct: &mut Ct,
    gtt: &mut Gtt,
    action: u32,
    hxg: &[u32],
    rec: &mut Recorder,
) -> Option<Result<u32, u32>> {
    let (event, out) = match action {
        slpc::REQUEST => request(&mut ct.slpc, gtt, hxg, rec),
        slpc::SETUP_PC_GUCRC => ("gucrc", gucrc(&mut ct.slpc, hxg)),
        slpc::SET_DEVICE_ENGINE_ACTIVITY_BUFFER => ("engine_activity", activity(gtt, hxg, rec)),
        _ => return None,
    };
    let result = match &out {
        Ok(_) => "done",
        Err((_, why)) => {
            rec.violation(BAD, why.clone());
            "refused"
        }
    };
    rec.emit(Event::GucSlpc { event, result });
    Some(out.map_err(|(code, _)| code))
}

/// A refusal: the error code and why.
type Refusal = (u32, String);

fn gucrc(s: &mut Slpc, hxg: &[u32]) -> Result<u32, Refusal> {
    let &[_, mode] = hxg else {
        return Err((
            abi::error::INVALID_SIZE,
            format!("SETUP_PC_GUCRC of {} dwords; it is 2", hxg.len()),
        ));
    };
    if mode > slpc::GUCRC_FIRMWARE_CONTROL {
        return Err((
            abi::error::INVALID_PARAMS,
            format!("SETUP_PC_GUCRC mode {mode} is neither host (0) nor firmware (1) control"),
        ));
    }
    s.gucrc = Some(mode);
    Ok(0)
}

fn activity(gtt: &mut Gtt, hxg: &[u32], rec: &mut Recorder) -> Result<u32, Refusal> {
    let &[_, meta_lo, meta_hi, buf_lo, buf_hi] = hxg else {
        return Err((
            abi::error::INVALID_SIZE,
            format!(
                "SET_DEVICE_ENGINE_ACTIVITY_BUFFER of {} dwords; it is 5",
                hxg.len()
            ),
        ));
    };
    read(gtt, page(meta_lo, meta_hi), rec)?;
    read(gtt, page(buf_lo, buf_hi), rec)?;
    Ok(0)
}

/// One SLPC request: the event's name and the outcome.
fn request(
    s: &mut Slpc,
    gtt: &mut Gtt,
    hxg: &[u32],
    rec: &mut Recorder,
) -> (&'static str, Result<u32, Refusal>) {
    let Some(&ev) = hxg.get(1) else {
        return (
            "none",
            Err((
                abi::error::INVALID_SIZE,
                "SLPC request without an event dword".into(),
            )),
        );
    };
    let (id, argc) = ((ev >> 8) & 0xff, ev & 0xff);
    let args = &hxg[2..];
    let name = event_name(id);
    if args.len() != argc as usize {
        let why = format!(
            "SLPC {name} claims {argc} argument(s), the message carries {}",
            args.len()
        );
        return (name, Err((abi::error::INVALID_SIZE, why)));
    }
    let out = match (id, args) {
        (slpc::EVENT_RESET, &[lo, hi]) => reset(s, gtt, page(lo, hi), rec),
        (slpc::EVENT_QUERY_TASK_STATE, &[lo, hi]) => query(s, gtt, page(lo, hi), rec),
        (slpc::EVENT_PARAMETER_SET, &[id, value]) => param(s, gtt, id, Some(value), rec),
        (slpc::EVENT_PARAMETER_UNSET, &[id]) => param(s, gtt, id, None, rec),
        (slpc::EVENT_SHUTDOWN, _) => {
            s.shared = None;
            Ok(0)
        }
        (
            slpc::EVENT_RESET
            | slpc::EVENT_QUERY_TASK_STATE
            | slpc::EVENT_PARAMETER_SET
            | slpc::EVENT_PARAMETER_UNSET,
            _,
        ) => Err((
            abi::error::INVALID_PARAMS,
            format!("SLPC {name} with {argc} argument(s)"),
        )),
        _ => Err((
            abi::error::NOT_SUPPORTED,
            format!("SLPC event {id} is not one the mock's SLPC serves"),
        )),
    };
    (name, out)
}

fn event_name(id: u32) -> &'static str {
    match id {
        slpc::EVENT_RESET => "reset",
        slpc::EVENT_SHUTDOWN => "shutdown",
        slpc::EVENT_QUERY_TASK_STATE => "query_task_state",
        slpc::EVENT_PARAMETER_SET => "parameter_set",
        slpc::EVENT_PARAMETER_UNSET => "parameter_unset",
        _ => "other",
    }
}

fn page(lo: u32, hi: u32) -> u64 {
    u64::from(lo) | u64::from(hi) << 32
}

fn reset(s: &mut Slpc, gtt: &mut Gtt, at: u64, rec: &mut Recorder) -> Result<u32, Refusal> {
    let size = read(gtt, at, rec)?;
    if size < slpc::SHARED_DATA_BYTES {
        return Err((
            abi::error::INVALID_PARAMS,
            format!(
                "SLPC reset: the shared data at {at:#x} says {size} bytes; struct slpc_shared_data \
                 is {}",
                slpc::SHARED_DATA_BYTES
            ),
        ));
    }
    write(gtt, at + slpc::GLOBAL_STATE, slpc::STATE_RUNNING, rec)?;
    s.shared = Some(at);
    Ok(0)
}

/// The page SLPC runs with, if `at` is it.
fn running(s: &Slpc, what: &str, at: Option<u64>) -> Result<u64, Refusal> {
    match (s.shared, at) {
        (None, _) => Err((
            abi::error::INVALID_STATE,
            format!("SLPC {what} before a reset gave SLPC its shared data"),
        )),
        (Some(p), Some(a)) if p != a => Err((
            abi::error::INVALID_STATE,
            format!("SLPC {what} names the page at {a:#x}; SLPC runs with the one at {p:#x}"),
        )),
        (Some(p), _) => Ok(p),
    }
}

fn query(s: &mut Slpc, gtt: &mut Gtt, at: u64, rec: &mut Recorder) -> Result<u32, Refusal> {
    let p = running(s, "query_task_state", Some(at))?;
    // [MODEL] No task enabled, no frequency: the mock has no clocks.
    write(gtt, p + slpc::TASK_STATE, 0, rec)?;
    write(gtt, p + slpc::TASK_STATE + 4, 0, rec)?;
    Ok(0)
}

fn param(
    s: &mut Slpc,
    gtt: &mut Gtt,
    id: u32,
    value: Option<u32>,
    rec: &mut Recorder,
) -> Result<u32, Refusal> {
    let what = if value.is_some() {
        "parameter_set"
    } else {
        "parameter_unset"
    };
    let p = running(s, what, None)?;
    if id >= slpc::MAX_PARAMETERS {
        return Err((
            abi::error::INVALID_PARAMS,
            format!(
                "SLPC {what} of parameter {id}; there are {}",
                slpc::MAX_PARAMETERS
            ),
        ));
    }
    let bits = p + slpc::OVERRIDE_BITS + 4 * u64::from(id / 32);
    let bit = 1 << (id % 32);
    let old = read(gtt, bits, rec)?;
    let new = if value.is_some() {
        old | bit
    } else {
        old & !bit
    };
    write(gtt, bits, new, rec)?;
    if let Some(v) = value {
        write(gtt, p + slpc::OVERRIDE_VALUES + 4 * u64::from(id), v, rec)?;
    }
    Ok(0)
}

fn read(gtt: &mut Gtt, at: u64, rec: &mut Recorder) -> Result<u32, Refusal> {
    let mut b = [0u8; 4];
    gtt.read(at, &mut b, "SLPC shared data", rec)
        .map(|()| u32::from_le_bytes(b))
        .map_err(|f| {
            (
                abi::error::INVALID_GGTT_ADDRESS,
                format!("SLPC shared data: {f}"),
            )
        })
}

fn write(gtt: &mut Gtt, at: u64, v: u32, rec: &mut Recorder) -> Result<(), Refusal> {
    gtt.write(at, &v.to_le_bytes(), "SLPC shared data", rec)
        .map_err(|f| {
            (
                abi::error::INVALID_GGTT_ADDRESS,
                format!("SLPC shared data: {f}"),
            )
        })
}
