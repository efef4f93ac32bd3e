// Faults memory in on a background thread (see page-populator.cc).
#pragma once

#include <cstddef>

namespace pmemcql {

// Queues [data, data + len) to be populated for writing by a background thread; returns at once. The bytes are not
// changed, so the memory may be written, or even freed, meanwhile. `idle`: the thread, started by the first call,
// runs under SCHED_IDLE.
void populateLater(void* data, size_t len, bool idle);

}  // namespace pmemcql
