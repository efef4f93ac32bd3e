// The thread that makes journal records durable with fdatasync, off the JS thread, as the
// commitlog_sync policy says: every period (periodic), at most once per window while records wait
// (group), or as soon as records wait (batch). Callers that must not be acknowledged before the sync
// learn of it through JournalState::onSynced.
#pragma once

#include <thread>

#include "commit-log-policy.h"
#include "journal-state.h"

namespace pmemcql {

class JournalSyncThread {
 public:
  JournalSyncThread(JournalState& state, CommitLogPolicy policy);
  /** Syncs what is written, then stops and joins the thread. */
  ~JournalSyncThread();
  JournalSyncThread(const JournalSyncThread&) = delete;
  JournalSyncThread& operator=(const JournalSyncThread&) = delete;

 private:
  void run();
  /** One round: fdatasync of every file with unsynced bytes. Called and returns with the lock held. */
  void syncRound(std::unique_lock<std::mutex>& lock);

  JournalState& s_;
  CommitLogPolicy policy_;
  std::thread thread_;
};

}  // namespace pmemcql
