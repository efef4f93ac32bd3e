// N-API face of the addon: a Pool class whose methods are thin shims over the tree. Every entry
// point catches everything (PoolErr and any C++ exception) and throws a JS PoolError instead.
#include <napi.h>

#include <cmath>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "double-kernels.h"
#include "kahan-sum.h"
#include "map-cursor.h"
#include "page-populator.h"
#include "pmem-map.h"
#include "pmem-pool.h"
#include "thread-scheduling.h"
#include "write-batch.h"

namespace pmemcql {

namespace {

struct AddonData {
  Napi::FunctionReference poolErrorCtor;
};

void throwPoolError(Napi::Env env, const std::string& code, const std::string& message) {
  if (env.IsExceptionPending()) return;
  AddonData* d = env.GetInstanceData<AddonData>();
  napi_value err;
  if (d && !d->poolErrorCtor.IsEmpty()) {
    err = d->poolErrorCtor.New({Napi::String::New(env, code), Napi::String::New(env, message)});
    if (env.IsExceptionPending()) return;
  } else {
    Napi::Error e = Napi::Error::New(env, message);
    e.Set("code", Napi::String::New(env, code));
    err = e.Value();
  }
  napi_throw(env, err);
}

template <class Fn>
Napi::Value guarded(Napi::Env env, Fn&& fn) {
  try {
    return fn();
  } catch (const PoolErr& e) {
    throwPoolError(env, e.code, e.message);
  } catch (const std::bad_alloc&) {
    throwPoolError(env, "OUT_OF_MEMORY", "native heap exhausted");
  } catch (const std::exception& e) {
    throwPoolError(env, "INTERNAL", e.what());
  } catch (...) {
    throwPoolError(env, "INTERNAL", "unknown native error");
  }
  return env.Undefined();
}

// A non-negative integer argument up to `max`; else PoolErr(code, message).
uint64_t integerArg(napi_env env, napi_value v, double max, const char* code, const char* message) {
  double d;
  if (napi_get_value_double(env, v, &d) != napi_ok || !(d >= 0 && d <= max) || std::floor(d) != d)
    throw PoolErr(code, message);
  return static_cast<uint64_t>(d);
}

uint64_t handleArg(napi_env env, napi_value v) {
  return integerArg(env, v, 9007199254740992.0, "NO_SUCH_MAP", "map handle must be a non-negative integer");
}

struct Bytes {
  const uint8_t* data;
  uint32_t len;
};

Bytes bytesArg(napi_env env, napi_value v, const char* what) {
  void* data = nullptr;
  size_t len = 0;
  if (napi_get_buffer_info(env, v, &data, &len) != napi_ok)
    throw PoolErr("BAD_ARGUMENT", std::string(what) + " must be a Buffer");
  if (len > UINT32_MAX) throw PoolErr("BAD_ARGUMENT", std::string(what) + " is too large");
  return Bytes{static_cast<const uint8_t*>(data), static_cast<uint32_t>(len)};
}

const char* modeName(Durability m) {
  switch (m) {
    case Durability::Pmem:
      return "pmem";
    case Durability::Emulated:
      return "emulated";
    default:
      return "disk";
  }
}

// The commit log policy from the options object of `new NativePool(...)`; absent fields keep the defaults.
CommitLogPolicy policyArg(const Napi::Value& v) {
  CommitLogPolicy p;
  if (v.IsObject()) {
    Napi::Object o = v.As<Napi::Object>();
    if (o.Has("sync")) {
      std::string s = o.Get("sync").ToString().Utf8Value();
      if (s == "periodic") p.sync = CommitLogSync::Periodic;
      else if (s == "group") p.sync = CommitLogSync::Group;
      else if (s == "batch") p.sync = CommitLogSync::Batch;
      else throw PoolErr("BAD_OPTION", "commitlog_sync must be periodic, group or batch, got " + s);
    }
    auto ms = [&](const char* key, uint64_t& out) {
      if (!o.Has(key) || o.Get(key).IsUndefined()) return;
      double d = o.Get(key).ToNumber().DoubleValue();
      if (!(d >= 0 && d < 9007199254740992.0)) throw PoolErr("BAD_OPTION", std::string(key) + " must be >= 0");
      out = static_cast<uint64_t>(d);
    };
    ms("periodMs", p.periodMs);
    ms("groupWindowMs", p.groupWindowMs);
    ms("lagBlockMs", p.lagBlockMs);
    ms("checkpointBytes", p.checkpointBytes);
  }
  // Tests make checkpoints frequent without a setting of their own.
  const char* env = getenv("PMEMCQL_JOURNAL_CHECKPOINT_BYTES");
  if (env && *env) {
    char* end = nullptr;
    unsigned long long n = strtoull(env, &end, 10);
    if (end && *end == 0 && n > 0) p.checkpointBytes = n;
  }
  if (p.checkpointBytes < 4096) p.checkpointBytes = 4096;
  return p;
}

// Sync completions of a journaled pool, from its sync thread to the JS callback given at open.
struct SyncedEvent {
  double lsn;
  std::string error;
};

void callOnSynced(napi_env env, napi_value fn, void*, void* data) {
  SyncedEvent* e = static_cast<SyncedEvent*>(data);
  if (env && fn) {
    napi_value args[2], global;
    napi_create_double(env, e->lsn, &args[0]);
    if (e->error.empty()) napi_get_undefined(env, &args[1]);
    else napi_create_string_utf8(env, e->error.c_str(), e->error.size(), &args[1]);
    napi_get_global(env, &global);
    napi_call_function(env, global, fn, 2, args, nullptr);
  }
  delete e;
}

}  // namespace

class PoolWrap : public Napi::ObjectWrap<PoolWrap> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "NativePool",
                       {
                           InstanceMethod<&PoolWrap::SetScratch>("setScratch"),
                           InstanceMethod<&PoolWrap::Handle>("handle"),
                           InstanceMethod<&PoolWrap::Scan>("scan"),
                           InstanceMethod<&PoolWrap::Apply>("apply"),
                           InstanceMethod<&PoolWrap::Info>("info"),
                           InstanceMethod<&PoolWrap::CommitTicket>("commitTicket"),
                           InstanceMethod<&PoolWrap::HoldLoop>("holdLoop"),
                           InstanceMethod<&PoolWrap::BlockUntilDurable>("blockUntilDurable"),
                           InstanceMethod<&PoolWrap::Close>("close"),
                           InstanceMethod<&PoolWrap::StartPrefault>("startPrefault"),
                           InstanceMethod<&PoolWrap::Prefaulted>("prefaulted"),
                           InstanceMethod<&PoolWrap::SetLayoutVersion>("setLayoutVersionForTest"),
                           InstanceMethod<&PoolWrap::ObjectCounts>("objectCountsForTest"),
                       });
  }

  // new NativePool(path: string, size: number, scratch: Buffer, commitLog?: {sync, periodMs, groupWindowMs,
  // lagBlockMs, checkpointBytes, onSynced(lsn, error?), onOpenProgress(step, done, total)})
  explicit PoolWrap(const Napi::CallbackInfo& info) : Napi::ObjectWrap<PoolWrap>(info) {
    Napi::Env env = info.Env();
    guarded(env, [&]() -> Napi::Value {
      if (info.Length() < 3 || !info[0].IsString() || !info[1].IsNumber() || !info[2].IsBuffer())
        throw PoolErr("BAD_ARGUMENT", "expected (path, size, scratch)");
      auto scratch = info[2].As<Napi::Buffer<uint8_t>>();
      scratchRef_ = Napi::Persistent(scratch);
      scratch_ = scratch.Data();
      scratchLen_ = scratch.Length();
      double size = info[1].As<Napi::Number>().DoubleValue();
      if (!(size >= 0 && size < 9007199254740992.0)) throw PoolErr("BAD_OPTION", "pool_size must be a byte count");
      CommitLogPolicy policy = policyArg(info.Length() > 3 ? info[3] : env.Undefined());
      // onOpenProgress(step, done, total): called on this thread during long steps of the open (a rebuild).
      OpenProgress progress;
      if (info.Length() > 3 && info[3].IsObject() && info[3].As<Napi::Object>().Get("onOpenProgress").IsFunction()) {
        Napi::Function fn = info[3].As<Napi::Object>().Get("onOpenProgress").As<Napi::Function>();
        progress = [env, fn](const std::string& step, uint64_t done, uint64_t total) {
          fn.Call({Napi::String::New(env, step), Napi::Number::New(env, static_cast<double>(done)),
                   Napi::Number::New(env, static_cast<double>(total))});
          if (env.IsExceptionPending()) env.GetAndClearPendingException();
        };
      }
      pool_ = Pool::open(info[0].As<Napi::String>().Utf8Value(), static_cast<uint64_t>(size), policy, progress);
      if (pool_->journal() && info.Length() > 3 && info[3].IsObject()) {
        Napi::Value cb = info[3].As<Napi::Object>().Get("onSynced");
        if (cb.IsFunction()) listenForSyncs(env, cb);
      }
      return env.Undefined();
    });
  }

  // A pool that handed out views stays mapped when its wrapper is collected without close(): a view
  // that outlived it must not point at unmapped memory. close() unmaps regardless (see view()).
  ~PoolWrap() override {
    if (!viewsIssued_) {
      delete pool_;
      releaseSyncs();
    }
  }

  // The point reads are module functions taking handle() as first argument: unwrapping an
  // External is a type check, where ObjectWrap::Unwrap is a private-property lookup.
  static napi_value FastGet(napi_env env, napi_callback_info cb);
  static napi_value FastGetChild(napi_env env, napi_callback_info cb);
  static napi_value FastCount(napi_env env, napi_callback_info cb);
  static napi_value FastView(napi_env env, napi_callback_info cb);
  static napi_value FastFill(napi_env env, napi_callback_info cb);
  static napi_value FastGetMany(napi_env env, napi_callback_info cb);

 private:
  Pool& pool() {
    if (!pool_) throw PoolErr("POOL_CLOSED", "the pool is closed");
    return *pool_;
  }

  // handle(): an External naming this wrapper, for the module-level fast functions. The JS
  // side keeps it next to this object, so it never outlives it.
  Napi::Value Handle(const Napi::CallbackInfo& info) { return Napi::External<PoolWrap>::New(info.Env(), this); }

  // setScratch(buffer): where get() copies values from now on (JS hands out slices of it).
  Napi::Value SetScratch(const Napi::CallbackInfo& info) {
    return guarded(info.Env(), [&]() -> Napi::Value {
      if (!info[0].IsBuffer()) throw PoolErr("BAD_ARGUMENT", "scratch must be a Buffer");
      auto scratch = info[0].As<Napi::Buffer<uint8_t>>();
      scratchRef_ = Napi::Persistent(scratch);
      scratch_ = scratch.Data();
      scratchLen_ = scratch.Length();
      return info.Env().Undefined();
    });
  }

  // scan(map, start: Buffer|null, end: Buffer|null, flags, limit, off): the packed entries
  // (see map-cursor.h), copied into the scratch buffer at `off` when they fit there (then the
  // byte length is returned), else as a Buffer of their own.
  // flags: 1 start inclusive, 2 end inclusive, 4 reverse; limit < 0 means none.
  Napi::Value Scan(const Napi::CallbackInfo& info) {
    napi_env env = info.Env();
    return guarded(info.Env(), [&]() -> Napi::Value {
      Pool& p = pool();
      uint64_t map = handleArg(env, info[0]);
      ScanSpec s;
      if (!info[1].IsNull() && !info[1].IsUndefined()) {
        Bytes b = bytesArg(env, info[1], "start");
        s.hasStart = true;
        s.start = b.data;
        s.startLen = b.len;
      }
      if (!info[2].IsNull() && !info[2].IsUndefined()) {
        Bytes b = bytesArg(env, info[2], "end");
        s.hasEnd = true;
        s.end = b.data;
        s.endLen = b.len;
      }
      uint32_t flags = info[3].As<Napi::Number>().Uint32Value();
      s.startInclusive = flags & 1;
      s.endInclusive = flags & 2;
      s.reverse = flags & 4;
      double limit = info[4].As<Napi::Number>().DoubleValue();
      if (limit >= 0) s.limit = static_cast<uint64_t>(limit);
      uint32_t off;
      if (napi_get_value_uint32(env, info[5], &off) != napi_ok) off = UINT32_MAX;
      scanOut_.clear();
      scanMap(p, map, s, scanOut_);
      size_t n = scanOut_.size();
      if (off <= scratchLen_ && n <= scratchLen_ - off) {
        if (n) memcpy(scratch_ + off, scanOut_.data(), n);
        return Napi::Number::New(env, static_cast<double>(n));
      }
      Napi::Buffer<uint8_t> out = Napi::Buffer<uint8_t>::Copy(env, scanOut_.data(), n);
      // Don't keep a huge scan's memory around for the next one.
      if (scanOut_.capacity() > (1u << 22)) std::vector<uint8_t>().swap(scanOut_);
      return out;
    });
  }

  // apply(buffer, byteLength, opCount) -> handles of every ensureChild, in order
  Napi::Value Apply(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return guarded(env, [&]() -> Napi::Value {
      Pool& p = pool();
      Bytes b = bytesArg(env, info[0], "batch");
      uint32_t used = info[1].As<Napi::Number>().Uint32Value();
      uint32_t ops = info[2].As<Napi::Number>().Uint32Value();
      if (used > b.len) throw PoolErr("BAD_BATCH", "batch length exceeds its buffer");
      applyBatch(p, b.data, used, ops, created_);
      Napi::Array out = Napi::Array::New(env, created_.size());
      for (size_t i = 0; i < created_.size(); i++) out.Set(i, Napi::Number::New(env, static_cast<double>(created_[i])));
      return out;
    });
  }

  // The sync thread's completions reach `cb` through a thread-safe function that does not keep the loop alive.
  void listenForSyncs(Napi::Env env, Napi::Value cb) {
    napi_value name;
    napi_create_string_utf8(env, "pmemcql journal sync", NAPI_AUTO_LENGTH, &name);
    if (napi_create_threadsafe_function(env, cb, nullptr, name, 0, 1, nullptr, nullptr, nullptr, callOnSynced,
                                        &synced_) != napi_ok)
      throw PoolErr("INTERNAL", "cannot create the journal's sync callback");
    napi_unref_threadsafe_function(env, synced_);
    napi_threadsafe_function tsfn = synced_;
    pool_->journal()->setOnSynced([tsfn](uint64_t lsn, const std::string& error) {
      napi_call_threadsafe_function(tsfn, new SyncedEvent{static_cast<double>(lsn), error}, napi_tsfn_nonblocking);
    });
  }

  void releaseSyncs() {
    if (synced_) napi_release_threadsafe_function(synced_, napi_tsfn_release);
    synced_ = nullptr;
  }

  // holdLoop(on): while writes wait for a sync, its callback keeps the event loop alive.
  Napi::Value HoldLoop(const Napi::CallbackInfo& info) {
    if (synced_) {
      if (info[0].ToBoolean().Value()) napi_ref_threadsafe_function(info.Env(), synced_);
      else napi_unref_threadsafe_function(info.Env(), synced_);
    }
    return info.Env().Undefined();
  }

  // blockUntilDurable(ticket): blocks this thread until the ticket's sync completed (tools and benchmarks).
  Napi::Value BlockUntilDurable(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return guarded(env, [&]() -> Napi::Value {
      JournalWriter* j = pool().journal();
      double t = info[0].As<Napi::Number>().DoubleValue();
      if (j && t > 0) j->blockUntilDurable(static_cast<uint64_t>(t));
      return env.Undefined();
    });
  }

  // commitTicket(): after a write, 0 when it may be acknowledged now, else the LSN onSynced reports once it is durable.
  Napi::Value CommitTicket(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return guarded(env, [&]() -> Napi::Value {
      JournalWriter* j = pool().journal();
      return Napi::Number::New(env, j ? static_cast<double>(j->ticket()) : 0);
    });
  }

  Napi::Value Info(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return guarded(env, [&]() -> Napi::Value {
      Pool& p = pool();
      Napi::Object o = Napi::Object::New(env);
      o.Set("path", p.path());
      o.Set("mode", modeName(p.durability()));
      if (JournalWriter* j = p.journal()) {
        const CommitLogPolicy& pol = j->policy();
        o.Set("sync", commitLogSyncName(pol.sync));
        Napi::Object c = Napi::Object::New(env);
        c.Set("periodMs", static_cast<double>(pol.periodMs));
        c.Set("groupWindowMs", static_cast<double>(pol.groupWindowMs));
        c.Set("lagBlockMs", static_cast<double>(pol.lagBlockMs));
        c.Set("checkpointBytes", static_cast<double>(pol.checkpointBytes));
        o.Set("commitLog", c);
        JournalPaths paths = JournalPaths::forPool(p.path());
        o.Set("image", paths.image);
        Napi::Array files = Napi::Array::New(env, 2);
        files.Set(0u, paths.journal[0]);
        files.Set(1u, paths.journal[1]);
        o.Set("journalFiles", files);
        const JournalOpenReport& r = p.openReport();
        Napi::Object rec = Napi::Object::New(env);
        rec.Set("action", r.action);
        if (!r.reason.empty()) rec.Set("reason", r.reason);
        Napi::Array problems = Napi::Array::New(env, r.problems.size());
        for (size_t i = 0; i < r.problems.size(); i++) problems.Set(static_cast<uint32_t>(i), r.problems[i]);
        rec.Set("problems", problems);
        rec.Set("replayedRecords", static_cast<double>(r.replayedRecords));
        rec.Set("journalBytes", static_cast<double>(r.journalBytes));
        rec.Set("ms", r.ms);
        o.Set("recovery", rec);
        JournalWriter::Stats st = j->stats();
        Napi::Object js = Napi::Object::New(env);
        js.Set("writtenLsn", static_cast<double>(st.writtenLsn));
        js.Set("syncedLsn", static_cast<double>(st.syncedLsn));
        js.Set("syncs", static_cast<double>(st.syncs));
        js.Set("checkpoints", static_cast<double>(st.checkpoints));
        js.Set("checkpointRunning", st.checkpointRunning);
        js.Set("bytes", static_cast<double>(st.journalBytes));
        js.Set("lastSyncMs", st.lastSyncMs);
        js.Set("lastCheckpointMs", st.lastCheckpointMs);
        if (!st.syncError.empty()) js.Set("syncError", st.syncError);
        if (!st.checkpointError.empty()) js.Set("checkpointError", st.checkpointError);
        o.Set("journal", js);
      } else {
        o.Set("sync", "flush");
      }
      o.Set("size", static_cast<double>(p.size()));
      o.Set("used", static_cast<double>(p.used()));
      o.Set("root", static_cast<double>(p.rootMap()));
      o.Set("layoutVersion", static_cast<double>(p.root()->layout_version));
      return o;
    });
  }

  // startPrefault(idle: boolean): whether the pool's pages are now populated ahead of the allocator.
  Napi::Value StartPrefault(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return guarded(env, [&]() -> Napi::Value {
      bool idle = info.Length() > 0 && info[0].ToBoolean().Value();
      return Napi::Boolean::New(env, pool().startPrefault(idle));
    });
  }

  // prefaulted(): bytes populated so far, -1 when not prefaulting.
  Napi::Value Prefaulted(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return guarded(env, [&]() -> Napi::Value { return Napi::Number::New(env, static_cast<double>(pool().prefaulted())); });
  }

  // close(): the error of a journaled pool's last sync, if it failed; else undefined.
  Napi::Value Close(const Napi::CallbackInfo& info) {
    std::string error;
    if (pool_ && pool_->journal()) error = pool_->journal()->finish();
    delete pool_;
    pool_ = nullptr;
    releaseSyncs();
    return error.empty() ? info.Env().Undefined() : Napi::String::New(info.Env(), error);
  }

  // Rewrites the root's layout version so tests can check that other versions are refused.
  Napi::Value SetLayoutVersion(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return guarded(env, [&]() -> Napi::Value {
      Pool& p = pool();
      uint32_t v = info[0].As<Napi::Number>().Uint32Value();
      Tx tx(p);
      tx.run([&] {
        tx.snapshot(reinterpret_cast<char*>(p.root()) - reinterpret_cast<char*>(p.pop()), sizeof(PoolRoot));
        p.root()->layout_version = v;
      });
      return env.Undefined();
    });
  }

  // Live objects per libpmemobj type number (a full heap walk: for leak tests only).
  Napi::Value ObjectCounts(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    return guarded(env, [&]() -> Napi::Value {
      Pool& p = pool();
      Napi::Object out = Napi::Object::New(env);
      for (PMEMoid o = pmemobj_first(p.pop()); !OID_IS_NULL(o); o = pmemobj_next(o)) {
        std::string t = std::to_string(pmemobj_type_num(o));
        double n = out.Has(t) ? out.Get(t).As<Napi::Number>().DoubleValue() : 0;
        out.Set(t, n + 1);
      }
      return out;
    });
  }

  Pool* pool_ = nullptr;
  Napi::Reference<Napi::Buffer<uint8_t>> scratchRef_;
  uint8_t* scratch_ = nullptr;
  size_t scratchLen_ = 0;
  std::vector<uint8_t> scanOut_;
  std::vector<uint64_t> created_;
  std::vector<tree::Key> manyKeys_;
  std::vector<const Entry*> manyFound_;
  bool viewsIssued_ = false;
  napi_threadsafe_function synced_ = nullptr;
};

namespace {

// Runs fn with the wrapper and the raw arguments; every exception becomes a JS PoolError.
template <size_t N, class Fn>
napi_value fastCall(napi_env env, napi_callback_info cb, Fn&& fn) {
  try {
    napi_value argv[N];
    size_t argc = N;
    if (napi_get_cb_info(env, cb, &argc, argv, nullptr, nullptr) != napi_ok || argc < N)
      throw PoolErr("BAD_ARGUMENT", "too few arguments");
    void* p = nullptr;
    if (napi_get_value_external(env, argv[0], &p) != napi_ok || !p) throw PoolErr("BAD_ARGUMENT", "not a pool handle");
    return fn(static_cast<PoolWrap*>(p), argv);
  } catch (const PoolErr& e) {
    throwPoolError(Napi::Env(env), e.code, e.message);
  } catch (const std::bad_alloc&) {
    throwPoolError(Napi::Env(env), "OUT_OF_MEMORY", "native heap exhausted");
  } catch (const std::exception& e) {
    throwPoolError(Napi::Env(env), "INTERNAL", e.what());
  } catch (...) {
    throwPoolError(Napi::Env(env), "INTERNAL", "unknown native error");
  }
  return nullptr;
}

napi_value number(napi_env env, double v) {
  napi_value out;
  napi_create_double(env, v, &out);
  return out;
}

}  // namespace

// get(handle, map, key, off): -1 absent, -2 child map; else the value length, the value having
// been copied into the scratch buffer at `off` when it fits there (off + length <= scratch
// size; JS checks the same condition). Values over a quarter of the scratch come back as a
// Buffer of their own.
napi_value PoolWrap::FastGet(napi_env env, napi_callback_info cb) {
  return fastCall<4>(env, cb, [&](PoolWrap* w, napi_value* argv) -> napi_value {
    Pool& p = w->pool();
    uint64_t map = handleArg(env, argv[1]);
    Bytes key = bytesArg(env, argv[2], "key");
    uint32_t off;
    if (napi_get_value_uint32(env, argv[3], &off) != napi_ok) off = UINT32_MAX;
    const Entry* e = findEntry(p, map, key.data, key.len);
    if (!e) return number(env, -1);
    if (e->child) return number(env, -2);
    if (e->vlen > w->scratchLen_ / 4) {
      napi_value buf;
      void* data;
      napi_create_buffer_copy(env, e->vlen, e->value(), &data, &buf);
      return buf;
    }
    if (off <= w->scratchLen_ && e->vlen <= w->scratchLen_ - off) memcpy(w->scratch_ + off, e->value(), e->vlen);
    return number(env, e->vlen);
  });
}

// getMany(handle, map, keys: Buffer[], from, count, out: Buffer, off, lens: Int32Array): point reads of
// keys[from, from + count), their tree descents interleaved (findEntries). Values are copied into `out`
// from `off` on, each at the next 8-byte boundary; lens[i] gets the length, or -1 absent, -2 child map,
// -3 over a quarter of `out` (read it with get()). Returns how many keys were answered: fewer than
// `count` when `out` filled up (JS continues in a fresh buffer).
napi_value PoolWrap::FastGetMany(napi_env env, napi_callback_info cb) {
  return fastCall<8>(env, cb, [&](PoolWrap* w, napi_value* argv) -> napi_value {
    Pool& p = w->pool();
    uint64_t map = handleArg(env, argv[1]);
    uint32_t from, count, off;
    if (napi_get_value_uint32(env, argv[3], &from) != napi_ok || napi_get_value_uint32(env, argv[4], &count) != napi_ok ||
        napi_get_value_uint32(env, argv[6], &off) != napi_ok)
      throw PoolErr("BAD_ARGUMENT", "from, count and offset must be numbers");
    Bytes out = bytesArg(env, argv[5], "out");
    napi_typedarray_type type;
    size_t lensLen;
    void* lensData;
    if (napi_get_typedarray_info(env, argv[7], &type, &lensLen, &lensData, nullptr, nullptr) != napi_ok ||
        type != napi_int32_array || lensLen < count)
      throw PoolErr("BAD_ARGUMENT", "lens must be an Int32Array of at least count entries");
    int32_t* lens = static_cast<int32_t*>(lensData);
    auto& keys = w->manyKeys_;
    keys.clear();
    for (uint32_t i = 0; i < count; i++) {
      napi_value k;
      if (napi_get_element(env, argv[2], from + i, &k) != napi_ok) throw PoolErr("BAD_ARGUMENT", "keys must be an array");
      Bytes b = bytesArg(env, k, "key");
      keys.emplace_back(b.data, b.len);
    }
    w->manyFound_.resize(count);
    const Entry** found = w->manyFound_.data();
    findEntries(p, map, keys.data(), count, found);
    // The value copies write into a JS-owned buffer: const only for the reading helpers above.
    uint8_t* dst = const_cast<uint8_t*>(out.data);
    size_t pos = off;
    uint32_t i = 0;
    for (; i < count; i++) {
      const Entry* e = found[i];
      if (!e) {
        lens[i] = -1;
      } else if (e->child) {
        lens[i] = -2;
      } else if (e->vlen > out.len / 4) {
        lens[i] = -3;
      } else {
        if (pos > out.len || e->vlen > out.len - pos) break;
        memcpy(dst + pos, e->value(), e->vlen);
        lens[i] = static_cast<int32_t>(e->vlen);
        pos = (pos + e->vlen + 7) & ~static_cast<size_t>(7);
      }
    }
    return number(env, i);
  });
}

// view(handle, map, key): -1 absent, -2 child map; else a Buffer over the value's bytes in the mapped
// pool itself (no copy). Valid while the entry is neither replaced nor deleted and the pool is open:
// the caller drops views before it frees the entry or closes the pool (docs/storage-native.md).
napi_value PoolWrap::FastView(napi_env env, napi_callback_info cb) {
  return fastCall<3>(env, cb, [&](PoolWrap* w, napi_value* argv) -> napi_value {
    Pool& p = w->pool();
    uint64_t map = handleArg(env, argv[1]);
    Bytes key = bytesArg(env, argv[2], "key");
    const Entry* e = findEntry(p, map, key.data, key.len);
    if (!e) return number(env, -1);
    if (e->child) return number(env, -2);
    napi_value buf;
    // Read-only by contract: writes go through transactions, never through a view.
    void* data = const_cast<uint8_t*>(e->value());
    if (napi_create_external_buffer(env, e->vlen, data, nullptr, nullptr, &buf) != napi_ok)
      throw PoolErr("INTERNAL", "cannot create a view buffer");
    w->viewsIssued_ = true;
    return buf;
  });
}

// fill(handle, map, key, offset, bytes): copies `bytes` into the value under `key` (reserved by a batch's
// reserve op) at `offset` and persists them, logging nothing (nothing may refer to the value yet).
napi_value PoolWrap::FastFill(napi_env env, napi_callback_info cb) {
  return fastCall<5>(env, cb, [&](PoolWrap* w, napi_value* argv) -> napi_value {
    uint64_t map = handleArg(env, argv[1]);
    Bytes key = bytesArg(env, argv[2], "key");
    uint64_t offset = integerArg(env, argv[3], 4294967295.0, "BAD_ARGUMENT", "offset must be a non-negative integer");
    Bytes bytes = bytesArg(env, argv[4], "bytes");
    // A transaction with nothing logged: its commit is the durability point (a journaled pool's record of the
    // flushed ranges, so the slice's bytes go to the journal here and not with whatever commit comes next, a
    // client's write maybe).
    Tx tx(w->pool());
    tx.run([&] { mapFill(w->pool(), map, key.data, key.len, offset, bytes.data, bytes.len); });
    return nullptr;
  });
}

// getChild(handle, map, key): the child map's handle, or 0.
napi_value PoolWrap::FastGetChild(napi_env env, napi_callback_info cb) {
  return fastCall<3>(env, cb, [&](PoolWrap* w, napi_value* argv) -> napi_value {
    Pool& p = w->pool();
    uint64_t map = handleArg(env, argv[1]);
    Bytes key = bytesArg(env, argv[2], "key");
    const Entry* e = findEntry(p, map, key.data, key.len);
    return number(env, e ? static_cast<double>(e->child) : 0);
  });
}

// count(handle, map)
napi_value PoolWrap::FastCount(napi_env env, napi_callback_info cb) {
  return fastCall<2>(env, cb, [&](PoolWrap* w, napi_value* argv) -> napi_value {
    return number(env, static_cast<double>(mapHeader(w->pool(), handleArg(env, argv[1]))->count));
  });
}

Napi::Value SetErrorClass(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsFunction()) {
    Napi::TypeError::New(env, "setErrorClass expects a constructor").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  env.GetInstanceData<AddonData>()->poolErrorCtor = Napi::Persistent(info[0].As<Napi::Function>());
  return env.Undefined();
}

// enableJournaling(): see Pool::enableJournaling; returns whether it took effect.
Napi::Value EnableJournaling(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), Pool::enableJournaling());
}

// kahanSumF64(values: Float64Array, out: Float64Array): out[0] = Kahan sum, out[1] = its compensation.
Napi::Value KahanSumF64(const Napi::CallbackInfo& info) {
  auto env = info.Env();
  if (info.Length() < 2 || !info[0].IsTypedArray() || !info[1].IsTypedArray()) {
    Napi::TypeError::New(env, "kahanSumF64(Float64Array, Float64Array)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  auto values = info[0].As<Napi::TypedArray>();
  auto out = info[1].As<Napi::TypedArray>();
  if (values.TypedArrayType() != napi_float64_array || out.TypedArrayType() != napi_float64_array ||
      out.ElementLength() < 2) {
    Napi::TypeError::New(env, "kahanSumF64 takes two Float64Arrays (out of 2 or more)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  auto v = values.As<Napi::Float64Array>();
  auto o = out.As<Napi::Float64Array>();
  kahanSumF64(v.Data(), v.ElementLength(), o.Data());
  return env.Undefined();
}

// filterCompareF64(values: Float64Array, words, op code, constant, out: Int32Array): see double-kernels.h.
Napi::Value FilterCompareF64(const Napi::CallbackInfo& info) {
  auto env = info.Env();
  if (info.Length() < 5 || !info[0].IsTypedArray() || !info[4].IsTypedArray()) {
    Napi::TypeError::New(env, "filterCompareF64(Float64Array, words, op, c, Int32Array)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  auto v = info[0].As<Napi::TypedArray>();
  auto out = info[4].As<Napi::TypedArray>();
  const double words = info[1].As<Napi::Number>().DoubleValue();
  const int op = info[2].As<Napi::Number>().Int32Value();
  if (v.TypedArrayType() != napi_float64_array || out.TypedArrayType() != napi_int32_array || words < 0 ||
      words * 32 > static_cast<double>(v.ElementLength()) || words > static_cast<double>(out.ElementLength()) ||
      op < 0 || op > 5) {
    Napi::RangeError::New(env, "filterCompareF64: bad arguments").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  filterCompareF64(v.As<Napi::Float64Array>().Data(), static_cast<size_t>(words), static_cast<CompareCode>(op),
                   info[3].As<Napi::Number>().DoubleValue(), out.As<Napi::Int32Array>().Data());
  return env.Undefined();
}

// populateLater(bytes, idle): queues the memory under a Buffer to be faulted in by a background thread, under
// SCHED_IDLE when `idle` (page-populator.cc).
Napi::Value PopulateLater(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsBuffer()) {
    Napi::TypeError::New(env, "populateLater(buffer)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  auto b = info[0].As<Napi::Buffer<uint8_t>>();
  populateLater(b.Data(), b.Length(), info.Length() > 1 && info[1].ToBoolean().Value());
  return env.Undefined();
}

// setThreadScheduling(tid, idle): SCHED_IDLE when `idle`, else SCHED_OTHER; 0, or the errno of sched_setscheduler.
Napi::Value SetThreadScheduling(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsNumber() || !info[1].IsBoolean()) {
    Napi::TypeError::New(env, "setThreadScheduling(tid, idle)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  int tid = info[0].As<Napi::Number>().Int32Value();
  return Napi::Number::New(env, info[1].As<Napi::Boolean>().Value() ? setIdleScheduling(tid) : setNormalScheduling(tid));
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  env.SetInstanceData(new AddonData());
  exports.Set("NativePool", PoolWrap::Define(env));
  exports.Set("setErrorClass", Napi::Function::New(env, SetErrorClass));
  exports.Set("enableJournaling", Napi::Function::New(env, EnableJournaling));
  exports.Set("kahanSumF64", Napi::Function::New(env, KahanSumF64));
  exports.Set("filterCompareF64", Napi::Function::New(env, FilterCompareF64));
  exports.Set("setThreadScheduling", Napi::Function::New(env, SetThreadScheduling));
  exports.Set("populateLater", Napi::Function::New(env, PopulateLater));
  const std::pair<const char*, napi_callback> fast[] = {
      {"get", PoolWrap::FastGet}, {"getChild", PoolWrap::FastGetChild}, {"count", PoolWrap::FastCount},
      {"view", PoolWrap::FastView}, {"getMany", PoolWrap::FastGetMany},
      {"fill", PoolWrap::FastFill}};
  for (const auto& [name, fn] : fast) {
    napi_value f;
    napi_create_function(env, name, NAPI_AUTO_LENGTH, fn, nullptr, &f);
    exports.Set(name, Napi::Value(env, f));
  }
  exports.Set("layoutVersion", Napi::Number::New(env, kLayoutVersion));
  return exports;
}

}  // namespace pmemcql

static Napi::Object InitAddon(Napi::Env env, Napi::Object exports) { return pmemcql::Init(env, exports); }

NODE_API_MODULE(pmemcql_native, InitAddon)
