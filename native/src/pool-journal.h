// The disk side of PMEMCQL_DISK_SYNC=journal: the working pool lives in /dev/shm and is made
// durable by a physical redo journal (<data>/pmemcql.journal) over an image of the pool as of
// the last checkpoint (<data>/pmemcql.image). Record and file formats: native/LAYOUT.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "flush-recorder.h"

namespace pmemcql {

struct JournalPaths {
  std::string image;    // <pool path without .pool>.image
  std::string journal;  // <pool path without .pool>.journal
  std::string lock;     // <stem>.lock, flocked by the process that has the pool open
  std::string shm;      // /dev/shm/pmemcql-<hash of the pool path's real location>.pool
  static JournalPaths forPool(const std::string& poolPath);
};

/** What a pass over the journal found. */
struct JournalScan {
  uint64_t validEnd = 0;   // bytes of whole, checksummed records
  uint64_t fileSize = 0;
  uint64_t records = 0;
  uint64_t lastSeq = 0;    // sequence of the last valid record (records > 0)
};

class PoolJournal {
 public:
  /** Journal appended at `end` (the end of its valid records). Throws PoolErr. */
  PoolJournal(JournalPaths paths, uint64_t end);
  ~PoolJournal();
  PoolJournal(const PoolJournal&) = delete;
  PoolJournal& operator=(const PoolJournal&) = delete;

  /**
   * Appends one record holding the recorded ranges of the mapping [base, base+size) with their
   * current bytes, then one fdatasync; checkpoints when the journal passed its threshold.
   * Throws POOL_IO; the ranges stay pending and go into the next record.
   */
  void commit(const char* base, uint64_t size, uint64_t seq);

  /** Reads the journal, stopping at the first torn or damaged record. */
  static JournalScan scan(const std::string& journalPath, uint64_t poolSize);
  /**
   * Builds the working pool at paths.shm from image + journal (valid records only) and cuts a
   * torn tail off the journal. Throws PoolErr (POOL_OPEN when /dev/shm is too small).
   */
  static void rebuild(const JournalPaths& paths, const JournalScan& scan);
  /** A new pool: image = full copy of the freshly created pool file at paths.shm, empty journal. */
  static void initialise(const JournalPaths& paths);
  /** Root sequence stored in the image at pool offset `rootSeqOff`. */
  static uint64_t imageSeq(const JournalPaths& paths, uint64_t rootSeqOff);
  /** Throws POOL_OPEN naming the setting when /dev/shm has no room for `bytes`. */
  static void checkShmRoom(const std::string& shmPath, uint64_t bytes);

 private:
  void checkpoint();

  JournalPaths paths_;
  int fd_ = -1;
  uint64_t end_ = 0;
  uint64_t checkpointAt_;
  std::vector<ByteRange> pending_;  // recorded, not yet in a durable record
  std::vector<char> record_;        // reused record buffer
};

}  // namespace pmemcql
