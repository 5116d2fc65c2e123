# Sourced by tools/bootstrap.sh and tools/distro-modules.sh (bash).
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
