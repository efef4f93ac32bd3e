// The one exception type inside the addon. It never crosses into JS: every N-API entry point
// catches it and throws a JS PoolError with the same code instead.
#pragma once

#include <string>
#include <utility>

namespace pmemcql {

struct PoolErr {
  std::string code;     // stable, e.g. POOL_FULL, POOL_LAYOUT, NO_SUCH_MAP
  std::string message;  // human readable
  PoolErr(std::string c, std::string m) : code(std::move(c)), message(std::move(m)) {}
};

}  // namespace pmemcql
