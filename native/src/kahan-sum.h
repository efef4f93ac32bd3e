// Compensated (Kahan) sum of a dense double column: the columnar sum(x) kernel (docs/arrow-twins.md).
#pragma once

#include <cstddef>

namespace pmemcql {

// Kahan sum of v[0, n) in kKahanLanes interleaved lanes, folded with the same Kahan step: out[0] = sum,
// out[1] = compensation (the exact total is about sum - compensation, as Cassandra's FloatSumAggregate keeps it).
void kahanSumF64(const double* v, size_t n, double out[2]);

}  // namespace pmemcql
