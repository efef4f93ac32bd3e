#include "commit-log-policy.h"

namespace pmemcql {

const char* commitLogSyncName(CommitLogSync s) {
  switch (s) {
    case CommitLogSync::Group:
      return "group";
    case CommitLogSync::Batch:
      return "batch";
    default:
      return "periodic";
  }
}

}  // namespace pmemcql
