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
bool gJournaling = false;

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

bool emulatedByUser() {
  const char* force = getenv("PMEM_IS_PMEM_FORCE");
  return force && atoi(force) == 1;
}

Durability detectMode(const std::string& path) {
  if (emulatedByUser()) return Durability::Emulated;
  return isDax(path) ? Durability::Pmem : Durability::Disk;
}

// Whether `path` is (or, not existing yet, would be) on DAX: a file that does not exist is probed by a
// scratch file next to it.
bool isDaxTarget(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0) return isDax(path);
  std::string probe = path + ".dax-probe";
  int fd = ::open(probe.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  if (fd < 0) return false;
  bool dax = ftruncate(fd, 4096) == 0 && isDax(probe);
  ::close(fd);
  unlink(probe.c_str());
  return dax;
}

}  // namespace

std::string lastPmemError() {
  const char* m = pmemobj_errormsg();
  return m && *m ? std::string(m) : std::string(strerror(errno));
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

[[noreturn]] void throwOpenError(const std::string& path, int err, const std::string& msg) {
  if (msg.find("layout") != std::string::npos)
    throw PoolErr("POOL_LAYOUT", "pool " + path + " has another layout: " + msg);
  if (err == EWOULDBLOCK || err == EAGAIN) throw PoolErr("POOL_BUSY", "pool " + path + " is open in another process");
  throw PoolErr("POOL_OPEN", "cannot open pool " + path + ": " + msg);
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

bool Pool::enableJournaling() {
  if (gAnyPoolOpened) return gJournaling;
  // PMEM_IS_PMEM_FORCE=1 means "emulate pmem on the pool file itself": not a journaled pool then.
  // Any other value (test harnesses pass 0) is overridden for the probe and put back.
  const char* user = getenv("PMEM_IS_PMEM_FORCE");
  if (user && atoi(user) == 1) return false;
  std::string saved = user ? user : "";
  // libpmem reads PMEM_IS_PMEM_FORCE once, on its first pmem_is_pmem() call: make that call now, then
  // put the variable back so child processes do not inherit it.
  setenv("PMEM_IS_PMEM_FORCE", "1", 1);
  char probe[64];
  bool pmemMode = pmem_is_pmem(probe, sizeof probe) == 1;
  if (user) setenv("PMEM_IS_PMEM_FORCE", saved.c_str(), 1);
  else unsetenv("PMEM_IS_PMEM_FORCE");
  if (!pmemMode) return false;  // libpmem had read the variable already
  gJournaling = true;
  flush_recorder::enable();
  return true;
}

Pool* Pool::open(const std::string& path, uint64_t size, const CommitLogPolicy& policy,
                 const OpenProgress& progress) {
  gAnyPoolOpened = true;
  // Emulated pmem (PMEM_IS_PMEM_FORCE=1) and real pmem (DAX) are durable at commit: no journal.
  if (emulatedByUser() || isDaxTarget(path)) return openDirect(path, size);
  if (!gJournaling)
    throw PoolErr("POOL_OPEN", "pool " + path + " is on a disk, but libpmem had decided about persistent memory "
                               "before the pool opened, so its commits cannot be journaled");
  return openJournaled(path, size, policy, progress);
}

Pool* Pool::openDirect(const std::string& path, uint64_t size) {
  struct stat st;
  // A journaled pool's working file changes only through its journal: writing to it directly would leave the
  // journal and the image behind it.
  if (stat(JournalPaths::forPool(path).image.c_str(), &st) == 0)
    throw PoolErr("POOL_OPEN", "pool " + path + " is journaled (" + JournalPaths::forPool(path).image +
                                   " and the journal files next to it): open it without PMEM_IS_PMEM_FORCE=1");
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
      } else {
        throwOpenError(path, e, msg);
      }
    }
  }
  Pool* pool = new Pool(pop, path, false);
  try {
    pool->initOrCheckRoot(created);
  } catch (...) {
    delete pool;
    throw;
  }
  return pool;
}

Pool::Pool(PMEMobjpool* pop, std::string path, bool journaled)
    : pop_(pop), base_(reinterpret_cast<char*>(pop)), path_(std::move(path)) {
  // Persistent statistics give `used` across restarts at the cost of one atomic add per alloc.
  int stats = POBJ_STATS_ENABLED_PERSISTENT;
  pmemobj_ctl_set(pop_, "stats.enabled", &stats);
  struct stat st;
  size_ = stat(path_.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  if (journaled) {
    mode_ = Durability::Disk;
    sync_ = SyncPolicy::Journal;
    return;
  }
  mode_ = detectMode(path_);
  sync_ = SyncPolicy::Flush;
}

Pool::~Pool() {
  prefault_.reset();  // its thread touches the mapping
  if (pop_) pmemobj_close(pop_);
  // What close wrote is not journaled: the journal state is the pool as of its last commit, which is
  // what a crash instead of this close would have left. (Pmem and emulated pools record nothing that
  // anyone reads; their ranges go too.)
  if (flush_recorder::enabled()) flush_recorder::dropRanges(base_, size_);
  journal_.reset();  // stops its threads after a last sync
  if (lockFd_ >= 0) ::close(lockFd_);
}

// The journal is only as good as the interception of libpmemobj's libpmem calls (symbol
// resolution: the addon's pmem_flush must win over libpmem's). A build or loader where it does not
// would journal nothing and lose data on the next reboot, silently: refuse to run instead.
void Pool::checkFlushesRecorded() {
  uint64_t before = flush_recorder::recordedCount();
  pmemobj_flush(pop_, root_, sizeof(PoolRoot));  // a flush changes no bytes
  if (flush_recorder::recordedCount() == before)
    throw PoolErr("POOL_OPEN", "this build cannot journal a disk pool: libpmemobj's flushes do not reach the "
                               "addon's recorder; put the pool on persistent memory or tmpfs with "
                               "PMEM_IS_PMEM_FORCE=1 (no power safety)");
}

void Pool::journalCommit() {
  if (journal_) journal_->commit(base_, size_, root_->reserved[kRootSeqSlot]);
}

bool Pool::startPrefault(bool idle) {
  if (prefault_) return true;
  // A journaled pool is a file in the page cache: populated for writing, every page would be written back once.
  prefault_ = std::make_unique<PoolPrefault>(base_, size_, [this] { return used(); }, idle, sync_ != SyncPolicy::Journal);
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
  // A journaled pool whose sync failed acknowledges nothing more: refuse before anything changes.
  if (pool_.journal()) pool_.journal()->checkWritable();
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
  const bool journaled = pool_.sync() == SyncPolicy::Journal;
  if (journaled) {
    // The commit sequence lives in the pool, so the journal record of this commit carries it and open can tell
    // whether the working pool is ahead of the journal. Not undo-logged (no log space: a full pool still takes
    // deletes): libpmemobj flushes it at commit, a failed commit puts it back below, and a crash before the
    // commit point leaves the working pool one ahead of the journal, which open rebuilds.
    try {
      addRange(pool_.rootSeqOffset(), sizeof(uint64_t), POBJ_XADD_NO_SNAPSHOT);
    } catch (...) {
      abort();
      throw;
    }
    pool_.root()->reserved[kRootSeqSlot]++;
  }
  pmemobj_tx_commit();
  int err = pmemobj_tx_end();
  pool_.touched().clear();
  if (err != 0 && journaled) {
    pool_.root()->reserved[kRootSeqSlot]--;
    pmemobj_persist(pool_.pop(), &pool_.root()->reserved[kRootSeqSlot], sizeof(uint64_t));
  }
  if (err == ENOMEM) throwPoolFull(pool_);
  if (err != 0) throw PoolErr("TX_FAILED", "transaction failed: " + std::string(strerror(err)));
  if (pool_.sync() == SyncPolicy::Journal) pool_.journalCommit();
  else if (flush_recorder::enabled()) flush_recorder::dropRanges(pool_.at<char>(0), pool_.size());
}

void Tx::abort() {
  flushAtCommit_.clear();
  rangesAtCommit_.clear();
  if (pmemobj_tx_stage() == TX_STAGE_WORK) pmemobj_tx_abort(ECANCELED);
  pmemobj_tx_end();
  pool_.touched().clear();
}

uint64_t Tx::alloc(size_t size, TypeNum type) { return xalloc(size, type, 0); }

uint64_t Tx::allocUnflushed(size_t size, TypeNum type, size_t flushed) {
  uint64_t off = xalloc(size, type, POBJ_XALLOC_NO_FLUSH);
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
  int r = pmemobj_tx_xadd_range(PMEMoid{pool_.uuidLo(), off}, 0, size, POBJ_XADD_NO_ABORT | flags);
  if (r != 0) {
    if (r == ENOMEM || errno == ENOMEM) throwPoolFull(pool_);
    throw PoolErr("TX_FAILED", "undo log failed: " + lastPmemError());
  }
}

}  // namespace pmemcql
