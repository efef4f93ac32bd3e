// Faults memory in on a background thread (see page-populator.cc).
#pragma once

#include <cstddef>

namespace pmemcql {

// Queues [data, data + len) to be populated for writing by a background thread; returns at once. The bytes are not
// changed, so the memory may be written, or even freed, meanwhile. `idle`: the thread, started by the first call,
// runs under SCHED_IDLE.
void populateLater(void* data, size_t len, bool idle);

// Populates the pages holding [data, data + len) for writing now (madvise MADV_POPULATE_WRITE, Linux 5.14+), without
// changing the bytes: 0, or the errno (EINVAL where the kernel has no such advice).
int populateNow(void* data, size_t len);

}  // namespace pmemcql
