// The JS-thread side of a journaled pool: after each transaction, one record of the pool bytes
// libpmemobj flushed (flush-recorder) is appended to the active journal file with one write, which
// makes the commit safe against a process crash; JournalSyncThread makes it power-safe. When the
// active file passes the checkpoint size it is closed with an End record, the other file takes over
// and JournalCheckpointThread folds the closed one into the image in the background.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "commit-log-policy.h"
#include "flush-recorder.h"
#include "journal-checkpoint-thread.h"
#include "journal-format.h"
#include "journal-state.h"
#include "journal-sync-thread.h"

namespace pmemcql {

/** Where an open left the journal files (JournalRecovery): what the writer continues from. */
struct JournalStart {
  std::string paths[2];
  int fds[2] = {-1, -1};   // the writer owns them from now on
  uint64_t ends[2] = {0, 0};
  int active = 0;           // holds a header and is appended to
  int closed = -1;          // a complete file not yet in the image (checkpointed first thing), or -1
  JournalHeader header;     // of the active file (pool id, root offset and size are reused by rotations)
};

class JournalWriter {
 public:
  JournalWriter(const JournalStart& start, std::string imagePath, CommitLogPolicy policy);
  /** Stops the checkpoint thread (a running checkpoint finishes), syncs everything, closes the files. */
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;

  /**
   * Appends a record of the recorded ranges in [base, base+size) with their current bytes (one write);
   * may close the file and start a checkpoint. Throws POOL_IO (the ranges stay pending for the next record).
   */
  void commit(const char* base, uint64_t size, uint64_t seq);
  /**
   * After commit(): 0 when the commit may be acknowledged now, else the ticket (LSN) that onSynced reports once
   * the commit is durable (group, batch, or a periodic sync lagging past lagBlockMs).
   */
  uint64_t ticket();
  /**
   * Blocks the calling thread until `ticket` is durable (a sync is asked for at once); for tools and benchmarks,
   * never the server's event loop. Throws POOL_IO when a sync failed.
   */
  void blockUntilDurable(uint64_t ticket);
  /** Throws POOL_IO once a sync has failed: no further write may be acknowledged. */
  void checkWritable();

  /**
   * Stops the checkpoint thread (a running checkpoint finishes) and the sync thread after a last sync of
   * everything written; the sync error, if any. No commit may follow.
   */
  std::string finish();
  /** Delivers sync completions (and a sync failure) from the sync thread; set before writes start. */
  void setOnSynced(std::function<void(uint64_t syncedLsn, const std::string& error)> f);

  const CommitLogPolicy& policy() const { return policy_; }
  struct Stats {
    uint64_t writtenLsn, syncedLsn, syncs, checkpoints, journalBytes;
    double lastSyncMs, lastCheckpointMs;
    std::string syncError, checkpointError;
    bool checkpointRunning;
  };
  Stats stats();

 private:
  void append(int file, const char* p, size_t n);
  void maybeRotate(uint64_t seq);

  CommitLogPolicy policy_;
  JournalState s_;
  JournalHeader header_;
  std::string imagePath_;
  uint64_t nextRotationAt_;
  std::vector<ByteRange> pending_;
  std::vector<char> record_;
  // Declared last: they use s_ and stop (in this order: checkpoint, then sync) before it goes.
  std::unique_ptr<JournalSyncThread> sync_;
  std::unique_ptr<JournalCheckpointThread> checkpointer_;
};

/** A random 64-bit value for a journal file's salt or a pool's id (getrandom). */
uint64_t randomId();

}  // namespace pmemcql
