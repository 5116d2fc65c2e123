// SPDX-License-Identifier: GPL-2.0
/*
 * C glue for what the 7.3 Rust kernel crate cannot express: a string module
 * parameter (module! supports integer and bool parameters only). Rust reads it
 * through xehpg_guc_firmware_path().
 */
#include <linux/module.h>
#include <linux/moduleparam.h>

static char guc_firmware_path[256];
module_param_string(guc_firmware_path, guc_firmware_path, sizeof(guc_firmware_path), 0400);
MODULE_PARM_DESC(guc_firmware_path,
		 "GuC firmware to load instead of i915/dg2_guc_70.bin (relative to the firmware search path)");

/* The parameter, NUL-terminated; empty when not set. */
const char *xehpg_guc_firmware_path(void);
const char *xehpg_guc_firmware_path(void)
{
	return guc_firmware_path;
}
