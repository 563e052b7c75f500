/* What the one-library C benches in bench/aead share: F(x) names the library's <CS_P>_x (compiled with
 * -DCS_P=<cipher>), now() is this thread's CPU time in seconds (the cores are shared: time spent
 * descheduled is not the code's).
 *     before: each bench its own CAT/F macros and clock helper    after: #include "timing.h" */
#ifndef CS_BENCH_TIMING_H
#define CS_BENCH_TIMING_H
#include <time.h>

#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_(a, b)
#define F(x) CAT(CS_P, x)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
#endif
