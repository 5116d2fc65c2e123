//! `xehpg-apt`: what the bootstrap needs to know about the host's apt
//! configuration, without writing any archive's host name into the
//! repository. [`mirror`] finds Debian's archive among the system's apt
//! sources ([`sources`]) and names the host ([`osrelease`]); [`pick`] chooses
//! the newest of the versions or kernel releases apt reports, in Debian's
//! version order ([`version`]). Used by tools/bootstrap.sh and
//! tools/distro-modules.sh through tools/script-lib.sh.

pub mod mirror;
pub mod osrelease;
pub mod pick;
pub mod sources;
pub mod version;
