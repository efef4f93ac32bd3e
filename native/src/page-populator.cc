// The twin's record slabs are fresh memory: the event loop's first write to each page of one is a page fault, ~15 µs
// on this project's VM, and they were ~90 % of the event loop's faults at 20 000 INSERTs/s. The record arena
// allocates its next slab ahead and hands it here, so that those faults happen on this thread instead
// (docs/arrow-twins.md, "The flush thread"). madvise(MADV_POPULATE_WRITE) maps the pages without touching their
// bytes, so a range that is written, or freed and reused, meanwhile comes to no harm: at worst the call fails.

#include "page-populator.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

#include "thread-scheduling.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace pmemcql {

namespace {

// Slabs come a few a second; more than this waiting means the thread gets no CPU: drop the oldest.
constexpr size_t kMaxQueued = 16;

struct Populator {
  std::mutex m;
  std::condition_variable cv;
  std::deque<std::pair<uintptr_t, size_t>> queue;
  bool started = false;

  void run(bool idle) {
    if (idle) setIdleSchedulingOfThisThread();
    std::unique_lock<std::mutex> lock(m);
    for (;;) {
      cv.wait(lock, [this] { return !queue.empty(); });
      auto [at, len] = queue.front();
      queue.pop_front();
      lock.unlock();
      populateNow(reinterpret_cast<void*>(at), len);
      lock.lock();
    }
  }
};

Populator& populator() {
  static Populator* p = new Populator();  // never destroyed: its thread runs until the process exits
  return *p;
}

}  // namespace

int populateNow(void* data, size_t len) {
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t at = reinterpret_cast<uintptr_t>(data);
  uintptr_t from = at / page * page;
  uintptr_t to = (at + len + page - 1) / page * page;
  return madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE) == 0 ? 0 : errno;
}

void populateLater(void* data, size_t len, bool idle) {
  if (data == nullptr || len == 0) return;
  Populator& p = populator();
  {
    std::lock_guard<std::mutex> g(p.m);
    if (!p.started) {
      p.started = true;
      std::thread([&p, idle] { p.run(idle); }).detach();
    }
    if (p.queue.size() >= kMaxQueued) p.queue.pop_front();
    p.queue.emplace_back(reinterpret_cast<uintptr_t>(data), len);
  }
  p.cv.notify_one();
}

}  // namespace pmemcql
