/* The CPU side of the DRBG benchmark: P_drbg_generate in a loop of <= 2^19-bit requests, in C (no
 * per-request Python call), through a function pointer to the generated library's generate. */
#include <stddef.h>
#include <stdint.h>

typedef int (*cs_gen_fn)(void *d, uint8_t *out, size_t n, const uint8_t *add, size_t add_len,
                         const uint8_t *ent, size_t ent_len);

int cs_bench_generate(cs_gen_fn gen, void *d, uint8_t *out, uint64_t nbytes, uint64_t request)
{
    for (uint64_t off = 0; off < nbytes; off += request) {
        const size_t n = (size_t)(nbytes - off < request ? nbytes - off : request);
        const int rc = gen(d, out + off, n, NULL, 0, NULL, 0);
        if (rc) return rc;
    }
    return 0;
}
