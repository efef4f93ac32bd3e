// A watchdog for calls into user-defined function code (the QuickJS engine in WebAssembly). The engine's own
// interrupt handler stops a runaway JavaScript loop, but not a long loop inside one engine built-in (a sort of
// a huge sparse array, say). callWithin(ms, fn) runs fn on the calling thread; if it has not returned within ms,
// a thread of ours asks V8 to terminate the execution (Isolate::TerminateExecution, callable from any thread),
// which stops WebAssembly too. The termination is cancelled in this frame and becomes an ordinary exception, as
// node:vm does for its `timeout`; the caller must treat the engine's state as lost.

#include <node_api.h>
#include <v8.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace {

using Clock = std::chrono::steady_clock;

class Watchdog {
 public:
  explicit Watchdog(v8::Isolate* isolate) : isolate_(isolate), thread_([this] { Run(); }) { thread_.detach(); }

  // Called for every call: it wakes the thread only when the new deadline is sooner than the one the thread
  // sleeps until, so back-to-back calls (a later deadline each time) cost a mutex and no system call.
  void Arm(Clock::time_point deadline) {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = true;
    fired_ = false;
    deadline_ = deadline;
    if (deadline < sleeping_until_) wake_.notify_one();
  }

  /** True when the deadline passed before Disarm: a termination was requested (and must be cancelled). */
  bool Disarm() {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = false;
    return fired_;
  }

 private:
  void Run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (!armed_) {
        sleeping_until_ = Clock::time_point::max();
        wake_.wait(lock);
      } else if (Clock::now() >= deadline_) {
        fired_ = true;
        armed_ = false;
        isolate_->TerminateExecution();
      } else {
        sleeping_until_ = deadline_;
        wake_.wait_until(lock, sleeping_until_);
      }
    }
  }

  v8::Isolate* isolate_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool armed_ = false;
  bool fired_ = false;
  Clock::time_point deadline_;
  Clock::time_point sleeping_until_ = Clock::time_point::max();
  std::thread thread_;
};

// One per process (the main thread's isolate): started on first use, waits on a condition variable when idle.
Watchdog* watchdog = nullptr;

napi_value Throw(napi_env env, const char* message) {
  napi_throw_error(env, "WATCHDOG", message);
  return nullptr;
}

// callWithin(ms, fn): fn's result, or an exception with code 'TERMINATED' when the deadline passed.
napi_value CallWithin(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc < 2)
    return Throw(env, "callWithin(ms, fn) takes two arguments");
  double ms = 0;
  if (napi_get_value_double(env, argv[0], &ms) != napi_ok || !(ms > 0)) return Throw(env, "ms must be positive");
  napi_valuetype type;
  napi_typeof(env, argv[1], &type);
  if (type != napi_function) return Throw(env, "fn must be a function");

  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  if (watchdog == nullptr) watchdog = new Watchdog(isolate);
  napi_value global;
  napi_get_global(env, &global);
  watchdog->Arm(Clock::now() + std::chrono::microseconds(static_cast<int64_t>(ms * 1000)));
  napi_value result = nullptr;
  const napi_status status = napi_call_function(env, global, argv[1], 0, nullptr, &result);
  const bool fired = watchdog->Disarm();
  if (!fired) return status == napi_ok ? result : nullptr;  // fn's own exception stays pending
  // The deadline passed: whether or not V8 acted on the request yet, cancel it before any more JavaScript runs.
  isolate->CancelTerminateExecution();
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (pending) {
    napi_value ignored;
    napi_get_and_clear_last_exception(env, &ignored);
  }
  napi_value message, code, error;
  napi_create_string_utf8(env, "execution terminated by the watchdog", NAPI_AUTO_LENGTH, &message);
  napi_create_string_utf8(env, "TERMINATED", NAPI_AUTO_LENGTH, &code);
  napi_create_error(env, code, message, &error);
  napi_throw(env, error);
  return nullptr;
}

napi_value Init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "callWithin", NAPI_AUTO_LENGTH, CallWithin, nullptr, &fn);
  napi_set_named_property(env, exports, "callWithin", fn);
  return exports;
}

}  // namespace

NAPI_MODULE(pmemcql_watchdog, Init)
