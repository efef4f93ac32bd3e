#include "journal-recovery.h"

#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>

#include "journal-checkpoint-thread.h"
#include "journal-replay.h"
#include "layout.h"
#include "pool-error.h"

namespace pmemcql {

namespace {

constexpr size_t kCopyChunk = 1 << 20;

struct Fd {
  int fd;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  int release() {
    int f = fd;
    fd = -1;
    return f;
  }
};

[[noreturn]] void ioError(const std::string& what) { throw PoolErr("POOL_IO", what + ": " + strerror(errno)); }

template <class T>
T load(const char* p) {
  T v;
  memcpy(&v, p, sizeof v);
  return v;
}

bool readAt(int fd, char* p, size_t n, uint64_t at) {
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

void writeAt(int fd, const char* p, size_t n, uint64_t at, const std::string& name) {
  while (n > 0) {
    ssize_t w = pwrite(fd, p, n, static_cast<off_t>(at));
    if (w < 0) {
      if (errno == EINTR) continue;
      ioError("write to " + name + " failed");
    }
    p += w;
    n -= static_cast<size_t>(w);
    at += static_cast<uint64_t>(w);
  }
}

uint64_t fileSize(int fd) {
  struct stat st;
  return fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

// Calls fn(from, to) for the parts of the file on `fd` that may hold non-zero bytes. FIEMAP (with its sync flag,
// so dirty pages are on disk and their extents written) tells which extents are allocated but unwritten: they read
// as zeros (a fresh pool is one such extent but for its first pages). Without FIEMAP (tmpfs), SEEK_DATA skips holes.
// Calls an OpenProgress about once a second (and not at all for steps that end sooner).
class ProgressTicker {
 public:
  ProgressTicker(const OpenProgress& progress, std::string step, uint64_t total)
      : progress_(progress), step_(std::move(step)), total_(total), next_(std::chrono::steady_clock::now() + kEvery) {}
  void at(uint64_t done) {
    if (!progress_) return;
    auto now = std::chrono::steady_clock::now();
    if (now < next_) return;
    next_ = now + kEvery;
    progress_(step_, done, total_);
  }

 private:
  static constexpr std::chrono::seconds kEvery{1};
  const OpenProgress& progress_;
  std::string step_;
  uint64_t total_;
  std::chrono::steady_clock::time_point next_;
};

template <class Fn>
void forEachDataRange(int fd, uint64_t size, Fn&& fn) {
  constexpr unsigned kExtents = 256;
  std::unique_ptr<char[]> buf(new char[sizeof(fiemap) + kExtents * sizeof(fiemap_extent)]);
  fiemap* fm = reinterpret_cast<fiemap*>(buf.get());
  uint64_t at = 0;
  bool first = true;
  while (at < size) {
    memset(fm, 0, sizeof(fiemap));
    fm->fm_start = at;
    fm->fm_length = size - at;
    fm->fm_flags = first ? FIEMAP_FLAG_SYNC : 0;
    fm->fm_extent_count = kExtents;
    if (ioctl(fd, FS_IOC_FIEMAP, fm) != 0) {
      if (!first) ioError("FIEMAP failed");
      // No FIEMAP here: holes by SEEK_DATA / SEEK_HOLE.
      while (at < size) {
        off_t data = lseek(fd, static_cast<off_t>(at), SEEK_DATA);
        if (data < 0) return;  // ENXIO: only a hole is left
        off_t hole = lseek(fd, data, SEEK_HOLE);
        const uint64_t end = hole < 0 ? size : std::min<uint64_t>(size, static_cast<uint64_t>(hole));
        fn(static_cast<uint64_t>(data), end);
        at = end;
      }
      return;
    }
    first = false;
    if (fm->fm_mapped_extents == 0) return;
    bool last = false;
    for (unsigned i = 0; i < fm->fm_mapped_extents; i++) {
      const fiemap_extent& e = fm->fm_extents[i];
      const uint64_t from = std::max<uint64_t>(e.fe_logical, at), to = std::min<uint64_t>(e.fe_logical + e.fe_length, size);
      if (from < to && !(e.fe_flags & FIEMAP_EXTENT_UNWRITTEN)) fn(from, to);
      at = std::max(at, to);
      if (e.fe_flags & FIEMAP_EXTENT_LAST) last = true;
    }
    if (last) return;
  }
}

// Copies `from` into the already-sized, zero-filled `toFd`, skipping holes and unwritten extents (which read as zeros
// and stay unwritten in `toFd`).
void copyInto(const std::string& from, int toFd, const std::string& to, const OpenProgress& progress) {
  Fd in(::open(from.c_str(), O_RDONLY));
  if (in.fd < 0) ioError("cannot open " + from);
  std::unique_ptr<char[]> buf(new char[kCopyChunk]);
  static const char zero[4096] = {};
  const uint64_t size = fileSize(in.fd);
  ProgressTicker ticker(progress, "copying " + baseNameOf(from), size);
  bool inKernel = true;  // copy_file_range: no trip through this process's memory
  forEachDataRange(in.fd, size, [&](uint64_t begin, uint64_t end) {
    while (inKernel && begin < end) {
      ticker.at(begin);
      loff_t inOff = static_cast<loff_t>(begin), outOff = static_cast<loff_t>(begin);
      const size_t len = static_cast<size_t>(std::min<uint64_t>(kCopyChunk * 64, end - begin));
      ssize_t n = copy_file_range(in.fd, &inOff, toFd, &outOff, len, 0);
      if (n > 0) begin += static_cast<uint64_t>(n);
      else if (n < 0 && errno == EINTR) continue;
      else if (n == 0 || errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP) inKernel = false;
      else ioError("copy of " + from + " into " + to + " failed");
    }
    // Without copy_file_range: through a buffer, leaving all-zero chunks out.
    for (uint64_t at = begin; at < end;) {
      ticker.at(at);
      size_t n = static_cast<size_t>(std::min<uint64_t>(kCopyChunk, end - at));
      if (!readAt(in.fd, buf.get(), n, at)) ioError("read of " + from + " failed");
      bool allZero = true;
      for (size_t i = 0; i < n && allZero; i += sizeof zero)
        allZero = memcmp(buf.get() + i, zero, std::min(sizeof zero, n - i)) == 0;
      if (!allZero) writeAt(toFd, buf.get(), n, at, to);
      at += n;
    }
  });
}

// A file of `size` bytes, allocated up front so a full disk fails here and not with SIGBUS later.
int createSized(const std::string& path, uint64_t size) {
  unlink(path.c_str());
  Fd out(::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600));
  if (out.fd < 0) ioError("cannot create " + path);
  int e = posix_fallocate(out.fd, 0, static_cast<off_t>(size));
  if (e != 0) {
    unlink(path.c_str());
    errno = e;
    ioError("cannot allocate " + std::to_string(size) + " bytes for " + path + " (pool_size)");
  }
  return out.release();
}

std::string fileLabel(const JournalPaths& paths, int i) { return baseNameOf(paths.journal[i]); }

}  // namespace

void fsyncDirOf(const std::string& path) {
  Fd d(::open(dirOf(path).c_str(), O_RDONLY | O_DIRECTORY));
  if (d.fd < 0 || fsync(d.fd) != 0) ioError("fsync of directory " + dirOf(path) + " failed");
}

JournalChain readJournalChain(const JournalPaths& paths, uint64_t poolSize, bool headersOnly) {
  JournalChain c;
  for (int i = 0; i < 2; i++) {
    Fd fd(::open(paths.journal[i].c_str(), O_RDONLY));
    if (fd.fd < 0) {
      if (errno != ENOENT) ioError("cannot open journal " + paths.journal[i]);
      continue;
    }
    c.scans[i] = headersOnly ? scanJournalHeaders(fd.fd, poolSize) : scanJournalFile(fd.fd, poolSize, nullptr);
  }
  int withHeader[2], n = 0;
  for (int i = 0; i < 2; i++)
    if (c.scans[i].hasHeader) withHeader[n++] = i;
  if (n == 2 && c.scans[withHeader[1]].header.baseSeq < c.scans[withHeader[0]].header.baseSeq)
    std::swap(withHeader[0], withHeader[1]);
  if (n >= 1) c.order[c.length++] = withHeader[0];
  if (n == 2) {
    const JournalFileScan &a = c.scans[withHeader[0]], &b = c.scans[withHeader[1]];
    // The second file continues the first only if the first was closed by an End record naming it. Otherwise its
    // records were never acknowledged as durable (a sync covers both files) and must not be replayed.
    if (a.ended && a.nextSalt == b.header.salt && a.lastSeq == b.header.baseSeq && a.header.poolId == b.header.poolId)
      c.order[c.length++] = withHeader[1];
    else if (b.records > 0)
      c.problems.push_back(fileLabel(paths, withHeader[1]) + ": " + std::to_string(b.records) +
                           " records not reached from " + fileLabel(paths, withHeader[0]) + " (" +
                           (a.ended ? "its End record names another file" : "it has no End record") +
                           "): not applied");
  }
  for (int i = 0; i < 2; i++) {
    if (!c.scans[i].problem.empty())
      c.problems.push_back(fileLabel(paths, i) + ": " + c.scans[i].problem + "; not applied, and nothing after it (" +
                           std::to_string(c.scans[i].fileSize - c.scans[i].validEnd) + " bytes)");
  }
  if (c.length > 0) c.tornTail = c.last().validEnd != c.last().fileSize;
  return c;
}

RootProbe probeRoot(const std::string& file, uint64_t rootOffset) {
  RootProbe r;
  Fd fd(::open(file.c_str(), O_RDONLY));
  char root[sizeof(PoolRoot)];
  if (fd.fd < 0 || !readAt(fd.fd, root, sizeof root, rootOffset)) return r;
  if (load<uint64_t>(root + offsetof(PoolRoot, magic)) != kRootMagic) return r;
  const size_t reserved = offsetof(PoolRoot, reserved);
  r.seq = load<uint64_t>(root + reserved + 8 * kRootSeqSlot);
  r.boot.hi = load<uint64_t>(root + reserved + 8 * kRootBootSlot);
  r.boot.lo = load<uint64_t>(root + reserved + 8 * (kRootBootSlot + 1));
  r.poolId = load<uint64_t>(root + reserved + 8 * kRootPoolIdSlot);
  r.ok = true;
  return r;
}

void rebuildWorkingPool(const JournalPaths& paths, const JournalChain& chain, uint64_t poolSize,
                        JournalOpenReport& report, const OpenProgress& progress) {
  const std::string tmp = paths.pool + ".rebuild";
  unlink(paths.pool.c_str());  // not trusted, and its blocks are better spent on the copy
  Fd out(createSized(tmp, poolSize));
  try {
    copyInto(paths.image, out.fd, tmp, progress);
    JournalReplay replay(out.fd, tmp);
    uint64_t journalBytes = 0, replayed = 0;
    for (int k = 0; k < chain.length; k++) journalBytes += chain.scans[chain.order[k]].validEnd;
    ProgressTicker ticker(progress, "replaying the journal", journalBytes);
    for (int k = 0; k < chain.length; k++) {
      Fd j(::open(paths.journal[chain.order[k]].c_str(), O_RDONLY));
      if (j.fd < 0) ioError("cannot open journal " + paths.journal[chain.order[k]]);
      JournalFileScan again = scanJournalFile(j.fd, poolSize, [&](uint64_t, const std::vector<RecordRange>& r) {
        replay.apply(r);
        report.replayedRecords++;
        for (const RecordRange& x : r) replayed += x.length;
        ticker.at(replayed);
      });
      if (again.validEnd != chain.scans[chain.order[k]].validEnd)
        throw PoolErr("POOL_IO", "journal " + paths.journal[chain.order[k]] + " changed while being read");
      report.journalBytes += again.validEnd;
    }
    replay.flush();
    JournalReplay::releaseSpareSlabs();
    // No fsync: a rebuilt pool is trusted only by this boot (its boot id is stamped next), and until the rename it
    // is not the working pool at all.
    if (rename(tmp.c_str(), paths.pool.c_str()) != 0) ioError("cannot rename " + tmp);
  } catch (...) {
    unlink(tmp.c_str());
    throw;
  }
}

void startJournal(const JournalPaths& paths, const JournalHeader& header) {
  char hdr[kJournalHeaderBytes];
  encodeJournalHeader(header, hdr);
  for (int i = 0; i < 2; i++) {
    Fd fd(::open(paths.journal[i].c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600));
    if (fd.fd < 0) ioError("cannot create journal " + paths.journal[i]);
    if (i == 0) writeAt(fd.fd, hdr, sizeof hdr, 0, paths.journal[i]);
    if (fsync(fd.fd) != 0) ioError("fsync of journal " + paths.journal[i] + " failed");
  }
  fsyncDirOf(paths.journal[0]);
}

JournalStart prepareJournalFiles(const JournalPaths& paths, const JournalChain& chain, uint64_t poolSize) {
  if (chain.length == 0) throw PoolErr("POOL_CORRUPT", "no journal file of " + paths.pool + " has a header");
  JournalStart st;
  for (int i = 0; i < 2; i++) {
    st.paths[i] = paths.journal[i];
    st.fds[i] = ::open(paths.journal[i].c_str(), O_RDWR | O_CREAT, 0600);
    if (st.fds[i] < 0) {
      int e = errno;
      if (i == 1) ::close(st.fds[0]);
      errno = e;
      ioError("cannot open journal " + paths.journal[i]);
    }
  }
  try {
    const int last = chain.order[chain.length - 1];
    const JournalFileScan& l = chain.scans[last];
    if (chain.length == 2 && l.ended) {
      // Both files complete: the older one into the image now, so the newer one can be checkpointed next.
      JournalState s;
      s.files[chain.order[0]].fd = st.fds[chain.order[0]];
      s.files[chain.order[0]].path = paths.journal[chain.order[0]];
      s.files[chain.order[0]].end = chain.scans[chain.order[0]].validEnd;
      JournalCheckpointThread::checkpoint(s, chain.order[0], paths.image, poolSize);
      JournalReplay::releaseSpareSlabs();
    }
    const int other = 1 - last;
    if (l.ended) {
      // The last file is complete: the next one starts where its End record says.
      JournalHeader h = l.header;
      h.salt = l.nextSalt;
      h.baseSeq = l.lastSeq;
      char hdr[kJournalHeaderBytes];
      encodeJournalHeader(h, hdr);
      if (ftruncate(st.fds[other], 0) != 0) ioError("cannot empty journal " + paths.journal[other]);
      writeAt(st.fds[other], hdr, sizeof hdr, 0, paths.journal[other]);
      if (fsync(st.fds[other]) != 0) ioError("fsync of journal " + paths.journal[other] + " failed");
      if (l.validEnd != l.fileSize && (ftruncate(st.fds[last], static_cast<off_t>(l.validEnd)) != 0 ||
                                       fsync(st.fds[last]) != 0))
        ioError("cannot truncate journal " + paths.journal[last]);
      st.active = other;
      st.closed = last;
      st.header = h;
      st.ends[other] = kJournalHeaderBytes;
      st.ends[last] = l.validEnd;
    } else {
      // Appends continue after the last valid record; a torn tail goes first, durably, or a later record would
      // follow garbage and never be read.
      if (l.validEnd != l.fileSize && (ftruncate(st.fds[last], static_cast<off_t>(l.validEnd)) != 0 ||
                                       fsync(st.fds[last]) != 0))
        ioError("cannot truncate journal " + paths.journal[last]);
      st.active = last;
      st.header = l.header;
      st.ends[last] = l.validEnd;
      if (chain.length == 2) {
        st.closed = other;  // complete, not yet in the image
        st.ends[other] = chain.scans[other].validEnd;
      } else {
        if (chain.scans[other].fileSize > 0 && (ftruncate(st.fds[other], 0) != 0 || fsync(st.fds[other]) != 0))
          ioError("cannot empty journal " + paths.journal[other]);
        st.ends[other] = 0;
      }
    }
  } catch (...) {
    ::close(st.fds[0]);
    ::close(st.fds[1]);
    throw;
  }
  return st;
}

void writeFileCopyUnrenamed(const std::string& from, const std::string& tmp, const OpenProgress& progress) {
  struct stat st;
  if (stat(from.c_str(), &st) != 0) ioError("cannot stat " + from);
  Fd out(createSized(tmp, static_cast<uint64_t>(st.st_size)));
  try {
    copyInto(from, out.fd, tmp, progress);
    if (fsync(out.fd) != 0) ioError("fsync of " + tmp + " failed");
  } catch (...) {
    unlink(tmp.c_str());
    throw;
  }
}

void writeFileCopy(const std::string& from, const std::string& to, const OpenProgress& progress) {
  const std::string tmp = to + ".tmp";
  writeFileCopyUnrenamed(from, tmp, progress);
  if (rename(tmp.c_str(), to.c_str()) != 0) {
    unlink(tmp.c_str());
    ioError("cannot rename " + tmp);
  }
  fsyncDirOf(to);
}

// The record format of those builds: u64 "PCQLJRN1", u64 seq, u32 ranges, u32 zero, u64 record bytes, ranges
// (u64 offset, u32 length, bytes), u64 legacyJournalHash of the rest.
bool migrateLegacyJournal(const JournalPaths& paths, JournalOpenReport& report) {
  Fd j(::open(paths.legacyJournal.c_str(), O_RDONLY));
  if (j.fd < 0) return false;
  struct stat st;
  if (stat(paths.image.c_str(), &st) != 0) return false;  // not one of those directories
  const uint64_t poolSize = static_cast<uint64_t>(st.st_size), size = fileSize(j.fd);
  constexpr uint64_t kLegacyMagic = 0x314e524a4c514350ull;
  Fd img(::open(paths.image.c_str(), O_RDWR));
  if (img.fd < 0) ioError("cannot open pool image " + paths.image);
  JournalReplay replay(img.fd, paths.image);
  std::vector<char> rec;
  std::vector<RecordRange> ranges;
  uint64_t at = 0;
  while (at + 40 <= size) {
    char h[32];
    if (!readAt(j.fd, h, sizeof h, at)) break;
    uint64_t bytes = load<uint64_t>(h + 24);
    uint32_t count = load<uint32_t>(h + 16);
    if (load<uint64_t>(h) != kLegacyMagic || bytes < 40 || bytes > size - at) break;
    rec.resize(bytes);
    if (!readAt(j.fd, rec.data(), bytes, at) ||
        legacyJournalHash(rec.data(), bytes - 8) != load<uint64_t>(rec.data() + bytes - 8))
      break;
    ranges.clear();
    uint64_t p = 32;
    bool ok = true;
    for (uint32_t i = 0; i < count && ok; i++) {
      if (p + 12 > bytes - 8) {
        ok = false;
        break;
      }
      uint64_t off = load<uint64_t>(rec.data() + p);
      uint32_t len = load<uint32_t>(rec.data() + p + 8);
      p += 12;
      if (off > poolSize || len > poolSize - off || len > bytes - 8 - p) ok = false;
      else ranges.push_back(RecordRange{off, rec.data() + p, len});
      p += len;
    }
    if (!ok || p != bytes - 8) break;
    replay.apply(ranges);
    report.replayedRecords++;
    at += bytes;
  }
  if (at != size)
    report.problems.push_back(baseNameOf(paths.legacyJournal) + ": record at byte " + std::to_string(at) +
                              " is torn or damaged; not applied, and nothing after it (" + std::to_string(size - at) +
                              " bytes)");
  replay.flush();
  JournalReplay::releaseSpareSlabs();
  if (fsync(img.fd) != 0) ioError("fsync of pool image " + paths.image + " failed");
  report.journalBytes += at;
  if (unlink(paths.legacyJournal.c_str()) != 0) ioError("cannot remove " + paths.legacyJournal);
  fsyncDirOf(paths.legacyJournal);
  unlink(paths.legacyShm.c_str());  // that build's working pool: its acknowledged commits are in the image now
  return true;
}

}  // namespace pmemcql
