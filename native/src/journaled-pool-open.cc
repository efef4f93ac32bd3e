// Opening a journaled disk pool (docs/storage-native.md, "Durability of disk pools"): the working pool
// file is used as it is when this boot wrote it last and it holds exactly the journal's last commit
// (a restart after a process crash costs one pmemobj_open); otherwise it is rebuilt from the image and
// the journal's valid records (after a reboot or power loss, or a crash between a commit and its
// record). Also creates new pools and adopts pool files written by builds without a journal.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "boot-id.h"
#include "journal-recovery.h"
#include "journal-writer.h"
#include "pmem-pool.h"

namespace pmemcql {

namespace {

bool exists(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

uint64_t sizeOf(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

std::string hexBoot(const BootId& b) {
  char s[40];
  snprintf(s, sizeof s, "%016llx%016llx", static_cast<unsigned long long>(b.hi), static_cast<unsigned long long>(b.lo));
  return s;
}

}  // namespace

Pool* Pool::openJournaled(const std::string& path, uint64_t size, const CommitLogPolicy& policy,
                          const OpenProgress& progress) {
  JournalPaths paths = JournalPaths::forPool(path);
  // One opener per data directory: a second one would rebuild the working pool under the first.
  int lockFd = ::open(paths.lock.c_str(), O_RDWR | O_CREAT, 0600);
  if (lockFd < 0) throw PoolErr("POOL_OPEN", "cannot open " + paths.lock + ": " + strerror(errno));
  if (flock(lockFd, LOCK_EX | LOCK_NB) != 0) {
    ::close(lockFd);
    throw PoolErr("POOL_BUSY", "pool " + path + " is open in another process");
  }
  const auto start = std::chrono::steady_clock::now();
  JournalOpenReport report;
  try {
    Pool* pool = openJournaledLocked(paths, size, policy, report, progress);
    pool->lockFd_ = lockFd;
    report.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    pool->report_ = std::move(report);
    return pool;
  } catch (...) {
    ::close(lockFd);
    throw;
  }
}

Pool* Pool::openWorkingPool(const JournalPaths& paths) {
  PMEMobjpool* pop = pmemobj_open(paths.pool.c_str(), kLayoutName);
  if (!pop) throwOpenError(paths.pool, errno, lastPmemError());
  Pool* pool = new Pool(pop, paths.pool, true);
  try {
    pool->initOrCheckRoot(false);
  } catch (...) {
    delete pool;
    throw;
  }
  return pool;
}

Pool* Pool::openJournaledLocked(const JournalPaths& paths, uint64_t size, const CommitLogPolicy& policy,
                                JournalOpenReport& report, const OpenProgress& progress) {
  const bool migrated = migrateLegacyJournal(paths, report);
  const bool havePool = exists(paths.pool) && !headerIsZero(paths.pool);
  if (!exists(paths.image)) {
    if (!havePool) return createJournaled(paths, size, policy, report, progress);
    // A pool never journaled has no pool id: adopted (also when an adoption was cut short after starting the
    // journal). One that has an id lost its image: the journal alone cannot rebuild it.
    JournalChain chain = readJournalChain(paths, ~0ull);
    if (chain.length == 0 || probeRoot(paths.pool, chain.first().header.rootOffset).poolId == 0)
      return adoptUnjournaled(paths, policy, report, progress);
    throw PoolErr("POOL_CORRUPT", "pool " + paths.pool + " is journaled but its image " + paths.image +
                                      " is missing: the journal alone cannot rebuild it");
  }
  const uint64_t poolSize = sizeOf(paths.image);
  // Headers only while the working pool may be trusted: a restart then costs O(records), not O(journal bytes).
  JournalChain chain = readJournalChain(paths, poolSize, true);
  Pool* pool = nullptr;
  uint64_t poolId = 0;
  if (chain.length == 0) {
    chain = readJournalChain(paths, poolSize);
    // The image is all there is: right after converting an earlier build's journal, else files went missing.
    if (!migrated)
      report.problems.push_back("no journal file has a header: the pool is its image as of the last checkpoint");
    report.action = migrated ? "converted" : "rebuilt";
    report.reason = migrated ? "the journal of an earlier build (working pool in /dev/shm) was folded into the image"
                             : "no journal";
    rebuildWorkingPool(paths, chain, poolSize, report, progress);
    pool = openWorkingPool(paths);
    try {
      poolId = pool->root()->reserved[kRootPoolIdSlot];
      if (poolId == 0) poolId = randomId();
      JournalHeader h;
      h.salt = randomId();
      h.baseSeq = pool->root()->reserved[kRootSeqSlot];
      h.poolId = poolId;
      h.rootOffset = pool->rootOffset();
      h.poolSize = poolSize;
      pmemcql::startJournal(paths, h);
      chain = readJournalChain(paths, poolSize);
    } catch (...) {
      delete pool;
      throw;
    }
  } else {
    const JournalHeader& h = chain.first().header;
    poolId = h.poolId;
    if (h.poolSize != poolSize)
      throw PoolErr("POOL_CORRUPT", "image " + paths.image + " has " + std::to_string(poolSize) +
                                        " bytes, its journal says " + std::to_string(h.poolSize));
    RootProbe image = probeRoot(paths.image, h.rootOffset);
    if (!image.ok || image.seq < h.baseSeq || image.seq > chain.endSeq())
      throw PoolErr("POOL_CORRUPT", "image " + paths.image + " (commit " + std::to_string(image.seq) +
                                        ") does not fit its journal (commits " + std::to_string(h.baseSeq) + " to " +
                                        std::to_string(chain.endSeq()) + ")");
    std::string why;
    if (!havePool) {
      why = "the working pool is missing";
    } else if (sizeOf(paths.pool) != poolSize) {
      why = "the working pool has another size than the image";
    } else {
      RootProbe w = probeRoot(paths.pool, h.rootOffset);
      const BootId boot = currentBootId();
      if (!w.ok) {
        why = "the working pool has no valid root";
      } else if (w.boot != boot) {
        why = "the working pool was last written by another boot (" + hexBoot(w.boot) + ", now " + hexBoot(boot) +
              "): a power loss or OS crash may have torn it";
      } else if (w.poolId != poolId) {
        why = "the working pool belongs to another journal";
      } else if (chain.tornTail) {
        why = "the journal ends in a torn record";
      } else {
        // Written by this boot: whatever the last process left is in the page cache, a state libpmemobj recovers
        // from like a crash on persistent memory.
        pool = openWorkingPool(paths);
        if (pool->root()->reserved[kRootSeqSlot] != chain.endSeq()) {
          why = "the working pool is at commit " + std::to_string(pool->root()->reserved[kRootSeqSlot]) +
                ", the journal at " + std::to_string(chain.endSeq()) +
                " (a crash between a commit and its journal record)";
          delete pool;
          pool = nullptr;
        }
      }
    }
    if (pool) {
      report.action = "opened";
    } else {
      report.action = "rebuilt";
      report.reason = why;
      chain = readJournalChain(paths, poolSize);  // every record checked before any is replayed
      rebuildWorkingPool(paths, chain, poolSize, report, progress);
      pool = openWorkingPool(paths);
      if (pool->root()->reserved[kRootSeqSlot] != chain.endSeq()) {
        uint64_t got = pool->root()->reserved[kRootSeqSlot];
        delete pool;
        throw PoolErr("POOL_CORRUPT", "pool " + paths.pool + " rebuilt from " + paths.image +
                                          " and the journal is at commit " + std::to_string(got) +
                                          ", the journal at " + std::to_string(chain.endSeq()));
      }
    }
  }
  report.problems.insert(report.problems.end(), chain.problems.begin(), chain.problems.end());
  try {
    pool->checkFlushesRecorded();
    pool->startJournal(prepareJournalFiles(paths, chain, poolSize), policy);
    pool->stampBootAndId(poolId);
    pool->journalCommit();  // what open and libpmemobj's recovery wrote, if the stamp did not take it along
  } catch (...) {
    delete pool;
    throw;
  }
  return pool;
}

// A new pool: created under a temporary name, its image and journal made, then renamed into place. Until the
// image exists nothing counts as created; until the pool file has its name the image alone rebuilds it.
Pool* Pool::createJournaled(const JournalPaths& paths, uint64_t size, const CommitLogPolicy& policy,
                            JournalOpenReport& report, const OpenProgress& progress) {
  const std::string tmp = paths.pool + ".creating";
  unlink(tmp.c_str());
  unlink(paths.pool.c_str());  // a zero-filled file left by a create cut short
  Pool* pool = new Pool(createPool(tmp, size), tmp, true);
  const uint64_t poolId = randomId();
  try {
    pool->initOrCheckRoot(true);
    pool->checkFlushesRecorded();
    pool->stampBootAndId(poolId);
    flush_recorder::dropRanges(pool->base_, pool->size_);  // the image holds all of it
    JournalHeader h;
    h.salt = randomId();
    h.baseSeq = pool->root()->reserved[kRootSeqSlot];
    h.poolId = poolId;
    h.rootOffset = pool->rootOffset();
    h.poolSize = pool->size_;
    pmemcql::startJournal(paths, h);
    writeFileCopy(tmp, paths.image, progress);
    if (rename(tmp.c_str(), paths.pool.c_str()) != 0)
      throw PoolErr("POOL_IO", "cannot rename " + tmp + ": " + strerror(errno));
    fsyncDirOf(paths.pool);
    pool->path_ = paths.pool;
    pool->startJournal(prepareJournalFiles(paths, readJournalChain(paths, pool->size_), pool->size_), policy);
  } catch (...) {
    delete pool;
    unlink(tmp.c_str());
    throw;
  }
  report.action = "created";
  return pool;
}

// A pool file with neither image nor journal: written by a build that synced the pool file itself (consistent on
// disk) or in emulated mode. Its bytes become the image before libpmemobj touches it; then the journal starts.
Pool* Pool::adoptUnjournaled(const JournalPaths& paths, const CommitLogPolicy& policy, JournalOpenReport& report,
                              const OpenProgress& progress) {
  const std::string tmp = paths.image + ".tmp";
  writeFileCopyUnrenamed(paths.pool, tmp, progress);
  Pool* pool = nullptr;
  try {
    pool = openWorkingPool(paths);
    const uint64_t poolId = pool->root()->reserved[kRootPoolIdSlot] ? pool->root()->reserved[kRootPoolIdSlot]
                                                                    : randomId();
    JournalHeader h;
    h.salt = randomId();
    h.baseSeq = pool->root()->reserved[kRootSeqSlot];
    h.poolId = poolId;
    h.rootOffset = pool->rootOffset();
    h.poolSize = pool->size_;
    pmemcql::startJournal(paths, h);
    if (rename(tmp.c_str(), paths.image.c_str()) != 0)
      throw PoolErr("POOL_IO", "cannot rename " + tmp + ": " + strerror(errno));
    fsyncDirOf(paths.image);
    pool->checkFlushesRecorded();
    pool->startJournal(prepareJournalFiles(paths, readJournalChain(paths, pool->size_), pool->size_), policy);
    pool->stampBootAndId(poolId);
    pool->journalCommit();
  } catch (...) {
    delete pool;
    unlink(tmp.c_str());
    throw;
  }
  report.action = "adopted";
  report.reason = "a pool file without image and journal (written without a journal): its image was made and its "
                  "journal started";
  return pool;
}

void Pool::startJournal(const JournalStart& start, const CommitLogPolicy& policy) {
  journal_ = std::make_unique<JournalWriter>(start, JournalPaths::forPool(path_).image, policy);
}

void Pool::stampBootAndId(uint64_t poolId) {
  const BootId boot = currentBootId();
  uint64_t* r = root_->reserved;
  if (r[kRootBootSlot] == boot.hi && r[kRootBootSlot + 1] == boot.lo && (poolId == 0 || r[kRootPoolIdSlot] == poolId))
    return;
  Tx tx(*this);
  tx.run([&] {
    tx.snapshot(reinterpret_cast<char*>(root_) - base_, sizeof(PoolRoot));
    r[kRootBootSlot] = boot.hi;
    r[kRootBootSlot + 1] = boot.lo;
    if (poolId != 0) r[kRootPoolIdSlot] = poolId;
  });
}

}  // namespace pmemcql
