// Scheduling policy of this process's own threads (see thread-scheduling.cc).
#pragma once

namespace pmemcql {

// Puts thread `tid` of this process under SCHED_IDLE; 0 on success, else the errno.
int setIdleScheduling(int tid);

// setIdleScheduling of the calling thread (the addon's own background threads start with it).
int setIdleSchedulingOfThisThread();

}  // namespace pmemcql
