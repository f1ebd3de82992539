/*
 * lwc_registry.c - the table of block ciphers and small shared helpers.
 */
#include <string.h>

#include "lwc.h"

#define LWC_MODES(prefix)                                                                 \
    lwc_##prefix##_ecb_encrypt, lwc_##prefix##_ecb_decrypt, lwc_##prefix##_cbc_encrypt,  \
        lwc_##prefix##_cbc_decrypt

static const lwc_block_cipher TEA = {"tea", 16, 32, lwc_tea_setup, LWC_MODES(tea)};
static const lwc_block_cipher XTEA = {"xtea", 16, 32, lwc_xtea_setup, LWC_MODES(xtea)};
static const lwc_block_cipher PRESENT80 = {"present-80", 10, 31, lwc_present80_setup,
                                           LWC_MODES(present)};
static const lwc_block_cipher PRESENT128 = {"present-128", 16, 31, lwc_present128_setup,
                                            LWC_MODES(present)};
static const lwc_block_cipher KLEIN64 = {"klein-64", 8, 12, lwc_klein64_setup, LWC_MODES(klein)};
static const lwc_block_cipher KLEIN80 = {"klein-80", 10, 16, lwc_klein80_setup, LWC_MODES(klein)};
static const lwc_block_cipher KLEIN96 = {"klein-96", 12, 20, lwc_klein96_setup, LWC_MODES(klein)};
static const lwc_block_cipher LBLOCK = {"lblock", 10, 32, lwc_lblock_setup, LWC_MODES(lblock)};

const lwc_block_cipher *const lwc_block_ciphers[] = {
    &TEA, &XTEA, &PRESENT80, &PRESENT128, &KLEIN64, &KLEIN80, &KLEIN96, &LBLOCK, NULL,
};

const lwc_block_cipher *lwc_find_block_cipher(const char *name)
{
    size_t i;
    for (i = 0; lwc_block_ciphers[i] != NULL; i++) {
        if (strcmp(lwc_block_ciphers[i]->name, name) == 0) {
            return lwc_block_ciphers[i];
        }
    }
    return NULL;
}

void lwc_init_tables(void)
{
    lwc_present_init_tables();
    lwc_lblock_init_tables();
}

void lwc_wipe(void *p, size_t n)
{
    volatile unsigned char *v = (volatile unsigned char *)p;
    while (n--) {
        *v++ = 0;
    }
}
