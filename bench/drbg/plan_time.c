/* The CTR_DRBG host chain in C, no Python in the loop: P_drbg_plan over 16384 requests of 2^19 bits (1 GiB of
 * output), min over REPS runs from the same instantiated state, wall clock and process CPU time; the keys'
 * hash shows two builds plan the same keys.
 *   cc -O2 -DP=aes128 -DCSH='"aes128.h"' -DCSD='"aes128_drbg.h"' -IOUT/include plan_time.c OUT/lib/libaes128.a
 * (OUT from `cipherspec build aes128 --target c -o OUT`; bench/drbg/host_chain.py is the same through ctypes) */
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#ifndef REPS
#define REPS 15
#endif
#include CSH
#include CSD
#define CAT2(a,b) a##b
#define CAT(a,b) CAT2(a,b)
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static double cpu(void){struct timespec t;clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(void){
  static CAT(P,_drbg) d; uint8_t e[32]={5}, n[8]={1};
  static uint8_t keys[16384*32], vs[16384*16];
  double best=1e9, bcpu=1e9;
  for(int r=0;r<REPS;r++){
    CAT(P,_drbg_instantiate)(&d,1,0,0,e,32,n,8,NULL,0);
    double t0=now(), c0=cpu(); CAT(P,_drbg_plan)(&d,16384,65536,keys,vs); double t=now()-t0, c=cpu()-c0;
    if(t<best)best=t; if(c<bcpu)bcpu=c;
  }
  unsigned h=0; for(size_t i=0;i<sizeof keys;i++) h=h*31+keys[i];
  printf("P_drbg_plan, 16384 requests of 2^19 bits (1 GiB), min of %d: %.2f ms wall, %.2f ms CPU (keys hash %08x)\n",
         REPS,best*1e3,bcpu*1e3,h);
}
