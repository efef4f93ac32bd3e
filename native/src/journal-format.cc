#include "journal-format.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace pmemcql {

namespace {

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

// A tail of zeros is what an append looks like when the file size reached the disk before the data
// did (or a preallocated end): nothing to report.
bool allZero(int fd, uint64_t from, uint64_t to) {
  char buf[4096];
  while (from < to) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(sizeof buf, to - from));
    if (!readAt(fd, buf, n, from)) return false;
    for (size_t i = 0; i < n; i++)
      if (buf[i] != 0) return false;
    from += n;
  }
  return true;
}

}  // namespace

namespace {

inline uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

// The words after the lanes, the tail and the finaliser (murmur3's fmix64).
uint64_t finishHash(uint64_t h, const char* p, size_t i, size_t n) {
  const uint64_t k1 = 0x87c37b91114253d5ull, k2 = 0x4cf5ad432745937full;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h ^= w * k1;
    h = rotl(h, 31) * k2;
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

}  // namespace

// Four independent lanes over 32-byte blocks: the multiplies of one block overlap instead of waiting on each
// other (records are hashed on the event loop and again by the checkpoint).
uint64_t journalHash(const char* p, size_t n) {
  const uint64_t k1 = 0x87c37b91114253d5ull, k2 = 0x4cf5ad432745937full;
  uint64_t h0 = 0x9e3779b97f4a7c15ull ^ (n * k1), h1 = 0xc2b2ae3d27d4eb4full, h2 = 0x165667b19e3779f9ull,
           h3 = 0x27d4eb2f165667c5ull;
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    uint64_t w[4];
    memcpy(w, p + i, 32);
    h0 = rotl(h0 ^ (w[0] * k1), 31) * k2;
    h1 = rotl(h1 ^ (w[1] * k1), 31) * k2;
    h2 = rotl(h2 ^ (w[2] * k1), 31) * k2;
    h3 = rotl(h3 ^ (w[3] * k1), 31) * k2;
  }
  return finishHash(h0 ^ rotl(h1, 17) ^ rotl(h2, 29) ^ rotl(h3, 43), p, i, n);
}

uint64_t legacyJournalHash(const char* p, size_t n) {
  const uint64_t k1 = 0x87c37b91114253d5ull;
  return finishHash(0x9e3779b97f4a7c15ull ^ (n * k1), p, 0, n);
}

// magic, u32 version, u32 header bytes, salt, base seq, pool id, root offset, pool size, checksum
void encodeJournalHeader(const JournalHeader& h, char out[kJournalHeaderBytes]) {
  memset(out, 0, kJournalHeaderBytes);
  store<uint64_t>(out, kJournalFileMagic);
  store<uint32_t>(out + 8, kJournalVersion);
  store<uint32_t>(out + 12, static_cast<uint32_t>(kJournalHeaderBytes));
  store<uint64_t>(out + 16, h.salt);
  store<uint64_t>(out + 24, h.baseSeq);
  store<uint64_t>(out + 32, h.poolId);
  store<uint64_t>(out + 40, h.rootOffset);
  store<uint64_t>(out + 48, h.poolSize);
  store<uint64_t>(out + 56, journalHash(out, 56));
}

bool decodeJournalHeader(const char in[kJournalHeaderBytes], JournalHeader& h) {
  if (load<uint64_t>(in) != kJournalFileMagic || load<uint32_t>(in + 8) != kJournalVersion ||
      load<uint32_t>(in + 12) != kJournalHeaderBytes || load<uint64_t>(in + 56) != journalHash(in, 56))
    return false;
  h.salt = load<uint64_t>(in + 16);
  h.baseSeq = load<uint64_t>(in + 24);
  h.poolId = load<uint64_t>(in + 32);
  h.rootOffset = load<uint64_t>(in + 40);
  h.poolSize = load<uint64_t>(in + 48);
  return true;
}

JournalFileScan scanJournalFile(int fd, uint64_t poolSize,
                                const std::function<void(uint64_t seq, const std::vector<RecordRange>&)>& visit) {
  JournalFileScan s;
  struct stat st;
  s.fileSize = fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  if (s.fileSize == 0) return s;
  char hdr[kJournalHeaderBytes];
  if (s.fileSize < kJournalHeaderBytes || !readAt(fd, hdr, sizeof hdr, 0) || !decodeJournalHeader(hdr, s.header)) {
    if (!allZero(fd, 0, s.fileSize)) s.problem = "no valid file header";
    return s;
  }
  s.hasHeader = true;
  s.lastSeq = s.header.baseSeq;
  s.validEnd = kJournalHeaderBytes;
  std::vector<char> rec;
  std::vector<RecordRange> ranges;
  uint64_t at = kJournalHeaderBytes;
  auto stop = [&](const std::string& why) {
    if (!allZero(fd, at, s.fileSize)) s.problem = "record at byte " + std::to_string(at) + " " + why;
  };
  while (at < s.fileSize) {
    if (s.ended) {
      stop("follows the End record");
      break;
    }
    char rh[kRecordHeaderBytes];
    if (s.fileSize - at < kRecordHeaderBytes + kChecksumBytes || !readAt(fd, rh, sizeof rh, at)) {
      stop("is cut short");
      break;
    }
    uint64_t bytes = load<uint64_t>(rh + 32);
    if (load<uint64_t>(rh) != kJournalRecordMagic) {
      stop("has no record magic");
      break;
    }
    if (bytes < kRecordHeaderBytes + kChecksumBytes || bytes > s.fileSize - at) {
      stop("is cut short");
      break;
    }
    rec.resize(bytes);
    if (!readAt(fd, rec.data(), bytes, at)) {
      stop("cannot be read");
      break;
    }
    if (journalHash(rec.data(), bytes - kChecksumBytes) != load<uint64_t>(rec.data() + bytes - kChecksumBytes)) {
      stop("fails its checksum");
      break;
    }
    if (load<uint64_t>(rh + 8) != s.header.salt) {
      stop("belongs to an earlier use of the file (another salt)");
      break;
    }
    uint64_t seq = load<uint64_t>(rh + 16);
    if (seq != s.lastSeq && seq != s.lastSeq + 1) {
      stop("breaks the commit sequence (" + std::to_string(seq) + " after " + std::to_string(s.lastSeq) + ")");
      break;
    }
    uint32_t type = load<uint32_t>(rh + 24), count = load<uint32_t>(rh + 28);
    const uint64_t payloadEnd = bytes - kChecksumBytes;
    if (type == static_cast<uint32_t>(RecordType::End)) {
      if (count != 0 || payloadEnd != kRecordHeaderBytes + 8 || seq != s.lastSeq) {
        stop("is a malformed End record");
        break;
      }
      s.ended = true;
      s.nextSalt = load<uint64_t>(rec.data() + kRecordHeaderBytes);
    } else if (type == static_cast<uint32_t>(RecordType::Data)) {
      // Every range is checked before any is handed out: a record applies whole or not at all.
      ranges.clear();
      uint64_t p = kRecordHeaderBytes;
      bool ok = true;
      for (uint32_t i = 0; i < count && ok; i++) {
        if (p + kRangeHeaderBytes > payloadEnd) {
          ok = false;
          break;
        }
        uint64_t off = load<uint64_t>(rec.data() + p);
        uint32_t len = load<uint32_t>(rec.data() + p + 8);
        p += kRangeHeaderBytes;
        if (off > poolSize || len > poolSize - off || len > payloadEnd - p) ok = false;
        else ranges.push_back(RecordRange{off, rec.data() + p, len});
        p += len;
      }
      if (!ok || p != payloadEnd) {
        stop("names bytes outside the pool or is malformed");
        break;
      }
      if (visit) visit(seq, ranges);
    } else {
      stop("has an unknown type");
      break;
    }
    s.records++;
    s.lastSeq = seq;
    at += bytes;
    s.validEnd = at;
  }
  return s;
}

}  // namespace pmemcql

namespace pmemcql {

namespace {

// Whether the whole record at `at` (`bytes` long) is valid: checksum, ranges inside the pool, an End record's
// shape. Fills `nextSalt` for an End record. Empty, or why not.
std::string checkWholeRecord(int fd, uint64_t at, uint64_t bytes, uint64_t poolSize, uint64_t& nextSalt) {
  std::vector<char> rec(bytes);
  if (!readAt(fd, rec.data(), bytes, at)) return "cannot be read";
  if (journalHash(rec.data(), bytes - kChecksumBytes) != load<uint64_t>(rec.data() + bytes - kChecksumBytes))
    return "fails its checksum";
  const uint32_t type = load<uint32_t>(rec.data() + 24), count = load<uint32_t>(rec.data() + 28);
  const uint64_t payloadEnd = bytes - kChecksumBytes;
  if (type == static_cast<uint32_t>(RecordType::End)) {
    if (count != 0 || payloadEnd != kRecordHeaderBytes + 8) return "is a malformed End record";
    nextSalt = load<uint64_t>(rec.data() + kRecordHeaderBytes);
    return "";
  }
  uint64_t p = kRecordHeaderBytes;
  for (uint32_t i = 0; i < count; i++) {
    if (p + kRangeHeaderBytes > payloadEnd) return "names bytes outside the pool or is malformed";
    const uint64_t off = load<uint64_t>(rec.data() + p);
    const uint32_t len = load<uint32_t>(rec.data() + p + 8);
    p += kRangeHeaderBytes;
    if (off > poolSize || len > poolSize - off || len > payloadEnd - p) return "names bytes outside the pool or is malformed";
    p += len;
  }
  return p == payloadEnd ? "" : "names bytes outside the pool or is malformed";
}

}  // namespace

JournalFileScan scanJournalHeaders(int fd, uint64_t poolSize) {
  JournalFileScan s;
  struct stat st;
  s.fileSize = fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  if (s.fileSize == 0) return s;
  char hdr[kJournalHeaderBytes];
  if (s.fileSize < kJournalHeaderBytes || !readAt(fd, hdr, sizeof hdr, 0) || !decodeJournalHeader(hdr, s.header)) {
    if (!allZero(fd, 0, s.fileSize)) s.problem = "no valid file header";
    return s;
  }
  s.hasHeader = true;
  struct Entry {
    uint64_t at, bytes, seq;
    bool end;
  };
  std::vector<Entry> entries;
  uint64_t at = kJournalHeaderBytes, lastSeq = s.header.baseSeq;
  std::string why;
  while (at < s.fileSize) {
    if (!entries.empty() && entries.back().end) {
      why = "follows the End record";
      break;
    }
    char rh[kRecordHeaderBytes];
    if (s.fileSize - at < kRecordHeaderBytes + kChecksumBytes || !readAt(fd, rh, sizeof rh, at)) {
      why = "is cut short";
      break;
    }
    const uint64_t bytes = load<uint64_t>(rh + 32), seq = load<uint64_t>(rh + 16);
    const uint32_t type = load<uint32_t>(rh + 24);
    if (load<uint64_t>(rh) != kJournalRecordMagic) why = "has no record magic";
    else if (bytes < kRecordHeaderBytes + kChecksumBytes || bytes > s.fileSize - at) why = "is cut short";
    else if (load<uint64_t>(rh + 8) != s.header.salt) why = "belongs to an earlier use of the file (another salt)";
    else if (seq != lastSeq && seq != lastSeq + 1)
      why = "breaks the commit sequence (" + std::to_string(seq) + " after " + std::to_string(lastSeq) + ")";
    else if (type != static_cast<uint32_t>(RecordType::Data) && type != static_cast<uint32_t>(RecordType::End))
      why = "has an unknown type";
    if (!why.empty()) break;
    entries.push_back(Entry{at, bytes, seq, type == static_cast<uint32_t>(RecordType::End)});
    lastSeq = seq;
    at += bytes;
  }
  // Only the last record is read whole; one that fails is dropped, and so is the one before it if it fails too.
  while (!entries.empty()) {
    const Entry& e = entries.back();
    std::string bad = checkWholeRecord(fd, e.at, e.bytes, poolSize, s.nextSalt);
    if (bad.empty()) break;
    at = e.at;
    why = bad;
    entries.pop_back();
  }
  s.records = entries.size();
  s.lastSeq = entries.empty() ? s.header.baseSeq : entries.back().seq;
  s.validEnd = entries.empty() ? kJournalHeaderBytes : entries.back().at + entries.back().bytes;
  s.ended = !entries.empty() && entries.back().end;
  if (!s.ended) s.nextSalt = 0;
  if (s.validEnd < s.fileSize && !allZero(fd, s.validEnd, s.fileSize))
    s.problem = "record at byte " + std::to_string(s.validEnd) + " " + (why.empty() ? "is cut short" : why);
  return s;
}

}  // namespace pmemcql
