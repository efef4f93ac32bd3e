// The predicate of `column op constant` over a double column, natively: it beat its JS loop by measurement
// (docs/arrow-twins.md).
#pragma once

#include <cstddef>
#include <cstdint>

namespace pmemcql {

// Operators in the order of column-kernels.ts's CompareOp codes.
enum class CompareCode : int { kEq = 0, kNe = 1, kLt = 2, kLe = 3, kGt = 4, kGe = 5 };

// Predicate bits of `v[i] op c` for i < 32 * words (bit i % 32 of word i / 32), as JS compares doubles with a
// constant that is neither zero nor NaN, NaN placed above everything (so `>`, `>=`, `!=` accept NaN).
void filterCompareF64(const double* v, size_t words, CompareCode op, double c, int32_t* out);

}  // namespace pmemcql
