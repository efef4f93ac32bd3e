#include "pool-prefault.h"

#include <algorithm>
#include <cerrno>
#include <chrono>

#include <sys/mman.h>
#include <pthread.h>
#include <unistd.h>

#include "page-populator.h"
#include "thread-scheduling.h"

namespace pmemcql {

namespace {
// The allocator fills the heap from its start (docs/storage-native.md): what is in use, a quarter more for its
// spread, and room for a few seconds of writes and a twin segment or two.
constexpr uint64_t kMargin = 64ull << 20;
// One madvise call: short, so that close() does not wait long for the thread.
constexpr uint64_t kStep = 2ull << 20;
// How often the thread looks at the allocator when it has nothing to do.
constexpr auto kPoll = std::chrono::milliseconds(500);

// One load per page, from this thread: on a guest whose hypervisor shadows its page tables (this project's PVM VM),
// a page the kernel populated still costs its first user-space access an exit to the hypervisor (~5 µs, not
// counted as a page fault), and a twin segment's 10 MB copy paid that ~2 500 times on the event loop. The shadow
// entries are the process's, so this thread's loads create them for every thread. The pool stays mapped while the
// thread runs (it is joined before the unmap), and the bytes are only read.
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

// Maps [data, data+len) (page-aligned) readable without changing or dirtying anything (Linux 5.14+).
int populateForReading(char* data, uint64_t len) {
  return madvise(data, len, MADV_POPULATE_READ) == 0 ? 0 : errno;
}

void touchPages(const char* from, uint64_t len) {
  static const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  for (uint64_t at = 0; at < len; at += page) (void)*static_cast<const volatile char*>(from + at);
}

}  // namespace

uint64_t PoolPrefault::targetFor(uint64_t used, uint64_t size) {
  uint64_t t = used + used / 4 + kMargin;
  if (t < used || t > size) return size;
  // Whole steps: each call starts where the last ended, and madvise wants page-aligned starts.
  return std::min(size, (t + kStep - 1) / kStep * kStep);
}

PoolPrefault::PoolPrefault(char* base, uint64_t size, std::function<uint64_t()> used, bool idle, bool forWriting)
    : base_(base), size_(size), used_(std::move(used)), idle_(idle), forWriting_(forWriting), thread_([this] { run(); }) {}

PoolPrefault::~PoolPrefault() {
  {
    std::lock_guard<std::mutex> g(m_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void PoolPrefault::run() {
  pthread_setname_np(pthread_self(), "pool-prefault");  // how /proc and the tests tell it apart
  if (idle_) setIdleSchedulingOfThisThread();
  std::unique_lock<std::mutex> lock(m_);
  while (!stop_) {
    uint64_t done = mapped_.load(std::memory_order_relaxed);
    uint64_t target = targetFor(used_(), size_);
    if (done >= target) {
      cv_.wait_for(lock, kPoll, [this] { return stop_; });
      continue;
    }
    uint64_t end = std::min(target, done + kStep);
    lock.unlock();
    // Populating faults the pages in as writes would (the mapping's data is not touched); concurrent
    // transactions are unaffected.
    int e = forWriting_ ? populateNow(base_ + done, end - done) : populateForReading(base_ + done, end - done);
    if (e == 0) touchPages(base_ + done, end - done);
    lock.lock();
    if (e != 0 && e != EINTR && e != EAGAIN) {
      refused_.store(true, std::memory_order_relaxed);
      return;
    }
    if (e == 0) mapped_.store(end, std::memory_order_relaxed);
  }
}

}  // namespace pmemcql
