// The running kernel's boot id (/proc/sys/kernel/random/boot_id): a random 128-bit value per boot.
// A journaled working pool stamped with it was written by this boot, so no power loss or OS crash
// can have torn it since (docs/storage-native.md, "Durability of disk pools").
#pragma once

#include <cstdint>

namespace pmemcql {

struct BootId {
  uint64_t hi = 0, lo = 0;
  bool operator==(const BootId& o) const { return hi == o.hi && lo == o.lo; }
  bool operator!=(const BootId& o) const { return !(*this == o); }
};

/**
 * This boot's id. PMEMCQL_BOOT_ID (a UUID) stands in for the kernel's, so tests can simulate a reboot.
 * Throws PoolErr (POOL_OPEN) when neither can be read.
 */
BootId currentBootId();

}  // namespace pmemcql
