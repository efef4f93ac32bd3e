#include "write-batch.h"

#include <cmath>
#include <cstring>
#include <string>

#include "pmem-map.h"

namespace pmemcql {

namespace {

[[noreturn]] void malformed(const char* what) { throw PoolErr("BAD_BATCH", std::string("malformed batch: ") + what); }

class Reader {
 public:
  Reader(const uint8_t* p, size_t len) : p_(p), end_(p + len) {}
  bool done() const { return p_ == end_; }
  uint8_t u8() {
    need(1);
    return *p_++;
  }
  uint32_t u32() {
    need(4);
    uint32_t v;
    memcpy(&v, p_, 4);
    p_ += 4;
    return v;
  }
  double f64() {
    need(8);
    double v;
    memcpy(&v, p_, 8);
    p_ += 8;
    return v;
  }
  const uint8_t* bytes(uint32_t n) {
    need(n);
    const uint8_t* at = p_;
    p_ += n;
    return at;
  }

 private:
  void need(size_t n) {
    if (static_cast<size_t>(end_ - p_) < n) malformed("truncated");
  }
  const uint8_t* p_;
  const uint8_t* end_;
};

}  // namespace

void applyBatch(Pool& pool, const uint8_t* data, size_t len, uint32_t opCount, std::vector<uint64_t>& created) {
  created.clear();
  if (opCount == 0) return;
  // Handle produced by each op (ensureChild only), for later ops that name it by index.
  std::vector<uint64_t> byOp(opCount, 0);
  Tx tx(pool);
  tx.run([&] {
    Reader r(data, len);
    uint32_t i = 0;
    try {
    for (; i < opCount; i++) {
      uint8_t op = r.u8();
      uint8_t kind = r.u8();
      double target = r.f64();
      if (!(target >= 0 && target <= 9007199254740992.0) || std::floor(target) != target) malformed("bad map target");
      uint64_t map;
      if (kind == 0) {
        map = static_cast<uint64_t>(target);
      } else if (kind == 1) {
        uint64_t ref = static_cast<uint64_t>(target);
        if (ref >= i || byOp[ref] == 0) malformed("child reference to an op that is not an earlier ensureChild");
        map = byOp[ref];
      } else {
        malformed("bad target kind");
      }
      if (op == kOpClear) {
        mapClear(tx, map);
        continue;
      }
      uint32_t klen = r.u32();
      const uint8_t* key = r.bytes(klen);
      switch (op) {
        case kOpPut: {
          uint32_t vlen = r.u32();
          const uint8_t* value = r.bytes(vlen);
          mapPut(tx, map, key, klen, value, vlen);
          break;
        }
        case kOpReserve:
          mapReserve(tx, map, key, klen, r.u32());
          break;
        case kOpDel:
        case kOpDropChild:
          mapDel(tx, map, key, klen);
          break;
        case kOpEnsureChild: {
          uint64_t child = mapEnsureChild(tx, map, key, klen);
          byOp[i] = child;
          created.push_back(child);
          break;
        }
        default:
          malformed("unknown opcode");
      }
    }
    } catch (PoolErr& e) {
      if (e.code != "POOL_FULL") e.message += " (batch op " + std::to_string(i) + ")";
      throw;
    }
    if (!r.done()) malformed("trailing bytes");
  });
}

}  // namespace pmemcql
