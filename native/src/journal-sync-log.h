// PMEMCQL_JOURNAL_SYNC_LOG (tests): a line per completed journal fdatasync, "<wall ms at its start> <file>:<bytes
// durable> ...", so that a simulated power cut can keep exactly what a real one could not lose. Nothing when unset.
#pragma once

#include <cstdint>
#include <string>

namespace pmemcql {

/** Appends `<startWallMs> <what>` as a line to the sync log, if one is configured. */
void appendSyncLog(int64_t startWallMs, const std::string& what);
/** Milliseconds since the epoch (the sync log's clock, the one Date.now() reads). */
int64_t wallClockMs();

}  // namespace pmemcql
