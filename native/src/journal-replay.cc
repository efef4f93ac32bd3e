#include "journal-replay.h"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>

#include "pool-error.h"

namespace pmemcql {

namespace {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kLine = 64;
constexpr size_t kSlabPages = 512;                           // 2 MiB per allocation
constexpr size_t kOverlayBudgetPages = (256u << 20) / kPage;  // 256 MiB of pages, then written out
constexpr size_t kSpareSlabs = 32;                             // 64 MiB kept for the thread's next replay

// Slabs of this thread's finished replays: fresh memory would cost the next checkpoint a page fault per page of
// overlay (on this project's VM the largest part of a checkpoint's CPU).
thread_local std::vector<std::unique_ptr<char[]>> spareSlabs;

uint64_t lineBits(uint64_t from, uint64_t to) {  // lines [from, to) of a page, to <= 64
  return (to >= 64 ? ~0ull : (1ull << to) - 1) & ~((1ull << from) - 1);
}

}  // namespace

JournalReplay::JournalReplay(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}

JournalReplay::Page& JournalReplay::page(uint64_t index) {
  auto it = pages_.find(index);
  if (it != pages_.end()) return it->second;
  if (slabs_.empty() || slabUsed_ == kSlabPages) {
    if (!spareSlabs.empty()) {
      slabs_.push_back(std::move(spareSlabs.back()));
      spareSlabs.pop_back();
    } else {
      slabs_.emplace_back(new char[kSlabPages * kPage]);
    }
    slabUsed_ = 0;
  }
  char* bytes = slabs_.back().get() + slabUsed_++ * kPage;
  return pages_.emplace(index, Page{bytes, 0, false}).first->second;
}

// The file's page under what was replayed so far (a range that covers part of a line needs the rest of it).
void JournalReplay::load(uint64_t index, Page& p) {
  char buf[kPage];
  memset(buf, 0, sizeof buf);  // past the end of the file: zeros
  size_t got = 0;
  while (got < kPage) {
    ssize_t r = pread(fd_, buf + got, kPage - got, static_cast<off_t>(index * kPage + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw PoolErr("POOL_IO", "read of " + name_ + " failed: " + strerror(errno));
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  for (uint64_t l = 0; l < kPage / kLine; l++)
    if (!((p.lines >> l) & 1)) memcpy(p.bytes + l * kLine, buf + l * kLine, kLine);
  p.lines = ~0ull;
  p.loaded = true;
}

void JournalReplay::apply(const std::vector<RecordRange>& ranges) {
  for (const RecordRange& r : ranges) {
    uint64_t off = r.offset;
    const char* src = r.bytes;
    uint64_t left = r.length;
    while (left > 0) {
      const uint64_t in = off % kPage, n = std::min(left, kPage - in);
      Page& p = page(off / kPage);
      if (!p.loaded && ((in % kLine) != 0 || ((in + n) % kLine) != 0)) load(off / kPage, p);
      memcpy(p.bytes + in, src, n);
      p.lines |= lineBits(in / kLine, (in + n + kLine - 1) / kLine);
      off += n;
      src += n;
      left -= n;
    }
  }
  if (pages_.size() >= kOverlayBudgetPages) flush();
}

void JournalReplay::flush() {
  std::vector<uint64_t> order;
  order.reserve(pages_.size());
  for (const auto& [index, page] : pages_) order.push_back(index);
  std::sort(order.begin(), order.end());
  // Runs of adjacent marked lines (across pages too) become one iovec each; up to IOV_MAX per pwritev.
  std::vector<iovec> iov;
  uint64_t runStart = 0, runEnd = 0;  // file offsets of the pending pwritev
  auto write = [&]() {
    size_t k = 0;
    uint64_t at = runStart;
    while (k < iov.size()) {
      ssize_t w = pwritev(fd_, iov.data() + k, static_cast<int>(std::min<size_t>(iov.size() - k, IOV_MAX)),
                          static_cast<off_t>(at));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) throw PoolErr("POOL_IO", "write to " + name_ + " failed: " + strerror(errno));
      size_t done = static_cast<size_t>(w);
      at += done;
      while (k < iov.size() && done >= iov[k].iov_len) {
        done -= iov[k].iov_len;
        k++;
      }
      if (done > 0) {
        iov[k].iov_base = static_cast<char*>(iov[k].iov_base) + done;
        iov[k].iov_len -= done;
      }
    }
    iov.clear();
  };
  for (uint64_t index : order) {
    const Page& p = pages_[index];
    for (uint64_t l = 0; l < kPage / kLine;) {
      if (!((p.lines >> l) & 1)) {
        l++;
        continue;
      }
      uint64_t e = l;
      while (e < kPage / kLine && ((p.lines >> e) & 1)) e++;
      const uint64_t from = index * kPage + l * kLine, len = (e - l) * kLine;
      if (!iov.empty() && (from != runEnd || iov.size() == IOV_MAX)) write();
      if (iov.empty()) runStart = runEnd = from;
      iov.push_back(iovec{p.bytes + l * kLine, len});
      runEnd += len;
      l = e;
    }
  }
  if (!iov.empty()) write();
  pages_.clear();
  for (auto& slab : slabs_)
    if (spareSlabs.size() < kSpareSlabs) spareSlabs.push_back(std::move(slab));
  slabs_.clear();
  slabUsed_ = 0;
}

void JournalReplay::releaseSpareSlabs() { spareSlabs.clear(); }

}  // namespace pmemcql
