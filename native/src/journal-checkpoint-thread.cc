#include "journal-checkpoint-thread.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "journal-format.h"
#include "journal-paths.h"
#include "journal-replay.h"
#include "journal-sync-log.h"
#include "pool-error.h"

namespace pmemcql {

namespace {

// After a failed checkpoint (an I/O error), the next attempt waits this long.
constexpr auto kRetryDelay = std::chrono::seconds(10);

struct Fd {
  int fd;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

JournalCheckpointThread::JournalCheckpointThread(JournalState& state, std::string imagePath, uint64_t poolSize)
    : s_(state), imagePath_(std::move(imagePath)), poolSize_(poolSize) {
  thread_ = std::thread([this] { run(); });
}

JournalCheckpointThread::~JournalCheckpointThread() {
  {
    std::lock_guard<std::mutex> lock(s_.m);
    s_.stopping = true;
  }
  s_.checkpointWake.notify_all();
  if (thread_.joinable()) thread_.join();
}

void JournalCheckpointThread::checkpoint(JournalState& s, int index, const std::string& imagePath, uint64_t poolSize) {
  int fd;
  uint64_t end;
  std::string path;
  {
    std::lock_guard<std::mutex> lock(s.m);
    fd = s.files[index].fd;
    end = s.files[index].end;
    path = s.files[index].path;
  }
  // The closed file first: until it is durable, the image must not hold anything of it.
  const int64_t syncStart = wallClockMs();
  if (fdatasync(fd) != 0) throw PoolErr("POOL_IO", "fdatasync of journal " + path + " failed: " + strerror(errno));
  appendSyncLog(syncStart, baseNameOf(path) + ":" + std::to_string(end) + " checkpoint");
  Fd img(::open(imagePath.c_str(), O_RDWR));
  if (img.fd < 0) throw PoolErr("POOL_IO", "cannot open pool image " + imagePath + ": " + strerror(errno));
  JournalReplay replay(img.fd, imagePath);
  JournalFileScan scan =
      scanJournalFile(fd, poolSize, [&](uint64_t, const std::vector<RecordRange>& ranges) { replay.apply(ranges); });
  if (!scan.ended || scan.validEnd != end)
    throw PoolErr("POOL_IO", "journal " + path + " does not read back whole (" + std::to_string(scan.validEnd) + " of " +
                                 std::to_string(end) + " bytes" + (scan.problem.empty() ? "" : ": " + scan.problem) +
                                 ")");
  replay.flush();
  if (fsync(img.fd) != 0) throw PoolErr("POOL_IO", "fsync of pool image " + imagePath + " failed: " + strerror(errno));
  // The image holds the file's records now; an empty file is one the next rotation may start afresh.
  if (ftruncate(fd, 0) != 0 || fsync(fd) != 0)
    throw PoolErr("POOL_IO", "cannot empty journal " + path + ": " + strerror(errno));
  std::lock_guard<std::mutex> lock(s.m);
  s.files[index].end = 0;
}

void JournalCheckpointThread::run() {
  pthread_setname_np(pthread_self(), "journal-ckpt");  // how /proc and the tests tell it apart
  // Below the event loop and the sync thread: a checkpoint is bulk work that nothing waits for.
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
  std::unique_lock<std::mutex> lock(s_.m);
  for (;;) {
    s_.checkpointWake.wait(lock, [&] { return s_.stopping || s_.checkpointing >= 0; });
    if (s_.stopping) return;
    const int index = s_.checkpointing;
    lock.unlock();
    const SteadyTime start = std::chrono::steady_clock::now();
    std::string error;
    try {
      checkpoint(s_, index, imagePath_, poolSize_);
    } catch (const PoolErr& e) {
      error = e.message;
    } catch (const std::exception& e) {
      error = e.what();
    }
    lock.lock();
    if (error.empty()) {
      s_.checkpointing = -1;
      s_.checkpoints++;
      s_.lastCheckpointMs = msSince(start);
      s_.checkpointError.clear();
    } else {
      // The closed file stays as it is (a rebuild would replay it); tried again later.
      s_.checkpointError = error;
      s_.checkpointWake.wait_for(lock, kRetryDelay, [&] { return s_.stopping; });
      if (s_.stopping) return;
    }
  }
}

}  // namespace pmemcql
