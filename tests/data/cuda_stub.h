/* A fake CUDA runtime for host-only tests of the generated multi-GPU host code (multigpu.cu.j2).
 *
 * Devices are numbered 0..stub_count-1 (STUB_DEVICES in the environment, default 3); the current device
 * is per thread, as in CUDA.  "Device memory" is host memory tagged with its device; every copy and every
 * fake kernel checks that its device buffers and its stream belong to the current device, and aborts
 * with a message otherwise.  Stream work is deferred: copies and kernels queue on their stream and run,
 * in order, when the stream is synchronized (so a result read before a wait is caught as wrong bytes).
 * Page-locked memory (cudaHostAlloc, cudaHostRegister) is tracked, so cudaPointerGetAttributes answers
 * as CUDA does, and copies count whether their host side was page-locked. */
#ifndef CUDA_STUB_H
#define CUDA_STUB_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <functional>
#include <map>
#include <mutex>
#include <vector>

typedef int cudaError_t;
enum {
    cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2, cudaErrorInsufficientDriver = 35,
    cudaErrorNoDevice = 100, cudaErrorInvalidDevice = 101, cudaErrorHostMemoryAlreadyRegistered = 712,
    cudaErrorHostMemoryNotRegistered = 713
};
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };
enum { cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1, cudaMemoryTypeDevice = 2 };
enum { cudaStreamNonBlocking = 1, cudaHostAllocPortable = 1, cudaHostRegisterPortable = 1 };
struct cudaPointerAttributes { int type; int device; };
struct cudaDeviceProp { char name[256]; int multiProcessorCount, major, minor; };
struct stub_stream { int dev; std::vector<std::function<void()>> queue; };
typedef stub_stream *cudaStream_t;

struct stub_range { uint64_t n; int dev; };  /* dev -1: page-locked host memory */
static std::mutex stub_mu;
static std::map<uintptr_t, stub_range> stub_mem;      /* device allocations and page-locked host ranges */
static int stub_count = -1, stub_register_fails = 0;
static long stub_copies_locked = 0, stub_copies_pageable = 0, stub_registered_now = 0;
static thread_local int stub_cur = 0;

static int stub_devices(void)
{
    if (stub_count < 0) stub_count = getenv("STUB_DEVICES") ? atoi(getenv("STUB_DEVICES")) : 3;
    return stub_count;
}

static void stub_fail(const char *what, const void *p)
{
    fprintf(stderr, "cuda stub: %s (%p, current device %d)\n", what, p, stub_cur);
    abort();
}

/* the range holding p, or NULL */
static const stub_range *stub_find(const void *p, uintptr_t *base)
{
    std::lock_guard<std::mutex> g(stub_mu);
    auto it = stub_mem.upper_bound((uintptr_t)p);
    if (it == stub_mem.begin()) return NULL;
    --it;
    if ((uintptr_t)p >= it->first + it->second.n) return NULL;
    if (base) *base = it->first;
    return &it->second;
}

static void stub_check_device(const void *p, uint64_t n)  /* [p, p+n) is device memory of the current device */
{
    uintptr_t base = 0;
    const stub_range *r = stub_find(p, &base);
    if (!r || r->dev < 0) stub_fail("not device memory", p);
    if (r->dev != stub_cur) stub_fail("device memory of another device", p);
    if ((uintptr_t)p + n > base + r->n) stub_fail("past the end of a device buffer", p);
}

static int stub_locked(const void *p)
{
    const stub_range *r = stub_find(p, NULL);
    return r && r->dev < 0;
}

static void stub_check_stream(cudaStream_t s)
{
    if (!s) stub_fail("NULL stream", s);
    if (s->dev != stub_cur) stub_fail("stream of another device", s);
}

static void stub_enqueue(cudaStream_t s, std::function<void()> f)
{
    stub_check_stream(s);
    std::lock_guard<std::mutex> g(stub_mu);
    s->queue.push_back(std::move(f));
}

static cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    if (!s) return cudaErrorInvalidValue;
    std::vector<std::function<void()>> q;
    {
        std::lock_guard<std::mutex> g(stub_mu);
        q.swap(s->queue);
    }
    for (auto &f : q) f();
    return cudaSuccess;
}

static cudaError_t cudaGetDeviceCount(int *n)
{
    *n = stub_devices();
    return *n ? cudaSuccess : cudaErrorNoDevice;
}
static cudaError_t cudaGetDevice(int *d) { *d = stub_cur; return cudaSuccess; }
static cudaError_t cudaSetDevice(int d)
{
    if (d < 0 || d >= stub_devices()) return cudaErrorInvalidDevice;
    stub_cur = d;
    return cudaSuccess;
}
static cudaError_t cudaGetLastError(void) { return cudaSuccess; }
static const char *cudaGetErrorString(cudaError_t) { return "stub error"; }

static cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned)
{
    *s = new stub_stream{stub_cur, {}};
    return cudaSuccess;
}
static cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest)
{
    *least = 0;
    *greatest = -5;
    return cudaSuccess;
}
static cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned flags, int)
{
    return cudaStreamCreateWithFlags(s, flags);
}
static cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    if (!s->queue.empty()) stub_fail("stream destroyed with work queued", s);
    delete s;
    return cudaSuccess;
}

static cudaError_t stub_alloc(void **p, uint64_t n, int dev)
{
    *p = malloc(n ? n : 1);
    if (!*p) return cudaErrorMemoryAllocation;
    memset(*p, 0xEE, n);  /* poison: an unwritten byte shows */
    std::lock_guard<std::mutex> g(stub_mu);
    stub_mem[(uintptr_t)*p] = {n ? n : 1, dev};
    return cudaSuccess;
}
static cudaError_t stub_release(void *p)
{
    std::lock_guard<std::mutex> g(stub_mu);
    if (!stub_mem.erase((uintptr_t)p)) return cudaErrorInvalidValue;
    free(p);
    return cudaSuccess;
}
static cudaError_t cudaMalloc(void **p, uint64_t n) { return stub_alloc(p, n, stub_cur); }
static cudaError_t cudaFree(void *p) { return stub_release(p); }
static cudaError_t cudaHostAlloc(void **p, uint64_t n, unsigned) { return stub_alloc(p, n, -1); }
static cudaError_t cudaFreeHost(void *p) { return stub_release(p); }

static cudaError_t cudaHostRegister(void *p, uint64_t n, unsigned)
{
    if (stub_locked(p)) return cudaErrorHostMemoryAlreadyRegistered;
    if (stub_register_fails) return cudaErrorInvalidValue;
    std::lock_guard<std::mutex> g(stub_mu);
    stub_mem[(uintptr_t)p] = {n, -1};
    ++stub_registered_now;
    return cudaSuccess;
}
static cudaError_t cudaHostUnregister(void *p)
{
    std::lock_guard<std::mutex> g(stub_mu);
    auto it = stub_mem.find((uintptr_t)p);
    if (it == stub_mem.end() || it->second.dev != -1) return cudaErrorHostMemoryNotRegistered;
    stub_mem.erase(it);
    --stub_registered_now;
    return cudaSuccess;
}

static cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *a, const void *p)
{
    const stub_range *r = stub_find(p, NULL);
    a->type = !r ? cudaMemoryTypeUnregistered : (r->dev < 0 ? cudaMemoryTypeHost : cudaMemoryTypeDevice);
    a->device = r ? r->dev : -1;
    return cudaSuccess;
}

/* checks a copy's sides; counts whether its host side is page-locked; 1 when it is */
static int stub_check_copy(void *dst, const void *src, uint64_t n, cudaMemcpyKind kind)
{
    const void *host = kind == cudaMemcpyHostToDevice ? src : dst;
    stub_check_device(kind == cudaMemcpyHostToDevice ? dst : src, n);
    const stub_range *r = stub_find(host, NULL);
    if (r && r->dev >= 0) stub_fail("the host side of a copy is device memory", host);
    std::lock_guard<std::mutex> g(stub_mu);
    ++(r ? stub_copies_locked : stub_copies_pageable);
    return r != NULL;
}

/* as CUDA: from page-locked memory the copy runs in stream order; from pageable memory a host-to-device copy
 * reads the source now (the driver stages it) and a device-to-host copy waits for the stream and is done on return */
static cudaError_t cudaMemcpyAsync(void *dst, const void *src, uint64_t n, cudaMemcpyKind kind, cudaStream_t s)
{
    stub_check_stream(s);
    if (stub_check_copy(dst, src, n, kind)) {
        stub_enqueue(s, [=] { memcpy(dst, src, n); });
    } else if (kind == cudaMemcpyHostToDevice) {
        std::vector<uint8_t> staged((const uint8_t *)src, (const uint8_t *)src + n);
        stub_enqueue(s, [=] { memcpy(dst, staged.data(), n); });
    } else {
        cudaStreamSynchronize(s);
        memcpy(dst, src, n);
    }
    return cudaSuccess;
}

static cudaError_t cudaMemcpy(void *dst, const void *src, uint64_t n, cudaMemcpyKind kind)
{
    stub_check_copy(dst, src, n, kind);
    memcpy(dst, src, n);
    return cudaSuccess;
}

static cudaError_t cudaMemGetInfo(size_t *free_b, size_t *total)
{
    *free_b = 1u << 30;
    *total = 2u << 30;
    return cudaSuccess;
}

static cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int dev)
{
    snprintf(p->name, sizeof p->name, "stub GPU %d", dev);
    p->multiProcessorCount = 4;
    p->major = 9;
    p->minor = 0;
    return cudaSuccess;
}
#endif
