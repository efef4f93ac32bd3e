// Per-transaction bookkeeping of pool objects, keyed by offset, in one open-addressing table
// cleared per transaction (no heap allocation per object). It records which objects are already
// logged (so each is snapshotted at most once) and, for leaves, which slots were free when the
// transaction first touched them: only those may be written without an undo copy.
#pragma once

#include <cstdint>
#include <vector>

namespace pmemcql {

struct TxObject {
  uint64_t off;          // meaningful only when gen is the table's current generation
  uint64_t freeAtStart;  // leaves: slots free at first touch (all ones for fresh objects)
  uint32_t gen;
  bool fresh;            // allocated by this transaction: no logging needed at all
};

class TxObjects {
 public:
  TxObjects() : cells_(1024) {}

  /** The record for `off`, or nullptr. */
  TxObject* find(uint64_t off) {
    size_t mask = cells_.size() - 1;
    for (size_t i = hash(off) & mask;; i = (i + 1) & mask) {
      if (cells_[i].gen != gen_) return nullptr;
      if (cells_[i].off == off) return &cells_[i];
    }
  }

  /** Adds a record for `off` (absent); the pointer is valid until the next add(). */
  TxObject* add(uint64_t off, uint64_t freeAtStart, bool fresh) {
    if ((count_ + 1) * 2 > cells_.size()) grow();
    TxObject* o = place(off);
    o->freeAtStart = freeAtStart;
    o->fresh = fresh;
    return o;
  }

  /** O(1): a new generation makes every cell empty. */
  void clear() {
    if (count_ == 0) return;
    count_ = 0;
    // Give back the memory of a huge transaction; restart generations before they wrap.
    if (cells_.size() > 65536 || gen_ == UINT32_MAX) {
      cells_.assign(1024, TxObject{});
      gen_ = 1;
    } else {
      gen_++;
    }
  }

 private:
  static size_t hash(uint64_t off) { return static_cast<size_t>((off >> 4) * 0x9E3779B97F4A7C15ull >> 20); }

  TxObject* place(uint64_t off) {
    size_t mask = cells_.size() - 1;
    for (size_t i = hash(off) & mask;; i = (i + 1) & mask) {
      if (cells_[i].gen != gen_) {
        cells_[i].off = off;
        cells_[i].gen = gen_;
        count_++;
        return &cells_[i];
      }
      if (cells_[i].off == off) return &cells_[i];
    }
  }

  void grow() {
    std::vector<TxObject> old(cells_.size() * 2);
    old.swap(cells_);
    uint32_t live = gen_;
    gen_ = 1;
    count_ = 0;
    for (const TxObject& o : old) {
      if (o.gen != live) continue;
      TxObject* n = place(o.off);
      n->freeAtStart = o.freeAtStart;
      n->fresh = o.fresh;
    }
  }

  std::vector<TxObject> cells_;  // value-initialised: gen 0, never current
  size_t count_ = 0;
  uint32_t gen_ = 1;
};

}  // namespace pmemcql
