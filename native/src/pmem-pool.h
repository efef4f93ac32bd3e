// A pmemcql pool: one libpmemobj pool file (layout "pmemcql") holding a root object that names
// the root map. Also the transaction wrapper every write goes through.
#pragma once

#include <libpmemobj.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "commit-log-policy.h"
#include "layout.h"
#include "flush-recorder.h"
#include "journal-recovery.h"
#include "journal-writer.h"
#include "tx-objects.h"
#include "pool-error.h"
#include "pool-prefault.h"

namespace pmemcql {

enum class Durability { Pmem, Emulated, Disk };

// How a commit becomes durable.
enum class SyncPolicy {
  Flush,    // pmem / emulated: libpmemobj's cache-line flushes are the whole story
  Journal,  // disk: the working pool is mapped through the page cache in pmem mode; each commit's flushed
            // ranges go to a journal file (JournalWriter), synced as the CommitLogPolicy says
};

class Pool {
 public:
  /**
   * Opens `path`, creating it with `size` bytes when absent. A disk pool is journaled under `policy`; pmem
   * (DAX) and emulated pools ignore it. Throws PoolErr.
   */
  static Pool* open(const std::string& path, uint64_t size, const CommitLogPolicy& policy,
                    const OpenProgress& progress = nullptr);
  ~Pool();
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  template <class T>
  T* at(uint64_t off) const {
    return reinterpret_cast<T*>(base_ + off);
  }
  /** True when [off, off+len) lies inside the pool's mapping. */
  bool inBounds(uint64_t off, uint64_t len) const { return off >= 4096 && off <= size_ && len <= size_ - off; }

  PMEMobjpool* pop() const { return pop_; }
  uint64_t uuidLo() const { return uuid_lo_; }
  uint64_t rootMap() const { return root()->root_map; }
  PoolRoot* root() const { return root_; }
  uint64_t size() const { return size_; }
  uint64_t used() const;
  Durability durability() const { return mode_; }
  SyncPolicy sync() const { return sync_; }

  /**
   * Process-wide, before the first pool is opened: makes libpmemobj treat every mapping as persistent
   * memory (cache-line flushes, no msync) and turns the flush recorder on, so disk pools can be journaled.
   * False when not possible (a pool was opened already, or PMEM_IS_PMEM_FORCE=1: emulated mode).
   */
  static bool enableJournaling();
  /** The pool path callers named (the working pool of a journaled pool). */
  const std::string& path() const { return path_; }
  /** Journaled pools: appends this commit's changed ranges to the journal (one write). */
  void journalCommit();
  /** Journaled pools: the writer (policy, tickets, stats); null for pmem and emulated pools. */
  JournalWriter* journal() const { return journal_.get(); }
  /** What opening a journaled pool found and did. */
  const JournalOpenReport& openReport() const { return report_; }
  /** Pool offset of the commit sequence (root reserved[kRootSeqSlot], journaled pools only). */
  uint64_t rootSeqOffset() const { return reinterpret_cast<char*>(&root_->reserved[kRootSeqSlot]) - base_; }
  uint64_t rootOffset() const { return reinterpret_cast<char*>(root_) - base_; }

  /** Shared by transactions: what the running one has logged or allocated. */
  TxObjects& touched() { return touched_; }

  /**
   * Starts populating the mapping ahead of the allocator (PoolPrefault): for writing on pmem and emulated pools,
   * for reading on a journaled pool's working file (populated for writing, each page would be written back once
   * unchanged). Always true once started.
   */
  bool startPrefault(bool idle);
  /** Bytes populated so far by startPrefault; -1 when it is not running (not started, not this mode, refused). */
  int64_t prefaulted() const;

 private:
  Pool(PMEMobjpool* pop, std::string path, bool journaled);
  void initOrCheckRoot(bool created);
  static Pool* openDirect(const std::string& path, uint64_t size);
  // Journaled pools (journaled-pool-open.cc).
  static Pool* openJournaled(const std::string& path, uint64_t size, const CommitLogPolicy& policy,
                             const OpenProgress& progress);
  static Pool* openJournaledLocked(const JournalPaths& paths, uint64_t size, const CommitLogPolicy& policy,
                                   JournalOpenReport& report, const OpenProgress& progress);
  static Pool* createJournaled(const JournalPaths& paths, uint64_t size, const CommitLogPolicy& policy,
                               JournalOpenReport& report, const OpenProgress& progress);
  static Pool* adoptUnjournaled(const JournalPaths& paths, const CommitLogPolicy& policy, JournalOpenReport& report,
                                const OpenProgress& progress);
  static Pool* openWorkingPool(const JournalPaths& paths);
  /** Stamps this boot's id (and `poolId` when non-zero) into the root when they differ (one transaction). */
  void stampBootAndId(uint64_t poolId);
  void startJournal(const JournalStart& start, const CommitLogPolicy& policy);
  void checkFlushesRecorded();

  PMEMobjpool* pop_;
  char* base_;
  uint64_t uuid_lo_ = 0;
  uint64_t size_ = 0;
  PoolRoot* root_ = nullptr;
  Durability mode_ = Durability::Disk;
  SyncPolicy sync_ = SyncPolicy::Flush;
  std::string path_;
  TxObjects touched_;
  std::unique_ptr<JournalWriter> journal_;
  JournalOpenReport report_;
  int lockFd_ = -1;  // journaled pools: flock on <stem>.lock, held while open
  std::unique_ptr<PoolPrefault> prefault_;
};

/**
 * One libpmemobj transaction, run without setjmp/longjmp (failure behaviour "return"), so C++
 * unwinding stays sound: any PoolErr thrown inside is caught by run(), which aborts.
 */
class Tx {
 public:
  explicit Tx(Pool& pool) : pool_(pool) {}

  /** Runs fn inside a transaction: commits, or aborts and rethrows. */
  template <class Fn>
  void run(Fn&& fn) {
    begin();
    try {
      fn();
    } catch (...) {
      abort();
      throw;
    }
    commit();
  }

  /** Allocates an uninitialised object; new objects need no snapshot. Throws POOL_FULL. */
  uint64_t alloc(size_t size, TypeNum type);
  /** alloc whose bytes past the first `flushed` are not flushed at commit (the caller persists them). */
  uint64_t allocUnflushed(size_t size, TypeNum type, size_t flushed);
  void free(uint64_t off);
  /** Logs a whole object (inner node, map header) once per transaction before it changes. */
  void snapshot(uint64_t off, size_t size) {
    if (pool_.touched().find(off)) return;
    addRange(off, size, 0);
    pool_.touched().add(off, ~0ull, false);
  }
  /** Logs part of an object (an entry blob); objects allocated in this transaction are skipped. */
  void snapshotPart(uint64_t off, size_t size) {
    TxObject* o = pool_.touched().find(off);
    if (!o || !o->fresh) addRange(off, size, 0);
  }
  /** Before a leaf's header or order changes: logs those 72 bytes once, remembers free slots. */
  void touchLeaf(uint64_t off, const Leaf* l) {
    if (pool_.touched().find(off)) return;
    addRange(off, kLeafOrderBytes, 0);
    pool_.touched().add(off, freeSlots(l), false);
  }
  static uint64_t freeSlots(const Leaf* l) {
    uint64_t used = 0;
    for (int i = 0; i < l->h.n; i++) used |= 1ull << l->order[i];
    return ~used & (kLeafCap == 64 ? ~0ull : (1ull << kLeafCap) - 1);
  }
  /** Slots of a touched leaf that may be written with no undo copy. */
  uint64_t writableSlots(uint64_t leafOff) { return pool_.touched().find(leafOff)->freeAtStart; }
  /** Before slot `s` of a touched leaf is written. */
  void writeSlot(uint64_t leafOff, int s) {
    const TxObject* o = pool_.touched().find(leafOff);
    if (o->fresh) return;
    uint64_t slotOff = leafOff + offsetof(Leaf, slot) + sizeof(LeafSlot) * s;
    // A slot free at the start holds nothing an abort must restore: it only has to be durable
    // by the commit point. Flushing it ourselves just before commit saves libpmemobj a range.
    // (A journaled pool needs the flush too: it is how the journal learns of the slot.)
    if (!((o->freeAtStart >> s) & 1)) addRange(slotOff, sizeof(LeafSlot), 0);
    else flushAtCommit_.push_back(slotOff);
  }
  Pool& pool() { return pool_; }

 private:
  void begin();
  void commit();
  void abort();
  void addRange(uint64_t off, size_t size, uint64_t flags);
  /** pmemobj_tx_xalloc with `flags` (plus NO_ABORT), recorded as fresh; POOL_FULL / TX_FAILED on failure. */
  uint64_t xalloc(size_t size, TypeNum type, uint64_t flags);

  Pool& pool_;
  std::vector<uint64_t> flushAtCommit_;  // offsets of LeafSlots written without a range
  std::vector<ByteRange> rangesAtCommit_;  // heads of allocUnflushed objects
};

[[noreturn]] void throwPoolFull(const Pool& pool);

// Shared by pmem-pool.cc and journaled-pool-open.cc.
std::string lastPmemError();
/** A create that crashed before libpmemobj wrote its header leaves a zero-filled file. */
bool headerIsZero(const std::string& path);
/** pmemobj_create with the errors named after pool_size. */
PMEMobjpool* createPool(const std::string& path, uint64_t size);
/** The PoolErr for a failed pmemobj_open (`err`: its errno, `msg`: its message). */
[[noreturn]] void throwOpenError(const std::string& path, int err, const std::string& msg);

}  // namespace pmemcql
