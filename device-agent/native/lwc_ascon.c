/*
 * lwc_ascon.c - Ascon-AEAD128 as standardised in NIST SP 800-232 (August 2025),
 * "Ascon-Based Lightweight Cryptography Standards for Constrained Devices", Sec. 4.
 *
 * 128-bit key, 128-bit nonce, 128-bit tag, rate 128 bits, p^12 / p^8.  This is the NIST
 * version, not Ascon-128 v1.2 of the CAESAR/LWC submission: IV = 0x00001000808C0001,
 * and bytes are loaded into the 64-bit state words little-endian (byte 0 of a block
 * is the least significant byte of S0); the padding byte 0x01 follows the last
 * message byte, and the domain separation bit is the most significant bit of S4.
 */
#include "lwc_util.h"

#define ASCON_AEAD128_IV 0x00001000808C0001ull
#define ASCON_DSEP 0x8000000000000000ull
#define ASCON_PAD(i) ((uint64_t)0x01 << (8 * (i)))

typedef struct {
    uint64_t x[5];
} ascon_state;

static inline uint64_t ror64(uint64_t x, unsigned n)
{
    return (x >> n) | (x << (64 - n));
}

static inline void ascon_round(ascon_state *s, uint64_t c)
{
    uint64_t x0 = s->x[0], x1 = s->x[1], x2 = s->x[2], x3 = s->x[3], x4 = s->x[4];
    uint64_t t0, t1, t2, t3, t4;
    /* constant addition (p_C) */
    x2 ^= c;
    /* substitution layer (p_S), bitsliced 5-bit S-box */
    x0 ^= x4;
    x4 ^= x3;
    x2 ^= x1;
    t0 = ~x0 & x1;
    t1 = ~x1 & x2;
    t2 = ~x2 & x3;
    t3 = ~x3 & x4;
    t4 = ~x4 & x0;
    x0 ^= t1;
    x1 ^= t2;
    x2 ^= t3;
    x3 ^= t4;
    x4 ^= t0;
    x1 ^= x0;
    x0 ^= x4;
    x3 ^= x2;
    x2 = ~x2;
    /* linear diffusion layer (p_L) */
    s->x[0] = x0 ^ ror64(x0, 19) ^ ror64(x0, 28);
    s->x[1] = x1 ^ ror64(x1, 61) ^ ror64(x1, 39);
    s->x[2] = x2 ^ ror64(x2, 1) ^ ror64(x2, 6);
    s->x[3] = x3 ^ ror64(x3, 10) ^ ror64(x3, 17);
    s->x[4] = x4 ^ ror64(x4, 7) ^ ror64(x4, 41);
}

/* Round constants of SP 800-232 Table 5: c_i = ((0xF - i) << 4) | i, i = 0..15; p^r uses
 * the last r of the first 12. */
static void ascon_permute(ascon_state *s, unsigned rounds)
{
    unsigned i;
    for (i = 12 - rounds; i < 12; i++) {
        ascon_round(s, (uint64_t)(((0xFu - i) << 4) | i));
    }
}

static void ascon_init(ascon_state *s, uint64_t k0, uint64_t k1, const uint8_t nonce[16])
{
    s->x[0] = ASCON_AEAD128_IV;
    s->x[1] = k0;
    s->x[2] = k1;
    s->x[3] = lwc_load64_le(nonce);
    s->x[4] = lwc_load64_le(nonce + 8);
    ascon_permute(s, 12);
    s->x[3] ^= k0;
    s->x[4] ^= k1;
}

static void ascon_absorb_ad(ascon_state *s, const uint8_t *ad, size_t adlen)
{
    if (adlen > 0) {
        size_t r;
        while (adlen >= 16) {
            s->x[0] ^= lwc_load64_le(ad);
            s->x[1] ^= lwc_load64_le(ad + 8);
            ascon_permute(s, 8);
            ad += 16;
            adlen -= 16;
        }
        r = adlen; /* 0..15 bytes left, then the padding byte */
        if (r >= 8) {
            s->x[0] ^= lwc_load64_le(ad);
            s->x[1] ^= lwc_loadn_le(ad + 8, r - 8) ^ ASCON_PAD(r - 8);
        } else {
            s->x[0] ^= lwc_loadn_le(ad, r) ^ ASCON_PAD(r);
        }
        ascon_permute(s, 8);
    }
    s->x[4] ^= ASCON_DSEP;
}

static void ascon_finalize(ascon_state *s, uint64_t k0, uint64_t k1, uint8_t tag[16])
{
    s->x[2] ^= k0;
    s->x[3] ^= k1;
    ascon_permute(s, 12);
    lwc_store64_le(tag, s->x[3] ^ k0);
    lwc_store64_le(tag + 8, s->x[4] ^ k1);
}

void lwc_ascon_aead128_encrypt(uint8_t *out, const uint8_t key[16], const uint8_t nonce[16],
                               const uint8_t *ad, size_t adlen, const uint8_t *pt, size_t ptlen)
{
    const uint64_t k0 = lwc_load64_le(key), k1 = lwc_load64_le(key + 8);
    ascon_state s;
    size_t r;
    ascon_init(&s, k0, k1, nonce);
    ascon_absorb_ad(&s, ad, adlen);
    while (ptlen >= 16) {
        s.x[0] ^= lwc_load64_le(pt);
        s.x[1] ^= lwc_load64_le(pt + 8);
        lwc_store64_le(out, s.x[0]);
        lwc_store64_le(out + 8, s.x[1]);
        ascon_permute(&s, 8);
        pt += 16;
        out += 16;
        ptlen -= 16;
    }
    r = ptlen;
    if (r >= 8) {
        s.x[0] ^= lwc_load64_le(pt);
        s.x[1] ^= lwc_loadn_le(pt + 8, r - 8);
        lwc_store64_le(out, s.x[0]);
        lwc_storen_le(out + 8, s.x[1], r - 8);
        s.x[1] ^= ASCON_PAD(r - 8);
    } else {
        s.x[0] ^= lwc_loadn_le(pt, r);
        lwc_storen_le(out, s.x[0], r);
        s.x[0] ^= ASCON_PAD(r);
    }
    ascon_finalize(&s, k0, k1, out + r);
    lwc_wipe(&s, sizeof s);
}

/* Mask of the n (0..7) least significant bytes. */
static inline uint64_t low_bytes_mask(size_t n)
{
    return n == 0 ? 0 : (~(uint64_t)0 >> (64 - 8 * n));
}

int lwc_ascon_aead128_decrypt(uint8_t *out, const uint8_t key[16], const uint8_t nonce[16],
                              const uint8_t *ad, size_t adlen, const uint8_t *ct, size_t ctlen,
                              const uint8_t tag[16])
{
    const uint64_t k0 = lwc_load64_le(key), k1 = lwc_load64_le(key + 8);
    uint8_t *const out0 = out;
    const size_t len0 = ctlen;
    ascon_state s;
    uint8_t expected[16];
    unsigned diff = 0;
    size_t r, i;
    ascon_init(&s, k0, k1, nonce);
    ascon_absorb_ad(&s, ad, adlen);
    while (ctlen >= 16) {
        uint64_t c0 = lwc_load64_le(ct), c1 = lwc_load64_le(ct + 8);
        lwc_store64_le(out, s.x[0] ^ c0);
        lwc_store64_le(out + 8, s.x[1] ^ c1);
        s.x[0] = c0;
        s.x[1] = c1;
        ascon_permute(&s, 8);
        ct += 16;
        out += 16;
        ctlen -= 16;
    }
    r = ctlen;
    if (r >= 8) {
        uint64_t c0 = lwc_load64_le(ct), c1 = lwc_loadn_le(ct + 8, r - 8);
        uint64_t m = low_bytes_mask(r - 8);
        lwc_store64_le(out, s.x[0] ^ c0);
        lwc_storen_le(out + 8, s.x[1] ^ c1, r - 8);
        s.x[0] = c0;
        s.x[1] = ((s.x[1] & ~m) | c1) ^ ASCON_PAD(r - 8);
    } else {
        uint64_t c0 = lwc_loadn_le(ct, r);
        uint64_t m = low_bytes_mask(r);
        lwc_storen_le(out, s.x[0] ^ c0, r);
        s.x[0] = ((s.x[0] & ~m) | c0) ^ ASCON_PAD(r);
    }
    ascon_finalize(&s, k0, k1, expected);
    for (i = 0; i < 16; i++) {
        diff |= (unsigned)(expected[i] ^ tag[i]);
    }
    lwc_wipe(&s, sizeof s);
    lwc_wipe(expected, sizeof expected);
    if (diff != 0) {
        lwc_wipe(out0, len0);
        return -1;
    }
    return 0;
}
