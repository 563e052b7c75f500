static void cs_encrypt_1(const {{ P }}_key *ks, const uint8_t *in, uint8_t *out) { cs_encrypt_part(ks, in, out, 1); }
