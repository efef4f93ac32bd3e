// What the three parties of a journaled pool share: the JS thread appending records (JournalWriter),
// the sync thread making them durable (JournalSyncThread) and the checkpoint thread folding a closed
// journal file into the image (JournalCheckpointThread). Everything here is guarded by `m`.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

namespace pmemcql {

using SteadyTime = std::chrono::steady_clock::time_point;

/** One of the two journal files. */
struct JournalFileState {
  std::string path;
  int fd = -1;
  uint64_t end = 0;      // bytes in the file: where the next record goes (0: empty, no header yet)
  uint64_t written = 0;  // bytes ever written to it (never decreases, also across truncations)
  uint64_t synced = 0;   // of `written`, what a completed fdatasync covers
};

struct JournalState {
  std::mutex m;
  std::condition_variable syncWake;        // the sync thread waits on it
  std::condition_variable checkpointWake;  // the checkpoint thread waits on it
  std::condition_variable synced;          // notified after every sync round (blocking waiters)
  JournalFileState files[2];
  int active = 0;         // the file records are appended to
  int checkpointing = -1;  // the closed file the checkpoint thread works on (-1: none)
  uint64_t writtenLsn = 0;  // records written (Data and End records, headers)
  uint64_t syncedLsn = 0;   // of them, durable
  uint64_t waitingLsn = 0;  // the highest ticket handed to a caller that waits for it
  uint64_t notifiedLsn = 0;  // the synced LSN last reported through onSynced
  SteadyTime lastSyncStart;  // start of the last completed fdatasync round
  std::string syncError;        // set once a sync failed: nothing is acknowledged any more
  std::string checkpointError;  // the last checkpoint failure (retried), empty once one succeeds
  bool stopping = false;
  bool forceSync = false;  // a blocking waiter wants a round now, whatever the policy
  uint64_t syncs = 0;
  uint64_t checkpoints = 0;
  double lastSyncMs = 0;
  double lastCheckpointMs = 0;
  /** Called by the sync thread, outside the lock: the LSN now durable, or the sync error. */
  std::function<void(uint64_t syncedLsn, const std::string& error)> onSynced;
};

inline double msSince(SteadyTime t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace pmemcql
