// Opening a journaled pool (docs/storage-native.md, "Durability of disk pools"): reading the chain of
// journal files, deciding whether the working pool can be used as it is, rebuilding it from the image
// and the journal when it cannot, and leaving the journal files ready for the writer. Every step that
// replaces a file writes a temporary one and renames it, so a crash during an open only means opening
// again.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "boot-id.h"
#include "journal-format.h"
#include "journal-paths.h"
#include "journal-writer.h"

namespace pmemcql {

/**
 * Told about long steps of an open (copying an image, replaying records), at most about once a second: the step,
 * how far it is and where it ends (bytes).
 */
using OpenProgress = std::function<void(const std::string& step, uint64_t done, uint64_t total)>;

/** What an open found and did, for the server's log (PoolInfo.recovery). */
struct JournalOpenReport {
  std::string action;  // created, opened, rebuilt, adopted
  std::string reason;  // why rebuilt / adopted
  std::vector<std::string> problems;  // torn or damaged records found (never applied), files ignored
  uint64_t replayedRecords = 0;
  uint64_t journalBytes = 0;
  double ms = 0;
};

/** The journal files that continue one another, in replay order. */
struct JournalChain {
  JournalFileScan scans[2];
  int order[2] = {-1, -1};
  int length = 0;
  bool tornTail = false;  // the last file of the chain has bytes after its valid records
  std::vector<std::string> problems;

  const JournalFileScan& first() const { return scans[order[0]]; }
  const JournalFileScan& last() const { return scans[order[length - 1]]; }
  uint64_t endSeq() const { return last().lastSeq; }
};

/**
 * Reads both journal files and links them: every record validated whole, or (`headersOnly`, for an open that may
 * trust the working pool) every header and the last record of each file (scanJournalHeaders). Throws PoolErr.
 */
JournalChain readJournalChain(const JournalPaths& paths, uint64_t poolSize, bool headersOnly = false);

/** Root fields read from a pool-sized file at the root's offset, without libpmemobj. */
struct RootProbe {
  bool ok = false;
  uint64_t seq = 0;
  BootId boot;
  uint64_t poolId = 0;
};
RootProbe probeRoot(const std::string& file, uint64_t rootOffset);

/** The working pool from the image and the chain's valid records (a temporary file renamed into place). */
void rebuildWorkingPool(const JournalPaths& paths, const JournalChain& chain, uint64_t poolSize,
                        JournalOpenReport& report, const OpenProgress& progress);

/**
 * Leaves the journal files as the writer continues them: torn tails cut off, a file no End record leads to
 * emptied, the next file started when the chain's last one is complete; all of it synced. A chain of two complete
 * files (never left by a writer) is checkpointed here first. Throws PoolErr.
 */
JournalStart prepareJournalFiles(const JournalPaths& paths, const JournalChain& chain, uint64_t poolSize);

/** A fresh journal after a new image: journal-0 holds `header` only, journal-1 is empty; both synced. */
void startJournal(const JournalPaths& paths, const JournalHeader& header);

/** Copies `from` into `to` through `to`.tmp: fsync, rename, directory fsync. Throws PoolErr. */
void writeFileCopy(const std::string& from, const std::string& to, const OpenProgress& progress);
/** Copies `from` into a new file `tmp` (same size, holes and zero chunks skipped) and fsyncs it. Throws PoolErr. */
void writeFileCopyUnrenamed(const std::string& from, const std::string& tmp, const OpenProgress& progress);

/**
 * A data directory of a build that kept the working pool in /dev/shm (<stem>.journal): its valid records are
 * replayed into the image, then that journal and the /dev/shm pool are removed. False when there is none.
 */
bool migrateLegacyJournal(const JournalPaths& paths, JournalOpenReport& report);

/** fsync of the directory holding `path` (a rename or a new file is durable only then). */
void fsyncDirOf(const std::string& path);

}  // namespace pmemcql
