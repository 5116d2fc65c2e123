# Guest half of the debug lane's `detectors` suite (tools/check/src/suites/detectors.rs):
# sh /tests/detectors.sh TRIGGER...
#
# For each trigger, in the order given: a begin marker on the kernel log, one
# load of the test-only module /lib/modules/xehpg_triggers.ko (tests/triggers/)
# with trigger=TRIGGER and its unload, a kmemleak scan for the leak trigger,
# an end marker.
# The host cuts the console at the markers and looks for the trigger's detector
# in its own segment. The markers go through /dev/kmsg, so they are ordered
# with the reports in the kernel's log buffer whatever the console's timing.
. /tests/lib.sh >/dev/null

for _t in "$@"; do
	echo "detector-trigger: begin $_t" >/dev/kmsg
	insmod /lib/modules/xehpg_triggers.ko "trigger=$_t"
	echo "detector-trigger: insmod $_t exited $?" >/dev/kmsg
	# Init returns after its one bug; the module holds nothing and goes at once.
	rmmod xehpg_triggers 2>/dev/null
	if [ "$_t" = leak ]; then
		kmemleak_scan_report
	fi
	echo "detector-trigger: end $_t" >/dev/kmsg
done
