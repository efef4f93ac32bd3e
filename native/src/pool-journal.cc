#include "pool-journal.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "pool-error.h"

namespace pmemcql {

namespace {

constexpr uint64_t kRecordMagic = 0x314e524a4c514350ull;  // "PCQLJRN1" read as little-endian bytes
constexpr size_t kHeaderBytes = 32;   // magic, seq, u32 ranges, u32 zero, u64 record bytes
constexpr size_t kRangeHeaderBytes = 12;  // u64 offset, u32 length
constexpr size_t kChecksumBytes = 8;
constexpr uint64_t kMaxRangeChunk = 1ull << 30;  // lengths are u32: longer ranges are split
constexpr uint64_t kDefaultCheckpointBytes = 64ull << 20;
constexpr size_t kCopyChunk = 1 << 20;

std::string errnoText() { return strerror(errno); }

[[noreturn]] void ioError(const std::string& what) {
  throw PoolErr("POOL_IO", what + ": " + errnoText());
}

// 64-bit hash over 8-byte words (multiply-rotate, murmur3's finaliser at the end): a torn or
// partly written record fails it. Not cryptographic; the journal is ours alone.
uint64_t recordHash(const char* p, size_t n) {
  const uint64_t k1 = 0x87c37b91114253d5ull, k2 = 0x4cf5ad432745937full;
  uint64_t h = 0x9e3779b97f4a7c15ull ^ (n * k1);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h ^= w * k1;
    h = ((h << 31) | (h >> 33)) * k2;
  }
  uint64_t tail = 0;
  memcpy(&tail, p + i, n - i);
  h ^= tail * k2;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

template <class T>
T load(const char* p) {
  T v;
  memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void store(char* p, T v) {
  memcpy(p, &v, sizeof v);
}

void writeAll(int fd, const char* p, size_t n, uint64_t at, const std::string& file) {
  while (n > 0) {
    ssize_t w = pwrite(fd, p, n, static_cast<off_t>(at));
    if (w < 0) {
      if (errno == EINTR) continue;
      ioError("write to " + file + " failed");
    }
    p += w;
    n -= static_cast<size_t>(w);
    at += static_cast<uint64_t>(w);
  }
}

bool readAll(int fd, char* p, size_t n, uint64_t at) {
  while (n > 0) {
    ssize_t r = pread(fd, p, n, static_cast<off_t>(at));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
    at += static_cast<uint64_t>(r);
  }
  return true;
}

struct Fd {
  int fd;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

std::string dirOf(const std::string& path) {
  size_t s = path.rfind('/');
  return s == std::string::npos ? "." : s == 0 ? "/" : path.substr(0, s);
}

// A rename or a new file is durable only once its directory is.
void fsyncDir(const std::string& path) {
  Fd d(::open(dirOf(path).c_str(), O_RDONLY | O_DIRECTORY));
  if (d.fd < 0 || fsync(d.fd) != 0) ioError("fsync of directory " + dirOf(path) + " failed");
}

uint64_t fileSize(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

/**
 * Walks the records of `journalFd` from offset 0; with `targetFd` >= 0 writes each valid record's
 * ranges into it at their pool offsets. Stops at the first record that is cut short, fails its
 * checksum or names bytes outside the pool: that record's fdatasync never returned, so its
 * apply() was never acknowledged.
 */
JournalScan walk(int journalFd, int targetFd, uint64_t poolSize, const std::string& targetName) {
  JournalScan s;
  s.fileSize = fileSize(journalFd);
  std::vector<char> rec;
  uint64_t at = 0;
  while (at + kHeaderBytes + kChecksumBytes <= s.fileSize) {
    char hdr[kHeaderBytes];
    if (!readAll(journalFd, hdr, sizeof hdr, at)) break;
    uint64_t bytes = load<uint64_t>(hdr + 24);
    uint32_t ranges = load<uint32_t>(hdr + 16);
    if (load<uint64_t>(hdr) != kRecordMagic || bytes < kHeaderBytes + kChecksumBytes || bytes > s.fileSize - at) break;
    rec.resize(bytes);
    if (!readAll(journalFd, rec.data(), bytes, at)) break;
    if (recordHash(rec.data(), bytes - kChecksumBytes) != load<uint64_t>(rec.data() + bytes - kChecksumBytes)) break;
    // Validate every range before writing any of them.
    size_t p = kHeaderBytes;
    bool ok = true;
    for (uint32_t i = 0; i < ranges && ok; i++) {
      if (p + kRangeHeaderBytes > bytes - kChecksumBytes) { ok = false; break; }
      uint64_t off = load<uint64_t>(rec.data() + p);
      uint32_t len = load<uint32_t>(rec.data() + p + 8);
      p += kRangeHeaderBytes;
      if (off > poolSize || len > poolSize - off || p + len > bytes - kChecksumBytes) ok = false;
      p += len;
    }
    if (!ok || p != bytes - kChecksumBytes) break;
    if (targetFd >= 0) {
      p = kHeaderBytes;
      for (uint32_t i = 0; i < ranges; i++) {
        uint64_t off = load<uint64_t>(rec.data() + p);
        uint32_t len = load<uint32_t>(rec.data() + p + 8);
        writeAll(targetFd, rec.data() + p + kRangeHeaderBytes, len, off, targetName);
        p += kRangeHeaderBytes + len;
      }
    }
    s.records++;
    s.lastSeq = load<uint64_t>(hdr + 8);
    at += bytes;
    s.validEnd = at;
  }
  return s;
}

// Copies `from` into the already-sized file `to`, leaving all-zero chunks as holes (`to` is
// zero-filled: fresh or fallocated).
void copyFile(const std::string& from, int toFd, const std::string& to) {
  Fd in(::open(from.c_str(), O_RDONLY));
  if (in.fd < 0) ioError("cannot open " + from);
  std::unique_ptr<char[]> buf(new char[kCopyChunk]);
  static const char zero[4096] = {};
  uint64_t at = 0;
  for (;;) {
    ssize_t r = pread(in.fd, buf.get(), kCopyChunk, static_cast<off_t>(at));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) ioError("read of " + from + " failed");
    if (r == 0) break;
    bool allZero = true;
    for (ssize_t i = 0; i < r && allZero; i += sizeof zero)
      allZero = memcmp(buf.get() + i, zero, std::min<size_t>(sizeof zero, static_cast<size_t>(r - i))) == 0;
    if (!allZero) writeAll(toFd, buf.get(), static_cast<size_t>(r), at, to);
    at += static_cast<uint64_t>(r);
  }
}

uint64_t checkpointThreshold() {
  const char* v = getenv("PMEMCQL_JOURNAL_CHECKPOINT_BYTES");
  if (v && *v) {
    char* end = nullptr;
    unsigned long long n = strtoull(v, &end, 10);
    if (end && *end == 0 && n > 0) return n;
  }
  return kDefaultCheckpointBytes;
}

}  // namespace

JournalPaths JournalPaths::forPool(const std::string& poolPath) {
  std::string stem = poolPath;
  if (stem.size() > 5 && stem.compare(stem.size() - 5, 5, ".pool") == 0) stem.resize(stem.size() - 5);
  JournalPaths p;
  p.image = stem + ".image";
  p.journal = stem + ".journal";
  p.lock = stem + ".lock";
  // The shm name follows the data directory's real location, so two data directories never
  // share a working pool and a symlinked path finds the same one.
  std::string dir = dirOf(poolPath), base = poolPath.substr(poolPath.rfind('/') + 1);
  char real[PATH_MAX];
  std::string key = (realpath(dir.c_str(), real) ? std::string(real) : dir) + "/" + base;
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a
  for (unsigned char c : key) h = (h ^ c) * 0x100000001b3ull;
  char name[64];
  snprintf(name, sizeof name, "/dev/shm/pmemcql-%016llx.pool", static_cast<unsigned long long>(h));
  const char* dirOverride = getenv("PMEMCQL_JOURNAL_SHM_DIR");  // tests only
  p.shm = dirOverride && *dirOverride ? std::string(dirOverride) + (name + 8) : std::string(name);
  return p;
}

void PoolJournal::checkShmRoom(const std::string& shmPath, uint64_t bytes) {
  struct statvfs vfs;
  if (statvfs(dirOf(shmPath).c_str(), &vfs) != 0) return;
  uint64_t avail = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  if (avail < bytes)
    throw PoolErr("POOL_OPEN", "PMEMCQL_DISK_SYNC=journal (disk_sync: journal) keeps the working pool in " +
                                   dirOf(shmPath) + ", which has " + std::to_string(avail >> 20) +
                                   " MiB free; the pool needs " + std::to_string(bytes >> 20) +
                                   " MiB (pool_size). Free memory there, lower pool_size for a new pool, or use "
                                   "disk_sync: ranges");
}

JournalScan PoolJournal::scan(const std::string& journalPath, uint64_t poolSize) {
  Fd fd(::open(journalPath.c_str(), O_RDONLY));
  if (fd.fd < 0) {
    if (errno == ENOENT) return JournalScan{};
    ioError("cannot open journal " + journalPath);
  }
  return walk(fd.fd, -1, poolSize, "");
}

uint64_t PoolJournal::imageSeq(const JournalPaths& paths, uint64_t rootSeqOff) {
  Fd fd(::open(paths.image.c_str(), O_RDONLY));
  uint64_t seq = 0;
  if (fd.fd < 0 || !readAll(fd.fd, reinterpret_cast<char*>(&seq), sizeof seq, rootSeqOff))
    throw PoolErr("POOL_OPEN", "cannot read pool image " + paths.image + ": " + errnoText());
  return seq;
}

void PoolJournal::rebuild(const JournalPaths& paths, const JournalScan& scan) {
  struct stat st;
  if (stat(paths.image.c_str(), &st) != 0) ioError("cannot stat pool image " + paths.image);
  uint64_t size = static_cast<uint64_t>(st.st_size);
  std::string tmp = paths.shm + ".rebuild";
  unlink(tmp.c_str());
  unlink(paths.shm.c_str());  // frees its memory before the copy needs it
  checkShmRoom(paths.shm, size);
  try {
    Fd out(::open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600));
    if (out.fd < 0) ioError("cannot create " + tmp);
    int e = posix_fallocate(out.fd, 0, static_cast<off_t>(size));
    if (e != 0) {
      errno = e;
      if (e == ENOSPC) checkShmRoom(paths.shm, ~0ull >> 1);
      ioError("cannot allocate " + tmp);
    }
    copyFile(paths.image, out.fd, tmp);
    Fd j(::open(paths.journal.c_str(), O_RDWR));
    if (j.fd >= 0) {
      JournalScan again = walk(j.fd, out.fd, size, tmp);
      if (again.validEnd != scan.validEnd) throw PoolErr("POOL_IO", "journal " + paths.journal + " changed while read");
      // Cut the torn tail now, durably: a record appended after it must not follow garbage.
      if (again.fileSize != again.validEnd) {
        if (ftruncate(j.fd, static_cast<off_t>(again.validEnd)) != 0 || fsync(j.fd) != 0)
          ioError("cannot truncate journal " + paths.journal);
      }
    }
    // No fsync: /dev/shm does not survive a reboot anyway; the rename makes the pool appear whole.
    if (rename(tmp.c_str(), paths.shm.c_str()) != 0) ioError("cannot rename " + tmp);
  } catch (...) {
    unlink(tmp.c_str());
    throw;
  }
}

void PoolJournal::initialise(const JournalPaths& paths) {
  // The journal first (empty), the image last: an existing image means "initialised".
  {
    Fd j(::open(paths.journal.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600));
    if (j.fd < 0 || fsync(j.fd) != 0) ioError("cannot create journal " + paths.journal);
  }
  struct stat st;
  if (stat(paths.shm.c_str(), &st) != 0) ioError("cannot stat " + paths.shm);
  std::string tmp = paths.image + ".tmp";
  try {
    Fd out(::open(tmp.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600));
    if (out.fd < 0) ioError("cannot create pool image " + tmp);
    // Allocated up front, like the pool itself: a full disk fails here, not at a checkpoint.
    int e = posix_fallocate(out.fd, 0, st.st_size);
    if (e != 0) {
      errno = e;
      ioError("cannot allocate pool image " + tmp + " (" + std::to_string(st.st_size) + " bytes)");
    }
    copyFile(paths.shm, out.fd, tmp);
    if (fsync(out.fd) != 0) ioError("fsync of " + tmp + " failed");
    if (rename(tmp.c_str(), paths.image.c_str()) != 0) ioError("cannot rename " + tmp);
    fsyncDir(paths.image);
  } catch (...) {
    unlink(tmp.c_str());
    throw;
  }
}

PoolJournal::PoolJournal(JournalPaths paths, uint64_t end)
    : paths_(std::move(paths)), end_(end), checkpointAt_(checkpointThreshold()) {
  fd_ = ::open(paths_.journal.c_str(), O_RDWR | O_CREAT, 0600);
  if (fd_ < 0) ioError("cannot open journal " + paths_.journal);
}

PoolJournal::~PoolJournal() {
  if (fd_ >= 0) ::close(fd_);
}

void PoolJournal::commit(const char* base, uint64_t size, uint64_t seq) {
  flush_recorder::takeRanges(base, size, pending_);
  if (pending_.empty()) return;
  // Ranges over 1 GiB are split: the length field is 32 bits.
  size_t count = 0, bytes = kHeaderBytes + kChecksumBytes;
  for (const ByteRange& r : pending_) {
    uint64_t chunks = (r.len + kMaxRangeChunk - 1) / kMaxRangeChunk;
    count += chunks;
    bytes += chunks * kRangeHeaderBytes + r.len;
  }
  record_.resize(bytes);
  char* p = record_.data();
  store<uint64_t>(p, kRecordMagic);
  store<uint64_t>(p + 8, seq);
  store<uint32_t>(p + 16, static_cast<uint32_t>(count));
  store<uint32_t>(p + 20, 0);
  store<uint64_t>(p + 24, bytes);
  p += kHeaderBytes;
  for (const ByteRange& r : pending_) {
    for (uint64_t done = 0; done < r.len;) {
      uint64_t len = std::min(kMaxRangeChunk, r.len - done);
      store<uint64_t>(p, r.off + done);
      store<uint32_t>(p + 8, static_cast<uint32_t>(len));
      memcpy(p + kRangeHeaderBytes, base + r.off + done, len);
      p += kRangeHeaderBytes + len;
      done += len;
    }
  }
  store<uint64_t>(p, recordHash(record_.data(), bytes - kChecksumBytes));
  // A failed write leaves end_ where it was: the next record overwrites whatever got written.
  writeAll(fd_, record_.data(), bytes, end_, paths_.journal);
  if (fdatasync(fd_) != 0) ioError("fdatasync of journal " + paths_.journal + " failed");
  end_ += bytes;
  pending_.clear();
  if (record_.capacity() > (16u << 20)) std::vector<char>().swap(record_);
  if (end_ >= checkpointAt_) {
    try {
      checkpoint();
    } catch (const PoolErr&) {
      // The commit is durable in the journal; the checkpoint is tried again one threshold later.
      checkpointAt_ = end_ + checkpointThreshold();
    }
  }
}

// Replays the journal into the image, makes the image durable, then empties the journal.
// Replaying is idempotent (each range overwrites bytes with the values they had after that
// record, in record order), so a crash at any point here is safe: until the truncation is
// durable the journal still holds every record and a rebuild replays them again over a
// partly updated image, reaching the same bytes; after it, the image is durable already.
void PoolJournal::checkpoint() {
  Fd img(::open(paths_.image.c_str(), O_RDWR));
  if (img.fd < 0) ioError("cannot open pool image " + paths_.image);
  JournalScan s = walk(fd_, img.fd, fileSize(img.fd), paths_.image);
  if (s.validEnd != end_) throw PoolErr("POOL_IO", "journal " + paths_.journal + " does not read back whole");
  if (fsync(img.fd) != 0) ioError("fsync of pool image " + paths_.image + " failed");
  if (ftruncate(fd_, 0) != 0 || fsync(fd_) != 0) ioError("cannot truncate journal " + paths_.journal);
  end_ = 0;
  checkpointAt_ = checkpointThreshold();
}

}  // namespace pmemcql
