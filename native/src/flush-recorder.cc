// libpmemobj imports pmem_flush, pmem_persist, pmem_memcpy, ... from libpmem. The addon defines
// those symbols itself: libpmemobj is loaded as the addon's dependency, so its imports resolve
// to these definitions first. Each one records the range (when the process journals its disk pools)
// and forwards to libpmem's own function, found with dlsym(RTLD_NEXT).
//
// In pmem mode libpmemobj flushes every byte it needs persistent, so "the ranges flushed since
// the last journal record, with their current contents" is a state real pmem could hold after a
// crash at this point (unflushed stores may or may not have reached the media). Ranges are
// widened to whole cache lines, which is what a flush persists on pmem too.
//
// Single-threaded by design: libpmemobj is called on the JS thread only (the addon's own threads sync, checkpoint
// and prefault with plain system calls, never through libpmem).
#include "flush-recorder.h"

#include <dlfcn.h>
#include <libpmem.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace pmemcql {
namespace flush_recorder {
namespace {

bool gEnabled = false;
uint64_t gRecorded = 0;
std::vector<std::pair<uintptr_t, uintptr_t>> gRanges;  // [start, end) addresses, cache-line aligned

constexpr uintptr_t kLine = 64;

inline void record(const void* addr, size_t len) {
  if (!gEnabled || len == 0) return;
  gRecorded++;
  uintptr_t a = reinterpret_cast<uintptr_t>(addr);
  uintptr_t start = a & ~(kLine - 1);
  uintptr_t end = (a + len + kLine - 1) & ~(kLine - 1);
  // Consecutive flushes of neighbouring lines are common (a log written front to back).
  if (!gRanges.empty() && gRanges.back().second == start) {
    gRanges.back().second = end;
    return;
  }
  gRanges.emplace_back(start, end);
}

template <class Fn>
Fn libpmemFunction(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (!f) {
    // Without libpmem's function nothing can be flushed: continuing would lose data silently.
    fprintf(stderr, "pmemcql: dlsym(RTLD_NEXT, %s) failed: %s\n", name, dlerror());
    abort();
  }
  return reinterpret_cast<Fn>(f);
}

}  // namespace

void enable() { gEnabled = true; }
bool enabled() { return gEnabled; }
uint64_t recordedCount() { return gRecorded; }

void mergeRanges(std::vector<ByteRange>& r) {
  if (r.empty()) return;
  std::sort(r.begin(), r.end(), [](const ByteRange& a, const ByteRange& b) { return a.off < b.off; });
  size_t w = 0;
  for (size_t i = 1; i < r.size(); i++) {
    uint64_t end = r[w].off + r[w].len;
    if (r[i].off <= end) {
      uint64_t e2 = r[i].off + r[i].len;
      if (e2 > end) r[w].len = e2 - r[w].off;
    } else {
      r[++w] = r[i];
    }
  }
  r.resize(w + 1);
}

void takeRanges(const char* base, uint64_t size, std::vector<ByteRange>& out) {
  uintptr_t lo = reinterpret_cast<uintptr_t>(base), hi = lo + size;
  size_t keep = 0;
  for (auto& r : gRanges) {
    uintptr_t s = std::max(r.first, lo), e = std::min(r.second, hi);
    if (s < e) out.push_back(ByteRange{s - lo, e - s});
    // Parts outside this pool (another open pool's) stay recorded.
    if (r.first < lo || r.second > hi) gRanges[keep++] = r;
  }
  gRanges.resize(keep);
  mergeRanges(out);
}

void dropRanges(const char* base, uint64_t size) {
  uintptr_t lo = reinterpret_cast<uintptr_t>(base), hi = lo + size;
  size_t keep = 0;
  for (auto& r : gRanges)
    if (r.second <= lo || r.first >= hi) gRanges[keep++] = r;
  gRanges.resize(keep);
}

}  // namespace flush_recorder
}  // namespace pmemcql

using pmemcql::flush_recorder::libpmemFunction;
using pmemcql::flush_recorder::record;

// The libpmem entry points libpmemobj imports that write or persist pool memory
// (`nm -D --undefined-only libpmemobj.so.1`); signatures from <libpmem.h>.
extern "C" {

void pmem_flush(const void* addr, size_t len) {
  static auto real = libpmemFunction<void (*)(const void*, size_t)>("pmem_flush");
  record(addr, len);
  real(addr, len);
}

void pmem_persist(const void* addr, size_t len) {
  static auto real = libpmemFunction<void (*)(const void*, size_t)>("pmem_persist");
  record(addr, len);
  real(addr, len);
}

void pmem_deep_flush(const void* addr, size_t len) {
  static auto real = libpmemFunction<void (*)(const void*, size_t)>("pmem_deep_flush");
  record(addr, len);
  real(addr, len);
}

int pmem_msync(const void* addr, size_t len) {
  static auto real = libpmemFunction<int (*)(const void*, size_t)>("pmem_msync");
  record(addr, len);
  return real(addr, len);
}

void* pmem_memcpy(void* dest, const void* src, size_t len, unsigned flags) {
  static auto real = libpmemFunction<void* (*)(void*, const void*, size_t, unsigned)>("pmem_memcpy");
  record(dest, len);
  return real(dest, src, len, flags);
}

void* pmem_memmove(void* dest, const void* src, size_t len, unsigned flags) {
  static auto real = libpmemFunction<void* (*)(void*, const void*, size_t, unsigned)>("pmem_memmove");
  record(dest, len);
  return real(dest, src, len, flags);
}

void* pmem_memset(void* dest, int c, size_t len, unsigned flags) {
  static auto real = libpmemFunction<void* (*)(void*, int, size_t, unsigned)>("pmem_memset");
  record(dest, len);
  return real(dest, c, len, flags);
}

}  // extern "C"
