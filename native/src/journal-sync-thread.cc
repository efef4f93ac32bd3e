#include "journal-sync-thread.h"

#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "journal-paths.h"
#include "journal-sync-log.h"

namespace pmemcql {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

}  // namespace

JournalSyncThread::JournalSyncThread(JournalState& state, CommitLogPolicy policy) : s_(state), policy_(policy) {
  thread_ = std::thread([this] { run(); });
}

JournalSyncThread::~JournalSyncThread() {
  {
    std::lock_guard<std::mutex> lock(s_.m);
    s_.stopping = true;
  }
  s_.syncWake.notify_all();
  if (thread_.joinable()) thread_.join();
}

void JournalSyncThread::run() {
  pthread_setname_np(pthread_self(), "journal-sync");  // how /proc and the tests tell it apart
  std::unique_lock<std::mutex> lock(s_.m);
  auto pending = [&] { return s_.writtenLsn > s_.syncedLsn; };
  while (!s_.stopping) {
    switch (policy_.sync) {
      case CommitLogSync::Periodic:
        // Also with nothing written: a round then only moves lastSyncStart (as Cassandra's syncer does).
        s_.syncWake.wait_until(lock, s_.lastSyncStart + milliseconds(policy_.periodMs),
                               [&] { return s_.stopping || (s_.forceSync && pending()); });
        break;
      case CommitLogSync::Group:
        s_.syncWake.wait(lock, [&] { return s_.stopping || pending(); });
        // At most one round per window: records arriving meanwhile share it.
        s_.syncWake.wait_until(lock, s_.lastSyncStart + milliseconds(policy_.groupWindowMs),
                               [&] { return s_.stopping || s_.forceSync; });
        break;
      case CommitLogSync::Batch:
        s_.syncWake.wait(lock, [&] { return s_.stopping || pending(); });
        break;
    }
    if (s_.stopping) break;
    if (!s_.syncError.empty()) {
      // A failed fdatasync leaves the page cache's state unknown: nothing can be acknowledged any more.
      s_.syncWake.wait(lock, [&] { return s_.stopping; });
      break;
    }
    syncRound(lock);
  }
  if (s_.syncError.empty() && pending()) syncRound(lock);
}

void JournalSyncThread::syncRound(std::unique_lock<std::mutex>& lock) {
  const SteadyTime start = Clock::now();
  const int64_t startWallMs = wallClockMs();
  const uint64_t target = s_.writtenLsn;
  uint64_t written[2], ends[2];
  int fds[2];
  for (int i = 0; i < 2; i++) {
    written[i] = s_.files[i].written;
    ends[i] = s_.files[i].end;
    fds[i] = s_.files[i].fd;
  }
  const bool need[2] = {written[0] > s_.files[0].synced, written[1] > s_.files[1].synced};
  lock.unlock();
  std::string error;
  for (int i = 0; i < 2 && error.empty(); i++) {
    if (need[i] && fdatasync(fds[i]) != 0)
      error = "fdatasync of journal " + s_.files[i].path + " failed: " + strerror(errno);
  }
  if (error.empty()) {
    appendSyncLog(startWallMs, baseNameOf(s_.files[0].path) + ":" + std::to_string(ends[0]) + " " +
                                   baseNameOf(s_.files[1].path) + ":" + std::to_string(ends[1]));
  }
  lock.lock();
  uint64_t notify = 0;
  if (error.empty()) {
    for (int i = 0; i < 2; i++) s_.files[i].synced = std::max(s_.files[i].synced, written[i]);
    s_.syncedLsn = std::max(s_.syncedLsn, target);
    s_.lastSyncStart = start;
    s_.syncs++;
    s_.lastSyncMs = msSince(start);
    if (s_.waitingLsn > s_.notifiedLsn) notify = s_.notifiedLsn = s_.syncedLsn;
  } else {
    s_.syncError = error;
  }
  s_.synced.notify_all();
  auto onSynced = s_.onSynced;
  if (onSynced && (notify > 0 || !error.empty())) {
    lock.unlock();
    onSynced(notify, error);
    lock.lock();
  }
}

}  // namespace pmemcql
