// Probe: sustained mma.sync rates on this GPU for the shapes a tensor-core GHASH could use
// (b1 and.popc / xor.popc m16n8k256 and m16n8k128, s8 m16n8k32), in warp-level MMAs per second.
// A GF(2) matrix-vector product over 128 bits is 16384 bit-MACs: b1 k256 does 32768 per MMA.
//   nvcc -O3 -arch=sm_90 -o mma_rate mma_rate.cu && ./mma_rate
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

#define CHAINS 8
template <int SHAPE>
__global__ void probe(uint32_t *out, int iters, uint32_t seed) {
  uint32_t a[4], b[2];
  int d[CHAINS][4];
  for (int i = 0; i < 4; i++) a[i] = seed * (threadIdx.x + 7 * i + 1);
  for (int i = 0; i < 2; i++) b[i] = seed ^ (threadIdx.x * 0x9e3779b9u + i);
  for (int c = 0; c < CHAINS; c++) for (int i = 0; i < 4; i++) d[c][i] = 0;
  for (int it = 0; it < iters; it++) {
#pragma unroll
    for (int c = 0; c < CHAINS; c++) {
      if (SHAPE == 0)
        asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+r"(d[c][0]), "+r"(d[c][1]), "+r"(d[c][2]), "+r"(d[c][3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
      else if (SHAPE == 1)
        asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+r"(d[c][0]), "+r"(d[c][1]), "+r"(d[c][2]), "+r"(d[c][3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
      else if (SHAPE == 2)
        asm volatile("mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                     : "+r"(d[c][0]), "+r"(d[c][1]), "+r"(d[c][2]), "+r"(d[c][3])
                     : "r"(a[0]), "r"(a[1]), "r"(b[0]));
      else
        asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                     : "+r"(d[c][0]), "+r"(d[c][1]), "+r"(d[c][2]), "+r"(d[c][3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    a[it & 3] ^= (uint32_t)it;  // operands change every trip (no dependence on the results: chains stay independent)
  }
  uint32_t s = 0;
  for (int c = 0; c < CHAINS; c++) for (int i = 0; i < 4; i++) s += d[c][i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <int SHAPE>
double rate(const char *name, double macs_per_mma) {
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  int blocks = sms * 4, threads = 256, iters = 4096;
  uint32_t *out; cudaMalloc(&out, blocks * threads * 4);
  probe<SHAPE><<<blocks, threads>>>(out, 16, 3);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaEventRecord(e0);
  probe<SHAPE><<<blocks, threads>>>(out, iters, 5);
  cudaEventRecord(e1); cudaEventSynchronize(e1);
  float ms; cudaEventElapsedTime(&ms, e0, e1);
  cudaError_t err = cudaGetLastError();
  double mmas = (double)blocks * (threads / 32) * iters * CHAINS;
  double r = mmas / (ms * 1e-3);
  printf("%-34s %s  %.3e warp-MMA/s  %.1f T bit-or-int-MAC/s  (%.3f ms)\n", name, cudaGetErrorString(err), r,
         r * macs_per_mma / 1e12, ms);
  cudaFree(out);
  return r;
}

int main() {
  cudaDeviceProp p; cudaGetDeviceProperties(&p, 0);
  printf("%s, %d SMs\n", p.name, p.multiProcessorCount);
  double b1 = rate<0>("b1 m16n8k256 and.popc", 16.0 * 8 * 256);
  rate<1>("b1 m16n8k256 xor.popc", 16.0 * 8 * 256);
  rate<2>("b1 m16n8k128 and.popc", 16.0 * 8 * 128);
  double s8 = rate<3>("s8 m16n8k32", 16.0 * 8 * 32);
  // GHASH as GF(2) products: 16384 bit-MACs a block (b1 k256: 2 blocks per MMA; s8 k32: 1/4 block per MMA)
  printf("GHASH bound, b1 k256: %.2f Tbps; s8 k32 (bits unpacked to bytes): %.2f Tbps\n", b1 * 2 * 128 / 1e12,
         s8 / 4 * 128 / 1e12);
  return 0;
}
