/*
 * lwc_util.h - byte-order helpers and the ECB/CBC loops shared by the block ciphers.
 * Internal to the lwc core (C99, no intrinsics).
 */
#ifndef LWC_UTIL_H
#define LWC_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "lwc.h"

static inline uint32_t lwc_load32_be(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static inline void lwc_store32_be(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline uint64_t lwc_load64_be(const uint8_t *p)
{
    return ((uint64_t)lwc_load32_be(p) << 32) | (uint64_t)lwc_load32_be(p + 4);
}

static inline void lwc_store64_be(uint8_t *p, uint64_t v)
{
    lwc_store32_be(p, (uint32_t)(v >> 32));
    lwc_store32_be(p + 4, (uint32_t)v);
}

/* n (0..8) bytes, little-endian: byte i goes to bits 8i..8i+7. */
static inline uint64_t lwc_loadn_le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

static inline void lwc_storen_le(uint8_t *p, uint64_t v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

static inline uint64_t lwc_load64_le(const uint8_t *p)
{
    return (uint64_t)p[0] | ((uint64_t)p[1] << 8) | ((uint64_t)p[2] << 16) | ((uint64_t)p[3] << 24) |
           ((uint64_t)p[4] << 32) | ((uint64_t)p[5] << 40) | ((uint64_t)p[6] << 48) |
           ((uint64_t)p[7] << 56);
}

static inline void lwc_store64_le(uint8_t *p, uint64_t v)
{
    lwc_storen_le(p, v, 8);
}

/*
 * Rotates a big-endian bit string of nbytes bytes left by `shift` bits (0 < shift <
 * 8 * nbytes).  Used only by key schedules, so it favours clarity over speed.
 */
static inline void lwc_rotl_bits(uint8_t *k, size_t nbytes, unsigned shift)
{
    uint8_t tmp[16];
    size_t nbits = 8 * nbytes;
    size_t j;
    memset(tmp, 0, sizeof tmp);
    for (j = 0; j < nbits; j++) {
        /* bit j counted from the most significant end of the string */
        size_t src = (j + shift) % nbits;
        unsigned bit = (unsigned)(k[src / 8] >> (7 - src % 8)) & 1u;
        tmp[j / 8] |= (uint8_t)(bit << (7 - j % 8));
    }
    memcpy(k, tmp, nbytes);
    lwc_wipe(tmp, sizeof tmp);
}

/* XORs `value` << `shift` into a big-endian bit string of nbytes bytes (bit 0 = LSB). */
static inline void lwc_xor_bits(uint8_t *k, size_t nbytes, uint32_t value, unsigned shift)
{
    unsigned i;
    for (i = 0; value >> i; i++) {
        if ((value >> i) & 1u) {
            size_t pos = (size_t)shift + i; /* from the least significant end */
            k[nbytes - 1 - pos / 8] ^= (uint8_t)(1u << (pos % 8));
        }
    }
}

/*
 * Defines lwc_<name>_{ecb,cbc}_{encrypt,decrypt} from two static inline block functions
 * ENC(ks, out, in) and DEC(ks, out, in), so that each mode loop inlines its cipher.
 */
#define LWC_DEFINE_MODES(name, ENC, DEC)                                                        \
    void lwc_##name##_ecb_encrypt(const lwc_ks *ks, uint8_t *out, const uint8_t *in, size_t n) \
    {                                                                                           \
        size_t i;                                                                               \
        for (i = 0; i < n; i++) {                                                               \
            ENC(ks, out + 8 * i, in + 8 * i);                                                   \
        }                                                                                       \
    }                                                                                           \
    void lwc_##name##_ecb_decrypt(const lwc_ks *ks, uint8_t *out, const uint8_t *in, size_t n) \
    {                                                                                           \
        size_t i;                                                                               \
        for (i = 0; i < n; i++) {                                                               \
            DEC(ks, out + 8 * i, in + 8 * i);                                                   \
        }                                                                                       \
    }                                                                                           \
    void lwc_##name##_cbc_encrypt(const lwc_ks *ks, const uint8_t iv[8], uint8_t *out,          \
                                  const uint8_t *in, size_t n)                                  \
    {                                                                                           \
        const uint8_t *chain = iv;                                                              \
        uint8_t x[8];                                                                           \
        size_t i, j;                                                                            \
        for (i = 0; i < n; i++) {                                                               \
            for (j = 0; j < 8; j++) {                                                           \
                x[j] = (uint8_t)(in[8 * i + j] ^ chain[j]);                                     \
            }                                                                                   \
            ENC(ks, out + 8 * i, x);                                                            \
            chain = out + 8 * i;                                                                \
        }                                                                                       \
    }                                                                                           \
    void lwc_##name##_cbc_decrypt(const lwc_ks *ks, const uint8_t iv[8], uint8_t *out,          \
                                  const uint8_t *in, size_t n)                                  \
    {                                                                                           \
        const uint8_t *chain = iv;                                                              \
        size_t i, j;                                                                            \
        for (i = 0; i < n; i++) {                                                               \
            DEC(ks, out + 8 * i, in + 8 * i);                                                   \
            for (j = 0; j < 8; j++) {                                                           \
                out[8 * i + j] ^= chain[j];                                                     \
            }                                                                                   \
            chain = in + 8 * i;                                                                 \
        }                                                                                       \
    }

#endif /* LWC_UTIL_H */
