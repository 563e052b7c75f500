/* ---- entry points (the library's dispatcher calls them; whole blocks, in == out allowed) ---- */
#ifndef CS_VARIANT
#define CS_VARIANT portable
#endif
#define CS_CAT3_(a, b, c) a##_##b##_##c
#define CS_CAT3(a, b, c) CS_CAT3_(a, b, c)
#define CS_KERNEL(f) CS_CAT3({{ P }}, CS_VARIANT, f)
#if defined(__GNUC__) || defined(__clang__)
#define CS_HIDDEN __attribute__((visibility("hidden")))
#else
#define CS_HIDDEN
#endif
