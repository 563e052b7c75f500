/* rotation of every {{ w }}-bit lane by {{ k }} bits = a byte permutation (one shuffle instead of 3 ops); not on
   x86 without SSSE3, where there is no byte shuffle instruction and gcc would assemble it byte by byte */
#if defined(__GNUC__) && !defined(__clang__) && !defined(CS_NO_VECTOR_EXT) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ \
    && (defined(__SSSE3__) || !(defined(__x86_64__) || defined(__i386__)))
typedef uint8_t cs_vbytes{{ w }} __attribute__((vector_size({{ nbytes }})));
#define CS_V{{ w }}_ROTB_{{ k }}(a) ((cs_v{{ w }})__builtin_shuffle((cs_vbytes{{ w }})(a), (cs_vbytes{{ w }}){ {{- mask -}} }))
#else
#define CS_V{{ w }}_ROTB_{{ k }}(a) CS_V{{ w }}_ROTL(a, {{ k }})
#endif
