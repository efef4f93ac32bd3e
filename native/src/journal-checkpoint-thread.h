// The thread that folds a closed journal file into the image, off the JS thread: fdatasync of the
// closed file, its records replayed into the image (JournalReplay), fsync of the image, then the
// file is emptied for its next turn. Requests keep being served and journaled into the other file
// meanwhile. A crash anywhere in between only means replaying the closed file again on open.
#pragma once

#include <string>
#include <thread>

#include "journal-state.h"

namespace pmemcql {

class JournalCheckpointThread {
 public:
  /** `imagePath`: the image file; `poolSize`: its size (bounds the offsets records may name). */
  JournalCheckpointThread(JournalState& state, std::string imagePath, uint64_t poolSize);
  /** Lets a running checkpoint finish, then stops and joins the thread. */
  ~JournalCheckpointThread();
  JournalCheckpointThread(const JournalCheckpointThread&) = delete;
  JournalCheckpointThread& operator=(const JournalCheckpointThread&) = delete;

  /**
   * Checkpoints file `index` of `s` (the caller has set s.checkpointing = index under the lock).
   * Runs on the calling thread; throws PoolErr. Used by the thread and by an open that finds a closed file.
   */
  static void checkpoint(JournalState& s, int index, const std::string& imagePath, uint64_t poolSize);

 private:
  void run();

  JournalState& s_;
  std::string imagePath_;
  uint64_t poolSize_;
  std::thread thread_;
};

}  // namespace pmemcql
