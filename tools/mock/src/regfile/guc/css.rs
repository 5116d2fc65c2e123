//! The CSS header of a GuC image and the firmware file the mock compares
//! uploads with (`--guc-fw`).
//!
//! Layout: [`abi::css`], the mock's reading of upstream
//! `abi/uc_fw_abi.h`. A file is `[CSS header 128 B][uCode][RSA key]
//! [modulus][exponent]`, the last two optional; lengths are in dwords
//! (`xe_uc_fw.c` `parse_css_header`). The consistency rules are the ones
//! upstream's `parse_css_header` (`xe_uc_fw.c`) applies before it uploads:
//!
//! - `header_size_dw - key_size_dw - modulus_size_dw - exponent_size_dw`
//!   is the 32 dwords of the CSS header itself;
//! - `size_dw > header_size_dw`: the uCode is `(size_dw - header_size_dw) * 4`
//!   bytes;
//! - the DMA copies header + uCode, `128 + ucode` bytes; the RSA key
//!   follows at `128 + ucode` and is handed over separately.

use std::path::Path;

use crate::abi;

/// CSS header size in bytes.
// CAST: 128.
pub const HEADER_BYTES: u64 = abi::css::HEADER_BYTES as u64;

/// The fields of a CSS header the mock uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Css {
    /// Non-uCode dwords: header + key + modulus + exponent.
    pub header_size_dw: u32,
    /// uCode dwords plus `header_size_dw`.
    pub size_dw: u32,
    /// RSA key dwords.
    pub key_size_dw: u32,
    /// RSA modulus dwords.
    pub modulus_size_dw: u32,
    /// RSA exponent dwords.
    pub exponent_size_dw: u32,
    /// Release version (major 23:16, minor 15:8, patch 7:0).
    pub sw_version: u32,
    /// Submission interface version, same encoding.
    pub submission_version: u32,
    /// Bytes of GuC private data the driver must provide (through the ADS).
    pub private_data_size: u32,
}

impl Css {
    /// Reads the header at the start of `bytes`; `None` if it is shorter
    /// than a header.
    pub fn parse(bytes: &[u8]) -> Option<Css> {
        if (bytes.len() as u64) < HEADER_BYTES {
            return None;
        }
        let d = |off: usize| abi::dword(bytes, off);
        Some(Css {
            header_size_dw: d(abi::css::HEADER_SIZE_DW)?,
            size_dw: d(abi::css::SIZE_DW)?,
            key_size_dw: d(abi::css::KEY_SIZE_DW)?,
            modulus_size_dw: d(abi::css::MODULUS_SIZE_DW)?,
            exponent_size_dw: d(abi::css::EXPONENT_SIZE_DW)?,
            sw_version: d(abi::css::SW_VERSION)?,
            submission_version: d(abi::css::SUBMISSION_VERSION)?,
            private_data_size: d(abi::css::PRIVATE_DATA_SIZE)?,
        })
    }

    /// The consistency rules of the module docs.
    ///
    /// # Errors
    ///
    /// Which rule the header breaks.
    pub fn check(&self) -> Result<(), String> {
        let rsa = u64::from(self.key_size_dw)
            + u64::from(self.modulus_size_dw)
            + u64::from(self.exponent_size_dw);
        let own = u64::from(self.header_size_dw).checked_sub(rsa);
        if own.map(|dw| dw * 4) != Some(HEADER_BYTES) {
            return Err(format!(
                "header_size_dw {} - key {} - modulus {} - exponent {} is not the 32 dwords \
                 of the CSS header",
                self.header_size_dw, self.key_size_dw, self.modulus_size_dw, self.exponent_size_dw
            ));
        }
        if self.size_dw <= self.header_size_dw {
            return Err(format!(
                "size_dw {} is not above header_size_dw {}: no uCode",
                self.size_dw, self.header_size_dw
            ));
        }
        Ok(())
    }

    /// uCode bytes.
    pub fn ucode_bytes(&self) -> u64 {
        u64::from(self.size_dw.saturating_sub(self.header_size_dw)) * 4
    }

    /// Bytes the DMA must copy: header + uCode.
    pub fn upload_bytes(&self) -> u64 {
        HEADER_BYTES + self.ucode_bytes()
    }

    /// RSA key bytes.
    pub fn key_bytes(&self) -> u64 {
        u64::from(self.key_size_dw) * 4
    }

    /// `major.minor.patch` of the release.
    pub fn release(&self) -> String {
        abi::version_string(self.sw_version)
    }

    /// `major.minor.patch` of the submission interface.
    pub fn submission(&self) -> String {
        abi::version_string(self.submission_version)
    }
}

/// A GuC firmware file: the bytes and their checked header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FwFile {
    /// The whole file.
    pub bytes: Vec<u8>,
    /// Its header.
    pub css: Css,
}

impl FwFile {
    /// Takes a firmware image: the header must be consistent and the bytes
    /// must hold header, uCode and key.
    ///
    /// # Errors
    ///
    /// What is wrong with the image.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<FwFile, String> {
        let css = Css::parse(&bytes)
            .ok_or_else(|| format!("{} bytes: shorter than a CSS header", bytes.len()))?;
        css.check()?;
        let need = css.upload_bytes() + css.key_bytes();
        if (bytes.len() as u64) < need {
            return Err(format!(
                "{} bytes, but the header announces {need} (header, uCode and key)",
                bytes.len()
            ));
        }
        Ok(FwFile { bytes, css })
    }

    /// Reads and checks `path`.
    ///
    /// # Errors
    ///
    /// The file cannot be read or is not a GuC image.
    pub fn load(path: &Path) -> Result<FwFile, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        FwFile::from_bytes(bytes).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The RSA key: `key_size_dw * 4` bytes after header and uCode.
    pub fn key(&self) -> &[u8] {
        // CAST: from_bytes checked that the key lies inside the file.
        let start = self.css.upload_bytes() as usize;
        let len = self.css.key_bytes() as usize;
        self.bytes.get(start..start + len).unwrap_or(&[])
    }
}
