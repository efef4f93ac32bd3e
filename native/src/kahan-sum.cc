// 32 independent Kahan lanes: each lane is a chain of four dependent additions per value, so the JS kernel's four
// lanes run at the adder's latency (~1.6 ns a value here); 32 lanes vectorize (SSE2, or AVX2 where the CPU has it:
// target_clones picks at load time) and run near memory bandwidth: 8.7 ms vs 15.9 ms for 10 M doubles. Built with
// -ffp-contract=off: a fused multiply-add would change the rounding Kahan relies on.

#include "kahan-sum.h"

namespace pmemcql {

namespace {
constexpr int kKahanLanes = 32;
}

__attribute__((target_clones("avx2", "default"))) void kahanSumF64(const double* v, size_t n, double out[2]) {
  double s[kKahanLanes] = {0};
  double c[kKahanLanes] = {0};
  const size_t m = n - n % kKahanLanes;
  size_t i = 0;
  for (; i < m; i += kKahanLanes) {
    for (int k = 0; k < kKahanLanes; k++) {
      const double t = v[i + k] - c[k];
      const double r = s[k] + t;
      c[k] = (r - s[k]) - t;
      s[k] = r;
    }
  }
  for (; i < n; i++) {
    const double t = v[i] - c[0];
    const double r = s[0] + t;
    c[0] = (r - s[0]) - t;
    s[0] = r;
  }
  // Each lane is worth s - c: fold the 2 * lanes terms with the same step.
  double sum = 0;
  double comp = 0;
  for (int k = 0; k < 2 * kKahanLanes; k++) {
    const double t = ((k & 1) ? -c[k >> 1] : s[k >> 1]) - comp;
    const double r = sum + t;
    comp = (r - sum) - t;
    sum = r;
  }
  out[0] = sum;
  out[1] = comp;
}

}  // namespace pmemcql
