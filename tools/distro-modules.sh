#!/usr/bin/env bash
# Build xehpg.ko for Debian's packaged kernel KVER
# (trixie-backports, e.g. 7.3.4+deb13-amd64) with Debian's own toolchain
# (trixie's rustc 1.85.1, rust-src, bindgen 0.71.1, libclang 19, gcc-14),
# all inside a private mmdebstrap root: nothing is installed on the host.
#
#   tools/distro-modules.sh [KVER]     (make distro-modules [KVER=...])
#
# KVER, when not given, is the release the cache was last built for
# ($CACHE/distro/kver) if its packages are still here: a warm cache needs no
# network and does not move to a newer upload by itself. Otherwise, or with
# XEHPG_REFRESH=1, it is the newest linux-image-SERIES.*-amd64 the private
# trixie(-backports) lists offer (SERIES 7.3, or XEHPG_KERNEL_SERIES). The
# release used, given or found, is recorded there as the next default.
#
# Layout under ${XEHPG_CACHE:-$HOME/.cache/xehpg}/distro/ (facts and timings:
# the issue 14 findings):
#   kver       the kernel release last built for (see above)
#   apt/       private apt lists and cache (never the system's)
#   debs/      linux-image/-binary/-modules/-base/-headers(-common)/-kbuild, linux-source
#   root/      the trixie root; /usr/src/linux-source-SERIES is the rebuilt tree
#              (Debian's .config, `modules_prepare`, Debian's Module.symvers),
#              /usr/src/linux-headers-KVER* as packaged, /build/xehpg the module build
#   image/     linux-binary + linux-modules unpacked: image/usr/lib/modules/KVER/vmlinuz
#   logs/
# Output: <repo>/build/distro/xehpg.ko, build/distro/sriov-shim/xehpg_sriov_shim.ko
# and build/distro/vmlinuz (a copy of Debian's), booted by `make check` (suite vm-distro).
#
# The crate hashes in Rust symbol names depend only on the crate name and the
# rustc build, so the rebuilt rust/*.o must define every Rust symbol Debian's
# Module.symvers exports under the same name; step "abi" checks exactly that.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${XEHPG_CACHE:-$HOME/.cache/xehpg}
D=$CACHE/distro
ROOTFS=$D/root
mkdir -p "$D/logs" "$D/debs"
T0=$(date +%s)

# What Debian's build used (the headers' .config and .kernelvariables):
# gcc-14 through the x86_64-linux-gnu- prefix. `openssl` is needed by Kconfig
# itself (OPENSSL_SUPPORTS_ML_DSA runs `openssl list`): without it olddefconfig
# drops four lines of Debian's config.
ROOT_PKGS=rustc,rust-src,bindgen,libclang-dev,gcc-14,gcc,make,flex,bison,bc,libelf-dev,libssl-dev,openssl,python3,cpio,kmod,xz-utils,zstd,dwarves
KMAKE="make ARCH=x86 CROSS_COMPILE=x86_64-linux-gnu- CC=x86_64-linux-gnu-gcc-14 HOSTCC=gcc-14"

SCRIPT=distro-modules LOGDIR=$D/logs
# step, run, mirror (the Debian mirror of the system's apt sources),
# KERNEL_SERIES (7.3 unless XEHPG_KERNEL_SERIES), apt_tool (xehpg-apt).
. "$REPO/tools/script-lib.sh"
# in_root CMD: sh -c CMD inside the root, /proc mounted in a private mount
# namespace (gone when the command ends), a clean environment.
in_root() {
	unshare -m sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" /usr/bin/env -i \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 sh -c "$1"' "$ROOTFS" "$1"
}

# --- 1. The private root ---------------------------------------------------
# trixie main only decides the toolchain: trixie-backports has newer rustc
# (1.93..1.96) at the same priority once it is the default release, and
# Debian's kernel was built with trixie's 1.85.1.
rstamp="trixie $ROOT_PKGS"
if [ "$(cat "$ROOTFS/.xehpg-stamp" 2>/dev/null)" != "$rstamp" ]; then
	M=$(mirror) || exit 1
	step "mmdebstrap the trixie build root (about 90 s, 1.6 GB)"
	rm -rf "$ROOTFS.tmp" "$ROOTFS"
	run mmdebstrap.log mmdebstrap --variant=apt --include="$ROOT_PKGS" trixie "$ROOTFS.tmp" \
		"deb $M trixie main" "deb $M trixie-backports main"
	mv "$ROOTFS.tmp" "$ROOTFS"
	echo "$rstamp" >"$ROOTFS/.xehpg-stamp"
fi
in_root 'rustc --version' | grep -q '^rustc 1\.85\.' || { echo "distro-modules: the root's rustc is not 1.85" >&2; exit 1; }

# --- 2. The kernel packages (private apt config) ---------------------------
A=$D/apt
ap() {
	local tool=$1; shift
	"$tool" -q -o APT::Sandbox::User=root -o Dir::Etc::SourceList="$A/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$A/lists" -o Dir::Cache="$A/cache" \
		-o Dir::State::status=/dev/null -o APT::Default-Release=trixie-backports "$@"
}
# private_lists: the private trixie(-backports) lists, brought up to date
# once per run, from the mirror of the system's apt sources.
private_lists() {
	[ -z "${LISTS_READY:-}" ] || return 0
	local k
	M=$(mirror) || exit 1
	k=$(debian_keyring) || exit 1
	mkdir -p "$A/lists/partial" "$A/cache/archives/partial"
	cat >"$A/sources.list" <<SRC
deb [signed-by=$k] $M trixie main
deb [signed-by=$k] $M trixie-backports main
SRC
	step "apt-get update (private trixie lists from $M)"
	run apt-update.log ap apt-get update
	LISTS_READY=1
}
# newest PKG: the newest version of PKG the private lists offer.
newest() {
	ap apt-cache madison "$1" | apt_tool newest --package "$1"
}

# --- The kernel release -----------------------------------------------------
KVER=${1:-${KVER:-}}
if [ -z "$KVER" ]; then
	# What the cache was built for: kver, or (caches from before it) .unpacked.
	KVER=$(cat "$D/kver" 2>/dev/null || cut -d' ' -f1 "$D/.unpacked" 2>/dev/null || true)
	case $KVER in "$KERNEL_SERIES".*) ;; *) KVER= ;; esac
	if [ -z "$KVER" ] || [ ! -f "$D/debs/.$KVER" ] || [ "${XEHPG_REFRESH:-}" = 1 ]; then
		private_lists
		if ! KVER=$(ap apt-cache pkgnames "linux-image-$KERNEL_SERIES." | apt_tool kver --series "$KERNEL_SERIES" --flavour amd64); then
			echo "distro-modules: trixie(-backports) at $M offers no linux-image-$KERNEL_SERIES.*-amd64 (apt-cache pkgnames with the private lists in $A); give KVER=... or XEHPG_KERNEL_SERIES" >&2
			exit 1
		fi
		step "the newest Debian kernel of the $KERNEL_SERIES series: $KVER"
	fi
fi
FLAVOUR=${KVER##*-}                     # amd64
ABI=${KVER%-"$FLAVOUR"}                 # 7.3.4+deb13
SERIES=$(echo "$ABI" | cut -d. -f1-2)   # 7.3
SRC=/usr/src/linux-source-$SERIES       # inside the root
HDR=/usr/src/linux-headers-$KVER        # inside the root

PKGS="linux-image-$KVER linux-binary-$KVER linux-modules-$KVER linux-base-$KVER
      linux-headers-$KVER linux-headers-$ABI-common linux-kbuild-$ABI linux-source-$SERIES"
if [ ! -f "$D/debs/.$KVER" ]; then
	private_lists
	if ! ver=$(newest "linux-image-$KVER"); then
		echo "distro-modules: linux-image-$KVER is not offered by trixie(-backports) at $M (apt-cache madison with the private lists in $A)" >&2
		exit 1
	fi
	# The source must be the very upload the image was built from.
	if ! ap apt-cache madison "linux-source-$SERIES" | awk -F'|' -v v="$ver" '{ gsub(/ /, "", $2) } $2 == v { f = 1 } END { exit !f }'; then
		echo "distro-modules: linux-image-$KVER is $ver, but linux-source-$SERIES $ver is not offered (apt-cache madison linux-source-$SERIES: $(newest "linux-source-$SERIES" 2>/dev/null || echo none))" >&2
		exit 1
	fi
	step "download $KVER $ver (about 300 MB)"
	pins=$(for p in $PKGS; do printf '%s=%s ' "$p" "$ver"; done)
	(cd "$D/debs" && run download.log ap apt-get download $pins)
	echo "$ver" >"$D/debs/.$KVER"
fi
# The next default: a release whose packages are here.
echo "$KVER" >"$D/kver"
VER=$(cat "$D/debs/.$KVER")
deb_of() { local f; f=$(ls "$D/debs/$1_${VER/:/%3a}_"*.deb | head -n 1); [ -f "$f" ] || { echo "distro-modules: $1 deb missing" >&2; exit 1; }; echo "$f"; }

# --- 3. Unpack --------------------------------------------------------------
ustamp="$KVER $VER"
if [ "$(cat "$D/.unpacked" 2>/dev/null)" != "$ustamp" ]; then
	step "unpack headers, kbuild, image, modules and the source"
	for p in "linux-headers-$KVER" "linux-headers-$ABI-common" "linux-kbuild-$ABI" "linux-source-$SERIES"; do
		dpkg-deb -x "$(deb_of "$p")" "$ROOTFS"
	done
	rm -rf "$D/image" && mkdir -p "$D/image"
	for p in "linux-binary-$KVER" "linux-modules-$KVER" "linux-base-$KVER"; do
		dpkg-deb -x "$(deb_of "$p")" "$D/image"
	done
	rm -rf "$ROOTFS$SRC" "$ROOTFS$SRC.tmp" && mkdir -p "$ROOTFS$SRC.tmp"
	tar -xf "$ROOTFS$SRC.tar.xz" -C "$ROOTFS$SRC.tmp" --strip-components=1
	mv "$ROOTFS$SRC.tmp" "$ROOTFS$SRC"
	rm -f "$ROOTFS$SRC.tar.xz"
	echo "$ustamp" >"$D/.unpacked"
fi

# --- 4. Configure and prepare (Debian's config, unchanged) ------------------
KV=$(in_root "cd $SRC && make -s kernelversion")
LOCALVERSION=${KVER#"$KV"}               # +deb13-amd64
KM="$KMAKE LOCALVERSION=$LOCALVERSION"
pstamp="$ustamp prepared"
if [ "$(cat "$ROOTFS$SRC/.xehpg-stamp" 2>/dev/null)" != "$pstamp" ]; then
	step "configure with Debian's .config"
	cp "$ROOTFS$HDR/.config" "$ROOTFS$SRC/.config"
	run olddefconfig.log in_root "cd $SRC && $KM olddefconfig"
	if ! diff -u "$ROOTFS$HDR/.config" "$ROOTFS$SRC/.config" >"$D/logs/config.diff"; then
		echo "distro-modules: olddefconfig changed Debian's config (see $D/logs/config.diff)" >&2
		exit 1
	fi
	rel=$(in_root "cd $SRC && $KM -s kernelrelease")
	[ "$rel" = "$KVER" ] || { echo "distro-modules: kernelrelease $rel != $KVER" >&2; exit 1; }
	step "make modules_prepare (Rust crates with Debian's config; about 2 min on 2 cores)"
	run modules_prepare.log in_root "cd $SRC && $KM rustavailable && $KM -j$(nproc) modules_prepare"
	cp "$ROOTFS$HDR/Module.symvers" "$ROOTFS$SRC/Module.symvers"
	# The module BTF is generated against the vmlinux the headers ship (BTF only).
	cp "$ROOTFS$HDR/vmlinux" "$ROOTFS$SRC/vmlinux"
	echo "$pstamp" >"$ROOTFS$SRC/.xehpg-stamp"
fi

# --- 5. ABI: every Rust export of Debian's kernel is defined, same name -----
awk '$2 ~ /^_R/ {print $2}' "$ROOTFS$HDR/Module.symvers" | sort -u >"$D/logs/abi-debian.txt"
nm --defined-only "$ROOTFS$SRC"/rust/*.o | awk '$3 ~ /^_R/ {print $3}' | sort -u >"$D/logs/abi-built.txt"
missing=$(comm -23 "$D/logs/abi-debian.txt" "$D/logs/abi-built.txt" | wc -l)
total=$(wc -l <"$D/logs/abi-debian.txt")
if [ "$missing" != 0 ]; then
	echo "distro-modules: $missing of $total Rust exports of Debian's kernel are not defined by the rebuilt rust/*.o" >&2
	echo "distro-modules: (crate hashes differ: another rustc build?) first ones:" >&2
	comm -23 "$D/logs/abi-debian.txt" "$D/logs/abi-built.txt" | head -n 5 >&2
	exit 1
fi
step "ABI: all $total Rust exports of Debian's Module.symvers are defined by the rebuilt crates"

# --- 6. The module ----------------------------------------------------------
step "build xehpg.ko with $(in_root 'rustc --version')"
rm -rf "$ROOTFS/build/xehpg" && mkdir -p "$ROOTFS/build/xehpg"
# The working tree as it is (tracked and untracked, not ignored files).
(cd "$REPO" && git ls-files -z --cached --others --exclude-standard | tar --null -T - --ignore-failed-read -cf - 2>/dev/null) |
	tar -xf - -C "$ROOTFS/build/xehpg"
# The test build first (XEHPG_TEST=y, Kbuild), build/distro/test/xehpg.ko:
# the distro scenarios drive its selftest. Then the production module, what a
# user installs, build/distro/xehpg.ko (Kbuild rebuilds: the flags changed).
run xehpg-test.log in_root "cd $SRC && $KM -j$(nproc) M=/build/xehpg XEHPG_TEST=y modules"
mkdir -p "$REPO/build/distro/test"
cp "$ROOTFS/build/xehpg/xehpg.ko" "$REPO/build/distro/test/xehpg.ko"
run xehpg.log in_root "cd $SRC && $KM -j$(nproc) M=/build/xehpg modules"
cp "$ROOTFS/build/xehpg/xehpg.ko" "$REPO/build/distro/xehpg.ko"
cp "$D/image/usr/lib/modules/$KVER/vmlinuz" "$REPO/build/distro/vmlinuz"
want=$(modinfo -F vermagic "$(find "$D/image/usr/lib/modules/$KVER/kernel/drivers/pci" -name '*.ko*' | head -n 1)")
got=$(modinfo -F vermagic "$REPO/build/distro/xehpg.ko")
[ "$want" = "$got" ] || { echo "distro-modules: vermagic '$got' != Debian's '$want'" >&2; exit 1; }
step "build/distro/xehpg.ko and test/xehpg.ko (vermagic $got), build/distro/vmlinuz (Debian's $KVER $VER)"

# The test-only SR-IOV guest shim (C) for `# guest-module: sriov-shim` scenarios.
run sriov-shim.log in_root "cd $SRC && $KM -j$(nproc) M=/build/xehpg/tools/guest/sriov-shim modules"
mkdir -p "$REPO/build/distro/sriov-shim"
cp "$ROOTFS/build/xehpg/tools/guest/sriov-shim/xehpg_sriov_shim.ko" "$REPO/build/distro/sriov-shim/"
step "build/distro/sriov-shim/xehpg_sriov_shim.ko"
