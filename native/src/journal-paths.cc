#include "journal-paths.h"

#include <limits.h>
#include <stdlib.h>

#include <cstdint>
#include <cstdio>

namespace pmemcql {

std::string dirOf(const std::string& path) {
  size_t s = path.rfind('/');
  return s == std::string::npos ? "." : s == 0 ? "/" : path.substr(0, s);
}

std::string baseNameOf(const std::string& path) { return path.substr(path.rfind('/') + 1); }

JournalPaths JournalPaths::forPool(const std::string& poolPath) {
  std::string stem = poolPath;
  if (stem.size() > 5 && stem.compare(stem.size() - 5, 5, ".pool") == 0) stem.resize(stem.size() - 5);
  JournalPaths p;
  p.pool = poolPath;
  p.image = stem + ".image";
  p.journal[0] = stem + ".journal-0";
  p.journal[1] = stem + ".journal-1";
  p.lock = stem + ".lock";
  p.legacyJournal = stem + ".journal";
  // As those builds named it: FNV-1a of the data directory's real path and the pool file's name.
  std::string dir = dirOf(poolPath);
  char real[PATH_MAX];
  std::string key = (realpath(dir.c_str(), real) ? std::string(real) : dir) + "/" + baseNameOf(poolPath);
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : key) h = (h ^ c) * 0x100000001b3ull;
  char name[64];
  snprintf(name, sizeof name, "/dev/shm/pmemcql-%016llx.pool", static_cast<unsigned long long>(h));
  p.legacyShm = name;
  return p;
}

}  // namespace pmemcql
