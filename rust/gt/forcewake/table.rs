// SPDX-License-Identifier: GPL-2.0
// @generated from the seed's "Force Wake and Steering Table" (seed 000, lines 455-704) by the
// table generator in tools/; do not edit by hand: change the seed-derived TSV or the generator.

//! Forcewake domain of every GT MMIO range (the data of [`super::lookup`]).

use super::{r, Domain, Range, Wake};

pub(super) const RANGES: &[Range] = &[
    r(0x000000, 0x000aff, Wake::None),                     // seed L462
    r(0x000b00, 0x001fff, Wake::None),                     // seed L463-L466
    r(0x002000, 0x0026ff, Wake::Domain(Domain::Render)),   // seed L467
    r(0x002700, 0x004aff, Wake::Domain(Domain::Gt)),       // seed L468-L475
    r(0x004b00, 0x004fff, Wake::None),                     // seed L476
    r(0x005000, 0x0051ff, Wake::None),                     // seed L477-L478
    r(0x005200, 0x007fff, Wake::Domain(Domain::Render)),   // seed L479-L484
    r(0x008000, 0x00813f, Wake::Domain(Domain::Gt)),       // seed L485-L486
    r(0x008140, 0x00815f, Wake::Domain(Domain::Render)),   // seed L487-L488
    r(0x008160, 0x00817f, Wake::None),                     // seed L489
    r(0x008180, 0x0081ff, Wake::None),                     // seed L490
    r(0x008200, 0x0082ff, Wake::Domain(Domain::Gt)),       // seed L491
    r(0x008300, 0x0084ff, Wake::Domain(Domain::Render)),   // seed L492
    r(0x008500, 0x0087ff, Wake::Domain(Domain::Gt)),       // seed L493-L499
    r(0x008800, 0x008c7f, Wake::None),                     // seed L500-L503
    r(0x008c80, 0x008cff, Wake::Domain(Domain::Gt)),       // seed L504
    r(0x008d00, 0x008dff, Wake::Domain(Domain::Render)),   // seed L505-L506
    r(0x008e00, 0x008fff, Wake::None),                     // seed L507
    r(0x009000, 0x00947f, Wake::Domain(Domain::Gt)),       // seed L508-L509
    r(0x009480, 0x0094cf, Wake::None),                     // seed L510
    r(0x0094d0, 0x00955f, Wake::Domain(Domain::Render)),   // seed L511-L512
    r(0x009560, 0x0095ff, Wake::None),                     // seed L513
    r(0x009600, 0x00967f, Wake::None),                     // seed L514
    r(0x009680, 0x0096ff, Wake::Domain(Domain::Render)),   // seed L515
    r(0x009700, 0x0097ff, Wake::None),                     // seed L516
    r(0x009800, 0x00b4ff, Wake::Domain(Domain::Gt)),       // seed L517-L521
    r(0x00b500, 0x00bfff, Wake::None),                     // seed L522
    r(0x00c000, 0x00cfff, Wake::Domain(Domain::Gt)),       // seed L523-L524
    r(0x00d000, 0x00d7ff, Wake::None),                     // seed L525-L526
    r(0x00d800, 0x00d87f, Wake::Domain(Domain::Render)),   // seed L527
    r(0x00d880, 0x00dbff, Wake::Domain(Domain::Gt)),       // seed L528-L529
    r(0x00dc00, 0x00dcff, Wake::Domain(Domain::Render)),   // seed L530
    r(0x00dd00, 0x00ddff, Wake::Domain(Domain::Gt)),       // seed L533
    r(0x00de00, 0x00de7f, Wake::None),                     // seed L534
    r(0x00de80, 0x00dfff, Wake::Domain(Domain::Render)),   // seed L535-L536
    r(0x00e000, 0x00e0ff, Wake::None),                     // seed L537
    r(0x00e100, 0x00e8ff, Wake::Domain(Domain::Render)),   // seed L538-L541
    r(0x00e900, 0x00e9ff, Wake::Domain(Domain::Gt)),       // seed L542
    r(0x00ea00, 0x00efff, Wake::None),                     // seed L543
    r(0x00f000, 0x00ffff, Wake::Domain(Domain::Gt)),       // seed L544-L545
    r(0x010000, 0x011fff, Wake::None),                     // seed L546
    r(0x012000, 0x0127ff, Wake::None),                     // seed L547
    r(0x012800, 0x012fff, Wake::None),                     // seed L548
    r(0x013000, 0x0131ff, Wake::Domain(Domain::Vdbox(0))), // seed L549
    r(0x013200, 0x0133ff, Wake::Domain(Domain::Vdbox(2))), // seed L550
    r(0x013400, 0x013fff, Wake::None),                     // seed L551
    r(0x014000, 0x0141ff, Wake::Domain(Domain::Vdbox(0))), // seed L552
    r(0x014200, 0x0143ff, Wake::Domain(Domain::Vdbox(2))), // seed L553
    r(0x014400, 0x0145ff, Wake::Domain(Domain::Vdbox(4))), // seed L554
    r(0x014600, 0x0147ff, Wake::Domain(Domain::Vdbox(6))), // seed L555
    r(0x014800, 0x014fff, Wake::Domain(Domain::Render)),   // seed L556
    r(0x015000, 0x015fff, Wake::Domain(Domain::Gt)),       // seed L557-L560
    r(0x016000, 0x016dff, Wake::None),                     // seed L561
    r(0x016e00, 0x01ffff, Wake::Domain(Domain::Render)),   // seed L562-L571
    r(0x020000, 0x020fff, Wake::Domain(Domain::Vdbox(0))), // seed L572
    r(0x021000, 0x021fff, Wake::None),                     // seed L573
    r(0x022000, 0x023fff, Wake::Domain(Domain::Gt)),       // seed L574-L575
    r(0x024000, 0x02407f, Wake::None),                     // seed L576
    r(0x024080, 0x02417f, Wake::None),                     // seed L577
    r(0x024180, 0x0241ff, Wake::Domain(Domain::Gt)),       // seed L578
    r(0x024200, 0x0249ff, Wake::None),                     // seed L579
    r(0x024a00, 0x024a7f, Wake::Domain(Domain::Render)),   // seed L580
    r(0x024a80, 0x0251ff, Wake::None),                     // seed L581
    r(0x025200, 0x0252ff, Wake::Domain(Domain::Gt)),       // seed L582-L583
    r(0x025300, 0x025aff, Wake::None),                     // seed L584-L589
    r(0x025b00, 0x025fff, Wake::None),                     // not in the seed table
    r(0x026000, 0x027fff, Wake::Domain(Domain::Render)),   // seed L590
    r(0x028000, 0x02ffff, Wake::None),                     // seed L591
    r(0x030000, 0x03ffff, Wake::Domain(Domain::Gt)),       // seed L592
    r(0x040000, 0x1bffff, Wake::None),                     // not in the seed table
    r(0x1c0000, 0x1c2bff, Wake::Domain(Domain::Vdbox(0))), // seed L593-L598
    r(0x1c2c00, 0x1c2cff, Wake::None),                     // seed L599
    r(0x1c2d00, 0x1c3dff, Wake::Domain(Domain::Vdbox(0))), // seed L600-L601
    r(0x1c3e00, 0x1c3eff, Wake::None),                     // seed L602
    r(0x1c3f00, 0x1c3fff, Wake::Domain(Domain::Vdbox(0))), // seed L603
    r(0x1c4000, 0x1c6bff, Wake::Domain(Domain::Vdbox(1))), // seed L604-L611
    r(0x1c6c00, 0x1c6cff, Wake::None),                     // seed L612
    r(0x1c6d00, 0x1c6dff, Wake::Domain(Domain::Vdbox(1))), // seed L613
    r(0x1c6e00, 0x1c7fff, Wake::None),                     // seed L614-L615
    r(0x1c8000, 0x1ca0ff, Wake::Domain(Domain::Vebox(0))), // seed L616-L617
    r(0x1ca100, 0x1cbfff, Wake::None),                     // seed L618-L619
    r(0x1cc000, 0x1ccfff, Wake::Domain(Domain::Vdbox(0))), // seed L620
    r(0x1cd000, 0x1cdfff, Wake::Domain(Domain::Vdbox(2))), // seed L621
    r(0x1ce000, 0x1cefff, Wake::Domain(Domain::Vdbox(4))), // seed L622
    r(0x1cf000, 0x1cffff, Wake::Domain(Domain::Vdbox(6))), // seed L623
    r(0x1d0000, 0x1d2bff, Wake::Domain(Domain::Vdbox(2))), // seed L624-L629
    r(0x1d2c00, 0x1d2cff, Wake::None),                     // seed L630
    r(0x1d2d00, 0x1d2dff, Wake::Domain(Domain::Vdbox(2))), // seed L631
    r(0x1d2e00, 0x1d3eff, Wake::None),                     // seed L632-L633
    r(0x1d3f00, 0x1d3fff, Wake::Domain(Domain::Vdbox(2))), // seed L634
    r(0x1d4000, 0x1d5fff, Wake::Domain(Domain::Vdbox(3))), // seed L635-L637
    r(0x1d6000, 0x1d67ff, Wake::Domain(Domain::Vdbox(3))), // not in the seed table; settled: the block's domain
    r(0x1d6800, 0x1d6bff, Wake::Domain(Domain::Vdbox(3))), // seed L638-L639
    r(0x1d6c00, 0x1d6cff, Wake::None),                     // seed L640
    r(0x1d6d00, 0x1d6dff, Wake::Domain(Domain::Vdbox(3))), // seed L641
    r(0x1d6e00, 0x1d7fff, Wake::None),                     // seed L642-L643
    r(0x1d8000, 0x1da0ff, Wake::Domain(Domain::Vebox(1))), // seed L644-L645
    r(0x1da100, 0x1dffff, Wake::None),                     // seed L650-L652
    r(0x1e0000, 0x1e1fff, Wake::Domain(Domain::Vdbox(4))), // seed L653-L655
    r(0x1e2000, 0x1e27ff, Wake::Domain(Domain::Vdbox(4))), // not in the seed table; settled: the block's domain
    r(0x1e2800, 0x1e2bff, Wake::Domain(Domain::Vdbox(4))), // seed L656-L657
    r(0x1e2c00, 0x1e2cff, Wake::None),                     // seed L658
    r(0x1e2d00, 0x1e2dff, Wake::Domain(Domain::Vdbox(4))), // seed L659
    r(0x1e2e00, 0x1e3eff, Wake::None),                     // seed L660
    r(0x1e3f00, 0x1e3fff, Wake::Domain(Domain::Vdbox(4))), // seed L661
    r(0x1e4000, 0x1e5fff, Wake::Domain(Domain::Vdbox(5))), // seed L662-L664
    r(0x1e6000, 0x1e67ff, Wake::Domain(Domain::Vdbox(5))), // not in the seed table; settled: the block's domain
    r(0x1e6800, 0x1e6bff, Wake::Domain(Domain::Vdbox(5))), // seed L665-L666
    r(0x1e6c00, 0x1e6cff, Wake::None),                     // seed L667
    r(0x1e6d00, 0x1e6dff, Wake::Domain(Domain::Vdbox(5))), // seed L668
    r(0x1e6e00, 0x1e7fff, Wake::None),                     // seed L669-L670
    r(0x1e8000, 0x1ea0ff, Wake::Domain(Domain::Vebox(2))), // seed L671-L672
    r(0x1ea100, 0x1effff, Wake::None),                     // seed L673-L675
    r(0x1f0000, 0x1f2bff, Wake::Domain(Domain::Vdbox(6))), // seed L676-L681
    r(0x1f2c00, 0x1f2cff, Wake::None),                     // seed L682
    r(0x1f2d00, 0x1f2dff, Wake::Domain(Domain::Vdbox(6))), // seed L683
    r(0x1f2e00, 0x1f3eff, Wake::None),                     // seed L684
    r(0x1f3f00, 0x1f3fff, Wake::Domain(Domain::Vdbox(6))), // seed L685
    r(0x1f4000, 0x1f5fff, Wake::Domain(Domain::Vdbox(7))), // seed L686-L690
    r(0x1f6000, 0x1f67ff, Wake::Domain(Domain::Vdbox(7))), // not in the seed table; settled: the block's domain
    r(0x1f6800, 0x1f6bff, Wake::Domain(Domain::Vdbox(7))), // seed L691-L692
    r(0x1f6c00, 0x1f6cff, Wake::None),                     // seed L693
    r(0x1f6d00, 0x1f6dff, Wake::Domain(Domain::Vdbox(7))), // seed L694
    r(0x1f6e00, 0x1f7fff, Wake::None),                     // seed L695-L696
    r(0x1f8000, 0x1fa0ff, Wake::Domain(Domain::Vebox(3))), // seed L697-L698
    r(0x1fa100, 0x23ffff, Wake::None),                     // seed L699-L702
];
