// Maps the pool's pages into the process ahead of the allocator, from a background thread, so that the event
// loop's writes do not take the page faults (docs/storage-native.md, "Prefault").
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace pmemcql {

class PoolPrefault {
 public:
  /**
   * Starts the thread: it keeps [0, target) of the mapping at `base` populated, where target follows
   * `used()` (the allocator's bytes in use) plus a margin, capped at `size`. `idle`: under SCHED_IDLE.
   * `forWriting`: pages are populated as a write would fault them (tmpfs, pmem); else as a read would (a
   * file in the page cache, where a write fault marks the page dirty and the kernel would write it back
   * unchanged).
   */
  PoolPrefault(char* base, uint64_t size, std::function<uint64_t()> used, bool idle, bool forWriting);
  /** Stops and joins the thread (before the pool is unmapped). */
  ~PoolPrefault();
  PoolPrefault(const PoolPrefault&) = delete;
  PoolPrefault& operator=(const PoolPrefault&) = delete;

  /** Bytes from the start of the mapping populated so far. */
  uint64_t mapped() const { return mapped_.load(std::memory_order_relaxed); }
  /** The kernel refused (MADV_POPULATE_WRITE needs Linux 5.14): the thread has stopped. */
  bool refused() const { return refused_.load(std::memory_order_relaxed); }
  /** Where the thread populates to for `used` bytes in use. */
  static uint64_t targetFor(uint64_t used, uint64_t size);

 private:
  void run();

  char* base_;
  uint64_t size_;
  std::function<uint64_t()> used_;
  bool idle_;
  bool forWriting_;
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::atomic<uint64_t> mapped_{0};
  std::atomic<bool> refused_{false};
  std::thread thread_;
};

}  // namespace pmemcql
