/*
 * lwc_klein.c - KLEIN (Gong, Nikova, Law, "KLEIN: A New Family of Lightweight Block
 * Ciphers", RFIDSec 2011): 64-bit block; KLEIN-64/80/96 with 12/16/20 rounds.
 *
 * Round i = 1..NR: AddRoundKey(sk_i), SubNibbles (16 x the involutive 4-bit S-box),
 * RotateNibbles (state rotated left by 2 bytes), MixNibbles (Rijndael MixColumn on
 * bytes 0..3 and on bytes 4..7); then AddRoundKey(sk_{NR+1}).  The state is the block
 * bytes in order (byte 0 = leftmost, as in the paper's hexadecimal vectors).
 */
#include "lwc_util.h"

static const uint8_t KLEIN_SBOX[16] = {
    0x7, 0x4, 0xA, 0x9, 0x1, 0xF, 0xB, 0x0, 0xC, 0x3, 0x2, 0x6, 0x8, 0xE, 0xD, 0x5,
};

/* Both nibbles of a byte through the S-box (the S-box is an involution). */
static inline uint8_t sub_byte(uint8_t b)
{
    return (uint8_t)((KLEIN_SBOX[b >> 4] << 4) | KLEIN_SBOX[b & 0x0F]);
}

static void klein_setup(lwc_ks *ks, const uint8_t *key, unsigned keylen, unsigned rounds)
{
    uint8_t k[12], a[6], b[6];
    unsigned half = keylen / 2, i, j;
    memcpy(k, key, keylen);
    ks->klein.rounds = rounds;
    memcpy(ks->klein.rk[0], k, 8);
    for (i = 1; i <= rounds; i++) {
        /* 1. split, 2. rotate each half left by one byte */
        for (j = 0; j < half; j++) {
            a[j] = k[(j + 1) % half];
            b[j] = k[half + (j + 1) % half];
        }
        /* 3. Feistel-like swap: a' = b, b' = a ^ b */
        for (j = 0; j < half; j++) {
            k[j] = b[j];
            k[half + j] = (uint8_t)(a[j] ^ b[j]);
        }
        /* 4. round counter into the third byte of the left half; S-box on the second and
         *    third bytes of the right half */
        k[2] ^= (uint8_t)i;
        k[half + 1] = sub_byte(k[half + 1]);
        k[half + 2] = sub_byte(k[half + 2]);
        memcpy(ks->klein.rk[i], k, 8);
    }
    lwc_wipe(k, sizeof k);
    lwc_wipe(a, sizeof a);
    lwc_wipe(b, sizeof b);
}

void lwc_klein64_setup(lwc_ks *ks, const uint8_t *key)
{
    klein_setup(ks, key, 8, 12);
}

void lwc_klein80_setup(lwc_ks *ks, const uint8_t *key)
{
    klein_setup(ks, key, 10, 16);
}

void lwc_klein96_setup(lwc_ks *ks, const uint8_t *key)
{
    klein_setup(ks, key, 12, 20);
}

static inline uint8_t xtime(uint8_t x)
{
    return (uint8_t)((x << 1) ^ ((x >> 7) * 0x1B));
}

static inline void mix_column(uint8_t *c)
{
    uint8_t a0 = c[0], a1 = c[1], a2 = c[2], a3 = c[3];
    uint8_t t = (uint8_t)(a0 ^ a1 ^ a2 ^ a3);
    c[0] = (uint8_t)(a0 ^ t ^ xtime((uint8_t)(a0 ^ a1)));
    c[1] = (uint8_t)(a1 ^ t ^ xtime((uint8_t)(a1 ^ a2)));
    c[2] = (uint8_t)(a2 ^ t ^ xtime((uint8_t)(a2 ^ a3)));
    c[3] = (uint8_t)(a3 ^ t ^ xtime((uint8_t)(a3 ^ a0)));
}

static inline void inv_mix_column(uint8_t *c)
{
    /* InvMixColumn = MixColumn after the preprocessing u = xtime(xtime(a0 ^ a2)),
     * v = xtime(xtime(a1 ^ a3)) (the decomposition of Daemen & Rijmen, 4.1.3). */
    uint8_t u = xtime(xtime((uint8_t)(c[0] ^ c[2])));
    uint8_t v = xtime(xtime((uint8_t)(c[1] ^ c[3])));
    c[0] ^= u;
    c[1] ^= v;
    c[2] ^= u;
    c[3] ^= v;
    mix_column(c);
}

static inline void klein_encrypt_block(const lwc_ks *ks, uint8_t *out, const uint8_t *in)
{
    const unsigned nr = ks->klein.rounds;
    uint8_t s[8], t[8];
    unsigned r, j;
    for (j = 0; j < 8; j++) {
        s[j] = in[j];
    }
    for (r = 0; r < nr; r++) {
        const uint8_t *k = ks->klein.rk[r];
        for (j = 0; j < 8; j++) {
            t[j] = sub_byte((uint8_t)(s[j] ^ k[j]));
        }
        for (j = 0; j < 8; j++) { /* RotateNibbles: left by two bytes */
            s[j] = t[(j + 2) & 7];
        }
        mix_column(s);
        mix_column(s + 4);
    }
    for (j = 0; j < 8; j++) {
        out[j] = (uint8_t)(s[j] ^ ks->klein.rk[nr][j]);
    }
}

static inline void klein_decrypt_block(const lwc_ks *ks, uint8_t *out, const uint8_t *in)
{
    const unsigned nr = ks->klein.rounds;
    uint8_t s[8], t[8];
    unsigned r, j;
    for (j = 0; j < 8; j++) {
        t[j] = (uint8_t)(in[j] ^ ks->klein.rk[nr][j]);
    }
    for (r = nr; r-- > 0;) {
        const uint8_t *k = ks->klein.rk[r];
        inv_mix_column(t);
        inv_mix_column(t + 4);
        for (j = 0; j < 8; j++) { /* rotate right by two bytes, S-box, round key */
            s[(j + 2) & 7] = t[j];
        }
        for (j = 0; j < 8; j++) {
            t[j] = (uint8_t)(sub_byte(s[j]) ^ k[j]);
        }
    }
    for (j = 0; j < 8; j++) {
        out[j] = t[j];
    }
}

LWC_DEFINE_MODES(klein, klein_encrypt_block, klein_decrypt_block)
