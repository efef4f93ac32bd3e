// Applies journal ranges to a pool-sized file (the image at a checkpoint, a working pool being
// rebuilt) through an overlay of whole pages: each page is read once, patched by every range that
// falls on it, and written back in offset order, so a journal of many small ranges costs a few
// large writes instead of one pwrite per range. Replay is idempotent: applying records again over
// a file that holds some of them already ends with the same bytes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "journal-format.h"

namespace pmemcql {

class JournalReplay {
 public:
  /** Writes go to `fd` (the file called `name` in errors). Throws nothing here. */
  JournalReplay(int fd, std::string name);
  /** Patches the overlay with `ranges`; writes it out when it grows past its budget. Throws PoolErr. */
  void apply(const std::vector<RecordRange>& ranges);
  /** Writes every patched page to the file (no fsync). Throws PoolErr (POOL_IO). */
  void flush();
  uint64_t rangesApplied() const { return ranges_; }

 private:
  char* page(uint64_t index);

  int fd_;
  std::string name_;
  std::unordered_map<uint64_t, std::unique_ptr<char[]>> pages_;
  uint64_t ranges_ = 0;
};

}  // namespace pmemcql
