# Sourced by tools/bootstrap.sh and tools/distro-modules.sh (bash), which set
# SCRIPT (the name their messages start with), LOGDIR and T0 first.

# step TEXT: a progress line with the seconds since T0.
step() { printf '[%s %4ds] %s\n' "$SCRIPT" $(( $(date +%s) - T0 )) "$*"; }

# run LOG CMD...: run a long command with its output in LOGDIR/LOG; on failure
# show the step, the log's path and its tail, and exit.
run() {
	local log=$LOGDIR/$1; shift
	if ! "$@" >"$log" 2>&1; then
		echo "$SCRIPT: step failed: $*" >&2
		echo "$SCRIPT: log: $log (last 30 lines follow)" >&2
		tail -n 30 "$log" >&2
		exit 1
	fi
}

# mirror: the Debian mirror of the system's own bookworm apt entry (no
# registry host name is written into the repository): deb822 files ("URIs:"
# next to "Suites: bookworm ...") first, then one-line lists.
mirror() {
	local f u
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		u=$(awk 'BEGIN{RS=""} /Suites:[^\n]*bookworm( |\n|$)/ && !/security/ {
			if (match($0, /URIs:[ \t]*[^ \t\n]+/)) { s=substr($0,RSTART,RLENGTH); sub(/URIs:[ \t]*/,"",s); print s; exit } }' "$f")
		[ -n "$u" ] && { echo "$u"; return; }
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		u=$(awk '$1=="deb" { i=2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
			if ($(i+1)=="bookworm") { print $i; exit } }' "$f")
		[ -n "$u" ] && { echo "$u"; return; }
	done
}
