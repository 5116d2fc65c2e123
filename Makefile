# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree build of xehpg.ko plus the project's two contracts:
#   make run    bootstrap, build, boot the VM with the mock device, show the driver
#   make check  every test; ends with "N passed, N failed"
#
# `make` / `make modules` builds against KDIR (default: the running kernel's
# build tree), the standard Kbuild way; `make -C $KDIR M=$PWD` works as well.
# run/check always use the bootstrapped 7.3 tree: a module loads only into the
# kernel, and was built only with the rustc, it was built against.

XEHPG_CACHE ?= $(HOME)/.cache/xehpg
ENV_MK := $(XEHPG_CACHE)/env.mk
REPO := $(CURDIR)

KDIR ?= /lib/modules/$(shell uname -r)/build
LLVM ?= 1
BINDGEN ?= bindgen

BUILD := $(REPO)/build
TOOLS_BIN := $(REPO)/tools/target/release
VM := $(REPO)/tools/vm/run

# Variables for the bootstrapped tree, read from the bootstrap's env.mk only by
# the targets that use it (a plain `make` must not depend on the cache). Not
# `include`d: env.mk sets KDIR, LLVM and BINDGEN, which would replace this
# file's defaults for a plain `make`. The rule (a setting is `KEY := VALUE`,
# the value the rest of the line) is the one tools/common/src/envmk.rs reads.
boot_var = $(shell sed -n 's/^$(1) := //p' $(ENV_MK) 2>/dev/null)
BOOT_MAKE = $(MAKE) -C $(call boot_var,KDIR) LLVM=$(call boot_var,LLVM) M=$(REPO)

.PHONY: all modules clean bootstrap boot-modules kunit-module clippy tools run check \
        bindings print-bindgen-cmd help docs

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(REPO) LLVM=$(LLVM) modules

clean:
	-$(MAKE) -C $(KDIR) M=$(REPO) LLVM=$(LLVM) clean 2>/dev/null
	rm -rf $(BUILD)

help:
	@echo "make [KDIR=...] [LLVM=...]  build xehpg.ko against a kernel tree"
	@echo "make run                    bootstrap, boot the mock VM, load the driver, report"
	@echo "make check                  all tests (tools, style, docs, ABI, registers, KUnit, VM)"
	@echo "make bindings               regenerate rust/abi/bindings.rs from include/"
	@echo "make docs                   Documentation/ as HTML in build/docs (Sphinx, graphviz)"
	@echo "make bootstrap              only bring the machine and the cache up to date"
	@echo "make check-debug            only the debug-kernel lane (CHECK_ARGS=\"--only vm-debug:bind\")"

bootstrap:
	@tools/bootstrap.sh

# Builds against the bootstrapped tree go to separate output trees (MO=), one
# per variant. Kbuild refuses MO= while in-tree objects exist, so an earlier
# plain `make` is cleaned away first.
in_tree_clean = $(if $(wildcard $(REPO)/xehpg.o $(REPO)/rust/xehpg.o),\
	@echo "note: removing in-tree build artifacts (plain make) so MO= builds work" && \
	$(BOOT_MAKE) clean >/dev/null)

# Both builds of the module against the bootstrapped tree: the test build
# (XEHPG_TEST=y: selftest, CT load runs, debugfs provisioning, cost reference,
# guessed doorbell ABI), build/module/xehpg.ko, which `make run` and the VM
# scenarios load; and the production build without them,
# build/module-prod/xehpg.ko (suite prod-module and the scenarios with
# `# module: production`). Documentation/debugfs.rst lists what differs.
boot-modules: bootstrap
	$(in_tree_clean)
	@mkdir -p $(BUILD)/module $(BUILD)/module-prod
	@$(BOOT_MAKE) MO=$(BUILD)/module XEHPG_TEST=y modules
	@$(BOOT_MAKE) MO=$(BUILD)/module-prod modules

# The test build with the KUnit suites compiled in (the test-only code's
# suites among them), in its own output tree.
kunit-module: bootstrap
	$(in_tree_clean)
	@mkdir -p $(BUILD)/kunit
	@$(BOOT_MAKE) MO=$(BUILD)/kunit XEHPG_KUNIT=y XEHPG_TEST=y modules

# Clippy on the three builds: what is cfg'd out of one must leave no dead
# code or unused import in it, and the KUnit suites are code too.
clippy: bootstrap
	$(in_tree_clean)
	@mkdir -p $(BUILD)/clippy $(BUILD)/clippy-test $(BUILD)/clippy-kunit
	@$(BOOT_MAKE) MO=$(BUILD)/clippy CLIPPY=1 modules
	@$(BOOT_MAKE) MO=$(BUILD)/clippy-test CLIPPY=1 XEHPG_TEST=y modules
	@$(BOOT_MAKE) MO=$(BUILD)/clippy-kunit CLIPPY=1 XEHPG_KUNIT=y XEHPG_TEST=y modules

# Documentation/ as HTML, diagrams as SVG, in build/docs/index.html: Debian's
# Sphinx (python3-sphinx, on Debian's python3) and graphviz, which
# tools/bootstrap.sh installs; no bootstrap needed. From scratch (-E), so
# every page's warnings show each time, and any warning fails. The check
# suite `docs` runs the same build into build/check-logs/docs/html.
SPHINXBUILD ?= /usr/bin/sphinx-build
docs:
	@command -v $(SPHINXBUILD) >/dev/null || { echo "make docs: no $(SPHINXBUILD): install python3-sphinx and graphviz (tools/bootstrap.sh does)" >&2; exit 1; }
	@$(SPHINXBUILD) -b html -E -W --keep-going -q -d $(BUILD)/docs/.doctrees Documentation $(BUILD)/docs
	@echo "make docs: $(BUILD)/docs/index.html"

# The workspace, then the host tools (tools/host: xehpg-smoke, xehpg-report)
# again, static, for the VM's busybox guest (`# guest-tools: host`): named
# for the host's own triple so the flag reaches only them, and into
# tools/target/x86_64-unknown-linux-gnu/release.
tools:
	@cargo build --release -q --manifest-path tools/Cargo.toml --workspace
	@RUSTFLAGS='-C target-feature=+crt-static' cargo build --release -q \
		--manifest-path tools/Cargo.toml -p xehpg-host --target x86_64-unknown-linux-gnu

run: boot-modules sriov-shim
	@$(VM) -q --guest-file tools/guest/report.sh:/report.sh \
		--guest-file $(BUILD)/sriov-shim/xehpg_sriov_shim.ko:/lib/modules/xehpg_sriov_shim.ko \
		-- sh /report.sh

# Every lane: every suite on the plain test kernel, then the KUnit boot and
# the VM scenarios again on the debug kernel (tools/kernel-debug.config:
# KASAN, lockdep, kmemleak, UBSAN, ...), whose bootstrap the variable below
# asks for, then the first-load scenarios on Debian's packaged kernel with the
# module built by Debian's rustc (distro-modules, below). `CHECK_ARGS="--only vm:bind"` narrows a run (no floor check then).
#
# The builds it needs run as one parallel make (-j, one job a core; the
# bootstrap first, alone): each driver build is one rustc that uses about
# one core, and the tools' cargo build shares the jobserver.
CHECK_BUILDS := boot-modules kunit-module debug-modules trigger-module sriov-shim \
	distro-modules tools
check: export XEHPG_DEBUG_KERNEL := 1
check: bootstrap
	@$(MAKE) --no-print-directory -j$(shell nproc) -o bootstrap $(CHECK_BUILDS)
	@$(TOOLS_BIN)/xehpg-check --repo $(REPO) $(CHECK_ARGS)

# The debug lane: the same modules (test, production, KUnit) built against KDIR_DEBUG, the kernel
# tools/bootstrap.sh builds with the bug detectors when XEHPG_DEBUG_KERNEL=1,
# and the kunit and vm suites on that kernel, each run also asserting a clean
# kernel log (KASAN, UBSAN, lockdep, WARN, Oops, Rust panic, kmemleak after
# rmmod). `make check` runs it after the plain lane; `make check-debug` alone.
DEBUG_KDIR = $(call boot_var,KDIR_DEBUG)
DEBUG_MAKE = $(MAKE) -C $(DEBUG_KDIR) LLVM=$(call boot_var,LLVM) M=$(REPO)

.PHONY: debug-modules check-debug
debug-modules: export XEHPG_DEBUG_KERNEL := 1
debug-modules: bootstrap
	$(in_tree_clean)
	@mkdir -p $(BUILD)/module-debug $(BUILD)/module-prod-debug $(BUILD)/kunit-debug
	@$(DEBUG_MAKE) MO=$(BUILD)/module-debug XEHPG_TEST=y modules
	@$(DEBUG_MAKE) MO=$(BUILD)/module-prod-debug modules
	@$(DEBUG_MAKE) MO=$(BUILD)/kunit-debug XEHPG_KUNIT=y XEHPG_TEST=y modules

# The test-only trigger module (tests/triggers/, not part of the driver): one
# deliberate bug per load, for the debug lane's `detectors` suite, which proves
# each detector live. Built only against KDIR_DEBUG, into build/triggers-debug.
.PHONY: trigger-module
trigger-module: export XEHPG_DEBUG_KERNEL := 1
trigger-module: bootstrap
	@mkdir -p $(BUILD)/triggers-debug
	@$(MAKE) -C $(DEBUG_KDIR) LLVM=$(call boot_var,LLVM) M=$(REPO)/tests/triggers \
		MO=$(BUILD)/triggers-debug modules

check-debug: debug-modules trigger-module sriov-shim-debug tools
	@$(TOOLS_BIN)/xehpg-check --lane debug --repo $(REPO) $(CHECK_ARGS)

# The test-only guest shim (tools/guest/sriov-shim/, not part of the driver)
# that makes the mock's SR-IOV capability and VF config spaces visible behind
# QEMU's vfio-user-pci; scenarios with `# guest-module: sriov-shim` get it at
# /lib/modules/xehpg_sriov_shim.ko. `sriov-shim` builds it for the plain
# kernel, and for the debug kernel too when XEHPG_DEBUG_KERNEL=1 (make check).
SHIM_SRC := $(REPO)/tools/guest/sriov-shim

.PHONY: sriov-shim sriov-shim-debug
sriov-shim: bootstrap
	@mkdir -p $(BUILD)/sriov-shim
	@$(MAKE) -C $(call boot_var,KDIR) LLVM=$(call boot_var,LLVM) M=$(SHIM_SRC) \
		MO=$(BUILD)/sriov-shim modules
	@if [ "$$XEHPG_DEBUG_KERNEL" = 1 ]; then $(MAKE) --no-print-directory sriov-shim-debug; fi

sriov-shim-debug: export XEHPG_DEBUG_KERNEL := 1
sriov-shim-debug: bootstrap
	@mkdir -p $(BUILD)/sriov-shim-debug
	@$(MAKE) -C $(DEBUG_KDIR) LLVM=$(call boot_var,LLVM) M=$(SHIM_SRC) \
		MO=$(BUILD)/sriov-shim-debug modules

# MMIO accesses per driver operation (forcewake, steered/unicast/multicast
# access) measured in the VM, and the driver's MMIO count reconciled with the
# mock's; exits non-zero if the counts differ, the run fails, or an
# operation's MMIO count is above tools/bench-baseline.toml. A fourth
# boot loads the SR-IOV shim and measures provisioning 1, 7 and 63 VFs
# (and saves build/bench/sriov-N.txt for `make sriov-map`). Every figure also
# goes to build/bench.json. `BENCH_ARGS=--update-baseline` records the
# run's counts in the baseline instead of comparing them.
.PHONY: bench
bench: boot-modules sriov-shim tools
	@$(TOOLS_BIN)/xehpg-check --bench --repo $(REPO) $(BENCH_ARGS)

# The SR-IOV provisioning map (tools/sriov-map): Documentation/sriov-map.svg
# from the committed capture, and an SVG beside every capture the bench saved
# (build/bench/sriov-N.txt). One capture by hand:
#   tools/target/release/xehpg-sriov-map FILE -o FILE.svg
SRIOV_MAP_DATA := tools/sriov-map/tests/data/sriov-7.txt
.PHONY: sriov-map
sriov-map:
	@cargo build --release -q --manifest-path tools/Cargo.toml -p xehpg-sriov-map
	@$(TOOLS_BIN)/xehpg-sriov-map $(SRIOV_MAP_DATA) -o Documentation/sriov-map.svg
	@for f in build/bench/sriov-*.txt; do [ -e "$$f" ] || continue; \
		$(TOOLS_BIN)/xehpg-sriov-map "$$f" -o "$${f%.txt}.svg" && echo "$${f%.txt}.svg"; done

# The driver's forcewake and MCR tables (rust/gt/forcewake/table.rs,
# rust/gt/mcr/table.rs), generated from the seed's table and the decisions in
# tools/gen/tables.toml, and its hwconfig key names (rust/guc/hwconfig/keys.rs)
# from tools/mock/data/hwconfig-keys.tsv, the list the mock serves by. Checked
# in; `make check` fails when they are stale.
.PHONY: tables
tables:
	@cargo run --release -q --manifest-path tools/Cargo.toml -p xehpg-gen --bin xehpg-gen-tables -- --repo $(REPO)

# bindgen on the shared ABI header. The output is checked in; `make check`
# regenerates it to a temporary file and fails on any difference.
BINDGEN_CMD = $(or $(call boot_var,BINDGEN),$(BINDGEN)) --use-core --no-layout-tests \
	--allowlist-item '(xehpg|XEHPG)_.*' $(REPO)/include/xehpg_abi.h

bindings:
	$(BINDGEN_CMD) -o rust/abi/bindings.rs

print-bindgen-cmd:
	@echo "$(BINDGEN_CMD)"

# Debian's packaged kernel KVER (trixie-backports): tools/distro-modules.sh
# fetches it, rebuilds its Rust crates with Debian's own rustc 1.85 in a private
# root under $(XEHPG_CACHE)/distro (checking their symbol hashes against
# Debian's Module.symvers) and builds xehpg.ko (production; the test build in
# build/distro/test/) and the guest shim for it into build/distro/. `make check` boots Debian's vmlinuz with them (suite
# vm-distro); `make check-distro` runs that lane alone. Without KVER=..., the
# script takes the release the cache was built for, else the newest
# linux-image-7.3.*-amd64 trixie-backports offers (XEHPG_REFRESH=1: look again).
.PHONY: distro-modules check-distro
distro-modules:
	@tools/distro-modules.sh $(KVER)

check-distro: distro-modules tools
	@$(TOOLS_BIN)/xehpg-check --repo $(REPO) --lane distro $(CHECK_ARGS)
