CS_HIDDEN void CS_KERNEL(ecb_{{ kind }})(const {{ P }}_key *ks, const uint8_t *in, uint8_t *out, size_t n)
{
    cs_x k[CS_NK_{{ kind | upper }}], b[CS_IL];
    size_t i = 0;
    int j;
    cs_{{ kind }}_keys(ks, k);
    for (; i + CS_IL * CS_BPR <= n; i += CS_IL * CS_BPR) {
        for (j = 0; j < CS_IL; j++) b[j] = CS_X_LOAD(in + (i + (size_t)j * CS_BPR) * 16);
        cs_{{ kind }}_regs(k, b, CS_IL);
        for (j = 0; j < CS_IL; j++) CS_X_STORE(out + (i + (size_t)j * CS_BPR) * 16, b[j]);
    }
    for (; i + CS_BPR <= n; i += CS_BPR) {
        b[0] = CS_X_LOAD(in + i * 16);
        cs_{{ kind }}_regs(k, b, 1);
        CS_X_STORE(out + i * 16, b[0]);
    }
    if (i < n) {  /* fewer blocks than one register holds */
        uint8_t buf[CS_BPR * 16];
        memset(buf, 0, sizeof buf);
        memcpy(buf, in + i * 16, (n - i) * 16);
        b[0] = CS_X_LOAD(buf);
        cs_{{ kind }}_regs(k, b, 1);
        CS_X_STORE(buf, b[0]);
        memcpy(out + i * 16, buf, (n - i) * 16);
    }
}
