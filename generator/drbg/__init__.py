"""CTR_DRBG in C for any generated cipher library (NIST SP 800-90A §10.2, KISA TTAK.KO-12.0189)."""
