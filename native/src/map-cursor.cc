#include "map-cursor.h"

#include <cstring>

#include "pmem-map.h"

namespace pmemcql {

using tree::innerAt;
using tree::leafAt;

MapCursor::MapCursor(const Pool& pool, uint64_t map) : pool_(pool) {
  const MapHeader* h = mapHeader(pool, map);
  if (h->height > kMaxHeight) tree::corrupt("tree too deep");
  height_ = h->root ? static_cast<int>(h->height) : 0;
  root_ = h->root;
}

const Entry* MapCursor::entry() const {
  const Leaf* l = pool_.at<Leaf>(node_[height_ - 1]);
  return pool_.at<Entry>(tree::slotAt(l, idx_[height_ - 1]).ent);
}

void MapCursor::prefetchAhead(int ahead) const {
  const Leaf* l = pool_.at<Leaf>(node_[height_ - 1]);
  int i = idx_[height_ - 1] + ahead;
  if (i >= 0 && i < l->h.n) __builtin_prefetch(pool_.at<char>(tree::slotAt(l, i).ent));
}

void MapCursor::descendLeftmost(int from) {
  for (int l = from; l < height_; l++) {
    node_[l] = innerAt(pool_, node_[l - 1])->child[idx_[l - 1]];
    idx_[l] = 0;
  }
  if (height_ > 0) leafAt(pool_, node_[height_ - 1]);
}

void MapCursor::descendRightmost(int from) {
  for (int l = from; l < height_; l++) {
    node_[l] = innerAt(pool_, node_[l - 1])->child[idx_[l - 1]];
    idx_[l] = (l == height_ - 1 ? leafAt(pool_, node_[l])->h.n : innerAt(pool_, node_[l])->h.n) - 1;
  }
}

void MapCursor::first() {
  valid_ = height_ > 0;
  if (!valid_) return;
  node_[0] = root_;
  idx_[0] = 0;
  descendLeftmost(1);
  valid_ = leafAt(pool_, node_[height_ - 1])->h.n > 0;
}

void MapCursor::last() {
  valid_ = height_ > 0;
  if (!valid_) return;
  node_[0] = root_;
  idx_[0] = (height_ == 1 ? leafAt(pool_, root_)->h.n : innerAt(pool_, root_)->h.n) - 1;
  descendRightmost(1);
  valid_ = idx_[height_ - 1] >= 0;
}

void MapCursor::seek(const uint8_t* key, uint32_t klen, bool after) {
  valid_ = height_ > 0;
  if (!valid_) return;
  tree::Key k(key, klen);
  uint64_t node = root_;
  for (int l = 0; l < height_ - 1; l++) {
    const Inner* in = innerAt(pool_, node);
    node_[l] = node;
    idx_[l] = tree::innerSearch(pool_, in, k);
    node = in->child[idx_[l]];
    tree::prefetchNode(pool_, node, l == height_ - 2);
  }
  const Leaf* leaf = leafAt(pool_, node);
  node_[height_ - 1] = node;
  idx_[height_ - 1] = tree::leafSearch(pool_, leaf, k, after);
}

bool MapCursor::settleForward() {
  if (height_ == 0) return valid_ = false;
  int L = height_ - 1;
  if (idx_[L] < pool_.at<Leaf>(node_[L])->h.n) return valid_ = true;
  int lvl = L - 1;
  while (lvl >= 0 && idx_[lvl] + 1 >= pool_.at<Inner>(node_[lvl])->h.n) lvl--;
  if (lvl < 0) return valid_ = false;
  idx_[lvl]++;
  descendLeftmost(lvl + 1);
  return valid_ = true;
}

bool MapCursor::next() {
  if (!valid_) return false;
  idx_[height_ - 1]++;
  return settleForward();
}

bool MapCursor::prev() {
  if (height_ == 0) return valid_ = false;
  int L = height_ - 1;
  if (idx_[L] > 0) {
    idx_[L]--;
    return valid_ = true;
  }
  int lvl = L - 1;
  while (lvl >= 0 && idx_[lvl] == 0) lvl--;
  if (lvl < 0) return valid_ = false;
  idx_[lvl]--;
  descendRightmost(lvl + 1);
  return valid_ = true;
}

namespace {

void emit(const Entry* e, std::vector<uint8_t>& out) {
  size_t at = out.size();
  uint32_t vlen = e->child ? 0 : e->vlen;
  out.resize(at + 16 + e->klen + vlen);
  uint8_t* p = out.data() + at;
  uint32_t vfield = e->child ? 0xFFFFFFFFu : e->vlen;
  double child = static_cast<double>(e->child);
  memcpy(p, &e->klen, 4);
  memcpy(p + 4, &vfield, 4);
  memcpy(p + 8, &child, 8);
  memcpy(p + 16, e->key(), e->klen);
  if (vlen) memcpy(p + 16 + e->klen, e->value(), vlen);
}

}  // namespace

uint64_t scanMap(const Pool& pool, uint64_t map, const ScanSpec& s, std::vector<uint8_t>& out) {
  MapCursor c(pool, map);
  uint64_t n = 0;
  if (s.limit == 0) return 0;
  if (!s.reverse) {
    if (s.hasStart) {
      c.seek(s.start, s.startLen, !s.startInclusive);
      c.settleForward();
    } else {
      c.first();
    }
    if (c.valid())
      for (int k = 1; k < 4; k++) c.prefetchAhead(k);
    for (; c.valid(); c.next()) {
      // Entry blobs are scattered in the heap: start fetching a few ahead of the one copied.
      c.prefetchAhead(4);
      const Entry* e = c.entry();
      if (s.hasEnd) {
        int cmp = tree::compareKeys(e->key(), e->klen, s.end, s.endLen);
        if (cmp > 0 || (cmp == 0 && !s.endInclusive)) break;
      }
      emit(e, out);
      if (++n >= s.limit) break;
    }
  } else {
    if (s.hasEnd) {
      // Rest on the first key past the bound, then step back onto the last one within it.
      c.seek(s.end, s.endLen, s.endInclusive);
      c.prev();
    } else {
      c.last();
    }
    if (c.valid())
      for (int k = 1; k < 4; k++) c.prefetchAhead(-k);
    for (; c.valid(); c.prev()) {
      c.prefetchAhead(-4);
      const Entry* e = c.entry();
      if (s.hasStart) {
        int cmp = tree::compareKeys(e->key(), e->klen, s.start, s.startLen);
        if (cmp < 0 || (cmp == 0 && !s.startInclusive)) break;
      }
      emit(e, out);
      if (++n >= s.limit) break;
    }
  }
  return n;
}

}  // namespace pmemcql
