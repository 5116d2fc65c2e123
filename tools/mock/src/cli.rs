//! Command-line options of `xehpg-mock`.
//!
//! Parsing is done by clap; [`Options::try_parse_args`] adds the checks that
//! span several options, so the binary and the tests share one entry point.

use std::fmt;
use std::path::PathBuf;

use clap::error::ErrorKind;
use clap::CommandFactory;
use clap::Parser;
use clap::ValueEnum;

use crate::ids;

/// A fault the device can be told to exhibit (`--fault NAME`, repeatable).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ValueEnum)]
pub enum Fault {
    /// Every BAR0 register read returns 0xFFFFFFFF and writes are dropped, as
    /// for a device that fell off the bus.
    #[value(name = "all-ones")]
    AllOnes,
    /// `GU_CNTL.LMEM_INIT` never sets.
    #[value(name = "lmem-never-init")]
    LmemNeverInit,
    /// PCODE never reports `DGFX_INIT_STATUS_COMPLETE`.
    #[value(name = "pcode-never-init")]
    PcodeNeverInit,
    /// PCODE never completes a mailbox command (READY stays set).
    #[value(name = "pcode-stuck")]
    PcodeStuck,
}

impl Fault {
    /// The switch's command-line name.
    pub const fn name(self) -> &'static str {
        match self {
            Fault::AllOnes => "all-ones",
            Fault::LmemNeverInit => "lmem-never-init",
            Fault::PcodeNeverInit => "pcode-never-init",
            Fault::PcodeStuck => "pcode-stuck",
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Largest BAR0 the mock models: one tile's GTTMMADR (`research/anchor-xe.md` §1.4).
pub const BAR0_MAX_MIB: u32 = 16;

/// Options of one mock instance.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "xehpg-mock",
    version,
    about = "vfio-user model of an Intel Xe-HPG GPU (DG2 / ATS-M) for QEMU's vfio-user-pci"
)]
pub struct Options {
    /// Unix socket to listen on; QEMU connects with `-device vfio-user-pci`.
    #[arg(long, value_name = "PATH")]
    pub socket: PathBuf,

    /// PCI device ID (hex); any DG2 or ATS-M ID from pciids.h.
    #[arg(long, value_name = "ID", default_value = "0x56C0", value_parser = parse_device_id)]
    pub device_id: u16,

    /// Accept a device ID that is not a DG2/ATS-M ID (it presents as a DG2-class
    /// VGA function): a device the driver must leave alone.
    #[arg(long)]
    pub foreign_id: bool,

    /// PCI revision ID (hex or decimal); xe derives the stepping from it.
    #[arg(long, value_name = "REV", default_value = "0x08", value_parser = parse_u8)]
    pub revision: u8,

    /// Subsystem vendor ID (hex or decimal).
    #[arg(long, value_name = "ID", default_value = "0x8086", value_parser = parse_u16)]
    pub subsystem_vendor_id: u16,

    /// Subsystem ID (hex or decimal) [default: the device ID].
    #[arg(long, value_name = "ID", value_parser = parse_u16)]
    pub subsystem_id: Option<u16>,

    /// Size of BAR0 (GTTMMADR) in MiB: a power of two up to 16. Below 16 the
    /// GGTT window at +8 MiB is missing (for fault tests).
    #[arg(long, value_name = "MIB", default_value_t = BAR0_MAX_MIB, value_parser = parse_bar0_mib)]
    pub bar0_size_mib: u32,

    /// Size of BAR2 (LMEMBAR) in MiB: a power of two.
    #[arg(long, value_name = "MIB", default_value_t = 256, value_parser = parse_pow2)]
    pub lmem_bar_mib: u32,

    /// Local memory size in GiB that the registers report (1..=1023).
    #[arg(long, value_name = "GIB", default_value_t = 16,
          value_parser = clap::value_parser!(u16).range(1..=1023))]
    pub lmem_size_gib: u16,

    /// Time from the last device reset until GU_CNTL.LMEM_INIT reads 1
    /// (QEMU resets the device when the VM starts).
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub lmem_init_delay_ms: u64,

    /// Time from the last device reset until PCODE reports init complete
    /// (QEMU resets the device when the VM starts).
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub pcode_init_delay_ms: u64,

    /// Present as a virtual function (VF_CAP_REG.VF_CAP = 1).
    #[arg(long)]
    pub vf: bool,

    /// Arm a fault switch (repeatable).
    #[arg(long = "fault", value_name = "NAME")]
    pub faults: Vec<Fault>,

    /// Write a JSON-lines trace of every access and device event here.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,

    /// Write the JSON counter summary here (atomically, periodically and at exit).
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,
}

impl Options {
    /// Parses `args` (including the program name) and checks cross-option rules.
    ///
    /// # Errors
    ///
    /// A clap error (usage, help or version) that the caller prints or exits with.
    pub fn try_parse_args<I, T>(args: I) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let opts = Self::try_parse_from(args)?;
        opts.check()
            .map_err(|msg| Self::command().error(ErrorKind::ValueValidation, msg))?;
        Ok(opts)
    }

    /// Options for tests and embedding: defaults with the given socket.
    pub fn with_socket(socket: impl Into<PathBuf>) -> Self {
        Self {
            socket: socket.into(),
            device_id: 0x56C0,
            foreign_id: false,
            revision: 0x08,
            subsystem_vendor_id: ids::VENDOR_INTEL,
            subsystem_id: None,
            bar0_size_mib: BAR0_MAX_MIB,
            lmem_bar_mib: 256,
            lmem_size_gib: 16,
            lmem_init_delay_ms: 0,
            pcode_init_delay_ms: 0,
            vf: false,
            faults: Vec::new(),
            trace: None,
            summary: None,
        }
    }

    /// Rules that involve more than one option.
    fn check(&self) -> Result<(), String> {
        if !self.foreign_id && ids::lookup(self.device_id).is_none() {
            return Err(format!(
                "{:#06x} is not a DG2 or ATS-M device ID (include/drm/intel/pciids.h); \
                 --foreign-id presents it anyway",
                self.device_id
            ));
        }
        // LMEMBAR is a window onto local memory, so it cannot be larger.
        if u64::from(self.lmem_bar_mib) > u64::from(self.lmem_size_gib) * 1024 {
            return Err(format!(
                "--lmem-bar-mib {} exceeds --lmem-size-gib {} (the BAR is a window onto local memory)",
                self.lmem_bar_mib, self.lmem_size_gib
            ));
        }
        Ok(())
    }

    /// Whether fault `f` is armed.
    pub fn has_fault(&self, f: Fault) -> bool {
        self.faults.contains(&f)
    }

    /// Subsystem ID, defaulting to the device ID.
    pub fn subsystem_id(&self) -> u16 {
        self.subsystem_id.unwrap_or(self.device_id)
    }

    /// Size of BAR0 in bytes.
    pub fn bar0_size(&self) -> u64 {
        u64::from(self.bar0_size_mib) << 20
    }

    /// Size of BAR2 in bytes.
    pub fn lmem_bar_size(&self) -> u64 {
        u64::from(self.lmem_bar_mib) << 20
    }

    /// Local memory size in bytes.
    pub fn lmem_size(&self) -> u64 {
        u64::from(self.lmem_size_gib) << 30
    }
}

/// Parses an integer written in hex (`0x` prefix) or decimal.
fn parse_int(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => s.parse::<u64>(),
    };
    parsed.map_err(|e| format!("`{s}` is not a number: {e}"))
}

fn parse_u8(s: &str) -> Result<u8, String> {
    let v = parse_int(s)?;
    u8::try_from(v).map_err(|_| format!("{v:#x} does not fit in 8 bits"))
}

fn parse_u16(s: &str) -> Result<u16, String> {
    let v = parse_int(s)?;
    u16::try_from(v).map_err(|_| format!("{v:#x} does not fit in 16 bits"))
}

/// A device ID is always hex (as in `lspci -n`), with or without `0x`.
fn parse_device_id(s: &str) -> Result<u16, String> {
    let hex = s.trim().trim_start_matches("0x").trim_start_matches("0X");
    u16::from_str_radix(hex, 16).map_err(|e| format!("`{s}` is not a hex ID: {e}"))
}

fn parse_pow2(s: &str) -> Result<u32, String> {
    let v = parse_int(s)?;
    let v = u32::try_from(v).map_err(|_| format!("{v} is too large"))?;
    if !v.is_power_of_two() {
        return Err(format!("{v} is not a power of two"));
    }
    Ok(v)
}

fn parse_bar0_mib(s: &str) -> Result<u32, String> {
    let v = parse_pow2(s)?;
    if v > BAR0_MAX_MIB {
        return Err(format!(
            "{v} MiB is larger than one tile's {BAR0_MAX_MIB} MiB"
        ));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(extra: &[&str]) -> Result<Options, clap::Error> {
        let mut args = vec!["xehpg-mock", "--socket", "/tmp/s"];
        args.extend_from_slice(extra);
        Options::try_parse_args(args)
    }

    #[test]
    fn defaults() {
        let o = parse(&[]).expect("defaults parse");
        assert_eq!(o.socket, PathBuf::from("/tmp/s"));
        assert_eq!(o.device_id, 0x56C0);
        assert_eq!(o.revision, 0x08);
        assert_eq!(o.subsystem_vendor_id, 0x8086);
        assert_eq!(o.subsystem_id(), 0x56C0);
        assert_eq!(o.bar0_size(), 16 << 20);
        assert_eq!(o.lmem_bar_size(), 256 << 20);
        assert_eq!(o.lmem_size(), 16 << 30);
        assert_eq!((o.lmem_init_delay_ms, o.pcode_init_delay_ms), (0, 0));
        assert!(!o.vf);
        assert!(o.faults.is_empty());
        assert!(o.trace.is_none() && o.summary.is_none());
        // The test constructor must agree with the CLI defaults.
        let w = Options::with_socket("/tmp/s");
        assert_eq!(format!("{w:?}"), format!("{o:?}"));
    }

    #[test]
    fn foreign_ids_need_the_switch() {
        let err = parse(&["--device-id", "56ff"]).expect_err("0x56ff is in no pciids.h list");
        assert!(err.to_string().contains("--foreign-id"), "{err}");
        let o = parse(&["--device-id", "56ff", "--foreign-id"]).expect("accepted with the switch");
        assert_eq!(o.device_id, 0x56FF);
    }

    #[test]
    fn every_option_parses() {
        let o = parse(&[
            "--device-id",
            "56a0",
            "--revision",
            "4",
            "--subsystem-vendor-id",
            "0x1234",
            "--subsystem-id",
            "0xabcd",
            "--bar0-size-mib",
            "4",
            "--lmem-bar-mib",
            "512",
            "--lmem-size-gib",
            "8",
            "--lmem-init-delay-ms",
            "150",
            "--pcode-init-delay-ms",
            "70",
            "--vf",
            "--fault",
            "pcode-stuck",
            "--fault",
            "all-ones",
            "--trace",
            "/tmp/t.jsonl",
            "--summary",
            "/tmp/s.json",
        ])
        .expect("parses");
        assert_eq!(o.device_id, 0x56A0);
        assert_eq!(o.revision, 4);
        assert_eq!((o.subsystem_vendor_id, o.subsystem_id()), (0x1234, 0xABCD));
        assert_eq!(o.bar0_size(), 4 << 20);
        assert_eq!(o.lmem_bar_size(), 512 << 20);
        assert_eq!(o.lmem_size_gib, 8);
        assert_eq!((o.lmem_init_delay_ms, o.pcode_init_delay_ms), (150, 70));
        assert!(o.vf);
        assert_eq!(o.faults, vec![Fault::PcodeStuck, Fault::AllOnes]);
        assert!(o.has_fault(Fault::AllOnes) && !o.has_fault(Fault::LmemNeverInit));
        assert_eq!(o.trace, Some(PathBuf::from("/tmp/t.jsonl")));
        assert_eq!(o.summary, Some(PathBuf::from("/tmp/s.json")));
    }

    #[test]
    fn socket_is_required() {
        let e = Options::try_parse_args(["xehpg-mock"]).expect_err("must fail");
        assert_eq!(e.kind(), ErrorKind::MissingRequiredArgument);
    }

    #[test]
    fn unknown_fault_is_a_startup_error() {
        let e = parse(&["--fault", "melt"]).expect_err("must fail");
        assert_eq!(e.kind(), ErrorKind::InvalidValue);
    }

    #[test]
    fn fault_names_match_clap_names() {
        for f in Fault::value_variants() {
            let pv = f.to_possible_value().expect("no skipped variants");
            assert_eq!(pv.get_name(), f.name());
            assert_eq!(f.to_string(), f.name());
        }
    }

    #[test]
    fn bad_values_are_rejected() {
        for bad in [
            &["--device-id", "1234"][..],
            &["--device-id", "zz"],
            &["--revision", "0x100"],
            &["--bar0-size-mib", "32"],
            &["--bar0-size-mib", "3"],
            &["--lmem-bar-mib", "300"],
            &["--lmem-size-gib", "0"],
            &["--lmem-size-gib", "1024"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn lmem_bar_cannot_exceed_lmem() {
        let e = parse(&["--lmem-size-gib", "1", "--lmem-bar-mib", "2048"]).expect_err("fails");
        assert_eq!(e.kind(), ErrorKind::ValueValidation);
        assert!(parse(&["--lmem-size-gib", "1", "--lmem-bar-mib", "1024"]).is_ok());
    }
}
