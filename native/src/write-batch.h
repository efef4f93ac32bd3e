// Applies a serialized WriteBatch (built by storage/native-binding.ts) in one transaction.
//
// Wire format, little-endian, ops back to back:
//   u8 opcode (1 put, 2 del, 3 ensureChild, 4 dropChild, 5 clear, 6 reserve)
//   u8 target kind (0: map handle, 1: index of an earlier ensureChild op of this batch)
//   f64 target (handle or op index)
//   put:                    u32 key length, key, u32 value length, value
//   reserve:                u32 key length, key, u32 value length (the value is filled in later: mapReserve)
//   del/ensureChild/dropChild: u32 key length, key
//   clear:                  nothing more
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "pmem-pool.h"

namespace pmemcql {

enum BatchOp : uint8_t { kOpPut = 1, kOpDel = 2, kOpEnsureChild = 3, kOpDropChild = 4, kOpClear = 5, kOpReserve = 6 };

/** Runs every op in one transaction; `created` gets the handle of each ensureChild, in order. */
void applyBatch(Pool& pool, const uint8_t* data, size_t len, uint32_t opCount, std::vector<uint64_t>& created);

}  // namespace pmemcql
