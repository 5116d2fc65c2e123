#!/usr/bin/env bash
# Bring a Debian machine (12 bookworm or 13 trixie; Ubuntu with a Debian
# mirror named in XEHPG_DEBIAN_MIRROR) to the state `make run` and `make check`
# need, reusing ${XEHPG_CACHE:-$HOME/.cache/xehpg}. Idempotent: every step is
# skipped when its stamp matches the inputs (versions, config fragment).
#
# The kernel source and the GuC firmware are the newest uploads the private
# trixie(-backports) lists offer when they are first downloaded; a warm cache
# keeps them and needs no network. XEHPG_REFRESH=1 checks for newer uploads
# and takes them (a new kernel source rebuilds both kernels).
#
# Facts behind each step: ../shared/ENVIRONMENT.md (toolchain versions, the
# private trixie apt root, the QEMU recipe, the GuC firmware package).
#
# Prints `KDIR=...`, `QEMU=...` lines into $CACHE/env.mk for the Makefile.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${XEHPG_CACHE:-$HOME/.cache/xehpg}
mkdir -p "$CACHE/logs"
T0=$(date +%s)

BINDGEN_VERSION=0.73.2                  # pinned: rust/abi/bindings.rs is its output
LLVM_SUFFIX=-19

SCRIPT=bootstrap LOGDIR=$CACHE/logs
# step, run, mirror (the Debian mirror of the system's apt sources),
# KERNEL_SERIES (7.3 unless XEHPG_KERNEL_SERIES), apt_tool (xehpg-apt).
. "$ROOT/tools/script-lib.sh"

# --- Host packages (the host's own suite) ----------------------------------
PKGS="clang-19 lld-19 llvm-19 libclang-19-dev flex bison bc libelf-dev libssl-dev
      cpio kmod busybox-static mmdebstrap dwarves python3 make gcc xz-utils zstd
      python3-sphinx graphviz"
if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
	echo "bootstrap: not a Debian system. Install the equivalents of:" >&2
	echo "  $PKGS" >&2
	echo "  plus rustup (rust-src), bindgen-cli >= 0.71.1, QEMU >= 10.1 with vfio-user-pci," >&2
	echo "  a Linux 7.3 source tree, and set KDIR/QEMU by hand (see README.md)." >&2
	exit 1
fi
missing=$(for p in $PKGS; do dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'ok installed' || echo "$p"; done)
if [ -n "$missing" ]; then
	step "apt-get install:" $missing
	[ "$(id -u)" = 0 ] || { echo "bootstrap: need root to install: $missing" >&2; exit 1; }
	run apt.log sh -c "apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y $(echo $missing)"
fi

# --- Rust ----------------------------------------------------------------
command -v rustup >/dev/null || { echo "bootstrap: rustup not found (install rustup first)" >&2; exit 1; }
SYSROOT=$(rustc --print sysroot)
if [ ! -d "$SYSROOT/lib/rustlib/src/rust/library" ]; then
	step "rustup component add rust-src"
	run rustup.log rustup component add rust-src
fi
BINDGEN=$HOME/.cargo/bin/bindgen
if ! "$BINDGEN" --version 2>/dev/null | grep -q " $BINDGEN_VERSION\$"; then
	step "cargo install bindgen-cli $BINDGEN_VERSION (about 3 min)"
	run bindgen.log cargo install bindgen-cli --version "$BINDGEN_VERSION" --locked
fi

# Private apt root for trixie(-backports) downloads: never touches the
# system's sources, lists or cache.
APTDIR=$CACHE/apt
apt_private() {
	local tool=$1; shift
	"$tool" -q -o APT::Sandbox::User=root -o Dir::Etc::SourceList="$APTDIR/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$APTDIR/lists" -o Dir::Cache="$APTDIR/cache" \
		-o Dir::State::status=/dev/null -o APT::Default-Release=trixie-backports "$@"
}
apt_private_ready=
apt_private_update() {
	[ -n "$apt_private_ready" ] && return
	local m k
	m=$(mirror) || exit 1
	k=$(debian_keyring) || exit 1
	mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial"
	cat >"$APTDIR/sources.list" <<SRC
deb [signed-by=$k] $m trixie main non-free-firmware
deb [signed-by=$k] $m trixie-backports main non-free-firmware
SRC
	step "apt-get update (private trixie lists from $m)"
	run apt-private.log apt_private apt-get update
	apt_private_ready=1
	echo "$m" >"$CACHE/mirror"
}
# download PKG DIR: fetch the newest PKG deb the private root offers (by
# Debian's version order, whatever the pins say) and unpack it into DIR, unless
# DIR already holds that version.
download() {
	local pkg=$1 dir=$2 ver deb
	apt_private_update
	if ! ver=$(apt_private apt-cache madison "$pkg" | apt_tool newest --package "$pkg"); then
		echo "bootstrap: $pkg is not offered by trixie or trixie-backports at $(cat "$CACHE/mirror") (apt-cache madison $pkg with the private lists in $APTDIR)" >&2
		exit 1
	fi
	if [ "$(cat "$dir/.version" 2>/dev/null)" = "$ver" ]; then
		step "$pkg $ver: the newest, already here"
		return
	fi
	step "download $pkg $ver"
	mkdir -p "$CACHE/debs"
	(cd "$CACHE/debs" && run "dl-$pkg.log" apt_private apt-get download "$pkg=$ver")
	deb=$(ls "$CACHE/debs/${pkg}_${ver/:/%3a}_"*.deb | head -n 1)
	rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
	dpkg-deb -x "$deb" "$dir.tmp"
	rm -rf "$dir" && mv "$dir.tmp" "$dir"
	echo "$ver" >"$dir/.version"
}

# --- GuC firmware ---------------------------------------------------------
# trixie's package installs under /usr/lib/firmware (merged /usr); older ones
# used /lib/firmware. GUC_FW_DIR is whichever holds i915/.
FW=$CACHE/firmware
fwdir() { for d in "$FW/usr/lib/firmware" "$FW/lib/firmware"; do [ -d "$d/i915" ] && { echo "$d"; return; }; done; }
if [ -z "$(fwdir)" ] || [ "${XEHPG_REFRESH:-}" = 1 ]; then
	download firmware-intel-graphics "$FW"
fi
FWDIR=$(fwdir)
[ -n "$FWDIR" ] || { echo "bootstrap: firmware-intel-graphics has no i915/ directory" >&2; exit 1; }
if [ -f "$FWDIR/i915/dg2_guc_70.bin.zst" ] && [ ! -f "$FWDIR/i915/dg2_guc_70.bin" ]; then
	zstd -q -d "$FWDIR/i915/dg2_guc_70.bin.zst" -o "$FWDIR/i915/dg2_guc_70.bin"
fi
[ -f "$FWDIR/i915/dg2_guc_70.bin" ] || { echo "bootstrap: i915/dg2_guc_70.bin missing from firmware-intel-graphics" >&2; exit 1; }

# --- QEMU >= 10.1 with vfio-user-pci --------------------------------------
qemu_ok() { "$@" -device help 2>/dev/null | grep -q vfio-user-pci; }
QROOT=$CACHE/qemu-root
if command -v qemu-system-x86_64 >/dev/null && qemu_ok qemu-system-x86_64; then
	QEMU_CMD=$(command -v qemu-system-x86_64)
else
	QEMU_CMD="$QROOT/usr/lib64/ld-linux-x86-64.so.2 --library-path $QROOT/usr/lib/x86_64-linux-gnu $QROOT/usr/bin/qemu-system-x86_64 -L $QROOT/usr/share/seabios -L $QROOT/usr/share/qemu"
	if ! qemu_ok $QEMU_CMD; then
		m=$(mirror) || exit 1
		step "mmdebstrap a private QEMU root from trixie-backports (about 1 min)"
		rm -rf "$QROOT"
		run qemu-root.log mmdebstrap --variant=apt --aptopt='APT::Default-Release "trixie-backports"' \
			--include=qemu-system-x86 trixie "$QROOT" "deb $m trixie main" "deb $m trixie-backports main"
		qemu_ok $QEMU_CMD || { echo "bootstrap: private QEMU lacks vfio-user-pci" >&2; exit 1; }
	fi
fi

# config_dropped BASE OVER CONFIG: the lines of the fragments (OVER
# overriding BASE per option) that CONFIG does not hold.
config_dropped() {
	local frag line opt
	declare -A want=()
	for frag in "$1" "$2"; do
		while IFS= read -r line; do
			if [[ $line =~ ^(CONFIG_[A-Z0-9_]+)= ]] || [[ $line =~ ^#\ (CONFIG_[A-Z0-9_]+)\ is\ not\ set$ ]]; then
				want[${BASH_REMATCH[1]}]=$line
			fi
		done <"$frag"
	done
	# An option that is not set may also be absent (its menu hidden).
	for opt in "${!want[@]}"; do
		case ${want[$opt]} in
		"#"*) ! grep -q "^$opt=" "$3" || echo "${want[$opt]}" ;;
		*) grep -qxF -- "${want[$opt]}" "$3" || echo "${want[$opt]}" ;;
		esac
	done
}

# --- Kernel tree ----------------------------------------------------------
# linux-src holds one upload of linux-source-KERNEL_SERIES (.version); another
# series (XEHPG_KERNEL_SERIES) replaces it.
SRC=$CACHE/linux-src
if [ ! -f "$SRC/.version" ] || ! ls "$SRC/usr/src/linux-source-$KERNEL_SERIES.tar."* >/dev/null 2>&1 ||
	[ "${XEHPG_REFRESH:-}" = 1 ]; then
	download "linux-source-$KERNEL_SERIES" "$SRC"
fi
SRCVER=$(cat "$SRC/.version")
# unpack DIR: the kernel tree DIR from $SRC, unless it holds that upload
# already (.xehpg-source; a tree from before that file counts as current). The
# kernel stamps carry the upload too, so a new one is built from scratch.
unpack() {
	local dir=$1
	if [ -f "$dir/Makefile" ] && [ "$(cat "$dir/.xehpg-source" 2>/dev/null || echo "$SRCVER")" = "$SRCVER" ]; then
		return
	fi
	step "unpack the kernel source $SRCVER into $dir"
	rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
	tar -xf "$SRC/usr/src/linux-source-$KERNEL_SERIES".tar.* -C "$dir.tmp" --strip-components=1
	echo "$SRCVER" >"$dir.tmp/.xehpg-source"
	rm -rf "$dir" && mv "$dir.tmp" "$dir"
}
KDIR=$CACHE/linux-$KERNEL_SERIES
unpack "$KDIR"
FRAG=$ROOT/tools/kernel.config
# Upstream xe for the xe-probe suite: the plain kernel's only (its stamp, not
# the debug kernel's, carries the fragment).
XFRAG=$ROOT/tools/kernel-xe.config
stamp="$SRCVER $(sha256sum "$FRAG" | cut -c1-16) $(rustc --version | cut -d' ' -f2) bindgen-$BINDGEN_VERSION llvm$LLVM_SUFFIX"
pstamp="$stamp xe-$(grep -E '^(# )?CONFIG_' "$XFRAG" | sha256sum | cut -c1-16)"
KMAKE=(make -C "$KDIR" LLVM=$LLVM_SUFFIX BINDGEN="$BINDGEN" -j"$(nproc)")
if [ "$(cat "$KDIR/.xehpg-stamp" 2>/dev/null)" != "$pstamp" ]; then
	step "configure the kernel (tinyconfig + tools/kernel.config + tools/kernel-xe.config)"
	rm -f "$KDIR/.xehpg-stamp"
	run kconfig.log "${KMAKE[@]}" tinyconfig
	run kconfig.log sh -c "cd '$KDIR' && scripts/kconfig/merge_config.sh -m .config '$FRAG' '$XFRAG' && make LLVM=$LLVM_SUFFIX BINDGEN='$BINDGEN' olddefconfig"
	# Every option of the fragments must have survived olddefconfig.
	bad=$(config_dropped "$FRAG" "$XFRAG" "$KDIR/.config")
	[ -z "$bad" ] || { echo "bootstrap: kernel config dropped: $bad" >&2; exit 1; }
	step "build the kernel: bzImage modules_prepare modules (about 6 min on 2 cores; log: $CACHE/logs/kernel.log)"
	run kernel.log "${KMAKE[@]}" bzImage modules_prepare modules
	echo "$pstamp" >"$KDIR/.xehpg-stamp"
fi

# --- Debug kernel (opt-in: XEHPG_DEBUG_KERNEL=1) ---------------------------
# A second tree from the same source with the kernel's bug detectors
# (tools/kernel-debug.config over tools/kernel.config), for `make check-debug`.
# Without the variable nothing is built; a tree an earlier opt-in run built
# stays in env.mk (its stamp still matches), so a plain run does not forget it.
KDIR_DEBUG=$CACHE/linux-$KERNEL_SERIES-debug
DFRAG=$ROOT/tools/kernel-debug.config
# Only the option lines count: a comment edit must not force an 11-minute rebuild.
dstamp="$stamp debug-$(grep -E '^(# )?CONFIG_' "$DFRAG" | sha256sum | cut -c1-16)"
if [ "${XEHPG_DEBUG_KERNEL:-}" = 1 ]; then
	unpack "$KDIR_DEBUG"
	DMAKE=(make -C "$KDIR_DEBUG" LLVM=$LLVM_SUFFIX BINDGEN="$BINDGEN" -j"$(nproc)")
	if [ "$(cat "$KDIR_DEBUG/.xehpg-stamp" 2>/dev/null)" != "$dstamp" ]; then
		step "configure the debug kernel (tinyconfig + tools/kernel.config + tools/kernel-debug.config)"
		rm -f "$KDIR_DEBUG/.xehpg-stamp"
		run kconfig-debug.log "${DMAKE[@]}" tinyconfig
		run kconfig-debug.log sh -c "cd '$KDIR_DEBUG' && scripts/kconfig/merge_config.sh -m .config '$FRAG' '$DFRAG' && make LLVM=$LLVM_SUFFIX BINDGEN='$BINDGEN' olddefconfig"
		# Every line of both fragments must have survived, the debug one
		# winning where both name an option (SLUB_TINY).
		bad=$(config_dropped "$FRAG" "$DFRAG" "$KDIR_DEBUG/.config")
		[ -z "$bad" ] || { echo "bootstrap: debug kernel config dropped: $bad" >&2; exit 1; }
		step "build the debug kernel (about 6 min on 2 cores; log: $CACHE/logs/kernel-debug.log)"
		run kernel-debug.log "${DMAKE[@]}" bzImage modules_prepare modules
		echo "$dstamp" >"$KDIR_DEBUG/.xehpg-stamp"
	fi
fi
have_debug=
[ "$(cat "$KDIR_DEBUG/.xehpg-stamp" 2>/dev/null)" = "$dstamp" ] && have_debug=1

{
	echo "KDIR := $KDIR"
	echo "QEMU := $QEMU_CMD"
	echo "BINDGEN := $BINDGEN"
	echo "LLVM := $LLVM_SUFFIX"
	echo "GUC_FW_DIR := $FWDIR"
	[ -z "$have_debug" ] || echo "KDIR_DEBUG := $KDIR_DEBUG"
} >"$CACHE/env.mk"
{
	echo "kernel: linux-source-$KERNEL_SERIES $SRCVER"
	echo "qemu: $($QEMU_CMD --version | head -n 1)"
	echo "firmware-intel-graphics: $(cat "$FW/.version" 2>/dev/null || echo unknown)"
	echo "rustc: $(rustc --version)"
	echo "bindgen: $("$BINDGEN" --version)"
	echo "clang: $(clang$LLVM_SUFFIX --version | head -n 1)"
} >"$CACHE/versions.txt"
step "ready (versions in $CACHE/versions.txt)"
sed 's/^/  /' "$CACHE/versions.txt"
