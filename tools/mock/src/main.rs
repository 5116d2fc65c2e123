//! `xehpg-mock` binary: parses the options and runs the vfio-user server.
//! All logic lives in the library.

use std::process::ExitCode;

use xehpg_mock::Options;

fn main() -> ExitCode {
    let opts = match Options::try_parse_args(std::env::args_os()) {
        Ok(o) => o,
        // Prints usage/help/version and exits 2 on a usage error, 0 for --help.
        Err(e) => e.exit(),
    };
    match xehpg_mock::server::run(&opts) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xehpg-mock: {e:#}");
            ExitCode::FAILURE
        }
    }
}
