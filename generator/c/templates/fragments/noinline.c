#if (defined(__GNUC__) || defined(__clang__)) && !defined(__CUDA_ARCH__)
#define CS_NOINLINE __attribute__((noinline))
#define CS_INLINE static inline __attribute__((always_inline))
#else  /* (CUDA device code: inlined, since a call would pass the circuit's arrays through local memory) */
#define CS_NOINLINE
#define CS_INLINE static inline
#endif
