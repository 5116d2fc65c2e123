//! One line per step: `PASS name: what was seen`, with what to do after
//! ` -- ` when it is not a pass.

use std::fmt;

/// How a step came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// As it should be.
    Pass,
    /// Works, but something is worth the operator's attention.
    Warn,
    /// Broken: the tool exits non-zero.
    Fail,
    /// Could not be checked here, and the line says why; not a pass.
    Skip,
}

impl Verdict {
    /// The word the line starts with.
    pub fn word(self) -> &'static str {
        match self {
            Self::Pass => "PASS",
            Self::Warn => "WARN",
            Self::Fail => "FAIL",
            Self::Skip => "SKIP",
        }
    }
}

/// A step's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Short, fixed name (`kernel`, `firmware`, ...), which scripts match on.
    pub name: &'static str,
    pub verdict: Verdict,
    /// The value seen.
    pub seen: String,
    /// What to do about it; empty for a pass.
    pub todo: String,
}

impl Step {
    fn new(name: &'static str, verdict: Verdict, seen: impl Into<String>, todo: &str) -> Self {
        Self {
            name,
            verdict,
            seen: seen.into(),
            todo: todo.to_string(),
        }
    }

    /// A pass.
    pub fn pass(name: &'static str, seen: impl Into<String>) -> Self {
        Self::new(name, Verdict::Pass, seen, "")
    }

    /// A warning with what to do.
    pub fn warn(name: &'static str, seen: impl Into<String>, todo: &str) -> Self {
        Self::new(name, Verdict::Warn, seen, todo)
    }

    /// A failure with what to do.
    pub fn fail(name: &'static str, seen: impl Into<String>, todo: &str) -> Self {
        Self::new(name, Verdict::Fail, seen, todo)
    }

    /// A step that could not run, with why.
    pub fn skip(name: &'static str, seen: impl Into<String>) -> Self {
        Self::new(name, Verdict::Skip, seen, "")
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}: {}", self.verdict.word(), self.name, self.seen)?;
        if !self.todo.is_empty() {
            write!(f, " -- {}", self.todo)?;
        }
        Ok(())
    }
}

/// The closing line: how many steps came out which way.
pub fn summary(steps: &[Step]) -> String {
    let n = |v| steps.iter().filter(|s| s.verdict == v).count();
    format!(
        "xehpg-smoke: {} passed, {} warned, {} failed, {} skipped",
        n(Verdict::Pass),
        n(Verdict::Warn),
        n(Verdict::Fail),
        n(Verdict::Skip)
    )
}

/// Whether any step failed (the exit status is then non-zero).
pub fn any_failed(steps: &[Step]) -> bool {
    steps.iter().any(|s| s.verdict == Verdict::Fail)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_summary() {
        let steps = [
            Step::pass("kernel", "7.3.4"),
            Step::warn("iommu", "none", "boot with intel_iommu=on"),
            Step::skip("sriov", "no SR-IOV"),
        ];
        assert_eq!(steps[0].to_string(), "PASS kernel: 7.3.4");
        assert_eq!(
            steps[1].to_string(),
            "WARN iommu: none -- boot with intel_iommu=on"
        );
        assert_eq!(steps[2].to_string(), "SKIP sriov: no SR-IOV");
        assert_eq!(
            summary(&steps),
            "xehpg-smoke: 1 passed, 1 warned, 0 failed, 1 skipped"
        );
        assert!(!any_failed(&steps));
        assert!(any_failed(&[Step::fail("pci", "none", "x")]));
    }
}
