// SPDX-License-Identifier: GPL-2.0

//! GuC firmware file: the CSS header and what it promises about the rest of the file.
//!
//! Layout (`include/xehpg_abi.h`, from upstream `abi/uc_fw_abi.h`): a 128-byte CSS header, the
//! uCode, the RSA key, then optionally the modulus and exponent. The header counts everything
//! in dwords; every count is checked against the others and against the file before anything
//! is trusted, so the rest of the driver works with byte ranges that are known to fit.

use kernel::fmt;

use kernel::prelude::*;

use crate::abi::{
    xehpg_css_header, XEHPG_CSS_HEADER_BYTES, XEHPG_CSS_VERSION_FIELD_MASK,
    XEHPG_CSS_VERSION_MAJOR_SHIFT, XEHPG_CSS_VERSION_MINOR_SHIFT,
};

/// The file the driver asks for by default (`drivers/gpu/drm/xe/xe_uc_fw.c`: DG2 GuC 70.x,
/// `i915/dg2_guc_70.bin`; ATS-M uses the DG2 GuC).
pub(crate) const DEFAULT_PATH: &CStr = c"i915/dg2_guc_70.bin";

extern "C" {
    /// The `guc_firmware_path` module parameter (`rust/xehpg_glue.c`).
    fn xehpg_guc_firmware_path() -> *const kernel::ffi::c_char;
}

/// The firmware to load: the `guc_firmware_path` parameter, or [`DEFAULT_PATH`].
pub(crate) fn path() -> &'static CStr {
    // SAFETY: the glue returns its static, NUL-terminated parameter buffer, which lives as long
    // as the module and is only written while the module is being loaded (mode 0400).
    let param = unsafe { CStr::from_char_ptr(xehpg_guc_firmware_path()) };
    if param.is_empty() {
        DEFAULT_PATH
    } else {
        param
    }
}

/// Oldest release accepted ("We don't support GuC releases older than 70.29.2", upstream
/// `xe_uc_fw.c`, `guc_read_css_info`); the major version must match the file name's `_70`.
pub(crate) const MIN_RELEASE: Version = Version::new(70, 29, 2);

/// Bound on the uCode size: it must fit in the GuC WOPCM, which is under 4 MiB on DG2
/// (`DGFX_WOPCM_SIZE`, upstream `xe_wopcm.c`); the exact fit is checked at WOPCM setup.
const MAX_UCODE_BYTES: usize = 4 << 20;
/// Bound on the private data the GuC asks for; upstream sizes it from the header alone.
/// 64 MiB is far above any release (70.53.0 asks for 8 MiB) but keeps a corrupt header from
/// making the driver reserve gigabytes.
const MAX_PRIVATE_DATA: u32 = 64 << 20;

/// A `major.minor.patch` version as the CSS header encodes it (23:16, 15:8, 7:0).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Version {
    pub(crate) major: u8,
    pub(crate) minor: u8,
    pub(crate) patch: u8,
}

impl Version {
    pub(crate) const fn new(major: u8, minor: u8, patch: u8) -> Self {
        Self {
            major,
            minor,
            patch,
        }
    }

    fn from_css(raw: u32) -> Self {
        // CAST: each field is masked to 8 bits.
        let field = |shift: u32| ((raw >> shift) & XEHPG_CSS_VERSION_FIELD_MASK) as u8;
        Self::new(
            field(XEHPG_CSS_VERSION_MAJOR_SHIFT),
            field(XEHPG_CSS_VERSION_MINOR_SHIFT),
            field(0),
        )
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_fmt(fmt!("{}.{}.{}", self.major, self.minor, self.patch))
    }
}

/// Why a firmware file is refused.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum CssError {
    /// Shorter than the CSS header itself.
    NoHeader { len: usize },
    /// header_size_dw does not equal 32 (the CSS header) + key + modulus + exponent.
    HeaderSize {
        header_dw: u32,
        key_dw: u32,
        modulus_dw: u32,
        exponent_dw: u32,
    },
    /// size_dw leaves no uCode (it must exceed header_size_dw).
    NoUcode { size_dw: u32, header_dw: u32 },
    /// The uCode is larger than the GuC can ever hold.
    UcodeTooBig { bytes: usize },
    /// No RSA key.
    NoKey,
    /// The file ends before header + uCode + key.
    Truncated { len: usize, needed: usize },
    /// Private data size beyond any plausible release.
    PrivateData { bytes: u32 },
    /// Release older than [`MIN_RELEASE`] or of another major version.
    Release { found: Version },
}

impl fmt::Display for CssError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::NoHeader { len } => f.write_fmt(fmt!(
                "file is {} bytes, shorter than the 128-byte CSS header",
                len
            )),
            Self::HeaderSize {
                header_dw,
                key_dw,
                modulus_dw,
                exponent_dw,
            } => f.write_fmt(fmt!(
                "header_size_dw {} is not 32 + key {} + modulus {} + exponent {}",
                header_dw,
                key_dw,
                modulus_dw,
                exponent_dw
            )),
            Self::NoUcode { size_dw, header_dw } => f.write_fmt(fmt!(
                "size_dw {} leaves no uCode after header_size_dw {}",
                size_dw,
                header_dw
            )),
            Self::UcodeTooBig { bytes } => {
                f.write_fmt(fmt!("uCode of {} bytes cannot fit the GuC WOPCM", bytes))
            }
            Self::NoKey => f.write_str("the header declares no RSA key"),
            Self::Truncated { len, needed } => f.write_fmt(fmt!(
                "file is {} bytes, header + uCode + RSA key need {}",
                len,
                needed
            )),
            Self::PrivateData { bytes } => {
                f.write_fmt(fmt!("private data size {:#x} is implausible", bytes))
            }
            Self::Release { found } => f.write_fmt(fmt!(
                "release {} is not a 70.x release at least {}",
                found,
                MIN_RELEASE
            )),
        }
    }
}

/// What a validated CSS header says, in bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct CssInfo {
    pub(crate) release: Version,
    pub(crate) submission: Version,
    /// uCode bytes, right after the header.
    pub(crate) ucode_bytes: usize,
    /// RSA key bytes, right after the uCode.
    pub(crate) key_bytes: usize,
    /// GuC private data the driver must provide (ADS private area).
    pub(crate) private_data_bytes: u32,
    /// The ukernel info field (device 31:16 is not a PCI ID, build type 3:2).
    pub(crate) ukernel_info: u32,
}

impl CssInfo {
    /// Bytes the DMA copies: header and uCode (the key goes separately).
    pub(crate) fn dma_bytes(&self) -> usize {
        CSS_BYTES + self.ucode_bytes
    }

    /// Offset of the RSA key in the file.
    pub(crate) fn key_offset(&self) -> usize {
        self.dma_bytes()
    }

    /// Validates `file` completely and returns what its header says.
    ///
    /// # Errors
    ///
    /// The first rule the file breaks, as a [`CssError`].
    pub(crate) fn parse(file: &[u8]) -> Result<Self, CssError> {
        let hdr = read_header(file).ok_or(CssError::NoHeader { len: file.len() })?;
        let (header_dw, key_dw, modulus_dw, exponent_dw) = (
            hdr.header_size_dw,
            hdr.key_size_dw,
            hdr.modulus_size_dw,
            hdr.exponent_size_dw,
        );
        let css_dw = CSS_BYTES as u64 / 4;
        let sum = css_dw + u64::from(key_dw) + u64::from(modulus_dw) + u64::from(exponent_dw);
        if u64::from(header_dw) != sum {
            return Err(CssError::HeaderSize {
                header_dw,
                key_dw,
                modulus_dw,
                exponent_dw,
            });
        }
        let size_dw = hdr.size_dw;
        if size_dw <= header_dw {
            return Err(CssError::NoUcode { size_dw, header_dw });
        }
        // CALC: both fit u32 and size_dw > header_dw, so the product fits in usize on 64-bit.
        let ucode_bytes = (size_dw - header_dw) as usize * 4;
        if ucode_bytes > MAX_UCODE_BYTES {
            return Err(CssError::UcodeTooBig { bytes: ucode_bytes });
        }
        if key_dw == 0 {
            return Err(CssError::NoKey);
        }
        let key_bytes = key_dw as usize * 4;
        let needed = CSS_BYTES + ucode_bytes + key_bytes;
        if file.len() < needed {
            return Err(CssError::Truncated {
                len: file.len(),
                needed,
            });
        }
        // Bytes past header + uCode + key (modulus, exponent, padding) are never read: upstream
        // refuses only a file shorter than what the header accounts for and takes a longer one
        // (`xe_uc_fw.c` `parse_css_header`: "invalid size" only when `fw_size < size`), so a
        // padded or re-packaged blob loads here too.
        if hdr.private_data_size > MAX_PRIVATE_DATA {
            return Err(CssError::PrivateData {
                bytes: hdr.private_data_size,
            });
        }
        let release = Version::from_css(hdr.sw_version);
        if release.major != MIN_RELEASE.major || release < MIN_RELEASE {
            return Err(CssError::Release { found: release });
        }
        Ok(Self {
            release,
            submission: Version::from_css(hdr.submission_version),
            ucode_bytes,
            key_bytes,
            private_data_bytes: hdr.private_data_size,
            ukernel_info: hdr.ukernel_info,
        })
    }
}

const CSS_BYTES: usize = XEHPG_CSS_HEADER_BYTES as usize;

/// Reads the little-endian header fields out of the first 128 bytes.
fn read_header(file: &[u8]) -> Option<xehpg_css_header> {
    let bytes = file.get(..CSS_BYTES)?;
    let dw = |i: usize| {
        let b = [
            bytes[4 * i],
            bytes[4 * i + 1],
            bytes[4 * i + 2],
            bytes[4 * i + 3],
        ];
        u32::from_le_bytes(b)
    };
    // PANIC: every index below is under 32, the dword count of the 128 bytes checked above.
    Some(xehpg_css_header {
        module_type: dw(0),
        header_size_dw: dw(1),
        header_version: dw(2),
        reserved0: dw(3),
        module_vendor: dw(4),
        date: dw(5),
        size_dw: dw(6),
        key_size_dw: dw(7),
        modulus_size_dw: dw(8),
        exponent_size_dw: dw(9),
        time: dw(10),
        reserved1: [dw(11), dw(12), dw(13), dw(14), dw(15)],
        sw_version: dw(16),
        submission_version: dw(17),
        reserved2: [0; 11],
        header_info: dw(29),
        private_data_size: dw(30),
        ukernel_info: dw(31),
    })
}

#[cfg(xehpg_kunit)]
#[kernel::prelude::kunit_tests(xehpg_guc_fw)]
mod tests {
    use super::*;

    const UCODE_DW: u32 = 64;

    /// A consistent image shaped like 70.53.0: 96-dword key, modulus 96 and exponent 1 declared
    /// but absent from the file.
    fn image(edit: impl FnOnce(&mut [u32; 32])) -> KVec<u8> {
        let mut hdr = [0u32; 32];
        hdr[1] = 32 + 96 + 96 + 1; // header_size_dw
        hdr[6] = hdr[1] + UCODE_DW; // size_dw
        hdr[7] = 96; // key
        hdr[8] = 96; // modulus
        hdr[9] = 1; // exponent
        hdr[16] = (70 << 16) | (53 << 8); // release 70.53.0
        hdr[17] = (1 << 16) | (26 << 8); // submission 1.26.0
        hdr[30] = 8 << 20; // private data
        edit(&mut hdr);
        let mut out = KVec::new();
        for dw in hdr {
            let _ = out.extend_from_slice(&dw.to_le_bytes(), GFP_KERNEL);
        }
        let body = (UCODE_DW + 96) as usize * 4;
        let _ = out.extend_from_slice(&[0xa5; 1024][..body.min(1024)], GFP_KERNEL);
        out
    }

    #[test]
    fn real_layout_is_accepted() {
        let info = CssInfo::parse(&image(|_| {}));
        assert_eq!(
            info.map(|i| (i.release, i.ucode_bytes, i.key_bytes)),
            Ok((Version::new(70, 53, 0), 256, 384))
        );
        let info =
            CssInfo::parse(&image(|_| {})).map(|i| (i.submission, i.dma_bytes(), i.key_offset()));
        assert_eq!(info, Ok((Version::new(1, 26, 0), 384, 384)));
    }

    #[test]
    fn inconsistent_header_sizes() {
        let e = CssInfo::parse(&image(|h| h[1] += 1)).err();
        assert!(matches!(e, Some(CssError::HeaderSize { .. })));
        let e = CssInfo::parse(&image(|h| h[6] = h[1])).err();
        assert!(matches!(e, Some(CssError::NoUcode { .. })));
        let e = CssInfo::parse(&image(|h| {
            h[1] -= 96;
            h[7] = 0;
            h[6] = h[1] + UCODE_DW;
        }))
        .err();
        assert_eq!(e, Some(CssError::NoKey));
    }

    #[test]
    fn file_length_against_header() {
        let good = image(|_| {});
        let e = CssInfo::parse(&good[..good.len() - 4]).err();
        assert!(matches!(e, Some(CssError::Truncated { .. })));
        assert!(matches!(
            CssInfo::parse(&good[..100]).err(),
            Some(CssError::NoHeader { len: 100 })
        ));
        // Modulus and exponent present, then trailing padding: upstream loads both, and what
        // the parser reports does not change with the padding.
        let base = CssInfo::parse(&good).ok();
        assert!(base.is_some());
        let mut full = image(|_| {});
        let _ = full.extend_from_slice(&[0; 97 * 4], GFP_KERNEL);
        assert_eq!(CssInfo::parse(&full).ok(), base);
        let _ = full.extend_from_slice(&[0xa5; 13], GFP_KERNEL);
        assert_eq!(CssInfo::parse(&full).ok(), base);
    }

    #[test]
    fn huge_counts_do_not_overflow() {
        let e = CssInfo::parse(&image(|h| h[6] = u32::MAX)).err();
        assert!(matches!(e, Some(CssError::UcodeTooBig { .. })));
        let e = CssInfo::parse(&image(|h| {
            h[7] = u32::MAX;
            h[1] = 5;
        }))
        .err();
        assert!(matches!(e, Some(CssError::HeaderSize { .. })));
        let e = CssInfo::parse(&image(|h| h[30] = u32::MAX)).err();
        assert!(matches!(e, Some(CssError::PrivateData { .. })));
    }

    #[test]
    fn release_versions() {
        assert!(Version::new(70, 29, 2) < Version::new(70, 30, 0));
        assert!(Version::new(70, 29, 1) < MIN_RELEASE);
        assert!(Version::new(71, 0, 0) > MIN_RELEASE);
        let old = CssInfo::parse(&image(|h| h[16] = (70 << 16) | (29 << 8) | 1)).err();
        assert!(matches!(old, Some(CssError::Release { .. })));
        let next_major = CssInfo::parse(&image(|h| h[16] = 71 << 16)).err();
        assert!(matches!(next_major, Some(CssError::Release { .. })));
        assert!(CssInfo::parse(&image(|h| h[16] = (70 << 16) | (29 << 8) | 2)).is_ok());
    }
}
