// Probe (two_tu.sh): both member libraries in one process (RTLD_LOCAL), each must run its own family object's
// kernel (TAG 1 and 2), checked word by word against the host's formula
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
typedef int (*member_fn)(uint32_t *, uint32_t, int *);
int main()
{
    const uint32_t n = 1000;
    static uint32_t out[1000];
    int bad = 0;
    for (int t = 1; t <= 2; ++t) {
        char lib[32], sym[32];
        snprintf(lib, sizeof lib, "./libm%d.so", t);
        snprintf(sym, sizeof sym, "member%d", t);
        void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
        member_fn f = h ? (member_fn)dlsym(h, sym) : 0;
        int regs = -1, rc = f ? f(out, n, &regs) : -1;
        int wrong = 0;
        for (uint32_t i = 0; i < n && !rc; ++i) wrong += out[i] != ((uint32_t)(1 + (i & 3)) ^ (i * 2654435761u) ^ (uint32_t)t);
        printf("member %d: rc %d, %d of %u words wrong, kernel registers %d\n", t, rc, wrong, n, regs);
        bad |= rc || wrong;
    }
    printf(bad ? "FAIL\n" : "ok: each library ran its own family object's kernel\n");
    return bad;
}
