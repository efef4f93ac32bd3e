// Background threads (V8's platform workers: parallel GC and optimizing compiles; the twin flush thread) run under
// SCHED_IDLE so that on a busy machine they only take CPU time nothing else wants, and a CPU running only them
// counts as idle when the kernel places a woken event loop. Node has no binding for sched_setscheduler, and on
// Linux it applies to the one thread named (docs/benchmarks.md has the measurements).

#include "thread-scheduling.h"

#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace pmemcql {

int setIdleScheduling(int tid) {
#ifdef SCHED_IDLE
  sched_param p{};
  p.sched_priority = 0;
  return sched_setscheduler(tid, SCHED_IDLE, &p) == 0 ? 0 : errno;
#else
  (void)tid;
  return ENOSYS;
#endif
}

int setNormalScheduling(int tid) {
  sched_param p{};
  p.sched_priority = 0;
  return sched_setscheduler(tid, SCHED_OTHER, &p) == 0 ? 0 : errno;
}

int setIdleSchedulingOfThisThread() { return setIdleScheduling(static_cast<int>(syscall(SYS_gettid))); }

}  // namespace pmemcql
