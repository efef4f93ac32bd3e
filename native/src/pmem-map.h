// The one persistent ordered map: a B+tree of byte keys (memcmp order, shorter prefix first)
// whose entries hold a byte value or a child map. Every level of the database uses it.
#pragma once

#include <cstdint>

#include "layout.h"
#include "pmem-pool.h"

namespace pmemcql {

/** The header of map `handle`, or NO_SUCH_MAP. */
MapHeader* mapHeader(const Pool& pool, uint64_t handle);

/** A new empty map inside the running transaction; returns its handle. */
uint64_t createMap(Tx& tx);

/** The entry stored under `key`, or nullptr. Read-only; no transaction needed. */
const Entry* findEntry(const Pool& pool, uint64_t map, const uint8_t* key, uint32_t klen);

namespace tree {
struct Key;
}

/** findEntry for n keys at once (out[i] for keys[i]); their tree descents are interleaved so the
 *  cache misses of different keys overlap. */
void findEntries(const Pool& pool, uint64_t map, const tree::Key* keys, size_t n, const Entry** out);

/** Inserts or replaces a value. A child map previously under `key` is freed recursively. */
void mapPut(Tx& tx, uint64_t map, const uint8_t* key, uint32_t klen, const uint8_t* value, uint32_t vlen);

/**
 * mapPut of a value of `vlen` bytes left unwritten (and not flushed at commit): the caller fills it in with
 * mapFill, each slice persisted on its own, before anything refers to it (docs/storage-native.md).
 */
void mapReserve(Tx& tx, uint64_t map, const uint8_t* key, uint32_t klen, uint32_t vlen);

/** Copies `len` bytes into the value under `key` at `offset` and persists them (not logged: no undo copy). */
void mapFill(Pool& pool, uint64_t map, const uint8_t* key, uint32_t klen, uint64_t offset, const uint8_t* src,
             uint64_t len);

/** Removes `key` (freeing a child map recursively); false when it was absent. */
bool mapDel(Tx& tx, uint64_t map, const uint8_t* key, uint32_t klen);

/** The child map under `key`, created when absent; NOT_A_MAP when `key` holds a value. */
uint64_t mapEnsureChild(Tx& tx, uint64_t map, const uint8_t* key, uint32_t klen);

/** Removes every entry (freeing children recursively); the map itself stays. */
void mapClear(Tx& tx, uint64_t map);

/** Frees a map, everything below it and its header. */
void freeMap(Tx& tx, uint64_t map);

// Shared with the cursor.
namespace tree {

inline uint64_t prefixOf(const uint8_t* k, uint32_t len) {
  if (len >= 8) {
    uint64_t v;
    __builtin_memcpy(&v, k, 8);
    return __builtin_bswap64(v);
  }
  uint64_t v = 0;
  for (uint32_t i = 0; i < len; i++) v |= static_cast<uint64_t>(k[i]) << (56 - 8 * i);
  return v;
}

inline int compareKeys(const uint8_t* a, uint32_t al, const uint8_t* b, uint32_t bl) {
  uint32_t n = al < bl ? al : bl;
  int c = n ? __builtin_memcmp(a, b, n) : 0;
  if (c != 0) return c;
  return al < bl ? -1 : (al > bl ? 1 : 0);
}

struct Key {
  const uint8_t* p;
  uint32_t len;
  uint64_t pfx;
  Key(const uint8_t* key, uint32_t klen) : p(key), len(klen), pfx(prefixOf(key, klen)) {}
};

[[noreturn]] void corrupt(const char* what);

inline const Leaf* leafAt(const Pool& pool, uint64_t off) {
  if (!pool.inBounds(off, sizeof(Leaf))) corrupt("leaf offset out of bounds");
  const Leaf* l = pool.at<Leaf>(off);
  if (l->h.kind != kLeafKind || l->h.n > kLeafCap) corrupt("bad leaf node");
  return l;
}

inline const Inner* innerAt(const Pool& pool, uint64_t off) {
  if (!pool.inBounds(off, sizeof(Inner))) corrupt("inner offset out of bounds");
  const Inner* in = pool.at<Inner>(off);
  if (in->h.kind != kInnerKind || in->h.n > kInnerCap) corrupt("bad inner node");
  return in;
}

// A binary search makes ~6 dependent cache misses per node; asking for all of the node's
// search lines at once lets the memory system fetch them in parallel.
inline void prefetchNode(const Pool& pool, uint64_t off, bool leaf) {
  const char* p = pool.at<char>(off);
  if (leaf) {
    for (size_t i = 0; i < sizeof(Leaf); i += 64) __builtin_prefetch(p + i);
    return;
  }
  for (size_t i = 0; i < offsetof(Inner, sep); i += 64) __builtin_prefetch(p + i);
}

/** Compares a stored key (prefix + blob) with `k`; the blob is read only on a prefix tie. */
inline int compareStored(const Pool& pool, uint64_t pfx, uint64_t blob, const Key& k) {
  if (pfx != k.pfx) return pfx < k.pfx ? -1 : 1;
  const Entry* e = pool.at<Entry>(blob);
  return compareKeys(e->key(), e->klen, k.p, k.len);
}

inline const LeafSlot& slotAt(const Leaf* l, int i) { return l->slot[l->order[i]]; }

/** First index (in key order) whose key is >= k (or > k when `after`). */
inline int leafSearch(const Pool& pool, const Leaf* l, const Key& k, bool after) {
  int lo = 0, hi = l->h.n;
  while (lo < hi) {
    int mid = (lo + hi) >> 1;
    const LeafSlot& s = slotAt(l, mid);
    int c = compareStored(pool, s.pfx, s.ent, k);
    if (c < 0 || (after && c == 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index of the child whose range holds k: the last i with sep[i] <= k (0 when none). */
inline int innerSearch(const Pool& pool, const Inner* in, const Key& k) {
  int lo = 1, hi = in->h.n;
  while (lo < hi) {
    int mid = (lo + hi) >> 1;
    if (compareStored(pool, in->pfx[mid], in->sep[mid], k) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

}  // namespace tree
}  // namespace pmemcql
