/* The generated multi-GPU host code (mg_impl.inc) as a shared library over the fake CUDA runtime (cuda_stub.h)
 * and the toy cipher (fake_cipher.h), with the other entries runtime/cuda_target.CudaCipher binds: the Python
 * runtime (GpuSet, CtrStream, DrbgStream, CudaCipher's host calls) runs on it without a GPU.
 * mg_prelude.h (written by the test) also holds T_strerror. */
#include "cuda_stub.h"
#include "mg_prelude.h"
#include "fake_cipher.h"
#include "mg_impl.inc"

extern "C" {
int T_set_key(T_rk *rk, const uint8_t *key, size_t key_len)
{
    if (!rk || !key) return CS_ENULL;
    if (key_len != KBB) return CS_ELEN;
    fake_rk(key, rk);
    return CS_OK;
}

int T_ecb_host(const T_rk *, int, const uint8_t *, uint8_t *, uint64_t, int) { return CS_EARG; }  /* not used */
int T_ctr_host(const T_rk *, const uint8_t *, const uint8_t *, uint8_t *, uint64_t, int) { return CS_EARG; }
int T_util_time(const T_rk *, int, int, const uint8_t *, const uint8_t *, uint8_t *, uint64_t, int, int, float *)
{
    return CS_EARG;
}

void *T_util_malloc(uint64_t n)
{
    void *p = NULL;
    return cudaMalloc(&p, n) == cudaSuccess ? p : NULL;
}
int T_util_free(void *p) { return cs_cuda(cudaFree(p)); }
void *T_util_malloc_host(uint64_t n)
{
    void *p = NULL;
    return T_mg_malloc_host(n, &p) == CS_OK ? p : NULL;
}
int T_util_free_host(void *p) { return T_mg_free_host(p); }
int T_util_sync(void) { return CS_OK; }
int T_util_copy(void *dst, const void *src, uint64_t n, int to_device)
{
    return cs_cuda(cudaMemcpy(dst, src, n, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost));
}
int T_util_device(char *name, int name_len, int *sms, int *clock_khz, int *cc)
{
    snprintf(name, (size_t)name_len, "stub GPU");
    *sms = 4;
    *clock_khz = 1000000;
    *cc = 90;
    return CS_OK;
}
void T_stub_set_devices(int n) { stub_count = n; }
long T_stub_registered(void) { return stub_registered_now; }
}
