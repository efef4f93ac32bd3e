#include "journal-sync-log.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

namespace pmemcql {

int64_t wallClockMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void appendSyncLog(int64_t startWallMs, const std::string& what) {
  static const char* path = getenv("PMEMCQL_JOURNAL_SYNC_LOG");
  if (!path || !*path) return;
  std::string line = std::to_string(startWallMs) + " " + what + "\n";
  int fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
  if (fd < 0) return;
  ssize_t w = ::write(fd, line.data(), line.size());
  (void)w;
  ::close(fd);
}

}  // namespace pmemcql
