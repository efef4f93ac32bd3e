// Ordered iteration over one map, forward or backward, by a stack of (node, index) per level:
// leaves carry no sibling links, so splits and merges never touch a neighbour node.
#pragma once

#include <cstdint>
#include <vector>

#include "layout.h"
#include "pmem-pool.h"

namespace pmemcql {

class MapCursor {
 public:
  MapCursor(const Pool& pool, uint64_t map);

  void first();
  void last();
  /** Positions at the first entry >= key (> key when `after`); may rest past a leaf's end. */
  void seek(const uint8_t* key, uint32_t klen, bool after);
  /** After seek(): moves onto the next real entry if resting past a leaf's end. */
  bool settleForward();
  bool next();
  bool prev();
  bool valid() const { return valid_; }
  const Entry* entry() const;
  /** Starts loading the blob `ahead` entries further on in the current leaf, if any. */
  void prefetchAhead(int ahead) const;

 private:
  void descendLeftmost(int from);
  void descendRightmost(int from);

  const Pool& pool_;
  int height_;
  uint64_t root_;
  bool valid_ = false;
  uint64_t node_[kMaxHeight];
  int idx_[kMaxHeight];
};

struct ScanSpec {
  const uint8_t* start = nullptr;
  uint32_t startLen = 0;
  bool hasStart = false;
  bool startInclusive = true;
  const uint8_t* end = nullptr;
  uint32_t endLen = 0;
  bool hasEnd = false;
  bool endInclusive = true;
  bool reverse = false;
  uint64_t limit = UINT64_MAX;
};

/**
 * Appends the entries of `map` within the bounds to `out`, each as a 16-byte header
 * (u32 key length, u32 value length or 0xFFFFFFFF for a child map, f64 child handle) followed
 * by the key and value bytes. Returns the number of entries.
 */
uint64_t scanMap(const Pool& pool, uint64_t map, const ScanSpec& spec, std::vector<uint8_t>& out);

}  // namespace pmemcql
