// Scheduling policy of this process's own threads (see thread-scheduling.cc).
#pragma once

namespace pmemcql {

// Puts thread `tid` of this process under SCHED_IDLE; 0 on success, else the errno.
int setIdleScheduling(int tid);

// Puts thread `tid` of this process back under SCHED_OTHER; 0 on success, else the errno (EPERM without
// CAP_SYS_NICE or a RLIMIT_NICE that allows the thread's nice value).
int setNormalScheduling(int tid);

// setIdleScheduling of the calling thread (the addon's own background threads start with it).
int setIdleSchedulingOfThisThread();

}  // namespace pmemcql
