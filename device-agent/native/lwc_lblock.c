/*
 * lwc_lblock.c - LBlock (Wu & Zhang, "LBlock: A Lightweight Block Cipher", ACNS 2011;
 * full version IACR ePrint 2011/345): 64-bit block, 80-bit key, 32-round Feistel.
 *
 * P = X1 || X0 (X1 = leftmost 32 bits, big-endian), X_i = F(X_{i-1}, K_{i-1}) ^
 * (X_{i-2} <<< 8) for i = 2..33, C = X32 || X33.  F(X, K) = P(S(X ^ K)) with eight 4-bit
 * S-boxes s7..s0 on the nibbles x7..x0 (x7 = most significant) and the nibble
 * permutation u7..u0 = z6 z4 z7 z5 z2 z0 z3 z1.  S and P are fused into four byte tables
 * (FT[j][v] = P(S(v << 8j)) restricted to byte j), four lookups per round.
 *
 * Key schedule: K1 = leftmost 32 bits of the key register K = k79..k0 (k79 = MSB of
 * key byte 0); for i = 1..31: K <<< 29, [k79..k76] = s9[k79..k76], [k75..k72] =
 * s8[k75..k72], [k50..k46] ^= i, K(i+1) = leftmost 32 bits.
 */
#include "lwc_util.h"

static const uint8_t LBLOCK_SBOX[10][16] = {
    {14, 9, 15, 0, 13, 4, 10, 11, 1, 2, 8, 3, 7, 6, 12, 5},  /* s0 */
    {4, 11, 14, 9, 15, 13, 0, 10, 7, 12, 5, 6, 2, 8, 1, 3},  /* s1 */
    {1, 14, 7, 12, 15, 13, 0, 6, 11, 5, 9, 3, 2, 4, 8, 10},  /* s2 */
    {7, 6, 8, 11, 0, 15, 3, 14, 9, 10, 12, 13, 5, 2, 4, 1},  /* s3 */
    {14, 5, 15, 0, 7, 2, 12, 13, 1, 8, 4, 9, 11, 10, 6, 3},  /* s4 */
    {2, 13, 11, 12, 15, 14, 0, 9, 7, 10, 6, 3, 1, 8, 4, 5},  /* s5 */
    {11, 9, 4, 14, 0, 15, 10, 13, 6, 12, 5, 7, 3, 8, 1, 2},  /* s6 */
    {13, 10, 15, 0, 14, 4, 9, 11, 2, 1, 8, 3, 7, 5, 12, 6},  /* s7 */
    {8, 7, 14, 5, 15, 13, 0, 6, 11, 12, 9, 10, 2, 4, 1, 3},  /* s8 (key schedule) */
    {11, 5, 15, 0, 7, 2, 9, 13, 4, 8, 1, 12, 14, 10, 3, 6},  /* s9 (key schedule) */
};

/* Output nibble position of input nibble z_j under P: u7 = z6, u6 = z4, u5 = z7, u4 = z5,
 * u3 = z2, u2 = z0, u1 = z3, u0 = z1. */
static const unsigned LBLOCK_P_TO[8] = {2, 0, 3, 1, 6, 4, 7, 5};

static uint32_t FT[4][256];
static int tables_ready;

void lwc_lblock_init_tables(void)
{
    unsigned j, v;
    if (tables_ready) {
        return;
    }
    for (j = 0; j < 4; j++) {
        for (v = 0; v < 256; v++) {
            unsigned lo = 2 * j, hi = 2 * j + 1; /* nibble indices of byte j */
            uint32_t zlo = LBLOCK_SBOX[lo][v & 0xF], zhi = LBLOCK_SBOX[hi][v >> 4];
            FT[j][v] = (zlo << (4 * LBLOCK_P_TO[lo])) | (zhi << (4 * LBLOCK_P_TO[hi]));
        }
    }
    tables_ready = 1;
}

void lwc_lblock_setup(lwc_ks *ks, const uint8_t *key)
{
    uint8_t k[10];
    unsigned i;
    memcpy(k, key, sizeof k);
    ks->lblock.rk[0] = lwc_load32_be(k);
    for (i = 1; i <= 31; i++) {
        lwc_rotl_bits(k, sizeof k, 29);
        k[0] = (uint8_t)((LBLOCK_SBOX[9][k[0] >> 4] << 4) | LBLOCK_SBOX[8][k[0] & 0x0F]);
        lwc_xor_bits(k, sizeof k, i, 46);
        ks->lblock.rk[i] = lwc_load32_be(k);
    }
    lwc_wipe(k, sizeof k);
}

static inline uint32_t rotl32(uint32_t x, unsigned n)
{
    return (x << n) | (x >> (32 - n));
}

static inline uint32_t rotr32(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

static inline uint32_t lblock_f(uint32_t x, uint32_t k)
{
    x ^= k;
    return FT[0][x & 0xFF] ^ FT[1][(x >> 8) & 0xFF] ^ FT[2][(x >> 16) & 0xFF] ^ FT[3][x >> 24];
}

static inline void lblock_encrypt_block(const lwc_ks *ks, uint8_t *out, const uint8_t *in)
{
    uint32_t a = lwc_load32_be(in), b = lwc_load32_be(in + 4); /* (X1, X0) */
    int r;
    for (r = 0; r < 32; r++) {
        uint32_t n = lblock_f(a, ks->lblock.rk[r]) ^ rotl32(b, 8);
        b = a;
        a = n;
    }
    lwc_store32_be(out, b); /* X32 */
    lwc_store32_be(out + 4, a); /* X33 */
}

static inline void lblock_decrypt_block(const lwc_ks *ks, uint8_t *out, const uint8_t *in)
{
    uint32_t b = lwc_load32_be(in), a = lwc_load32_be(in + 4); /* (X33, X32) = (a, b) */
    int r;
    for (r = 31; r >= 0; r--) {
        uint32_t p = rotr32(a ^ lblock_f(b, ks->lblock.rk[r]), 8);
        a = b;
        b = p;
    }
    lwc_store32_be(out, a); /* X1 */
    lwc_store32_be(out + 4, b); /* X0 */
}

LWC_DEFINE_MODES(lblock, lblock_encrypt_block, lblock_decrypt_block)
