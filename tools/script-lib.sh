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

# The kernel series the driver is built for: Debian's linux-source-SERIES
# (trixie-backports) for the test kernels, linux-image-SERIES.*-amd64 for the
# distro lane. XEHPG_KERNEL_SERIES overrides it.
KERNEL_SERIES=${XEHPG_KERNEL_SERIES:-7.3}

# apt_tool ARGS...: tools/apt's xehpg-apt (the Debian mirror from the apt
# sources, the newest of the versions apt reports), built first: cargo takes
# a few seconds the first time, a fraction of one when nothing changed.
apt_tool() {
	local top
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	run apt-tool.log cargo build --release -q -p xehpg-apt --manifest-path "$top/tools/Cargo.toml"
	"$top/tools/target/release/xehpg-apt" "$@"
}

# mirror: the Debian archive's mirror, $XEHPG_DEBIAN_MIRROR when set, else
# from the system's apt sources (no registry host name is written into the
# repository). When none fits, xehpg-apt says on stderr which files and
# entries it looked at and why each was not taken; mirror then fails.
mirror() {
	local m
	if ! m=$(apt_tool mirror); then
		echo "$SCRIPT: no Debian mirror to download from (the reason is above)" >&2
		return 1
	fi
	echo "$m"
}

# debian_keyring: the host's copy of Debian's archive keyring, for the
# private apt configurations (`signed-by=`).
debian_keyring() {
	local k
	for k in /usr/share/keyrings/debian-archive-keyring.gpg /usr/share/keyrings/debian-archive-keyring.pgp; do
		[ -f "$k" ] && { echo "$k"; return; }
	done
	echo "$SCRIPT: Debian's archive keyring is missing (looked for /usr/share/keyrings/debian-archive-keyring.gpg and .pgp): install the package debian-archive-keyring" >&2
	return 1
}
