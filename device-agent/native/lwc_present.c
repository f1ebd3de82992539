/*
 * lwc_present.c - PRESENT (Bogdanov et al., "PRESENT: An Ultra-Lightweight Block
 * Cipher", CHES 2007): 64-bit block, 80- or 128-bit key, 31 rounds + final whitening.
 *
 * The state is the 64-bit big-endian number b63..b0 of the 8 block bytes; the key
 * register is the 80/128-bit big-endian number of the key bytes (k79 = MSB of byte 0).
 *
 * The S-box layer and the bit permutation P are linear over bytes once S is applied to
 * the two nibbles of each byte, so a round is 8 lookups in tables SP[j][v] =
 * P(S(v) << 8j).  Decryption applies P^-1 with tables IP[j][v] = P^-1(v << 8j), then S^-1
 * byte by byte.  (Table lookups are not constant-time; see docs/lightweight-ciphers.md.)
 */
#include "lwc_util.h"

static const uint8_t PRESENT_SBOX[16] = {
    0xC, 0x5, 0x6, 0xB, 0x9, 0x0, 0xA, 0xD, 0x3, 0xE, 0xF, 0x8, 0x4, 0x7, 0x1, 0x2,
};

static uint64_t SP[8][256];
static uint64_t IP[8][256];
static uint8_t INV_SBOX8[256];
static int tables_ready;

/* P: bit i moves to 16 i mod 63, bit 63 stays. */
static uint64_t p_layer(uint64_t x)
{
    uint64_t y = 0;
    unsigned i;
    for (i = 0; i < 64; i++) {
        unsigned to = (i == 63) ? 63u : (16u * i) % 63u;
        y |= ((x >> i) & 1u) << to;
    }
    return y;
}

static uint64_t p_layer_inverse(uint64_t y)
{
    uint64_t x = 0;
    unsigned i;
    for (i = 0; i < 64; i++) {
        unsigned to = (i == 63) ? 63u : (16u * i) % 63u;
        x |= ((y >> to) & 1u) << i;
    }
    return x;
}

void lwc_present_init_tables(void)
{
    uint8_t inv[16];
    unsigned j, v;
    if (tables_ready) {
        return;
    }
    for (v = 0; v < 16; v++) {
        inv[PRESENT_SBOX[v]] = (uint8_t)v;
    }
    for (v = 0; v < 256; v++) {
        unsigned s = (unsigned)PRESENT_SBOX[v & 0xF] | ((unsigned)PRESENT_SBOX[v >> 4] << 4);
        INV_SBOX8[v] = (uint8_t)(inv[v & 0xF] | (inv[v >> 4] << 4));
        for (j = 0; j < 8; j++) {
            SP[j][v] = p_layer((uint64_t)s << (8 * j));
            IP[j][v] = p_layer_inverse((uint64_t)v << (8 * j));
        }
    }
    tables_ready = 1;
}

/* Key register update, then K(i+1) = leftmost 64 bits. */
void lwc_present80_setup(lwc_ks *ks, const uint8_t *key)
{
    uint8_t k[10];
    unsigned i;
    memcpy(k, key, sizeof k);
    ks->present.rk[0] = lwc_load64_be(k);
    for (i = 1; i <= 31; i++) {
        lwc_rotl_bits(k, sizeof k, 61);                                         /* K <<< 61 */
        k[0] = (uint8_t)((PRESENT_SBOX[k[0] >> 4] << 4) | (k[0] & 0x0F));      /* k79..k76 */
        lwc_xor_bits(k, sizeof k, i, 15);                                       /* k19..k15 ^= i */
        ks->present.rk[i] = lwc_load64_be(k);
    }
    lwc_wipe(k, sizeof k);
}

void lwc_present128_setup(lwc_ks *ks, const uint8_t *key)
{
    uint8_t k[16];
    unsigned i;
    memcpy(k, key, sizeof k);
    ks->present.rk[0] = lwc_load64_be(k);
    for (i = 1; i <= 31; i++) {
        lwc_rotl_bits(k, sizeof k, 61);                                         /* K <<< 61 */
        k[0] = (uint8_t)((PRESENT_SBOX[k[0] >> 4] << 4) | PRESENT_SBOX[k[0] & 0x0F]); /* k127..k120 */
        lwc_xor_bits(k, sizeof k, i, 62);                                       /* k66..k62 ^= i */
        ks->present.rk[i] = lwc_load64_be(k);
    }
    lwc_wipe(k, sizeof k);
}

static inline uint64_t sp_round(uint64_t s)
{
    return SP[0][s & 0xFF] ^ SP[1][(s >> 8) & 0xFF] ^ SP[2][(s >> 16) & 0xFF] ^
           SP[3][(s >> 24) & 0xFF] ^ SP[4][(s >> 32) & 0xFF] ^ SP[5][(s >> 40) & 0xFF] ^
           SP[6][(s >> 48) & 0xFF] ^ SP[7][s >> 56];
}

static inline uint64_t sp_round_inverse(uint64_t s)
{
    uint64_t t = IP[0][s & 0xFF] ^ IP[1][(s >> 8) & 0xFF] ^ IP[2][(s >> 16) & 0xFF] ^
                 IP[3][(s >> 24) & 0xFF] ^ IP[4][(s >> 32) & 0xFF] ^ IP[5][(s >> 40) & 0xFF] ^
                 IP[6][(s >> 48) & 0xFF] ^ IP[7][s >> 56];
    return (uint64_t)INV_SBOX8[t & 0xFF] | ((uint64_t)INV_SBOX8[(t >> 8) & 0xFF] << 8) |
           ((uint64_t)INV_SBOX8[(t >> 16) & 0xFF] << 16) | ((uint64_t)INV_SBOX8[(t >> 24) & 0xFF] << 24) |
           ((uint64_t)INV_SBOX8[(t >> 32) & 0xFF] << 32) | ((uint64_t)INV_SBOX8[(t >> 40) & 0xFF] << 40) |
           ((uint64_t)INV_SBOX8[(t >> 48) & 0xFF] << 48) | ((uint64_t)INV_SBOX8[t >> 56] << 56);
}

static inline void present_encrypt_block(const lwc_ks *ks, uint8_t *out, const uint8_t *in)
{
    uint64_t s = lwc_load64_be(in);
    int r;
    for (r = 0; r < 31; r++) {
        s = sp_round(s ^ ks->present.rk[r]);
    }
    lwc_store64_be(out, s ^ ks->present.rk[31]);
}

static inline void present_decrypt_block(const lwc_ks *ks, uint8_t *out, const uint8_t *in)
{
    uint64_t s = lwc_load64_be(in) ^ ks->present.rk[31];
    int r;
    for (r = 30; r >= 0; r--) {
        s = sp_round_inverse(s) ^ ks->present.rk[r];
    }
    lwc_store64_be(out, s);
}

LWC_DEFINE_MODES(present, present_encrypt_block, present_decrypt_block)
