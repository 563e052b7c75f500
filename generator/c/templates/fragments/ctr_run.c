/* One run of CS_LANES keystream blocks from the big-endian counter ctr into stream; ctr becomes
   ctr + CS_LANES.  Where the counter's low 64 bits do not carry in the run, the core makes the counter
   blocks itself (cs_ctr_n); else they go through memory (cs_ctr_fill: the carry into the bytes above).
   The one copy of this step: the CTR entry point (walk.py) and the stitched GCM loop (byte_slices_gcm.c).
       before: the same 8 lines in each loop    after: cs_ctr_run(ks, ctr, stream); */
static void cs_ctr_run(const {{ P }}_key *ks, uint8_t *ctr, uint8_t *stream)
{
    const uint64_t lo = cs_load64be(ctr + CS_BLOCK - 8);
    if (lo <= UINT64_MAX - CS_LANES) {
        cs_ctr_n(ks, ctr, stream);
        cs_store64be(ctr + CS_BLOCK - 8, lo + CS_LANES);
    } else {
        cs_ctr_fill(stream, ctr, CS_LANES);
        cs_encrypt_n(ks, stream, stream);
    }
}
