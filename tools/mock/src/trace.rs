//! The JSON-lines trace: one line per MMIO access and per device event.
//!
//! Every line is an object `{"seq":N,"t_us":T,"ev":"<kind>",...}`: `seq`
//! counts events from 0, `t_us` is microseconds since the mock started (the
//! device clock), and the remaining keys depend on `ev` (see [`Event`]).
//! Numbers that are addresses, offsets or register values are hex strings
//! (`"0x101010"`) so they read like the PRM; counts and sizes are JSON
//! numbers.
//!
//! The writer flushes after every line. Measured on the project machine that
//! costs about 0.3 us per event against 0.06 us buffered, which is small next
//! to a trapped access (1.9 us write, 35 us read; ENVIRONMENT.md), and it
//! keeps the trace complete even if the mock is killed.

use std::fs::File;
use std::io;
use std::io::BufWriter;
use std::io::Write;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use serde::Serialize;
use serde::Serializer;

/// A number written as a lower-case hex string with `0x` prefix.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(try_from = "String")]
pub struct Hex(pub u64);

/// Reads back what [`Hex`]'s `Serialize` writes (the test harness reads the
/// summary with the mock's own types).
impl TryFrom<String> for Hex {
    type Error = String;

    fn try_from(text: String) -> Result<Self, String> {
        text.strip_prefix("0x")
            .and_then(|digits| u64::from_str_radix(digits, 16).ok())
            .map(Hex)
            .ok_or_else(|| format!("expected a 0x-prefixed hex number, got {text:?}"))
    }
}

impl Serialize for Hex {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{:#x}", self.0))
    }
}

/// Direction of an access.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// A read.
    Read,
    /// A write.
    Write,
}

impl Op {
    /// "read" or "write".
    pub const fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
        }
    }
}

/// Serialises the registers an access touched: `null` for none (unknown
/// offset), the name for one, names joined with `+` for an access spanning
/// several (e.g. a 64-bit read of two 32-bit registers).
fn ser_regs<S: Serializer>(regs: &[&'static str], s: S) -> Result<S::Ok, S::Error> {
    match regs {
        [] => s.serialize_none(),
        [one] => s.serialize_str(one),
        many => s.serialize_str(&many.join("+")),
    }
}

/// Leaves a count of 0 out of a trace line.
fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// One MMIO access as the trace records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mmio {
    /// BAR index (0 = GTTMMADR, 2 = LMEMBAR).
    pub bar: u32,
    /// Byte offset in the BAR.
    pub offset: Hex,
    /// Access size in bytes.
    pub size: usize,
    /// Value read or written (little-endian); absent above 8 bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Hex>,
    /// Registers touched; see `ser_regs`.
    #[serde(serialize_with = "ser_regs")]
    pub reg: Vec<&'static str>,
    /// Memory window hit by a trapped access ("ggtt", "lmem"); absent for
    /// the register range.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub area: Option<&'static str>,
    /// Set when the access had no effect on the device (e.g. the all-ones
    /// fault drops writes).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dropped: bool,
}

/// A GuC WOPCM partition, bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct WopcmBounds {
    /// Base (`DMA_GUC_WOPCM_OFFSET`).
    pub base: Hex,
    /// Size (`GUC_WOPCM_SIZE`).
    pub size: Hex,
}

/// Where the GuC's CT buffers are, as latched by a `CONTROL_CTB` enable:
/// GGTT addresses and ring sizes in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CtLayout {
    /// H2G descriptor.
    pub h2g_desc: Hex,
    /// H2G ring.
    pub h2g: Hex,
    /// H2G ring size.
    pub h2g_size: u64,
    /// G2H descriptor.
    pub g2h_desc: Hex,
    /// G2H ring.
    pub g2h: Hex,
    /// G2H ring size.
    pub g2h_size: u64,
}

/// Everything the device reports. `ev` in the JSON is the snake-case variant name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "ev", rename_all = "snake_case")]
pub enum Event {
    /// The mock is up: its identity and sizes.
    Start {
        /// PCI device ID.
        device_id: Hex,
        /// "DG2" or "ATS-M".
        family: &'static str,
        /// PCI revision.
        revision: Hex,
        /// BAR0 size in bytes.
        bar0_size: Hex,
        /// BAR2 size in bytes.
        lmem_bar_size: Hex,
        /// Local memory size the registers report, in bytes.
        lmem_size: Hex,
        /// Whether the function presents as a VF.
        vf: bool,
        /// `XELP_GT_GEOMETRY_DSS_ENABLE`.
        fuse_dss_g: Hex,
        /// `XEHP_GT_COMPUTE_DSS_ENABLE`.
        fuse_dss_c: Hex,
        /// `MIRROR_FUSE3` meml3 bits.
        fuse_meml3: Hex,
        /// `GT_VEBOX_VDBOX_DISABLE`.
        fuse_media: Hex,
        /// `--sqidi-part`: the part whose SQIDI instances exist.
        sqidi_part: &'static str,
        /// `--gam-reset-slice`: `GAM_MCR_SELECTOR`'s sliceid after reset.
        gam_reset_slice: u32,
        /// Forcewake acknowledge delay in microseconds.
        fw_ack_delay_us: u64,
        /// `--wopcm-prelocked`: the WOPCM base and size latched at reset;
        /// absent without the option.
        #[serde(skip_serializing_if = "Option::is_none")]
        wopcm_prelocked: Option<WopcmBounds>,
        /// The engines the fuses leave: their command streamers exist
        /// ([`crate::regfile::engine`]).
        engines: Vec<&'static str>,
        /// Bus Master Enable (PCI Command register bit 2) as the record
        /// starts: clear at power-on; a test window starts with what the
        /// guest left in the Command register.
        bus_master: bool,
    },
    /// A `--fault` switch is active.
    FaultArmed {
        /// The switch's name.
        name: &'static str,
    },
    /// A BAR read reached the mock.
    MmioRead(Mmio),
    /// A BAR write reached the mock.
    MmioWrite(Mmio),
    /// A dword of the register range with no register behind it.
    UnknownAccess {
        /// Direction.
        op: Op,
        /// BAR index.
        bar: u32,
        /// Dword-aligned offset.
        offset: Hex,
    },
    /// The guest driver broke a hardware rule.
    Violation {
        /// Stable machine-readable kind (see the summary's `violation_kinds`).
        kind: &'static str,
        /// Human-readable context.
        detail: String,
    },
    /// A config-space write.
    ConfigWrite {
        /// Byte offset.
        offset: Hex,
        /// Size in bytes.
        size: usize,
        /// Value written (little-endian, first 8 bytes).
        value: Hex,
    },
    /// Bus Master Enable (PCI Command register bit 2; PCI Local Bus Spec /
    /// PCIe Base Spec, Command register) changed. Emitted only on a change.
    /// While it is clear the function issues no memory requests: the mock's
    /// DMA to guest RAM is refused (`dma_without_bus_master` violations).
    BusMaster {
        /// The new state.
        on: bool,
        /// "config_write" (the host wrote the Command register) or the
        /// cause of the reset that returned it to 0 ("pcie_flr",
        /// "vfio_user", as in [`Event::Reset`]).
        cause: &'static str,
    },
    /// QEMU mapped guest RAM for DMA.
    DmaMap {
        /// Guest (IO virtual) address.
        iova: Hex,
        /// Size in bytes.
        size: Hex,
        /// Offset into the file QEMU sent.
        file_offset: Hex,
        /// Device may read.
        read: bool,
        /// Device may write.
        write: bool,
        /// Whether a file descriptor came with it.
        fd: bool,
    },
    /// QEMU unmapped guest RAM.
    DmaUnmap {
        /// Guest address.
        iova: Hex,
        /// Size in bytes.
        size: Hex,
        /// The UNMAP_ALL flag was set.
        all: bool,
        /// Mappings removed.
        removed: usize,
    },
    /// QEMU (re)wired interrupt eventfds.
    SetIrqs {
        /// IRQ index (0 INTx, 1 MSI).
        index: u32,
        /// VFIO_IRQ_SET_* flags.
        flags: Hex,
        /// First vector.
        start: u32,
        /// Vector count.
        count: u32,
        /// File descriptors received.
        fds: usize,
    },
    /// An interrupt was delivered.
    Irq {
        /// IRQ index (1 = MSI).
        index: u32,
        /// Vector.
        vector: u32,
    },
    /// An interrupt could not be delivered.
    IrqDropped {
        /// IRQ index.
        index: u32,
        /// Vector.
        vector: u32,
        /// Why: "not_configured", "masked", "eventfd_write_failed".
        reason: &'static str,
    },
    /// An event reached an interrupt source of the GT interrupt
    /// controller (`regfile::intc`).
    IrqRaise {
        /// Source name (`guc`, `rcs0`, `vcs3`, ...).
        source: &'static str,
        /// The event's 16 bits.
        data: Hex,
        /// "forwarded" (to the GT DW), "pending" (masked, waits in the
        /// collapsing register) or "dropped_disabled" (no enabled bit).
        outcome: &'static str,
    },
    /// A selection presented an identity with DataValid.
    IrqIdentity {
        /// GT DW bank.
        bank: usize,
        /// The source selected.
        source: &'static str,
        /// `INTR_IDENTITY_REG` value.
        identity: Hex,
    },
    /// The interrupt controller generated an MSI (sent as `irq` or, without
    /// an eventfd, `irq_dropped`).
    IntcMsi,
    /// Software finished an interrupt reset: the late window opened
    /// (`regfile::intc::Intc::late_window_open`).
    IrqDisarmed,
    /// A handler-path interrupt register was accessed inside the late
    /// window.
    IrqAccessAfterDisarm {
        /// Read or write.
        op: Op,
        /// BAR0 offset.
        offset: Hex,
    },
    /// GT error bits were set.
    GtError {
        /// "correctable", "nonfatal" or "fatal".
        severity: &'static str,
        /// Bits of `ERR_STAT_GT_REG(severity)`.
        bits: Hex,
    },
    /// A test asked for an MSI with nothing pending.
    SpuriousMsi,
    /// A test-control request arrived (`--control`).
    Control {
        /// The request as written (`irq:guc:8000:1`).
        request: String,
    },
    /// Paced test events that could no longer be delivered (a device reset
    /// or surprise removal came first).
    IrqInjectionsAbandoned {
        /// Source name.
        source: &'static str,
        /// Events never raised.
        events: u64,
    },
    /// The function was reset.
    Reset {
        /// "vfio_user" (QEMU's device reset) or "pcie_flr" (config-space FLR).
        cause: &'static str,
    },
    /// A phase of the Driver-FLR handshake ("start", "teardown_done", "complete").
    DriverFlr {
        /// Phase name.
        phase: &'static str,
    },
    /// A PCODE mailbox command was executed.
    Pcode {
        /// Command byte.
        command: Hex,
        /// Param1 byte.
        param1: Hex,
        /// Param2 byte.
        param2: Hex,
        /// Error code returned in the mailbox's low byte.
        error: Hex,
        /// Reply in PCODE_DATA0.
        data0: Hex,
        /// Reply in PCODE_DATA1.
        data1: Hex,
    },
    /// `PCODE_MAILBOX` was read while another agent's command held READY
    /// (`--pcode-busy-ms`): the host saw the mailbox busy.
    PcodeBusy {
        /// The word the read returned.
        mailbox: Hex,
    },
    /// A forcewake request register was written (also without effect).
    FwRequest {
        /// Domain name (`gt`, `render`, `vdbox0`, ...).
        domain: &'static str,
        /// Value written, mask bits included.
        value: Hex,
    },
    /// A forcewake acknowledge changed; traced at the next register access.
    FwAck {
        /// Domain name.
        domain: &'static str,
        /// The new acknowledge: true = awake.
        awake: bool,
        /// When the change happened, in microseconds (the line's `t_us` is
        /// when it was noticed).
        at_us: u64,
    },
    /// A steering selector was written.
    Steer {
        /// Selector register name (`MCR_SELECTOR`, ...).
        selector: &'static str,
        /// The multicast bit.
        multicast: bool,
        /// sliceid.
        slice: u32,
        /// subsliceid.
        subslice: u32,
    },
    /// The GuC was reset through `GDRST` (a device reset or Driver-FLR
    /// resets it too, traced as `reset` / `driver_flr`).
    GucReset {
        /// "grdom_guc" or "grdom_full".
        cause: &'static str,
    },
    /// `GDRST.GRDOM_FULL` reset the GT's programmable state
    /// ([`crate::regfile::RegisterFile`]): the tuning registers and the
    /// replicated registers' storage back to reset values (the engines and
    /// the GuC trace their own resets).
    GtFullReset {
        /// Tuning registers (`RCU_MODE`, `CCS_MODE`, ...) that were not at
        /// their reset value.
        tuning_lost: u64,
        /// Replicated registers (PAT, MOCS, chicken bits, ...) with an
        /// instance not at its reset value.
        mcr_lost: u64,
    },
    /// A boot took the GuC log's configuration (`GUC_CTL_LOG_PARAMS`,
    /// `GUC_CTL_DEBUG`; [`crate::regfile::guc::log`]).
    GucLogConfig {
        /// GGTT address of the buffer.
        buf: Hex,
        /// Upstream's log level: 0 off, 1 non-verbose, 2..5 verbose.
        level: u32,
        /// Verbosity 0..3 (0 below level 2).
        verbosity: u32,
        /// `NOTIFY_ON_HALF_FULL`.
        notify: bool,
        /// Debug (event) section, bytes.
        debug_size: u64,
        /// Crash dump section, bytes.
        crash_size: u64,
        /// Error state capture section, bytes.
        capture_size: u64,
    },
    /// The GuC wrote log entries into the debug section.
    GucLogWrite {
        /// Entries written.
        entries: u64,
        /// `write_ptr` after them.
        write_ptr: u64,
        /// Wraps since the boot.
        wraps: u64,
    },
    /// The GuC's log section reached half full: `flush_to_file` set and
    /// the notification sent (`g2h`) or lost for want of a CT
    /// (`no_channel`).
    GucLogNotify {
        /// `sampled_write_ptr`.
        sampled_write_ptr: u64,
        /// Bytes not acknowledged.
        unread: u64,
        /// "g2h" or "no_channel".
        sent: &'static str,
    },
    /// The host acknowledged a log flush (cleared `flush_to_file`).
    GucLogAck {
        /// The `read_ptr` it wrote.
        read_ptr: u64,
        /// The `sampled_write_ptr` the GuC had set (the next one if it
        /// notified again at once).
        sampled_write_ptr: u64,
    },
    /// The GuC's log overwrote entries the host had not acknowledged.
    GucLogOverflow {
        /// Overflows counted by this write.
        count: u64,
        /// `buffer_full_cnt` now (4 bits).
        buffer_full_cnt: u32,
    },
    /// `guc:crash:1` / `guc:exception:1`: the GuC wrote its crash record,
    /// posted the event and stopped.
    GucCrash {
        /// "crash_dump" or "exception".
        kind: &'static str,
        /// `GUC_STATUS` before.
        status: Hex,
        /// The EIP reported (0 for a crash dump).
        eip: Hex,
        /// Log entries in the record.
        entries: u32,
        /// "g2h" (CT EVENT) or "soft_scratch15" (no CT).
        posted: &'static str,
    },
    /// A `guc:log-burst`, `guc:crash` or `guc:exception` request.
    GucLogInject {
        /// The request.
        request: String,
        /// "done", or why nothing happened ("not_running", "guc_hung",
        /// "no_log", "log_off").
        result: &'static str,
    },
    /// `guc:hang:1`: the GuC's uKernel is stuck, or a GuC reset freed it.
    GucHang {
        /// "hung" (the request), "already_hung" (the request, while
        /// hung), "cleared" (a GuC or device reset).
        action: &'static str,
    },
    /// The GuC's engine reset failed (`engine:reset-fails`): the GuC sent
    /// `ENGINE_FAILURE_NOTIFICATION` and schedules nothing more on the
    /// engine until a GuC reset.
    GucEngineFailure {
        /// The engine.
        engine: &'static str,
        /// The context that was running on it (no
        /// `CONTEXT_RESET_NOTIFICATION` for it).
        guc_id: u32,
        /// Payload: the GuC class, the physical instance, the reason.
        guc_class: u32,
        /// Physical instance.
        instance: u32,
        /// Reason code.
        reason: Hex,
    },
    /// A `GDRST` GuC reset that never completes (faults `guc-reset-stuck`,
    /// `guc-reset-stuck-after-load`): the bit stays set, the GuC keeps its
    /// state.
    GucResetStuck {
        /// "grdom_guc" or "grdom_full".
        cause: &'static str,
    },
    /// START_DMA was written: the transfer as programmed, before the
    /// engine's checks.
    GucDma {
        /// Source address.
        src: Hex,
        /// Destination address.
        dst: Hex,
        /// Bytes.
        size: u64,
        /// Source address space: "ggtt", "wopcm" or "other".
        space: &'static str,
        /// Destination address space, same names.
        dst_space: &'static str,
        /// `UOS_MOVE` was set: the copy is the uKernel.
        uos_move: bool,
    },
    /// An accepted GuC DMA completed (START_DMA cleared).
    GucDmaDone {
        /// Bytes copied.
        bytes: u64,
        /// When it completed, in microseconds.
        at_us: u64,
    },
    /// `GUC_STATUS` changed.
    GucStatus {
        /// The whole register.
        value: Hex,
        /// UKERNEL (15:8).
        ukernel: Hex,
        /// BOOTROM (7:1).
        bootrom: Hex,
        /// AUTH (31:30).
        auth: Hex,
        /// When it changed, in microseconds.
        at_us: u64,
    },
    /// The boot ROM authenticated an uploaded image.
    GucLoaded {
        /// Release from the CSS header ("70.53.0").
        release: String,
        /// Submission interface version ("1.26.0").
        submission: String,
        /// SHA-256 of the copied bytes (header + uCode), lower-case hex.
        sha256: String,
        /// Bytes copied.
        bytes: u64,
    },
    /// The GuC read its ADS and boot words ([`crate::regfile::guc::ads`]).
    GucAds {
        /// What it read.
        ads: crate::summary::AdsSummary,
    },
    /// A GuC engine reset: registers restored from the ADS save/restore
    /// list, and the engine's registers lost (back to their reset value).
    GucEngineRestore {
        /// Engine.
        engine: &'static str,
        /// Registers restored (those of the list the mock models).
        restored: u64,
        /// Registers put back to their reset value.
        lost: Vec<&'static str>,
    },
    /// A context's watchdog expired (`engine/cs.rs`, "The watchdog").
    EngineWatchdog {
        /// Engine.
        engine: &'static str,
        /// Whose context (not written for the PF's).
        #[serde(skip_serializing_if = "is_pf")]
        vf: u32,
        /// The context's SW ID.
        ctx: Hex,
        /// `PR_CTR_THRSH`.
        threshold: u32,
        /// `resumed` (the GuC reset the engine and resumed the context) or
        /// `raised` (the interrupt, under the host's execlists).
        outcome: &'static str,
    },
    /// An interrupt of a VF's context, reported through memory
    /// (`engine.rs`, "Memory-based interrupts").
    EngineMemirq {
        /// Engine.
        engine: &'static str,
        /// The VF.
        vf: u32,
        /// The event bits enabled (0 when none was).
        bits: Hex,
        /// The enable mask the context loaded.
        enable: Hex,
        /// `reported`, or `dropped` (masked off, or no report pointers).
        outcome: &'static str,
    },
    /// A Load the engine could not run (no progress).
    EngineBlocked {
        /// Engine.
        engine: &'static str,
        /// Descriptor's LRCA.
        lrca: Hex,
        /// Why: `legacy_mode`, `no_hws_pga`, `ccs_disabled`.
        reason: &'static str,
    },
    /// The GuC took an MMIO request.
    GucH2g {
        /// ACTION (15:0).
        action: Hex,
        /// `VF_SW_FLAG` registers written since the last doorbell (highest
        /// index + 1).
        len: usize,
    },
    /// An MMIO reply became visible in `VF_SW_FLAG(0..3)`.
    GucG2hReply {
        /// "success", "failure", "busy", "retry" or "event" (fault
        /// `guc-mmio-bogus-reply`).
        #[serde(rename = "type")]
        kind: &'static str,
        /// DATA0 (success) or ERROR (failure); 0 otherwise.
        data0: Hex,
        /// When it became visible, in microseconds.
        at_us: u64,
    },
    /// A unicast write to a replicated register reached one live instance.
    McrUnicastWrite {
        /// Register name.
        reg: &'static str,
        /// Selector slice field the write was steered with.
        slice: u32,
        /// Selector subslice field.
        subslice: u32,
        /// The value stored.
        value: Hex,
    },
    /// `GET_HWCONFIG` copied the table into the driver's buffer.
    GucHwconfig {
        /// Bytes copied.
        bytes: u64,
        /// SHA-256 of the bytes, lower-case hex.
        sha256: String,
    },
    /// `GUC_TLB_INV_CR` dropped the GuC's GGTT translations.
    GgttTlbInvalidate {
        /// Translations dropped.
        entries: usize,
    },
    /// A `HOST2GUC_SELF_CFG` KLV reached the GuC.
    GucCtSelfCfg {
        /// KLV key.
        key: Hex,
        /// KLV length in dwords.
        len: u32,
        /// The value (dword 3 included only for length 2).
        value: Hex,
        /// "taken" (DATA0 1), "unknown" (DATA0 0: an unknown key, or fault
        /// `ct-self-cfg-unknown`) or "rejected" (FAILURE).
        result: &'static str,
    },
    /// A `HOST2GUC_CONTROL_CTB` request reached the GuC.
    GucCtControl {
        /// The control dword (0 disable, 1 enable).
        control: Hex,
        /// "enabled", "disabled", "already_disabled" (SUCCESS), "refused"
        /// (fault `ct-enable-refused`) or "rejected" (FAILURE).
        result: &'static str,
        /// The layout latched, for "enabled".
        #[serde(skip_serializing_if = "Option::is_none")]
        layout: Option<CtLayout>,
    },
    /// The GuC read a request from the H2G ring.
    GucCtH2g {
        /// Whose CT: 0 the PF's, `n` VF `n`'s (not written for the PF).
        #[serde(skip_serializing_if = "is_pf")]
        vf: u32,
        /// CTB fence.
        fence: u32,
        /// HXG ACTION.
        action: Hex,
        /// HXG dwords.
        len: u32,
        /// "request", "fast_request" or (a VF's CT) "event".
        kind: &'static str,
        /// "success", "failure" (a reply was due), "none" (a FAST_REQUEST
        /// that succeeded), "busy" (served later), "retry" or "unanswered"
        /// (a `ct:no-response` switch or the `ct-no-response` fault).
        reply: &'static str,
    },
    /// The GuC wrote a message into the G2H ring.
    GucCtG2h {
        /// Whose CT, as [`Event::GucCtH2g`]'s.
        #[serde(skip_serializing_if = "is_pf")]
        vf: u32,
        /// CTB fence.
        fence: u32,
        /// Dwords written, the CTB header included.
        len: u32,
        /// The HXG type: "success", "failure", "busy", "retry", "event".
        hxg: &'static str,
        /// G2H messages still waiting for room after this one.
        pending: u64,
    },
    /// A `ct:` switch fired on a request read from H2G.
    GucCtFault {
        /// "no-response", "busy", "retry" or "failure".
        fault: &'static str,
        /// The request's CTB fence.
        fence: u32,
        /// Its HXG ACTION.
        action: Hex,
        /// Requests the switches will still fault.
        armed_left: u64,
    },
    /// A request answered BUSY was served, its time come.
    GucCtBusyServed {
        /// The request's CTB fence.
        fence: u32,
        /// Its HXG ACTION.
        action: Hex,
        /// "success", "failure" or "dropped" (the CT was gone).
        reply: &'static str,
    },
    /// A `ct:` / `g2h:` test-control request reached the CT engine.
    GucCtInject {
        /// The request as written.
        request: String,
        /// "armed" (a switch), "done" (descriptor damage or the disable),
        /// "queued" (G2H messages; written as room allows) or "no_channel"
        /// (the CT is not enabled: nothing happened).
        result: &'static str,
        /// Requests the switches will still fault.
        armed_left: u64,
        /// G2H messages waiting for room.
        pending: u64,
    },
    /// `UPDATE_SCHEDULING_POLICIES_KLV` was served.
    GucCtPolicy {
        /// KLVs in the message.
        klvs: u32,
        /// KLVs applied (SUCCESS DATA0).
        applied: u32,
        /// RENDER_COMPUTE_YIELD quantum (ms), if the message set it.
        #[serde(skip_serializing_if = "Option::is_none")]
        yield_ms: Option<u32>,
        /// RENDER_COMPUTE_YIELD ratio (percent), if the message set it.
        #[serde(skip_serializing_if = "Option::is_none")]
        yield_ratio: Option<u32>,
        /// "applied" or "rejected" (FAILURE, nothing applied).
        result: &'static str,
    },
    /// A CT request for an action the mock's GuC does not serve: answered
    /// `UNKNOWN_ACTION`, as firmware that lacks the action would.
    GucCtUnknownAction {
        /// The action code.
        action: Hex,
    },
    /// An SLPC request (`HOST2GUC_PC_SLPC_REQUEST`) was served.
    GucSlpc {
        /// The event (`slpc_event_id`), by name.
        event: &'static str,
        /// "done" or "refused".
        result: &'static str,
    },
    /// `OPT_IN_FEATURE_KLV` was served.
    GucCtOptIn {
        /// GGTT address of the KLVs.
        addr: Hex,
        /// Their dwords.
        num_dwords: u32,
        /// KLVs accepted (SUCCESS DATA0).
        accepted: u32,
        /// Distinct features opted in since the last GuC reset.
        opted_in: u32,
        /// "applied" or "rejected" (FAILURE, nothing recorded).
        result: &'static str,
    },
    /// A KLV of a served action with a key the GuC does not know: skipped.
    GucCtKlvSkipped {
        /// The action.
        action: Hex,
        /// KLV key.
        key: Hex,
        /// KLV length in dwords.
        len: u32,
    },
    /// A GuC submission message was served
    /// ([`crate::regfile::guc::ct::submit`]).
    GucSubmit {
        /// The VF whose CT sent it (not written for the PF).
        #[serde(skip_serializing_if = "is_pf")]
        vf: u32,
        /// "register", "policies", "mode_set", "sched", "deregister",
        /// "allocate_doorbell", "deallocate_doorbell".
        action: &'static str,
        /// The message's guc_id, if it has one.
        #[serde(skip_serializing_if = "Option::is_none")]
        guc_id: Option<u32>,
        /// `SCHED_CONTEXT_MODE_SET`'s state.
        #[serde(skip_serializing_if = "Option::is_none")]
        state: Option<u32>,
        /// "ok", "refused" (FAILURE, a `guc_submit_bad` violation),
        /// "refused_switch" (`guc:refuse-register`,
        /// `guc:refuse-doorbell`), "ignored"
        /// (`SCHED_CONTEXT` of a disabled, banned or unregistered context),
        /// "dropped" (`guc:drop-sched`).
        result: &'static str,
        /// The FAILURE's error code.
        #[serde(skip_serializing_if = "Option::is_none")]
        code: Option<Hex>,
        /// The context's engine, when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        engine: Option<&'static str>,
        /// Contexts registered after the message.
        registered: u64,
    },
    /// The GuC queued a G2H event of GuC submission.
    GucSubmitG2h {
        /// "mode_done", "deregister_done", "reset_notification",
        /// "engine_failure"; "tlb_done" (a TLB invalidation's DONE,
        /// `ct/tlb.rs`).
        event: &'static str,
        /// Its guc_id (for "tlb_done" the seqno, for "engine_failure" the
        /// GuC class: its first payload dword).
        guc_id: u32,
    },
    /// The GuC loaded a context onto an engine.
    GucSubmitLoad {
        /// Whose context (not written for the PF's).
        #[serde(skip_serializing_if = "is_pf")]
        vf: u32,
        /// Engine name.
        engine: &'static str,
        /// The context.
        guc_id: u32,
        /// Its LRCA.
        lrca: Hex,
        /// "start" (idle engine), "switch" (preempting the running one at
        /// its quantum's end), "lite_restore" (the running one, new tail),
        /// "preempt_to_idle" (a disabled one taken off; `lrca` 0).
        action: &'static str,
    },
    /// The GuC reset a context: banned, `CONTEXT_RESET_NOTIFICATION` sent.
    GucSubmitReset {
        /// The context.
        guc_id: u32,
        /// Its engine.
        engine: &'static str,
        /// "preemption_timeout" or "storm" (`guc:reset-storm`).
        cause: &'static str,
        /// The engine was reset (the context was running on it).
        engine_reset: bool,
        /// How long it had made no progress (preemption timeout).
        #[serde(skip_serializing_if = "Option::is_none")]
        stalled_us: Option<u64>,
    },
    /// A `guc:` test-control request was carried out.
    GucSubmitInject {
        /// The request as written (or what became of a storm).
        request: String,
        /// Switch counts and storm notifications still pending.
        armed_left: u64,
    },
    /// A GuC reset or device reset made the GuC forget its contexts.
    GucSubmitForget {
        /// 0: a GuC or device reset forgot every context; `n`: VF `n` was
        /// reset (its contexts only).
        #[serde(skip_serializing_if = "is_pf")]
        vf: u32,
        /// Contexts forgotten (for a VF, those on an engine once they are
        /// off it).
        contexts: u64,
    },
    /// A physical doorbell changed state, or the host wrote to the
    /// doorbell window of BAR0 ([`crate::regfile::guc::ct::submit`],
    /// "Doorbells").
    GucDoorbell {
        /// "armed" (`ALLOCATE_DOORBELL` accepted), "released"
        /// (`DEALLOCATE_DOORBELL` accepted), "dropped_at_dereg" (released
        /// by the context's `DEREGISTER_CONTEXT`), "forgotten" (GuC or
        /// device reset); for a write to the window: "rang" (the bound
        /// context got work), "ignored" (its context is disabled or
        /// banned), "guc_hung" (the GuC is stuck, `guc:hang`: nothing
        /// happens), "unarmed" (no valid doorbell on the page).
        what: &'static str,
        /// The physical doorbell.
        #[serde(skip_serializing_if = "Option::is_none")]
        doorbell: Option<u32>,
        /// Its context.
        #[serde(skip_serializing_if = "Option::is_none")]
        guc_id: Option<u32>,
        /// Offset in BAR0: the page (arm/release) or the dword written.
        offset: Hex,
        /// The dword written (the cookie), for a write to the window.
        #[serde(skip_serializing_if = "Option::is_none")]
        value: Option<Hex>,
        /// Physical doorbells armed afterwards.
        armed: u64,
    },
    /// An execlist Load (`RING_EXECLIST_CONTROL` bit 0) on an engine
    /// ([`crate::regfile::engine`]).
    EngineLoad {
        /// Engine name (`rcs0`, `bcs0`, ...).
        engine: &'static str,
        /// Valid elements sampled from the submission queue.
        elements: u32,
        /// SW context ID of the first valid element (0xffff: none).
        ctx: Hex,
        /// Its LRCA (0: none).
        lrca: Hex,
        /// What the Load did: "start" (idle engine), "lite_restore",
        /// "preempt", "preempt_to_idle", "empty" (nothing valid, idle),
        /// "held" (the active context is halted or hung: the new queue waits
        /// for a reset), "ignored_disabled" (execlists not enabled in
        /// `RING_MODE`).
        action: &'static str,
    },
    /// A context switch the engine reported: one CSB entry (or none under
    /// `engine:csb-lost`), followed by the context-switch interrupt.
    EngineSwitch {
        /// Engine name.
        engine: &'static str,
        /// SW context ID switched away from (0xffff: idle).
        away: Hex,
        /// SW context ID switched to (0xffff: idle).
        to: Hex,
        /// "Switched to new queue".
        new_queue: bool,
        /// Switch detail (0 complete, 5 preempted).
        detail: u32,
        /// CSB entry index written (absent when lost).
        #[serde(skip_serializing_if = "Option::is_none")]
        index: Option<u32>,
        /// The entry was dropped by the `engine:csb-lost` switch.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        lost: bool,
        /// The entry went to the GuC, not to the host's HWSP, and raised
        /// no context-switch interrupt: the GuC loaded the context
        /// (`regfile/guc/submit.rs`, "the submitter receives the status").
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        guc: bool,
    },
    /// A context ran until its ring was empty (HEAD == TAIL); HEAD and TAIL
    /// were saved into its image.
    EngineComplete {
        /// Engine name.
        engine: &'static str,
        /// SW context ID.
        ctx: Hex,
        /// LRCA.
        lrca: Hex,
        /// RING_HEAD saved.
        head: Hex,
    },
    /// A burst of command execution on an engine (a Load, a register
    /// access or a tick let it run); only bursts that executed commands.
    EngineRun {
        /// Engine name.
        engine: &'static str,
        /// SW context ID that ran.
        ctx: Hex,
        /// Commands executed.
        commands: u64,
        /// `MI_USER_INTERRUPT`s among them.
        user_interrupts: u64,
        /// Why the burst ended: "complete", "budget", "wait", "halt",
        /// "stop_ring", "hang".
        stopped: &'static str,
    },
    /// An `XY_FAST_COLOR_BLT` the copy engine executed
    /// (`regfile/engine/cs.rs`).
    EngineFill {
        /// Engine name.
        engine: &'static str,
        /// Destination GGTT address.
        addr: Hex,
        /// Bytes filled.
        bytes: u64,
        /// The 32-bit fill value.
        value: Hex,
    },
    /// An `XY_CTRL_SURF_COPY_BLT` the copy engine executed: CCS bytes
    /// copied between main memory ("direct") and the flat-CCS metadata of
    /// local memory ("indirect") (`regfile/engine/cs.rs`, `crate::ccs`).
    EngineCcsCopy {
        /// Engine name.
        engine: &'static str,
        /// Source GGTT address.
        src: Hex,
        /// "direct" (main memory) or "indirect" (the CCS of that memory).
        src_access: &'static str,
        /// Destination GGTT address.
        dst: Hex,
        /// "direct" or "indirect".
        dst_access: &'static str,
        /// CCS blocks (dw0 bits 17:8, plus one).
        blocks: u64,
        /// CCS bytes copied: 256 per block.
        bytes: u64,
        /// For an indirect destination: whether every CCS byte written is
        /// zero (a clear of the metadata).
        #[serde(skip_serializing_if = "Option::is_none")]
        zero: Option<bool>,
    },
    /// A command read or wrote a register the command streamer does not
    /// model (`regfile/engine/cs.rs`): a read gives 0, a write is dropped.
    /// Not an error: the hardware lets a privileged command reach any
    /// register (seed 004 L1169).
    EngineUnmodelledReg {
        /// Engine name.
        engine: &'static str,
        /// The command, e.g. "MI_STORE_REGISTER_MEM".
        command: &'static str,
        /// "read" or "write".
        op: &'static str,
        /// The register's MMIO offset (CS-MMIO relative addresses resolved).
        offset: Hex,
        /// The value read (0) or written.
        value: Hex,
    },
    /// A command streamer error: the engine halts with the context active
    /// and raises its CS error interrupt.
    EngineError {
        /// Engine name.
        engine: &'static str,
        /// "instruction" (EIR bit 0) or "page_table" (EIR bit 4).
        kind: &'static str,
        /// The faulting command's header (`RING_IPEHR`).
        ipehr: Hex,
        /// Its GGTT address (`RING_ACTHD`).
        acthd: Hex,
        /// What went wrong.
        detail: String,
    },
    /// An engine reset (`GDRST` domain bit, `GRDOM_FULL` or a device reset).
    EngineReset {
        /// Engine name.
        engine: &'static str,
        /// "gdrst", "grdom_full" or "device".
        cause: &'static str,
    },
    /// A rule the driver broke on an engine; also counted as a violation.
    EngineViolation {
        /// Engine name.
        engine: &'static str,
        /// Violation kind.
        kind: &'static str,
        /// What happened.
        detail: String,
    },
    /// An `engine:` fault switch of the test control.
    EngineFault {
        /// Engine name.
        engine: &'static str,
        /// "hang", "csb-lost" or "reset-fails".
        fault: &'static str,
        /// "armed", "applied", or "absent" (the fuses leave no such engine:
        /// nothing armed).
        action: &'static str,
    },
    /// `PF2GUC_UPDATE_VF_CFG` served (`regfile/guc/ct/sriov.rs`).
    SriovVfCfg {
        /// VFID (0: the PF's own configuration).
        vfid: u32,
        /// CFG_ADDR (GGTT).
        addr: Hex,
        /// CFG_SIZE, dwords.
        dwords: u32,
        /// KLVs in the list.
        klvs: u32,
        /// KLVs applied (the reply's DATA0).
        applied: u32,
        /// Of those, values clamped to their maximum.
        clamped: u32,
        /// `SCHED_PRIORITY` KLVs for a VF, not applied and not counted
        /// (only the PF's priority may be set; `regfile/guc/ct/sriov.rs`).
        #[serde(skip_serializing_if = "is_zero")]
        priority_refused: u32,
        /// Why the last of those was not applied.
        #[serde(skip_serializing_if = "Option::is_none")]
        why: Option<String>,
        /// "applied", "reset" (address and size 0), "not_parsed" (address
        /// 0), "refused" (FAILURE, a `guc_sriov_bad` violation),
        /// "refused_switch" (`guc:refuse-vf-cfg`).
        result: &'static str,
        /// The FAILURE's error code.
        #[serde(skip_serializing_if = "Option::is_none")]
        code: Option<Hex>,
        /// The function's configuration after the message (SUCCESS only).
        #[serde(skip_serializing_if = "Option::is_none")]
        cfg: Option<crate::summary::sriov::VfEntry>,
        /// VFs (not the PF) with a configuration after the message.
        configured: u64,
    },
    /// `PF2GUC_UPDATE_VGT_POLICY` served (`regfile/guc/ct/sriov/vgt.rs`).
    SriovVgtPolicy {
        /// CFG_ADDR (GGTT).
        addr: Hex,
        /// CFG_SIZE, dwords.
        dwords: u32,
        /// KLVs in the list.
        klvs: u32,
        /// KLVs applied (the reply's DATA0).
        applied: u32,
        /// "applied", "refused" (FAILURE, a `guc_sriov_bad` violation).
        result: &'static str,
        /// The FAILURE's error code.
        #[serde(skip_serializing_if = "Option::is_none")]
        code: Option<Hex>,
        /// `SCHED_IF_IDLE` after the message, 0 or 1.
        sched_if_idle: u32,
        /// `ADVERSE_SAMPLE_PERIOD` after the message, ms.
        sample_period_ms: u32,
        /// `RESET_AFTER_VF_SWITCH` after the message, 0 or 1.
        reset_after_vf_switch: u32,
        /// The scheduling priority every function (PF and VFs) now has, if
        /// the message applied a `SCHED_IF_IDLE` (1 NORMAL, 0 LOW).
        #[serde(skip_serializing_if = "Option::is_none")]
        forced_priority: Option<u32>,
    },
    /// `PF2GUC_VF_CONTROL` served.
    SriovVfControl {
        /// VFID.
        vfid: u32,
        /// "pause", "resume", "stop", "flr_start", "flr_finish", "unknown".
        cmd: &'static str,
        /// "ok", "stuck" (`guc:flr-stuck`: no FLR_DONE), "refused" (FAILURE,
        /// a `guc_sriov_bad` violation).
        result: &'static str,
        /// The FAILURE's error code.
        #[serde(skip_serializing_if = "Option::is_none")]
        code: Option<Hex>,
        /// The VF's state after it: "ready", "paused", "stopped",
        /// "flr_wait", "flr_done".
        state: &'static str,
    },
    /// `GUC2PF_VF_STATE_NOTIFY` events queued to G2H.
    SriovNotify {
        /// The VF named.
        vfid: u32,
        /// How many.
        count: u64,
        /// "vf_flr", "flr_done", "pause_done".
        event: &'static str,
    },
    /// `vf:adverse`: a VF went past a threshold; reported to the PF
    /// (`GUC2PF_ADVERSE_EVENT`) only if its configuration sets one.
    SriovAdverse {
        /// The VF.
        vfid: u32,
        /// The threshold's key.
        key: Hex,
        /// The VF's threshold (0: not reported).
        threshold: u32,
        /// Whether the event went to the PF.
        sent: bool,
    },
    /// A relay message between a VF's driver (the mock's VF side) and the
    /// PF, through the GuC (`regfile/guc/ct/sriov/relay.rs`).
    SriovRelay {
        /// The VF (a refused `PF2GUC_RELAY_TO_VF`: the VFID it named).
        vfid: u32,
        /// The relay ID (none for `vf:relay-raw`).
        #[serde(skip_serializing_if = "Option::is_none")]
        rid: Option<u32>,
        /// "to_pf" (a `GUC2PF_RELAY_FROM_VF` queued to G2H) or "to_vf" (a
        /// `PF2GUC_RELAY_TO_VF` the GuC took or refused).
        dir: &'static str,
        /// The relay message's HXG type: "request", "event",
        /// "fast_request", "busy", "retry", "failure", "success",
        /// "undefined"; "raw" for `vf:relay-raw`; "none" for a refused
        /// message without one.
        kind: &'static str,
        /// to_pf: the message's action; to_vf: the action of the request
        /// answered (when `matched`).
        #[serde(skip_serializing_if = "Option::is_none")]
        action: Option<Hex>,
        /// The relay message's dwords (raw: the dwords after the header).
        dwords: u32,
        /// to_pf: "queued", "resent" (after a RETRY), "raw". to_vf: "ok",
        /// "failure" (a refusal taken), "busy" (the VF keeps waiting),
        /// "retry" (the VF sends again), "bad" (a `relay_bad_answer`
        /// violation), "unknown_rid" (no such request waits; a
        /// `relay_bad_answer` violation), "stale" (an answer to a request
        /// a VF FLR dropped, before the PF's FLR_FINISH: no violation),
        /// "refused" (the GuC answered FAILURE: `guc_sriov_bad`).
        verdict: &'static str,
        /// to_vf: whether it answered a request the VF waits for.
        matched: bool,
        /// The GuC's FAILURE code ("refused").
        #[serde(skip_serializing_if = "Option::is_none")]
        code: Option<Hex>,
        /// A relay FAILURE's error (`GUC_HXG_FAILURE_MSG_0_ERROR`).
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<Hex>,
        /// to_pf: whether VF N has a configuration in the GuC.
        #[serde(skip_serializing_if = "Option::is_none")]
        configured: Option<bool>,
        /// to_pf: the event carried DATA0 1 (`guc:relay-data0`).
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        data0: bool,
        /// `VF2PF_QUERY_RUNTIME` entries whose register and value matched.
        entries: u32,
        /// The VF/PF ABI version the VF agreed with the PF after this
        /// message ("1.0"; none: not agreed).
        #[serde(skip_serializing_if = "Option::is_none")]
        version: Option<String>,
        /// Requests of all VFs still waiting for an answer.
        outstanding: u64,
    },
    /// A VF FLR made the VF's driver forget its relays: the requests it
    /// waited for and the version it agreed.
    SriovRelayForget {
        /// The VF.
        vfid: u32,
        /// "vf_flr" (`vf:flr`) or "flr_start" (`VF_CONTROL` FLR_START).
        cause: &'static str,
        /// Requests dropped.
        dropped: u64,
        /// Requests of all VFs still waiting for an answer.
        outstanding: u64,
    },
    /// A `vf:` or SR-IOV `guc:` test-control request was carried out.
    SriovInject {
        /// The request as written.
        request: String,
        /// "armed", "queued", "done", "no_channel" (the CT is not enabled),
        /// "rid_outstanding" (a relay ID the VF still waits on: nothing
        /// sent), "not_reported" (`vf:adverse` without a threshold).
        result: &'static str,
        /// `UPDATE_VF_CFG` refusals, stuck FLRs and `guc:relay-data0`
        /// events still armed.
        armed_left: u64,
    },
    /// A VF served as its own PCI function to a second VM did something
    /// countable (`device/guest_vf.rs`): `what` is "reset",
    /// "config_read", "config_write", "mmio_read", "mmio_write",
    /// "ggtt_read", "ggtt_write", "lmem_read", "lmem_write", "dma_map",
    /// "dma_unmap", "set_irqs", "irq", "irq_dropped", or "relay_from_pf"
    /// (the GuC delivered the PF's relay message over the VF's CT).
    VfGuest {
        /// The VF.
        vf: u32,
        /// What happened.
        what: &'static str,
    },
    /// An access of a VF's own function the hardware blocks
    /// (`device/guest_vf.rs`): "ggtt_mismatch" (a GGTT entry of another
    /// function: reads 0, write dropped), "lmem_unmapped" (no LMTT page
    /// behind it: reads all ones, write dropped), "bar_outside".
    VfGuestBlocked {
        /// The VF.
        vf: u32,
        /// Why.
        why: &'static str,
        /// Read or write.
        op: Op,
        /// BAR offset.
        offset: Hex,
    },
    /// A VF's BAR0 access to a register the mock does not model for a VF.
    VfGuestUnknown {
        /// The VF.
        vf: u32,
        /// Read or write.
        op: Op,
        /// BAR0 offset.
        offset: Hex,
    },
    /// The GuC served an MMIO request of a VF (`regfile/guc/vf_mmio.rs`).
    VfGuestGuc {
        /// The VF.
        vf: u32,
        /// The request's ACTION.
        action: Hex,
        /// "success", "failure" or "ignored" (not a request: no reply).
        result: &'static str,
        /// The reply's dwords (the FAILURE's error in the first).
        reply: Vec<Hex>,
        /// What the reply told: "version" (MATCH_VERSION's answer),
        /// "klv" (a QUERY_SINGLE_KLV value), "" otherwise.
        told: &'static str,
        /// The KLV key asked (QUERY_SINGLE_KLV).
        #[serde(skip_serializing_if = "Option::is_none")]
        key: Option<Hex>,
        /// The value or version told.
        #[serde(skip_serializing_if = "Option::is_none")]
        value: Option<Hex>,
    },
    /// A VF-dedicated register changed (`regfile/vf_regs.rs`).
    SriovVfRegs {
        /// The VF.
        vf: u32,
        /// "pf_write" (the PF wrote one), "planted" (`vf:scratch`),
        /// "reset" (a VF FLR's Gunit reset), "kept" (`vf:keep-regs`).
        action: &'static str,
        /// The value a "pf_write" wrote.
        #[serde(skip_serializing_if = "Option::is_none")]
        value: Option<Hex>,
    },
    /// The isolation checker ran (`regfile/isolation.rs`).
    SriovCheck {
        /// Why: "vf_cfg", "vf_control", "lmem_cfg", "vf:check", "final".
        trigger: &'static str,
        /// Whether leftover table entries counted.
        leftovers: bool,
        /// New distinct violations it found.
        found: u64,
    },
    /// The isolation checker found a new distinct violation (a test oracle,
    /// not one of the device's `violation`s).
    SriovIsolation {
        /// "ggtt_stamp", "ggtt_stray", "lmtt_shared", "lmtt_in_tables",
        /// "lmtt_beyond_lmem", "lmtt_over_quota", "lmtt_unmapped", "lmtt_no_config",
        /// "lmtt_pf_entry", "lmtt_unreadable", "ctx_overlap", "db_overlap",
        /// "ggtt_overlap", "ctx_pf_in_vf", "lmem_not_cleared",
        /// "ccs_not_cleared", "vf_regs_not_cleared".
        check: &'static str,
        /// The function it is about.
        vf: u32,
        /// The other function, for a resource two of them reach.
        #[serde(skip_serializing_if = "Option::is_none")]
        other: Option<u32>,
        /// What was found.
        detail: String,
    },
    /// The LMTT's translation cache was emptied: each VF's translation as
    /// the tables give it now is the record a VF must match at the next rule
    /// point (`regfile/guc/ct/sriov/lmtt.rs`).
    LmttTlbInvalidate {
        /// "tlb_invalidation_all" (`TLB_INVALIDATION_ALL` of type FULL),
        /// "lmem_cfg" (a new `LMEM_CFG`), "reset" (device reset,
        /// Driver-FLR).
        cause: &'static str,
        /// VFs with a valid directory entry recorded.
        vfs: u32,
        /// Valid leaf entries recorded, all VFs.
        pages: u64,
        /// VFs whose translation differs from the previous record.
        changed: u32,
    },
    /// A VF with local memory translates otherwise than when the LMTT's
    /// cache was last emptied (an `lmtt_stale` violation).
    LmttStale {
        /// The VF.
        vf: u32,
        /// The rule point: "vf_cfg", "flr_finish", "resume".
        at: &'static str,
        /// The VF the message of the rule point is about.
        by: u32,
        /// What changed.
        detail: String,
    },
    /// The mock is shutting down.
    Stop {
        /// Why: "disconnect", "signal SIGTERM", "error: ...".
        reason: String,
    },
}

/// One trace line: sequence, time, then the event's own keys.
#[derive(Serialize)]
struct Line<'a> {
    seq: u64,
    t_us: u64,
    #[serde(flatten)]
    ev: &'a Event,
}

/// Writes trace lines to a file, or only numbers them when tracing is off.
pub struct TraceWriter {
    out: Option<BufWriter<File>>,
    seq: u64,
    failed: bool,
}

impl TraceWriter {
    /// A writer that records nothing (no `--trace`).
    pub fn disabled() -> Self {
        Self {
            out: None,
            seq: 0,
            failed: false,
        }
    }

    /// Creates (truncates) `path`.
    ///
    /// # Errors
    ///
    /// The file cannot be created.
    pub fn create(path: &Path) -> io::Result<Self> {
        Ok(Self {
            out: Some(BufWriter::new(File::create(path)?)),
            seq: 0,
            failed: false,
        })
    }

    /// Number of events seen so far.
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// Appends one event at time `t`.
    ///
    /// A write error disables the trace (reported once on stderr) instead of
    /// failing the device: the summary still records the run.
    pub fn write(&mut self, t: Duration, ev: &Event) {
        let line = Line {
            seq: self.seq,
            t_us: u64::try_from(t.as_micros()).unwrap_or(u64::MAX),
            ev,
        };
        self.seq += 1;
        let Some(out) = self.out.as_mut() else {
            return;
        };
        let res = serde_json::to_writer(&mut *out, &line)
            .map_err(io::Error::from)
            .and_then(|()| out.write_all(b"\n"))
            .and_then(|()| out.flush());
        if let Err(e) = res {
            if !self.failed {
                eprintln!("xehpg-mock: trace write failed, tracing stops: {e}");
            }
            self.failed = true;
            self.out = None;
        }
    }

    /// Flushes buffered lines (a no-op after each `write`, kept for exit paths).
    pub fn flush(&mut self) {
        if let Some(out) = self.out.as_mut() {
            let _ = out.flush();
        }
    }
}

/// Serialises one event as its trace line (for tests and tools).
///
/// # Errors
///
/// Serialisation failure (not expected for these types).
pub fn to_line(seq: u64, t: Duration, ev: &Event) -> serde_json::Result<String> {
    serde_json::to_string(&Line {
        seq,
        t_us: u64::try_from(t.as_micros()).unwrap_or(u64::MAX),
        ev,
    })
}

/// Whether a function number is the PF's (0), for `skip_serializing_if`.
#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde passes a reference"
)]
fn is_pf(vf: &u32) -> bool {
    *vf == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use serde_json::Value;

    fn line(ev: &Event) -> Value {
        let s = to_line(7, Duration::from_micros(1234), ev).expect("serialises");
        serde_json::from_str(&s).expect("valid JSON")
    }

    #[test]
    fn engine_event_shapes() {
        assert_eq!(
            line(&Event::EngineLoad {
                engine: "bcs0",
                elements: 1,
                ctx: Hex(0x2a),
                lrca: Hex(0x30_0000),
                action: "start",
            }),
            json!({"seq":7,"t_us":1234,"ev":"engine_load","engine":"bcs0","elements":1,
                   "ctx":"0x2a","lrca":"0x300000","action":"start"})
        );
        assert_eq!(
            line(&Event::EngineSwitch {
                engine: "rcs0",
                away: Hex(0xffff),
                to: Hex(0x2a),
                new_queue: true,
                detail: 0,
                index: Some(0),
                lost: false,
                guc: false,
            }),
            json!({"seq":7,"t_us":1234,"ev":"engine_switch","engine":"rcs0","away":"0xffff",
                   "to":"0x2a","new_queue":true,"detail":0,"index":0})
        );
        assert_eq!(
            line(&Event::EngineSwitch {
                engine: "rcs0",
                away: Hex(0x2a),
                to: Hex(0xffff),
                new_queue: false,
                detail: 0,
                index: None,
                lost: true,
                guc: false,
            }),
            json!({"seq":7,"t_us":1234,"ev":"engine_switch","engine":"rcs0","away":"0x2a",
                   "to":"0xffff","new_queue":false,"detail":0,"lost":true})
        );
        assert_eq!(
            line(&Event::EngineUnmodelledReg {
                engine: "rcs0",
                command: "MI_LOAD_REGISTER_IMM",
                op: "write",
                offset: Hex(0x7004),
                value: Hex(0x1_0001),
            }),
            json!({"seq":7,"t_us":1234,"ev":"engine_unmodelled_reg","engine":"rcs0",
                   "command":"MI_LOAD_REGISTER_IMM","op":"write","offset":"0x7004",
                   "value":"0x10001"})
        );
        assert_eq!(
            line(&Event::EngineCcsCopy {
                engine: "bcs0",
                src: Hex(0x60_0000),
                src_access: "direct",
                dst: Hex(0x60_0000),
                dst_access: "indirect",
                blocks: 1024,
                bytes: 256 << 10,
                zero: Some(true),
            }),
            json!({"seq":7,"t_us":1234,"ev":"engine_ccs_copy","engine":"bcs0","src":"0x600000",
                   "src_access":"direct","dst":"0x600000","dst_access":"indirect",
                   "blocks":1024,"bytes":262144,"zero":true})
        );
        assert_eq!(
            line(&Event::EngineError {
                engine: "bcs0",
                kind: "page_table",
                ipehr: Hex(0),
                acthd: Hex(0x60_0010),
                detail: "x".into(),
            }),
            json!({"seq":7,"t_us":1234,"ev":"engine_error","engine":"bcs0","kind":"page_table",
                   "ipehr":"0x0","acthd":"0x600010","detail":"x"})
        );
        assert_eq!(
            line(&Event::EngineFault {
                engine: "vcs1",
                fault: "hang",
                action: "absent",
            }),
            json!({"seq":7,"t_us":1234,"ev":"engine_fault","engine":"vcs1","fault":"hang",
                   "action":"absent"})
        );
    }

    #[test]
    fn mmio_read_shape() {
        let ev = Event::MmioRead(Mmio {
            bar: 0,
            offset: Hex(0x101010),
            size: 4,
            value: Some(Hex(0x80)),
            reg: vec!["GU_CNTL"],
            area: None,
            dropped: false,
        });
        assert_eq!(
            line(&ev),
            json!({"seq":7,"t_us":1234,"ev":"mmio_read","bar":0,"offset":"0x101010",
                   "size":4,"value":"0x80","reg":"GU_CNTL"})
        );
        // Key order as documented: seq, t_us, ev first.
        let s = to_line(7, Duration::from_micros(1234), &ev).expect("serialises");
        assert!(
            s.starts_with(r#"{"seq":7,"t_us":1234,"ev":"mmio_read","#),
            "{s}"
        );
    }

    #[test]
    fn unknown_register_is_null_and_multi_register_is_joined() {
        let mut m = Mmio {
            bar: 0,
            offset: Hex(0x4),
            size: 4,
            value: Some(Hex(0)),
            reg: vec![],
            area: None,
            dropped: true,
        };
        let v = line(&Event::MmioWrite(m.clone()));
        assert_eq!(v["reg"], Value::Null);
        assert_eq!(v["dropped"], json!(true));
        m.reg = vec!["PCODE_DATA0", "PCODE_DATA1"];
        m.dropped = false;
        let v = line(&Event::MmioWrite(m));
        assert_eq!(v["reg"], json!("PCODE_DATA0+PCODE_DATA1"));
        assert!(v.get("dropped").is_none());
    }

    #[test]
    fn other_event_shapes() {
        assert_eq!(
            line(&Event::UnknownAccess {
                op: Op::Read,
                bar: 0,
                offset: Hex(0x2000)
            }),
            json!({"seq":7,"t_us":1234,"ev":"unknown_access","op":"read","bar":0,"offset":"0x2000"})
        );
        assert_eq!(
            line(&Event::Violation {
                kind: "pcode_busy_write",
                detail: "x".into()
            }),
            json!({"seq":7,"t_us":1234,"ev":"violation","kind":"pcode_busy_write","detail":"x"})
        );
        assert_eq!(
            line(&Event::Irq {
                index: 1,
                vector: 0
            }),
            json!({"seq":7,"t_us":1234,"ev":"irq","index":1,"vector":0})
        );
        assert_eq!(
            line(&Event::Reset { cause: "vfio_user" }),
            json!({"seq":7,"t_us":1234,"ev":"reset","cause":"vfio_user"})
        );
        assert_eq!(
            line(&Event::BusMaster {
                on: false,
                cause: "config_write"
            }),
            json!({"seq":7,"t_us":1234,"ev":"bus_master","on":false,"cause":"config_write"})
        );
        assert_eq!(
            line(&Event::FaultArmed { name: "all-ones" }),
            json!({"seq":7,"t_us":1234,"ev":"fault_armed","name":"all-ones"})
        );
        assert_eq!(
            line(&Event::FwRequest {
                domain: "gt",
                value: Hex(0x10001)
            }),
            json!({"seq":7,"t_us":1234,"ev":"fw_request","domain":"gt","value":"0x10001"})
        );
        assert_eq!(
            line(&Event::FwAck {
                domain: "render",
                awake: true,
                at_us: 1200
            }),
            json!({"seq":7,"t_us":1234,"ev":"fw_ack","domain":"render","awake":true,"at_us":1200})
        );
        assert_eq!(
            line(&Event::Steer {
                selector: "MCR_SELECTOR",
                multicast: false,
                slice: 2,
                subslice: 3
            }),
            json!({"seq":7,"t_us":1234,"ev":"steer","selector":"MCR_SELECTOR",
                   "multicast":false,"slice":2,"subslice":3})
        );
    }

    #[test]
    fn guc_event_shapes() {
        assert_eq!(
            line(&Event::GucDma {
                src: Hex(0x80_0000),
                dst: Hex(0x2000),
                size: 381_376,
                space: "ggtt",
                dst_space: "wopcm",
                uos_move: true
            }),
            json!({"seq":7,"t_us":1234,"ev":"guc_dma","src":"0x800000","dst":"0x2000",
                   "size":381_376,"space":"ggtt","dst_space":"wopcm","uos_move":true})
        );
        assert_eq!(
            line(&Event::GucStatus {
                value: Hex(0x8000_F0EC),
                ukernel: Hex(0xF0),
                bootrom: Hex(0x76),
                auth: Hex(2),
                at_us: 1200
            }),
            json!({"seq":7,"t_us":1234,"ev":"guc_status","value":"0x8000f0ec",
                   "ukernel":"0xf0","bootrom":"0x76","auth":"0x2","at_us":1200})
        );
        assert_eq!(
            line(&Event::GucLoaded {
                release: "70.53.0".into(),
                submission: "1.26.0".into(),
                sha256: "ab".into(),
                bytes: 4
            }),
            json!({"seq":7,"t_us":1234,"ev":"guc_loaded","release":"70.53.0",
                   "submission":"1.26.0","sha256":"ab","bytes":4})
        );
        assert_eq!(
            line(&Event::GucG2hReply {
                kind: "success",
                data0: Hex(100),
                at_us: 1
            }),
            json!({"seq":7,"t_us":1234,"ev":"guc_g2h_reply","type":"success",
                   "data0":"0x64","at_us":1})
        );
        assert_eq!(
            line(&Event::GucH2g {
                action: Hex(0x4100),
                len: 4
            }),
            json!({"seq":7,"t_us":1234,"ev":"guc_h2g","action":"0x4100","len":4})
        );
        assert_eq!(
            line(&Event::GucSubmit {
                vf: 0,
                action: "register",
                guc_id: Some(3),
                state: None,
                result: "refused",
                code: Some(Hex(0x62)),
                engine: None,
                registered: 1,
            }),
            json!({"seq":7,"t_us":1234,"ev":"guc_submit","action":"register","guc_id":3,
                   "result":"refused","code":"0x62","registered":1})
        );
        assert_eq!(
            line(&Event::GucSubmitReset {
                guc_id: 3,
                engine: "bcs0",
                cause: "preemption_timeout",
                engine_reset: true,
                stalled_us: Some(1001),
            }),
            json!({"seq":7,"t_us":1234,"ev":"guc_submit_reset","guc_id":3,"engine":"bcs0",
                   "cause":"preemption_timeout","engine_reset":true,"stalled_us":1001})
        );
        assert_eq!(
            line(&Event::GucReset { cause: "grdom_guc" }),
            json!({"seq":7,"t_us":1234,"ev":"guc_reset","cause":"grdom_guc"})
        );
        assert_eq!(
            line(&Event::GucResetStuck { cause: "grdom_guc" }),
            json!({"seq":7,"t_us":1234,"ev":"guc_reset_stuck","cause":"grdom_guc"})
        );
        assert_eq!(
            line(&Event::GucDmaDone { bytes: 8, at_us: 9 }),
            json!({"seq":7,"t_us":1234,"ev":"guc_dma_done","bytes":8,"at_us":9})
        );
        assert_eq!(
            line(&Event::GgttTlbInvalidate { entries: 3 }),
            json!({"seq":7,"t_us":1234,"ev":"ggtt_tlb_invalidate","entries":3})
        );
        assert_eq!(
            line(&Event::LmttTlbInvalidate {
                cause: "tlb_invalidation_all",
                vfs: 2,
                pages: 4,
                changed: 1
            }),
            json!({"seq":7,"t_us":1234,"ev":"lmtt_tlb_invalidate",
                   "cause":"tlb_invalidation_all","vfs":2,"pages":4,"changed":1})
        );
        assert_eq!(
            line(&Event::LmttStale {
                vf: 1,
                at: "vf_cfg",
                by: 3,
                detail: "d".into()
            }),
            json!({"seq":7,"t_us":1234,"ev":"lmtt_stale","vf":1,"at":"vf_cfg","by":3,
                   "detail":"d"})
        );
        assert_eq!(
            line(&Event::GucCtSelfCfg {
                key: Hex(0x903),
                len: 2,
                value: Hex(0x1_0000_0800),
                result: "taken"
            }),
            json!({"seq":7,"t_us":1234,"ev":"guc_ct_self_cfg","key":"0x903","len":2,
                   "value":"0x100000800","result":"taken"})
        );
        assert_eq!(
            line(&Event::GucCtControl {
                control: Hex(0),
                result: "disabled",
                layout: None
            }),
            json!({"seq":7,"t_us":1234,"ev":"guc_ct_control","control":"0x0",
                   "result":"disabled"})
        );
        assert_eq!(
            line(&Event::GucCtH2g {
                vf: 0,
                fence: 0x8001,
                action: Hex(0x1234),
                len: 2,
                kind: "fast_request",
                reply: "failure"
            }),
            json!({"seq":7,"t_us":1234,"ev":"guc_ct_h2g","fence":0x8001,"action":"0x1234",
                   "len":2,"kind":"fast_request","reply":"failure"})
        );
        assert_eq!(
            line(&Event::GucCtG2h {
                vf: 0,
                fence: 5,
                len: 2,
                hxg: "busy",
                pending: 3
            }),
            json!({"seq":7,"t_us":1234,"ev":"guc_ct_g2h","fence":5,"len":2,"hxg":"busy",
                   "pending":3})
        );
        assert_eq!(
            line(&Event::GucCtFault {
                fault: "retry",
                fence: 9,
                action: Hex(0x509),
                armed_left: 1
            }),
            json!({"seq":7,"t_us":1234,"ev":"guc_ct_fault","fault":"retry","fence":9,
                   "action":"0x509","armed_left":1})
        );
        assert_eq!(
            line(&Event::GucCtPolicy {
                klvs: 2,
                applied: 1,
                yield_ms: Some(80),
                yield_ratio: Some(20),
                result: "applied"
            }),
            json!({"seq":7,"t_us":1234,"ev":"guc_ct_policy","klvs":2,"applied":1,
                   "yield_ms":80,"yield_ratio":20,"result":"applied"})
        );
        assert_eq!(
            line(&Event::GucCtInject {
                request: "g2h:flood:9".into(),
                result: "queued",
                armed_left: 0,
                pending: 4
            }),
            json!({"seq":7,"t_us":1234,"ev":"guc_ct_inject","request":"g2h:flood:9",
                   "result":"queued","armed_left":0,"pending":4})
        );
        assert_eq!(
            line(&Event::GucCtControl {
                control: Hex(1),
                result: "enabled",
                layout: Some(CtLayout {
                    h2g_desc: Hex(0x80_0000),
                    h2g: Hex(0x80_1000),
                    h2g_size: 4096,
                    g2h_desc: Hex(0x80_2800),
                    g2h: Hex(0x80_3000),
                    g2h_size: 131_072
                })
            }),
            json!({"seq":7,"t_us":1234,"ev":"guc_ct_control","control":"0x1",
                   "result":"enabled","layout":{"h2g_desc":"0x800000","h2g":"0x801000",
                   "h2g_size":4096,"g2h_desc":"0x802800","g2h":"0x803000",
                   "g2h_size":131_072}})
        );
    }

    #[test]
    fn writer_numbers_lines_and_writes_json_lines() {
        let path =
            std::env::temp_dir().join(format!("xehpg-mock-trace-{}.jsonl", std::process::id()));
        let mut w = TraceWriter::create(&path).expect("create");
        w.write(
            Duration::from_micros(1),
            &Event::Reset { cause: "vfio_user" },
        );
        w.write(
            Duration::from_micros(2),
            &Event::FaultArmed {
                name: "pcode-stuck",
            },
        );
        assert_eq!(w.seq(), 2);
        // Readable before drop: every line is flushed.
        let text = std::fs::read_to_string(&path).expect("read");
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).expect("JSON line"))
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["seq"], json!(0));
        assert_eq!(lines[1]["seq"], json!(1));
        assert_eq!(lines[1]["t_us"], json!(2));
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn disabled_writer_still_counts() {
        let mut w = TraceWriter::disabled();
        w.write(Duration::ZERO, &Event::Reset { cause: "pcie_flr" });
        assert_eq!(w.seq(), 1);
    }
}
