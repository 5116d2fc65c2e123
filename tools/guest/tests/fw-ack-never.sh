#!/bin/sh
# The GT forcewake ack never comes: probe fails naming the domain, releases
# everything and the module unloads.
# mock-args: --fault fw-ack-never
. /tests/lib.sh

probe_refused 0x56c0 "forcewake: domain GT wake: no ack within 50 ms (ack register 0x00000000)"
done_testing
