// Probe: the fragment layout of mma.m16n8k256 .b1 (and.popc) as tgh.cu.j2 assumes it:
//   A: a0/a2 row g, a1/a3 row g+8 (g = lane/4); a0/a1 k = 32(lane%4) + bit, a2/a3 k = 128 + 32(lane%4) + bit
//   B: b0 k = 32(lane%4) + bit, b1 k = 128 + ...; column g.   C/D: d0,d1 row g cols 2(lane%4)+{0,1}; d2,d3 row g+8
// Fills A (16 x 256 bits) and B (256 x 8 bits) at random, compares D with a CPU reference.
#include <cstdio>
#include <cstdint>
#include <cstdlib>
__global__ void k(const uint32_t *A, const uint32_t *B, int *D) {  // A[16][8] words, B[8 cols][8] words
  int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
  uint32_t a0 = A[g * 8 + t], a1 = A[(g + 8) * 8 + t], a2 = A[g * 8 + 4 + t], a3 = A[(g + 8) * 8 + 4 + t];
  uint32_t b0 = B[g * 8 + t], b1 = B[g * 8 + 4 + t];
  int d0 = 0, d1 = 0, d2 = 0, d3 = 0;
  asm("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.and.popc {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
      : "+r"(d0), "+r"(d1), "+r"(d2), "+r"(d3) : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  D[g * 8 + 2 * t] = d0; D[g * 8 + 2 * t + 1] = d1; D[(g + 8) * 8 + 2 * t] = d2; D[(g + 8) * 8 + 2 * t + 1] = d3;
}
int main() {
  uint32_t A[128], B[64]; int D[128];
  srand(7);
  for (int i = 0; i < 128; i++) A[i] = (uint32_t)rand() * 2654435761u ^ rand();
  for (int i = 0; i < 64; i++) B[i] = (uint32_t)rand() * 2246822519u ^ rand();
  uint32_t *dA, *dB; int *dD;
  cudaMalloc(&dA, 512); cudaMalloc(&dB, 256); cudaMalloc(&dD, 512);
  cudaMemcpy(dA, A, 512, cudaMemcpyHostToDevice); cudaMemcpy(dB, B, 256, cudaMemcpyHostToDevice);
  k<<<1, 32>>>(dA, dB, dD);
  cudaMemcpy(D, dD, 512, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int m = 0; m < 16; m++) for (int n = 0; n < 8; n++) {
    int s = 0;
    for (int w = 0; w < 8; w++) s += __builtin_popcount(A[m * 8 + w] & B[n * 8 + w]);
    if (s != D[m * 8 + n]) bad++;
  }
  printf("bmma m16n8k256 layout as assumed: %s (%d of 128 entries differ)\n", bad ? "WRONG" : "ok", bad);
  return bad != 0;
}
