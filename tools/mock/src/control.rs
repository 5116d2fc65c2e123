//! Test control: requests a test sends the running mock, and the pacing of
//! injected interrupt events.
//!
//! A request is one line of text. `xehpg-vm` forwards the guest's
//! `XEHPG-VM-MOCK=<request>` markers verbatim over the mock's control
//! channel (`--control FIFO`, read by a thread in [`crate::server`]); by
//! hand, `echo irq:guc:8000:1 > FIFO`. The grammar:
//!
//! - `surprise-removal`: the card vanishes ([`crate::device::Device::surprise_remove`]);
//! - `irq:SOURCE:DATA:COUNT`: COUNT (decimal, 1..=[`MAX_COUNT`]) events
//!   with the 16 bits DATA (hex, `0x` optional, not 0) at SOURCE
//!   ([`Source::from_name`]: `rcs0 bcs0 ccs0..ccs3 vcs0..vcs7 vecs0..vecs3
//!   guc kcr gsc`), paced by [`Injector`];
//! - `gt-error:SEV:BITS`: GT error bits (hex, not 0) of severity SEV
//!   (`correctable`, `nonfatal`, `fatal`);
//! - `spurious-msi`: one MSI with nothing pending.
//!
//! Pacing: the first of COUNT events is raised at once, each next one the
//! moment the previous one's service ended (the driver wrote DataValid to
//! clear its identity, [`crate::regfile::intc::IntcEvent::Serviced`]), so
//! no two of them merge in the source's collapsing register and "N
//! injected" means N identities. An event the source's enable drops
//! (counted `dropped_disabled`) has no service to wait for: the next one
//! follows at once. A masked event waits in the collapsing register, and the
//! rest wait behind it until it is delivered and serviced.

use std::collections::BTreeMap;
use std::collections::VecDeque;
use std::fmt;

use crate::regfile::intc::Severity;
use crate::regfile::intc::Source;

/// Largest COUNT of one `irq:` request.
pub const MAX_COUNT: u64 = 1_000_000;

/// One test-control request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    /// `surprise-removal`.
    SurpriseRemoval,
    /// `irq:SOURCE:DATA:COUNT`.
    Irq {
        /// Where.
        source: Source,
        /// The event's bits (not 0).
        data: u16,
        /// How many events, one after the other's service.
        count: u64,
    },
    /// `gt-error:SEV:BITS`.
    GtError {
        /// Severity.
        sev: Severity,
        /// Bits (not 0).
        bits: u32,
    },
    /// `spurious-msi`.
    SpuriousMsi,
}

impl Request {
    /// Parses one request (no surrounding white space).
    ///
    /// # Errors
    ///
    /// What is wrong with the text.
    pub fn parse(text: &str) -> Result<Request, String> {
        match text {
            "surprise-removal" => return Ok(Request::SurpriseRemoval),
            "spurious-msi" => return Ok(Request::SpuriousMsi),
            _ => {}
        }
        let parts: Vec<&str> = text.split(':').collect();
        match parts.as_slice() {
            ["irq", source, data, count] => {
                let source = Source::from_name(source)
                    .ok_or_else(|| format!("`{source}` is not an interrupt source"))?;
                let data = u16::try_from(hex(data)?)
                    .ok()
                    .filter(|&d| d != 0)
                    .ok_or_else(|| format!("DATA `{data}` is not 16 bits other than 0"))?;
                let count = decimal(count)?;
                if !(1..=MAX_COUNT).contains(&count) {
                    return Err(format!("COUNT {count} is not in 1..={MAX_COUNT}"));
                }
                Ok(Request::Irq {
                    source,
                    data,
                    count,
                })
            }
            ["gt-error", sev, bits] => {
                let sev = Severity::from_name(sev).ok_or_else(|| {
                    format!("`{sev}` is not a severity (correctable, nonfatal, fatal)")
                })?;
                let bits = u32::try_from(hex(bits)?)
                    .ok()
                    .filter(|&b| b != 0)
                    .ok_or_else(|| format!("BITS `{bits}` is not 32 bits other than 0"))?;
                Ok(Request::GtError { sev, bits })
            }
            _ => Err(format!(
                "`{text}` is not surprise-removal, spurious-msi, irq:SOURCE:DATA:COUNT or \
                 gt-error:SEV:BITS"
            )),
        }
    }

    /// Whether `partial` may still become a request as more characters come
    /// (for a reader that must decide before the line ends).
    pub fn could_become(partial: &str) -> bool {
        const WORDS: [&str; 4] = ["surprise-removal", "spurious-msi", "irq:", "gt-error:"];
        if WORDS.iter().any(|w| w.starts_with(partial)) {
            return true;
        }
        let arguments = partial
            .strip_prefix("irq:")
            .or_else(|| partial.strip_prefix("gt-error:"));
        arguments.is_some_and(|rest| {
            rest.len() <= 40 && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b':')
        })
    }
}

impl fmt::Display for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Request::SurpriseRemoval => f.write_str("surprise-removal"),
            Request::SpuriousMsi => f.write_str("spurious-msi"),
            Request::Irq {
                source,
                data,
                count,
            } => write!(
                f,
                "irq:{}:{data:x}:{count}",
                source.name().unwrap_or("unknown")
            ),
            Request::GtError { sev, bits } => write!(f, "gt-error:{}:{bits:x}", sev.name()),
        }
    }
}

/// A hex number, `0x` optional, 1 to 8 digits.
fn hex(text: &str) -> Result<u64, String> {
    let digits = text
        .strip_prefix("0x")
        .or_else(|| text.strip_prefix("0X"))
        .unwrap_or(text);
    if digits.is_empty() || digits.len() > 8 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("`{text}` is not a hex number"));
    }
    u64::from_str_radix(digits, 16).map_err(|e| format!("`{text}`: {e}"))
}

/// A decimal number, digits only.
fn decimal(text: &str) -> Result<u64, String> {
    if text.is_empty() || text.len() > 12 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("`{text}` is not a decimal number"));
    }
    text.parse().map_err(|e| format!("`{text}`: {e}"))
}

/// Paced test events per source: what is still to be raised, and whether
/// the last one raised waits for its service.
#[derive(Debug, Default)]
pub struct Injector {
    /// Per source: (data, events left) in request order.
    queues: BTreeMap<Source, VecDeque<(u16, u64)>>,
    /// Sources whose last injected event is not yet serviced.
    waiting: BTreeMap<Source, ()>,
}

impl Injector {
    /// Queues `count` events of `data` at `src`.
    pub fn push(&mut self, src: Source, data: u16, count: u64) {
        if count > 0 {
            self.queues.entry(src).or_default().push_back((data, count));
        }
    }

    /// The next event to raise at `src` now: `None` while the last one
    /// waits for its service or when nothing is left. The caller raises it
    /// and reports with [`Injector::delivered`] unless it was dropped.
    pub fn next(&mut self, src: Source) -> Option<u16> {
        if self.waiting.contains_key(&src) {
            return None;
        }
        let queue = self.queues.get_mut(&src)?;
        let (data, left) = queue.front_mut()?;
        let data = *data;
        *left -= 1;
        if *left == 0 {
            queue.pop_front();
        }
        if queue.is_empty() {
            self.queues.remove(&src);
        }
        Some(data)
    }

    /// The event just taken with [`Injector::next`] reached the source
    /// (forwarded or pending): the next waits for its service.
    pub fn delivered(&mut self, src: Source) {
        self.waiting.insert(src, ());
    }

    /// `src`'s service ended; returns whether an injected event was waiting
    /// for it (then the caller raises the next, if any).
    pub fn serviced(&mut self, src: Source) -> bool {
        self.waiting.remove(&src).is_some()
    }

    /// Drops everything: per source, the events never raised.
    pub fn abandon(&mut self) -> Vec<(Source, u64)> {
        self.waiting.clear();
        std::mem::take(&mut self.queues)
            .into_iter()
            .map(|(src, q)| (src, q.iter().map(|&(_, n)| n).sum()))
            .collect()
    }

    /// Events not yet raised, over all sources.
    pub fn queued(&self) -> u64 {
        self.queues
            .values()
            .flat_map(|q| q.iter().map(|&(_, n)| n))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::regfile::intc::Class;

    #[test]
    fn requests_parse_and_print_back() {
        for (text, want) in [
            ("surprise-removal", Request::SurpriseRemoval),
            ("spurious-msi", Request::SpuriousMsi),
            (
                "irq:guc:8000:1000",
                Request::Irq {
                    source: Source::GUC,
                    data: 0x8000,
                    count: 1000,
                },
            ),
            (
                "irq:vecs3:1:1",
                Request::Irq {
                    source: Source {
                        class: Class::VideoEnhance,
                        instance: 3,
                    },
                    data: 1,
                    count: 1,
                },
            ),
            (
                "gt-error:nonfatal:40",
                Request::GtError {
                    sev: Severity::NonFatal,
                    bits: 0x40,
                },
            ),
        ] {
            assert_eq!(Request::parse(text), Ok(want), "{text}");
            assert_eq!(want.to_string(), text);
        }
        // 0x is optional, case is not significant for hex digits.
        assert_eq!(
            Request::parse("irq:rcs0:0x0101:2"),
            Request::parse("irq:rcs0:101:2")
        );
        assert_eq!(
            Request::parse("gt-error:fatal:0xFFFFFFFF"),
            Ok(Request::GtError {
                sev: Severity::Fatal,
                bits: u32::MAX
            })
        );
    }

    #[test]
    fn malformed_requests_are_rejected() {
        for bad in [
            "",
            "irq",
            "irq:",
            "irq:guc:8000",
            "irq:guc:8000:1:2",
            "irq:gpu:8000:1",
            "irq:GUC:8000:1",
            "irq:sctrg:1:1",
            "irq:guc:0:1",
            "irq:guc:10000:1",
            "irq:guc:zz:1",
            "irq:guc:0x:1",
            "irq:guc:8000:0",
            "irq:guc:8000:-1",
            "irq:guc:8000:0x10",
            "irq:guc:8000:1000001",
            "irq:guc:8000:1 ",
            " irq:guc:8000:1",
            "gt-error:fatal",
            "gt-error:severe:1",
            "gt-error:fatal:0",
            "gt-error:fatal:100000000",
            "spurious-msi:1",
            "surprise-removal ",
            "reboot",
        ] {
            assert!(Request::parse(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn partial_requests() {
        for p in [
            "",
            "s",
            "surprise-rem",
            "spur",
            "irq",
            "irq:",
            "irq:guc:80",
            "gt-error:fa",
        ] {
            assert!(Request::could_become(p), "{p:?}");
        }
        for p in ["reboot", "irq:guc 1", "surprise-removal ", "gt-error:x;"] {
            assert!(!Request::could_become(p), "{p:?}");
        }
    }

    /// Pacing: one at a time per source; sources are independent; a
    /// dropped event lets the next go at once (the caller does not call
    /// `delivered`).
    #[test]
    fn injector_paces_per_source() {
        let vcs0 = Source {
            class: Class::VideoDecode,
            instance: 0,
        };
        let mut inj = Injector::default();
        inj.push(Source::GUC, 0x8000, 2);
        inj.push(Source::GUC, 0x4000, 1);
        inj.push(vcs0, 1, 1);
        assert_eq!(inj.queued(), 4);
        assert_eq!(inj.next(Source::GUC), Some(0x8000));
        inj.delivered(Source::GUC);
        assert_eq!(inj.next(Source::GUC), None, "waits for the service");
        assert_eq!(inj.next(vcs0), Some(1), "another source is free");
        assert!(!inj.serviced(vcs0), "vcs0 was not reported delivered");
        assert!(inj.serviced(Source::GUC));
        assert!(!inj.serviced(Source::GUC), "once");
        assert_eq!(inj.next(Source::GUC), Some(0x8000));
        // Dropped: no `delivered`, the next is free at once.
        assert_eq!(inj.next(Source::GUC), Some(0x4000));
        assert_eq!(inj.next(Source::GUC), None);
        assert_eq!(inj.queued(), 0);
        inj.push(Source::GUC, 1, 5);
        assert_eq!(inj.next(Source::GUC), Some(1));
        inj.delivered(Source::GUC);
        assert_eq!(inj.abandon(), vec![(Source::GUC, 4)]);
        assert_eq!(inj.next(Source::GUC), None);
        assert!(!inj.serviced(Source::GUC));
    }
}
