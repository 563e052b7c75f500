/* cuda_cpu.h -- just enough of CUDA to run a generated .cu library on the CPU (tests only).
 *
 * tests/support/cuda_cpu.py rewrites a generated source (every inline-PTX statement becomes a call of
 * the cs_emu_* function below; its launches are CS_LAUNCH, defined below) and compiles it with the host C++
 * compiler against this header.  A launch runs the grid CTA by CTA; the threads of a CTA are coroutines
 * (ucontext) switched at __syncthreads(), so shared-memory fills and barriers behave as on the GPU.
 * "Device" memory is host memory; streams and events do nothing; the device has 2 SMs, so grid-stride
 * loops take several trips.  Not modelled: concurrency between threads other than at barriers, warps,
 * memory spaces (a wrong space is the GPU tests' and compute-sanitizer's job).
 */
#ifndef CS_CUDA_CPU_H
#define CS_CUDA_CPU_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <functional>
#include <mutex>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __grid_constant__
#define __shared__
#define __constant__
#define asm_volatile_unused

struct cs_dim3 { unsigned x, y, z; };
/* per host thread: the multi-GPU entry points run one host thread per device and stream */
static thread_local cs_dim3 threadIdx, blockIdx, gridDim, blockDim;
static thread_local uint32_t cs_smem[256 * 1024 / 4 + 64];  /* dynamic shared memory of the running CTA */

struct uint2 { uint32_t x, y; };
struct uint4 { uint32_t x, y, z, w; };
static inline uint2 make_uint2(uint32_t x, uint32_t y) { uint2 r = {x, y}; return r; }
static inline uint4 make_uint4(uint32_t x, uint32_t y, uint32_t z, uint32_t w) { uint4 r = {x, y, z, w}; return r; }
template <class T> static inline T __ldg(const T *p) { return *p; }

/* ---- the PTX instructions the generator emits, on the CPU (the semantics of generator/ptx/emulate.py) */
static inline uint32_t cs_emu_add_u32(uint32_t a, uint32_t b) { return a + b; }
static inline uint32_t cs_emu_sub_u32(uint32_t a, uint32_t b) { return a - b; }
static inline uint32_t cs_emu_xor_b32(uint32_t a, uint32_t b) { return a ^ b; }
static inline uint32_t cs_emu_and_b32(uint32_t a, uint32_t b) { return a & b; }
static inline uint32_t cs_emu_or_b32(uint32_t a, uint32_t b) { return a | b; }
static inline uint32_t cs_emu_not_b32(uint32_t a) { return ~a; }
static inline uint32_t cs_emu_mov_b32(uint32_t a) { return a; }
static inline uint32_t cs_emu_shl_b32(uint32_t a, uint32_t k) { return k > 31 ? 0 : a << k; }
static inline uint32_t cs_emu_shr_b32(uint32_t a, uint32_t k) { return k > 31 ? 0 : a >> k; }
static inline uint32_t cs_emu_mul_lo_u32(uint32_t a, uint32_t b) { return a * b; }
static inline uint32_t cs_emu_mul_hi_u32(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }
static inline uint32_t cs_emu_shf_l_wrap_b32(uint32_t a, uint32_t b, uint32_t k)
{
    k &= 31;
    return k ? (b << k) | (a >> (32 - k)) : b;
}
static inline uint32_t cs_emu_shf_r_wrap_b32(uint32_t a, uint32_t b, uint32_t k)
{
    k &= 31;
    return k ? (a >> k) | (b << (32 - k)) : a;
}
static inline uint32_t cs_emu_lop3_b32(uint32_t a, uint32_t b, uint32_t c, uint32_t lut)
{
    uint32_t r = 0;
    for (int i = 0; i < 8; ++i)
        if (lut >> i & 1) r |= ((i & 4) ? a : ~a) & ((i & 2) ? b : ~b) & ((i & 1) ? c : ~c);
    return r;
}
static inline uint32_t cs_emu_prmt_b32(uint32_t a, uint32_t b, uint32_t sel)
{
    const uint64_t ab = ((uint64_t)b << 32) | a;
    uint32_t r = 0;
    for (int i = 0; i < 4; ++i) {
        const uint32_t n = sel >> (4 * i) & 0xf;
        uint32_t byte = (uint32_t)(ab >> (8 * (n & 7))) & 0xff;
        if (n & 8) byte = (byte & 0x80) ? 0xff : 0;  /* sign replication */
        r |= byte << (8 * i);
    }
    return r;
}

/* ---- runtime API */
typedef int cudaError_t;
enum { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2, cudaErrorInsufficientDriver = 35,
       cudaErrorNoDevice = 100, cudaErrorHostMemoryAlreadyRegistered = 712 };
typedef void *cudaStream_t;
typedef void *cudaEvent_t;
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2, cudaMemcpyDeviceToDevice = 3 };
enum { cudaDevAttrMultiProcessorCount = 16, cudaDevAttrClockRate = 13, cudaDevAttrComputeCapabilityMajor = 75 };
enum { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
enum { cudaStreamNonBlocking = 1, cudaHostRegisterDefault = 0, cudaHostRegisterPortable = 1, cudaHostAllocPortable = 1,
       cudaHostAllocMapped = 2 };
enum cudaMemoryType { cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1, cudaMemoryTypeDevice = 2 };
struct cudaPointerAttributes { cudaMemoryType type; int device; void *devicePointer, *hostPointer; };
struct cudaDeviceProp { char name[256]; int multiProcessorCount, major, minor; };
#define CS_CPU_SMS 2

static inline const char *cudaGetErrorString(cudaError_t e) { return e ? "cpu shim error" : "no error"; }
static inline cudaError_t cudaGetLastError(void) { return cudaSuccess; }
static inline cudaError_t cudaGetDevice(int *d) { *d = 0; return cudaSuccess; }
static inline cudaError_t cudaGetDeviceCount(int *n) { *n = 1; return cudaSuccess; }  /* one "device" */
static inline cudaError_t cudaSetDevice(int d) { return d == 0 ? cudaSuccess : cudaErrorInvalidValue; }
static inline cudaError_t cudaMemGetInfo(size_t *fr, size_t *tot) { *fr = *tot = (size_t)1 << 32; return cudaSuccess; }
/* host and "device" memory are one; page-locked ranges (cudaHostAlloc, cudaHostRegister) are remembered so
   that the library's pinned / registered paths see what they would on a GPU */
struct cs_locked_t { std::mutex m; std::vector<std::pair<const char *, size_t>> r; };
static cs_locked_t &cs_locked(void) { static cs_locked_t l; return l; }
static inline void cs_lock_range(const void *p, size_t n)
{
    std::lock_guard<std::mutex> g(cs_locked().m);
    cs_locked().r.push_back({(const char *)p, n});
}
static inline bool cs_unlock_range(const void *p)
{
    std::lock_guard<std::mutex> g(cs_locked().m);
    auto &r = cs_locked().r;
    for (size_t i = 0; i < r.size(); ++i)
        if (r[i].first == p) { r.erase(r.begin() + i); return true; }
    return false;
}
static inline cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *a, const void *p)
{
    std::lock_guard<std::mutex> g(cs_locked().m);
    a->type = cudaMemoryTypeUnregistered; a->device = 0; a->devicePointer = NULL; a->hostPointer = (void *)p;
    for (auto &x : cs_locked().r)
        if ((const char *)p >= x.first && (const char *)p < x.first + x.second) a->type = cudaMemoryTypeHost;
    return cudaSuccess;
}
static inline cudaError_t cudaDeviceGetAttribute(int *v, int attr, int)
{
    /* compute capability 7: no 1-bit MMA here, so GCM keeps its fused kernels (the tensor-core GHASH needs a GPU) */
    *v = attr == cudaDevAttrMultiProcessorCount ? CS_CPU_SMS : attr == cudaDevAttrComputeCapabilityMajor ? 7 : 1000000;
    return cudaSuccess;
}
static inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int)
{
    strcpy(p->name, "cipherspec CPU shim");
    p->multiProcessorCount = CS_CPU_SMS; p->major = 9; p->minor = 0;
    return cudaSuccess;
}
static inline cudaError_t cudaFuncSetAttribute(const void *, int, int) { return cudaSuccess; }
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, const void *, int, size_t smem)
{
    *n = smem > sizeof(cs_smem) ? 0 : 1;
    return cudaSuccess;
}
static inline cudaError_t cudaMalloc(void **p, size_t n) { *p = malloc(n ? n : 1); return *p ? cudaSuccess : cudaErrorMemoryAllocation; }
static inline cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t) { return cudaMalloc(p, n); }
static inline cudaError_t cudaMallocHost(void **p, size_t n) { return cudaMalloc(p, n); }
static inline cudaError_t cudaHostAlloc(void **p, size_t n, unsigned)
{
    const cudaError_t e = cudaMalloc(p, n);
    if (!e) cs_lock_range(*p, n ? n : 1);
    return e;
}
/* one memory: a mapped page-locked buffer's device pointer is its host pointer */
static inline cudaError_t cudaHostGetDevicePointer(void **d, void *p, unsigned) { *d = p; return cudaSuccess; }
static inline cudaError_t cudaFree(void *p) { free(p); return cudaSuccess; }
static inline cudaError_t cudaFreeAsync(void *p, cudaStream_t) { free(p); return cudaSuccess; }
static inline cudaError_t cudaFreeHost(void *p) { cs_unlock_range(p); free(p); return cudaSuccess; }
static inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, int) { memmove(d, s, n); return cudaSuccess; }
static inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, int, cudaStream_t) { memmove(d, s, n); return cudaSuccess; }
static inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t) { memset(d, v, n); return cudaSuccess; }
template <class T> static inline cudaError_t cudaGetSymbolAddress(void **p, T &sym) { *p = (void *)&sym; return cudaSuccess; }
static inline cudaError_t cudaMemset(void *d, int v, size_t n) { memset(d, v, n); return cudaSuccess; }
static inline cudaError_t cudaHostRegister(void *p, size_t n, int) { cs_lock_range(p, n); return cudaSuccess; }
static inline cudaError_t cudaHostUnregister(void *p) { return cs_unlock_range(p) ? cudaSuccess : cudaErrorInvalidValue; }
static inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, int) { *s = (void *)1; return cudaSuccess; }
static inline cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, int, int) { *s = (void *)1; return cudaSuccess; }
static inline cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest) { *least = 0; *greatest = -5; return cudaSuccess; }
static inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
static inline cudaError_t cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }
static inline cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
static inline cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = (void *)1; return cudaSuccess; }
enum { cudaEventDefault = 0, cudaEventDisableTiming = 2 };
static inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned) { *e = (void *)1; return cudaSuccess; }
static inline cudaError_t cudaEventQuery(cudaEvent_t) { return cudaSuccess; }
static inline cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned) { return cudaSuccess; }
static inline cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return cudaSuccess; }
static inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
static inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t, cudaEvent_t) { *ms = 1.0f; return cudaSuccess; }
static inline cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }

/* ---- launches: CTAs in order, a CTA's threads as coroutines that meet at __syncthreads() */
struct cs_thread { ucontext_t ctx; bool done; std::vector<char> stack; };
static thread_local ucontext_t cs_sched_ctx;
static thread_local cs_thread *cs_running;
static thread_local std::function<void()> *cs_body;

static inline void __syncthreads(void) { swapcontext(&cs_running->ctx, &cs_sched_ctx); }

/* warp votes and shuffles: every thread of the CTA must reach them together (the kernels that use them call
   them unconditionally, the same number of times): a value each, a barrier, the warp's values, a barrier */
static thread_local uint32_t cs_warp_x[1024];
static inline uint32_t __ballot_sync(uint32_t, int p)
{
    cs_warp_x[threadIdx.x] = p != 0;
    __syncthreads();
    const unsigned w = threadIdx.x & ~31u;
    uint32_t r = 0;
    for (unsigned l = 0; l < 32 && w + l < blockDim.x; ++l) r |= cs_warp_x[w + l] << l;
    __syncthreads();
    return r;
}
static inline uint32_t __shfl_sync(uint32_t, uint32_t v, int src)
{
    cs_warp_x[threadIdx.x] = v;
    __syncthreads();
    const uint32_t r = cs_warp_x[(threadIdx.x & ~31u) + ((unsigned)src & 31u)];
    __syncthreads();
    return r;
}
static inline void __syncwarp(uint32_t = 0xffffffffu) {}

static void cs_trampoline(void)
{
    (*cs_body)();
    cs_running->done = true;
    swapcontext(&cs_running->ctx, &cs_sched_ctx);
}

struct dim3 {  /* a launch's grid of x by y CTAs */
    unsigned x, y, z;
    dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};

static inline void cs_run_grid(dim3 grid, unsigned threads, std::function<void()> body)
{
    static thread_local std::vector<cs_thread> pool;
    if (pool.size() < threads) pool.resize(threads);
    cs_body = &body;
    gridDim.x = grid.x; gridDim.y = grid.y; gridDim.z = 1;
    blockDim.x = threads; blockDim.y = blockDim.z = 1;
    for (unsigned b = 0; b < grid.x * grid.y; ++b) {
        blockIdx.x = b % grid.x; blockIdx.y = b / grid.x; blockIdx.z = 0;
        /* stale shared memory must not pass for a fill; 0x5a: a wrong value, yet a byte, so that a table
           read before its fill gives wrong output rather than a wild index */
        for (size_t i = 0; i < sizeof(cs_smem) / 4; ++i) cs_smem[i] = 0x5a;
        for (unsigned t = 0; t < threads; ++t) {
            cs_thread &th = pool[t];
            th.stack.resize(1 << 20);
            getcontext(&th.ctx);
            th.ctx.uc_stack.ss_sp = th.stack.data();
            th.ctx.uc_stack.ss_size = th.stack.size();
            th.ctx.uc_link = NULL;
            th.done = false;
            makecontext(&th.ctx, cs_trampoline, 0);
        }
        for (bool left = true; left;) {  /* one round: every thread runs to its next barrier or its end */
            left = false;
            for (unsigned t = 0; t < threads; ++t) {
                if (pool[t].done) continue;
                threadIdx.x = t; threadIdx.y = threadIdx.z = 0;
                cs_running = &pool[t];
                swapcontext(&cs_sched_ctx, &pool[t].ctx);
                left |= !pool[t].done;
            }
        }
    }
}

/* A generated source launches with CS_LAUNCH(k, grid, block, smem, stream)(args...) (device.cu.j2): here a call
 * object whose call runs the grid. */
template <class... P>
struct cs_launcher_t {
    void (*kernel)(P...);
    dim3 grid;
    unsigned threads;
    template <class... A>
    void operator()(A... args) const
    {
        cs_run_grid(grid, threads, [&]() { kernel(static_cast<P>(args)...); });
    }
};
template <class... P>
static inline cs_launcher_t<P...> cs_launcher(void (*kernel)(P...), dim3 grid, unsigned threads, size_t, cudaStream_t)
{
    return cs_launcher_t<P...>{kernel, grid, threads};
}
#define CS_LAUNCH(k, grid, block, smem, stream) cs_launcher(k, grid, block, smem, stream)
#endif
