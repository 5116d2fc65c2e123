//! Writer for the cpio "newc" format, the one the kernel unpacks as an
//! initramfs (see `Documentation/driver-api/early-userspace/buffer-format.rst`).
//!
//! Each entry is a 110-byte ASCII header (magic `070701`, then thirteen 8-digit
//! hex fields), the NUL-terminated name padded to a multiple of 4 bytes, and
//! the data padded likewise. A `TRAILER!!!` entry ends the archive. Writing it
//! here rather than running `cpio` lets the runner create `/dev/console`
//! without root and keeps the archive reproducible (all mtimes 0, owner root).

use std::io::Write;

use anyhow::bail;
use anyhow::Result;

/// File type bits of `st_mode`.
pub const S_IFDIR: u32 = 0o040_000;
pub const S_IFREG: u32 = 0o100_000;
pub const S_IFLNK: u32 = 0o120_000;
pub const S_IFCHR: u32 = 0o020_000;

const MAGIC: &str = "070701";
const TRAILER: &str = "TRAILER!!!";
const HEADER_LEN: usize = 110;

/// Streams newc entries to `out`. Names are written without a leading `/`,
/// as the kernel's own `gen_init_cpio` does; the caller must add a directory
/// before anything inside it, since the kernel does not create parents.
pub struct Writer<W: Write> {
    out: W,
    next_ino: u32,
    /// Bytes written so far, to compute padding.
    offset: u64,
}

/// The header fields that differ between entry kinds.
struct Meta {
    mode: u32,
    nlink: u32,
    rdev: (u32, u32),
}

impl<W: Write> Writer<W> {
    pub fn new(out: W) -> Self {
        Self {
            out,
            next_ino: 1,
            offset: 0,
        }
    }

    /// Adds a directory; `perm` holds the permission bits only.
    pub fn dir(&mut self, name: &str, perm: u32) -> Result<()> {
        let meta = Meta {
            mode: S_IFDIR | (perm & 0o7777),
            nlink: 2,
            rdev: (0, 0),
        };
        self.entry(name, &meta, &[])
    }

    /// Adds a regular file with `data` as contents.
    pub fn file(&mut self, name: &str, perm: u32, data: &[u8]) -> Result<()> {
        let meta = Meta {
            mode: S_IFREG | (perm & 0o7777),
            nlink: 1,
            rdev: (0, 0),
        };
        self.entry(name, &meta, data)
    }

    /// Adds a symbolic link; newc stores the target as the entry's data.
    pub fn symlink(&mut self, name: &str, target: &str) -> Result<()> {
        let meta = Meta {
            mode: S_IFLNK | 0o777,
            nlink: 1,
            rdev: (0, 0),
        };
        self.entry(name, &meta, target.as_bytes())
    }

    /// Adds a character device node.
    pub fn char_dev(&mut self, name: &str, perm: u32, major: u32, minor: u32) -> Result<()> {
        let meta = Meta {
            mode: S_IFCHR | (perm & 0o7777),
            nlink: 1,
            rdev: (major, minor),
        };
        self.entry(name, &meta, &[])
    }

    /// Writes the trailer and returns the output.
    pub fn finish(mut self) -> Result<W> {
        let meta = Meta {
            mode: 0,
            nlink: 1,
            rdev: (0, 0),
        };
        // The trailer carries inode 0, like GNU cpio's.
        self.next_ino = 0;
        self.raw_entry(TRAILER, &meta, &[])?;
        self.out.flush()?;
        Ok(self.out)
    }

    fn entry(&mut self, name: &str, meta: &Meta, data: &[u8]) -> Result<()> {
        let name = name.trim_start_matches('/');
        if name.is_empty() || name == TRAILER || name.contains('\0') {
            bail!("cpio: invalid entry name {name:?}");
        }
        self.raw_entry(name, meta, data)?;
        self.next_ino += 1;
        Ok(())
    }

    fn raw_entry(&mut self, name: &str, meta: &Meta, data: &[u8]) -> Result<()> {
        let Ok(size) = u32::try_from(data.len()) else {
            bail!(
                "cpio: {name} is {} bytes, newc stores at most 4 GiB",
                data.len()
            );
        };
        // The name size counts the terminating NUL.
        let Ok(name_size) = u32::try_from(name.len() + 1) else {
            bail!("cpio: name too long: {name}");
        };
        let fields = [
            self.next_ino,
            meta.mode,
            0, // uid
            0, // gid
            meta.nlink,
            0, // mtime: fixed, so the archive depends only on its inputs
            size,
            0, // dev major
            0, // dev minor
            meta.rdev.0,
            meta.rdev.1,
            name_size,
            0, // checksum: only the "070702" variant uses it
        ];
        let mut header = String::with_capacity(HEADER_LEN);
        header.push_str(MAGIC);
        for field in fields {
            header.push_str(&format!("{field:08x}"));
        }
        self.write(header.as_bytes())?;
        self.write(name.as_bytes())?;
        self.write(&[0])?;
        self.pad()?;
        self.write(data)?;
        self.pad()
    }

    fn write(&mut self, bytes: &[u8]) -> Result<()> {
        self.out.write_all(bytes)?;
        self.offset += bytes.len() as u64;
        Ok(())
    }

    /// Pads with NULs to the next multiple of 4.
    fn pad(&mut self) -> Result<()> {
        // `offset % 4` is below 4, so the cast cannot truncate.
        let fill = ((4 - self.offset % 4) % 4) as usize;
        self.write(&[0; 3][..fill])
    }
}

/// A test-only reader, to check the writer against an independent decoding.
#[cfg(test)]
pub mod read {
    use super::*;

    /// One decoded entry.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct Entry {
        pub name: String,
        pub ino: u32,
        pub mode: u32,
        pub nlink: u32,
        pub rdev: (u32, u32),
        pub data: Vec<u8>,
    }

    /// Decodes a whole archive up to (excluding) the trailer, checking magic,
    /// padding and that nothing but padding follows the trailer.
    pub fn entries(mut bytes: &[u8]) -> Vec<Entry> {
        let total = bytes.len();
        let mut out = Vec::new();
        loop {
            let offset = total - bytes.len();
            assert_eq!(offset % 4, 0, "entry at unaligned offset {offset}");
            assert_eq!(&bytes[..6], MAGIC.as_bytes(), "bad magic at {offset}");
            let field = |i: usize| {
                let text = std::str::from_utf8(&bytes[6 + 8 * i..14 + 8 * i]).unwrap();
                u32::from_str_radix(text, 16).unwrap()
            };
            let (ino, mode, nlink, size) = (field(0), field(1), field(4), field(6));
            let rdev = (field(9), field(10));
            let name_size = field(11) as usize;
            let name_end = HEADER_LEN + name_size;
            assert_eq!(bytes[name_end - 1], 0, "name not NUL-terminated");
            let name = std::str::from_utf8(&bytes[HEADER_LEN..name_end - 1])
                .unwrap()
                .to_owned();
            let data_start = name_end.next_multiple_of(4);
            let data_end = data_start + size as usize;
            let data = bytes[data_start..data_end].to_vec();
            bytes = &bytes[data_end.next_multiple_of(4)..];
            if name == TRAILER {
                assert!(bytes.iter().all(|&b| b == 0), "data after the trailer");
                return out;
            }
            out.push(Entry {
                name,
                ino,
                mode,
                nlink,
                rdev,
                data,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::read::entries;
    use super::*;

    fn sample() -> Vec<u8> {
        let mut w = Writer::new(Vec::new());
        w.dir("/bin", 0o755).unwrap();
        w.file("bin/busybox", 0o755, b"\x7fELF...").unwrap();
        w.symlink("bin/sh", "/bin/busybox").unwrap();
        w.dir("dev", 0o755).unwrap();
        w.char_dev("dev/console", 0o600, 5, 1).unwrap();
        // Lengths 0..=4 exercise every padding case of names and data.
        for len in 0..=4 {
            w.file(&format!("f{len}"), 0o644, &b"abcd"[..len]).unwrap();
        }
        w.finish().unwrap()
    }

    #[test]
    fn round_trips_through_reader() {
        let archive = sample();
        assert_eq!(archive.len() % 4, 0);
        let got = entries(&archive);
        let names: Vec<_> = got.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "bin",
                "bin/busybox",
                "bin/sh",
                "dev",
                "dev/console",
                "f0",
                "f1",
                "f2",
                "f3",
                "f4"
            ]
        );
        assert_eq!(got[0].mode, S_IFDIR | 0o755);
        assert_eq!(got[0].nlink, 2);
        assert_eq!(got[1].mode, S_IFREG | 0o755);
        assert_eq!(got[1].data, b"\x7fELF...");
        assert_eq!(got[2].mode, S_IFLNK | 0o777);
        assert_eq!(got[2].data, b"/bin/busybox");
        assert_eq!(got[4].mode, S_IFCHR | 0o600);
        assert_eq!(got[4].rdev, (5, 1));
        for (len, entry) in got[5..].iter().enumerate() {
            assert_eq!(entry.data, &b"abcd"[..len]);
        }
        // Inode numbers are distinct, so nothing is taken for a hard link.
        let mut inos: Vec<_> = got.iter().map(|e| e.ino).collect();
        inos.dedup();
        assert_eq!(inos.len(), got.len());
    }

    #[test]
    fn header_layout_is_exact() {
        let mut w = Writer::new(Vec::new());
        w.file("a", 0o644, b"xy").unwrap();
        let archive = w.finish().unwrap();
        let expected_header = "070701\
            00000001000081a4000000000000000000000001\
            0000000000000002000000000000000000000000\
            000000000000000200000000";
        assert_eq!(&archive[..110], expected_header.as_bytes());
        // Name "a\0" ends at 112, already aligned; data "xy" padded to 116.
        assert_eq!(&archive[110..116], b"a\0xy\0\0");
        assert_eq!(&archive[116..122], b"070701");
    }

    #[test]
    fn mode_argument_cannot_change_the_type() {
        let mut w = Writer::new(Vec::new());
        w.file("x", S_IFDIR | 0o644, b"").unwrap();
        let got = entries(&w.finish().unwrap());
        assert_eq!(got[0].mode, S_IFREG | 0o644);
    }

    #[test]
    fn rejects_bad_names() {
        let mut w = Writer::new(Vec::new());
        assert!(w.file("/", 0o644, b"").is_err());
        assert!(w.file("TRAILER!!!", 0o644, b"").is_err());
        assert!(w.file("a\0b", 0o644, b"").is_err());
    }

    /// Cross-checks against GNU cpio when the host has it.
    #[test]
    fn gnu_cpio_lists_the_archive() {
        use std::process::Command;
        use std::process::Stdio;

        let Ok(mut child) = Command::new("cpio")
            .args(["-t", "-v", "--quiet"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
        else {
            eprintln!("cpio not installed; skipping");
            return;
        };
        child.stdin.take().unwrap().write_all(&sample()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let listing = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<_> = listing.lines().collect();
        assert_eq!(lines.len(), 10, "{listing}");
        assert!(lines[0].starts_with("drwxr-xr-x") && lines[0].ends_with(" bin"));
        assert!(lines[2].starts_with("lrwxrwxrwx") && lines[2].ends_with("bin/sh -> /bin/busybox"));
        assert!(lines[4].starts_with("crw-------") && lines[4].contains("5,"));
        assert!(lines[9].starts_with("-rw-r--r--") && lines[9].ends_with(" f4"));
    }
}
