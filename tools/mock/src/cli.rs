//! Command-line options of `xehpg-mock`.
//!
//! Parsing is done by clap; [`Options::try_parse_args`] adds the checks that
//! span several options, so the binary and the tests share one entry point.

use std::fmt;
use std::path::PathBuf;
use std::sync::LazyLock;

use clap::builder::PossibleValue;
use clap::error::ErrorKind;
use clap::CommandFactory;
use clap::Parser;
use clap::ValueEnum;

use crate::ids;
use crate::power::Domain;
use crate::regfile::guc::WopcmLock;
use crate::regfile::intc;
use crate::regfile::intc::Source;
use crate::regfile::mcr;
use crate::regfile::Fuses;
use crate::regfile::SqidiPart;

/// A fault the device can be told to exhibit (`--fault NAME`, repeatable).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fault {
    /// Every BAR0 register read returns 0xFFFFFFFF and writes are dropped, as
    /// for a device that fell off the bus.
    AllOnes,
    /// `GU_CNTL.LMEM_INIT` never sets.
    LmemNeverInit,
    /// PCODE never reports `DGFX_INIT_STATUS_COMPLETE`.
    PcodeNeverInit,
    /// PCODE never completes a mailbox command (READY stays set).
    PcodeStuck,
    /// The `DGFX_PCODE_STATUS` init-status command completes with error 0x3
    /// (`PCODE_ILLEGAL_DATA`).
    PcodeInitError,
    /// The forcewake acknowledge never comes: `fw-ack-never` for every
    /// domain, `fw-ack-never=D` for domain D only.
    FwAckNever(Option<Domain>),
    /// `fw-ack-dead=D`: domain D's acknowledge register reads 0xFFFFFFFF, as
    /// a device that stopped answering for that register would.
    FwAckDead(Domain),
    /// The GuC DMA never completes: START_DMA stays 1.
    GucDmaNeverCompletes,
    /// The GuC boot stops at UKERNEL GUCINT_DONE.
    GucBootStall,
    /// The GuC takes an exception during boot (UKERNEL EXCEPTION, EIP in
    /// SOFT_SCRATCH(13)).
    GucBootError,
    /// The GuC boot ROM rejects every signature.
    GucRsaReject,
    /// The GuC never answers MMIO requests.
    GucMmioNoReply,
    /// The GuC answers every MMIO request NO_RESPONSE_BUSY first.
    GucMmioBusy,
    /// The GuC answers the first MMIO request after each boot
    /// NO_RESPONSE_RETRY.
    GucMmioRetry,
    /// The hwconfig table's last entry claims more dwords than remain.
    GucHwconfigCorrupt,
    /// Once the GuC is READY, a `GDRST` GuC reset never completes.
    GucResetStuckAfterLoad,
    /// Every `GDRST` GuC reset never completes.
    GucResetStuck,
    /// Writes to the write-once WOPCM registers are dropped: LOCKED / VALID
    /// never set.
    GucWopcmNoLatch,
    /// The GuC answers every MMIO request with a GuC-origin EVENT header.
    GucMmioBogusReply,
    /// The GuC answers every `HOST2GUC_CONTROL_CTB` enable FAILURE
    /// `INVALID_PARAMS`.
    CtEnableRefused,
    /// The GuC answers every `HOST2GUC_SELF_CFG` SUCCESS with DATA0 0 (key
    /// not recognised).
    CtSelfCfgUnknown,
    /// The GuC consumes every CT request and never answers it.
    CtNoResponse,
    /// An interrupt selection never sets DataValid: the identity reads 0.
    IrqDataValidNever,
    /// Identities carry the reserved class 7 and instance 63.
    IrqIdentityGarbage,
    /// `irq-storm=SOURCE`: that source re-fires the moment its identity is
    /// cleared, until the driver masks it.
    IrqStorm(Source),
    /// Every GuC reset through `GDRST` raises the GuC's GuC-to-host and
    /// RCS0's user interrupt.
    IrqOnGucReset,
}

/// Names of `irq-storm=SOURCE`, in the order of [`intc::SOURCE_NAMES`].
const IRQ_STORM_NAMES: [&str; intc::SOURCE_NAMES.len()] = [
    "irq-storm=rcs0",
    "irq-storm=bcs0",
    "irq-storm=ccs0",
    "irq-storm=ccs1",
    "irq-storm=ccs2",
    "irq-storm=ccs3",
    "irq-storm=guc",
    "irq-storm=kcr",
    "irq-storm=gsc",
    "irq-storm=vcs0",
    "irq-storm=vcs1",
    "irq-storm=vcs2",
    "irq-storm=vcs3",
    "irq-storm=vcs4",
    "irq-storm=vcs5",
    "irq-storm=vcs6",
    "irq-storm=vcs7",
    "irq-storm=vecs0",
    "irq-storm=vecs1",
    "irq-storm=vecs2",
    "irq-storm=vecs3",
];

/// Names of `fw-ack-never=D`, by [`Domain::index`].
const FW_ACK_NEVER_NAMES: [&str; Domain::COUNT] = [
    "fw-ack-never=gt",
    "fw-ack-never=render",
    "fw-ack-never=vdbox0",
    "fw-ack-never=vdbox1",
    "fw-ack-never=vdbox2",
    "fw-ack-never=vdbox3",
    "fw-ack-never=vdbox4",
    "fw-ack-never=vdbox5",
    "fw-ack-never=vdbox6",
    "fw-ack-never=vdbox7",
    "fw-ack-never=vebox0",
    "fw-ack-never=vebox1",
    "fw-ack-never=vebox2",
    "fw-ack-never=vebox3",
];

/// Names of `fw-ack-dead=D`, by [`Domain::index`].
const FW_ACK_DEAD_NAMES: [&str; Domain::COUNT] = [
    "fw-ack-dead=gt",
    "fw-ack-dead=render",
    "fw-ack-dead=vdbox0",
    "fw-ack-dead=vdbox1",
    "fw-ack-dead=vdbox2",
    "fw-ack-dead=vdbox3",
    "fw-ack-dead=vdbox4",
    "fw-ack-dead=vdbox5",
    "fw-ack-dead=vdbox6",
    "fw-ack-dead=vdbox7",
    "fw-ack-dead=vebox0",
    "fw-ack-dead=vebox1",
    "fw-ack-dead=vebox2",
    "fw-ack-dead=vebox3",
];

/// Every fault switch, for clap.
static ALL_FAULTS: LazyLock<Vec<Fault>> = LazyLock::new(|| {
    let mut v = vec![
        Fault::AllOnes,
        Fault::LmemNeverInit,
        Fault::PcodeNeverInit,
        Fault::PcodeStuck,
        Fault::PcodeInitError,
        Fault::FwAckNever(None),
        Fault::GucDmaNeverCompletes,
        Fault::GucBootStall,
        Fault::GucBootError,
        Fault::GucRsaReject,
        Fault::GucMmioNoReply,
        Fault::GucMmioBusy,
        Fault::GucMmioRetry,
        Fault::GucHwconfigCorrupt,
        Fault::GucResetStuckAfterLoad,
        Fault::GucResetStuck,
        Fault::GucWopcmNoLatch,
        Fault::GucMmioBogusReply,
        Fault::CtEnableRefused,
        Fault::CtSelfCfgUnknown,
        Fault::CtNoResponse,
        Fault::IrqDataValidNever,
        Fault::IrqIdentityGarbage,
        Fault::IrqOnGucReset,
    ];
    v.extend(Domain::all().map(|d| Fault::FwAckNever(Some(d))));
    v.extend(Domain::all().map(Fault::FwAckDead));
    v.extend(Source::all().map(Fault::IrqStorm));
    v
});

impl Fault {
    /// The switch's command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Fault::AllOnes => "all-ones",
            Fault::LmemNeverInit => "lmem-never-init",
            Fault::PcodeNeverInit => "pcode-never-init",
            Fault::PcodeStuck => "pcode-stuck",
            Fault::PcodeInitError => "pcode-init-error",
            Fault::FwAckNever(None) => "fw-ack-never",
            Fault::FwAckNever(Some(d)) => FW_ACK_NEVER_NAMES[d.index()],
            Fault::FwAckDead(d) => FW_ACK_DEAD_NAMES[d.index()],
            Fault::GucDmaNeverCompletes => "guc-dma-never-completes",
            Fault::GucBootStall => "guc-boot-stall",
            Fault::GucBootError => "guc-boot-error",
            Fault::GucRsaReject => "guc-rsa-reject",
            Fault::GucMmioNoReply => "guc-mmio-no-reply",
            Fault::GucMmioBusy => "guc-mmio-busy",
            Fault::GucMmioRetry => "guc-mmio-retry",
            Fault::GucHwconfigCorrupt => "guc-hwconfig-corrupt",
            Fault::GucResetStuckAfterLoad => "guc-reset-stuck-after-load",
            Fault::GucResetStuck => "guc-reset-stuck",
            Fault::GucWopcmNoLatch => "guc-wopcm-no-latch",
            Fault::GucMmioBogusReply => "guc-mmio-bogus-reply",
            Fault::CtEnableRefused => "ct-enable-refused",
            Fault::CtSelfCfgUnknown => "ct-self-cfg-unknown",
            Fault::CtNoResponse => "ct-no-response",
            Fault::IrqDataValidNever => "irq-data-valid-never",
            Fault::IrqIdentityGarbage => "irq-identity-garbage",
            Fault::IrqStorm(src) => src.index().map_or("irq-storm=?", |i| IRQ_STORM_NAMES[i]),
            Fault::IrqOnGucReset => "irq-on-guc-reset",
        }
    }
}

impl ValueEnum for Fault {
    fn value_variants<'a>() -> &'a [Self] {
        ALL_FAULTS.as_slice()
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        let pv = PossibleValue::new(self.name());
        Some(match self {
            Fault::AllOnes => pv.help("every register read returns 0xFFFFFFFF, writes are dropped"),
            Fault::LmemNeverInit => pv.help("GU_CNTL.LMEM_INIT never sets"),
            Fault::PcodeNeverInit => pv.help("PCODE never reports init complete"),
            Fault::PcodeStuck => pv.help("PCODE_MAILBOX.READY never clears"),
            Fault::PcodeInitError => {
                pv.help("the PCODE init-status command fails with error 0x3 (illegal data)")
            }
            Fault::FwAckNever(None) => pv.help(
                "no forcewake acknowledge ever; fw-ack-never=DOMAIN for one domain \
                 (gt, render, vdbox0-7, vebox0-3)",
            ),
            // Keep --help short: the per-domain forms are described above.
            Fault::FwAckNever(Some(_)) => pv.hide(true),
            // One visible entry describes the family.
            Fault::FwAckDead(Domain::GT) => pv.help(
                "fw-ack-dead=DOMAIN (gt, render, vdbox0-7, vebox0-3): that domain's \
                 acknowledge register reads 0xFFFFFFFF",
            ),
            Fault::FwAckDead(_) => pv.hide(true),
            Fault::GucDmaNeverCompletes => pv.help("GuC DMA_CTRL.START_DMA never clears"),
            Fault::GucBootStall => pv.help("the GuC boot stops at UKERNEL GUCINT_DONE"),
            Fault::GucBootError => {
                pv.help("the GuC boot ends in UKERNEL EXCEPTION, EIP in SOFT_SCRATCH(13)")
            }
            Fault::GucRsaReject => pv.help("the GuC boot ROM rejects every RSA signature"),
            Fault::GucMmioNoReply => pv.help("the GuC never answers MMIO requests"),
            Fault::GucMmioBusy => {
                pv.help("GuC MMIO replies are NO_RESPONSE_BUSY first, final 5 ms later")
            }
            Fault::GucMmioRetry => {
                pv.help("the first GuC MMIO request after each boot gets NO_RESPONSE_RETRY")
            }
            Fault::GucHwconfigCorrupt => {
                pv.help("the hwconfig table's last entry runs past its end")
            }
            Fault::GucResetStuckAfterLoad => {
                pv.help("once the GuC is READY, a GDRST GuC reset never completes")
            }
            Fault::GucResetStuck => pv.help("no GDRST GuC reset ever completes"),
            Fault::GucWopcmNoLatch => {
                pv.help("GuC WOPCM register writes are dropped, LOCKED / VALID never set")
            }
            Fault::GucMmioBogusReply => {
                pv.help("the GuC answers MMIO requests with an EVENT header (0x90000001)")
            }
            Fault::CtEnableRefused => {
                pv.help("the GuC answers every CONTROL_CTB enable FAILURE INVALID_PARAMS")
            }
            Fault::CtSelfCfgUnknown => {
                pv.help("the GuC answers every SELF_CFG SUCCESS with DATA0 0 (unknown key)")
            }
            Fault::CtNoResponse => {
                pv.help("the GuC consumes every CT request from H2G and never answers it")
            }
            Fault::IrqDataValidNever => {
                pv.help("an interrupt selection never sets DataValid; the identity reads 0")
            }
            Fault::IrqIdentityGarbage => {
                pv.help("interrupt identities name class 7 instance 63, with the real data")
            }
            // One visible entry describes the family.
            Fault::IrqStorm(src) if *src == Source::GUC => pv.help(
                "irq-storm=SOURCE (rcs0 bcs0 ccs0-3 vcs0-7 vecs0-3 guc kcr gsc): the source \
                 re-fires the moment its identity is cleared, until masked",
            ),
            Fault::IrqStorm(_) => pv.hide(true),
            Fault::IrqOnGucReset => {
                pv.help("every GDRST GuC reset raises the GuC's GUC2HOST and RCS0's user interrupt")
            }
        })
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A fuse preset (`--fuses NAME`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FusePreset {
    /// A full ATS-M150: 32 DSS, 4 quadrants, VDBOX 0/2, VEBOX 0/1.
    #[value(name = "ats-m150")]
    AtsM150,
    /// A partly fused G11-like part: only quadrant 1 (DSS 8-15, meml3 bit
    /// 1), VDBOX 0, VEBOX 0; DSS (0,0) and L3BANK 0 are absent.
    #[value(name = "g11-partial")]
    G11Partial,
}

impl FusePreset {
    /// The preset's fuse values.
    pub const fn fuses(self) -> Fuses {
        match self {
            FusePreset::AtsM150 => Fuses::ATS_M150,
            FusePreset::G11Partial => Fuses::G11_PARTIAL,
        }
    }
}

/// Largest BAR0 the mock models: one tile's GTTMMADR (`regs/xe_bars.h`, `xe_mmio.c`; seed 000 L139).
pub const BAR0_MAX_MIB: u32 = 16;

/// Options of one mock instance.
#[derive(Debug, Clone, Parser)]
#[command(
    name = "xehpg-mock",
    args_override_self = true,
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

    /// Time from the last device reset during which another agent's PCODE
    /// command holds the mailbox (PCODE_MAILBOX reads READY set).
    #[arg(long, value_name = "MS", default_value_t = 0)]
    pub pcode_busy_ms: u64,

    /// Present as a virtual function (VF_CAP_REG.VF_CAP = 1).
    #[arg(long)]
    pub vf: bool,

    /// Time from a forcewake request change until the acknowledge follows.
    #[arg(long, value_name = "US", default_value_t = 20)]
    pub fw_ack_delay_us: u64,

    /// Fuse preset; --fuse-* options override single values.
    #[arg(long = "fuses", value_name = "PRESET", default_value = "ats-m150")]
    pub fuse_preset: FusePreset,

    /// Geometry DSS enable mask (XELP_GT_GEOMETRY_DSS_ENABLE, hex).
    #[arg(long, value_name = "HEX", value_parser = parse_hex32)]
    pub fuse_dss_g: Option<u32>,

    /// Compute DSS enable mask (XEHP_GT_COMPUTE_DSS_ENABLE, hex).
    #[arg(long, value_name = "HEX", value_parser = parse_hex32)]
    pub fuse_dss_c: Option<u32>,

    /// Memory/L3 quadrant enable mask, 4 bits (MIRROR_FUSE3, hex).
    #[arg(long, value_name = "HEX", value_parser = parse_meml3)]
    pub fuse_meml3: Option<u32>,

    /// Raw GT_VEBOX_VDBOX_DISABLE (hex): present VDBOXes in 7:0, VEBOXes in 19:16.
    #[arg(long, value_name = "HEX", value_parser = parse_hex32)]
    pub fuse_media: Option<u32>,

    /// Which SQIDI instances exist (seed 000 line 740), a part no register
    /// reflects [default: the preset's].
    #[arg(long, value_name = "PART")]
    pub sqidi_part: Option<SqidiPart>,

    /// GAM_MCR_SELECTOR's sliceid after reset: 0 as the seed gives every
    /// steering register (seed 000 line 731), 1 as upstream xe says the
    /// hardware does; the primary GAM is 1 either way.
    #[arg(long, value_name = "SLICE", default_value_t = mcr::GAM_RESET_SLICE_SEED,
          value_parser = clap::value_parser!(u32).range(0..=1))]
    pub gam_reset_slice: u32,

    /// The GuC firmware file uploads must match (byte for byte, RSA key
    /// included); without it any consistent image is accepted.
    #[arg(long, value_name = "FILE")]
    pub guc_fw: Option<PathBuf>,

    /// Time the GuC uKernel takes from START to READY.
    #[arg(long, value_name = "MS", default_value_t = 20)]
    pub guc_boot_ms: u64,

    /// GuC WOPCM base and size (hex) the write-once WOPCM registers hold,
    /// LOCKED / VALID, from every reset on: as if firmware or an earlier
    /// driver had locked them. BASE a multiple of 16 KiB, SIZE of 4 KiB.
    #[arg(long, value_name = "BASE,SIZE", value_parser = parse_wopcm)]
    pub wopcm_prelocked: Option<WopcmLock>,

    /// The GuC answers the hwconfig size query (GET_HWCONFIG with size 0)
    /// SUCCESS with this many bytes instead of the table's size (hex or
    /// decimal, up to 0x0FFFFFFF, the reply's DATA0 field).
    #[arg(long, value_name = "BYTES", value_parser = parse_hxg_data0)]
    pub guc_hwconfig_size_reply: Option<u32>,

    /// No MSI capability in config space: the guest falls back to INTx (pin
    /// A), which the device signals through QEMU's INTx eventfd.
    #[arg(long)]
    pub no_msi: bool,

    /// Arm a fault switch (repeatable).
    #[arg(long = "fault", value_name = "NAME")]
    pub faults: Vec<Fault>,

    /// Test-control FIFO, created by the caller (xehpg-vm does): one request
    /// per line, `irq:SOURCE:DATA:COUNT`, `gt-error:SEV:BITS`,
    /// `spurious-msi`, `surprise-removal`, `ct:...`, `g2h:...`
    /// (Documentation/mock.rst).
    #[arg(long, value_name = "FIFO")]
    pub control: Option<PathBuf>,

    /// With `--control`: after each control line is carried out (or
    /// refused), write the number of lines handled so far to FILE (replaced
    /// whole), so the caller knows when a request has taken effect.
    #[arg(long, value_name = "FILE", requires = "control")]
    pub control_ack: Option<PathBuf>,

    /// Also serve VF N (1..=63) as a PCI function of its own on the Unix
    /// socket PATH (`N:PATH`, repeatable), for a second VM's
    /// `vfio-user-pci`: the VF's config space, its BAR0 (VF registers and
    /// its GGTT view) and its BAR2 (its local memory through the LMTT)
    /// (Documentation/mock.rst, "A VF for a second VM").
    #[arg(long = "vf-socket", value_name = "N:PATH", value_parser = parse_vf_socket)]
    pub vf_sockets: Vec<(u32, PathBuf)>,

    /// Write a JSON-lines trace of every access and device event here.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,

    /// Write the JSON counter summary here (atomically, periodically and at exit).
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,

    /// The command line these options were parsed from (program name
    /// first), which a test window's options start from.
    #[arg(skip)]
    pub command_line: Vec<std::ffi::OsString>,
}

/// What QEMU and the guest's PCI core learn once, when the device is
/// attached and enumerated (config space identity, BAR sizes, MSI, the
/// memory behind the BARs, the firmware file QEMU's guest loads): a test
/// window ([`Options::for_window`]) cannot change it, only a new attach can.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    device_id: u16,
    foreign_id: bool,
    revision: u8,
    subsystem_vendor_id: u16,
    subsystem_id: u16,
    bar0_size_mib: u32,
    lmem_bar_mib: u32,
    lmem_size_gib: u16,
    vf: bool,
    no_msi: bool,
    guc_fw: Option<PathBuf>,
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
        let args: Vec<std::ffi::OsString> = args.into_iter().map(Into::into).collect();
        let mut opts = Self::try_parse_from(&args)?;
        opts.command_line = args;
        opts.check()
            .map_err(|msg| Self::command().error(ErrorKind::ValueValidation, msg))?;
        Ok(opts)
    }

    /// Options for tests and embedding: defaults with the given socket.
    pub fn with_socket(socket: impl Into<PathBuf>) -> Self {
        let socket: PathBuf = socket.into();
        let command_line = vec![
            "xehpg-mock".into(),
            "--socket".into(),
            socket.clone().into_os_string(),
        ];
        Self {
            socket,
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
            pcode_busy_ms: 0,
            vf: false,
            fw_ack_delay_us: 20,
            fuse_preset: FusePreset::AtsM150,
            fuse_dss_g: None,
            fuse_dss_c: None,
            fuse_meml3: None,
            fuse_media: None,
            sqidi_part: None,
            gam_reset_slice: mcr::GAM_RESET_SLICE_SEED,
            guc_fw: None,
            guc_boot_ms: 20,
            wopcm_prelocked: None,
            guc_hwconfig_size_reply: None,
            no_msi: false,
            faults: Vec::new(),
            control: None,
            control_ack: None,
            vf_sockets: Vec::new(),
            trace: None,
            summary: None,
            command_line,
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
        // The model has one stormy source.
        let storms = self
            .faults
            .iter()
            .filter(|f| matches!(f, Fault::IrqStorm(_)))
            .count();
        if storms > 1 {
            return Err("only one --fault irq-storm=SOURCE at a time".into());
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

    /// Domains whose forcewake acknowledge never comes, as a bit per
    /// [`Domain::index`].
    pub fn fw_ack_never(&self) -> u16 {
        self.faults.iter().fold(0, |m, f| match f {
            Fault::FwAckNever(None) => u16::MAX,
            Fault::FwAckNever(Some(d)) => m | 1 << d.index(),
            _ => m,
        })
    }

    /// The interrupt controller's fault switches.
    pub fn intc_faults(&self) -> intc::IntcFaults {
        intc::IntcFaults {
            data_valid_never: self.has_fault(Fault::IrqDataValidNever),
            identity_garbage: self.has_fault(Fault::IrqIdentityGarbage),
            storm: self.faults.iter().find_map(|f| match f {
                Fault::IrqStorm(src) => Some(*src),
                _ => None,
            }),
        }
    }

    /// Domains whose forcewake acknowledge register reads all ones, as a
    /// bit per [`Domain::index`].
    pub fn fw_ack_dead(&self) -> u16 {
        self.faults.iter().fold(0, |m, f| match f {
            Fault::FwAckDead(d) => m | 1 << d.index(),
            _ => m,
        })
    }

    /// The fuses: the preset, with the explicit `--fuse-*` and
    /// `--sqidi-part` values on top.
    pub fn fuses(&self) -> Fuses {
        let p = self.fuse_preset.fuses();
        Fuses {
            dss_g: self.fuse_dss_g.unwrap_or(p.dss_g),
            dss_c: self.fuse_dss_c.unwrap_or(p.dss_c),
            meml3: self.fuse_meml3.unwrap_or(p.meml3),
            media: self.fuse_media.unwrap_or(p.media),
            sqidi: self.sqidi_part.unwrap_or(p.sqidi),
        }
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

    /// The part of these options fixed at attach time.
    pub fn attachment(&self) -> Attachment {
        Attachment {
            device_id: self.device_id,
            foreign_id: self.foreign_id,
            revision: self.revision,
            subsystem_vendor_id: self.subsystem_vendor_id,
            subsystem_id: self.subsystem_id(),
            bar0_size_mib: self.bar0_size_mib,
            lmem_bar_mib: self.lmem_bar_mib,
            lmem_size_gib: self.lmem_size_gib,
            vf: self.vf,
            no_msi: self.no_msi,
            guc_fw: self.guc_fw.clone(),
        }
    }

    /// The options of a test window (`window-begin`, [`crate::control`]):
    /// these options with `args` (mock options, no program name) applied on
    /// top, an option given there replacing this one's value. The result
    /// passes the same checks as a command line, and must keep the
    /// [`Attachment`]: the guest enumerated the device once.
    ///
    /// # Errors
    ///
    /// `args` do not parse or check, or change the attachment.
    pub fn for_window(&self, args: &[String]) -> Result<Self, String> {
        // The command line again with `args` after it: a later single-valued
        // option overrides (`args_override_self`), a repeatable one adds.
        let argv = self
            .command_line
            .iter()
            .cloned()
            .chain(args.iter().map(std::ffi::OsString::from));
        let mut opts = Self::try_parse_args(argv).map_err(|e| e.to_string().trim().to_string())?;
        // The process's wiring is not a window's to change.
        opts.socket.clone_from(&self.socket);
        opts.control.clone_from(&self.control);
        opts.control_ack.clone_from(&self.control_ack);
        opts.vf_sockets.clone_from(&self.vf_sockets);
        opts.trace.clone_from(&self.trace);
        opts.summary.clone_from(&self.summary);
        opts.command_line.clone_from(&self.command_line);
        if opts.attachment() != self.attachment() {
            return Err(format!(
                "`{}` changes what the guest saw at attach time (device ID, revision, \
                 BARs, MSI, VF, local memory, firmware file): that needs a new VM",
                args.join(" ")
            ));
        }
        Ok(opts)
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

/// A 32-bit fuse value, always hex (`0x` optional).
fn parse_hex32(s: &str) -> Result<u32, String> {
    let hex = s.trim().trim_start_matches("0x").trim_start_matches("0X");
    u32::from_str_radix(hex, 16).map_err(|e| format!("`{s}` is not a 32-bit hex value: {e}"))
}

/// `--wopcm-prelocked BASE,SIZE`: two hex values (`0x` optional) that the
/// registers' fields can hold: `DMA_GUC_WOPCM_OFFSET.offset` is bits 31:14
/// (a multiple of 16 KiB), `GUC_WOPCM_SIZE.size` bits 31:12 (of 4 KiB).
fn parse_wopcm(s: &str) -> Result<WopcmLock, String> {
    let (base, size) = s
        .split_once(',')
        .ok_or_else(|| format!("`{s}` is not BASE,SIZE"))?;
    let (base, size) = (parse_hex32(base)?, parse_hex32(size)?);
    if base & !crate::regs::guc::WOPCM_OFFSET.mask32() != 0 {
        return Err(format!("WOPCM base {base:#x} is not a multiple of 16 KiB"));
    }
    if size & !crate::regs::guc::WOPCM_SIZE.mask32() != 0 {
        return Err(format!("WOPCM size {size:#x} is not a multiple of 4 KiB"));
    }
    Ok(WopcmLock { base, size })
}

/// A GuC reply's DATA0: 28 bits (`abi::hxg::AUX`).
fn parse_hxg_data0(s: &str) -> Result<u32, String> {
    let v = parse_int(s)?;
    u32::try_from(v)
        .ok()
        .filter(|v| v & !crate::abi::hxg::AUX == 0)
        .ok_or_else(|| format!("{v:#x} does not fit a GuC reply's 28-bit DATA0"))
}

/// The meml3 mask: 4 bits (`fuse_meml3_en[3:0]`, seed 000 line 754).
fn parse_meml3(s: &str) -> Result<u32, String> {
    let v = parse_hex32(s)?;
    if v > 0xF {
        return Err(format!("{v:#x} does not fit meml3_en[3:0]"));
    }
    Ok(v)
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
        assert_eq!(o.fw_ack_delay_us, 20);
        assert_eq!(o.fuses(), Fuses::ATS_M150);
        assert_eq!(o.gam_reset_slice, 0, "seed 000 line 731");
        assert_eq!(o.fw_ack_never(), 0);
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
            "--fw-ack-delay-us",
            "5",
            "--fuses",
            "g11-partial",
            "--fuse-dss-c",
            "ff",
            "--fuse-meml3",
            "0x3",
            "--sqidi-part",
            "alchemist-256",
            "--gam-reset-slice",
            "1",
            "--fault",
            "fw-ack-never=render",
            "--fault",
            "pcode-stuck",
            "--fault",
            "all-ones",
            "--guc-fw",
            "/fw/guc.bin",
            "--guc-boot-ms",
            "7",
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
        assert_eq!(o.fw_ack_delay_us, 5);
        assert_eq!(o.gam_reset_slice, 1);
        assert_eq!(
            o.fuses(),
            Fuses {
                dss_g: 0xFF00,
                dss_c: 0xFF,
                meml3: 0x3,
                media: 0x0001_0001,
                sqidi: SqidiPart::Alchemist256,
            }
        );
        assert_eq!(
            o.faults,
            vec![
                Fault::FwAckNever(Some(Domain::RENDER)),
                Fault::PcodeStuck,
                Fault::AllOnes
            ]
        );
        assert_eq!(o.fw_ack_never(), 1 << Domain::RENDER.index());
        assert!(o.has_fault(Fault::AllOnes) && !o.has_fault(Fault::LmemNeverInit));
        assert_eq!(o.trace, Some(PathBuf::from("/tmp/t.jsonl")));
        assert_eq!(o.summary, Some(PathBuf::from("/tmp/s.json")));
        assert_eq!(o.guc_fw, Some(PathBuf::from("/fw/guc.bin")));
        assert_eq!(o.guc_boot_ms, 7);
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
            let o = parse(&["--fault", f.name()]).expect("every name parses");
            assert_eq!(o.faults, vec![*f]);
        }
        assert_eq!(
            Fault::value_variants().len(),
            24 + 2 * Domain::COUNT + intc::SOURCE_NAMES.len()
        );
    }

    #[test]
    fn irq_faults_and_the_control_fifo() {
        let o = parse(&[
            "--fault",
            "irq-storm=vecs2",
            "--fault",
            "irq-on-guc-reset",
            "--control",
            "/tmp/ctl",
            "--control-ack",
            "/tmp/ctl-ack",
        ])
        .expect("parses");
        assert_eq!(
            o.intc_faults(),
            intc::IntcFaults {
                storm: Source::from_name("vecs2"),
                ..intc::IntcFaults::default()
            }
        );
        assert!(o.has_fault(Fault::IrqOnGucReset));
        assert_eq!(o.control, Some(PathBuf::from("/tmp/ctl")));
        assert_eq!(o.control_ack, Some(PathBuf::from("/tmp/ctl-ack")));
        for (i, name) in intc::SOURCE_NAMES.iter().enumerate() {
            assert_eq!(IRQ_STORM_NAMES[i], format!("irq-storm={name}"));
        }
        let e = parse(&["--fault", "irq-storm=guc", "--fault", "irq-storm=rcs0"])
            .expect_err("one storm");
        assert_eq!(e.kind(), ErrorKind::ValueValidation);
        for bad in [
            "irq-storm",
            "irq-storm=sctrg",
            "irq-storm=GUC",
            "irq-storm=vcs8",
        ] {
            assert!(parse(&["--fault", bad]).is_err(), "{bad}");
        }
    }

    #[test]
    fn hwconfig_size_reply_is_a_28_bit_data0() {
        assert_eq!(parse(&[]).expect("parses").guc_hwconfig_size_reply, None);
        for (arg, want) in [
            ("0x12345", 0x12345),
            ("100", 100),
            ("0xFFFFFFF", 0x0FFF_FFFF),
        ] {
            let o = parse(&["--guc-hwconfig-size-reply", arg]).expect("parses");
            assert_eq!(o.guc_hwconfig_size_reply, Some(want), "{arg}");
        }
        for bad in ["0x10000000", "-1", "lots"] {
            assert!(parse(&["--guc-hwconfig-size-reply", bad]).is_err(), "{bad}");
        }
    }

    #[test]
    fn fw_ack_never_covers_all_or_one_domain() {
        let o = parse(&["--fault", "fw-ack-never"]).expect("parses");
        assert_eq!(o.fw_ack_never(), u16::MAX);
        let o = parse(&[
            "--fault",
            "fw-ack-never=vebox3",
            "--fault",
            "fw-ack-never=gt",
        ])
        .expect("parses");
        assert_eq!(
            o.fw_ack_never(),
            1 << Domain::GT.index() | 1 << Domain::vebox(3).map_or(0, Domain::index)
        );
        assert!(parse(&["--fault", "fw-ack-never=vebox4"]).is_err());
    }

    #[test]
    fn fw_ack_dead_names_one_domain() {
        let o = parse(&[
            "--fault",
            "fw-ack-dead=render",
            "--fault",
            "fw-ack-dead=vdbox7",
            "--fault",
            "fw-ack-never=gt",
        ])
        .expect("parses");
        assert_eq!(
            o.fw_ack_dead(),
            1 << Domain::RENDER.index() | 1 << Domain::vdbox(7).map_or(0, Domain::index)
        );
        assert_eq!(o.fw_ack_never(), 1 << Domain::GT.index());
        assert_eq!(parse(&[]).expect("parses").fw_ack_dead(), 0);
        for bad in ["fw-ack-dead", "fw-ack-dead=vebox4", "fw-ack-dead=RENDER"] {
            assert!(parse(&["--fault", bad]).is_err(), "{bad}");
        }
    }

    #[test]
    fn wopcm_prelocked_is_base_comma_size_in_hex() {
        let o = parse(&["--wopcm-prelocked", "0x4000,0x3f3000"]).expect("parses");
        assert_eq!(
            o.wopcm_prelocked,
            Some(WopcmLock {
                base: 0x4000,
                size: 0x3F_3000
            })
        );
        let o = parse(&["--wopcm-prelocked=c000,10000"]).expect("0x is optional");
        assert_eq!(
            o.wopcm_prelocked,
            Some(WopcmLock {
                base: 0xC000,
                size: 0x1_0000
            })
        );
        assert_eq!(parse(&[]).expect("parses").wopcm_prelocked, None);
        for bad in [
            "0x4000",
            "0x4000,",
            "0x4000,0x3f3000,1",
            "0x2000,0x10000",
            "0x4000,0x10800",
            "0x1_0000_0000,0x1000",
            "zz,0x1000",
        ] {
            let e = parse(&["--wopcm-prelocked", bad]).expect_err(bad);
            assert_eq!(e.kind(), ErrorKind::ValueValidation, "{bad}");
        }
    }

    #[test]
    fn fuse_options_override_the_preset() {
        let o = parse(&["--fuses", "g11-partial"]).expect("parses");
        assert_eq!(o.fuses(), Fuses::G11_PARTIAL);
        let o = parse(&["--fuse-media", "0x00010003", "--fuse-dss-g", "0"]).expect("parses");
        assert_eq!(
            o.fuses(),
            Fuses {
                dss_g: 0,
                media: 0x0001_0003,
                ..Fuses::ATS_M150
            }
        );
    }

    /// The SQIDI part is its own option: the DSS fuses do not change it, the
    /// preset gives the default.
    #[test]
    fn sqidi_part_is_independent_of_the_dss_fuses() {
        let o = parse(&["--fuse-dss-g", "ff", "--fuse-dss-c", "0"]).expect("parses");
        assert_eq!(o.fuses().sqidi, SqidiPart::Alchemist512);
        let o = parse(&["--fuses", "g11-partial"]).expect("parses");
        assert_eq!(o.fuses().sqidi, SqidiPart::Alchemist128);
        for part in SqidiPart::ALL {
            for preset in ["ats-m150", "g11-partial"] {
                let o = parse(&["--fuses", preset, "--sqidi-part", part.name()]).expect("parses");
                assert_eq!(o.fuses().sqidi, part, "{preset}");
            }
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
            &["--fuses", "g12"],
            &["--fuse-meml3", "0x10"],
            &["--fuse-dss-g", "1_0000_0000"],
            &["--fuse-dss-c", "zz"],
            &["--fw-ack-delay-us", "-1"],
            &["--sqidi-part", "alchemist-384"],
            &["--sqidi-part", "512"],
            &["--gam-reset-slice", "2"],
            &["--gam-reset-slice", "-1"],
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

/// `--vf-socket N:PATH`: a VF number 1..=63 and a socket path.
fn parse_vf_socket(s: &str) -> Result<(u32, PathBuf), String> {
    let (n, path) = s
        .split_once(':')
        .ok_or_else(|| format!("{s:?}: expected N:PATH"))?;
    let vf: u32 = n.parse().map_err(|_| format!("{n:?}: not a VF number"))?;
    if !(1..=63).contains(&vf) {
        return Err(format!("VF {vf} is not in 1..=63"));
    }
    if path.is_empty() {
        return Err(format!("{s:?}: empty socket path"));
    }
    Ok((vf, PathBuf::from(path)))
}

#[cfg(test)]
mod vf_socket_tests {
    use super::*;

    #[test]
    fn vf_sockets_parse_and_refuse() {
        assert_eq!(
            parse_vf_socket("1:/tmp/vf1.sock"),
            Ok((1, PathBuf::from("/tmp/vf1.sock")))
        );
        assert_eq!(parse_vf_socket("63:a:b"), Ok((63, PathBuf::from("a:b"))));
        for bad in ["0:/x", "64:/x", "x:/x", "1:", "/x"] {
            assert!(parse_vf_socket(bad).is_err(), "{bad}");
        }
    }
}
