// Persistent structures of a pmemcql pool. Every byte here is on-media format: any change to a
// struct, a constant or a meaning bumps kLayoutVersion (see native/LAYOUT.md).
#pragma once

#include <cstddef>
#include <cstdint>

namespace pmemcql {

constexpr const char* kLayoutName = "pmemcql";
constexpr uint32_t kLayoutVersion = 1;

constexpr uint64_t kRootMagic = 0x314c51434d454d50ull;  // "PMEMCQL1" read as little-endian bytes
constexpr uint64_t kMapMagic = 0x3150414d4c514350ull;   // "PCQLMAP1"
constexpr uint32_t kLeafKind = 0x4641454cu;             // "LEAF"
constexpr uint32_t kInnerKind = 0x524e4e49u;            // "INNR"

// Fanout: a leaf is ~1 KiB, so the undo-log snapshot of a touched leaf stays small while a
// binary search over its prefixes still touches only a few cache lines.
constexpr int kLeafCap = 64;
constexpr int kInnerCap = 64;
// Below this many entries a node tries to merge with a neighbour.
constexpr int kMinFill = 16;
// Deeper than this can only be corruption (64-way nodes; 2^53 bytes of pool).
constexpr int kMaxHeight = 24;

// libpmemobj type numbers, so `pmempool info -O` can tell objects apart.
enum TypeNum : uint64_t {
  kTypeMap = 2,
  kTypeLeaf = 3,
  kTypeInner = 4,
  kTypeEntry = 5,
  kTypeSepKey = 6,
};

// The pmemobj root object.
struct PoolRoot {
  uint64_t magic;            // kRootMagic once initialised; 0 while a create was interrupted
  uint32_t layout_version;   // kLayoutVersion of the build that created the pool
  uint16_t leaf_cap;         // tree geometry, checked on open
  uint16_t inner_cap;
  uint64_t root_map;         // offset of the root MapHeader
  uint64_t reserved[5];      // journaled pools (LAYOUT.md): [0] commit sequence, [1..2] boot id of the last
                             // writer, [3] pool id; [4] zero, room for a later field without resizing the root
};
// Slots of PoolRoot::reserved that journaled pools use (zero in other pools).
constexpr int kRootSeqSlot = 0;
constexpr int kRootBootSlot = 1;  // and 2
constexpr int kRootPoolIdSlot = 3;
static_assert(sizeof(PoolRoot) == 64, "PoolRoot layout");
static_assert(offsetof(PoolRoot, layout_version) == 8, "PoolRoot layout");
static_assert(offsetof(PoolRoot, root_map) == 16, "PoolRoot layout");

// One ordered map; its offset is the map handle.
struct MapHeader {
  uint64_t magic;   // kMapMagic; zeroed when the map is freed so stale handles are refused
  uint64_t count;   // number of entries (values and children)
  uint64_t root;    // offset of the root node; 0 when empty
  uint32_t height;  // 0 when empty, 1 when the root is a leaf
  uint32_t reserved;
};
static_assert(sizeof(MapHeader) == 32, "MapHeader layout");
static_assert(offsetof(MapHeader, count) == 8, "MapHeader layout");
static_assert(offsetof(MapHeader, root) == 16, "MapHeader layout");
static_assert(offsetof(MapHeader, height) == 24, "MapHeader layout");

struct NodeHeader {
  uint32_t kind;  // kLeafKind or kInnerKind
  uint16_t n;     // leaf: entries; inner: children
  uint16_t reserved;
};
static_assert(sizeof(NodeHeader) == 8, "NodeHeader layout");

// A leaf keeps its entries in unordered slots and their key order in `order` (one byte per
// entry): an insert writes a slot that was free when the transaction began (no undo copy
// needed) and changes only the 72-byte header+order, so a touched leaf costs a 72-byte
// undo-log snapshot instead of a whole-node copy (the write-optimised idea of wB+-trees).
// pfx = first 8 key bytes, big-endian, zero-padded: comparing prefixes as integers orders
// keys like memcmp does, so most comparisons never load the entry blob.
struct LeafSlot {
  uint64_t pfx;
  uint64_t ent;  // offset of the Entry blob
};
static_assert(sizeof(LeafSlot) == 16, "LeafSlot layout");

struct Leaf {
  NodeHeader h;                // n = live entries
  uint8_t order[kLeafCap];     // order[0..n): slot numbers in ascending key order
  LeafSlot slot[kLeafCap];     // slots not named in order[0..n) are free (content undefined)
};
constexpr size_t kLeafOrderBytes = offsetof(Leaf, slot);  // the part logged on first touch
static_assert(sizeof(Leaf) == 8 + kLeafCap + 16 * kLeafCap, "Leaf layout");
static_assert(offsetof(Leaf, order) == 8, "Leaf layout");
static_assert(offsetof(Leaf, slot) == 72, "Leaf layout");
static_assert(kLeafCap <= 64, "free-slot masks are 64-bit");

// child[i] holds keys k with sep[i] <= k < sep[i+1]; slot 0 of pfx/sep is unused.
struct Inner {
  NodeHeader h;
  uint64_t pfx[kInnerCap];
  uint64_t sep[kInnerCap];  // offsets of separator key blobs (Entry with vlen 0, child 0)
  uint64_t child[kInnerCap];
};
static_assert(sizeof(Inner) == 8 + 24 * kInnerCap, "Inner layout");
static_assert(offsetof(Inner, sep) == 8 + 8 * kInnerCap, "Inner layout");
static_assert(offsetof(Inner, child) == 8 + 16 * kInnerCap, "Inner layout");

// Key + value blob (also used, value-less, for separator keys). Followed by key then value bytes.
struct Entry {
  uint32_t klen;
  uint32_t vlen;
  uint64_t child;  // offset of a child MapHeader when the entry holds a map (then vlen = 0)

  const uint8_t* key() const { return reinterpret_cast<const uint8_t*>(this + 1); }
  const uint8_t* value() const { return key() + klen; }
  uint8_t* bytes() { return reinterpret_cast<uint8_t*>(this + 1); }
};
static_assert(sizeof(Entry) == 16, "Entry layout");

}  // namespace pmemcql
