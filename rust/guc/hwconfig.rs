// SPDX-License-Identifier: GPL-2.0

//! The hwconfig table: what the GuC reports about the hardware, fetched once after boot with
//! the MMIO GET_HWCONFIG action (upstream `xe_guc_hwconfig.c`), kept as validated KLVs.
//!
//! Upstream's kernel drivers look keys up by number only; the names the debugfs report prints
//! are Mesa's (`enum intel_hwconfig`), generated into `keys` from the key list the mock
//! serves by (`tools/mock/data/hwconfig-keys.tsv`, `make tables`).

mod keys;

use kernel::prelude::*;

use super::{
    h2g::{self, Reply},
    klv::{self, Layout},
    msg::GetHwconfig,
    tlb_inval, Ctx, Guc, GucState,
};
use crate::{
    gt::{Awake, GtDomain},
    mem::ggtt::PAGE,
};

/// Hwconfig tables are a few hundred bytes; refuse anything beyond 64 KiB as corrupt.
const HWCONFIG_MAX: u32 = 64 << 10;

/// The name of hwconfig key `key` (Mesa's, without `INTEL_HWCONFIG_`), or `None` for a key the
/// list does not have.
pub(super) fn key_name(key: u32) -> Option<&'static str> {
    // The generator writes the keys sorted and unique (its input's parser refuses anything else;
    // KUnit `hwconfig_keys_are_sorted` checks the result).
    keys::KEYS
        .binary_search_by_key(&key, |&(k, _)| k)
        .ok()
        .and_then(|i| keys::KEYS.get(i))
        .map(|&(_, name)| name)
}

/// The generated key table, for the KUnit checks.
#[cfg(xehpg_kunit)]
pub(super) const KEYS: &[(u32, &str)] = keys::KEYS;

impl Guc {
    /// The debugfs `hwconfig` report: one `NAME (key): value ...` line per attribute, decimal
    /// dwords space separated; a key without a name reads `unknown (key): ...`. Upstream's dump
    /// (`xe_guc_hwconfig.c`) prints the same entries as `[key] = value` lines.
    ///
    /// # Errors
    ///
    /// Only the formatter's.
    pub(crate) fn fmt_hwconfig(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
        let st = self.state.lock();
        // The table was checked whole when it was read; a malformed tail would end the listing.
        for k in klv::iter(&st.hwconfig, Layout::Hwconfig).flatten() {
            let name = key_name(k.key).unwrap_or("unknown");
            f.write_fmt(fmt!("{} ({}):", name, k.key))?;
            for v in k.value {
                f.write_fmt(fmt!(" {}", v))?;
            }
            f.write_str("\n")?;
        }
        Ok(())
    }

    /// GET_HWCONFIG: ask the size, give the GuC a buffer, check the table it wrote.
    ///
    /// # Errors
    ///
    /// `EIO` for a FAILURE reply, `EPROTO` for a size or table the driver does not accept, or
    /// the MMIO message's, allocation's or local-memory access's error.
    pub(super) fn hwconfig(
        &self,
        ctx: &Ctx<'_>,
        awake: &Awake<'_, GtDomain>,
        st: &mut GucState,
    ) -> Result<KVec<u32>> {
        let size = match h2g::send(&ctx.gt, &GetHwconfig::QUERY)? {
            Reply::Success(n) => n,
            Reply::Failure { error, hint } => {
                dev_err!(
                    ctx.gt.dev,
                    "guc: hwconfig size query failed: error {:#x} hint {:#x}\n",
                    error,
                    hint
                );
                return Err(EIO);
            }
        };
        if size == 0 || size % 4 != 0 || size > HWCONFIG_MAX {
            dev_err!(
                ctx.gt.dev,
                "guc: hwconfig size {:#x} is not a table the driver accepts\n",
                size
            );
            return Err(EPROTO);
        }
        let buf = self.obj(ctx, st, u64::from(size).next_multiple_of(PAGE))?;
        tlb_inval::ggtt(&ctx.gt, awake)?;
        let addr = buf.map.addr(0);
        match h2g::send(&ctx.gt, &GetHwconfig { addr, size })? {
            Reply::Success(n) if n == size => {}
            Reply::Success(n) => {
                dev_err!(
                    ctx.gt.dev,
                    "guc: hwconfig copy wrote {:#x} bytes, {:#x} asked\n",
                    n,
                    size
                );
                return Err(EPROTO);
            }
            Reply::Failure { error, hint } => {
                dev_err!(
                    ctx.gt.dev,
                    "guc: hwconfig copy failed: error {:#x} hint {:#x}\n",
                    error,
                    hint
                );
                return Err(EIO);
            }
        }
        // One copy out of local memory, then the little-endian dwords.
        let mut bytes = KVec::from_elem(0u8, size as usize, GFP_KERNEL)?;
        ctx.lmem.read_bytes(buf.lmem.start, &mut bytes)?;
        let mut table = KVec::with_capacity((size / 4) as usize, GFP_KERNEL)?;
        for dw in bytes.chunks_exact(4) {
            table.push(u32::from_le_bytes([dw[0], dw[1], dw[2], dw[3]]), GFP_KERNEL)?;
        }
        // The GuC answered, so it is done with the buffer. (On the error paths above it is kept
        // until unbind: a GuC that did not answer may still write into it.)
        self.release(ctx, st, buf);
        klv::count(&table, Layout::Hwconfig).map_err(|e| {
            dev_err!(
                ctx.gt.dev,
                "guc: hwconfig entry {} claims {} dwords, {} remain; table refused\n",
                e.entry,
                e.claimed,
                e.left
            );
            EPROTO
        })?;
        Ok(table)
    }
}
