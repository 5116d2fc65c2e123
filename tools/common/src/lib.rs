//! Code shared by `xehpg-vm` and `xehpg-check`: the bootstrap's `env.mk`
//! ([`envmk`]) and children that cannot outlive their parent ([`process`]).

pub mod envmk;
pub mod process;
