// SPDX-License-Identifier: GPL-2.0
// @generated from the seed's "Force Wake and Steering Table" (seed 000, lines 463-580,
// replication column) by the table generator in tools/; do not edit by hand: change the
// seed-derived TSV or the generator.

//! Steering group of every DG2 multicast range (the data of [`super::steering_of`]).

use super::{m, McrRange, Steering};

pub(super) const RANGES: &[McrRange] = &[
    m(0x000b00, 0x000bff, Steering::SqidiSf),   // seed L463
    m(0x001000, 0x001fff, Steering::SqidiSf),   // seed L466
    m(0x004000, 0x004aff, Steering::Gam),       // seed L472-L475 (MSLICE in the seed)
    m(0x005200, 0x0052ff, Steering::Gslice),    // seed L479
    m(0x005400, 0x007fff, Steering::Gslice),    // seed L481-L484
    m(0x008140, 0x00814f, Steering::Gslice),    // seed L487
    m(0x008150, 0x00815f, Steering::Dss),       // seed L488
    m(0x008700, 0x0087ff, Steering::SqidiMcfg), // seed L499
    m(0x008c80, 0x008cff, Steering::L3bank),    // seed L504
    m(0x008d00, 0x008dff, Steering::Dss),       // seed L505-L506
    m(0x0094d0, 0x00951f, Steering::Gslice),    // seed L511
    m(0x009520, 0x00955f, Steering::Dss),       // seed L512
    m(0x009680, 0x0096ff, Steering::Dss),       // seed L515
    m(0x00b000, 0x00b0ff, Steering::Lncf),      // seed L519
    m(0x00b100, 0x00b3ff, Steering::L3bank),    // seed L520
    m(0x00c800, 0x00cfff, Steering::Gam),       // seed L524 (MSLICE in the seed)
    m(0x00d800, 0x00d87f, Steering::Gslice),    // seed L527
    m(0x00d880, 0x00d8ff, Steering::Lncf),      // seed L528
    m(0x00dc00, 0x00dcff, Steering::Gslice),    // seed L530
    m(0x00dd00, 0x00ddff, Steering::Mslice),    // seed L533
    m(0x00de80, 0x00dfff, Steering::Dss),       // seed L535-L536
    m(0x00e100, 0x00e8ff, Steering::Dss),       // seed L538-L541
    m(0x00e900, 0x00e9ff, Steering::Mslice),    // seed L542
    m(0x00f000, 0x00ffff, Steering::Gam),       // seed L544-L545 (MSLICE in the seed)
    m(0x017000, 0x017fff, Steering::Gslice),    // seed L563
    m(0x024a00, 0x024a7f, Steering::Dss),       // seed L580
];
