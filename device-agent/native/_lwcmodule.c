/*
 * _lwcmodule.c - iotsecbench_agent._lwc: the CPython face of the lwc core.
 *
 * One native call per message: each method takes its whole input, allocates only the
 * result bytes object and runs the cipher in C.  Methods use METH_FASTCALL (no argument
 * tuple) and take any C-contiguous bytes-like object.  For inputs of LWC_GIL_THRESHOLD
 * bytes or more the GIL is released while the cipher runs: the input buffers are held
 * (a bytearray cannot be resized meanwhile), the output is a bytes object nobody else
 * can see yet, and a key schedule never changes after __init__.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "lwc.h"

#define LWC_GIL_THRESHOLD 2048

#define LWC_RUN(len, stmt)                      \
    do {                                        \
        if ((len) >= LWC_GIL_THRESHOLD) {       \
            Py_BEGIN_ALLOW_THREADS stmt;        \
            Py_END_ALLOW_THREADS                \
        } else {                                \
            stmt;                               \
        }                                       \
    } while (0)

static PyObject *cipher_names; /* tuple of str, in table order */

/* ------------------------------------------------------------------ helpers */

static int check_nargs(const char *fname, Py_ssize_t nargs, Py_ssize_t expected)
{
    if (nargs != expected) {
        PyErr_Format(PyExc_TypeError, "%s() takes exactly %zd argument%s (%zd given)", fname,
                     expected, expected == 1 ? "" : "s", nargs);
        return 0;
    }
    return 1;
}

/* Acquires n buffers; on failure releases the ones already held and returns 0. */
static int get_buffers(PyObject *const *args, Py_buffer *views, Py_ssize_t n)
{
    Py_ssize_t i;
    for (i = 0; i < n; i++) {
        if (PyObject_GetBuffer(args[i], &views[i], PyBUF_SIMPLE) < 0) {
            while (i-- > 0) {
                PyBuffer_Release(&views[i]);
            }
            return 0;
        }
    }
    return 1;
}

static void release_buffers(Py_buffer *views, Py_ssize_t n)
{
    Py_ssize_t i;
    for (i = 0; i < n; i++) {
        PyBuffer_Release(&views[i]);
    }
}

#define BUF(view) ((const uint8_t *)(view).buf)
#define OUT(bytes) ((uint8_t *)PyBytes_AS_STRING(bytes))

/* ------------------------------------------------------------------ BlockCipher */

typedef struct {
    PyObject_HEAD
    const lwc_block_cipher *desc;
    lwc_ks ks;
} BlockCipherObject;

static PyObject *BlockCipher_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"name", "key", NULL};
    const char *name;
    Py_buffer key;
    const lwc_block_cipher *desc;
    BlockCipherObject *self;

    if (!PyArg_ParseTupleAndKeywords(args, kwds, "sy*:BlockCipher", kwlist, &name, &key)) {
        return NULL;
    }
    desc = lwc_find_block_cipher(name);
    if (desc == NULL) {
        PyObject *sep = PyUnicode_FromString(", ");
        PyObject *names = sep ? PyUnicode_Join(sep, cipher_names) : NULL;
        if (names != NULL) {
            PyErr_Format(PyExc_ValueError, "unknown block cipher '%s'; expected one of: %U", name,
                         names);
        }
        Py_XDECREF(sep);
        Py_XDECREF(names);
        PyBuffer_Release(&key);
        return NULL;
    }
    if ((size_t)key.len != desc->key_size) {
        PyErr_Format(PyExc_ValueError, "%s key must be %zu bytes (%zu bits), got %zd bytes",
                     desc->name, desc->key_size, desc->key_size * 8, key.len);
        PyBuffer_Release(&key);
        return NULL;
    }
    self = (BlockCipherObject *)type->tp_alloc(type, 0);
    if (self == NULL) {
        PyBuffer_Release(&key);
        return NULL;
    }
    self->desc = desc;
    desc->setup(&self->ks, BUF(key));
    PyBuffer_Release(&key);
    return (PyObject *)self;
}

static void BlockCipher_dealloc(BlockCipherObject *self)
{
    lwc_wipe(&self->ks, sizeof self->ks);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *BlockCipher_repr(BlockCipherObject *self)
{
    return PyUnicode_FromFormat("<BlockCipher %s>", self->desc ? self->desc->name : "?");
}

static int ready(BlockCipherObject *self)
{
    if (self->desc == NULL) {
        PyErr_SetString(PyExc_ValueError, "BlockCipher is not initialised");
        return 0;
    }
    return 1;
}

static PyObject *ecb(BlockCipherObject *self, PyObject *const *args, Py_ssize_t nargs,
                     const char *fname, int encrypt)
{
    Py_buffer in;
    PyObject *out;
    lwc_ecb_fn fn;

    if (!ready(self) || !check_nargs(fname, nargs, 1) || !get_buffers(args, &in, 1)) {
        return NULL;
    }
    if (in.len % LWC_BLOCK_SIZE != 0) {
        PyErr_Format(PyExc_ValueError, "data length must be a multiple of 8 bytes, got %zd",
                     in.len);
        PyBuffer_Release(&in);
        return NULL;
    }
    out = PyBytes_FromStringAndSize(NULL, in.len);
    if (out != NULL) {
        fn = encrypt ? self->desc->ecb_encrypt : self->desc->ecb_decrypt;
        LWC_RUN(in.len, fn(&self->ks, OUT(out), BUF(in), (size_t)in.len / LWC_BLOCK_SIZE));
    }
    PyBuffer_Release(&in);
    return out;
}

static PyObject *BlockCipher_ecb_encrypt(BlockCipherObject *self, PyObject *const *args,
                                         Py_ssize_t nargs)
{
    return ecb(self, args, nargs, "ecb_encrypt", 1);
}

static PyObject *BlockCipher_ecb_decrypt(BlockCipherObject *self, PyObject *const *args,
                                         Py_ssize_t nargs)
{
    return ecb(self, args, nargs, "ecb_decrypt", 0);
}

static int check_iv(const Py_buffer *iv)
{
    if (iv->len != LWC_BLOCK_SIZE) {
        PyErr_Format(PyExc_ValueError, "iv must be 8 bytes, got %zd", iv->len);
        return 0;
    }
    return 1;
}

/* CBC with PKCS#7 padding to 8 bytes: always 1..8 padding bytes. */
static PyObject *BlockCipher_cbc_encrypt(BlockCipherObject *self, PyObject *const *args,
                                         Py_ssize_t nargs)
{
    Py_buffer v[2]; /* iv, plaintext */
    PyObject *out = NULL;
    uint8_t last[LWC_BLOCK_SIZE];

    if (!ready(self) || !check_nargs("cbc_encrypt", nargs, 2) || !get_buffers(args, v, 2)) {
        return NULL;
    }
    if (check_iv(&v[0])) {
        const size_t n = (size_t)v[1].len, full = n / LWC_BLOCK_SIZE, rem = n % LWC_BLOCK_SIZE;
        const size_t pad = LWC_BLOCK_SIZE - rem;
        if (v[1].len > PY_SSIZE_T_MAX - LWC_BLOCK_SIZE) {
            PyErr_NoMemory();
        } else if ((out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n + pad))) != NULL) {
            const lwc_block_cipher *d = self->desc;
            const lwc_ks *ks = &self->ks;
            uint8_t *o = OUT(out);
            const uint8_t *iv = BUF(v[0]), *p = BUF(v[1]);
            memcpy(last, p + LWC_BLOCK_SIZE * full, rem);
            memset(last + rem, (int)pad, pad);
            LWC_RUN(v[1].len, {
                d->cbc_encrypt(ks, iv, o, p, full);
                d->cbc_encrypt(ks, full ? o + LWC_BLOCK_SIZE * (full - 1) : iv,
                               o + LWC_BLOCK_SIZE * full, last, 1);
            });
            lwc_wipe(last, sizeof last);
        }
    }
    release_buffers(v, 2);
    return out;
}

static PyObject *BlockCipher_cbc_decrypt(BlockCipherObject *self, PyObject *const *args,
                                         Py_ssize_t nargs)
{
    Py_buffer v[2]; /* iv, ciphertext */
    PyObject *out = NULL;
    uint8_t last[LWC_BLOCK_SIZE];

    if (!ready(self) || !check_nargs("cbc_decrypt", nargs, 2) || !get_buffers(args, v, 2)) {
        return NULL;
    }
    if (!check_iv(&v[0])) {
        /* error set */
    } else if (v[1].len == 0 || v[1].len % LWC_BLOCK_SIZE != 0) {
        PyErr_Format(PyExc_ValueError,
                     "ciphertext length must be a positive multiple of 8 bytes, got %zd",
                     v[1].len);
    } else {
        const lwc_block_cipher *d = self->desc;
        const lwc_ks *ks = &self->ks;
        const uint8_t *iv = BUF(v[0]), *c = BUF(v[1]);
        const size_t nblocks = (size_t)v[1].len / LWC_BLOCK_SIZE;
        unsigned pad, good, i;

        /* The last block first, to learn the padding and so the exact output size. */
        d->cbc_decrypt(ks, nblocks > 1 ? c + LWC_BLOCK_SIZE * (nblocks - 2) : iv, last,
                       c + LWC_BLOCK_SIZE * (nblocks - 1), 1);
        pad = last[LWC_BLOCK_SIZE - 1];
        good = (pad >= 1) & (pad <= LWC_BLOCK_SIZE);
        for (i = 0; i < LWC_BLOCK_SIZE; i++) { /* no early exit */
            unsigned in_pad = (i + pad >= LWC_BLOCK_SIZE);
            good &= (unsigned)!(in_pad & (last[i] != pad));
        }
        if (!good) {
            PyErr_SetString(PyExc_ValueError, "bad padding");
        } else if ((out = PyBytes_FromStringAndSize(NULL, v[1].len - (Py_ssize_t)pad)) != NULL) {
            uint8_t *o = OUT(out);
            LWC_RUN(v[1].len, d->cbc_decrypt(ks, iv, o, c, nblocks - 1));
            memcpy(o + LWC_BLOCK_SIZE * (nblocks - 1), last, LWC_BLOCK_SIZE - pad);
        }
        lwc_wipe(last, sizeof last);
    }
    release_buffers(v, 2);
    return out;
}

static PyObject *BlockCipher_get_name(BlockCipherObject *self, void *closure)
{
    (void)closure;
    return ready(self) ? PyUnicode_FromString(self->desc->name) : NULL;
}

static PyObject *BlockCipher_get_block_size(BlockCipherObject *self, void *closure)
{
    (void)self;
    (void)closure;
    return PyLong_FromLong(LWC_BLOCK_SIZE);
}

static PyObject *BlockCipher_get_key_size(BlockCipherObject *self, void *closure)
{
    (void)closure;
    return ready(self) ? PyLong_FromSize_t(self->desc->key_size) : NULL;
}

static PyObject *BlockCipher_get_rounds(BlockCipherObject *self, void *closure)
{
    (void)closure;
    return ready(self) ? PyLong_FromUnsignedLong(self->desc->rounds) : NULL;
}

#define FASTCALL(f) (PyCFunction)(void (*)(void))(f)

static PyMethodDef BlockCipher_methods[] = {
    {"ecb_encrypt", FASTCALL(BlockCipher_ecb_encrypt), METH_FASTCALL,
     "ecb_encrypt($self, data, /)\n--\n\nECB-encrypt whole 8-byte blocks (no padding)."},
    {"ecb_decrypt", FASTCALL(BlockCipher_ecb_decrypt), METH_FASTCALL,
     "ecb_decrypt($self, data, /)\n--\n\nECB-decrypt whole 8-byte blocks (no padding)."},
    {"cbc_encrypt", FASTCALL(BlockCipher_cbc_encrypt), METH_FASTCALL,
     "cbc_encrypt($self, iv, plaintext, /)\n--\n\n"
     "CBC-encrypt with PKCS#7 padding to 8 bytes; returns the ciphertext only."},
    {"cbc_decrypt", FASTCALL(BlockCipher_cbc_decrypt), METH_FASTCALL,
     "cbc_decrypt($self, iv, ciphertext, /)\n--\n\n"
     "CBC-decrypt and strip PKCS#7 padding; ValueError('bad padding') if it is invalid."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef BlockCipher_getset[] = {
    {"name", (getter)BlockCipher_get_name, NULL, "Cipher name, e.g. 'present-80'.", NULL},
    {"block_size", (getter)BlockCipher_get_block_size, NULL, "Block size in bytes (8).", NULL},
    {"key_size", (getter)BlockCipher_get_key_size, NULL, "Key size in bytes.", NULL},
    {"rounds", (getter)BlockCipher_get_rounds, NULL,
     "Rounds as the designers count them (TEA/XTEA: cycles).", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject BlockCipherType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "iotsecbench_agent._lwc.BlockCipher",
    .tp_doc = "BlockCipher(name, key)\n--\n\n"
              "A 64-bit block cipher with its key schedule computed once.",
    .tp_basicsize = sizeof(BlockCipherObject),
    .tp_itemsize = 0,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = BlockCipher_new,
    .tp_dealloc = (destructor)BlockCipher_dealloc,
    .tp_repr = (reprfunc)BlockCipher_repr,
    .tp_methods = BlockCipher_methods,
    .tp_getset = BlockCipher_getset,
};

/* ------------------------------------------------------------------ Ascon-AEAD128 */

static int check_key_nonce(const Py_buffer *key, const Py_buffer *nonce)
{
    if (key->len != LWC_ASCON_KEY_SIZE) {
        PyErr_Format(PyExc_ValueError, "Ascon-AEAD128 key must be 16 bytes, got %zd", key->len);
        return 0;
    }
    if (nonce->len != LWC_ASCON_NONCE_SIZE) {
        PyErr_Format(PyExc_ValueError, "Ascon-AEAD128 nonce must be 16 bytes, got %zd",
                     nonce->len);
        return 0;
    }
    return 1;
}

static PyObject *ascon_encrypt(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer v[4]; /* key, nonce, ad, plaintext */
    PyObject *out = NULL;
    (void)module;

    if (!check_nargs("ascon_aead128_encrypt", nargs, 4) || !get_buffers(args, v, 4)) {
        return NULL;
    }
    if (!check_key_nonce(&v[0], &v[1])) {
        /* error set */
    } else if (v[3].len > PY_SSIZE_T_MAX - LWC_ASCON_TAG_SIZE) {
        PyErr_NoMemory();
    } else if ((out = PyBytes_FromStringAndSize(NULL, v[3].len + LWC_ASCON_TAG_SIZE)) != NULL) {
        uint8_t *o = OUT(out);
        LWC_RUN(v[2].len + v[3].len,
                lwc_ascon_aead128_encrypt(o, BUF(v[0]), BUF(v[1]), BUF(v[2]), (size_t)v[2].len,
                                          BUF(v[3]), (size_t)v[3].len));
    }
    release_buffers(v, 4);
    return out;
}

static PyObject *ascon_decrypt(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_buffer v[4]; /* key, nonce, ad, ciphertext || tag */
    PyObject *out = NULL;
    (void)module;

    if (!check_nargs("ascon_aead128_decrypt", nargs, 4) || !get_buffers(args, v, 4)) {
        return NULL;
    }
    if (!check_key_nonce(&v[0], &v[1])) {
        /* error set */
    } else if (v[3].len < LWC_ASCON_TAG_SIZE) {
        PyErr_Format(PyExc_ValueError,
                     "ciphertext_and_tag must be at least 16 bytes (the tag), got %zd", v[3].len);
    } else {
        const Py_ssize_t ctlen = v[3].len - LWC_ASCON_TAG_SIZE;
        out = PyBytes_FromStringAndSize(NULL, ctlen);
        if (out != NULL) {
            uint8_t *o = OUT(out);
            const uint8_t *c = BUF(v[3]);
            int rc = 0;
            LWC_RUN(v[2].len + ctlen,
                    rc = lwc_ascon_aead128_decrypt(o, BUF(v[0]), BUF(v[1]), BUF(v[2]),
                                                   (size_t)v[2].len, c, (size_t)ctlen, c + ctlen));
            if (rc != 0) {
                Py_CLEAR(out);
                PyErr_SetString(PyExc_ValueError, "tag mismatch");
            }
        }
    }
    release_buffers(v, 4);
    return out;
}

static PyMethodDef module_methods[] = {
    {"ascon_aead128_encrypt", FASTCALL(ascon_encrypt), METH_FASTCALL,
     "ascon_aead128_encrypt($module, key, nonce, ad, plaintext, /)\n--\n\n"
     "Ascon-AEAD128 (NIST SP 800-232): returns ciphertext || 16-byte tag."},
    {"ascon_aead128_decrypt", FASTCALL(ascon_decrypt), METH_FASTCALL,
     "ascon_aead128_decrypt($module, key, nonce, ad, ciphertext_and_tag, /)\n--\n\n"
     "Ascon-AEAD128 (NIST SP 800-232): returns the plaintext; ValueError('tag mismatch')\n"
     "if the tag does not verify (compared in constant time)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef lwc_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "iotsecbench_agent._lwc",
    .m_doc = "Native lightweight ciphers: TEA, XTEA, PRESENT-80/128, KLEIN-64/80/96, LBlock\n"
             "(64-bit blocks, ECB and CBC+PKCS#7) and Ascon-AEAD128 (NIST SP 800-232).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__lwc(void)
{
    PyObject *m;
    Py_ssize_t count = 0, i;

    lwc_init_tables();
    if (PyType_Ready(&BlockCipherType) < 0) {
        return NULL;
    }
    m = PyModule_Create(&lwc_module);
    if (m == NULL) {
        return NULL;
    }
    if (cipher_names == NULL) {
        while (lwc_block_ciphers[count] != NULL) {
            count++;
        }
        cipher_names = PyTuple_New(count);
        if (cipher_names == NULL) {
            goto fail;
        }
        for (i = 0; i < count; i++) {
            PyObject *s = PyUnicode_FromString(lwc_block_ciphers[i]->name);
            if (s == NULL) {
                Py_CLEAR(cipher_names);
                goto fail;
            }
            PyTuple_SET_ITEM(cipher_names, i, s);
        }
    }
    if (PyModule_AddType(m, &BlockCipherType) < 0) {
        goto fail;
    }
    Py_INCREF(cipher_names);
    if (PyModule_AddObject(m, "BLOCK_CIPHERS", cipher_names) < 0) {
        Py_DECREF(cipher_names);
        goto fail;
    }
    if (PyModule_AddIntConstant(m, "BLOCK_SIZE", LWC_BLOCK_SIZE) < 0 ||
        PyModule_AddIntConstant(m, "ASCON_KEY_SIZE", LWC_ASCON_KEY_SIZE) < 0 ||
        PyModule_AddIntConstant(m, "ASCON_NONCE_SIZE", LWC_ASCON_NONCE_SIZE) < 0 ||
        PyModule_AddIntConstant(m, "ASCON_TAG_SIZE", LWC_ASCON_TAG_SIZE) < 0) {
        goto fail;
    }
    return m;

fail:
    Py_DECREF(m);
    return NULL;
}
