/*
 * lwc.h - lightweight ciphers of the IoTSecBench device agent (portable C99 core).
 *
 * No CPython here: this core compiles on its own with `gcc -std=c99 -pedantic`, and
 * _lwcmodule.c wraps it as iotsecbench_agent._lwc.  No intrinsics, no external
 * libraries, no dynamic allocation; byte order is handled with explicit shifts, so the
 * same code runs on x86-64, armhf and arm64.
 *
 * Block ciphers (64-bit block):  TEA, XTEA (32 cycles each), PRESENT-80/128 (31 rounds),
 * KLEIN-64/80/96 (12/16/20 rounds), LBlock (80-bit key, 32 rounds).
 * AEAD: Ascon-AEAD128 as standardised in NIST SP 800-232 (2025).
 *
 * Byte order of the block ciphers: the bytes of a block and of a key are read as one
 * big-endian number, as the designers write their hexadecimal vectors (TEA/XTEA: the
 * two block words and the four key words are big-endian 32-bit words).
 */
#ifndef LWC_H
#define LWC_H

#include <stddef.h>
#include <stdint.h>

#define LWC_BLOCK_SIZE 8

#define LWC_ASCON_KEY_SIZE 16
#define LWC_ASCON_NONCE_SIZE 16
#define LWC_ASCON_TAG_SIZE 16

/* ---- key schedules (computed once per key) ---- */

typedef struct {
    uint32_t k[4];
} lwc_tea_ks;

typedef struct {
    /* sum + key[...] for each half-cycle, precomputed: a[i] before, b[i] after sum += delta */
    uint32_t a[32];
    uint32_t b[32];
} lwc_xtea_ks;

typedef struct {
    uint64_t rk[32]; /* K1..K32 */
} lwc_present_ks;

#define LWC_KLEIN_MAX_ROUNDS 20

typedef struct {
    unsigned rounds;                             /* 12, 16 or 20 */
    uint8_t rk[LWC_KLEIN_MAX_ROUNDS + 1][8];     /* sk1..sk(NR+1), leftmost 64 bits each */
} lwc_klein_ks;

typedef struct {
    uint32_t rk[32]; /* K1..K32 */
} lwc_lblock_ks;

typedef union {
    lwc_tea_ks tea;
    lwc_xtea_ks xtea;
    lwc_present_ks present;
    lwc_klein_ks klein;
    lwc_lblock_ks lblock;
} lwc_ks;

/* ---- block cipher descriptors ---- */

typedef void (*lwc_setup_fn)(lwc_ks *ks, const uint8_t *key);
/* ECB over n whole blocks; out and in must not overlap partially (out == in is fine). */
typedef void (*lwc_ecb_fn)(const lwc_ks *ks, uint8_t *out, const uint8_t *in, size_t nblocks);
/* CBC over n whole blocks, no padding; out and in must not overlap. */
typedef void (*lwc_cbc_fn)(const lwc_ks *ks, const uint8_t iv[LWC_BLOCK_SIZE], uint8_t *out,
                           const uint8_t *in, size_t nblocks);

typedef struct {
    const char *name;   /* "tea", "xtea", "present-80", ... */
    size_t key_size;    /* bytes */
    unsigned rounds;    /* as the designers count them (TEA/XTEA: cycles) */
    lwc_setup_fn setup;
    lwc_ecb_fn ecb_encrypt;
    lwc_ecb_fn ecb_decrypt;
    lwc_cbc_fn cbc_encrypt;
    lwc_cbc_fn cbc_decrypt;
} lwc_block_cipher;

/* The table of block ciphers, NULL-terminated, in a fixed order. */
extern const lwc_block_cipher *const lwc_block_ciphers[];

/* The descriptor of `name`, or NULL. */
const lwc_block_cipher *lwc_find_block_cipher(const char *name);

/* Builds the lookup tables of PRESENT and LBlock; call once before any cipher is used
 * (idempotent, not thread-safe: the module calls it at import, under the GIL). */
void lwc_init_tables(void);

/* Per-cipher entry points (used by the descriptor table). */
void lwc_tea_setup(lwc_ks *ks, const uint8_t *key);
void lwc_tea_ecb_encrypt(const lwc_ks *ks, uint8_t *out, const uint8_t *in, size_t n);
void lwc_tea_ecb_decrypt(const lwc_ks *ks, uint8_t *out, const uint8_t *in, size_t n);
void lwc_tea_cbc_encrypt(const lwc_ks *ks, const uint8_t iv[8], uint8_t *out, const uint8_t *in, size_t n);
void lwc_tea_cbc_decrypt(const lwc_ks *ks, const uint8_t iv[8], uint8_t *out, const uint8_t *in, size_t n);

void lwc_xtea_setup(lwc_ks *ks, const uint8_t *key);
void lwc_xtea_ecb_encrypt(const lwc_ks *ks, uint8_t *out, const uint8_t *in, size_t n);
void lwc_xtea_ecb_decrypt(const lwc_ks *ks, uint8_t *out, const uint8_t *in, size_t n);
void lwc_xtea_cbc_encrypt(const lwc_ks *ks, const uint8_t iv[8], uint8_t *out, const uint8_t *in, size_t n);
void lwc_xtea_cbc_decrypt(const lwc_ks *ks, const uint8_t iv[8], uint8_t *out, const uint8_t *in, size_t n);

void lwc_present80_setup(lwc_ks *ks, const uint8_t *key);
void lwc_present128_setup(lwc_ks *ks, const uint8_t *key);
void lwc_present_ecb_encrypt(const lwc_ks *ks, uint8_t *out, const uint8_t *in, size_t n);
void lwc_present_ecb_decrypt(const lwc_ks *ks, uint8_t *out, const uint8_t *in, size_t n);
void lwc_present_cbc_encrypt(const lwc_ks *ks, const uint8_t iv[8], uint8_t *out, const uint8_t *in, size_t n);
void lwc_present_cbc_decrypt(const lwc_ks *ks, const uint8_t iv[8], uint8_t *out, const uint8_t *in, size_t n);
void lwc_present_init_tables(void);

void lwc_klein64_setup(lwc_ks *ks, const uint8_t *key);
void lwc_klein80_setup(lwc_ks *ks, const uint8_t *key);
void lwc_klein96_setup(lwc_ks *ks, const uint8_t *key);
void lwc_klein_ecb_encrypt(const lwc_ks *ks, uint8_t *out, const uint8_t *in, size_t n);
void lwc_klein_ecb_decrypt(const lwc_ks *ks, uint8_t *out, const uint8_t *in, size_t n);
void lwc_klein_cbc_encrypt(const lwc_ks *ks, const uint8_t iv[8], uint8_t *out, const uint8_t *in, size_t n);
void lwc_klein_cbc_decrypt(const lwc_ks *ks, const uint8_t iv[8], uint8_t *out, const uint8_t *in, size_t n);

void lwc_lblock_setup(lwc_ks *ks, const uint8_t *key);
void lwc_lblock_ecb_encrypt(const lwc_ks *ks, uint8_t *out, const uint8_t *in, size_t n);
void lwc_lblock_ecb_decrypt(const lwc_ks *ks, uint8_t *out, const uint8_t *in, size_t n);
void lwc_lblock_cbc_encrypt(const lwc_ks *ks, const uint8_t iv[8], uint8_t *out, const uint8_t *in, size_t n);
void lwc_lblock_cbc_decrypt(const lwc_ks *ks, const uint8_t iv[8], uint8_t *out, const uint8_t *in, size_t n);
void lwc_lblock_init_tables(void);

/* ---- Ascon-AEAD128 (NIST SP 800-232) ---- */

/* out receives ptlen bytes of ciphertext followed by the 16-byte tag; out must not
 * overlap the inputs. */
void lwc_ascon_aead128_encrypt(uint8_t *out, const uint8_t key[16], const uint8_t nonce[16],
                               const uint8_t *ad, size_t adlen, const uint8_t *pt, size_t ptlen);

/* ct is ctlen bytes of ciphertext, tag the 16-byte tag; out receives ctlen bytes of
 * plaintext.  Returns 0 if the tag verifies (compared in constant time), -1 otherwise;
 * on failure out is zeroed. */
int lwc_ascon_aead128_decrypt(uint8_t *out, const uint8_t key[16], const uint8_t nonce[16],
                              const uint8_t *ad, size_t adlen, const uint8_t *ct, size_t ctlen,
                              const uint8_t tag[16]);

/* Overwrites n bytes in a way the compiler does not elide. */
void lwc_wipe(void *p, size_t n);

#endif /* LWC_H */
