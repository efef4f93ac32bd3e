// The files of a journaled pool, named after the configured pool path (its `.pool` suffix replaced).
#pragma once

#include <string>

namespace pmemcql {

struct JournalPaths {
  std::string pool;        // the working pool: a libpmemobj pool file mapped through the page cache
  std::string image;       // <stem>.image: the pool as of the last checkpoint
  std::string journal[2];  // <stem>.journal-0 / -1: records since the image, one file at a time
  std::string lock;        // <stem>.lock: flocked while the pool is open
  std::string legacyJournal;  // <stem>.journal: the single journal of builds that kept the working pool in /dev/shm
  std::string legacyShm;      // that working pool: /dev/shm/pmemcql-<hash of the pool path>.pool
  static JournalPaths forPool(const std::string& poolPath);
};

std::string dirOf(const std::string& path);
std::string baseNameOf(const std::string& path);

}  // namespace pmemcql
