//! Memory the device shares with QEMU: its own BAR backing stores and the
//! guest RAM it reaches by DMA.
//!
//! - [`MemFd`]: an anonymous shared-memory file (memfd) mapped into the mock.
//!   The GGTT window of BAR0 and all of BAR2 are memfds whose descriptors are
//!   handed to QEMU, so guest accesses to them never trap into the mock
//!   (ENVIRONMENT.md, "Cost of the mock's transport").
//! - [`GuestMemory`]: the guest-RAM ranges QEMU announced with DMA_MAP, each
//!   mapped from the memfd QEMU sent (guest started with
//!   `memory-backend-memfd,share=on`). Accesses outside them fail with a
//!   [`DmaError`] that the device records as a violation. So does every
//!   access while the function's Bus Master Enable is clear
//!   ([`GuestMemory::set_bus_master`]): guest RAM is reached only by memory
//!   requests the function issues on the bus.
//!
//! All of this memory is concurrently written by other processes (QEMU and
//! the guest), so the mock never forms Rust references into it: it copies
//! bytes in and out through raw pointers. A copy racing with a guest write may
//! see a torn value, exactly as a real device's DMA engine would.

use std::collections::BTreeMap;
use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::os::fd::FromRawFd;
use std::os::fd::OwnedFd;
use std::os::fd::RawFd;
use std::ptr::NonNull;

use thiserror::Error;

/// A shared (`MAP_SHARED`) mapping of part of a file.
///
/// # Invariants
///
/// `base` is the start of a live mapping of `map_len` bytes created by
/// `mmap`, unmapped only in `Drop`. `data = base + skew` and
/// `skew + len == map_len`; the first `len` bytes at `data` are readable, and
/// writable if `writable`.
struct Mapping {
    base: NonNull<u8>,
    map_len: usize,
    data: NonNull<u8>,
    len: usize,
    writable: bool,
}

// SAFETY: A Mapping is plain process memory with no thread affinity; all
// access goes through `&self`/`&mut self` methods that copy bytes, and the
// owning `Device` is behind a mutex.
unsafe impl Send for Mapping {}

impl Mapping {
    /// Maps `len` bytes of `fd` starting at byte `offset` (any alignment).
    fn new(fd: RawFd, offset: u64, len: u64, writable: bool) -> io::Result<Self> {
        let page = page_size();
        let skew = offset % page;
        let map_len = len
            .checked_add(skew)
            .filter(|&l| l > skew)
            .and_then(|l| usize::try_from(l).ok())
            .ok_or_else(|| io::Error::from_raw_os_error(libc::EINVAL))?;
        let file_off = libc::off_t::try_from(offset - skew)
            .map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
        let prot = libc::PROT_READ | if writable { libc::PROT_WRITE } else { 0 };
        // SAFETY: Asking the kernel for a fresh mapping; no existing memory is
        // affected. The result is checked for MAP_FAILED below.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                prot,
                libc::MAP_SHARED,
                fd,
                file_off,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        let base =
            NonNull::new(p.cast::<u8>()).ok_or_else(|| io::Error::other("mmap gave NULL"))?;
        // CAST: skew < page size, which fits in usize.
        let skew = skew as usize;
        // SAFETY: skew < map_len, so the pointer stays inside the mapping.
        let data = unsafe { base.add(skew) };
        // INVARIANT: map_len = skew + len, data = base + skew.
        Ok(Self {
            base,
            map_len,
            data,
            len: map_len - skew,
            writable,
        })
    }

    /// The byte range `offset..offset + n` if it lies inside the mapping.
    fn range(&self, offset: u64, n: usize) -> Option<usize> {
        let start = usize::try_from(offset).ok()?;
        (start.checked_add(n)? <= self.len).then_some(start)
    }

    /// Copies bytes out of the mapping; `None` if out of bounds.
    fn read(&self, offset: u64, buf: &mut [u8]) -> Option<()> {
        let start = self.range(offset, buf.len())?;
        // SAFETY: By the type invariant `data..data+len` is mapped and
        // readable, and `range` checked `start + buf.len() <= len`. `buf` is
        // a Rust buffer, so it cannot overlap the mapping's bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.data.as_ptr().add(start),
                buf.as_mut_ptr(),
                buf.len(),
            );
        }
        Some(())
    }

    /// Copies bytes into the mapping; `None` if out of bounds or read-only.
    fn write(&mut self, offset: u64, buf: &[u8]) -> Option<()> {
        if !self.writable {
            return None;
        }
        let start = self.range(offset, buf.len())?;
        // SAFETY: As in `read`, plus the mapping is writable (checked above).
        unsafe {
            std::ptr::copy_nonoverlapping(buf.as_ptr(), self.data.as_ptr().add(start), buf.len());
        }
        Some(())
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: `base`/`map_len` describe a mapping this value owns and
        // nothing else refers to (type invariant).
        unsafe {
            libc::munmap(self.base.as_ptr().cast(), self.map_len);
        }
    }
}

fn page_size() -> u64 {
    // SAFETY: sysconf has no memory-safety preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(p).ok().filter(|&p| p > 0).unwrap_or(4096)
}

/// An access outside a [`MemFd`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[error("access at {offset:#x}+{len} is outside the {size:#x}-byte buffer")]
pub struct OutOfBounds {
    /// First byte of the access.
    pub offset: u64,
    /// Length of the access.
    pub len: usize,
    /// Size of the buffer.
    pub size: u64,
}

/// A shared-memory file mapped read/write into the mock.
pub struct MemFd {
    fd: OwnedFd,
    map: Mapping,
}

impl MemFd {
    /// Creates a zero-filled memfd of `len` bytes. `name` shows in
    /// `/proc/PID/fd` and helps debugging.
    ///
    /// # Errors
    ///
    /// Any failure of `memfd_create`, `ftruncate` or `mmap`.
    pub fn new(name: &str, len: u64) -> io::Result<Self> {
        let cname = CString::new(name).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
        // SAFETY: `cname` is a valid NUL-terminated string for the call.
        let raw = unsafe { libc::memfd_create(cname.as_ptr(), libc::MFD_CLOEXEC) };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is a descriptor memfd_create just returned; nothing
        // else owns it.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let size =
            libc::off_t::try_from(len).map_err(|_| io::Error::from_raw_os_error(libc::EFBIG))?;
        // SAFETY: `fd` is a valid descriptor owned by this function.
        if unsafe { libc::ftruncate(fd.as_raw_fd(), size) } < 0 {
            return Err(io::Error::last_os_error());
        }
        let map = Mapping::new(fd.as_raw_fd(), 0, len, true)?;
        Ok(Self { fd, map })
    }

    /// The descriptor to hand to QEMU (stays owned by `self`).
    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Size in bytes.
    pub fn len(&self) -> u64 {
        self.map.len as u64
    }

    /// Whether the buffer is empty (never, by construction).
    pub fn is_empty(&self) -> bool {
        self.map.len == 0
    }

    /// Copies `buf.len()` bytes at `offset` out of the buffer.
    ///
    /// # Errors
    ///
    /// [`OutOfBounds`] if the range does not fit.
    pub fn read(&self, offset: u64, buf: &mut [u8]) -> Result<(), OutOfBounds> {
        self.map
            .read(offset, buf)
            .ok_or(self.oob(offset, buf.len()))
    }

    /// Copies `buf` into the buffer at `offset`.
    ///
    /// # Errors
    ///
    /// [`OutOfBounds`] if the range does not fit.
    pub fn write(&mut self, offset: u64, buf: &[u8]) -> Result<(), OutOfBounds> {
        let e = self.oob(offset, buf.len());
        self.map.write(offset, buf).ok_or(e)
    }

    /// Zeroes the whole buffer by freeing its pages (cheap even for large
    /// BARs; every mapping, QEMU's included, then reads zeros).
    ///
    /// # Errors
    ///
    /// Any failure of `fallocate`.
    pub fn wipe(&self) -> io::Result<()> {
        let len = libc::off_t::try_from(self.len())
            .map_err(|_| io::Error::from_raw_os_error(libc::EFBIG))?;
        // SAFETY: Plain syscall on a descriptor this value owns.
        let rc = unsafe {
            libc::fallocate(
                self.fd.as_raw_fd(),
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                0,
                len,
            )
        };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Fills `len` bytes at `offset` with the little-endian dword `value`
    /// repeated (the pattern starts at `offset`). A zero fill frees the
    /// whole pages it covers instead of writing them (`fallocate`
    /// `PUNCH_HOLE`), so clearing GiBs of sparse local memory costs what
    /// was written there, not its size; only the partial pages at either
    /// end are written.
    ///
    /// # Errors
    ///
    /// [`OutOfBounds`] if the range does not fit (nothing is written then),
    /// or a failed `fallocate` reported as the same (it cannot fail on a
    /// memfd for a range inside it).
    pub fn fill(&mut self, offset: u64, len: u64, value: u32) -> Result<(), OutOfBounds> {
        let n = usize::try_from(len).unwrap_or(usize::MAX);
        let e = self.oob(offset, n);
        let end = offset
            .checked_add(len)
            .filter(|&end| end <= self.len())
            .ok_or(e)?;
        let pattern = value.to_le_bytes();
        if value == 0 {
            let page = page_size();
            let first = offset.div_ceil(page) * page;
            let last = end / page * page;
            if first < last {
                self.write_pattern(offset, first, pattern).ok_or(e)?;
                self.punch(first, last - first).map_err(|_| e)?;
                return self.write_pattern(last, end, pattern).ok_or(e);
            }
        }
        self.write_pattern(offset, end, pattern).ok_or(e)
    }

    /// Writes `pattern` repeated over `from..to`, aligned to `from`.
    fn write_pattern(&mut self, from: u64, to: u64, pattern: [u8; 4]) -> Option<()> {
        const CHUNK: u64 = 1 << 20;
        // CAST: CHUNK fits a usize.
        let buf: Vec<u8> = pattern
            .iter()
            .copied()
            .cycle()
            .take(CHUNK as usize)
            .collect();
        let mut at = from;
        while at < to {
            let n = (to - at).min(CHUNK);
            // The chunk is a multiple of 4 long, so each piece starts with
            // the pattern's first byte, as the fill does at `from`.
            // CAST: n <= CHUNK.
            self.map.write(at, &buf[..n as usize])?;
            at += n;
        }
        Some(())
    }

    fn punch(&self, offset: u64, len: u64) -> io::Result<()> {
        let (off, n) = (
            libc::off_t::try_from(offset).map_err(|_| io::Error::from_raw_os_error(libc::EFBIG))?,
            libc::off_t::try_from(len).map_err(|_| io::Error::from_raw_os_error(libc::EFBIG))?,
        );
        // SAFETY: Plain syscall on a descriptor this value owns.
        let rc = unsafe {
            libc::fallocate(
                self.fd.as_raw_fd(),
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                off,
                n,
            )
        };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// The first non-zero byte in `offset..offset + len`, if any. Only the
    /// file's data extents are read (`lseek` `SEEK_DATA`/`SEEK_HOLE`), so a
    /// sparse range of GiBs costs what was written in it.
    ///
    /// # Errors
    ///
    /// [`OutOfBounds`] if the range does not fit.
    pub fn first_nonzero(&self, offset: u64, len: u64) -> Result<Option<u64>, OutOfBounds> {
        let e = self.oob(offset, usize::try_from(len).unwrap_or(usize::MAX));
        let end = offset
            .checked_add(len)
            .filter(|&end| end <= self.len())
            .ok_or(e)?;
        let mut at = offset;
        let mut buf = vec![0u8; 1 << 16];
        while at < end {
            let Some(data) = self.seek(at, libc::SEEK_DATA) else {
                // No data at or after `at` (ENXIO): the rest is a hole.
                return Ok(None);
            };
            if data >= end {
                return Ok(None);
            }
            let hole = self.seek(data, libc::SEEK_HOLE).unwrap_or(end).min(end);
            let mut p = data;
            while p < hole {
                // CAST: at most the buffer's length.
                let n = (hole - p).min(buf.len() as u64) as usize;
                self.map.read(p, &mut buf[..n]).ok_or(e)?;
                if let Some(i) = buf[..n].iter().position(|&b| b != 0) {
                    return Ok(Some(p + i as u64));
                }
                p += n as u64;
            }
            at = hole;
        }
        Ok(None)
    }

    /// `lseek(fd, at, whence)`; `None` on any failure (ENXIO: nothing
    /// more of that kind).
    fn seek(&self, at: u64, whence: libc::c_int) -> Option<u64> {
        let at = libc::off_t::try_from(at).ok()?;
        // SAFETY: Plain syscall on a descriptor this value owns; it moves
        // only the file offset, which nothing else here uses.
        let r = unsafe { libc::lseek(self.fd.as_raw_fd(), at, whence) };
        u64::try_from(r).ok()
    }

    fn oob(&self, offset: u64, len: usize) -> OutOfBounds {
        OutOfBounds {
            offset,
            len,
            size: self.len(),
        }
    }
}

/// A failed DMA access. [`DmaError::kind`] is the violation kind recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum DmaError {
    /// Some byte of the range is not covered by any DMA mapping.
    #[error("DMA to unmapped guest address {addr:#x} (access {start:#x}+{len})")]
    Unmapped {
        /// First unmapped byte.
        addr: u64,
        /// Start of the access.
        start: u64,
        /// Length of the access.
        len: usize,
    },
    /// A write to a mapping QEMU announced without the WRITE flag (or a read
    /// of one without READ).
    #[error("DMA {op} denied by mapping permissions at {addr:#x}")]
    Permission {
        /// "read" or "write".
        op: &'static str,
        /// First byte of the offending mapping hit.
        addr: u64,
    },
    /// The range is mapped but QEMU sent no file descriptor for it (guest RAM
    /// not shareable), so the mock cannot reach it.
    #[error("DMA to guest address {addr:#x}, mapped without a file descriptor")]
    Unbacked {
        /// First unbacked byte.
        addr: u64,
    },
    /// Bus Master Enable (PCI Command register bit 2) is clear: the function
    /// issues no memory requests (PCI Local Bus Spec / PCIe Base Spec,
    /// Command register, bit 2 "Bus Master Enable"), so nothing reaches
    /// guest memory.
    #[error(
        "DMA {op} of guest address {addr:#x}+{len} while Bus Master Enable (PCI Command bit 2) \
         is clear: the function issues no memory requests; nothing transferred"
    )]
    NoBusMaster {
        /// "read" or "write".
        op: &'static str,
        /// Start of the access.
        addr: u64,
        /// Length of the access.
        len: usize,
    },
}

impl DmaError {
    /// Violation kind for the trace and summary.
    pub fn kind(&self) -> &'static str {
        match self {
            DmaError::Unmapped { .. } => "dma_unmapped",
            DmaError::Permission { .. } => "dma_permission",
            DmaError::Unbacked { .. } => "dma_unbacked",
            DmaError::NoBusMaster { .. } => DMA_WITHOUT_BUS_MASTER,
        }
    }
}

/// Violation kind of a DMA attempted while Bus Master Enable is clear
/// ([`DmaError::NoBusMaster`]).
pub const DMA_WITHOUT_BUS_MASTER: &str = "dma_without_bus_master";

/// One DMA_MAP range.
struct DmaRegion {
    size: u64,
    readable: bool,
    writable: bool,
    backing: Option<Mapping>,
}

/// Guest RAM reachable by DMA, keyed by guest (IOVA) address.
#[derive(Default)]
pub struct GuestMemory {
    regions: BTreeMap<u64, DmaRegion>,
    /// The function's Bus Master Enable (PCI Command bit 2): without it no
    /// access reaches guest RAM. Clear at reset, as the Command register.
    bus_master: bool,
}

impl GuestMemory {
    /// An empty address space with bus mastering off (the Command
    /// register's reset value): every DMA fails until QEMU maps RAM and the
    /// guest sets Bus Master Enable.
    pub fn new() -> Self {
        Self::default()
    }

    /// Follows the function's Bus Master Enable (PCI Command register bit
    /// 2). While it is clear every [`GuestMemory::read`],
    /// [`GuestMemory::write`] and [`GuestMemory::probe`] fails with
    /// [`DmaError::NoBusMaster`]: "with Bus Master Enable clear the function
    /// issues no memory requests" (PCI Local Bus Spec / PCIe Base Spec,
    /// Command register, bit 2). The mappings stay: they are QEMU's wiring.
    pub fn set_bus_master(&mut self, on: bool) {
        self.bus_master = on;
    }

    /// Whether Bus Master Enable is set.
    pub fn bus_master(&self) -> bool {
        self.bus_master
    }

    /// Adds the range `iova..iova + size`, backed by `fd` at `file_offset`.
    ///
    /// # Errors
    ///
    /// `EINVAL` for an empty or wrapping range, `EEXIST` if it overlaps an
    /// existing mapping (as the kernel's VFIO type1 IOMMU answers), or the
    /// `mmap` failure.
    pub fn map(
        &mut self,
        iova: u64,
        size: u64,
        file_offset: u64,
        readable: bool,
        writable: bool,
        fd: Option<File>,
    ) -> io::Result<()> {
        let end = iova
            .checked_add(size)
            .filter(|_| size > 0)
            .ok_or_else(|| io::Error::from_raw_os_error(libc::EINVAL))?;
        if self.overlaps(iova, end) {
            return Err(io::Error::from_raw_os_error(libc::EEXIST));
        }
        // The mapping outlives the descriptor, which is closed when `fd` drops.
        let backing = fd
            .map(|f| Mapping::new(f.as_raw_fd(), file_offset, size, writable))
            .transpose()?;
        self.regions.insert(
            iova,
            DmaRegion {
                size,
                readable,
                writable,
                backing,
            },
        );
        Ok(())
    }

    /// Removes every mapping that lies inside `iova..iova + size`; returns
    /// how many were removed.
    pub fn unmap(&mut self, iova: u64, size: u64) -> usize {
        let end = iova.saturating_add(size);
        let doomed: Vec<u64> = self
            .regions
            .range(iova..end)
            .filter(|&(&a, r)| a.saturating_add(r.size) <= end)
            .map(|(&a, _)| a)
            .collect();
        for a in &doomed {
            self.regions.remove(a);
        }
        doomed.len()
    }

    /// Removes every mapping; returns how many there were.
    pub fn unmap_all(&mut self) -> usize {
        let n = self.regions.len();
        self.regions.clear();
        n
    }

    /// Number of live mappings.
    pub fn len(&self) -> usize {
        self.regions.len()
    }

    /// Whether nothing is mapped.
    pub fn is_empty(&self) -> bool {
        self.regions.is_empty()
    }

    /// Reads guest memory at `addr`. Nothing is copied unless the whole
    /// range is readable.
    ///
    /// # Errors
    ///
    /// A [`DmaError`] naming the first byte that cannot be read.
    pub fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), DmaError> {
        let pieces = self.pieces(addr, buf.len(), "read")?;
        let mut done = 0;
        for (iova, off, n) in pieces {
            let map = self.backing(iova)?;
            map.read(off, &mut buf[done..done + n])
                .ok_or(DmaError::Unbacked { addr: iova + off })?;
            done += n;
        }
        Ok(())
    }

    /// Writes guest memory at `addr`. Nothing is written unless the whole
    /// range is writable.
    ///
    /// # Errors
    ///
    /// A [`DmaError`] naming the first byte that cannot be written.
    pub fn write(&mut self, addr: u64, buf: &[u8]) -> Result<(), DmaError> {
        let pieces = self.pieces(addr, buf.len(), "write")?;
        let mut done = 0;
        for (iova, off, n) in pieces {
            let region = self.regions.get_mut(&iova).ok_or(DmaError::Unmapped {
                addr: iova + off,
                start: addr,
                len: buf.len(),
            })?;
            let map = region
                .backing
                .as_mut()
                .ok_or(DmaError::Unbacked { addr: iova + off })?;
            map.write(off, &buf[done..done + n])
                .ok_or(DmaError::Permission {
                    op: "write",
                    addr: iova + off,
                })?;
            done += n;
        }
        Ok(())
    }

    /// Checks that `len` bytes at `addr` could be read (or, with `write`,
    /// written), without touching them.
    ///
    /// # Errors
    ///
    /// A [`DmaError`] naming the first byte that cannot be reached.
    pub fn probe(&self, addr: u64, len: usize, write: bool) -> Result<(), DmaError> {
        let op = if write { "write" } else { "read" };
        self.pieces(addr, len, op).map(|_| ())
    }

    fn overlaps(&self, start: u64, end: u64) -> bool {
        // The last mapping starting before `end` is the only candidate that
        // can reach into the range from below; anything starting inside it
        // overlaps too.
        self.regions
            .range(..end)
            .next_back()
            .is_some_and(|(&a, r)| a.saturating_add(r.size) > start)
    }

    fn backing(&self, iova: u64) -> Result<&Mapping, DmaError> {
        self.regions
            .get(&iova)
            .and_then(|r| r.backing.as_ref())
            .ok_or(DmaError::Unbacked { addr: iova })
    }

    /// Splits `addr..addr + len` into (mapping start, offset, length) pieces,
    /// checking bus mastering, then coverage, backing and permissions for
    /// all of them first. Every access to guest RAM passes here.
    fn pieces(
        &self,
        addr: u64,
        len: usize,
        op: &'static str,
    ) -> Result<Vec<(u64, u64, usize)>, DmaError> {
        if !self.bus_master {
            return Err(DmaError::NoBusMaster { op, addr, len });
        }
        let unmapped = |at| DmaError::Unmapped {
            addr: at,
            start: addr,
            len,
        };
        let end = addr.checked_add(len as u64).ok_or(unmapped(addr))?;
        let mut out = Vec::new();
        let mut at = addr;
        while at < end {
            let (&iova, r) = self
                .regions
                .range(..=at)
                .next_back()
                .filter(|&(&a, r)| at - a < r.size)
                .ok_or(unmapped(at))?;
            if r.backing.is_none() {
                return Err(DmaError::Unbacked { addr: at });
            }
            let allowed = if op == "write" {
                r.writable
            } else {
                r.readable
            };
            if !allowed {
                return Err(DmaError::Permission { op, addr: at });
            }
            let off = at - iova;
            let n = (r.size - off).min(end - at);
            // CAST: n <= len, which is a usize.
            out.push((iova, off, n as usize));
            at += n;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Guest memory of a function whose Bus Master Enable is set.
    fn mastering() -> GuestMemory {
        let mut g = GuestMemory::new();
        g.set_bus_master(true);
        g
    }

    /// A memfd standing in for QEMU's guest-RAM backend, filled with a pattern.
    fn guest_ram(len: u64) -> (MemFd, File) {
        let mut ram = MemFd::new("test-guest-ram", len).expect("memfd");
        let pattern: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        ram.write(0, &pattern).expect("fill");
        // SAFETY: dup returns a new descriptor that the File then owns.
        let dup = unsafe { libc::dup(ram.raw_fd()) };
        assert!(dup >= 0);
        // SAFETY: `dup` is a fresh descriptor owned by nobody else.
        let file = unsafe { File::from_raw_fd(dup) };
        (ram, file)
    }

    #[test]
    fn memfd_read_write_bounds_and_wipe() {
        let mut m = MemFd::new("t", 8192).expect("memfd");
        assert_eq!(m.len(), 8192);
        m.write(4094, &[1, 2, 3, 4]).expect("in bounds");
        let mut b = [0u8; 4];
        m.read(4094, &mut b).expect("in bounds");
        assert_eq!(b, [1, 2, 3, 4]);
        assert!(m.read(8190, &mut b).is_err());
        assert!(m.write(u64::MAX, &b).is_err());
        m.wipe().expect("punch hole");
        m.read(4094, &mut b).expect("in bounds");
        assert_eq!(b, [0; 4]);
        assert_eq!(m.len(), 8192, "wipe keeps the size");
    }

    /// A zero fill frees whole pages and writes the partial ends; a
    /// non-zero fill writes its pattern; the scan finds the first non-zero
    /// byte through the data extents only.
    #[test]
    fn fill_and_first_nonzero() {
        let page = page_size();
        let mut m = MemFd::new("t", 64 * page).expect("memfd");
        assert_eq!(m.first_nonzero(0, 64 * page), Ok(None), "all hole");
        m.fill(page + 8, 3 * page, 0x1122_3344).expect("fill");
        let mut b = [0u8; 8];
        m.read(page + 8, &mut b).expect("read");
        assert_eq!(b, [0x44, 0x33, 0x22, 0x11, 0x44, 0x33, 0x22, 0x11]);
        m.read(page, &mut b).expect("read");
        assert_eq!(b, [0; 8], "before the fill");
        assert_eq!(m.first_nonzero(0, 64 * page), Ok(Some(page + 8)));
        assert_eq!(m.first_nonzero(0, page + 8), Ok(None));
        // Zero everything but the first and last byte of the filled range.
        m.fill(page + 9, 3 * page - 2, 0).expect("zero");
        assert_eq!(m.first_nonzero(page + 9, 3 * page - 2), Ok(None));
        assert_eq!(
            m.first_nonzero(page + 9, 3 * page - 1),
            Ok(Some(4 * page + 7))
        );
        m.read(4 * page + 6, &mut b[..2]).expect("read");
        assert_eq!(b[..2], [0, 0x11], "the last byte of the pattern stays");
        m.read(page + 8, &mut b[..2]).expect("read");
        assert_eq!(b[..2], [0x44, 0], "and the first");
        m.fill(0, 64 * page, 0).expect("zero all");
        assert_eq!(m.first_nonzero(0, 64 * page), Ok(None));
        assert!(m.fill(63 * page, 2 * page, 0).is_err(), "out of bounds");
        assert!(m.first_nonzero(63 * page, 2 * page).is_err());
    }

    /// A zero fill of a large sparse memfd is cheap: it does not allocate.
    #[test]
    fn zero_fill_of_gibs_is_cheap() {
        let mut m = MemFd::new("t", 8 << 30).expect("memfd");
        m.write(5 << 30, &[7]).expect("write");
        let t = std::time::Instant::now();
        m.fill(0, 8 << 30, 0).expect("zero");
        assert!(t.elapsed() < std::time::Duration::from_secs(2));
        assert_eq!(m.first_nonzero(0, 8 << 30), Ok(None));
    }

    #[test]
    fn guest_memory_maps_at_file_offset() {
        let (_ram, file) = guest_ram(3 * 4096);
        let mut g = mastering();
        // Guest address 0x10000 maps file offset 0x1000 (not the file start).
        g.map(0x10000, 0x2000, 0x1000, true, true, Some(file))
            .expect("map");
        let mut b = [0u8; 3];
        g.read(0x10000, &mut b).expect("mapped");
        assert_eq!(
            b,
            [
                (0x1000 % 251) as u8,
                (0x1001 % 251) as u8,
                (0x1002 % 251) as u8
            ]
        );
        g.write(0x11FFE, &[9, 9]).expect("mapped");
        g.read(0x11FFE, &mut b[..2]).expect("mapped");
        assert_eq!(&b[..2], &[9, 9]);
    }

    /// Bus Master Enable clear: every access to mapped, backed, permitted
    /// guest RAM fails, nothing is copied or written, and setting the bit
    /// again gives the same mappings back.
    #[test]
    fn without_bus_master_nothing_reaches_guest_ram() {
        let (ram, file) = guest_ram(4096);
        let mut g = GuestMemory::new();
        assert!(!g.bus_master(), "reset value of the Command register");
        g.map(0x1000, 0x1000, 0, true, true, Some(file))
            .expect("map");
        let mut b = [0xAAu8; 4];
        assert_eq!(
            g.read(0x1000, &mut b),
            Err(DmaError::NoBusMaster {
                op: "read",
                addr: 0x1000,
                len: 4
            })
        );
        assert_eq!(b, [0xAA; 4], "nothing copied");
        let err = g.write(0x1004, &[7, 7]).expect_err("refused");
        assert_eq!(err.kind(), DMA_WITHOUT_BUS_MASTER);
        assert!(err.to_string().contains("Bus Master Enable"), "{err}");
        assert_eq!(
            g.probe(0x1000, 8, true),
            Err(DmaError::NoBusMaster {
                op: "write",
                addr: 0x1000,
                len: 8
            })
        );
        let mut back = [0u8; 2];
        ram.read(4, &mut back).expect("guest RAM");
        assert_eq!(back, [4, 5], "the write did not land");
        g.set_bus_master(true);
        g.write(0x1004, &[7, 7]).expect("mastering");
        ram.read(4, &mut back).expect("guest RAM");
        assert_eq!(back, [7, 7]);
        g.set_bus_master(false);
        assert!(g.read(0x1004, &mut back).is_err());
        assert_eq!(g.len(), 1, "the mapping stays");
    }

    #[test]
    fn unmapped_and_partially_mapped_accesses_fail_without_side_effects() {
        let (_ram, file) = guest_ram(4096);
        let mut g = mastering();
        g.map(0x1000, 0x1000, 0, true, true, Some(file))
            .expect("map");
        let mut b = [0xAAu8; 4];
        assert_eq!(
            g.read(0x0FFE, &mut b),
            Err(DmaError::Unmapped {
                addr: 0x0FFE,
                start: 0x0FFE,
                len: 4
            })
        );
        assert_eq!(b, [0xAA; 4], "nothing copied on failure");
        // Crossing the end of the mapping fails and writes nothing.
        let e = g.write(0x1FFE, &[1, 2, 3, 4]).expect_err("crosses end");
        assert_eq!(e.kind(), "dma_unmapped");
        g.read(0x1FFE, &mut b[..2]).expect("mapped");
        assert_eq!(&b[..2], &[(0xFFE % 251) as u8, (0xFFF % 251) as u8]);
    }

    #[test]
    fn accesses_span_adjacent_mappings() {
        let (_ram, f1) = guest_ram(4096);
        let (_ram2, f2) = guest_ram(4096);
        let mut g = mastering();
        g.map(0x0, 0x1000, 0, true, true, Some(f1)).expect("map");
        g.map(0x1000, 0x1000, 0, true, true, Some(f2)).expect("map");
        g.write(0xFFF, &[7, 8]).expect("spans two mappings");
        let mut b = [0u8; 2];
        g.read(0xFFF, &mut b).expect("spans");
        assert_eq!(b, [7, 8]);
    }

    #[test]
    fn permissions_backing_and_overlap() {
        let (_ram, f1) = guest_ram(4096);
        let (_ram2, f2) = guest_ram(4096);
        let mut g = mastering();
        g.map(0x1000, 0x1000, 0, true, false, Some(f1))
            .expect("map ro");
        assert_eq!(
            g.write(0x1000, &[1]).map_err(|e| e.kind()),
            Err("dma_permission")
        );
        let (_ram3, f3) = guest_ram(4096);
        g.map(0x6000, 0x1000, 0, false, true, Some(f3))
            .expect("map write-only");
        assert_eq!(
            g.read(0x6000, &mut [0]).map_err(|e| e.kind()),
            Err("dma_permission")
        );
        g.write(0x6000, &[1]).expect("writable");
        g.map(0x4000, 0x1000, 0, true, true, None)
            .expect("map without fd");
        assert_eq!(
            g.read(0x4000, &mut [0]).map_err(|e| e.kind()),
            Err("dma_unbacked")
        );
        let e = g
            .map(0x1800, 0x1000, 0, true, true, Some(f2))
            .expect_err("overlap");
        assert_eq!(e.raw_os_error(), Some(libc::EEXIST));
        assert!(
            g.map(0x8000, 0, 0, true, true, None).is_err(),
            "empty range"
        );
    }

    #[test]
    fn probe_checks_without_copying() {
        let (_ram, file) = guest_ram(4096);
        let mut g = mastering();
        g.map(0x1000, 0x1000, 0, true, false, Some(file))
            .expect("map");
        assert_eq!(g.probe(0x1000, 0x1000, false), Ok(()));
        assert_eq!(
            g.probe(0x1800, 0x1000, false).map_err(|e| e.kind()),
            Err("dma_unmapped")
        );
        assert_eq!(
            g.probe(0x1000, 4, true).map_err(|e| e.kind()),
            Err("dma_permission")
        );
    }

    #[test]
    fn unmap_removes_contained_ranges_only() {
        let mut g = mastering();
        g.map(0x1000, 0x1000, 0, true, true, None).expect("map");
        g.map(0x2000, 0x2000, 0, true, true, None).expect("map");
        g.map(0x8000, 0x1000, 0, true, true, None).expect("map");
        // 0x2000..0x4000 is not fully inside 0x1000..0x3000.
        assert_eq!(g.unmap(0x1000, 0x2000), 1);
        assert_eq!(g.len(), 2);
        assert_eq!(
            g.read(0x1000, &mut [0]).map_err(|e| e.kind()),
            Err("dma_unmapped")
        );
        assert_eq!(g.unmap_all(), 2);
        assert!(g.is_empty());
    }
}
