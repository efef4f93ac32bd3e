#include "boot-id.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <string>

#include "pool-error.h"

namespace pmemcql {

namespace {

// "545c8294-5ee2-40cd-8423-add561af7337": 32 hex digits, dashes ignored.
bool parseUuid(const std::string& s, BootId& out) {
  std::string hex;
  for (char c : s) {
    if (c == '-' || c == '\n' || c == ' ') continue;
    if (!isxdigit(static_cast<unsigned char>(c))) return false;
    hex.push_back(c);
  }
  if (hex.size() != 32) return false;
  out.hi = std::stoull(hex.substr(0, 16), nullptr, 16);
  out.lo = std::stoull(hex.substr(16), nullptr, 16);
  return true;
}

}  // namespace

BootId currentBootId() {
  BootId id;
  const char* fake = getenv("PMEMCQL_BOOT_ID");
  if (fake && *fake) {
    if (!parseUuid(fake, id)) throw PoolErr("POOL_OPEN", std::string("PMEMCQL_BOOT_ID is not a UUID: ") + fake);
    return id;
  }
  std::ifstream f("/proc/sys/kernel/random/boot_id");
  std::string line;
  if (!std::getline(f, line) || !parseUuid(line, id))
    throw PoolErr("POOL_OPEN",
                  "cannot read /proc/sys/kernel/random/boot_id, which tells whether the working pool survived "
                  "since its last write");
  return id;
}

}  // namespace pmemcql
