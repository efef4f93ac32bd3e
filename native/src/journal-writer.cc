#include "journal-writer.h"

#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "pool-error.h"

namespace pmemcql {

namespace {

template <class T>
void store(char* p, T v) {
  memcpy(p, &v, sizeof v);
}

}  // namespace

uint64_t randomId() {
  uint64_t v = 0;
  while (v == 0) {
    if (getrandom(&v, sizeof v, 0) != static_cast<ssize_t>(sizeof v)) {
      // No getrandom: time and address bits are enough to tell incarnations of a file apart.
      v = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
          reinterpret_cast<uintptr_t>(&v);
    }
  }
  return v;
}

JournalWriter::JournalWriter(const JournalStart& start, std::string imagePath, CommitLogPolicy policy)
    : policy_(policy), header_(start.header), imagePath_(std::move(imagePath)) {
  for (int i = 0; i < 2; i++) {
    s_.files[i].path = start.paths[i];
    s_.files[i].fd = start.fds[i];
    s_.files[i].end = start.ends[i];
    // What the open found is durable (it synced what it truncated or wrote).
    s_.files[i].written = s_.files[i].synced = start.ends[i];
  }
  s_.active = start.active;
  s_.lastSyncStart = std::chrono::steady_clock::now();
  nextRotationAt_ = policy_.checkpointBytes;
  sync_ = std::make_unique<JournalSyncThread>(s_, policy_);
  checkpointer_ = std::make_unique<JournalCheckpointThread>(s_, imagePath_, header_.poolSize);
  if (start.closed >= 0) {
    std::lock_guard<std::mutex> lock(s_.m);
    s_.checkpointing = start.closed;
    s_.checkpointWake.notify_all();
  }
}

JournalWriter::~JournalWriter() {
  finish();
  for (auto& f : s_.files)
    if (f.fd >= 0) ::close(f.fd);
}

std::string JournalWriter::finish() {
  checkpointer_.reset();
  sync_.reset();
  std::lock_guard<std::mutex> lock(s_.m);
  return s_.syncError;
}

void JournalWriter::setOnSynced(std::function<void(uint64_t, const std::string&)> f) {
  std::lock_guard<std::mutex> lock(s_.m);
  s_.onSynced = std::move(f);
}

void JournalWriter::checkWritable() {
  std::lock_guard<std::mutex> lock(s_.m);
  if (!s_.syncError.empty())
    throw PoolErr("POOL_IO", s_.syncError + "; writes are refused until the server is restarted (the journal "
                                            "cannot tell what reached the disk)");
}

void JournalWriter::append(int file, const char* p, size_t n) {
  JournalFileState& f = s_.files[file];  // end and fd change only on this thread (and end on truncation of a
                                         // closed file, never the one appended to)
  uint64_t at = f.end;
  while (n > 0) {
    ssize_t w = pwrite(f.fd, p, n, static_cast<off_t>(at));
    if (w < 0) {
      if (errno == EINTR) continue;
      // end stays: the next record overwrites whatever part of this one got written.
      throw PoolErr("POOL_IO", "write to journal " + f.path + " failed: " + strerror(errno));
    }
    p += w;
    n -= static_cast<size_t>(w);
    at += static_cast<uint64_t>(w);
  }
  std::lock_guard<std::mutex> lock(s_.m);
  f.written += at - f.end;
  f.end = at;
  s_.writtenLsn++;
  if (policy_.sync == CommitLogSync::Batch) s_.syncWake.notify_one();
  else if (policy_.sync == CommitLogSync::Group && s_.writtenLsn == s_.syncedLsn + 1) s_.syncWake.notify_one();
}

void JournalWriter::commit(const char* base, uint64_t size, uint64_t seq) {
  flush_recorder::takeRanges(base, size, pending_);
  if (pending_.empty()) return;
  size_t count = 0, bytes = kRecordHeaderBytes + kChecksumBytes;
  for (const ByteRange& r : pending_) {
    uint64_t chunks = (r.len + kMaxRangeChunk - 1) / kMaxRangeChunk;
    count += chunks;
    bytes += chunks * kRangeHeaderBytes + r.len;
  }
  record_.resize(bytes);
  char* p = record_.data();
  store<uint64_t>(p, kJournalRecordMagic);
  store<uint64_t>(p + 8, header_.salt);
  store<uint64_t>(p + 16, seq);
  store<uint32_t>(p + 24, static_cast<uint32_t>(RecordType::Data));
  store<uint32_t>(p + 28, static_cast<uint32_t>(count));
  store<uint64_t>(p + 32, bytes);
  p += kRecordHeaderBytes;
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
  store<uint64_t>(p, journalHash(record_.data(), bytes - kChecksumBytes));
  append(s_.active, record_.data(), bytes);
  pending_.clear();
  if (record_.capacity() > (16u << 20)) std::vector<char>().swap(record_);
  maybeRotate(seq);
}

// Closes the active file with an End record naming the next file's salt and starts the other file (which
// the last checkpoint emptied) with a header continuing from `seq`. A failure leaves the active file in use:
// a partly written End record is overwritten by the next record, and the rotation is tried again later.
void JournalWriter::maybeRotate(uint64_t seq) {
  const int active = s_.active, other = 1 - active;
  if (s_.files[active].end < nextRotationAt_) return;
  {
    std::lock_guard<std::mutex> lock(s_.m);
    if (s_.checkpointing >= 0 || s_.files[other].end != 0) return;  // the last checkpoint is still running
  }
  JournalHeader next = header_;
  next.salt = randomId();
  next.baseSeq = seq;
  try {
    char end[kRecordHeaderBytes + 8 + kChecksumBytes];
    store<uint64_t>(end, kJournalRecordMagic);
    store<uint64_t>(end + 8, header_.salt);
    store<uint64_t>(end + 16, seq);
    store<uint32_t>(end + 24, static_cast<uint32_t>(RecordType::End));
    store<uint32_t>(end + 28, 0);
    store<uint64_t>(end + 32, sizeof end);
    store<uint64_t>(end + kRecordHeaderBytes, next.salt);
    store<uint64_t>(end + kRecordHeaderBytes + 8, journalHash(end, kRecordHeaderBytes + 8));
    char hdr[kJournalHeaderBytes];
    encodeJournalHeader(next, hdr);
    append(other, hdr, sizeof hdr);
    append(active, end, sizeof end);
  } catch (const PoolErr&) {
    std::lock_guard<std::mutex> lock(s_.m);
    if (s_.files[other].end != 0) {
      // The header went out but the End record did not: the other file stays unused (its header is rewritten next
      // time; a rebuild ignores a file no End record leads to).
      s_.files[other].end = 0;
    }
    nextRotationAt_ = s_.files[active].end + policy_.checkpointBytes / 4;
    return;
  }
  header_ = next;
  nextRotationAt_ = policy_.checkpointBytes;
  std::lock_guard<std::mutex> lock(s_.m);
  s_.active = other;
  s_.checkpointing = active;
  s_.checkpointWake.notify_all();
}

uint64_t JournalWriter::ticket() {
  std::lock_guard<std::mutex> lock(s_.m);
  if (s_.syncedLsn >= s_.writtenLsn) return 0;
  if (policy_.sync == CommitLogSync::Periodic) {
    // Cassandra's periodic_commitlog_sync_lag_block: when syncs fall this far behind, writes wait for one.
    if (msSince(s_.lastSyncStart) <= static_cast<double>(policy_.lagBlockMs)) return 0;
  }
  s_.waitingLsn = std::max(s_.waitingLsn, s_.writtenLsn);
  return s_.writtenLsn;
}

void JournalWriter::blockUntilDurable(uint64_t ticket) {
  std::unique_lock<std::mutex> lock(s_.m);
  s_.forceSync = true;
  s_.syncWake.notify_all();
  s_.synced.wait(lock, [&] { return s_.syncedLsn >= ticket || !s_.syncError.empty() || s_.stopping; });
  s_.forceSync = false;
  if (!s_.syncError.empty()) throw PoolErr("POOL_IO", s_.syncError);
}

JournalWriter::Stats JournalWriter::stats() {
  std::lock_guard<std::mutex> lock(s_.m);
  Stats st;
  st.writtenLsn = s_.writtenLsn;
  st.syncedLsn = s_.syncedLsn;
  st.syncs = s_.syncs;
  st.checkpoints = s_.checkpoints;
  st.journalBytes = s_.files[0].end + s_.files[1].end;
  st.lastSyncMs = s_.lastSyncMs;
  st.lastCheckpointMs = s_.lastCheckpointMs;
  st.syncError = s_.syncError;
  st.checkpointError = s_.checkpointError;
  st.checkpointRunning = s_.checkpointing >= 0;
  return st;
}

}  // namespace pmemcql
