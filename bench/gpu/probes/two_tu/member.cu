// Probe (two_tu.sh): a member library's host code, launching the family object's kernel by its declaration
// (whole-program compilation, no -rdc: the launch calls the host stub the other translation unit defines)
#include <cuda_runtime.h>
#include <stdint.h>
namespace cs_fam {
struct key {
    uint32_t w[4];
};
__global__ void __attribute__((visibility("hidden"))) fam_kernel(const __grid_constant__ key k, uint32_t *out, uint32_t n);
}  // namespace cs_fam
extern "C" int MEMBER(uint32_t *host, uint32_t n, int *regs)
{
    uint32_t *d = 0;
    if (cudaMalloc(&d, n * 4)) return 1;
    const cs_fam::key k = {{1, 2, 3, 4}};
    cs_fam::fam_kernel<<<(n + 255) / 256, 256>>>(k, d, n);
    int rc = cudaGetLastError() ? 2 : 0;
    cudaFuncAttributes a;
    if (!rc) rc = cudaFuncGetAttributes(&a, (const void *)cs_fam::fam_kernel) ? 3 : 0;
    if (!rc) *regs = a.numRegs;
    if (!rc) rc = cudaMemcpy(host, d, n * 4, cudaMemcpyDeviceToHost) ? 4 : 0;
    cudaFree(d);
    return rc;
}
