// Applies journal ranges to a pool-sized file (the image at a checkpoint, a working pool being
// rebuilt) through an overlay of pages: the bytes of every range land in their page's buffer and
// the cache lines they cover are marked; at the end the marked lines go out in offset order, runs
// of adjacent lines in one pwritev. Journal ranges cover whole cache lines (the flush recorder widens
// them), so nothing of the file is read; a range that starts or ends inside a line (a journal of an
// earlier build) has its page read first. Replay is idempotent: applying records again over a file
// that holds some of them already ends with the same bytes.
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
  /** Writes go to `fd` (the file called `name` in errors). */
  JournalReplay(int fd, std::string name);
  /** Patches the overlay with `ranges`; writes it out when it grows past its budget. Throws PoolErr. */
  void apply(const std::vector<RecordRange>& ranges);
  /** Writes every marked line to the file (no fsync). Throws PoolErr (POOL_IO). */
  void flush();
  /** Frees the page memory this thread keeps for its next replay (after a one-off replay). */
  static void releaseSpareSlabs();

 private:
  struct Page {
    char* bytes;
    uint64_t lines;  // bit i: line i of the page holds replayed bytes
    bool loaded;     // the whole page holds the file's bytes under the replayed ones
  };
  Page& page(uint64_t index);
  void load(uint64_t index, Page& p);

  int fd_;
  std::string name_;
  std::unordered_map<uint64_t, Page> pages_;
  std::vector<std::unique_ptr<char[]>> slabs_;  // page buffers, kSlabPages at a time
  size_t slabUsed_ = 0;
};

}  // namespace pmemcql
