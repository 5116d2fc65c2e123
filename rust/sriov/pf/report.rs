// SPDX-License-Identifier: GPL-2.0

//! The debugfs `sriov` report: the PF's limits and counters, the last provision's and
//! unprovision's cost, the maps of the GGTT window and local memory (tools/sriov-map draws
//! them) and one line per provisioned VF.

use kernel::sync::atomic::Relaxed;

use super::{Owner, Pf};
use crate::{
    mem::{
        ggtt::{GUC_GGTT_BOTTOM, GUC_GGTT_TOP},
        lmem::Pages,
    },
    range::Range,
};

/// Writes ` NAME a,b,c`.
fn fmt_list(f: &mut impl core::fmt::Write, name: &str, values: &[u32]) -> core::fmt::Result {
    write!(f, "{name} ")?;
    for (i, v) in values.iter().enumerate() {
        let sep = if i == 0 { "" } else { "," };
        write!(f, "{sep}{v}")?;
    }
    Ok(())
}

impl Pf {
    /// The debugfs `sriov` report: limits, then one line per provisioned VF.
    pub(crate) fn fmt(&self, f: &mut impl core::fmt::Write) -> core::fmt::Result {
        let st = self.state.lock();
        writeln!(
            f,
            "total_vfs: {}\nprovisioned: {}\nby: {}\nlmtt_dir: {:#x}\ncontexts_free: {}\n\
             doorbells_free: {}",
            self.total,
            st.vfs.len(),
            match st.owner {
                Some(Owner::Pci) => "sriov_numvfs",
                #[cfg(xehpg_test)]
                Some(Owner::Debugfs) => "debugfs",
                None => "-",
            },
            self.dir.start,
            st.contexts.total() - st.contexts.used(),
            st.doorbells.total() - st.doorbells.used()
        )?;
        writeln!(
            f,
            "flr_done: {}\nflr_failed: {}\nflr_bad_transitions: {}\nbad_notices: {}\n\
             adverse_events: {}",
            self.stats.flr_done.load(Relaxed),
            self.stats.flr_failed.load(Relaxed),
            self.stats.flr_bad_transitions.load(Relaxed),
            self.stats.bad_notices.load(Relaxed),
            self.stats.adverse_events.load(Relaxed)
        )?;
        writeln!(
            f,
            "lmtt_invalidations: {}\nlmtt_inval_failed: {}",
            self.stats.lmtt_invalidations.load(Relaxed),
            self.stats.lmtt_inval_failed.load(Relaxed)
        )?;
        let r = &self.stats.relay;
        writeln!(
            f,
            "relay_served: {}\nrelay_refused: {}\nrelay_busy: {}\nrelay_dropped: {}\n\
             relay_bad: {}\nrelay_send_failed: {}",
            r.served.load(Relaxed),
            r.refused.load(Relaxed),
            r.busy.load(Relaxed),
            r.dropped.load(Relaxed),
            r.bad.load(Relaxed),
            r.send_failed.load(Relaxed)
        )?;
        // The relay versions agreed, per VF (a copy: the inbox is a spinlock).
        let agreed = self.inbox.lock().relay.map(|slot| slot.agreed());
        write!(f, "relay_agreed:")?;
        for (vf, v) in agreed.iter().enumerate() {
            if let Some(v) = v {
                write!(f, " vf{}={}.{}", vf, v.major, v.minor)?;
            }
        }
        writeln!(f)?;
        self.stats.provision.fmt(f, "provision_last")?;
        self.stats.unprovision.fmt(f, "unprovision_last")?;
        // The maps (which function owns what; tools/sriov-map draws them): the GuC's GGTT
        // window and what is allocated in it (the PF's and the VFs' ranges), the CPU-visible
        // pool and what is allocated in it (the PF's objects, the LMTT directory and leaves),
        // the local memory VFs share and the usable top.
        fmt_window(
            f,
            "ggtt_window",
            Range {
                start: GUC_GGTT_BOTTOM,
                end: GUC_GGTT_TOP,
            },
        )?;
        write!(f, "ggtt_used:")?;
        self.b
            .hw
            .ggtt()
            .for_each_used(|r| write!(f, " {:#x}-{:#x}", r.start, r.end))?;
        writeln!(f)?;
        fmt_window(f, "lmem_pool", self.b.hw.pool().window())?;
        write!(f, "lmem_pool_used:")?;
        self.b
            .hw
            .pool()
            .for_each_used(|r| write!(f, " {:#x}-{:#x}", r.start, r.end))?;
        writeln!(f)?;
        fmt_window(f, "lmem_vf", st.vf_lmem.window())?;
        writeln!(f, "lmem_usable: {:#x}", self.usable)?;
        for (i, v) in st.vfs.iter().enumerate() {
            let g = v.ggtt.unwrap_or(Range { start: 0, end: 0 });
            let c = v.contexts.unwrap_or_default();
            let d = v.doorbells.unwrap_or_default();
            let p = v.pushed.unwrap_or_default();
            let leaf = v
                .leaf
                .as_deref()
                .copied()
                .unwrap_or(Range { start: 0, end: 0 });
            write!(f, "vf{}: ggtt {:#x}-{:#x} lmem ", i + 1, g.start, g.end)?;
            // Its runs in address order, comma-separated (one run, or `0x0-0x0` for none).
            let none = [Range { start: 0, end: 0 }];
            let runs = v.lmem.as_ref().map_or(&none[..], Pages::runs);
            for (k, r) in runs.iter().enumerate() {
                let sep = if k == 0 { "" } else { "," };
                write!(f, "{}{:#x}-{:#x}", sep, r.start, r.end)?;
            }
            write!(
                f,
                " contexts {}+{} doorbells {}+{} pushed {} eq_ms {} pt_us {} priority {} flr {:?} \
                 leaf {:#x}-{:#x}",
                c.begin,
                c.count,
                d.begin,
                d.count,
                u8::from(v.pushed.is_some()),
                p.exec_quantum_ms,
                p.preempt_timeout_us,
                st.policy_priority(),
                v.flr,
                leaf.start,
                leaf.end
            )?;
            // Thresholds and the GuC's adverse-event counts, in THRESHOLDS' order.
            let adverse = self
                .inbox
                .lock()
                .adverse
                .get(i + 1)
                .copied()
                .unwrap_or_default();
            fmt_list(f, " thresholds", &p.thresholds)?;
            fmt_list(f, " adverse", &adverse)?;
            writeln!(f)?;
        }
        Ok(())
    }
}

/// A `name: START-END` line of debugfs `sriov`.
fn fmt_window(f: &mut impl core::fmt::Write, name: &str, r: Range) -> core::fmt::Result {
    writeln!(f, "{}: {:#x}-{:#x}", name, r.start, r.end)
}
