//! How far xe got: its probe's stages, each proven by what the mock device
//! recorded or by what the guest saw, never by xe's word alone.

use serde::Deserialize;
use std::fmt;
use xehpg_mock::summary::Summary;

/// The stages of xe's probe on the mock, in the order xe reaches them
/// (`xe_device_probe`: MMIO and GuC load in `xe_gt_init`'s uc steps, then
/// submission and `xe_gt_record_default_lrcs`, then the DRM device).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stage {
    /// Nothing reached the device.
    None,
    /// xe mapped BAR0 and read the device (mock: MMIO reads).
    Mmio,
    /// The GuC firmware was DMAed and booted (mock: a GuC load).
    GucLoaded,
    /// The CT buffers were registered and enabled (mock: a CT enable).
    CtEnabled,
    /// A context was registered with the GuC (mock: `REGISTER_CONTEXT`).
    ContextRegistered,
    /// A context ran on an engine under GuC submission (mock: a context
    /// run).
    ContextRan,
    /// Every engine class the mock presents ran a context: xe's
    /// `xe_gt_record_default_lrcs` submits to one engine of each class.
    DefaultLrcs,
    /// xe stayed bound to the device (guest: the PCI device's driver is xe).
    ProbeComplete,
    /// As SR-IOV PF, xe enabled a VF (guest: `sriov_numvfs` reads 1).
    VfEnabled,
}

impl Stage {
    /// Every stage, in order.
    pub const ALL: [Stage; 9] = [
        Stage::None,
        Stage::Mmio,
        Stage::GucLoaded,
        Stage::CtEnabled,
        Stage::ContextRegistered,
        Stage::ContextRan,
        Stage::DefaultLrcs,
        Stage::ProbeComplete,
        Stage::VfEnabled,
    ];

    /// The name the baseline file uses.
    pub fn name(self) -> &'static str {
        match self {
            Stage::None => "none",
            Stage::Mmio => "mmio",
            Stage::GucLoaded => "guc-loaded",
            Stage::CtEnabled => "ct-enabled",
            Stage::ContextRegistered => "context-registered",
            Stage::ContextRan => "context-ran",
            Stage::DefaultLrcs => "default-lrcs",
            Stage::ProbeComplete => "probe-complete",
            Stage::VfEnabled => "vf-enabled",
        }
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What the guest script printed (`xe-probe: KEY=VALUE` lines).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Guest {
    /// `insmod xe.ko`'s exit status.
    pub insmod: Option<i32>,
    /// The PCI device's driver after the load (`none` if unbound).
    pub driver: Option<String>,
    /// `sriov_numvfs` after writing 1, if the script got that far.
    pub numvfs: Option<u32>,
    /// xe's own log lines about the device.
    pub log: Vec<LogLine>,
    /// The unbind's outcome (`ok` or `failed`), if xe was bound.
    pub unbind: Option<String>,
    /// Whether the script reached its end.
    pub done: bool,
}

/// One of xe's kernel log lines (`log=LEVEL TEXT`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    /// The printk level, 0 (emergency) to 7 (debug); `None` when the line
    /// carried none, which the judge treats as an error (it cannot tell).
    pub level: Option<u8>,
    /// The line after the timestamp.
    pub text: String,
}

/// Highest printk level that is an error: `KERN_ERR` (3).
const ERROR_LEVEL: u8 = 3;

impl LogLine {
    /// Whether xe logged this as an error (or worse), or says the device is
    /// wedged at any level.
    pub fn is_error(&self) -> bool {
        self.level.is_none_or(|l| l <= ERROR_LEVEL) || self.text.contains("wedged")
    }

    fn parse(value: &str) -> Self {
        match value.split_once(' ') {
            Some((l, text)) if l.len() == 1 => match l.parse() {
                Ok(level) => LogLine {
                    level: Some(level),
                    text: text.to_string(),
                },
                Err(_) => LogLine {
                    level: None,
                    text: value.to_string(),
                },
            },
            _ => LogLine {
                level: None,
                text: value.to_string(),
            },
        }
    }
}

impl fmt::Display for LogLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.level {
            Some(l) => write!(f, "<{l}> {}", self.text),
            None => write!(f, "<?> {}", self.text),
        }
    }
}

/// The guest's `xe-probe:` lines of `output`.
pub fn parse_guest(output: &str) -> Guest {
    parse_prefixed(output, "xe-probe: ")
}

/// The `PREFIX KEY=VALUE` lines of a guest script that reports as
/// `xe-probe.sh` does, under another prefix (`xe-vf: `).
pub fn parse_prefixed(output: &str, prefix: &str) -> Guest {
    let mut g = Guest::default();
    for line in output.lines() {
        let Some(fact) = line.trim().strip_prefix(prefix) else {
            continue;
        };
        let (key, value) = fact.split_once('=').unwrap_or((fact, ""));
        match key {
            "insmod" => g.insmod = value.trim().parse().ok(),
            "driver" => g.driver = Some(value.to_string()),
            "sriov_numvfs" => g.numvfs = value.trim().parse().ok(),
            "log" => g.log.push(LogLine::parse(value)),
            "unbind" => g.unbind = Some(value.to_string()),
            "done" => g.done = true,
            _ => {}
        }
    }
    g
}

/// The engine classes of the mock's engine names (`rcs0`, `vecs1`, ...).
fn class(engine: &str) -> &str {
    engine.trim_end_matches(|c: char| c.is_ascii_digit())
}

/// Whether one engine of every class present ran a context to completion.
fn every_class_ran(s: &Summary) -> bool {
    let by = &s.engines.by_engine;
    !by.is_empty()
        && by.keys().all(|name| {
            by.iter()
                .filter(|(other, _)| class(other) == class(name))
                .any(|(_, c)| c.contexts_completed > 0)
        })
}

/// The furthest stage `s` and `g` prove. Stages are cumulative: a later one
/// counts only if every earlier one holds, so a stage cannot be skipped.
pub fn furthest(s: &Summary, g: &Guest) -> Stage {
    let proven = |st: Stage| match st {
        Stage::None => true,
        Stage::Mmio => s.mmio_reads > 0,
        Stage::GucLoaded => s.guc_loads > 0,
        Stage::CtEnabled => s.ct.enables > 0,
        Stage::ContextRegistered => s.guc_submit.registrations > 0,
        Stage::ContextRan => s.guc_submit.contexts_run > 0,
        Stage::DefaultLrcs => every_class_ran(s),
        Stage::ProbeComplete => g.driver.as_deref() == Some("xe"),
        Stage::VfEnabled => g.numvfs == Some(1),
    };
    Stage::ALL
        .into_iter()
        .take_while(|&st| proven(st))
        .last()
        .unwrap_or(Stage::None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use xehpg_mock::summary::EngineCounters;

    fn ran(s: &mut Summary, engine: &str) {
        s.engines.by_engine.insert(
            engine.into(),
            EngineCounters {
                contexts_completed: 1,
                ..Default::default()
            },
        );
    }

    #[test]
    fn stages_are_cumulative() {
        let mut s = Summary::default();
        let g = Guest::default();
        assert_eq!(furthest(&s, &g), Stage::None);
        s.mmio_reads = 10;
        assert_eq!(furthest(&s, &g), Stage::Mmio);
        // A CT enable without a GuC load proves nothing past the load.
        s.ct.enables = 1;
        assert_eq!(furthest(&s, &g), Stage::Mmio);
        s.guc_loads = 2;
        assert_eq!(furthest(&s, &g), Stage::CtEnabled);
        s.guc_submit.registrations = 1;
        s.guc_submit.contexts_run = 1;
        assert_eq!(furthest(&s, &g), Stage::ContextRan);
    }

    #[test]
    fn default_lrcs_need_every_class() {
        let mut s = Summary {
            mmio_reads: 1,
            guc_loads: 1,
            ..Default::default()
        };
        s.ct.enables = 1;
        s.guc_submit.registrations = 1;
        s.guc_submit.contexts_run = 1;
        ran(&mut s, "rcs0");
        s.engines
            .by_engine
            .insert("bcs0".into(), EngineCounters::default());
        assert_eq!(furthest(&s, &Guest::default()), Stage::ContextRan);
        ran(&mut s, "bcs0");
        // vcs1 idle is fine: vcs0 ran for the class.
        ran(&mut s, "vcs0");
        s.engines
            .by_engine
            .insert("vcs1".into(), EngineCounters::default());
        assert_eq!(furthest(&s, &Guest::default()), Stage::DefaultLrcs);
        let g = parse_guest("noise\nxe-probe: driver=xe\nxe-probe: sriov_numvfs=1\n");
        assert_eq!(furthest(&s, &g), Stage::VfEnabled);
        let unbound = parse_guest("xe-probe: driver=none\n");
        assert_eq!(furthest(&s, &unbound), Stage::DefaultLrcs);
    }

    #[test]
    fn guest_lines_parse() {
        let g = parse_guest(
            "xe-probe: insmod=0\nxe-probe: log=3 xe 0000:00:01.0: [drm] *ERROR* x\n\
             xe-probe: log=6 xe 0000:00:01.0: [drm] Small BAR device\n\
             xe-probe: log=xe 0000:00:01.0: no level\n\
             xe-probe: log=4 xe 0000:00:01.0: device wedged\n\
             xe-probe: driver=xe\nxe-probe: sriov_numvfs=0\nxe-probe: unbind=ok\n\
             xe-probe: done\n",
        );
        assert_eq!(g.insmod, Some(0));
        assert_eq!(g.driver.as_deref(), Some("xe"));
        assert_eq!(g.numvfs, Some(0));
        assert_eq!(g.unbind.as_deref(), Some("ok"));
        let errors: Vec<bool> = g.log.iter().map(LogLine::is_error).collect();
        // An error, chatter, a line without a level, a wedge at warning.
        assert_eq!(errors, [true, false, true, true]);
        assert_eq!(g.log[0].text, "xe 0000:00:01.0: [drm] *ERROR* x");
        assert_eq!(g.log[1].level, Some(6));
        assert!(g.done);
    }
}
