// SPDX-License-Identifier: GPL-2.0

//! Ring arithmetic and the G2H reader's validation, free of any device access so KUnit can run
//! them on crafted rings.
//!
//! Head and tail are dword offsets in a ring of `size` dwords; the sender owns the tail, the
//! receiver the head, and one dword always stays free so that `head == tail` means empty
//! (upstream `CIRC_SPACE`, `xe_guc_ct.c`). A message that does not fit before the end of the
//! ring is preceded by zeroes up to the end, which the GuC skips as no-ops, and written from
//! offset 0 (upstream `h2g_write`).

use super::wire::{CtbHeader, MSG_MAX};
use crate::abi::*;

/// Dwords the sender may still write.
pub(crate) fn space(head: u32, tail: u32, size: u32) -> u32 {
    // Callers check head and tail against the ring first; the wrapping operations and the
    // checked remainder keep a value that slipped past them from panicking (a zero-sized ring
    // has no room).
    head.wrapping_add(size)
        .wrapping_sub(tail)
        .wrapping_sub(1)
        .checked_rem(size)
        .unwrap_or(0)
}

/// Dwords written and not yet consumed.
pub(crate) fn avail(head: u32, tail: u32, size: u32) -> u32 {
    // As in `space`: never a panic on a value the checks missed.
    tail.wrapping_add(size)
        .wrapping_sub(head)
        .checked_rem(size)
        .unwrap_or(0)
}

/// Where a message goes in H2G.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    /// Zero dwords to write at the old tail first (the rest of the ring), 0 if it fits.
    pub(crate) pad: u32,
    /// Offset of the message.
    pub(crate) at: u32,
    /// The tail after it.
    pub(crate) tail: u32,
}

/// Places a message of `len` dwords, or `None` if the ring has no room for it (and its
/// padding) now. `head` and `tail` must be inside the ring.
pub(crate) fn place(head: u32, tail: u32, size: u32, len: u32) -> Option<Place> {
    let free = space(head, tail, size);
    let (pad, at) = if tail + len <= size {
        (0, tail)
    } else {
        (size - tail, 0)
    };
    (pad + len <= free).then_some(Place {
        pad,
        at,
        tail: (at + len) % size,
    })
}

/// The G2H descriptor fields the reader looks at.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Desc {
    pub(crate) head: u32,
    pub(crate) tail: u32,
    pub(crate) status: u32,
}

/// Why the G2H ring cannot be read any further: the reader no longer knows where the next
/// message starts, so the channel is broken (upstream marks the CT dead on these).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Corrupt {
    /// The descriptor's status has error bits (the GuC found our side inconsistent).
    Status(u32),
    /// The GuC set DISABLED: it stopped using the channel.
    Disabled,
    /// The head, the receiver's own field, no longer holds what the host wrote.
    HeadMoved { seen: u32, expected: u32 },
    /// The tail is outside the ring.
    TailOutside(u32),
    /// A header claims more dwords than were written before the tail.
    PastTail { at: u32, header: u32, avail: u32 },
    /// The H2G descriptor's status has bits set: the GuC found the host's messages
    /// inconsistent.
    H2gStatus(u32),
    /// The H2G head, the GuC's field, is outside the ring.
    H2gHead(u32),
}

impl Corrupt {
    /// The descriptor status bit the host sets for this, if any (the GuC's own bits are left).
    pub(crate) fn status_bit(self) -> u32 {
        match self {
            Corrupt::Status(_) | Corrupt::Disabled | Corrupt::H2gStatus(_) => 0,
            Corrupt::H2gHead(_) => XEHPG_CTB_STATUS_OVERFLOW,
            Corrupt::HeadMoved { .. } => XEHPG_CTB_STATUS_MISMATCH,
            Corrupt::TailOutside(_) => XEHPG_CTB_STATUS_OVERFLOW,
            Corrupt::PastTail { .. } => XEHPG_CTB_STATUS_UNDERFLOW,
        }
    }

    /// For the log and debugfs.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Corrupt::Status(_) => "descriptor status error",
            Corrupt::Disabled => "disabled by the GuC",
            Corrupt::HeadMoved { .. } => "head moved under the host",
            Corrupt::TailOutside(_) => "tail outside the ring",
            Corrupt::PastTail { .. } => "message length past the tail",
            Corrupt::H2gStatus(_) => "H2G descriptor status error",
            Corrupt::H2gHead(_) => "H2G head outside the ring",
        }
    }
}

/// Checks the descriptor against the ring and the head the host last wrote; returns the dwords
/// waiting.
///
/// # Errors
///
/// What makes the ring unreadable.
pub(crate) fn check_desc(d: Desc, head: u32, size: u32) -> Result<u32, Corrupt> {
    if d.status & !XEHPG_CTB_STATUS_DISABLED != 0 {
        return Err(Corrupt::Status(d.status));
    }
    if d.status & XEHPG_CTB_STATUS_DISABLED != 0 {
        return Err(Corrupt::Disabled);
    }
    if d.head != head {
        return Err(Corrupt::HeadMoved {
            seen: d.head,
            expected: head,
        });
    }
    if d.tail >= size {
        return Err(Corrupt::TailOutside(d.tail));
    }
    Ok(avail(head, d.tail, size))
}

/// The length of the message at `at` whose header is `header`, header included, with `avail`
/// dwords written from `at` on.
///
/// # Errors
///
/// [`Corrupt::PastTail`] if it claims more than that.
pub(crate) fn message_len(at: u32, header: u32, avail: u32) -> Result<u32, Corrupt> {
    let len = CtbHeader::from_raw(header).num_dwords().get() + 1;
    if len > avail {
        return Err(Corrupt::PastTail { at, header, avail });
    }
    Ok(len)
}

/// Read access to a G2H ring (the real one in device memory, or a test's array).
pub(crate) trait RingRead {
    /// The ring's size in dwords.
    fn size(&self) -> u32;
    /// The descriptor's head, tail and status.
    fn desc(&self) -> kernel::error::Result<Desc>;
    /// Dword `i` (< size) of the ring.
    fn dword(&self, i: u32) -> kernel::error::Result<u32>;
}

/// What the next read of the ring found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Next {
    /// Nothing waiting.
    Empty,
    /// A message of this many dwords (header included) copied into the buffer; the new head
    /// is the second value.
    Message(usize, u32),
}

/// Copies the message at `head` into `buf` after checking the descriptor `d` (as read
/// from the ring, its head updated to `head` by the caller) and the header.
///
/// # Errors
///
/// `Ok(Err(corrupt))` when the ring cannot be read on; `Err` for an access error.
pub(crate) fn next(
    ring: &impl RingRead,
    d: Desc,
    head: u32,
    buf: &mut [u32; MSG_MAX],
) -> kernel::error::Result<Result<Next, Corrupt>> {
    let size = ring.size();
    let avail = match check_desc(d, head, size) {
        Ok(0) => return Ok(Ok(Next::Empty)),
        Ok(n) => n,
        Err(c) => return Ok(Err(c)),
    };
    let header = ring.dword(head)?;
    let len = match message_len(head, header, avail) {
        Ok(n) => n,
        Err(c) => return Ok(Err(c)),
    };
    // `len` <= 256 (an 8-bit count plus the header), the buffer's size.
    for (i, slot) in (0..len).zip(buf.iter_mut()) {
        *slot = ring.dword((head + i) % size)?;
    }
    // CAST: at most 256.
    Ok(Ok(Next::Message(len as usize, (head + len) % size)))
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_guc_ct_ring)]
mod tests {
    use super::*;
    use kernel::prelude::*;

    #[test]
    fn space_and_avail() {
        // Empty ring of 16: 15 free, nothing waiting.
        assert_eq!(space(0, 0, 16), 15);
        assert_eq!(avail(0, 0, 16), 0);
        // Full: the tail is one behind the head.
        assert_eq!(space(5, 4, 16), 0);
        assert_eq!(avail(5, 4, 16), 15);
        // Wrapped.
        assert_eq!(avail(14, 2, 16), 4);
        assert_eq!(space(14, 2, 16), 11);
        // A zero-sized ring has nothing; values past the callers' checks do not panic.
        assert_eq!(space(0, 0, 0), 0);
        assert_eq!(avail(3, 1, 0), 0);
        assert_eq!(space(u32::MAX, 0, 16), (u32::MAX.wrapping_add(15)) % 16);
        assert_eq!(avail(0, u32::MAX, 16), (u32::MAX.wrapping_add(16)) % 16);
    }

    #[test]
    fn placement_and_wrap() {
        let at = |pad, at, tail| Some(Place { pad, at, tail });
        assert_eq!(place(0, 0, 16, 4), at(0, 0, 4));
        // Exactly to the end: no padding, the tail wraps to 0.
        assert_eq!(place(2, 12, 16, 4), at(0, 12, 0));
        // Does not fit before the end: 2 dwords of zeroes, then from 0.
        assert_eq!(place(8, 14, 16, 4), at(2, 0, 4));
        // The padding counts against the room: 8 free, 2 + 6 fit, 2 + 7 do not.
        assert_eq!(place(7, 14, 16, 6), at(2, 0, 6));
        assert_eq!(place(7, 14, 16, 7), None);
        // Full ring.
        assert_eq!(place(5, 4, 16, 1), None);
        // One dword stays free: 15 fit in an empty ring, 16 never.
        assert_eq!(place(0, 0, 16, 15), at(0, 0, 15));
        assert_eq!(place(0, 0, 16, 16), None);
    }

    #[test]
    fn descriptor_checks() {
        let d = |head, tail, status| Desc { head, tail, status };
        assert_eq!(check_desc(d(3, 7, 0), 3, 16), Ok(4));
        assert_eq!(check_desc(d(3, 3, 0), 3, 16), Ok(0));
        assert_eq!(check_desc(d(3, 7, 4), 3, 16), Err(Corrupt::Status(4)));
        assert_eq!(check_desc(d(3, 7, 8), 3, 16), Err(Corrupt::Disabled));
        // DISABLED with an error bit is an error.
        assert_eq!(check_desc(d(3, 7, 9), 3, 16), Err(Corrupt::Status(9)));
        assert_eq!(
            check_desc(d(9, 7, 0), 3, 16),
            Err(Corrupt::HeadMoved {
                seen: 9,
                expected: 3
            })
        );
        assert_eq!(
            check_desc(d(3, 16, 0), 3, 16),
            Err(Corrupt::TailOutside(16))
        );
        assert_eq!(
            check_desc(d(3, 0x8000_0000, 0), 3, 16),
            Err(Corrupt::TailOutside(0x8000_0000))
        );
        assert_eq!(
            Corrupt::TailOutside(16).status_bit(),
            XEHPG_CTB_STATUS_OVERFLOW
        );
    }

    /// A crafted ring: descriptor and dwords in memory.
    struct Crafted {
        desc: Desc,
        ring: [u32; 16],
    }

    impl RingRead for Crafted {
        fn size(&self) -> u32 {
            16
        }
        fn desc(&self) -> Result<Desc> {
            Ok(self.desc)
        }
        fn dword(&self, i: u32) -> Result<u32> {
            self.ring.get(i as usize).copied().ok_or(EINVAL)
        }
    }

    #[test]
    fn reads_crafted_rings() -> Result {
        let mut buf = [0u32; MSG_MAX];
        // A 3-dword message wrapping from 14 to 0.
        let mut r = Crafted {
            desc: Desc {
                head: 14,
                tail: 1,
                status: 0,
            },
            ring: [0; 16],
        };
        r.ring[14] = 0x0009_0002;
        r.ring[15] = 0xf000_0001;
        r.ring[0] = 0xdead;
        assert_eq!(next(&r, r.desc, 14, &mut buf)?, Ok(Next::Message(3, 1)));
        assert_eq!(&buf[..3], &[0x0009_0002, 0xf000_0001, 0xdead]);
        // Consumed: empty.
        r.desc.head = 1;
        assert_eq!(next(&r, r.desc, 1, &mut buf)?, Ok(Next::Empty));
        // A header claiming 5 dwords with 3 written: never read past the tail.
        r.desc = Desc {
            head: 2,
            tail: 5,
            status: 0,
        };
        r.ring[2] = 0x0001_0004;
        assert_eq!(
            next(&r, r.desc, 2, &mut buf)?,
            Err(Corrupt::PastTail {
                at: 2,
                header: 0x0001_0004,
                avail: 3
            })
        );
        // A maximal header (255 dwords) in a small ring is caught the same way.
        r.ring[2] = 0x0001_00ff;
        assert!(matches!(
            next(&r, r.desc, 2, &mut buf)?,
            Err(Corrupt::PastTail { .. })
        ));
        // Head moved by someone else.
        r.desc.head = 4;
        assert_eq!(
            next(&r, r.desc, 2, &mut buf)?,
            Err(Corrupt::HeadMoved {
                seen: 4,
                expected: 2
            })
        );
        Ok(())
    }
}
