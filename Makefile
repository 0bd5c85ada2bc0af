# SPDX-License-Identifier: GPL-2.0
#
# rclink developer entry points.  Each part below is self-contained; add new
# parts as their own sections.

# ===========================================================================
# Kernel module (drivers/rclink) -- targets: modules, module-check
#
#   make modules        build/<krel>/rclink.ko for every kernel in RCLINK_KRELS
#   make module-check   W=1 C=1 builds of every kernel (any warning fails)
#                       and checkpatch --strict on drivers/rclink
#
# Variables (all overridable):
#   RCLINK_CACHE        cache dir, default $(HOME)/.cache/rclink
#   RCLINK_KRELS        kernel releases, default KREL_61 and KREL_612 from
#                       $(RCLINK_CACHE)/kernels.env (written by .ci/deps.sh)
#   RCLINK_KDIR_<krel>  header tree of one release, default
#                       /lib/modules/<krel>/build, else
#                       /usr/src/linux-headers-<krel>
#   RCLINK_CHECKPATCH   checkpatch.pl, default
#                       $(RCLINK_CACHE)/linux-tools/scripts/checkpatch.pl,
#                       extracted from linux-source-*.tar.xz when missing
# ===========================================================================

RCLINK_CACHE ?= $(HOME)/.cache/rclink
-include $(RCLINK_CACHE)/kernels.env
RCLINK_KRELS ?= $(KREL_61) $(KREL_612)
RCLINK_BUILD ?= build
RCLINK_CHECKPATCH ?= $(RCLINK_CACHE)/linux-tools/scripts/checkpatch.pl
RCLINK_LINUX_SOURCE ?= $(lastword $(sort $(wildcard \
	/usr/src/linux-source-*.tar.xz)))

rclink_kdir = $(or $(RCLINK_KDIR_$(1)),$(firstword \
	$(wildcard /lib/modules/$(1)/build) /usr/src/linux-headers-$(1)))
rclink_mod_srcs := Kbuild $(sort $(wildcard drivers/rclink/*.[ch]) \
	$(wildcard include/*.h))
rclink_cp_srcs = mkdir -p $(1)/drivers/rclink $(1)/include && \
	cp -p Kbuild $(1)/ && \
	cp -p drivers/rclink/*.[ch] $(1)/drivers/rclink/ && \
	cp -p include/*.h $(1)/include/

.PHONY: modules module-check rclink-no-krels
modules: $(if $(strip $(RCLINK_KRELS)),$(addprefix rclink-module-,\
	$(RCLINK_KRELS)),rclink-no-krels)
module-check: $(if $(strip $(RCLINK_KRELS)),$(addprefix rclink-check-,\
	$(RCLINK_KRELS)),rclink-no-krels) rclink-checkpatch

rclink-no-krels:
	@echo "no kernel releases: set RCLINK_KRELS or run .ci/deps.sh" \
		"(writes $(RCLINK_CACHE)/kernels.env)" >&2; exit 1

# modules: incremental build in build/<krel> (sources copied with their
# timestamps, so kbuild rebuilds only what changed)
define rclink_module_rules
.PHONY: rclink-module-$(1) rclink-check-$(1)
rclink-module-$(1):
	@$(call rclink_cp_srcs,$(RCLINK_BUILD)/$(1))
	$(MAKE) -C $(call rclink_kdir,$(1)) M=$(CURDIR)/$(RCLINK_BUILD)/$(1) \
		modules

# module-check: a fresh tree each time, so every file is compiled and
# checked; a warning or error from the compiler or sparse fails the target
rclink-check-$(1):
	@rm -rf $(RCLINK_BUILD)/module-check/$(1)
	@$(call rclink_cp_srcs,$(RCLINK_BUILD)/module-check/$(1))
	@echo "  CHECK   rclink.ko W=1 C=1 for $(1)"
	@$(MAKE) -C $(call rclink_kdir,$(1)) \
		M=$(CURDIR)/$(RCLINK_BUILD)/module-check/$(1) W=1 C=1 modules \
		> $(RCLINK_BUILD)/module-check/$(1).log 2>&1 || \
		{ cat $(RCLINK_BUILD)/module-check/$(1).log; exit 1; }
	@if grep -E 'warning:|error:' $(RCLINK_BUILD)/module-check/$(1).log; then \
		echo "module-check: $(1): warnings (log:" \
			"$(RCLINK_BUILD)/module-check/$(1).log)" >&2; exit 1; fi
endef
$(foreach k,$(RCLINK_KRELS),$(eval $(call rclink_module_rules,$(k))))

$(RCLINK_CHECKPATCH):
	@test -n "$(RCLINK_LINUX_SOURCE)" || { echo "no checkpatch.pl:" \
		"install linux-source-6.12 or set RCLINK_CHECKPATCH" >&2; \
		exit 1; }
	mkdir -p $(dir $(patsubst %/,%,$(dir $@)))
	tar -xJf $(RCLINK_LINUX_SOURCE) -C $(dir $(patsubst %/,%,$(dir $@))) \
		--strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch'

# rclink_compat.h is where the LINUX_VERSION_CODE tests live (and only
# there), so that one warning type is not reported for that one file
# (--codespell when the codespell package's dictionary is installed)
RCLINK_CODESPELL_DICT ?= $(firstword $(wildcard \
	/usr/share/codespell/dictionary.txt \
	/usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt))
rclink_checkpatch = $(RCLINK_CHECKPATCH) --strict --no-tree \
	--max-line-length=80 --show-types --quiet \
	$(if $(RCLINK_CODESPELL_DICT),--codespell \
		--codespellfile=$(RCLINK_CODESPELL_DICT))
rclink_compat_h := drivers/rclink/rclink_compat.h

.PHONY: rclink-checkpatch
rclink-checkpatch: $(RCLINK_CHECKPATCH)
	@echo "  CHECKPATCH drivers/rclink"
	@$(rclink_checkpatch) -f $(filter-out $(rclink_compat_h),\
		$(filter drivers/%,$(rclink_mod_srcs)))
	@$(rclink_checkpatch) --ignore LINUX_VERSION_CODE -f $(rclink_compat_h)

# ===========================================================================
# Developer entry points -- targets: deps, gen, check, demo, qemu
#
#   make demo    boot the QEMU board pair, load the driver, show it working
#   make check   host tests, module gates, kselftests in the 6.1 and 6.12
#                guests; ends with "N passed, N failed"
#   make gen     regenerate the outputs of firmware/regs/rclink.yaml
#   make deps    apt packages and guest kernels (.ci/deps.sh; idempotent)
#   make qemu    QEMU with the board model, cached (firmware/qemu/build.sh)
# ===========================================================================

.DEFAULT_GOAL := modules

.PHONY: deps gen check demo qemu
deps:
	@bash .ci/deps.sh

gen:
	@/usr/bin/python3 firmware/regs/gen.py

qemu: deps
	@firmware/qemu/build.sh

check: deps
	@selftests/run-check.sh

demo: deps
	@selftests/run-demo.sh

# ===========================================================================
# Benchmark -- target: bench (not part of check)
#
#   make bench   one 6.12 guest with the rclink pair, an e1000e pair and a
#                virtio-net pair (each wired through its own QEMU hub):
#                TCP throughput and ping latency per pair, the ratios
#                rclink/e1000e and rclink/virtio (tools/bench/run-bench.sh;
#                results in build/bench/)
# ===========================================================================

.PHONY: bench
bench: deps
	@tools/bench/run-bench.sh
