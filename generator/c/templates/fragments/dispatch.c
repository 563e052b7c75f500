#define CS_NVARIANTS ((int)(sizeof cs_variants / sizeof cs_variants[0]))

#ifdef CS_X86
/* ISA levels CIPHERSPEC_X86_ISA (or the isa argument of {{ P }}_set_key_isa) may name: a ceiling on the
   CPU features the chosen kernels may use */
static const struct {
    const char *name;
    unsigned features;  /* what the level's kernels may use */
    unsigned allows;    /* and what GHASH may use (its features and carry-less multiplies) */
} cs_levels[] = {
{{ levels }}
};

#include <cpuid.h>

static unsigned cs_cpu_features(void)
{
    unsigned a, b, c, d, max, c1, b7 = 0, c7 = 0, ext_c = 0, xcr0 = 0, f = CS_F_SSE2;
    if (!__get_cpuid(0, &max, &b, &c, &d) || max < 1) return f;
    __cpuid(1, a, b, c1, d);
    if (max >= 7) __cpuid_count(7, 0, a, b7, c7, d);
    if (__get_cpuid(0x80000001u, &a, &b, &c, &d)) ext_c = c;
    if (c1 >> 27 & 1) {  /* OSXSAVE: which register states the OS saves */
        unsigned lo, hi;
        __asm__ __volatile__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        xcr0 = lo;
    }
    if ((c1 & 1) && (c1 >> 9 & 1) && (c1 >> 13 & 1) && (c1 >> 19 & 1) && (c1 >> 20 & 1) && (c1 >> 23 & 1)
        && (ext_c & 1))
        f |= CS_F_V2;
    if ((c1 >> 25 & 1) && (c1 >> 1 & 1)) f |= CS_F_AES;
    if ((f & CS_F_V2) && (c1 >> 28 & 1) && (xcr0 & 6) == 6 && (b7 >> 5 & 1) && (b7 >> 3 & 1) && (b7 >> 8 & 1)
        && (c1 >> 12 & 1) && (c1 >> 29 & 1) && (c1 >> 22 & 1) && (ext_c >> 5 & 1))
        f |= CS_F_V3;
    if ((f & CS_F_V3) && (c7 >> 9 & 1)) f |= CS_F_VAES;
    if ((f & CS_F_V3) && (c7 >> 8 & 1)) f |= CS_F_GFNI;
    if ((f & CS_F_V3) && (xcr0 & 0xe6) == 0xe6 && (b7 >> 16 & 1) && (b7 >> 17 & 1) && (b7 >> 28 & 1)
        && (b7 >> 30 & 1) && (b7 >> 31 & 1))
        f |= CS_F_V4;
    if (c1 >> 1 & 1) f |= CS_F_CLMUL;    /* PCLMULQDQ: CPUID.1:ECX bit 1 */
    if (c7 >> 10 & 1) f |= CS_F_VCLMUL;  /* VPCLMULQDQ: CPUID.(7,0):ECX bit 10 (the register width: V3/V4) */
    return f;
}
#else
static unsigned cs_cpu_features(void) { return 0; }  /* one portable variant: it needs nothing */
#endif

/* The variant for an ISA ceiling (NULL: this CPU's own features): its index, or -1 and why not; *allowed:
   the CPU features GHASH may use under that ceiling. */
static int cs_choose_allowed(const char *isa, unsigned *allowed, const char **why)
{
    unsigned have = cs_cpu_features(), cap = have;
    int i;
    *allowed = have;
#ifdef CS_X86
    if (isa != NULL) {
        for (i = 0; i < (int)(sizeof cs_levels / sizeof cs_levels[0]); i++)
            if (strcmp(isa, cs_levels[i].name) == 0) break;
        if (i == (int)(sizeof cs_levels / sizeof cs_levels[0])) {
            *why = "not an ISA level (levels: {{ level_names }})";
            return -1;
        }
        cap = cs_levels[i].features;
        if ((cap & have) != cap) {
            *why = "this CPU lacks that ISA level";
            return -1;
        }
        *allowed = have & cs_levels[i].allows;
    }
#else
    (void)isa;  /* one portable variant: the ISA level does not apply */
#endif
    for (i = 0; i < CS_NVARIANTS; i++)
        if ((cs_variants[i].features & cap) == cs_variants[i].features) return i;
    *why = "no kernels of this library run at that ISA level";
    return -1;
}

static int cs_choose(const char *isa, const char **why)
{
    unsigned allowed;
    return cs_choose_allowed(isa, &allowed, why);
}

/* The default choice (CIPHERSPEC_X86_ISA, else the CPU's best), made once: (features GHASH may use) << 16 |
   (variant index + 1), or -1 - its error.  Threads racing at first use compute the same value, so storing it
   twice is harmless. */
static const char *cs_default_why = "";

static int cs_default_packed(void)
{
#if defined(__GNUC__) || defined(__clang__)
    static int chosen;
    int v = __atomic_load_n(&chosen, __ATOMIC_ACQUIRE);
    if (v == 0) {
        const char *why = "";
        unsigned allowed;
        int i = cs_choose_allowed(getenv("CIPHERSPEC_X86_ISA"), &allowed, &why);
        if (i < 0) __atomic_store_n(&cs_default_why, why, __ATOMIC_RELAXED);
        v = i < 0 ? -1 : (int)(allowed << 16) | (i + 1);
        __atomic_store_n(&chosen, v, __ATOMIC_RELEASE);
    }
    return v;
#else
    const char *why = "";
    unsigned allowed;
    int i = cs_choose_allowed(getenv("CIPHERSPEC_X86_ISA"), &allowed, &why);
    if (i < 0) cs_default_why = why;
    return i < 0 ? -1 : (int)(allowed << 16) | (i + 1);
#endif
}

static int cs_default(void)
{
    int v = cs_default_packed();
    return v < 0 ? -1 : (v & 0xffff) - 1;
}

static const cs_kernels *cs_kernels_of(const {{ P }}_key *ks)
{
    return ks->variant >= 1 && ks->variant <= (uint32_t)CS_NVARIANTS ? &cs_variants[ks->variant - 1] : NULL;
}

const char *{{ P }}_variant(void)
{
    int v = cs_default();
    return v < 0 ? NULL : cs_variants[v].name;
}

const char *{{ P }}_variant_for(const char *isa)
{
    const char *why = "";
    int v = cs_choose(isa, &why);
    return v < 0 ? NULL : cs_variants[v].name;
}

const char *{{ P }}_dispatch_error(void)
{
    return cs_default() < 0 ? cs_default_why : "";
}

const char *{{ P }}_variant_name(int i)
{
    return i >= 0 && i < CS_NVARIANTS ? cs_variants[i].name : NULL;
}
