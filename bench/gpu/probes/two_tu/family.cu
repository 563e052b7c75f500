// Probe (two_tu.sh): a family's kernel in a translation unit of its own, compiled once and linked into each member
// library (the family compile's mechanics, bench/results/cuda-build-time.md).  Hidden visibility: its host stub
// stays inside the library that links it, so two libraries holding the same family object do not bind each
// other's kernel.  TAG tells the two objects apart.
#include <stdint.h>
namespace cs_fam {
struct key {
    uint32_t w[4];
};
__global__ void __attribute__((visibility("hidden"))) fam_kernel(const __grid_constant__ key k, uint32_t *out, uint32_t n)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = k.w[i & 3] ^ (i * 2654435761u) ^ TAG;
}
}  // namespace cs_fam
