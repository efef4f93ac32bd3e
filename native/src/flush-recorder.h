// Records the address ranges libpmemobj makes persistent (its pmem_flush / pmem_persist /
// pmem_mem* calls), so a journaled pool's commit knows which pool bytes changed. See
// flush-recorder.cc for how the calls are intercepted.
#pragma once

#include <cstdint>
#include <vector>

namespace pmemcql {

struct ByteRange {
  uint64_t off;  // pool offset
  uint64_t len;
};

namespace flush_recorder {

/** Turns recording on for the rest of the process (its disk pools are journaled). */
void enable();
bool enabled();
/** Ranges recorded since the process started (to check that libpmemobj's calls arrive here). */
uint64_t recordedCount();
/**
 * Moves the recorded ranges inside [base, base+size) out of the recorder, as sorted, merged
 * pool offsets appended to `out` (merged with what `out` held). Ranges of other mappings stay.
 */
void takeRanges(const char* base, uint64_t size, std::vector<ByteRange>& out);
/** Forgets the ranges inside [base, base+size) (the pool was unmapped). */
void dropRanges(const char* base, uint64_t size);
/** Sorts and merges ranges in place (touching or overlapping ranges become one). */
void mergeRanges(std::vector<ByteRange>& ranges);

}  // namespace flush_recorder
}  // namespace pmemcql
