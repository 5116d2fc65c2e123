//! The kernel log from `/dev/kmsg`, read without blocking.
//!
//! Each `read` of `/dev/kmsg` returns one record, `PRIO,SEQ,USEC,FLAGS;TEXT`
//! followed by dictionary lines that start with a space
//! (Documentation/ABI/testing/dev-kmsg), and fails with `EAGAIN` at the end
//! when the file was opened non-blocking, or `EPIPE` when records were
//! overwritten before they were read (the next read goes on). A fixture is a
//! plain file of such records.

use std::io::{ErrorKind, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The raw records of the log at `path`, to their end.
pub fn read_records(path: &Path) -> std::io::Result<String> {
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let mut out = Vec::new();
    // Larger than a record can be (the kernel's limit is 8 KiB of text and
    // its escapes).
    let mut buf = vec![0u8; 64 << 10];
    let mut lost = 0;
    loop {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::WouldBlock => break,
            Err(e) if e.raw_os_error() == Some(libc::EPIPE) && lost < 1000 => lost += 1,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) if out.is_empty() => return Err(e),
            Err(_) => break,
        }
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

/// The records as `dmesg` prints them: `[  SECONDS.MICROS] TEXT`; dictionary
/// lines are dropped, lines that are not records kept as they are.
pub fn format(records: &str) -> String {
    let mut out = String::new();
    for line in records.lines() {
        if line.starts_with(' ') {
            continue;
        }
        let parsed = line.split_once(';').and_then(|(head, text)| {
            let mut f = head.split(',');
            let (_prio, _seq) = (f.next()?, f.next()?);
            let usec: u64 = f.next()?.parse().ok()?;
            Some((usec, text))
        });
        match parsed {
            Some((usec, text)) => {
                out.push_str(&format!(
                    "[{:5}.{:06}] {text}\n",
                    usec / 1_000_000,
                    usec % 1_000_000
                ));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "6,1,0,-;Linux version 7.3.4\n\
6,712,2345678,-;xehpg 0000:00:02.0: ATS-M150 rev 0x08 (stepping C0), 16384 MiB local memory, 32 DSS, bound\n \
SUBSYSTEM=pci\n \
DEVICE=+pci:0000:00:02.0\n\
4,713,12000001,c;a line with ; inside\n";

    #[test]
    fn records_are_printed_as_dmesg_does() {
        let text = format(SAMPLE);
        assert_eq!(
            text,
            "[    0.000000] Linux version 7.3.4\n\
[    2.345678] xehpg 0000:00:02.0: ATS-M150 rev 0x08 (stepping C0), 16384 MiB local memory, 32 DSS, bound\n\
[   12.000001] a line with ; inside\n"
        );
        assert_eq!(format("not a record\n"), "not a record\n");
    }

    #[test]
    fn a_fixture_file_reads_to_its_end() {
        let t = tempfile::tempdir().unwrap();
        let p = t.path().join("kmsg");
        std::fs::write(&p, SAMPLE).unwrap();
        assert_eq!(read_records(&p).unwrap(), SAMPLE);
        assert!(read_records(&t.path().join("none")).is_err());
    }
}
