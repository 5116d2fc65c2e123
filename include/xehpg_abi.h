/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xehpg firmware/GuC ABI shared by the driver (rust/) and the mock device
 * (tools/mock). bindgen turns this header into rust/abi/bindings.rs
 * (`make bindings`); that file is checked in and `make check` fails when it
 * is stale. Only fixed-width integer types and packed layouts here: the same
 * bytes are read by a kernel crate and a userspace process.
 *
 * Every definition names its source. The PRM seeds in ../shared/seeds give
 * the GuC load constraints but not the CSS layout (research note
 * seed000-part2-and-003.md line 53 lists it as a gap), so the layout below is
 * read from upstream xe: drivers/gpu/drm/xe/abi/uc_fw_abi.h (Linux 7.3).
 */
#ifndef XEHPG_ABI_H
#define XEHPG_ABI_H

#include <stdint.h>

/*
 * CSS header at the start of a GuC firmware file (uc_fw_abi.h,
 * struct uc_css_header: 128 bytes, all fields little-endian dwords).
 * File layout: header | uCode | RSA key | modulus | exponent; the last two
 * may be absent (the driver never needs them, uc_fw_abi.h "Modulus and
 * exponent key are not required by driver").
 */
struct xehpg_css_header {
	uint32_t module_type;
	/* Non-uCode dwords: this header + key + modulus + exponent. */
	uint32_t header_size_dw;
	uint32_t header_version;
	uint32_t reserved0;
	uint32_t module_vendor;
	/* Build date: year 31:16, month 15:8, day 7:0 (BCD-like, informative). */
	uint32_t date;
	/* uCode dwords plus header_size_dw. */
	uint32_t size_dw;
	/* RSA sizes in dwords (the rsa_info member of the upstream union). */
	uint32_t key_size_dw;
	uint32_t modulus_size_dw;
	uint32_t exponent_size_dw;
	/* GuC information (the guc_info member of the upstream union). */
	uint32_t time;
	uint32_t reserved1[5];
	/* Release version: major 23:16, minor 15:8, patch 7:0. */
	uint32_t sw_version;
	/* Submission interface version, same encoding as sw_version. */
	uint32_t submission_version;
	uint32_t reserved2[11];
	/* SVN 7:0, copy-valid 31. */
	uint32_t header_info;
	/* Bytes of GuC private data the driver must reserve (WOPCM side). */
	uint32_t private_data_size;
	/* Device field 31:16 (not a PCI ID), prod key 15:8, build type 3:2. */
	uint32_t ukernel_info;
} __attribute__((packed));

#define XEHPG_CSS_HEADER_BYTES 128
#define XEHPG_CSS_VERSION_MAJOR_SHIFT 16
#define XEHPG_CSS_VERSION_MINOR_SHIFT 8
#define XEHPG_CSS_VERSION_FIELD_MASK 0xff

#endif /* XEHPG_ABI_H */
