//! The firmware/GuC ABI the mock shares with the driver.
//!
//! `include/xehpg_abi.h` is the single definition; bindgen turns it into
//! `rust/abi/bindings.rs` (checked in, `make bindings`), which this module
//! includes verbatim so the mock and the driver cannot drift apart: the CSS
//! header, the HXG message fields, the action and error codes, the
//! `GUC_STATUS` codes, the `GUC_CTL_*` boot parameter indices and the ADS
//! structures.
//!
//! The structs are `repr(C, packed)` descriptions of bytes in memory; the
//! mock never casts memory to them. It reads fields at
//! [`core::mem::offset_of!`] offsets from byte buffers ([`dword`]), which is
//! alignment- and endianness-safe.

#[allow(
    missing_docs,
    non_camel_case_types,
    non_upper_case_globals,
    dead_code,
    clippy::all,
    clippy::pedantic
)]
mod bindings {
    include!("../../../rust/abi/bindings.rs");
}

pub use bindings::*;

/// Size of `T` in bytes as a `u64`.
pub const fn size_of_u64<T>() -> u64 {
    // CAST: the ABI structs are a few KiB.
    core::mem::size_of::<T>() as u64
}

/// The little-endian dword at byte `offset` of `bytes`; `None` if it does
/// not fit.
pub fn dword(bytes: &[u8], offset: usize) -> Option<u32> {
    let b = bytes.get(offset..offset.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// `major.minor.patch` of a CSS version dword (major 23:16, minor 15:8,
/// patch 7:0; `XEHPG_CSS_VERSION_*`).
pub fn version_string(v: u32) -> String {
    let field = |shift: u32| (v >> shift) & XEHPG_CSS_VERSION_FIELD_MASK;
    format!(
        "{}.{}.{}",
        field(XEHPG_CSS_VERSION_MAJOR_SHIFT),
        field(XEHPG_CSS_VERSION_MINOR_SHIFT),
        field(0)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layouts the mock reads by offset (upstream `uc_fw_abi.h` and
    /// `xe_guc_fwif.h`; `research/anchor-xe.md` §4.2).
    #[test]
    fn layouts() {
        assert_eq!(
            core::mem::size_of::<xehpg_css_header>(),
            XEHPG_CSS_HEADER_BYTES as usize
        );
        assert_eq!(core::mem::offset_of!(xehpg_css_header, size_dw), 0x18);
        assert_eq!(core::mem::offset_of!(xehpg_css_header, key_size_dw), 0x1C);
        assert_eq!(core::mem::offset_of!(xehpg_css_header, sw_version), 0x40);
        assert_eq!(
            core::mem::offset_of!(xehpg_css_header, private_data_size),
            0x78
        );
        assert_eq!(core::mem::size_of::<xehpg_guc_policies>(), 96);
        assert_eq!(
            core::mem::offset_of!(xehpg_guc_ads, scheduler_policies),
            16 * 32 * 8 + 4
        );
    }

    #[test]
    fn helpers() {
        assert_eq!(dword(&[1, 2, 3, 4, 5], 1), Some(0x0504_0302));
        assert_eq!(dword(&[1, 2, 3], 0), None);
        assert_eq!(dword(&[], usize::MAX), None);
        assert_eq!(version_string(0x0046_3500), "70.53.0");
        assert_eq!(version_string(0x0001_1A00), "1.26.0");
    }
}
