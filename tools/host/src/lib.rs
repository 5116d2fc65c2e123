//! The host tools: `xehpg-smoke`, which checks a real Arc/Flex host step by
//! step (before installing the driver and after), and `xehpg-report`, which
//! gathers what a bug report needs into one archive.
//!
//! Every path the tools read or write goes through a [`root::Root`], a prefix
//! (`--root DIR`, `/` by default), so the unit tests run both tools against
//! fixture trees: a `proc/cmdline`, sysfs `resource` files, an `os-release`,
//! a lockdown file. What could block on a real device (a module load, a write
//! to `sriov_numvfs`, a read of a debugfs file) runs in a child process under
//! a time limit ([`bounded`]), so neither tool can hang.

pub mod bounded;
pub mod facts;
pub mod ids;
pub mod kmsg;
pub mod report;
pub mod root;
pub mod smoke;
pub mod verdict;
