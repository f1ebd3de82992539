/*
 * lwc_tea.c - TEA (Wheeler & Needham, FSE 1994) and XTEA (Needham & Wheeler, "Tea
 * extensions", 1997): 64-bit block, 128-bit key, 32 cycles (64 Feistel rounds).
 *
 * Byte order: the block is two big-endian 32-bit words v0 || v1 and the key four
 * big-endian words k0 || k1 || k2 || k3, the packing of the published word-oriented
 * vectors (Bouncy Castle TEATest/XTEATest, Crypto++ TestVectors/tea.txt).
 */
#include "lwc_util.h"

#define TEA_DELTA 0x9E3779B9u
#define TEA_CYCLES 32

void lwc_tea_setup(lwc_ks *ks, const uint8_t *key)
{
    int i;
    for (i = 0; i < 4; i++) {
        ks->tea.k[i] = lwc_load32_be(key + 4 * i);
    }
}

static inline void tea_encrypt_block(const lwc_ks *ks, uint8_t *out, const uint8_t *in)
{
    uint32_t v0 = lwc_load32_be(in), v1 = lwc_load32_be(in + 4), sum = 0;
    const uint32_t k0 = ks->tea.k[0], k1 = ks->tea.k[1], k2 = ks->tea.k[2], k3 = ks->tea.k[3];
    int i;
    for (i = 0; i < TEA_CYCLES; i++) {
        sum += TEA_DELTA;
        v0 += ((v1 << 4) + k0) ^ (v1 + sum) ^ ((v1 >> 5) + k1);
        v1 += ((v0 << 4) + k2) ^ (v0 + sum) ^ ((v0 >> 5) + k3);
    }
    lwc_store32_be(out, v0);
    lwc_store32_be(out + 4, v1);
}

static inline void tea_decrypt_block(const lwc_ks *ks, uint8_t *out, const uint8_t *in)
{
    uint32_t v0 = lwc_load32_be(in), v1 = lwc_load32_be(in + 4);
    uint32_t sum = TEA_DELTA * (uint32_t)TEA_CYCLES; /* 0xC6EF3720 */
    const uint32_t k0 = ks->tea.k[0], k1 = ks->tea.k[1], k2 = ks->tea.k[2], k3 = ks->tea.k[3];
    int i;
    for (i = 0; i < TEA_CYCLES; i++) {
        v1 -= ((v0 << 4) + k2) ^ (v0 + sum) ^ ((v0 >> 5) + k3);
        v0 -= ((v1 << 4) + k0) ^ (v1 + sum) ^ ((v1 >> 5) + k1);
        sum -= TEA_DELTA;
    }
    lwc_store32_be(out, v0);
    lwc_store32_be(out + 4, v1);
}

LWC_DEFINE_MODES(tea, tea_encrypt_block, tea_decrypt_block)

void lwc_xtea_setup(lwc_ks *ks, const uint8_t *key)
{
    uint32_t k[4], sum = 0;
    int i;
    for (i = 0; i < 4; i++) {
        k[i] = lwc_load32_be(key + 4 * i);
    }
    /* XTEA's key-dependent round additions depend only on the key and the round, so
     * they are precomputed: a[i] = sum + k[sum & 3], then sum += delta,
     * b[i] = sum + k[(sum >> 11) & 3]. */
    for (i = 0; i < TEA_CYCLES; i++) {
        ks->xtea.a[i] = sum + k[sum & 3u];
        sum += TEA_DELTA;
        ks->xtea.b[i] = sum + k[(sum >> 11) & 3u];
    }
    lwc_wipe(k, sizeof k);
}

static inline void xtea_encrypt_block(const lwc_ks *ks, uint8_t *out, const uint8_t *in)
{
    uint32_t v0 = lwc_load32_be(in), v1 = lwc_load32_be(in + 4);
    int i;
    for (i = 0; i < TEA_CYCLES; i++) {
        v0 += (((v1 << 4) ^ (v1 >> 5)) + v1) ^ ks->xtea.a[i];
        v1 += (((v0 << 4) ^ (v0 >> 5)) + v0) ^ ks->xtea.b[i];
    }
    lwc_store32_be(out, v0);
    lwc_store32_be(out + 4, v1);
}

static inline void xtea_decrypt_block(const lwc_ks *ks, uint8_t *out, const uint8_t *in)
{
    uint32_t v0 = lwc_load32_be(in), v1 = lwc_load32_be(in + 4);
    int i;
    for (i = TEA_CYCLES - 1; i >= 0; i--) {
        v1 -= (((v0 << 4) ^ (v0 >> 5)) + v0) ^ ks->xtea.b[i];
        v0 -= (((v1 << 4) ^ (v1 >> 5)) + v1) ^ ks->xtea.a[i];
    }
    lwc_store32_be(out, v0);
    lwc_store32_be(out + 4, v1);
}

LWC_DEFINE_MODES(xtea, xtea_encrypt_block, xtea_decrypt_block)
