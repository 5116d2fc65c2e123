#!/bin/sh
# Interrupts end to end: the driver takes one MSI, arms the sources the fuses
# say exist with the vectors of GuC mode (the GuC runs), and every source the
# mock raises is delivered and counted exactly once, by source and by vector
# bit. A vector the mode does not enable is dropped by the hardware's enable
# (the mock counts it). A GT error is logged and cleared; a spurious MSI is
# answered IRQ_NONE. A source masked by the storm limit keeps its event
# pending and delivers it once re-armed (seed 000 L2213). The mock's own
# per-source count must equal the driver's.
# expect-mock: violations == 0
# timeout: 240
. /tests/lib.sh

dev=$(gpu_dev 0x56c0)
bdf=${dev##*/}
check is_bound "$bdf"
expect_eq "vector" "$(irq_get "$bdf" vector)" msi
expect_eq "armed" "$(irq_get "$bdf" armed)" 1
expect_eq "mode (the GuC runs)" "$(irq_get "$bdf" mode)" guc
irq=$(irq_get "$bdf" irq)
if grep -q "^ *$irq:.* xehpg\$" /proc/interrupts; then ok "irq $irq registered as xehpg"; else not_ok "irq $irq registered as xehpg" "$(cat /proc/interrupts)"; fi
expect_eq "GuC armed with GUC2HOST" "$(irq_armed "$bdf" guc)" 0x8000
expect_eq "rcs0 armed with user + flush" "$(irq_armed "$bdf" rcs0)" 0x0011
expect_eq "tile enable set" "$(irq_get "$bdf" "reg DG1_MSTR_TILE_INTR")" 0x80000000
# debugfs engines lists exactly the engines the mock's fuses enable, and
# the driver's present interrupt sources are those engines (rust/engine.rs;
# the GuC is a source, not an engine).
mock_engines_driven "$bdf"
eng=$(for e in $engines; do echo "$e"; done | sort | tr '\n' ' ')
src=$(sed -n 's/^source \([a-z0-9]*\): [0-9]* present 1 .*/\1/p' "$DBG/$bdf/irq" | grep -v '^guc$' | sort | tr '\n' ' ')
expect_eq "present engine sources are the mock's engines" "$src" "$eng"
expect_eq "rcs0 in engines" "$(sed -n 's/^rcs0: \(.* forcewake [A-Z0-9]*\) mode .*/\1/p' "$DBG/$bdf/engines")" \
	"class 0 instance 0 mmio_base 0x002000 forcewake RENDER"
expect_eq "vecs0 in engines" "$(sed -n 's/^vecs0: \(.* forcewake [A-Z0-9]*\) mode .*/\1/p' "$DBG/$bdf/engines")" \
	"class 2 instance 0 mmio_base 0x1c8000 forcewake VEBOX0"

# Each present source, one event of its user interrupt (GuC: GUC2HOST).
sources=$(sed -n 's/^source \([a-z0-9]*\): [0-9]* present 1 armed 0x[0-9a-f]*[1-9a-f][0-9a-f]* .*/\1/p' "$DBG/$bdf/irq")
n=$(echo $sources | wc -w)
diag "armed sources: $sources"
if [ "$n" -ge 4 ]; then ok "at least rcs0, bcs0, a ccs and the GuC armed ($n)"; else not_ok "sources armed" "$sources"; fi
# The GuC has already interrupted once per reply of the second boot phase
# (opt-in features, scheduling policies: Documentation/ct.rst).
guc0=$(irq_src "$bdf" guc)
check boot_guc_irqs_fit "$bdf" "$guc0"
for s in $sources; do
	case $s in guc) v=0x8000 b=$guc0 ;; *) v=0x0001 b=0 ;; esac
	mock_request "irq:$s:$v:1"
	if wait_until 20 irq_src_at_least "$bdf" "$s" $((b + 1)); then
		sleep 1
		expect_eq "$s delivered once" "$(irq_src "$bdf" "$s")" $((b + 1))
	else
		not_ok "$s delivered within 20 s" "$(cat "$DBG/$bdf/irq")"
	fi
	# bcs0 fires again below; its final count is checked there. The GuC's
	# counts to the end of the run: the unload below adds the replies to each
	# engine's disable and deregistration.
	case $s in
	bcs0) ;;
	guc) mock_expect "irq.identities.$s == $((b + 1 + 2 * $(engine_count "$bdf")))" ;;
	*) mock_expect "irq.identities.$s == $((b + 1))" ;;
	esac
done
expect_eq "GUC2HOST bit counted" "$(sed -n 's/^bit guc 15: //p' "$DBG/$bdf/irq")" $((guc0 + 1))
expect_eq "rcs0 user-interrupt bit counted" "$(sed -n 's/^bit rcs0 0: //p' "$DBG/$bdf/irq")" 1

# A fused-off engine exists for neither side: every engine source of the
# driver's table that the mock's fuses leave off ($MOCK_ENGINES is the
# device's list) is neither present nor armed, and it took nothing. The
# mock's default fuses leave some off, so the loop is never empty.
fused=
for e in $(sed -n 's/^source \([a-z]*[0-9][0-9]*\): .*/\1/p' "$DBG/$bdf/irq"); do
	case " $MOCK_ENGINES " in *" $e "*) continue ;; esac
	case $e in rcs* | bcs* | vcs* | vecs* | ccs*) fused="$fused $e" ;; esac
done
if [ -n "$fused" ]; then ok "the mock's fuses leave engines off:$fused"; else not_ok "the mock's fuses leave engines off" "$MOCK_ENGINES"; fi
for e in $fused; do
	expect_eq "$e fused off: not present, not armed, nothing taken" \
		"$(sed -n "s/^source $e: \([0-9]*\) \(present [01] armed 0x[0-9a-f]*\) .*/\1 \2/p" "$DBG/$bdf/irq")" \
		"0 present 0 armed 0x0000"
done

# Context switch (bit 8) is an execlist vector: disabled in GuC mode, the
# enable register drops it (seed 000 L2211) and nothing is delivered.
before=$(irq_get "$bdf" interrupts)
mock_request "irq:rcs0:0x0100:1"
sleep 3
expect_eq "disabled vector not delivered" "$(irq_get "$bdf" interrupts)" "$before"
expect_eq "rcs0 count unchanged" "$(irq_src "$bdf" rcs0)" 1
mock_expect "irq.dropped_disabled >= 1"

# A GT error: logged, counted, cleared.
mock_request "gt-error:correctable:0x10"
wait_until 20 dmesg_has "irq: GT correctable error, ERR_STAT_GT_REG0 0x00000010; cleared"
check dmesg_has "xehpg $bdf: irq: GT correctable error, ERR_STAT_GT_REG0 0x00000010; cleared"
expect_eq "errors" "$(irq_get "$bdf" errors)" "correctable 1 nonfatal 0 fatal 0"

# A spurious MSI: nothing pending, IRQ_NONE, counted.
mock_request spurious-msi
wait_until 20 irq_get_at_least "$bdf" spurious 1
expect_eq "spurious" "$(irq_get "$bdf" spurious)" 1

# Masked, then unmasked: a storm limit of 1 masks bcs0 at its second event;
# a third event waits in the collapsing register and arrives on rearm.
check irq_cmd "$bdf" "storm_limit 1"
mock_request "irq:bcs0:0x0001:2"
wait_until 20 irq_src_at_least "$bdf" bcs0 3
expect_eq "bcs0 masked after the limit" "$(irq_get "$bdf" stormed)" bcs0
expect_eq "bcs0 disarmed" "$(irq_armed "$bdf" bcs0)" 0x0000
check dmesg_has "irq: source bcs0 fired more than 1 times in a second: masked"
mock_request "irq:bcs0:0x0001:1"
sleep 3
expect_eq "masked event not delivered" "$(irq_src "$bdf" bcs0)" 3
check irq_cmd "$bdf" "storm_limit 100000"
check irq_cmd "$bdf" "rearm bcs0"
wait_until 20 irq_src_at_least "$bdf" bcs0 4
expect_eq "pending event delivered once on rearm" "$(irq_src "$bdf" bcs0)" 4
expect_eq "nothing stormed" "$(irq_get "$bdf" stormed)" none
mock_expect "irq.identities.bcs0 == 4"

# Bad commands are refused and change nothing.
check not irq_cmd "$bdf" "rearm nosuch"
check not irq_cmd "$bdf" "storm_limit 0"
check not irq_cmd "$bdf" "storm_limit x"
check not irq_cmd "$bdf" "bogus"
expect_eq "storm limit kept" "$(irq_get "$bdf" storm_limit)" 100000
expect_eq "no DataValid timeouts" "$(irq_get "$bdf" data_valid_timeouts)" 0
expect_eq "no unknown identities" "$(irq_get "$bdf" unknown_identities)" 0
# Unloaded here, so both lanes count the same GuC interrupts (the debug lane's
# epilogue would unload otherwise).
check rmmod xehpg
check_dmesg_clean
done_testing
