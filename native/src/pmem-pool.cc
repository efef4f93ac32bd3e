#include "pmem-pool.h"

#include <libpmem.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "flush-recorder.h"
#include "pmem-map.h"

#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif
#ifndef MAP_SYNC
#define MAP_SYNC 0x80000
#endif

namespace pmemcql {

namespace {

bool gAnyPoolOpened = false;
bool gCommitSync = false;
bool gJournalSync = false;

std::string lastPmemError() {
  const char* m = pmemobj_errormsg();
  return m && *m ? std::string(m) : std::string(strerror(errno));
}

// A write-through mapping with MAP_SYNC is only granted on DAX (real persistent memory): the
// same probe libpmem uses, done here because libpmemobj does not expose its verdict.
bool isDax(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return false;
  if (S_ISCHR(st.st_mode)) return true;  // device DAX
  int fd = ::open(path.c_str(), O_RDWR);
  if (fd < 0) return false;
  void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED_VALIDATE | MAP_SYNC, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) return false;
  munmap(p, 4096);
  return true;
}

Durability detectMode(const std::string& path) {
  const char* force = getenv("PMEM_IS_PMEM_FORCE");
  if (force && atoi(force) == 1) return Durability::Emulated;
  return isDax(path) ? Durability::Pmem : Durability::Disk;
}

// A create that crashed before libpmemobj wrote its header leaves a zero-filled file.
bool headerIsZero(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) return false;
  char buf[4096];
  ssize_t n = pread(fd, buf, sizeof buf, 0);
  ::close(fd);
  if (n <= 0) return n == 0;
  for (ssize_t i = 0; i < n; i++)
    if (buf[i] != 0) return false;
  return true;
}

PMEMobjpool* createPool(const std::string& path, uint64_t size) {
  if (size < PMEMOBJ_MIN_POOL)
    throw PoolErr("BAD_OPTION", "pool_size must be at least " + std::to_string(PMEMOBJ_MIN_POOL) + " bytes, got " +
                                    std::to_string(size));
  // libpmemobj allocates the whole file up front (posix_fallocate), so a full disk shows up
  // here rather than as SIGBUS on a later write into a hole.
  PMEMobjpool* pop = pmemobj_create(path.c_str(), kLayoutName, size, 0600);
  if (!pop) {
    int e = errno;
    std::string msg = lastPmemError();
    if (e == ENOSPC) throw PoolErr("POOL_OPEN", "no space for a pool of pool_size = " + std::to_string(size) + " bytes at " + path);
    throw PoolErr("POOL_OPEN", "cannot create pool " + path + ": " + msg);
  }
  return pop;
}

}  // namespace

bool Pool::enableCommitSync() {
  if (getenv("PMEM_IS_PMEM_FORCE")) return false;
  if (gAnyPoolOpened) return gCommitSync;
  // libpmem reads PMEM_IS_PMEM_FORCE once, on its first pmem_is_pmem() call: make that call
  // now, then take the variable away so child processes do not inherit it.
  setenv("PMEM_IS_PMEM_FORCE", "1", 1);
  char probe[64];
  gCommitSync = pmem_is_pmem(probe, sizeof probe) == 1;
  unsetenv("PMEM_IS_PMEM_FORCE");
  return gCommitSync;
}

bool Pool::enableJournalSync() {
  if (gAnyPoolOpened || gCommitSync) return gJournalSync;
  // PMEM_IS_PMEM_FORCE=1 means "emulate pmem on the pool file itself": not a disk pool then.
  // Any other value (test harnesses pass 0) is overridden for the probe and put back.
  const char* user = getenv("PMEM_IS_PMEM_FORCE");
  if (user && atoi(user) == 1) return false;
  std::string saved = user ? user : "";
  setenv("PMEM_IS_PMEM_FORCE", "1", 1);
  char probe[64];
  bool pmemMode = pmem_is_pmem(probe, sizeof probe) == 1;
  if (user) setenv("PMEM_IS_PMEM_FORCE", saved.c_str(), 1);
  else unsetenv("PMEM_IS_PMEM_FORCE");
  if (!pmemMode) return false;  // libpmem had read the variable already
  gJournalSync = true;
  flush_recorder::enable();
  return true;
}

void Pool::syncAll() const {
  if (msync(base_, size_, MS_SYNC) != 0)
    throw PoolErr("POOL_IO", "msync of pool " + path_ + " failed: " + strerror(errno) +
                                 "; the last write may not be durable");
}

Pool* Pool::open(const std::string& path, uint64_t size) {
  gAnyPoolOpened = true;
  if (gJournalSync) return openJournaled(path, size);
  struct stat st;
  // A journal pool's data is in its image + journal, not at `path`: creating an empty pool there
  // would hide it.
  if (stat(path.c_str(), &st) != 0 && stat(JournalPaths::forPool(path).image.c_str(), &st) == 0)
    throw PoolErr("POOL_OPEN", "pool " + path +
                                   " was written with PMEMCQL_DISK_SYNC=journal (disk_sync: journal); its data is in " +
                                   JournalPaths::forPool(path).image + " and its journal: open it with that setting");
  bool created = false;
  PMEMobjpool* pop = nullptr;
  if (stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) throw PoolErr("POOL_OPEN", "cannot stat pool file " + path + ": " + strerror(errno));
    pop = createPool(path, size);
    created = true;
  } else {
    pop = pmemobj_open(path.c_str(), kLayoutName);
    if (!pop) {
      int e = errno;
      std::string msg = lastPmemError();
      if (S_ISREG(st.st_mode) && headerIsZero(path)) {
        pop = pmemobj_create(path.c_str(), kLayoutName, 0, 0600);
        if (!pop) throw PoolErr("POOL_OPEN", "cannot create pool " + path + ": " + lastPmemError());
        created = true;
      } else if (msg.find("layout") != std::string::npos) {
        throw PoolErr("POOL_LAYOUT", "pool " + path + " has another layout: " + msg);
      } else if (e == EWOULDBLOCK || e == EAGAIN) {
        throw PoolErr("POOL_BUSY", "pool " + path + " is open in another process");
      } else {
        throw PoolErr("POOL_OPEN", "cannot open pool " + path + ": " + msg);
      }
    }
  }
  Pool* pool = new Pool(pop, path, path);
  try {
    pool->initOrCheckRoot(created);
  } catch (...) {
    delete pool;
    throw;
  }
  return pool;
}

Pool::Pool(PMEMobjpool* pop, std::string path, std::string file)
    : pop_(pop), base_(reinterpret_cast<char*>(pop)), path_(std::move(path)), file_(std::move(file)) {
  // Persistent statistics give `used` across restarts at the cost of one atomic add per alloc.
  int stats = POBJ_STATS_ENABLED_PERSISTENT;
  pmemobj_ctl_set(pop_, "stats.enabled", &stats);
  struct stat st;
  size_ = stat(file_.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  if (gJournalSync) {
    mode_ = Durability::Disk;
    sync_ = SyncPolicy::Journal;
    return;
  }
  mode_ = detectMode(path_);
  if (mode_ != Durability::Disk) sync_ = SyncPolicy::Flush;
  else sync_ = gCommitSync ? SyncPolicy::MsyncCommit : SyncPolicy::MsyncRanges;
}

Pool::~Pool() {
  prefault_.reset();  // its thread touches the mapping
  if (pop_) pmemobj_close(pop_);
  // What close wrote is not journaled: the journal state is the pool as of its last commit,
  // which is what a crash instead of this close would have left.
  if (sync_ == SyncPolicy::Journal) flush_recorder::dropRanges(base_, size_);
  delete journal_;
  if (lockFd_ >= 0) ::close(lockFd_);
}

// The journal is only as good as the interception of libpmemobj's libpmem calls (symbol
// resolution: the addon's pmem_flush must win over libpmem's). A build or loader where it does not
// would journal nothing and lose data on the next reboot, silently: refuse to run instead.
void Pool::checkFlushesRecorded() {
  uint64_t before = flush_recorder::recordedCount();
  pmemobj_flush(pop_, root_, sizeof(PoolRoot));  // a flush changes no bytes
  if (flush_recorder::recordedCount() == before)
    throw PoolErr("POOL_OPEN", "PMEMCQL_DISK_SYNC=journal (disk_sync: journal) is not available in this build: "
                               "libpmemobj's flushes do not reach the addon's recorder; use disk_sync: ranges");
}

void Pool::journalCommit() {
  if (journal_) journal_->commit(base_, size_, root_->reserved[0]);
}

// Journal mode (see docs/storage-native.md, "The journal policy"): the mapped pool is a working
// copy in /dev/shm; <stem>.image + <stem>.journal on disk are the durable state.
Pool* Pool::openJournaled(const std::string& path, uint64_t size) {
  JournalPaths jp = JournalPaths::forPool(path);
  struct stat st;
  if (stat(path.c_str(), &st) == 0)
    throw PoolErr("POOL_OPEN", "pool " + path + " was written with another disk_sync policy; PMEMCQL_DISK_SYNC=journal "
                                   "(disk_sync: journal) keeps its data in " + jp.image + " + " + jp.journal +
                                   " instead. Open it with the policy it was written with");
  // One opener per data directory: a second one would rebuild the working pool under the first.
  int lockFd = ::open(jp.lock.c_str(), O_RDWR | O_CREAT, 0600);
  if (lockFd < 0) throw PoolErr("POOL_OPEN", "cannot open " + jp.lock + ": " + strerror(errno));
  if (flock(lockFd, LOCK_EX | LOCK_NB) != 0) {
    ::close(lockFd);
    throw PoolErr("POOL_BUSY", "pool " + path + " is open in another process");
  }
  try {
    Pool* pool = openJournaledLocked(path, size, jp);
    pool->lockFd_ = lockFd;
    return pool;
  } catch (...) {
    ::close(lockFd);
    throw;
  }
}

Pool* Pool::openJournaledLocked(const std::string& path, uint64_t size, const JournalPaths& jp) {
  struct stat st;
  Pool* pool = nullptr;
  if (stat(jp.image.c_str(), &st) != 0) {
    // A new pool (a journal without an image is a creation that never finished).
    unlink(jp.shm.c_str());
    PoolJournal::checkShmRoom(jp.shm, size);
    PMEMobjpool* pop = createPool(jp.shm, size);
    pool = new Pool(pop, path, jp.shm);
    try {
      pool->initOrCheckRoot(true);
      pool->checkFlushesRecorded();
      flush_recorder::dropRanges(pool->base_, pool->size_);  // the image below holds all of it
      PoolJournal::initialise(jp);
      pool->journal_ = new PoolJournal(jp, 0);
    } catch (...) {
      delete pool;
      unlink(jp.shm.c_str());
      throw;
    }
    return pool;
  }
  uint64_t imageSize = static_cast<uint64_t>(st.st_size);
  JournalScan scan = PoolJournal::scan(jp.journal, imageSize);
  // Fast restart: the working pool survived (no reboot) and holds exactly the last durable
  // commit. A higher sequence means a commit whose journal record never became durable (it was
  // never acknowledged): rebuild without it.
  bool shmIntact = stat(jp.shm.c_str(), &st) == 0 && static_cast<uint64_t>(st.st_size) == imageSize;
  if (shmIntact && scan.validEnd == scan.fileSize) {
    PMEMobjpool* pop = pmemobj_open(jp.shm.c_str(), kLayoutName);
    if (pop) {
      pool = new Pool(pop, path, jp.shm);
      try {
        pool->initOrCheckRoot(false);
        uint64_t want = scan.records ? scan.lastSeq : PoolJournal::imageSeq(jp, pool->rootSeqOffset());
        if (pool->root_->reserved[0] != want) {
          delete pool;
          pool = nullptr;
        }
      } catch (const PoolErr&) {
        delete pool;
        pool = nullptr;
      }
    } else if (errno == EWOULDBLOCK || errno == EAGAIN) {
      throw PoolErr("POOL_BUSY", "pool " + path + " is open in another process");
    }
  }
  if (!pool) {
    PoolJournal::rebuild(jp, scan);
    PMEMobjpool* pop = pmemobj_open(jp.shm.c_str(), kLayoutName);
    if (!pop) throw PoolErr("POOL_CORRUPT", "pool " + path + " rebuilt from " + jp.image + " + " + jp.journal +
                                                " does not open: " + lastPmemError());
    pool = new Pool(pop, path, jp.shm);
    try {
      pool->initOrCheckRoot(false);
    } catch (...) {
      delete pool;
      throw;
    }
  }
  try {
    pool->checkFlushesRecorded();
    pool->journal_ = new PoolJournal(jp, scan.validEnd);
    pool->journalCommit();  // what open and recovery wrote
  } catch (...) {
    delete pool;
    throw;
  }
  return pool;
}

bool Pool::startPrefault(bool idle) {
  if (prefault_) return true;
  if (sync_ != SyncPolicy::Flush && sync_ != SyncPolicy::Journal) return false;
  prefault_ = std::make_unique<PoolPrefault>(base_, size_, [this] { return used(); }, idle);
  return true;
}

int64_t Pool::prefaulted() const {
  if (!prefault_ || prefault_->refused()) return -1;
  return static_cast<int64_t>(prefault_->mapped());
}

uint64_t Pool::used() const {
  size_t v = 0;
  if (pmemobj_ctl_get(pop_, "stats.heap.curr_allocated", &v) != 0) return 0;
  return v;
}

void Pool::initOrCheckRoot(bool created) {
  size_t rootSize = pmemobj_root_size(pop_);
  if (rootSize != 0 && rootSize != sizeof(PoolRoot))
    throw PoolErr("POOL_LAYOUT", "pool " + path_ + " has a root object of " + std::to_string(rootSize) +
                                     " bytes; this build expects " + std::to_string(sizeof(PoolRoot)));
  PMEMoid rootOid = pmemobj_root(pop_, sizeof(PoolRoot));
  if (OID_IS_NULL(rootOid)) throw PoolErr("POOL_OPEN", "cannot allocate the pool root: " + lastPmemError());
  uuid_lo_ = rootOid.pool_uuid_lo;
  root_ = at<PoolRoot>(rootOid.off);
  if (root_->magic == 0 && root_->root_map == 0) {
    // New pool, or a create interrupted before this transaction committed.
    (void)created;
    Tx tx(*this);
    tx.run([&] {
      tx.snapshot(rootOid.off, sizeof(PoolRoot));
      root_->root_map = createMap(tx);
      root_->layout_version = kLayoutVersion;
      root_->leaf_cap = kLeafCap;
      root_->inner_cap = kInnerCap;
      root_->magic = kRootMagic;
    });
    return;
  }
  if (root_->magic != kRootMagic) throw PoolErr("POOL_CORRUPT", "pool " + path_ + " has no valid pmemcql root");
  if (root_->layout_version != kLayoutVersion || root_->leaf_cap != kLeafCap || root_->inner_cap != kInnerCap)
    throw PoolErr("POOL_LAYOUT", "pool " + path_ + " has layout version " + std::to_string(root_->layout_version) +
                                     " (fanout " + std::to_string(root_->leaf_cap) + "/" +
                                     std::to_string(root_->inner_cap) + "); this build reads version " +
                                     std::to_string(kLayoutVersion) + " (fanout " + std::to_string(kLeafCap) + "/" +
                                     std::to_string(kInnerCap) + ")");
  if (!inBounds(root_->root_map, sizeof(MapHeader)) || at<MapHeader>(root_->root_map)->magic != kMapMagic)
    throw PoolErr("POOL_CORRUPT", "pool " + path_ + ": root map is damaged");
}

[[noreturn]] void throwPoolFull(const Pool& pool) {
  throw PoolErr("POOL_FULL", "pool " + pool.path() + " is full (pool_size = " + std::to_string(pool.size()) +
                                 " bytes, " + std::to_string(pool.used()) +
                                 " in use); raise pool_size or delete data; the write was not applied");
}

void Tx::begin() {
  if (pmemobj_tx_begin(pool_.pop(), nullptr, TX_PARAM_NONE) != 0) {
    std::string msg = lastPmemError();
    pmemobj_tx_end();
    throw PoolErr("TX_FAILED", "cannot begin a transaction: " + msg);
  }
  pmemobj_tx_set_failure_behavior(POBJ_TX_FAILURE_RETURN);
  pool_.touched().clear();
}

void Tx::commit() {
  // Before the commit point: libpmemobj drains (fences) after flushing its own ranges, which
  // orders these flushes too.
  for (uint64_t off : flushAtCommit_) pmemobj_flush(pool_.pop(), pool_.at<char>(off), sizeof(LeafSlot));
  flushAtCommit_.clear();
  for (const ByteRange& r : rangesAtCommit_) pmemobj_flush(pool_.pop(), pool_.at<char>(r.off), r.len);
  rangesAtCommit_.clear();
  // Undo entries are already msynced one by one by libpmemobj; the data they protect goes in
  // one msync here instead of one per range at commit (those ranges carry NO_FLUSH).
  if (pool_.sync() == SyncPolicy::MsyncRanges) {
    try {
      pool_.syncAll();
    } catch (...) {
      abort();
      throw;
    }
  }
  if (pool_.sync() == SyncPolicy::Journal) {
    // The commit sequence lives in the pool, so the journal record of this commit carries it
    // and open can tell whether the /dev/shm pool is ahead of the journal.
    try {
      addRange(pool_.rootSeqOffset(), sizeof(uint64_t), 0);
    } catch (...) {
      abort();
      throw;
    }
    pool_.root()->reserved[0]++;
  }
  pmemobj_tx_commit();
  int err = pmemobj_tx_end();
  pool_.touched().clear();
  if (err == ENOMEM) throwPoolFull(pool_);
  if (err != 0) throw PoolErr("TX_FAILED", "transaction failed: " + std::string(strerror(err)));
  if (pool_.sync() == SyncPolicy::MsyncCommit) pool_.syncAll();
  if (pool_.sync() == SyncPolicy::Journal) pool_.journalCommit();
}

void Tx::abort() {
  flushAtCommit_.clear();
  rangesAtCommit_.clear();
  if (pmemobj_tx_stage() == TX_STAGE_WORK) pmemobj_tx_abort(ECANCELED);
  pmemobj_tx_end();
  pool_.touched().clear();
}

uint64_t Tx::alloc(size_t size, TypeNum type) {
  return xalloc(size, type, pool_.sync() == SyncPolicy::MsyncRanges ? POBJ_XALLOC_NO_FLUSH : 0);
}

uint64_t Tx::allocUnflushed(size_t size, TypeNum type, size_t flushed) {
  uint64_t off = xalloc(size, type, POBJ_XALLOC_NO_FLUSH);
  // msync policies: the pool-wide msync of the commit covers the head (as in writeSlot).
  if (pool_.sync() == SyncPolicy::Flush || pool_.sync() == SyncPolicy::Journal)
    rangesAtCommit_.push_back(ByteRange{off, flushed});
  return off;
}

uint64_t Tx::xalloc(size_t size, TypeNum type, uint64_t flags) {
  PMEMoid oid = pmemobj_tx_xalloc(size, type, POBJ_XALLOC_NO_ABORT | flags);
  if (OID_IS_NULL(oid)) {
    if (errno == ENOMEM) throwPoolFull(pool_);
    throw PoolErr("TX_FAILED", "allocation of " + std::to_string(size) + " bytes failed: " + lastPmemError());
  }
  pool_.touched().add(oid.off, ~0ull, true);
  return oid.off;
}

void Tx::free(uint64_t off) {
  int r = pmemobj_tx_xfree(PMEMoid{pool_.uuidLo(), off}, POBJ_XFREE_NO_ABORT);
  if (r != 0) {
    if (r == ENOMEM || errno == ENOMEM) throwPoolFull(pool_);
    throw PoolErr("TX_FAILED", "free failed: " + lastPmemError());
  }
}

void Tx::addRange(uint64_t off, size_t size, uint64_t flags) {
  if (pool_.sync() == SyncPolicy::MsyncRanges) flags |= POBJ_XADD_NO_FLUSH;
  int r = pmemobj_tx_xadd_range(PMEMoid{pool_.uuidLo(), off}, 0, size, POBJ_XADD_NO_ABORT | flags);
  if (r != 0) {
    if (r == ENOMEM || errno == ENOMEM) throwPoolFull(pool_);
    throw PoolErr("TX_FAILED", "undo log failed: " + lastPmemError());
  }
}

}  // namespace pmemcql
