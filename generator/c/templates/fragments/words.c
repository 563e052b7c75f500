#define CS_ROTL8(x, k) ((uint8_t)(((x) << (k)) | ((x) >> (8 - (k)))))
#define CS_ROTL16(x, k) ((uint16_t)(((x) << (k)) | ((x) >> (16 - (k)))))
#define CS_ROTL32(x, k) ((uint32_t)(((x) << (k)) | ((x) >> (32 - (k)))))
#define CS_ROTL64(x, k) ((uint64_t)(((x) << (k)) | ((x) >> (64 - (k)))))

/* ---- words <-> bytes ---- */
#if defined(__GNUC__) && !defined(__CUDA_ARCH__) && defined(__BYTE_ORDER__) && (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ || __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
/* GCC/Clang: one unaligned load (memcpy) and a byte swap where the order differs from the host's (not in CUDA
   device code, which has no __builtin_bswap: the CUDA library's key schedule also runs there) */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define CS_LE16(v) (v)
#define CS_LE32(v) (v)
#define CS_LE64(v) (v)
#define CS_BE16(v) __builtin_bswap16(v)
#define CS_BE32(v) __builtin_bswap32(v)
#define CS_BE64(v) __builtin_bswap64(v)
#else
#define CS_LE16(v) __builtin_bswap16(v)
#define CS_LE32(v) __builtin_bswap32(v)
#define CS_LE64(v) __builtin_bswap64(v)
#define CS_BE16(v) (v)
#define CS_BE32(v) (v)
#define CS_BE64(v) (v)
#endif
static inline uint16_t cs_load16le(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return CS_LE16(v); }
static inline uint16_t cs_load16be(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return CS_BE16(v); }
static inline uint32_t cs_load32le(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return CS_LE32(v); }
static inline uint32_t cs_load32be(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return CS_BE32(v); }
static inline uint64_t cs_load64le(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return CS_LE64(v); }
static inline uint64_t cs_load64be(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return CS_BE64(v); }
static inline void cs_store16le(uint8_t *p, uint16_t v) { v = CS_LE16(v); memcpy(p, &v, 2); }
static inline void cs_store16be(uint8_t *p, uint16_t v) { v = CS_BE16(v); memcpy(p, &v, 2); }
static inline void cs_store32le(uint8_t *p, uint32_t v) { v = CS_LE32(v); memcpy(p, &v, 4); }
static inline void cs_store32be(uint8_t *p, uint32_t v) { v = CS_BE32(v); memcpy(p, &v, 4); }
static inline void cs_store64le(uint8_t *p, uint64_t v) { v = CS_LE64(v); memcpy(p, &v, 8); }
static inline void cs_store64be(uint8_t *p, uint64_t v) { v = CS_BE64(v); memcpy(p, &v, 8); }
#else
/* any C99 compiler: byte by byte, no alignment or endianness assumptions */
static inline uint16_t cs_load16le(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint16_t cs_load16be(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint32_t cs_load32le(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint32_t cs_load32be(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}
static inline uint64_t cs_load64le(const uint8_t *p) { return cs_load32le(p) | ((uint64_t)cs_load32le(p + 4) << 32); }
static inline uint64_t cs_load64be(const uint8_t *p) { return ((uint64_t)cs_load32be(p) << 32) | cs_load32be(p + 4); }
static inline void cs_store16le(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void cs_store16be(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void cs_store32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void cs_store32be(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline void cs_store64le(uint8_t *p, uint64_t v) { cs_store32le(p, (uint32_t)v); cs_store32le(p + 4, (uint32_t)(v >> 32)); }
static inline void cs_store64be(uint8_t *p, uint64_t v) { cs_store32be(p, (uint32_t)(v >> 32)); cs_store32be(p + 4, (uint32_t)v); }
#endif
