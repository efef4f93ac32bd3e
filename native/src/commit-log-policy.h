// When a commit to a journaled pool counts as durable: Cassandra's commitlog_sync vocabulary
// (docs/storage-native.md, "Durability of disk pools").
#pragma once

#include <cstdint>

namespace pmemcql {

enum class CommitLogSync {
  Periodic,  // acknowledged once the record is written (safe against a process crash); fdatasync every period
  Group,     // acknowledged after the fdatasync covering it; at most one fdatasync per window
  Batch,     // acknowledged after the fdatasync covering it; the next fdatasync starts as soon as there is work
};

struct CommitLogPolicy {
  CommitLogSync sync = CommitLogSync::Periodic;
  uint64_t periodMs = 10000;        // commitlog_sync_period (periodic)
  uint64_t groupWindowMs = 1;       // commitlog_sync_group_window (group)
  uint64_t lagBlockMs = 15000;      // periodic_commitlog_sync_lag_block: writes wait once syncs lag this much
  uint64_t checkpointBytes = 64ull << 20;  // a journal file this long is closed and checkpointed into the image
};

const char* commitLogSyncName(CommitLogSync s);

}  // namespace pmemcql
