// SPDX-License-Identifier: GPL-2.0

//! Key-length-value lists, the GuC's configuration format: one encoder and one decoder for
//! every user (SELF_CFG, scheduling and context policies, VF configuration, and the hwconfig
//! table, which has its own header layout).
//!
//! Two header layouts exist:
//!
//! - [`Layout::Guc`], the GuC ABI's (`abi/guc_klvs_abi.h`): one header dword, key in 31:16
//!   and the value's length in dwords in 15:0, then the value; a 64-bit value is two dwords,
//!   low first. A KLV of length 0 is a flag (the opt-in features).
//! - [`Layout::Hwconfig`], the hwconfig table's (`xe_guc_hwconfig.c`, its dump): key dword,
//!   length dword, then the value.
//!
//! The decoder never reads past the slice: a header that is cut off, or a length that runs
//! past the end, is an error naming the entry, what it claimed and what was left
//! ([`Malformed`]), and nothing after it is trusted. Lists come from the GuC and, later, from
//! VFs through it: untrusted input.

use kernel::prelude::*;

use crate::abi::*;

/// A header layout.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Layout {
    /// Key 31:16, length 15:0 in one dword. The driver encodes this layout (SELF_CFG); it
    /// decodes it only in KUnit until the CT's G2H side reads KLVs from the GuC.
    #[cfg_attr(
        not(xehpg_kunit),
        expect(dead_code, reason = "constructed only by KUnit until G2H reads KLVs")
    )]
    Guc,
    /// Key dword, then length dword.
    Hwconfig,
}

impl Layout {
    /// Header dwords.
    const fn header(self) -> usize {
        match self {
            Layout::Guc => 1,
            Layout::Hwconfig => 2,
        }
    }

    /// Key and value length of the header at the start of `h` (which holds
    /// [`Layout::header`] dwords).
    fn split(self, h: &[u32]) -> (u32, u32) {
        match (self, h) {
            (Layout::Guc, [w, ..]) => (w >> XEHPG_KLV_KEY_SHIFT, w & XEHPG_KLV_LEN_MASK),
            (Layout::Hwconfig, [k, l, ..]) => (*k, *l),
            _ => (0, 0),
        }
    }
}

/// One decoded KLV, borrowing its value from the list.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Klv<'a> {
    pub(crate) key: u32,
    pub(crate) value: &'a [u32],
}

/// A list that does not decode: entry `entry` (counted from 0) claims `claimed` value dwords
/// where `left` remain after its header; `claimed` is 0 when not even the header is whole.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Malformed {
    pub(crate) entry: usize,
    pub(crate) claimed: u32,
    pub(crate) left: usize,
}

/// The KLVs of `list`, in order; a malformed tail ends the iteration with its error.
pub(crate) fn iter(list: &[u32], layout: Layout) -> Iter<'_> {
    Iter {
        rest: list,
        layout,
        entry: 0,
        failed: false,
    }
}

/// Iterator over a KLV list ([`iter`]).
pub(crate) struct Iter<'a> {
    rest: &'a [u32],
    layout: Layout,
    entry: usize,
    failed: bool,
}

impl<'a> Iterator for Iter<'a> {
    type Item = Result<Klv<'a>, Malformed>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() || self.failed {
            return None;
        }
        let hdr = self.layout.header();
        let entry = self.entry;
        let Some((head, after)) = self.rest.split_at_checked(hdr) else {
            self.failed = true;
            return Some(Err(Malformed {
                entry,
                claimed: 0,
                left: self.rest.len(),
            }));
        };
        let (key, len) = self.layout.split(head);
        let Some((value, rest)) = after.split_at_checked(len as usize) else {
            self.failed = true;
            return Some(Err(Malformed {
                entry,
                claimed: len,
                left: after.len(),
            }));
        };
        self.rest = rest;
        self.entry += 1;
        Some(Ok(Klv { key, value }))
    }
}

/// Checks that `list` decodes whole; returns how many KLVs it holds.
///
/// # Errors
///
/// The first malformed entry.
pub(crate) fn count(list: &[u32], layout: Layout) -> Result<usize, Malformed> {
    iter(list, layout).try_fold(0, |n, k| k.map(|_| n + 1))
}

/// Writes GuC-layout KLVs into a caller's buffer.
pub(crate) struct Writer<'a> {
    buf: &'a mut [u32],
    len: usize,
}

impl<'a> Writer<'a> {
    /// A writer filling `buf` from its start.
    pub(crate) fn new(buf: &'a mut [u32]) -> Self {
        Self { buf, len: 0 }
    }

    /// Appends a KLV with `value` (0 to 0xFFFF dwords; none is a flag).
    ///
    /// # Errors
    ///
    /// `ENOSPC` if the buffer cannot hold it, `E2BIG` if the value is longer than the length
    /// field holds; nothing is written then.
    pub(crate) fn put(&mut self, key: u16, value: &[u32]) -> Result {
        let len = u32::try_from(value.len())
            .ok()
            .filter(|&l| l <= XEHPG_KLV_LEN_MASK)
            .ok_or(E2BIG)?;
        let end = self.len + 1 + value.len();
        let dst = self.buf.get_mut(self.len..end).ok_or(ENOSPC)?;
        let (head, tail) = dst.split_at_mut(1);
        head[0] = (u32::from(key) << XEHPG_KLV_KEY_SHIFT) | len;
        for (d, v) in tail.iter_mut().zip(value) {
            *d = *v;
        }
        self.len = end;
        Ok(())
    }

    /// Dwords written so far.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Appends a one-dword KLV.
    ///
    /// # Errors
    ///
    /// As [`Writer::put`].
    pub(crate) fn put_u32(&mut self, key: u16, value: u32) -> Result {
        self.put(key, &[value])
    }

    /// Appends a two-dword KLV, low dword first.
    ///
    /// # Errors
    ///
    /// As [`Writer::put`].
    pub(crate) fn put_u64(&mut self, key: u16, value: u64) -> Result {
        // CAST: the two halves of `value`.
        self.put(key, &[value as u32, (value >> 32) as u32])
    }
}

/// The GuC-layout keys this driver sends, with upstream's names (`abi/guc_klvs_abi.h`).
const GUC_KEYS: &[(u32, &str)] = &[
    (XEHPG_KLV_VF_CFG_GGTT_START, "VF_CFG_GGTT_START"),
    (XEHPG_KLV_VF_CFG_GGTT_SIZE, "VF_CFG_GGTT_SIZE"),
    (XEHPG_KLV_VF_CFG_LMEM_SIZE, "VF_CFG_LMEM_SIZE"),
    (XEHPG_KLV_VF_CFG_NUM_CONTEXTS, "VF_CFG_NUM_CONTEXTS"),
    (XEHPG_KLV_VF_CFG_NUM_DOORBELLS, "VF_CFG_NUM_DOORBELLS"),
    (XEHPG_KLV_SELF_CFG_H2G_CTB_ADDR, "SELF_CFG_H2G_CTB_ADDR"),
    (
        XEHPG_KLV_SELF_CFG_H2G_CTB_DESCRIPTOR_ADDR,
        "SELF_CFG_H2G_CTB_DESCRIPTOR_ADDR",
    ),
    (XEHPG_KLV_SELF_CFG_H2G_CTB_SIZE, "SELF_CFG_H2G_CTB_SIZE"),
    (XEHPG_KLV_SELF_CFG_G2H_CTB_ADDR, "SELF_CFG_G2H_CTB_ADDR"),
    (
        XEHPG_KLV_SELF_CFG_G2H_CTB_DESCRIPTOR_ADDR,
        "SELF_CFG_G2H_CTB_DESCRIPTOR_ADDR",
    ),
    (XEHPG_KLV_SELF_CFG_G2H_CTB_SIZE, "SELF_CFG_G2H_CTB_SIZE"),
    (
        XEHPG_KLV_SCHEDULING_POLICIES_RENDER_COMPUTE_YIELD,
        "SCHEDULING_POLICIES_RENDER_COMPUTE_YIELD",
    ),
    (
        XEHPG_KLV_OPT_IN_FEATURE_EXT_CAT_ERR_TYPE,
        "OPT_IN_FEATURE_EXT_CAT_ERR_TYPE",
    ),
    (
        XEHPG_KLV_CONTEXT_POLICY_EXECUTION_QUANTUM,
        "CONTEXT_POLICY_EXECUTION_QUANTUM",
    ),
    (
        XEHPG_KLV_CONTEXT_POLICY_PREEMPTION_TIMEOUT,
        "CONTEXT_POLICY_PREEMPTION_TIMEOUT",
    ),
    (
        XEHPG_KLV_CONTEXT_POLICY_SCHEDULING_PRIORITY,
        "CONTEXT_POLICY_SCHEDULING_PRIORITY",
    ),
    (XEHPG_KLV_VF_CFG_EXEC_QUANTUM, "VF_CFG_EXEC_QUANTUM"),
    (XEHPG_KLV_VF_CFG_PREEMPT_TIMEOUT, "VF_CFG_PREEMPT_TIMEOUT"),
    (
        XEHPG_KLV_VF_CFG_BEGIN_DOORBELL_ID,
        "VF_CFG_BEGIN_DOORBELL_ID",
    ),
    (XEHPG_KLV_VF_CFG_BEGIN_CONTEXT_ID, "VF_CFG_BEGIN_CONTEXT_ID"),
    (XEHPG_KLV_VF_CFG_SCHED_PRIORITY, "VF_CFG_SCHED_PRIORITY"),
];

/// The name of a GuC-layout key this driver knows.
pub(crate) fn guc_key_name(key: u32) -> Option<&'static str> {
    GUC_KEYS.iter().find(|(k, _)| *k == key).map(|(_, n)| *n)
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_guc_klv)]
mod tests {
    use super::*;

    #[test]
    fn encodes_like_the_abi() {
        let mut buf = [0u32; 8];
        let mut w = Writer::new(&mut buf);
        assert!(w
            .put_u64(XEHPG_KLV_VF_CFG_GGTT_START as u16, 0x1_2345_6000)
            .is_ok());
        assert!(w
            .put_u32(XEHPG_KLV_VF_CFG_NUM_CONTEXTS as u16, 1024)
            .is_ok());
        assert!(w.put(0x4001, &[]).is_ok());
        assert_eq!(w.len, 6);
        // Header dwords as upstream's PREP_GUC_KLV: GGTT_START 0x00010002,
        // NUM_CONTEXTS 0x00040001, a flag 0x40010000.
        assert_eq!(
            buf,
            [
                0x0001_0002,
                0x2345_6000,
                0x1,
                0x0004_0001,
                1024,
                0x4001_0000,
                0,
                0
            ]
        );
    }

    #[test]
    fn a_full_buffer_writes_nothing() {
        let mut buf = [0u32; 3];
        let mut w = Writer::new(&mut buf);
        assert!(w.put_u32(1, 7).is_ok());
        // Needs 3 dwords, 1 left.
        assert_eq!(w.put_u64(2, 9), Err(ENOSPC));
        assert_eq!(w.len, 2);
        assert!(w.put(3, &[]).is_ok());
        assert_eq!(w.put(4, &[]), Err(ENOSPC));
        assert_eq!(buf, [0x0001_0001, 7, 0x0003_0000]);
    }

    #[test]
    fn decodes_both_layouts() {
        let guc = [
            0x0001_0002,
            0x2345_6000,
            0x1,
            0x0004_0001,
            1024,
            0x4001_0000,
        ];
        let mut it = iter(&guc, Layout::Guc);
        let a = it.next().and_then(|k| k.ok());
        assert_eq!(
            a.map(|k| (k.key, k.value)),
            Some((1, &[0x2345_6000, 0x1][..]))
        );
        let b = it.next().and_then(|k| k.ok());
        assert_eq!(b.map(|k| (k.key, k.value)), Some((4, &[1024][..])));
        let c = it.next().and_then(|k| k.ok());
        assert_eq!(c.map(|k| (k.key, k.value.len())), Some((0x4001, 0)));
        assert!(it.next().is_none());
        assert_eq!(count(&guc, Layout::Guc), Ok(3));
        // The same entries in the hwconfig layout.
        let hw = [1, 2, 0x2345_6000, 0x1, 4, 1, 1024, 0x4001, 0];
        assert_eq!(count(&hw, Layout::Hwconfig), Ok(3));
        assert_eq!(count(&[], Layout::Guc), Ok(0));
    }

    #[test]
    fn every_malformed_shape_is_refused() {
        // A length past the end.
        assert_eq!(
            count(&[0x0001_0002, 5], Layout::Guc),
            Err(Malformed {
                entry: 0,
                claimed: 2,
                left: 1
            })
        );
        // A good entry, then a length past the end.
        assert_eq!(
            count(&[0x0004_0001, 9, 0x0005_ffff], Layout::Guc),
            Err(Malformed {
                entry: 1,
                claimed: 0xffff,
                left: 0
            })
        );
        // A hwconfig header cut after its key.
        assert_eq!(
            count(&[7, 1, 3, 8], Layout::Hwconfig),
            Err(Malformed {
                entry: 1,
                claimed: 0,
                left: 1
            })
        );
        // A hwconfig length near u32::MAX does not wrap.
        assert_eq!(
            count(&[7, u32::MAX, 3], Layout::Hwconfig),
            Err(Malformed {
                entry: 0,
                claimed: u32::MAX,
                left: 1
            })
        );
        // Nothing after the error is yielded.
        let bad = [0x0001_0005, 1, 0x0004_0001, 2];
        let items: KVec<_> = {
            let mut v = KVec::new();
            for k in iter(&bad, Layout::Guc) {
                let _ = v.push(k, GFP_KERNEL);
            }
            v
        };
        assert_eq!(items.len(), 1);
        assert!(items[0].is_err());
    }

    #[test]
    fn key_names() {
        assert_eq!(
            guc_key_name(XEHPG_KLV_SELF_CFG_G2H_CTB_SIZE),
            Some("SELF_CFG_G2H_CTB_SIZE")
        );
        assert_eq!(guc_key_name(0xf000), None);
    }
}
