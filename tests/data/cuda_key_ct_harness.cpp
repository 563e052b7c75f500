/* Constant-time check of a CUDA library's host key schedule (set_key's C: the .cu's host section, written by
 * the test to the file named by CS_KEY_SECTION) compiled with the host C++ compiler as nvcc's host pass does
 * (-std=c++17 -O3), run under valgrind memcheck.  Compiled with -DCS_KEY_SECTION="path" -DCS_ENTRY=<function>
 * -DCS_KEY_BYTES=<n> -DCS_RK_WORDS=<n>.  The key is marked undefined: memcheck reports any branch or memory
 * address computed from it (a table indexed by a key byte is "Use of uninitialised value").  Afterwards the
 * round keys are marked defined and printed, so the test can check them against the interpreter: the code
 * under test really ran (and was not optimised away). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <valgrind/memcheck.h>

#include CS_KEY_SECTION

unsigned char cs_key[CS_KEY_BYTES];
uint32_t cs_rk[CS_RK_WORDS];  /* external linkage: the stores cannot be dropped */

int main(void)
{
    for (size_t i = 0; i < sizeof cs_key; i++) cs_key[i] = (unsigned char)(7 * i + 1);
    VALGRIND_MAKE_MEM_UNDEFINED(cs_key, sizeof cs_key);
    CS_ENTRY(cs_key, cs_rk);
    VALGRIND_MAKE_MEM_DEFINED(cs_rk, sizeof cs_rk);  /* what the interpreter is compared with, not a leak */
    for (size_t i = 0; i < CS_RK_WORDS; i++) printf("%u\n", (unsigned)cs_rk[i]);
    return 0;
}
