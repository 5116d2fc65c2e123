// SPDX-License-Identifier: GPL-2.0

//! One VF's configuration and its encoding as the GuC's VF-configuration KLVs.
//!
//! The keys, their widths and their ranges are seed 003 line 11 (`GUC_KLV_VF_CFG_*`); the PF
//! sends the list with `PF2GUC_UPDATE_VF_CFG`, whose reply counts the KLVs the GuC applied.
//! The order is upstream's (`encode_config` in `xe_gt_sriov_pf_config.c`), so a GuC that
//! applies keys in order sees the same sequence as under `xe`: GGTT, contexts, doorbells,
//! local memory, scheduling, the adverse-event thresholds.

use kernel::prelude::*;

use crate::abi::*;
use crate::guc::KlvWriter as Writer;
use crate::range::Range;

/// A contiguous run of GuC IDs (contexts or doorbells).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct IdRun {
    pub(crate) begin: u32,
    pub(crate) count: u32,
}

/// What one VF is given. `Default` is the empty configuration.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct VfConfig {
    /// GGTT addresses, 4 KiB aligned (seed 003: `GGTT_START`, `GGTT_SIZE`).
    pub(crate) ggtt: Option<Range>,
    /// Local memory, whole 2 MiB pages (`LMEM_SIZE`).
    pub(crate) lmem: u64,
    pub(crate) contexts: IdRun,
    pub(crate) doorbells: IdRun,
    /// Milliseconds, 0 for infinite, at most 100 s (`EXEC_QUANTUM`).
    pub(crate) exec_quantum_ms: u32,
    /// Microseconds, 0 for none, at most 100 s (`PREEMPT_TIMEOUT`).
    pub(crate) preempt_timeout_us: u32,
    /// Adverse-event thresholds in [`THRESHOLDS`]' order; 0: not reported.
    pub(crate) thresholds: [u32; THRESHOLDS.len()],
}

/// The adverse-event thresholds (seed 003 line 11, `GUC_KLV_VF_CFG_THRESHOLD_*`: counts or
/// microseconds per sampling interval, 0 meaning the GuC does not report the event), by key
/// with upstream's names (`xe_guc_klv_thresholds_set_types.h`). Upstream's seventh,
/// `MULTI_LRC_COUNT` (GuC 70.53), is not in seed 003 and not sent.
pub(crate) const THRESHOLDS: [(u32, &str); 6] = [
    (XEHPG_KLV_VF_CFG_THRESHOLD_CAT_ERR, "cat_error_count"),
    (
        XEHPG_KLV_VF_CFG_THRESHOLD_ENGINE_RESET,
        "engine_reset_count",
    ),
    (XEHPG_KLV_VF_CFG_THRESHOLD_PAGE_FAULT, "page_fault_count"),
    (XEHPG_KLV_VF_CFG_THRESHOLD_H2G_STORM, "guc_time_us"),
    (XEHPG_KLV_VF_CFG_THRESHOLD_IRQ_STORM, "irq_time_us"),
    (
        XEHPG_KLV_VF_CFG_THRESHOLD_DOORBELL_STORM,
        "doorbell_time_us",
    ),
];

/// The index in [`THRESHOLDS`] of threshold `key`.
pub(crate) fn threshold_index(key: u32) -> Option<usize> {
    THRESHOLDS.iter().position(|&(k, _)| k == key)
}

/// The index in [`THRESHOLDS`] of the threshold upstream calls `name`.
pub(crate) fn threshold_by_name(name: &str) -> Option<usize> {
    THRESHOLDS.iter().position(|&(_, n)| n == name)
}

/// Why a configuration cannot be pushed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Invalid {
    /// Nothing provisioned.
    Empty,
    /// Some resource missing: the named one.
    Missing(&'static str),
    /// A value outside what its key allows: the key's name.
    Range(&'static str),
}

impl From<Invalid> for Error {
    fn from(e: Invalid) -> Self {
        match e {
            Invalid::Empty => ENODATA,
            Invalid::Missing(_) => ENOKEY,
            Invalid::Range(_) => ERANGE,
        }
    }
}

/// The largest quantum and timeout the GuC takes (seed 003: 100 s each).
const MAX_EXEC_QUANTUM_MS: u32 = 100_000;
const MAX_PREEMPT_TIMEOUT_US: u32 = 100_000_000;
/// HIGH (seed 003: 0 LOW, 1 NORMAL, 2 HIGH).
pub(crate) const MAX_PRIORITY: u32 = 2;
/// The most dwords [`VfConfig::encode`] writes: six 64/32-bit resource KLVs, two scheduling
/// ones and the thresholds. A VF's priority is never sent: the GuC lets the PF choose only
/// its own (upstream `xe_sriov_pf_sysfs.c` `sched_priority_change_allowed`); a VF's follows
/// the `SCHED_IF_IDLE` policy ([`encode_policy`]).
pub(crate) const MAX_DWORDS: usize = 3 + 3 + 2 + 2 + 2 + 2 + 3 + 2 + 2 + 2 * THRESHOLDS.len();

impl VfConfig {
    /// Whether the VF can run: it needs contexts, GGTT and (on these discrete parts) local
    /// memory; doorbells are optional (upstream's `pf_validate_vf_config`), and every value
    /// within its key's range (seed 003 line 11).
    ///
    /// # Errors
    ///
    /// The first thing wrong, as [`Invalid`].
    pub(crate) fn validate(&self) -> Result<(), Invalid> {
        if *self == Self::default() {
            return Err(Invalid::Empty);
        }
        let ggtt = self.ggtt.ok_or(Invalid::Missing("GGTT"))?;
        if ggtt.start % 4096 != 0 || ggtt.size() % 4096 != 0 || ggtt.size() == 0 {
            return Err(Invalid::Range("VF_CFG_GGTT_START/SIZE"));
        }
        if self.contexts.count == 0 {
            return Err(Invalid::Missing("contexts"));
        }
        if self.lmem == 0 {
            return Err(Invalid::Missing("local memory"));
        }
        if self.lmem % (2 << 20) != 0 {
            return Err(Invalid::Range("VF_CFG_LMEM_SIZE"));
        }
        let ids_end = |r: IdRun| u64::from(r.begin) + u64::from(r.count);
        if ids_end(self.contexts) > 65535 {
            return Err(Invalid::Range("VF_CFG_NUM_CONTEXTS"));
        }
        if self.doorbells.count > 255 || ids_end(self.doorbells) > 256 {
            return Err(Invalid::Range("VF_CFG_NUM_DOORBELLS"));
        }
        if self.exec_quantum_ms > MAX_EXEC_QUANTUM_MS {
            return Err(Invalid::Range("VF_CFG_EXEC_QUANTUM"));
        }
        if self.preempt_timeout_us > MAX_PREEMPT_TIMEOUT_US {
            return Err(Invalid::Range("VF_CFG_PREEMPT_TIMEOUT"));
        }
        Ok(())
    }

    /// Writes the KLVs into `buf`; returns the dwords written and the KLVs among them (what
    /// the GuC's reply must count).
    ///
    /// # Errors
    ///
    /// [`VfConfig::validate`]'s, or `ENOSPC` when `buf` is short.
    pub(crate) fn encode(&self, buf: &mut [u32]) -> Result<(usize, u32)> {
        self.validate()?;
        let mut w = Writer::new(buf);
        let mut klvs = 0;
        let mut put = |w: &mut Writer<'_>, key: u32, value: &[u32]| -> Result {
            // CAST: the keys are 16-bit (seed 003).
            w.put(key as u16, value)?;
            klvs += 1;
            Ok(())
        };
        // CAST: the two halves, low first (seed 003: 64-bit values).
        let lo_hi = |v: u64| [v as u32, (v >> 32) as u32];
        if let Some(g) = self.ggtt {
            put(&mut w, XEHPG_KLV_VF_CFG_GGTT_START, &lo_hi(g.start))?;
            put(&mut w, XEHPG_KLV_VF_CFG_GGTT_SIZE, &lo_hi(g.size()))?;
        }
        put(
            &mut w,
            XEHPG_KLV_VF_CFG_BEGIN_CONTEXT_ID,
            &[self.contexts.begin],
        )?;
        put(
            &mut w,
            XEHPG_KLV_VF_CFG_NUM_CONTEXTS,
            &[self.contexts.count],
        )?;
        if self.doorbells.count > 0 {
            put(
                &mut w,
                XEHPG_KLV_VF_CFG_BEGIN_DOORBELL_ID,
                &[self.doorbells.begin],
            )?;
        }
        put(
            &mut w,
            XEHPG_KLV_VF_CFG_NUM_DOORBELLS,
            &[self.doorbells.count],
        )?;
        put(&mut w, XEHPG_KLV_VF_CFG_LMEM_SIZE, &lo_hi(self.lmem))?;
        put(
            &mut w,
            XEHPG_KLV_VF_CFG_EXEC_QUANTUM,
            &[self.exec_quantum_ms],
        )?;
        put(
            &mut w,
            XEHPG_KLV_VF_CFG_PREEMPT_TIMEOUT,
            &[self.preempt_timeout_us],
        )?;
        // Every one, zeros included, as upstream: a push states the whole configuration.
        for (&(key, _), &value) in THRESHOLDS.iter().zip(&self.thresholds) {
            put(&mut w, key, &[value])?;
        }
        Ok((w.len(), klvs))
    }
}

/// One threshold as its KLV, for a change on a running VF: returns dwords and KLVs written.
///
/// # Errors
///
/// `EINVAL` for an index past [`THRESHOLDS`], `ENOSPC` when `buf` is short.
pub(crate) fn encode_threshold(buf: &mut [u32], idx: usize, value: u32) -> Result<(usize, u32)> {
    let &(key, _) = THRESHOLDS.get(idx).ok_or(EINVAL)?;
    let mut w = Writer::new(buf);
    // CAST: the keys are 16-bit (seed 003).
    w.put(key as u16, &[value])?;
    Ok((w.len(), 1))
}

/// A scheduling setting of one function, as its configuration KLV (seed 003 line 11).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Sched {
    /// `EXEC_QUANTUM`: milliseconds, 0 infinite, at most 100 s.
    ExecQuantum,
    /// `PREEMPT_TIMEOUT`: microseconds, 0 none, at most 100 s.
    PreemptTimeout,
    /// `SCHED_PRIORITY`: 0 LOW, 1 NORMAL, 2 HIGH; the PF's only.
    Priority,
}

impl Sched {
    /// The key and the largest value it takes.
    const fn key_max(self) -> (u32, u32) {
        match self {
            Sched::ExecQuantum => (XEHPG_KLV_VF_CFG_EXEC_QUANTUM, MAX_EXEC_QUANTUM_MS),
            Sched::PreemptTimeout => (XEHPG_KLV_VF_CFG_PREEMPT_TIMEOUT, MAX_PREEMPT_TIMEOUT_US),
            Sched::Priority => (XEHPG_KLV_VF_CFG_SCHED_PRIORITY, MAX_PRIORITY),
        }
    }

    /// Whether `value` is within the key's range.
    pub(crate) const fn allows(self, value: u32) -> bool {
        value <= self.key_max().1
    }
}

/// One scheduling setting as its KLV, for a change on a function the GuC has a configuration
/// for (upstream `pf_push_vf_cfg_exec_quantum` and its siblings): returns dwords and KLVs
/// written.
///
/// # Errors
///
/// `ERANGE` for a value beyond the key's range, `ENOSPC` when `buf` is short.
pub(crate) fn encode_sched(buf: &mut [u32], what: Sched, value: u32) -> Result<(usize, u32)> {
    let (key, max) = what.key_max();
    if value > max {
        return Err(ERANGE);
    }
    let mut w = Writer::new(buf);
    // CAST: the keys are 16-bit (seed 003).
    w.put(key as u16, &[value])?;
    Ok((w.len(), 1))
}

/// A new `LMEM_SIZE` (whole 2 MiB pages) as its KLV, for a VF whose local memory changed
/// while the GuC has its configuration (upstream `pf_push_vf_cfg_lmem`): returns dwords and
/// KLVs written.
///
/// # Errors
///
/// `EINVAL` for a size that is not whole pages or 0, `ENOSPC` when `buf` is short.
pub(crate) fn encode_lmem(buf: &mut [u32], size: u64) -> Result<(usize, u32)> {
    if size == 0 || size % (2 << 20) != 0 {
        return Err(EINVAL);
    }
    let mut w = Writer::new(buf);
    // CAST: the key is 16-bit (seed 003); the halves, low first.
    w.put(
        XEHPG_KLV_VF_CFG_LMEM_SIZE as u16,
        &[size as u32, (size >> 32) as u32],
    )?;
    Ok((w.len(), 1))
}

/// The `SCHED_IF_IDLE` policy KLV (seed 003 line 9, for `PF2GUC_UPDATE_VGT_POLICY`): every
/// function is given its quantum even when idle, and the GuC makes every function's priority
/// NORMAL (LOW when off; upstream `xe_gt_sriov_pf_policy_set_sched_if_idle_locked`). Returns
/// dwords and KLVs written.
///
/// # Errors
///
/// `ENOSPC` when `buf` is short.
pub(crate) fn encode_policy(buf: &mut [u32], sched_if_idle: bool) -> Result<(usize, u32)> {
    let mut w = Writer::new(buf);
    // CAST: the key is 16-bit (seed 003).
    w.put(
        XEHPG_KLV_VGT_POLICY_SCHED_IF_IDLE as u16,
        &[u32::from(sched_if_idle)],
    )?;
    Ok((w.len(), 1))
}

/// Dwords of [`encode_self`]: four ID KLVs, three scheduling ones, the GGTT pair.
pub(crate) const SELF_DWORDS: usize = 2 * 4 + 3 * 2 + 3 * 2;

/// The PF's own configuration (VF 0), upstream's self-config (`pf_push_self_config`,
/// anchor-xe.md 6.5): every context ID and doorbell and the whole GuC GGTT window, out of
/// which the VFs' runs are carved, and the PF's scheduling (upstream gives the PF the VFs'
/// quantum and timeout while VFs run, 0 otherwise), with the priority the administrator chose
/// for the PF, if any (`SCHED_PRIORITY` last; without it the PF's follows the policy).
/// Returns dwords and KLVs written.
///
/// # Errors
///
/// `ERANGE` for a priority above HIGH, `ENOSPC` when `buf` is short.
pub(crate) fn encode_self(
    buf: &mut [u32],
    ggtt: Range,
    exec_quantum_ms: u32,
    preempt_timeout_us: u32,
    priority: Option<u32>,
) -> Result<(usize, u32)> {
    let mut w = Writer::new(buf);
    // CAST: the halves, low first.
    let lo_hi = |v: u64| [v as u32, (v >> 32) as u32];
    let klvs: [(u32, &[u32]); 8] = [
        (XEHPG_KLV_VF_CFG_BEGIN_CONTEXT_ID, &[0]),
        (XEHPG_KLV_VF_CFG_NUM_CONTEXTS, &[65535]),
        (XEHPG_KLV_VF_CFG_BEGIN_DOORBELL_ID, &[0]),
        (XEHPG_KLV_VF_CFG_NUM_DOORBELLS, &[256]),
        (XEHPG_KLV_VF_CFG_EXEC_QUANTUM, &[exec_quantum_ms]),
        (XEHPG_KLV_VF_CFG_PREEMPT_TIMEOUT, &[preempt_timeout_us]),
        (XEHPG_KLV_VF_CFG_GGTT_START, &lo_hi(ggtt.start)),
        (XEHPG_KLV_VF_CFG_GGTT_SIZE, &lo_hi(ggtt.size())),
    ];
    for (key, value) in klvs {
        // CAST: the keys are 16-bit (seed 003).
        w.put(key as u16, value)?;
    }
    let Some(p) = priority else {
        // CAST: eight.
        return Ok((w.len(), klvs.len() as u32));
    };
    if !Sched::Priority.allows(p) {
        return Err(ERANGE);
    }
    // CAST: the key is 16-bit (seed 003).
    w.put(XEHPG_KLV_VF_CFG_SCHED_PRIORITY as u16, &[p])?;
    // CAST: nine.
    Ok((w.len(), klvs.len() as u32 + 1))
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_sriov_config)]
mod tests {
    use super::*;

    fn full() -> VfConfig {
        VfConfig {
            ggtt: Some(Range {
                start: 0x1_0000_0000 - 0x2000_0000,
                end: 0x1_0000_0000,
            }),
            lmem: 0x1_0020_0000,
            contexts: IdRun {
                begin: 65535 - 1024,
                count: 1024,
            },
            doorbells: IdRun {
                begin: 16,
                count: 32,
            },
            exec_quantum_ms: 16,
            preempt_timeout_us: 16_000,
            thresholds: [3, 0, 0, 0, 0, 500],
        }
    }

    #[test]
    fn a_full_config_in_upstreams_order() -> Result {
        let mut buf = [0xdead_beef; MAX_DWORDS + 1];
        let (len, klvs) = full().encode(&mut buf)?;
        let want = [
            0x0001_0002,
            0xe000_0000,
            0x0000_0000, // GGTT_START
            0x0002_0002,
            0x2000_0000,
            0x0000_0000, // GGTT_SIZE
            0x8a0b_0001,
            64511, // BEGIN_CONTEXT_ID
            0x0004_0001,
            1024, // NUM_CONTEXTS
            0x8a0a_0001,
            16, // BEGIN_DOORBELL_ID
            0x0006_0001,
            32, // NUM_DOORBELLS
            0x0003_0002,
            0x0020_0000,
            0x0000_0001, // LMEM_SIZE
            0x8a01_0001,
            16, // EXEC_QUANTUM
            0x8a02_0001,
            16000, // PREEMPT_TIMEOUT
            0x8a03_0001,
            3, // THRESHOLD_CAT_ERR
            0x8a04_0001,
            0, // THRESHOLD_ENGINE_RESET
            0x8a05_0001,
            0, // THRESHOLD_PAGE_FAULT
            0x8a06_0001,
            0, // THRESHOLD_H2G_STORM
            0x8a07_0001,
            0, // THRESHOLD_IRQ_STORM
            0x8a08_0001,
            500, // THRESHOLD_DOORBELL_STORM
        ];
        assert_eq!(len, want.len());
        assert_eq!(len, MAX_DWORDS);
        assert_eq!(&buf[..len], &want[..]);
        assert_eq!(klvs, 15);
        assert_eq!(buf[len], 0xdead_beef);
        Ok(())
    }

    #[test]
    fn no_doorbells_sends_no_begin() -> Result {
        let cfg = VfConfig {
            doorbells: IdRun::default(),
            ..full()
        };
        let mut buf = [0; MAX_DWORDS];
        let (len, klvs) = cfg.encode(&mut buf)?;
        assert_eq!((len, klvs), (MAX_DWORDS - 2, 14));
        assert_eq!(&buf[10..12], &[0x0006_0001, 0]);
        Ok(())
    }

    #[test]
    fn incomplete_or_out_of_range_is_refused() {
        let mut buf = [0; MAX_DWORDS];
        assert_eq!(VfConfig::default().validate(), Err(Invalid::Empty));
        let no_lmem = VfConfig { lmem: 0, ..full() };
        assert_eq!(no_lmem.validate(), Err(Invalid::Missing("local memory")));
        assert_eq!(no_lmem.encode(&mut buf), Err(ENOKEY));
        let no_ggtt = VfConfig {
            ggtt: None,
            ..full()
        };
        assert_eq!(no_ggtt.validate(), Err(Invalid::Missing("GGTT")));
        let odd = VfConfig {
            lmem: 3 << 20,
            ..full()
        };
        assert_eq!(odd.encode(&mut buf), Err(ERANGE));
        let too_many = VfConfig {
            doorbells: IdRun {
                begin: 200,
                count: 57,
            },
            ..full()
        };
        assert_eq!(
            too_many.validate(),
            Err(Invalid::Range("VF_CFG_NUM_DOORBELLS"))
        );
        let slow = VfConfig {
            exec_quantum_ms: 100_001,
            ..full()
        };
        assert_eq!(slow.validate(), Err(Invalid::Range("VF_CFG_EXEC_QUANTUM")));
    }

    #[test]
    fn one_scheduling_setting_within_its_range() -> Result {
        let mut buf = [0; 2];
        assert_eq!(encode_sched(&mut buf, Sched::ExecQuantum, 50)?, (2, 1));
        assert_eq!(buf, [0x8a01_0001, 50]);
        assert_eq!(encode_sched(&mut buf, Sched::Priority, 2)?, (2, 1));
        assert_eq!(buf, [0x8a0c_0001, 2]);
        assert_eq!(
            encode_sched(&mut buf, Sched::PreemptTimeout, 100_000_001),
            Err(ERANGE)
        );
        assert_eq!(encode_sched(&mut buf, Sched::Priority, 3), Err(ERANGE));
        assert_eq!(
            encode_sched(&mut buf, Sched::ExecQuantum, 100_001),
            Err(ERANGE)
        );
        assert_eq!(encode_policy(&mut buf, true)?, (2, 1));
        assert_eq!(buf, [0x8001_0001, 1]);
        let mut three = [0; 3];
        assert_eq!(encode_lmem(&mut three, 6 << 30)?, (3, 1));
        assert_eq!(three, [0x0003_0002, 0x8000_0000, 1]);
        assert_eq!(encode_lmem(&mut three, 3 << 20), Err(EINVAL));
        assert_eq!(encode_lmem(&mut three, 0), Err(EINVAL));
        let mut short = [0; 1];
        assert_eq!(encode_sched(&mut short, Sched::ExecQuantum, 1), Err(ENOSPC));
        Ok(())
    }

    #[test]
    fn a_threshold_alone_and_by_name() -> Result {
        let mut buf = [0; 3];
        assert_eq!(encode_threshold(&mut buf, 5, 250)?, (2, 1));
        assert_eq!(&buf[..2], &[0x8a08_0001, 250]);
        assert_eq!(encode_threshold(&mut buf, 6, 1), Err(EINVAL));
        assert_eq!(encode_threshold(&mut buf[..1], 0, 1), Err(ENOSPC));
        assert_eq!(threshold_by_name("guc_time_us"), Some(3));
        assert_eq!(threshold_by_name("multi_lrc_count"), None);
        assert_eq!(threshold_index(0x8a05), Some(2));
        assert_eq!(threshold_index(0x8a0d), None);
        Ok(())
    }

    // Upstream's DG2 self-config, as anchor-xe.md 6.5 derives it (without thresholds).
    #[test]
    fn the_pf_self_config() -> Result {
        let mut buf = [0; SELF_DWORDS];
        let window = Range {
            start: 0x40_0000,
            end: 0xfee0_0000,
        };
        let (len, klvs) = encode_self(&mut buf, window, 16, 16000, None)?;
        assert_eq!((len, klvs), (SELF_DWORDS - 2, 8));
        let want = [
            0x8a0b_0001,
            0,
            0x0004_0001,
            65535,
            0x8a0a_0001,
            0,
            0x0006_0001,
            256,
            0x8a01_0001,
            16,
            0x8a02_0001,
            16000,
            0x0001_0002,
            0x40_0000,
            0,
            0x0002_0002,
            0xfea0_0000,
            0,
        ];
        assert_eq!(&buf[..len], &want[..]);
        // The administrator's priority for the PF, last.
        let (len, klvs) = encode_self(&mut buf, window, 16, 16000, Some(2))?;
        assert_eq!((len, klvs), (SELF_DWORDS, 9));
        assert_eq!(&buf[len - 2..], &[0x8a0c_0001, 2]);
        assert_eq!(encode_self(&mut buf, window, 0, 0, Some(3)), Err(ERANGE));
        let mut short = [0; SELF_DWORDS - 3];
        assert_eq!(encode_self(&mut short, window, 0, 0, None), Err(ENOSPC));
        Ok(())
    }

    #[test]
    fn a_short_buffer_is_enospc() {
        let mut buf = [0; MAX_DWORDS - 3];
        assert_eq!(full().encode(&mut buf), Err(ENOSPC));
    }
}
