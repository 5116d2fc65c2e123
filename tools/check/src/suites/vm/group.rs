//! One boot for a group of scenarios.
//!
//! Booting the guest is most of a scenario's cost under TCG (on the debug
//! kernel, KASAN and lockdep make it most of a minute), so scenarios that
//! agree on what is fixed when the device is attached share a boot. That is
//! [`BootKey`]: the device ID, the mock options the guest's PCI core or QEMU
//! learn once ([`ATTACH_VALUED`], [`ATTACH_SWITCHES`], which the mock checks
//! too: `Options::for_window` refuses a window that changes them), the
//! test-only guest modules shipped and the guest's CPU count. The driver
//! build (`# module: production`) is not part of it: a boot that mixes
//! builds ships each of them and `group.sh` puts the scenario's in place
//! before its window ([`plan_line`]). A scenario's other mock options are
//! its own: `tools/guest/group.sh` has the mock open a test window for each
//! scenario, the device as at power-on under those options with a record of
//! its own (`window-NAME.json`), loads the driver, runs the script under its
//! timeout, and cleans up (driver and shim unloaded, the function back on
//! the bus, the ring buffer and kmemleak's list emptied).
//!
//! Each scenario is then judged from its own parts, as if it had booted
//! alone: its output between its window's begin and its status line, its
//! kernel log from its `xehpg-group: begin` marker to the next one's (the
//! first also owns the boot), its window's mock summary; in the debug lane
//! the driver is unloaded in each window and kmemleak scans once, after the
//! boot's last scenario, and that scan is part of every scenario's kernel
//! log (a leak found there runs the boot's scenarios again, each followed by
//! a scan of its own, to learn whose it is). What one boot
//! cannot give back is handled by running scenarios again in a new boot:
//! those after one whose kernel log shows a detector report (lockdep and
//! KASAN report once per boot, and a tainted kernel is not a clean one),
//! and those the VM never reached because it died or hung.
//!
//! A header's `# own-boot: REASON` keeps a scenario out of every group.

use super::scenario::{Header, Scenario};
use crate::suites::kernel_log;
use std::collections::BTreeMap;

/// Mock options with a value that are fixed at attach time (the mock's
/// `Attachment`): config space identity, BAR sizes, the memory behind them,
/// the firmware file. `--device-id` comes from the header's own directive.
pub const ATTACH_VALUED: &[&str] = &[
    "--device-id",
    "--revision",
    "--subsystem-vendor-id",
    "--subsystem-id",
    "--bar0-size-mib",
    "--lmem-bar-mib",
    "--lmem-size-gib",
    "--guc-fw",
];

/// Mock switches fixed at attach time: the ID check, the VF identity, the
/// MSI capability.
pub const ATTACH_SWITCHES: &[&str] = &["--foreign-id", "--vf", "--no-msi"];

/// Splits a scenario's mock options into those fixed at attach time (passed
/// to the mock's command line) and its own (passed to its test window).
/// `--opt=value` and `--opt value` are both understood.
pub fn split_mock_args(args: &[String]) -> (Vec<String>, Vec<String>) {
    let (mut attach, mut window) = (Vec::new(), Vec::new());
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let flag = arg.split_once('=').map_or(arg.as_str(), |(f, _)| f);
        if ATTACH_VALUED.contains(&flag) {
            attach.push(arg.clone());
            // The value as the next word goes with its option.
            if !arg.contains('=') {
                attach.extend(it.next().cloned());
            }
        } else if ATTACH_SWITCHES.contains(&flag) {
            attach.push(arg.clone());
        } else {
            window.push(arg.clone());
        }
    }
    (attach, window)
}

/// What scenarios must agree on to share a boot.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct BootKey {
    /// `# device-id:`.
    pub device_id: Option<String>,
    /// Attach-time mock options, as written.
    pub attach: Vec<String>,
    /// Guest modules shipped, sorted.
    pub guest_modules: Vec<String>,
    /// `# vcpus:`.
    pub vcpus: Option<u32>,
    /// A scenario that boots alone (`# own-boot`), by name.
    pub alone: Option<String>,
}

impl BootKey {
    /// The key of scenario `name` with header `h`.
    pub fn of(name: &str, h: &Header) -> Self {
        let mut guest_modules = h.guest_modules.clone();
        guest_modules.sort();
        Self {
            device_id: h.device_id.clone(),
            attach: split_mock_args(&h.mock_args).0,
            guest_modules,
            vcpus: h.vcpus,
            alone: h.own_boot.as_ref().map(|_| name.to_string()),
        }
    }
}

/// The boots for `scenarios` (index and header): scenarios with one
/// [`BootKey`] together, in their order, a group cut into as few boots of
/// at most `max` as it needs, of sizes as even as possible; largest boots
/// first, so that two at a time finish close together.
pub fn plan(scenarios: &[(usize, &str, &Header)], max: usize) -> Vec<Vec<usize>> {
    let max = max.max(1);
    let mut groups: BTreeMap<BootKey, Vec<usize>> = BTreeMap::new();
    let mut order: Vec<BootKey> = Vec::new();
    for (i, name, h) in scenarios {
        let key = BootKey::of(name, h);
        if !groups.contains_key(&key) {
            order.push(key.clone());
        }
        groups.entry(key).or_default().push(*i);
    }
    let mut boots: Vec<Vec<usize>> = Vec::new();
    for key in order {
        let members = groups.remove(&key).unwrap_or_default();
        let n = members.len().div_ceil(max);
        let (base, extra) = (members.len() / n, members.len() % n);
        let mut rest = members.as_slice();
        for k in 0..n {
            let take = base + usize::from(k < extra);
            let (now, later) = rest.split_at(take);
            boots.push(now.to_vec());
            rest = later;
        }
    }
    // Stable: equal sizes keep the scenarios' order.
    boots.sort_by_key(|b| std::cmp::Reverse(b.len()));
    boots
}

/// One line of the guest's plan file (`tools/guest/group.sh`):
/// `NAME|TIMEOUT|LOAD|PARAMS|MOCK-ARGS|BUILD`, BUILD the driver build the
/// scenario loads (`test` or `production`, [`Header::build`]).
pub fn plan_line(s: &Scenario, h: &Header, timeout: u64) -> String {
    format!(
        "{}|{}|{}|{}|{}|{}",
        s.name,
        timeout,
        u8::from(!h.no_load),
        h.params.join(" "),
        split_mock_args(&h.mock_args).1.join(" "),
        h.build()
    )
}

/// Exit status of a scenario that `timeout -s KILL` stopped (128 + SIGKILL).
pub const KILLED: i32 = 137;

/// How one scenario of a boot ended, as its status line says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    /// The script exited with this status.
    Exited(i32),
    /// The script ran past its timeout and was killed.
    Killed,
    /// The mock did not open the scenario's window: nothing ran.
    NoWindow,
    /// The boot ended while the scenario ran (the reason).
    Lost(String),
}

/// One scenario's part of a boot's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The command's output between the window's begin and the status line,
    /// the group's own marker lines left out.
    pub output: String,
    /// The status line's verdict, if it was printed.
    pub end: Option<End>,
}

const WINDOW_BEGIN: &str = "XEHPG-VM-WINDOW=begin:";
const WINDOW_END: &str = "XEHPG-VM-WINDOW=end:";
const STATUS: &str = "XEHPG-VM-STATUS=";
/// The kernel-log marker `group.sh` writes before each scenario.
pub const KMSG_BEGIN: &str = "xehpg-group: begin ";

/// Splits a boot's command output into the parts of the scenarios it began,
/// by name.
pub fn split_output(text: &str) -> BTreeMap<String, Part> {
    let mut parts: BTreeMap<String, Part> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if let Some(rest) = line.strip_prefix(WINDOW_BEGIN) {
            let name = rest.split_once(':').map_or(rest, |(n, _)| n).to_string();
            parts.insert(
                name.clone(),
                Part {
                    output: String::new(),
                    end: None,
                },
            );
            current = Some(name);
            continue;
        }
        if let Some(rest) = line.strip_prefix(STATUS) {
            if let Some((name, status)) = rest.rsplit_once(':') {
                if let Some(part) = parts.get_mut(name) {
                    part.end = Some(match status {
                        "window" => End::NoWindow,
                        s => match s.parse::<i32>() {
                            Ok(KILLED) => End::Killed,
                            Ok(rc) => End::Exited(rc),
                            Err(_) => End::Lost(format!("unreadable status line {line:?}")),
                        },
                    });
                }
                current = None;
                continue;
            }
        }
        if line.starts_with(WINDOW_END) {
            continue;
        }
        if let Some(part) = current.as_ref().and_then(|n| parts.get_mut(n)) {
            part.output.push_str(line);
            part.output.push('\n');
        }
    }
    parts
}

/// Splits a boot's kernel console at the `xehpg-group: begin NAME` markers:
/// each scenario's part runs from its marker to the next one's, and the
/// first also holds the boot before it.
pub fn split_console(text: &str) -> BTreeMap<String, String> {
    let mut parts: BTreeMap<String, String> = BTreeMap::new();
    let mut current: Option<String> = None;
    let mut prefix = String::new();
    for line in text.lines() {
        if let Some(i) = line.find(KMSG_BEGIN) {
            let name = line[i + KMSG_BEGIN.len()..].trim().to_string();
            let mut start = std::mem::take(&mut prefix);
            start.push_str(line);
            start.push('\n');
            parts.insert(name.clone(), start);
            current = Some(name);
            continue;
        }
        match current.as_ref().and_then(|n| parts.get_mut(n)) {
            Some(part) => {
                part.push_str(line);
                part.push('\n');
            }
            None => {
                prefix.push_str(line);
                prefix.push('\n');
            }
        }
    }
    parts
}

/// The kernel-log marker before the debug lane's one leak scan of a boot.
pub const LEAK_SCAN: &str = "xehpg-group: leak scan";

/// The console from the leak-scan marker on, if the boot got there.
pub fn leak_scan_part(console: &str) -> Option<String> {
    let at = console.find(LEAK_SCAN)?;
    let start = console[..at].rfind('\n').map_or(0, |i| i + 1);
    Some(console[start..].to_string())
}

/// A scenario's kernel log without the boot's leak scan (which the last
/// scenario's part holds): what its own actions printed.
pub fn before_leak_scan(part: &str) -> &str {
    match part.find(LEAK_SCAN) {
        Some(at) => &part[..part[..at].rfind('\n').map_or(0, |i| i + 1)],
        None => part,
    }
}

/// Whether a scenario's kernel log leaves the boot unfit for the next
/// scenario: a detector reported (lockdep and KASAN go quiet after their
/// first report, and the kernel is tainted), or the kernel oopsed.
pub fn spoils_the_boot(console_part: &str) -> bool {
    !kernel_log::scan(console_part).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suites::vm::scenario::parse_header;

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn attach_time_options_are_split_from_a_scenarios_own() {
        let (attach, window) = split_mock_args(&strings(&[
            "--fault",
            "guc-boot-stall",
            "--lmem-bar-mib",
            "1024",
            "--no-msi",
            "--wopcm-prelocked",
            "0x4000,0x10000",
            "--revision=0x3f",
        ]));
        assert_eq!(
            attach,
            ["--lmem-bar-mib", "1024", "--no-msi", "--revision=0x3f"]
        );
        assert_eq!(
            window,
            [
                "--fault",
                "guc-boot-stall",
                "--wopcm-prelocked",
                "0x4000,0x10000"
            ]
        );
    }

    fn header(text: &str) -> Header {
        parse_header(text).unwrap()
    }

    #[test]
    fn scenarios_share_a_boot_only_with_the_same_attach_time_options() {
        let plain = header("# timeout: 60\n");
        let fault = header("# mock-args: --fault all-ones\n");
        let dg2 = header("# device-id: 0x56a0\n");
        let msi = header("# mock-args: --no-msi --fault guc-boot-stall\n");
        let shim = header("# guest-module: sriov-shim\n");
        let alone = header("# own-boot: counts boot-time accesses\n");
        let two = header("# vcpus: 2\n");
        let prod = header("# module: production\n");
        let list = [
            (0, "a", &plain),
            (1, "b", &fault),
            (2, "c", &dg2),
            (3, "d", &msi),
            (4, "e", &plain),
            (5, "f", &shim),
            (6, "g", &alone),
            (7, "h", &shim),
            (8, "i", &two),
            (9, "j", &prod),
            (10, "k", &prod),
        ];
        let boots = plan(&list, 10);
        // The production module's scenarios join the test build's: the
        // boot ships both builds.
        assert_eq!(
            boots,
            [
                vec![0, 1, 4, 9, 10],
                vec![5, 7],
                vec![2],
                vec![3],
                vec![6],
                vec![8]
            ]
        );
        // A group larger than the limit is cut evenly.
        let many: Vec<(usize, &str, &Header)> = (0..7).map(|i| (i, "x", &plain)).collect();
        assert_eq!(plan(&many, 3), [vec![0, 1, 2], vec![3, 4], vec![5, 6]]);
    }

    #[test]
    fn the_plan_line_carries_load_params_and_the_window_options() {
        let s = Scenario {
            name: "x".into(),
            path: "/r/x.sh".into(),
            header: Ok(Header::default()),
        };
        let h = header("# no-load\n# params: a=1 b=2\n# mock-args: --vf --fault dead\n");
        assert_eq!(plan_line(&s, &h, 540), "x|540|0|a=1 b=2|--fault dead|test");
        let prod = header("# module: production\n");
        assert_eq!(plan_line(&s, &prod, 60), "x|60|1|||production");
    }

    #[test]
    fn output_is_split_by_window_and_status() {
        let text = "\
boot noise
XEHPG-VM-WINDOW=begin:a:--fault x
TAP version 13
ok 1 - one
XEHPG-VM-WINDOW=end:a
XEHPG-VM-STATUS=a:0
between
XEHPG-VM-WINDOW=begin:b:
ok 1 - two
XEHPG-VM-STATUS=b:137
XEHPG-VM-WINDOW=begin:c:
xehpg-group: the mock did not open window c
XEHPG-VM-STATUS=c:window
XEHPG-VM-WINDOW=begin:d:
not ok 1 - cut short
";
        let parts = split_output(text);
        assert_eq!(parts["a"].output, "TAP version 13\nok 1 - one\n");
        assert_eq!(parts["a"].end, Some(End::Exited(0)));
        assert_eq!(parts["b"].end, Some(End::Killed));
        assert_eq!(parts["c"].end, Some(End::NoWindow));
        assert_eq!(parts["d"].end, None);
        assert_eq!(parts["d"].output, "not ok 1 - cut short\n");
        assert!(!parts.contains_key("e"));
    }

    #[test]
    fn console_parts_run_from_marker_to_marker_and_the_first_owns_the_boot() {
        let text = "[0.1] booting\n[5.0] xehpg-group: begin a\n[5.1] xehpg: bound\n\
                    [9.0] xehpg-group: begin b\n[9.5] WARNING: CPU: 0 at x\n";
        let parts = split_console(text);
        assert_eq!(
            parts["a"],
            "[0.1] booting\n[5.0] xehpg-group: begin a\n[5.1] xehpg: bound\n"
        );
        assert!(!spoils_the_boot(&parts["a"]));
        assert!(spoils_the_boot(&parts["b"]));
    }

    #[test]
    fn the_leak_scan_is_found_and_kept_apart() {
        let text = "[5.0] xehpg-group: begin a\n[6.0] ok\n[9.0] xehpg-group: leak scan\n\
                    [15.0] kmemleak-report: unreferenced object 0xffff8880 (size 64):\n\
                    [15.1] debug-epilogue: done\n";
        let scan = leak_scan_part(text).unwrap();
        assert!(scan.starts_with("[9.0] xehpg-group: leak scan\n"));
        assert!(spoils_the_boot(&scan), "a leak is a detector report");
        let parts = split_console(text);
        assert_eq!(
            before_leak_scan(&parts["a"]),
            "[5.0] xehpg-group: begin a\n[6.0] ok\n"
        );
        assert!(leak_scan_part("[1.0] no scan\n").is_none());
    }
}
