// Probe: the fixed cost of one device-resident call on this machine, by design (issue 22: CTR_DRBG bulk on 2 GPUs at
// 128 MiB needs the per-call fixed cost F <= ~17 us for 1.8x; main's is ~26 us).  Each design does no keystream work:
// what it measures is the floor any kernel built that way pays per call, on one GPU and on two at once (device 0 on
// the calling thread, device 1 on a kept spinning thread, as the library's context does).
//   empty      <<<1, 32>>> no-op, event record, event synchronize (spin)
//   grid       the DRBG kernel's grid (SMs x 5 CTAs of 256 threads), no work
//   fetch      the same grid, each CTA's thread 0 reading its V and key (2 x 16 B) from mapped page-locked memory
//              (what the shipped kernel's first stage does)
//   fetch32    ... V and key read by two threads of one load instruction (one 32-byte request, not two of 16)
//   copy       one H2D copy of the plan (32 B a CTA), then the grid reading it from device memory
//   resident   a grid launched once, kept: CTA 0 polls a job word in mapped host memory, hands the job to every CTA
//              through device memory; each CTA reads its V and key from mapped memory; the last CTA to finish writes a
//              done word to mapped host memory, which the host polls (no launch, no event per call)
//   resident_d the same with the plan already in device memory (the floor of a resident design's signalling alone)
// Every design's CTAs add what they read into out[] (device memory), checked against the host's sum.
//   nvcc -O3 -std=c++17 -arch=sm_90 -o call_floor call_floor.cu && ./call_floor [reps]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
#include <cuda_runtime.h>

#define CK(x)                                                                                                          \
  do {                                                                                                                 \
    cudaError_t e_ = (x);                                                                                              \
    if (e_ != cudaSuccess) {                                                                                           \
      fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));                              \
      exit(2);                                                                                                         \
    }                                                                                                                  \
  } while (0)

static double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

__global__ void k_empty(uint32_t *out) {
  if (out && threadIdx.x == 0 && blockIdx.x == 0) out[0] += 1;
}

// one 16-byte load that the compiler may not drop or merge (volatile; a generic address: mapped host or device memory)
__device__ __forceinline__ void ld16(const uint32_t *p, uint32_t *v) {
  asm volatile("ld.volatile.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]) : "l"(p) : "memory");
}

// the grid; plan: nullptr (no work), or V, K of CTA c at plan + 8c words (mapped host or device memory)
template <int WIDE>
__global__ void __launch_bounds__(256) k_grid(const uint32_t *plan, uint32_t *out) {
  __shared__ uint32_t vk[8];
  if (plan && WIDE && threadIdx.x < 2) {  // threads 0 and 1 in one load instruction: one 32-byte request
    uint32_t a[4];
    ld16(plan + 8 * blockIdx.x + 4 * threadIdx.x, a);
    for (int i = 0; i < 4; ++i) vk[4 * threadIdx.x + i] = a[i];
  } else if (plan && !WIDE && threadIdx.x == 0) {
    ld16(plan + 8 * blockIdx.x, vk);  // two loads, as the shipped kernel's first stage
    ld16(plan + 8 * blockIdx.x + 4, vk + 4);
  }
  __syncthreads();
  if (plan && threadIdx.x == 0) {
    uint32_t s = 0;
    for (int i = 0; i < 8; ++i) s += vk[i];
    out[blockIdx.x] += s;
  }
}

struct Shared {              // device memory of the resident design
  unsigned gen;              // the job CTA 0 handed to the grid
  unsigned count;            // CTAs done with the current job
};

__device__ __forceinline__ unsigned ld_sys(const volatile unsigned *p) {
  unsigned v;
  asm volatile("ld.relaxed.sys.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ unsigned ld_acq_gpu(const unsigned *p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ uint64_t gtimer() {
  uint64_t t;
  asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
  return t;
}

// job word (host): the job's generation g >= 1 (0xffffffff: stop); done word (host): g once the job's CTAs are done.
// Every wait has a time limit (2 s without a job: the grid returns), so a broken handshake cannot hang the device.
__global__ void __launch_bounds__(256) k_resident(const volatile unsigned *job, volatile unsigned *done, Shared *sh,
                                                  const uint32_t *plan, uint32_t *out) {
  __shared__ unsigned g_s;
  __shared__ uint32_t vk[8];
  unsigned seen = 0;
  for (;;) {
    if (threadIdx.x == 0) {
      unsigned g = seen;
      const uint64_t t0 = gtimer();
      if (blockIdx.x == 0) {
        while ((g = ld_sys(job)) == seen && gtimer() - t0 < 2000000000ull) {
        }
        if (g == seen) g = 0xffffffffu;
        asm volatile("st.release.gpu.u32 [%0], %1;" ::"l"(&sh->gen), "r"(g) : "memory");
      } else {
        while ((g = ld_acq_gpu(&sh->gen)) == seen && gtimer() - t0 < 2000000000ull) {
        }
        if (g == seen) g = 0xffffffffu;
      }
      g_s = g;
      if (g != 0xffffffffu) {
        ld16(plan + 8 * blockIdx.x, vk);
        ld16(plan + 8 * blockIdx.x + 4, vk + 4);
      }
    }
    __syncthreads();
    const unsigned g = g_s;
    if (g == 0xffffffffu) return;
    seen = g;
    if (threadIdx.x == 0) {
      uint32_t s = 0;
      for (int i = 0; i < 8; ++i) s += vk[i];
      out[blockIdx.x] += s;
      __threadfence();
      const unsigned c = atomicAdd(&sh->count, 1u);
      if (c == gridDim.x - 1) {  // the last CTA of this job
        sh->count = 0;
        __threadfence_system();
        *done = g;
      }
    }
    __syncthreads();
  }
}

struct Dev {
  int ord = 0, nctas = 0;
  cudaStream_t st{};
  cudaEvent_t ev{};
  uint32_t *h_plan = nullptr, *h_plan_dev = nullptr, *d_plan = nullptr, *d_out = nullptr;
  unsigned *h_words = nullptr, *h_words_dev = nullptr;  // [0] job, [1] done
  Shared *sh = nullptr;
  uint64_t expect = 0;  // sum of every CTA's plan words
};

static void setup(Dev &d, int ord) {
  d.ord = ord;
  CK(cudaSetDevice(ord));
  int sms = 0, per = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ord));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, k_resident, 256, 0));
  d.nctas = sms * std::min(per, 5);
  CK(cudaStreamCreateWithFlags(&d.st, cudaStreamNonBlocking));
  CK(cudaEventCreateWithFlags(&d.ev, cudaEventDisableTiming));
  CK(cudaHostAlloc((void **)&d.h_plan, 32u * d.nctas, cudaHostAllocPortable | cudaHostAllocMapped));
  CK(cudaHostGetDevicePointer((void **)&d.h_plan_dev, d.h_plan, 0));
  CK(cudaHostAlloc((void **)&d.h_words, 64, cudaHostAllocPortable | cudaHostAllocMapped));
  CK(cudaHostGetDevicePointer((void **)&d.h_words_dev, d.h_words, 0));
  memset(d.h_words, 0, 64);
  for (int i = 0; i < 8 * d.nctas; ++i) d.h_plan[i] = 0x9e3779b9u * (uint32_t)(i + 1) + (uint32_t)ord;
  CK(cudaMalloc((void **)&d.d_plan, 32u * d.nctas));
  CK(cudaMemcpy(d.d_plan, d.h_plan, 32u * d.nctas, cudaMemcpyHostToDevice));
  CK(cudaMalloc((void **)&d.d_out, 4u * d.nctas));
  CK(cudaMemset(d.d_out, 0, 4u * d.nctas));
  CK(cudaMalloc((void **)&d.sh, sizeof(Shared)));
  CK(cudaMemset(d.sh, 0, sizeof(Shared)));
  for (int c = 0; c < d.nctas; ++c) {
    uint32_t s = 0;
    for (int i = 0; i < 8; ++i) s += d.h_plan[8 * c + i];
    d.expect += s;
  }
}

// the sum of out[] must be (calls that read the plan) x expect (mod 2^32 per CTA: compared per CTA)
static bool check(Dev &d, uint64_t calls) {
  CK(cudaSetDevice(d.ord));
  CK(cudaDeviceSynchronize());
  std::vector<uint32_t> o(d.nctas);
  CK(cudaMemcpy(o.data(), d.d_out, 4u * d.nctas, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int c = 0; c < d.nctas; ++c) {
    uint32_t s = 0;
    for (int i = 0; i < 8; ++i) s += d.h_plan[8 * c + i];
    ok &= o[c] == (uint32_t)(s * (uint32_t)calls);
  }
  CK(cudaMemset(d.d_out, 0, 4u * d.nctas));
  return ok;
}

enum Design { EMPTY, GRID, FETCH, FETCH32, COPY, RESIDENT, RESIDENT_D, NDESIGN };
static const char *NAMES[] = {"empty", "grid", "fetch", "fetch32", "copy", "resident", "resident_d"};

// one call of design x on device d (current on this thread); gen: the resident designs' job number
static void call(Dev &d, Design x, unsigned gen) {
  switch (x) {
    case EMPTY: k_empty<<<1, 32, 0, d.st>>>(nullptr); break;
    case GRID: k_grid<0><<<d.nctas, 256, 0, d.st>>>(nullptr, d.d_out); break;
    case FETCH: k_grid<0><<<d.nctas, 256, 0, d.st>>>(d.h_plan_dev, d.d_out); break;
    case FETCH32: k_grid<1><<<d.nctas, 256, 0, d.st>>>(d.h_plan_dev, d.d_out); break;
    case COPY:
      CK(cudaMemcpyAsync(d.d_plan, d.h_plan, 32u * d.nctas, cudaMemcpyHostToDevice, d.st));
      k_grid<0><<<d.nctas, 256, 0, d.st>>>(d.d_plan, d.d_out);
      break;
    default: {
      std::atomic_thread_fence(std::memory_order_seq_cst);
      reinterpret_cast<volatile unsigned *>(d.h_words)[0] = gen;
      const double t0 = now_us();
      while (reinterpret_cast<volatile unsigned *>(d.h_words)[1] != gen)
        if (now_us() - t0 > 1e6) {
          fprintf(stderr, "resident: no done word for job %u on device %d\n", gen, d.ord);
          exit(3);
        }
      return;
    }
  }
  CK(cudaEventRecord(d.ev, d.st));
  CK(cudaEventSynchronize(d.ev));
}

static void start_resident(Dev &d, Design x) {
  CK(cudaSetDevice(d.ord));
  d.h_words[0] = d.h_words[1] = 0;
  CK(cudaMemset(d.sh, 0, sizeof(Shared)));
  CK(cudaDeviceSynchronize());
  k_resident<<<d.nctas, 256, 0, d.st>>>(d.h_words_dev, d.h_words_dev + 1, d.sh, x == RESIDENT ? d.h_plan_dev : d.d_plan,
                                        d.d_out);
  CK(cudaGetLastError());
}
static void stop_resident(Dev &d) {
  CK(cudaSetDevice(d.ord));
  reinterpret_cast<volatile unsigned *>(d.h_words)[0] = 0xffffffffu;
  CK(cudaStreamSynchronize(d.st));
}

static void stats(const char *what, int ngpu, std::vector<double> &t, bool ok) {
  std::sort(t.begin(), t.end());
  const size_t n = t.size();
  printf("| %s | %d | %.1f | %.1f | %.1f | %.1f | %s |\n", what, ngpu, t[n / 10], t[n / 2], t[n * 9 / 10], t[n - 1],
         ok ? "yes" : "NO");
  fflush(stdout);
}

int main(int argc, char **argv) {
  const int reps = argc > 1 ? atoi(argv[1]) : 2000;
  int ndev = 0;
  CK(cudaGetDeviceCount(&ndev));
  ndev = std::min(ndev, 2);
  std::vector<Dev> dv(ndev);
  for (int i = 0; i < ndev; ++i) setup(dv[i], i);
  for (int i = 0; i < ndev; ++i) {
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, i));
    printf("device %d: %s, %d SMs, grid %d CTAs of 256\n", i, p.name, p.multiProcessorCount, dv[i].nctas);
  }
  printf("\n| design | GPUs | p10 us | median us | p90 us | max us | out[] verified |\n|---|---:|---:|---:|---:|---:|---|\n");
  int rc = 0;
  for (int x = 0; x < NDESIGN; ++x) {
    const Design ds = (Design)x;
    const bool res = ds == RESIDENT || ds == RESIDENT_D;
    const bool reads = ds != EMPTY && ds != GRID;
    // one GPU
    {
      Dev &d = dv[0];
      CK(cudaSetDevice(d.ord));
      if (res) start_resident(d, ds);
      std::vector<double> t;
      for (int i = 0; i < reps + 50; ++i) {
        const double t0 = now_us();
        call(d, ds, (unsigned)i + 1);
        if (i >= 50) t.push_back(now_us() - t0);
      }
      if (res) stop_resident(d);
      const bool ok = check(d, reads ? (uint64_t)reps + 50 : 0);
      rc |= !ok;
      stats(NAMES[x], 1, t, ok);
    }
    if (ndev < 2) continue;
    // two GPUs: device 1 on a kept thread that spins for its job, device 0 here; a call ends when both are done
    if (res) {
      start_resident(dv[0], ds);
      start_resident(dv[1], ds);
    }
    std::atomic<int> post{0}, fin{0};
    std::thread w([&] {
      CK(cudaSetDevice(dv[1].ord));
      for (int i = 0; i < reps + 50; ++i) {
        while (post.load(std::memory_order_acquire) != i + 1) {
        }
        call(dv[1], ds, (unsigned)i + 1);
        fin.store(i + 1, std::memory_order_release);
      }
    });
    CK(cudaSetDevice(dv[0].ord));
    std::vector<double> t;
    for (int i = 0; i < reps + 50; ++i) {
      const double t0 = now_us();
      post.store(i + 1, std::memory_order_release);
      call(dv[0], ds, (unsigned)i + 1);
      while (fin.load(std::memory_order_acquire) != i + 1) {
      }
      if (i >= 50) t.push_back(now_us() - t0);
    }
    w.join();
    if (res) {
      stop_resident(dv[0]);
      stop_resident(dv[1]);
    }
    bool ok = check(dv[0], reads ? (uint64_t)reps + 50 : 0);
    ok &= check(dv[1], reads ? (uint64_t)reps + 50 : 0);
    rc |= !ok;
    stats(NAMES[x], 2, t, ok);
  }
  return rc;
}
