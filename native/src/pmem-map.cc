#include "pmem-map.h"

#include <cstring>
#include <string>

namespace pmemcql {

using tree::compareStored;
using tree::innerAt;
using tree::innerSearch;
using tree::Key;
using tree::leafAt;
using tree::leafSearch;
using tree::slotAt;

namespace tree {
[[noreturn]] void corrupt(const char* what) { throw PoolErr("POOL_CORRUPT", std::string("pool is damaged: ") + what); }
}  // namespace tree

namespace {

// Inner nodes on the way from the root to a leaf, and the child index taken at each.
struct Path {
  int depth = 0;
  uint64_t node[kMaxHeight];
  int idx[kMaxHeight];
};

struct Location {
  Path path;
  uint64_t leaf = 0;
  int pos = 0;
  bool found = false;
};

void locate(const Pool& pool, const MapHeader* h, const Key& k, Location& loc) {
  if (h->height > kMaxHeight) tree::corrupt("tree too deep");
  uint64_t node = h->root;
  loc.path.depth = 0;
  for (uint32_t lvl = h->height; lvl > 1; lvl--) {
    const Inner* in = innerAt(pool, node);
    int ci = innerSearch(pool, in, k);
    loc.path.node[loc.path.depth] = node;
    loc.path.idx[loc.path.depth] = ci;
    loc.path.depth++;
    node = in->child[ci];
    tree::prefetchNode(pool, node, lvl == 2);
  }
  const Leaf* l = leafAt(pool, node);
  loc.leaf = node;
  loc.pos = leafSearch(pool, l, k, false);
  loc.found = loc.pos < l->h.n && slotAt(l, loc.pos).pfx == k.pfx &&
              compareStored(pool, k.pfx, slotAt(l, loc.pos).ent, k) == 0;
}

uint64_t newEntry(Tx& tx, TypeNum type, const uint8_t* key, uint32_t klen, const uint8_t* value, uint32_t vlen,
                  uint64_t child) {
  uint64_t off = tx.alloc(sizeof(Entry) + klen + vlen, type);
  Entry* e = tx.pool().at<Entry>(off);
  e->klen = klen;
  e->vlen = vlen;
  e->child = child;
  if (klen) memcpy(e->bytes(), key, klen);
  if (vlen) memcpy(e->bytes() + klen, value, vlen);
  return off;
}

// An entry whose value stays unwritten: only its header and key are flushed at commit.
uint64_t newReservedEntry(Tx& tx, const uint8_t* key, uint32_t klen, uint32_t vlen) {
  uint64_t off = tx.allocUnflushed(sizeof(Entry) + klen + vlen, kTypeEntry, sizeof(Entry) + klen);
  Entry* e = tx.pool().at<Entry>(off);
  e->klen = klen;
  e->vlen = vlen;
  e->child = 0;
  if (klen) memcpy(e->bytes(), key, klen);
  return off;
}

// The shortest key s with left < s <= right: a prefix of `right`, so separators stay short.
uint64_t newSeparator(Tx& tx, uint64_t leftEnt, uint64_t rightEnt, uint64_t& pfxOut) {
  const Pool& pool = tx.pool();
  const Entry* l = pool.at<Entry>(leftEnt);
  const Entry* r = pool.at<Entry>(rightEnt);
  uint32_t n = l->klen < r->klen ? l->klen : r->klen;
  uint32_t common = 0;
  while (common < n && l->key()[common] == r->key()[common]) common++;
  uint32_t len = common + 1 <= r->klen ? common + 1 : r->klen;
  pfxOut = tree::prefixOf(r->key(), len);
  return newEntry(tx, kTypeSepKey, r->key(), len, nullptr, 0, 0);
}

void snapshotHeader(Tx& tx, uint64_t map) { tx.snapshot(map, sizeof(MapHeader)); }

// Adds (sep, right) just after child `path.idx[level]` of the inner node at `level`, splitting
// upwards as needed; level -1 means `left` was the root.
void insertChild(Tx& tx, MapHeader* h, uint64_t map, const Path& path, int level, uint64_t left, uint64_t sepPfx,
                 uint64_t sep, uint64_t right) {
  Pool& pool = tx.pool();
  if (level < 0) {
    uint64_t rootOff = tx.alloc(sizeof(Inner), kTypeInner);
    Inner* r = pool.at<Inner>(rootOff);
    r->h = NodeHeader{kInnerKind, 2, 0};
    r->child[0] = left;
    r->child[1] = right;
    r->pfx[1] = sepPfx;
    r->sep[1] = sep;
    snapshotHeader(tx, map);
    h->root = rootOff;
    h->height++;
    return;
  }
  uint64_t inOff = path.node[level];
  Inner* in = pool.at<Inner>(inOff);
  int at = path.idx[level] + 1;
  int n = in->h.n;
  tx.snapshot(inOff, sizeof(Inner));
  if (n < kInnerCap) {
    memmove(&in->child[at + 1], &in->child[at], (n - at) * sizeof(uint64_t));
    memmove(&in->sep[at + 1], &in->sep[at], (n - at) * sizeof(uint64_t));
    memmove(&in->pfx[at + 1], &in->pfx[at], (n - at) * sizeof(uint64_t));
    in->child[at] = right;
    in->sep[at] = sep;
    in->pfx[at] = sepPfx;
    in->h.n = static_cast<uint16_t>(n + 1);
    return;
  }
  constexpr int total = kInnerCap + 1;
  uint64_t tc[total], ts[total], tp[total];
  for (int i = 0, j = 0; i < total; i++) {
    if (i == at) {
      tc[i] = right;
      ts[i] = sep;
      tp[i] = sepPfx;
    } else {
      tc[i] = in->child[j];
      ts[i] = in->sep[j];
      tp[i] = in->pfx[j];
      j++;
    }
  }
  const int m = total / 2;
  uint64_t rOff = tx.alloc(sizeof(Inner), kTypeInner);
  Inner* r = pool.at<Inner>(rOff);
  r->h = NodeHeader{kInnerKind, static_cast<uint16_t>(total - m), 0};
  for (int j = 0; j < total - m; j++) {
    r->child[j] = tc[m + j];
    if (j > 0) {
      r->sep[j] = ts[m + j];
      r->pfx[j] = tp[m + j];
    }
  }
  for (int i = 0; i < m; i++) {
    in->child[i] = tc[i];
    if (i > 0) {
      in->sep[i] = ts[i];
      in->pfx[i] = tp[i];
    }
  }
  in->h.n = static_cast<uint16_t>(m);
  insertChild(tx, h, map, path, level - 1, inOff, tp[m], ts[m], rOff);
}

// A slot of leaf `off` that is free after `used`; one free since the transaction began when
// possible, so writing it needs no undo copy.
int pickSlot(Tx& tx, uint64_t off, uint64_t used) {
  uint64_t freeNow = ~used & (kLeafCap == 64 ? ~0ull : (1ull << kLeafCap) - 1);
  uint64_t c = freeNow & tx.writableSlots(off);
  return __builtin_ctzll(c ? c : freeNow);
}

uint64_t usedSlots(const Leaf* l) { return ~Tx::freeSlots(l) & (kLeafCap == 64 ? ~0ull : (1ull << kLeafCap) - 1); }

void putSlot(Tx& tx, uint64_t off, Leaf* l, int s, uint64_t pfx, uint64_t ent) {
  tx.writeSlot(off, s);
  l->slot[s].pfx = pfx;
  l->slot[s].ent = ent;
}

void leafInsert(Tx& tx, MapHeader* h, uint64_t map, const Location& loc, uint64_t pfx, uint64_t ent) {
  Pool& pool = tx.pool();
  Leaf* l = pool.at<Leaf>(loc.leaf);
  int n = l->h.n;
  int pos = loc.pos;
  tx.touchLeaf(loc.leaf, l);
  if (n < kLeafCap) {
    int s = pickSlot(tx, loc.leaf, usedSlots(l));
    putSlot(tx, loc.leaf, l, s, pfx, ent);
    memmove(&l->order[pos + 1], &l->order[pos], n - pos);
    l->order[pos] = static_cast<uint8_t>(s);
    l->h.n = static_cast<uint16_t>(n + 1);
    return;
  }
  // Split: the upper part moves to a new leaf; the lower part keeps its slots.
  constexpr int total = kLeafCap + 1;
  uint64_t tp[total], te[total];
  int ts[total];  // slot in the old leaf, -1 for the new entry
  for (int i = 0, j = 0; i < total; i++) {
    if (i == pos) {
      tp[i] = pfx;
      te[i] = ent;
      ts[i] = -1;
    } else {
      const LeafSlot& sl = slotAt(l, j);
      tp[i] = sl.pfx;
      te[i] = sl.ent;
      ts[i] = l->order[j];
      j++;
    }
  }
  // Appending at either end (ascending / descending loads) splits off just the new entry, so
  // such loads fill leaves completely instead of leaving them half empty.
  const int m = pos == kLeafCap ? kLeafCap : (pos == 0 ? 1 : total / 2);
  uint64_t rOff = tx.alloc(sizeof(Leaf), kTypeLeaf);
  Leaf* r = pool.at<Leaf>(rOff);
  r->h = NodeHeader{kLeafKind, static_cast<uint16_t>(total - m), 0};
  for (int j = 0; j < total - m; j++) {
    r->slot[j].pfx = tp[m + j];
    r->slot[j].ent = te[m + j];
    r->order[j] = static_cast<uint8_t>(j);
  }
  uint64_t leftUsed = 0;
  for (int i = 0; i < m; i++)
    if (ts[i] >= 0) leftUsed |= 1ull << ts[i];
  uint8_t order[kLeafCap];
  for (int i = 0; i < m; i++) {
    if (ts[i] >= 0) {
      order[i] = static_cast<uint8_t>(ts[i]);
    } else {
      int s = pickSlot(tx, loc.leaf, leftUsed);
      putSlot(tx, loc.leaf, l, s, tp[i], te[i]);
      order[i] = static_cast<uint8_t>(s);
    }
  }
  memcpy(l->order, order, m);
  l->h.n = static_cast<uint16_t>(m);
  uint64_t sepPfx;
  uint64_t sep = newSeparator(tx, te[m - 1], te[m], sepPfx);
  insertChild(tx, h, map, loc.path, loc.path.depth - 1, loc.leaf, sepPfx, sep, rOff);
}

// Inserts a new entry blob under key k (known to be absent).
void insertNew(Tx& tx, MapHeader* h, uint64_t map, const Key& k, Location* loc, uint64_t ent) {
  Pool& pool = tx.pool();
  if (h->root == 0) {
    uint64_t leafOff = tx.alloc(sizeof(Leaf), kTypeLeaf);
    Leaf* l = pool.at<Leaf>(leafOff);
    l->h = NodeHeader{kLeafKind, 1, 0};
    l->order[0] = 0;
    l->slot[0].pfx = k.pfx;
    l->slot[0].ent = ent;
    snapshotHeader(tx, map);
    h->root = leafOff;
    h->height = 1;
    h->count++;
    return;
  }
  leafInsert(tx, h, map, *loc, k.pfx, ent);
  snapshotHeader(tx, map);
  h->count++;
}

int nodeCount(const Pool& pool, uint64_t off) { return pool.at<NodeHeader>(off)->n; }

// Removes child i of an inner node with the separator that bounded it.
void removeChild(Tx& tx, uint64_t pOff, int i, bool freeSep) {
  Inner* p = tx.pool().at<Inner>(pOff);
  int n = p->h.n;
  tx.snapshot(pOff, sizeof(Inner));
  uint64_t gone;
  if (i == 0) {
    // Child 1 inherits child 0's lower bound: drop sep[1].
    gone = n > 1 ? p->sep[1] : 0;
    memmove(&p->child[0], &p->child[1], (n - 1) * sizeof(uint64_t));
    if (n > 2) {
      memmove(&p->sep[1], &p->sep[2], (n - 2) * sizeof(uint64_t));
      memmove(&p->pfx[1], &p->pfx[2], (n - 2) * sizeof(uint64_t));
    }
  } else {
    gone = p->sep[i];
    memmove(&p->child[i], &p->child[i + 1], (n - 1 - i) * sizeof(uint64_t));
    memmove(&p->sep[i], &p->sep[i + 1], (n - 1 - i) * sizeof(uint64_t));
    memmove(&p->pfx[i], &p->pfx[i + 1], (n - 1 - i) * sizeof(uint64_t));
  }
  p->h.n = static_cast<uint16_t>(n - 1);
  if (freeSep && gone) tx.free(gone);
}

void mergeLeaves(Tx& tx, uint64_t lOff, uint64_t rOff) {
  Pool& pool = tx.pool();
  Leaf* l = pool.at<Leaf>(lOff);
  const Leaf* r = pool.at<Leaf>(rOff);
  tx.touchLeaf(lOff, l);
  uint64_t used = usedSlots(l);
  for (int j = 0; j < r->h.n; j++) {
    int s = pickSlot(tx, lOff, used);
    const LeafSlot& from = slotAt(r, j);
    putSlot(tx, lOff, l, s, from.pfx, from.ent);
    used |= 1ull << s;
    l->order[l->h.n] = static_cast<uint8_t>(s);
    l->h.n++;
  }
}

// The parent's separator between the two moves down into the merged node.
void mergeInners(Tx& tx, uint64_t lOff, uint64_t rOff, uint64_t sepPfx, uint64_t sep) {
  Pool& pool = tx.pool();
  Inner* l = pool.at<Inner>(lOff);
  const Inner* r = pool.at<Inner>(rOff);
  tx.snapshot(lOff, sizeof(Inner));
  int ln = l->h.n;
  for (int j = 0; j < r->h.n; j++) {
    l->child[ln + j] = r->child[j];
    l->sep[ln + j] = j == 0 ? sep : r->sep[j];
    l->pfx[ln + j] = j == 0 ? sepPfx : r->pfx[j];
  }
  l->h.n = static_cast<uint16_t>(ln + r->h.n);
}

// After a removal from `node` (at path level+1): drop empty nodes, merge small neighbours,
// shrink the root. Nodes are never split back, so this only ever frees.
void rebalance(Tx& tx, MapHeader* h, uint64_t map, const Path& path, int level, uint64_t node, bool isLeaf) {
  Pool& pool = tx.pool();
  for (;;) {
    int n = nodeCount(pool, node);
    if (level < 0) {
      if (n == 0) {
        tx.free(node);
        snapshotHeader(tx, map);
        h->root = 0;
        h->height = 0;
        return;
      }
      while (!isLeaf && n == 1) {
        uint64_t only = pool.at<Inner>(node)->child[0];
        tx.free(node);
        snapshotHeader(tx, map);
        h->root = only;
        h->height--;
        node = only;
        isLeaf = h->height == 1;
        n = nodeCount(pool, node);
      }
      return;
    }
    if (n >= kMinFill) return;
    uint64_t pOff = path.node[level];
    const Inner* p = pool.at<Inner>(pOff);
    int ci = path.idx[level];
    if (n == 0) {
      removeChild(tx, pOff, ci, true);
      tx.free(node);
    } else {
      int cap = isLeaf ? kLeafCap : kInnerCap;
      int li = -1;
      if (ci > 0 && nodeCount(pool, p->child[ci - 1]) + n <= cap) li = ci - 1;
      else if (ci + 1 < p->h.n && n + nodeCount(pool, p->child[ci + 1]) <= cap) li = ci;
      if (li < 0) return;
      uint64_t lOff = p->child[li], rOff = p->child[li + 1];
      if (isLeaf) mergeLeaves(tx, lOff, rOff);
      else mergeInners(tx, lOff, rOff, p->pfx[li + 1], p->sep[li + 1]);
      removeChild(tx, pOff, li + 1, isLeaf);
      tx.free(rOff);
    }
    node = pOff;
    level--;
    isLeaf = false;
  }
}

void freeSubtree(Tx& tx, uint64_t node, uint32_t height) {
  const Pool& pool = tx.pool();
  if (height == 1) {
    const Leaf* l = leafAt(pool, node);
    for (int i = 0; i < l->h.n; i++) {
      uint64_t entOff = slotAt(l, i).ent;
      const Entry* e = pool.at<Entry>(entOff);
      if (e->child) freeMap(tx, e->child);
      tx.free(entOff);
    }
  } else {
    const Inner* in = innerAt(pool, node);
    for (int i = 0; i < in->h.n; i++) {
      freeSubtree(tx, in->child[i], height - 1);
      if (i > 0) tx.free(in->sep[i]);
    }
  }
  tx.free(node);
}

}  // namespace

MapHeader* mapHeader(const Pool& pool, uint64_t handle) {
  if ((handle & 7) != 0 || !pool.inBounds(handle, sizeof(MapHeader)) || pool.at<MapHeader>(handle)->magic != kMapMagic)
    throw PoolErr("NO_SUCH_MAP", "no map with handle " + std::to_string(handle));
  return pool.at<MapHeader>(handle);
}

uint64_t createMap(Tx& tx) {
  uint64_t off = tx.alloc(sizeof(MapHeader), kTypeMap);
  MapHeader* h = tx.pool().at<MapHeader>(off);
  h->magic = kMapMagic;
  h->count = 0;
  h->root = 0;
  h->height = 0;
  h->reserved = 0;
  return off;
}

const Entry* findEntry(const Pool& pool, uint64_t map, const uint8_t* key, uint32_t klen) {
  const MapHeader* h = mapHeader(pool, map);
  if (h->root == 0) return nullptr;
  if (h->height > kMaxHeight) tree::corrupt("tree too deep");
  Key k(key, klen);
  uint64_t node = h->root;
  for (uint32_t lvl = h->height; lvl > 1; lvl--) {
    const Inner* in = innerAt(pool, node);
    node = in->child[innerSearch(pool, in, k)];
    tree::prefetchNode(pool, node, lvl == 2);
  }
  const Leaf* l = leafAt(pool, node);
  int i = leafSearch(pool, l, k, false);
  if (i >= l->h.n || slotAt(l, i).pfx != k.pfx) return nullptr;
  const Entry* e = pool.at<Entry>(slotAt(l, i).ent);
  return tree::compareKeys(e->key(), e->klen, key, klen) == 0 ? e : nullptr;
}

void findEntries(const Pool& pool, uint64_t map, const tree::Key* keys, size_t n, const Entry** out) {
  const MapHeader* h = mapHeader(pool, map);
  if (h->root == 0) {
    for (size_t i = 0; i < n; i++) out[i] = nullptr;
    return;
  }
  if (h->height > kMaxHeight) tree::corrupt("tree too deep");
  // Level by level over a group: while one key's node is being fetched, the others' searches run.
  constexpr size_t kGroup = 16;
  uint64_t node[kGroup];
  for (size_t base = 0; base < n; base += kGroup) {
    size_t g = n - base < kGroup ? n - base : kGroup;
    for (size_t j = 0; j < g; j++) node[j] = h->root;
    for (uint32_t lvl = h->height; lvl > 1; lvl--) {
      for (size_t j = 0; j < g; j++) {
        const Inner* in = innerAt(pool, node[j]);
        node[j] = in->child[innerSearch(pool, in, keys[base + j])];
        tree::prefetchNode(pool, node[j], lvl == 2);
      }
    }
    // Leaves by prefix only (a full compare would stall on the entry blob): the one candidate's
    // blob is prefetched and compared in the next pass; a leaf holding several keys with this
    // prefix takes the ordinary search there.
    bool shared[kGroup];
    for (size_t j = 0; j < g; j++) {
      const uint64_t pfx = keys[base + j].pfx;
      const Leaf* l = leafAt(pool, node[j]);
      int lo = 0, hi = l->h.n;
      while (lo < hi) {
        int mid = (lo + hi) >> 1;
        if (slotAt(l, mid).pfx < pfx) lo = mid + 1;
        else hi = mid;
      }
      out[base + j] = nullptr;
      shared[j] = false;
      if (lo >= l->h.n || slotAt(l, lo).pfx != pfx) continue;
      shared[j] = lo + 1 < l->h.n && slotAt(l, lo + 1).pfx == pfx;
      out[base + j] = pool.at<Entry>(slotAt(l, lo).ent);
      __builtin_prefetch(out[base + j]);
    }
    for (size_t j = 0; j < g; j++) {
      const tree::Key& k = keys[base + j];
      if (shared[j]) {
        const Leaf* l = leafAt(pool, node[j]);
        int i = leafSearch(pool, l, k, false);
        out[base + j] = i < l->h.n ? pool.at<Entry>(slotAt(l, i).ent) : nullptr;
      }
      const Entry* e = out[base + j];
      if (e && tree::compareKeys(e->key(), e->klen, k.p, k.len) != 0) out[base + j] = nullptr;
    }
  }
}

namespace {

// mapPut and mapReserve: `value` null reserves vlen unwritten bytes.
void putEntry(Tx& tx, uint64_t map, const uint8_t* key, uint32_t klen, const uint8_t* value, uint32_t vlen) {
  Pool& pool = tx.pool();
  MapHeader* h = mapHeader(pool, map);
  Key k(key, klen);
  Location loc;
  if (h->root != 0) locate(pool, h, k, loc);
  auto fresh = [&]() {
    return value ? newEntry(tx, kTypeEntry, key, klen, value, vlen, 0) : newReservedEntry(tx, key, klen, vlen);
  };
  if (!loc.found) {
    insertNew(tx, h, map, k, &loc, fresh());
    return;
  }
  Leaf* l = pool.at<Leaf>(loc.leaf);
  uint64_t entOff = slotAt(l, loc.pos).ent;
  Entry* e = pool.at<Entry>(entOff);
  if (e->child) {
    freeMap(tx, e->child);
  } else {
    // Same-size-class overwrite in place: an undo-log copy of the value beats alloc + free (a reserved value
    // needs no copy of the old bytes: only the header changes).
    size_t usable = pmemobj_alloc_usable_size(PMEMoid{pool.uuidLo(), entOff});
    if (sizeof(Entry) + e->klen + vlen <= usable) {
      tx.snapshotPart(entOff, sizeof(Entry) + e->klen + (!value ? 0 : vlen > e->vlen ? vlen : e->vlen));
      e->vlen = vlen;
      if (vlen && value) memcpy(e->bytes() + e->klen, value, vlen);
      return;
    }
  }
  uint64_t replacement = fresh();
  tx.free(entOff);
  tx.touchLeaf(loc.leaf, l);
  if (l->h.n < kLeafCap) {
    // Point the entry at a free slot rather than logging the old one.
    int s = pickSlot(tx, loc.leaf, usedSlots(l));
    putSlot(tx, loc.leaf, l, s, k.pfx, replacement);
    l->order[loc.pos] = static_cast<uint8_t>(s);
  } else {
    int s = l->order[loc.pos];
    putSlot(tx, loc.leaf, l, s, k.pfx, replacement);
  }
}

}  // namespace

void mapPut(Tx& tx, uint64_t map, const uint8_t* key, uint32_t klen, const uint8_t* value, uint32_t vlen) {
  static const uint8_t kNoBytes = 0;
  putEntry(tx, map, key, klen, value ? value : &kNoBytes, vlen);
}

void mapReserve(Tx& tx, uint64_t map, const uint8_t* key, uint32_t klen, uint32_t vlen) {
  putEntry(tx, map, key, klen, nullptr, vlen);
}

void mapFill(Pool& pool, uint64_t map, const uint8_t* key, uint32_t klen, uint64_t offset, const uint8_t* src,
             uint64_t len) {
  const Entry* e = findEntry(pool, map, key, klen);
  if (!e) throw PoolErr("NOT_FOUND", "fill: no value under the key");
  if (e->child) throw PoolErr("NOT_A_VALUE", "fill: the key holds a map");
  if (offset > e->vlen || len > e->vlen - offset) throw PoolErr("BAD_ARGUMENT", "fill: past the end of the value");
  // Persisted like libpmemobj persists (cache-line flushes; a journaled pool records the range for the commit of
  // the transaction this runs in, addon.cc's fill): the bytes are durable before the commit that makes them
  // reachable.
  pmemobj_memcpy_persist(pool.pop(), const_cast<uint8_t*>(e->value()) + offset, src, len);
}

bool mapDel(Tx& tx, uint64_t map, const uint8_t* key, uint32_t klen) {
  Pool& pool = tx.pool();
  MapHeader* h = mapHeader(pool, map);
  if (h->root == 0) return false;
  Key k(key, klen);
  Location loc;
  locate(pool, h, k, loc);
  if (!loc.found) return false;
  Leaf* l = pool.at<Leaf>(loc.leaf);
  uint64_t entOff = slotAt(l, loc.pos).ent;
  const Entry* e = pool.at<Entry>(entOff);
  if (e->child) freeMap(tx, e->child);
  tx.free(entOff);
  tx.touchLeaf(loc.leaf, l);
  int n = l->h.n;
  memmove(&l->order[loc.pos], &l->order[loc.pos + 1], n - 1 - loc.pos);
  l->h.n = static_cast<uint16_t>(n - 1);
  snapshotHeader(tx, map);
  h->count--;
  rebalance(tx, h, map, loc.path, loc.path.depth - 1, loc.leaf, true);
  return true;
}

uint64_t mapEnsureChild(Tx& tx, uint64_t map, const uint8_t* key, uint32_t klen) {
  Pool& pool = tx.pool();
  MapHeader* h = mapHeader(pool, map);
  Key k(key, klen);
  Location loc;
  if (h->root != 0) locate(pool, h, k, loc);
  if (loc.found) {
    const Entry* e = pool.at<Entry>(slotAt(pool.at<Leaf>(loc.leaf), loc.pos).ent);
    if (!e->child) throw PoolErr("NOT_A_MAP", "key holds a value, not a child map");
    return e->child;
  }
  uint64_t child = createMap(tx);
  insertNew(tx, h, map, k, &loc, newEntry(tx, kTypeEntry, key, klen, nullptr, 0, child));
  return child;
}

void mapClear(Tx& tx, uint64_t map) {
  MapHeader* h = mapHeader(tx.pool(), map);
  if (h->root != 0) freeSubtree(tx, h->root, h->height);
  snapshotHeader(tx, map);
  h->root = 0;
  h->height = 0;
  h->count = 0;
}

void freeMap(Tx& tx, uint64_t map) {
  MapHeader* h;
  try {
    h = mapHeader(tx.pool(), map);
  } catch (const PoolErr&) {
    tree::corrupt("child entry names no map");
  }
  mapClear(tx, map);
  h->magic = 0;  // header already logged by mapClear
  tx.free(map);
}

}  // namespace pmemcql
