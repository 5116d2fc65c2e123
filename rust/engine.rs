// SPDX-License-Identifier: GPL-2.0

//! The engines of an Xe-HPG part: which exist, where their registers are, which forcewake
//! domain keeps them awake and which interrupt source reports for them; and the hardware
//! formats the submission block writes and reads: registers ([`regs`]), commands
//! ([`cmd`]), the logical ring context ([`lrc`]), ring arithmetic ([`ring`]) and the context
//! status buffer ([`csb`]).
//!
//! The table is upstream's (`xe_hw_engine.c` `engine_infos`, MMIO bases from
//! `regs/xe_engine_regs.h`): RCS0, BCS0, CCS0-3, VCS0-7 and VECS0-3 (the GSC engine is not used
//! on DG2, `xe_pci.c` `graphics_xehpg`). Which of them a device has comes from the fuses,
//! through [`Present`]. Two checks tie it to the other sources of truth:
//!
//! - at build time, every engine's register window (base to `RING_EXECLIST_CONTROL`, +0x550,
//!   the highest register submission will use, `regs/xe_engine_regs.h`) lies in the
//!   forcewake domain upstream names, according to the PRM's forcewake table (seed 000 lines
//!   467, 565-590 for render, compute and copy, 593-697 for the media engines), which the
//!   driver's table is generated from;
//! - in KUnit, every engine is an interrupt source of the same class and instance.

// The children other blocks name as namespaces stay visible: the formats submission and the
// GuC's ADS build from (`regs`, `lrc`, `csb`, and `ccs`, whose registers the ADS lists), and the
// interrupt source table `irq` walks (`source`). The rest is reached through the re-exports
// below.
pub(crate) mod ccs;
mod cmd;
pub(crate) mod csb;
pub(crate) mod lrc;
pub(crate) mod regs;
mod ring;
pub(crate) mod source;
mod wa;

pub(crate) use cmd::{request as request_commands, Payload, REQUEST_DWORDS};
pub(crate) use ring::Ring;
pub(crate) use source::{Class, Mode, Plan, Present};
pub(crate) use wa::{apply as apply_workarounds, save_restore as workaround_save_restore};

use crate::gt::{wake_of, Domain, Wake};

/// The register window of an engine that submission uses: `RING_TAIL` (+0x30) to
/// `RING_EXECLIST_CONTROL` (+0x550).
const WINDOW_END: u32 = 0x550;

/// One engine.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Engine {
    pub(crate) name: &'static str,
    pub(crate) class: Class,
    pub(crate) instance: u8,
    /// Start of its registers in BAR 0.
    pub(crate) mmio_base: u32,
    /// What must be awake for them.
    pub(crate) domain: Domain,
}

const fn e(
    name: &'static str,
    class: Class,
    instance: u8,
    mmio_base: u32,
    domain: Domain,
) -> Engine {
    Engine {
        name,
        class,
        instance,
        mmio_base,
        domain,
    }
}

/// Every engine an Xe-HPG part can have.
pub(crate) const ENGINES: [Engine; 18] = {
    use Class::*;
    use Domain as D;
    [
        e("rcs0", Render, 0, 0x0000_2000, D::Render),
        e("bcs0", Copy, 0, 0x0002_2000, D::Gt),
        e("ccs0", Compute, 0, 0x0001_a000, D::Render),
        e("ccs1", Compute, 1, 0x0001_c000, D::Render),
        e("ccs2", Compute, 2, 0x0001_e000, D::Render),
        e("ccs3", Compute, 3, 0x0002_6000, D::Render),
        e("vcs0", VideoDecode, 0, 0x001c_0000, D::Vdbox(0)),
        e("vcs1", VideoDecode, 1, 0x001c_4000, D::Vdbox(1)),
        e("vcs2", VideoDecode, 2, 0x001d_0000, D::Vdbox(2)),
        e("vcs3", VideoDecode, 3, 0x001d_4000, D::Vdbox(3)),
        e("vcs4", VideoDecode, 4, 0x001e_0000, D::Vdbox(4)),
        e("vcs5", VideoDecode, 5, 0x001e_4000, D::Vdbox(5)),
        e("vcs6", VideoDecode, 6, 0x001f_0000, D::Vdbox(6)),
        e("vcs7", VideoDecode, 7, 0x001f_4000, D::Vdbox(7)),
        e("vecs0", VideoEnhance, 0, 0x001c_8000, D::Vebox(0)),
        e("vecs1", VideoEnhance, 1, 0x001d_8000, D::Vebox(1)),
        e("vecs2", VideoEnhance, 2, 0x001e_8000, D::Vebox(2)),
        e("vecs3", VideoEnhance, 3, 0x001f_8000, D::Vebox(3)),
    ]
};

/// Whether `offset` needs exactly `domain` in the PRM's forcewake table.
pub(crate) const fn in_domain(offset: u32, domain: Domain) -> bool {
    match wake_of(offset) {
        Wake::Domain(d) => d.index() == domain.index(),
        Wake::None => false,
    }
}

// Upstream's domains agree with the PRM's table over each engine's whole register window.
// Named, and never used, for rustc 1.85, as `regs::ALL_CHECKED`.
#[expect(dead_code, reason = "evaluated for its asserts; named for rustc 1.85")]
const WINDOWS_CHECKED: () = {
    let mut i = 0;
    while i < ENGINES.len() {
        let e = &ENGINES[i];
        assert!(in_domain(e.mmio_base, e.domain));
        assert!(in_domain(e.mmio_base + WINDOW_END, e.domain));
        i += 1;
    }
};

impl Engine {
    /// Whether the fuses say this engine exists (RCS0 and BCS0 always do on these parts).
    pub(crate) const fn present(&self, p: &Present) -> bool {
        p.contains(self.class, self.instance)
    }
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_engine)]
mod tests {
    use super::*;
    use crate::engine::source::{lookup as source, SOURCES};
    use kernel::prelude::*;

    #[test]
    fn every_engine_is_an_interrupt_source() {
        for e in ENGINES.iter() {
            let i = source(e.class, u32::from(e.instance));
            assert!(i.is_some());
            let s = SOURCES.get(i.unwrap_or(usize::MAX));
            assert_eq!(s.map(|s| s.name), Some(e.name));
        }
    }

    #[test]
    fn presence_follows_the_fuses() {
        let p = Present {
            ccs: 0b0101,
            vcs: 0b0000_0101,
            vecs: 0b0001,
        };
        let names: [&str; 7] = ["rcs0", "bcs0", "ccs0", "ccs2", "vcs0", "vcs2", "vecs0"];
        let mut present = ENGINES.iter().filter(|e| e.present(&p)).map(|e| e.name);
        for n in names {
            assert_eq!(present.next(), Some(n));
        }
        assert_eq!(present.next(), None);
    }

    #[test]
    fn masked_writes_carry_their_mask() {
        use regs::{MaskedWrite, CONTEXT_STATUS_PTR, GFX_MODE, MI_MODE, RESET_CTL};
        // Execlists on: bit 3 selected and set (xe `xe_hw_engine.c`, `_MASKED_BIT_ENABLE`).
        let legacy_off = GFX_MODE::zeroed().with_disable_legacy_mode(true);
        assert_eq!(MaskedWrite::enable(legacy_off).raw(), 0x0008_0008);
        // The reset request withdrawn: bit 0 selected, cleared.
        let request = RESET_CTL::zeroed().with_request(true);
        assert_eq!(MaskedWrite::disable(request).raw(), 0x0001_0000);
        assert_eq!(MaskedWrite::enable(request).raw(), 0x0001_0001);
        let stop = MI_MODE::zeroed().with_stop_ring(true);
        assert_eq!(MaskedWrite::disable(stop).raw(), 0x0100_0000);
        // Both CSB pointers to 11: the whole low half written.
        let ptrs = CONTEXT_STATUS_PTR::zeroed()
            .with_read(11u8)
            .with_write(11u8);
        assert_eq!(MaskedWrite::all(ptrs).raw(), 0xffff_0b0b);
        // A value bit outside the mask is not written.
        assert_eq!(regs::raw_bits(0x0004, 0x0006), 0x0004_0004);
    }

    #[test]
    fn engine_registers_land_at_base_plus_offset() {
        use regs::{offset, offset_at, GFX_MODE, RESET_CTL, SQ_CONTENTS_HI, SQ_CONTENTS_LO};
        let base = |name: &str| ENGINES.iter().find(|e| e.name == name).map(|e| e.mmio_base);
        assert_eq!(
            base("rcs0").map(|b| b + offset::<RESET_CTL>()),
            Some(0x20d0)
        );
        assert_eq!(
            base("ccs3").map(|b| b + offset::<GFX_MODE>()),
            Some(0x2629c)
        );
        assert_eq!(offset_at::<SQ_CONTENTS_LO>(0), 0x510);
        assert_eq!(offset_at::<SQ_CONTENTS_HI>(0), 0x514);
        assert_eq!(offset_at::<SQ_CONTENTS_LO>(1), 0x518);
        assert_eq!(offset_at::<SQ_CONTENTS_HI>(7), 0x54c);
    }

    #[test]
    fn a_window_outside_its_domain_is_caught() {
        // The check above would refuse these: BCS0 is not a render register, and VCS1's
        // window is VD1's, not VD0's.
        assert!(!in_domain(0x0002_2000, Domain::Render));
        assert!(!in_domain(0x001c_4000, Domain::Vdbox(0)));
        assert!(in_domain(0x001c_4000 + WINDOW_END, Domain::Vdbox(1)));
    }
}
