{
  "targets": [
    {
      "target_name": "pmemcql_native",
      "sources": [
        "src/addon.cc",
        "src/boot-id.cc",
        "src/commit-log-policy.cc",
        "src/double-kernels.cc",
        "src/flush-recorder.cc",
        "src/journal-checkpoint-thread.cc",
        "src/journal-format.cc",
        "src/journal-paths.cc",
        "src/journal-recovery.cc",
        "src/journal-replay.cc",
        "src/journal-sync-log.cc",
        "src/journal-sync-thread.cc",
        "src/journal-writer.cc",
        "src/journaled-pool-open.cc",
        "src/kahan-sum.cc",
        "src/map-cursor.cc",
        "src/page-populator.cc",
        "src/pmem-map.cc",
        "src/pmem-pool.cc",
        "src/pool-prefault.cc",
        "src/thread-scheduling.cc",
        "src/write-batch.cc"
      ],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NAPI_DISABLE_CPP_EXCEPTIONS", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++17", "-std=gnu++20"],
      "cflags_cc": ["-std=c++17", "-O2", "-ffp-contract=off", "-fexceptions", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "libraries": ["-lpmemobj", "-lpmem", "-ldl"]
    },
    {
      "target_name": "pmemcql_watchdog",
      "sources": ["src/execution-watchdog.cc"],
      "defines": ["NAPI_VERSION=8"],
      "cflags_cc!": ["-std=gnu++17", "-std=gnu++20"],
      "cflags_cc": ["-std=c++20", "-O2", "-Wall", "-Wextra", "-Wno-unused-parameter"]
    }
  ]
}
