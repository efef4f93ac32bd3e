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
constexpr size_t kOverlayBudgetPages = (64u << 20) / kPage;  // 64 MiB of patched pages, then written out

}  // namespace

JournalReplay::JournalReplay(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}

char* JournalReplay::page(uint64_t index) {
  auto it = pages_.find(index);
  if (it != pages_.end()) return it->second.get();
  std::unique_ptr<char[]> p(new char[kPage]);
  // A page past the end of the file reads short: the rest stays zero.
  memset(p.get(), 0, kPage);
  size_t got = 0;
  while (got < kPage) {
    ssize_t r = pread(fd_, p.get() + got, kPage - got, static_cast<off_t>(index * kPage + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw PoolErr("POOL_IO", "read of " + name_ + " failed: " + strerror(errno));
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  char* raw = p.get();
  pages_.emplace(index, std::move(p));
  return raw;
}

void JournalReplay::apply(const std::vector<RecordRange>& ranges) {
  for (const RecordRange& r : ranges) {
    uint64_t off = r.offset;
    const char* src = r.bytes;
    uint64_t left = r.length;
    while (left > 0) {
      uint64_t in = off % kPage, n = std::min(left, kPage - in);
      memcpy(page(off / kPage) + in, src, n);
      off += n;
      src += n;
      left -= n;
    }
    ranges_++;
  }
  if (pages_.size() >= kOverlayBudgetPages) flush();
}

void JournalReplay::flush() {
  std::vector<uint64_t> order;
  order.reserve(pages_.size());
  for (const auto& [index, bytes] : pages_) order.push_back(index);
  std::sort(order.begin(), order.end());
  // Runs of consecutive pages go out in one pwritev each (up to IOV_MAX pages).
  std::vector<iovec> iov;
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    iov.clear();
    while (j < order.size() && order[j] == order[i] + (j - i) && iov.size() < IOV_MAX) {
      iov.push_back(iovec{pages_[order[j]].get(), kPage});
      j++;
    }
    uint64_t at = order[i] * kPage;
    size_t k = 0;
    while (k < iov.size()) {
      ssize_t w = pwritev(fd_, iov.data() + k, static_cast<int>(iov.size() - k), static_cast<off_t>(at));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) throw PoolErr("POOL_IO", "write to " + name_ + " failed: " + strerror(errno));
      // Whole pages only in practice; a short write is finished page by page.
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
    i = j;
  }
  pages_.clear();
}

}  // namespace pmemcql
