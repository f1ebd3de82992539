/*
 * _evpmodule.c - iotsecbench_agent._evp: CBC frames through OpenSSL's EVP interface in one
 * native call each, for the ``openssl`` crypto library's cipher bench (the *_into methods
 * of openssl_mechanisms.OpensslCbc).
 *
 * Why not the ``cryptography`` binding alone: at 8 KiB, AES-CBC decryption with AES-NI takes
 * ~0.7 us, and the binding's bare ``update_into`` call costs ~1.0 us, so no Python around it
 * can reach `openssl speed` (docs/benchmarks.md, "Crypto libraries").  Here a frame is one
 * METH_FASTCALL call: buffer checks, EVP_*Update, the PKCS#7 check, a memoryview back.
 *
 * The wire format is openssl_mechanisms.OpensslCbc's (and mechanisms.ChainedCbc's):
 * ``iv || CBC(iv, pkcs7(payload))``.
 *
 * - encrypt_into(payload, out): draws the IV from the ``random_bytes`` callable given at
 *   construction (one call per frame, as ``secure``), sets it with EVP_EncryptInit_ex and
 *   encrypts the whole blocks straight from the payload and the padded last block from a
 *   stack copy.  Answers memoryview(out)[:frame length].
 * - decrypt_into(frame, out): the whole frame, IV block included, through one decryption
 *   context whose chain runs on from frame to frame: the IV block comes out as garbage
 *   (out[:bs]) and leaves the IV as the chain, so every later block is plain CBC under the
 *   frame's own IV.  Answers memoryview(out)[bs:len(frame) - padding].
 *
 * Padding is off in both contexts (the frame does its own PKCS#7), so EVP_*Update writes
 * exactly as many bytes as it reads and never holds a block back.
 *
 * The contexts are mutable state of the object: for inputs of EVP_GIL_THRESHOLD bytes or
 * more the GIL is released while OpenSSL runs, and a second thread calling the same object
 * meanwhile gets RuntimeError instead of a corrupted chain.
 *
 * Works with OpenSSL 1.1.1 (Raspberry Pi OS bullseye) and 3.x (bookworm, Debian 12).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>

#define EVP_GIL_THRESHOLD 65536
#define MAX_BLOCK 16

typedef struct {
    PyObject_HEAD
    EVP_CIPHER_CTX *enc;
    EVP_CIPHER_CTX *dec;
    int bs;
    int busy;
    PyObject *random_bytes; /* callable(n) -> bytes of length n */
    PyObject *bad_frame;    /* callable(size): raises the mechanism's own error */
    PyObject *bad_padding;  /* exception class raised for a bad PKCS#7 padding */
    PyObject *name;         /* str, the mechanism's name, for messages */
} CbcObject;

static int set_openssl_error(const char *what)
{
    PyErr_Format(PyExc_RuntimeError, "OpenSSL %s failed", what);
    return -1;
}

static void Cbc_dealloc(CbcObject *self)
{
    PyObject_GC_UnTrack(self);
    EVP_CIPHER_CTX_free(self->enc);
    EVP_CIPHER_CTX_free(self->dec);
    Py_CLEAR(self->random_bytes);
    Py_CLEAR(self->bad_frame);
    Py_CLEAR(self->bad_padding);
    Py_CLEAR(self->name);
    PyTypeObject *tp = Py_TYPE(self);
    tp->tp_free((PyObject *)self);
}

static int Cbc_traverse(CbcObject *self, visitproc visit, void *arg)
{
    Py_VISIT(self->random_bytes);
    Py_VISIT(self->bad_frame);
    Py_VISIT(self->bad_padding);
    Py_VISIT(self->name);
    return 0;
}

static int Cbc_clear(CbcObject *self)
{
    Py_CLEAR(self->random_bytes);
    Py_CLEAR(self->bad_frame);
    Py_CLEAR(self->bad_padding);
    Py_CLEAR(self->name);
    return 0;
}

static int init_context(EVP_CIPHER_CTX **ctx, const EVP_CIPHER *cipher, const unsigned char *key,
                        int encrypt)
{
    unsigned char zero_iv[MAX_BLOCK] = {0};
    *ctx = EVP_CIPHER_CTX_new();
    if (*ctx == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    if (EVP_CipherInit_ex(*ctx, cipher, NULL, key, zero_iv, encrypt) != 1) {
        return set_openssl_error("cipher initialisation");
    }
    if (EVP_CIPHER_CTX_set_padding(*ctx, 0) != 1) {
        return set_openssl_error("EVP_CIPHER_CTX_set_padding");
    }
    return 0;
}

static PyObject *Cbc_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"cipher", "key", "name", "random_bytes", "bad_frame",
                             "bad_padding", NULL};
    const char *cipher_name;
    Py_buffer key;
    PyObject *name, *random_bytes, *bad_frame, *bad_padding;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "sy*UOOO:Cbc", kwlist, &cipher_name, &key,
                                     &name, &random_bytes, &bad_frame, &bad_padding)) {
        return NULL;
    }
    const EVP_CIPHER *cipher = EVP_get_cipherbyname(cipher_name);
    if (cipher == NULL || EVP_CIPHER_mode(cipher) != EVP_CIPH_CBC_MODE) {
        PyBuffer_Release(&key);
        return PyErr_Format(PyExc_ValueError, "OpenSSL has no CBC cipher named %s", cipher_name);
    }
    int bs = EVP_CIPHER_block_size(cipher);
    if (bs < 8 || bs > MAX_BLOCK || EVP_CIPHER_iv_length(cipher) != bs) {
        PyBuffer_Release(&key);
        return PyErr_Format(PyExc_ValueError, "%s: unexpected block size %d", cipher_name, bs);
    }
    if (key.len != EVP_CIPHER_key_length(cipher)) {
        PyErr_Format(PyExc_ValueError, "%s wants a %d-byte key, not %zd bytes", cipher_name,
                     EVP_CIPHER_key_length(cipher), key.len);
        PyBuffer_Release(&key);
        return NULL;
    }
    if (!PyCallable_Check(random_bytes) || !PyCallable_Check(bad_frame)
        || !PyExceptionClass_Check(bad_padding)) {
        PyBuffer_Release(&key);
        return PyErr_Format(PyExc_TypeError,
                            "random_bytes and bad_frame must be callable, bad_padding an "
                            "exception class");
    }
    CbcObject *self = (CbcObject *)type->tp_alloc(type, 0);
    if (self == NULL) {
        PyBuffer_Release(&key);
        return NULL;
    }
    self->bs = bs;
    Py_INCREF(name);
    self->name = name;
    Py_INCREF(random_bytes);
    self->random_bytes = random_bytes;
    Py_INCREF(bad_frame);
    self->bad_frame = bad_frame;
    Py_INCREF(bad_padding);
    self->bad_padding = bad_padding;
    int failed = init_context(&self->enc, cipher, key.buf, 1) < 0
                 || init_context(&self->dec, cipher, key.buf, 0) < 0;
    PyBuffer_Release(&key);
    if (failed) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

/* memoryview(obj)[start:stop] */
static PyObject *view_of(PyObject *obj, Py_ssize_t start, Py_ssize_t stop)
{
    PyObject *view = PyMemoryView_FromObject(obj);
    if (view == NULL) {
        return NULL;
    }
    PyObject *lo = PyLong_FromSsize_t(start);
    PyObject *hi = PyLong_FromSsize_t(stop);
    PyObject *slice = (lo && hi) ? PySlice_New(lo, hi, NULL) : NULL;
    Py_XDECREF(lo);
    Py_XDECREF(hi);
    PyObject *result = slice ? PyObject_GetItem(view, slice) : NULL;
    Py_XDECREF(slice);
    Py_DECREF(view);
    return result;
}

static int check_args(const char *fname, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "%s() takes exactly 2 arguments (%zd given)", fname, nargs);
        return -1;
    }
    return 0;
}

/* Runs one EVP_*Update over len bytes, the GIL released for long inputs. */
static int update(CbcObject *self, EVP_CIPHER_CTX *ctx, int encrypt, unsigned char *out,
                  const unsigned char *in, Py_ssize_t len)
{
    int outl = 0, ok;
    if (len > INT_MAX) {
        PyErr_SetString(PyExc_OverflowError, "a frame of 2 GiB or more");
        return -1;
    }
    if (len >= EVP_GIL_THRESHOLD) {
        self->busy = 1;
        Py_BEGIN_ALLOW_THREADS
        ok = encrypt ? EVP_EncryptUpdate(ctx, out, &outl, in, (int)len)
                     : EVP_DecryptUpdate(ctx, out, &outl, in, (int)len);
        Py_END_ALLOW_THREADS
        self->busy = 0;
    } else {
        ok = encrypt ? EVP_EncryptUpdate(ctx, out, &outl, in, (int)len)
                     : EVP_DecryptUpdate(ctx, out, &outl, in, (int)len);
    }
    if (ok != 1 || outl != (int)len) {
        return set_openssl_error(encrypt ? "EVP_EncryptUpdate" : "EVP_DecryptUpdate");
    }
    return 0;
}

static int not_busy(CbcObject *self)
{
    if (self->busy) {
        PyErr_Format(PyExc_RuntimeError, "%U: used by another thread at the same time",
                     self->name);
        return -1;
    }
    return 0;
}

static PyObject *Cbc_encrypt_into(CbcObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (check_args("encrypt_into", nargs) < 0 || not_busy(self) < 0) {
        return NULL;
    }
    const Py_ssize_t bs = self->bs;
    PyObject *iv = PyObject_CallFunction(self->random_bytes, "n", bs);
    if (iv == NULL) {
        return NULL;
    }
    if (!PyBytes_Check(iv) || PyBytes_GET_SIZE(iv) != bs) {
        Py_DECREF(iv);
        return PyErr_Format(PyExc_ValueError, "%U: random_bytes(%zd) gave no %zd bytes",
                            self->name, bs, bs);
    }
    Py_buffer payload, out;
    if (PyObject_GetBuffer(args[0], &payload, PyBUF_SIMPLE) < 0) {
        Py_DECREF(iv);
        return NULL;
    }
    if (PyObject_GetBuffer(args[1], &out, PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&payload);
        Py_DECREF(iv);
        return NULL;
    }
    const Py_ssize_t size = payload.len;
    const Py_ssize_t full = size - size % bs;
    const Py_ssize_t end = full + 2 * bs;
    int ok = 0;
    unsigned char *dst = out.buf;
    const unsigned char *src = payload.buf;
    unsigned char last[MAX_BLOCK];
    if (out.len < end) {
        PyErr_Format(PyExc_ValueError, "%U: a %zd-byte frame wants a buffer of %zd, not %zd",
                     self->name, end, end, out.len);
        goto done;
    }
    memcpy(dst, PyBytes_AS_STRING(iv), bs);
    if (EVP_EncryptInit_ex(self->enc, NULL, NULL, NULL, dst) != 1) {
        set_openssl_error("EVP_EncryptInit_ex (IV)");
        goto done;
    }
    if (full && update(self, self->enc, 1, dst + bs, src, full) < 0) {
        goto done;
    }
    memcpy(last, src + full, size - full);
    memset(last + (size - full), (int)(bs - (size - full)), bs - (size - full));
    if (update(self, self->enc, 1, dst + bs + full, last, bs) < 0) {
        goto done;
    }
    ok = 1;
done:
    PyBuffer_Release(&payload);
    PyBuffer_Release(&out);
    Py_DECREF(iv);
    return ok ? view_of(args[1], 0, end) : NULL;
}

static PyObject *Cbc_decrypt_into(CbcObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (check_args("decrypt_into", nargs) < 0 || not_busy(self) < 0) {
        return NULL;
    }
    const Py_ssize_t bs = self->bs;
    Py_buffer frame, out;
    if (PyObject_GetBuffer(args[0], &frame, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    const Py_ssize_t size = frame.len;
    if (size < 2 * bs || size % bs) {
        PyBuffer_Release(&frame);
        PyObject *r = PyObject_CallFunction(self->bad_frame, "n", size);
        if (r != NULL) {
            Py_DECREF(r);
            PyErr_Format(PyExc_RuntimeError, "%U: bad_frame(%zd) did not raise", self->name,
                         size);
        }
        return NULL;
    }
    if (PyObject_GetBuffer(args[1], &out, PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&frame);
        return NULL;
    }
    Py_ssize_t n = 0;
    int ok = 0;
    if (out.len < size) {
        PyErr_Format(PyExc_ValueError, "%U: a %zd-byte frame wants a buffer of %zd, not %zd",
                     self->name, size, size, out.len);
    } else if (update(self, self->dec, 0, out.buf, frame.buf, size) == 0) {
        const unsigned char *plain = out.buf;
        n = plain[size - 1];
        ok = n >= 1 && n <= bs;
        for (Py_ssize_t i = size - n; ok && i < size; i++) {
            ok = plain[i] == n;
        }
        if (!ok) {
            PyErr_Format(self->bad_padding, "%U: bad padding", self->name);
        }
    }
    PyBuffer_Release(&frame);
    PyBuffer_Release(&out);
    return ok ? view_of(args[1], bs, size - n) : NULL;
}

static PyObject *Cbc_get_block_size(CbcObject *self, void *closure)
{
    return PyLong_FromLong(self->bs);
}

static PyMethodDef Cbc_methods[] = {
    {"encrypt_into", (PyCFunction)(void (*)(void))Cbc_encrypt_into, METH_FASTCALL,
     "encrypt_into(payload, out) -> memoryview of out: iv || CBC(iv, pkcs7(payload))"},
    {"decrypt_into", (PyCFunction)(void (*)(void))Cbc_decrypt_into, METH_FASTCALL,
     "decrypt_into(frame, out) -> memoryview of out: the payload, padding checked"},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Cbc_getset[] = {
    {"block_size", (getter)Cbc_get_block_size, NULL, "the cipher's block size in bytes", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject CbcType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "iotsecbench_agent._evp.Cbc",
    .tp_basicsize = sizeof(CbcObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Cbc(cipher, key, name, random_bytes, bad_frame, bad_padding): CBC frames "
              "through OpenSSL's EVP interface",
    .tp_new = Cbc_new,
    .tp_dealloc = (destructor)Cbc_dealloc,
    .tp_traverse = (traverseproc)Cbc_traverse,
    .tp_clear = (inquiry)Cbc_clear,
    .tp_methods = Cbc_methods,
    .tp_getset = Cbc_getset,
};

static PyObject *evp_openssl_version(PyObject *module, PyObject *unused)
{
    return PyUnicode_FromString(OpenSSL_version(OPENSSL_VERSION));
}

static PyMethodDef module_methods[] = {
    {"openssl_version", evp_openssl_version, METH_NOARGS,
     "openssl_version() -> str: the libcrypto this extension runs on, e.g. 'OpenSSL 3.0.19 ...'"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef evp_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "iotsecbench_agent._evp",
    .m_doc = "CBC frames through OpenSSL's EVP interface, one native call per frame.",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__evp(void)
{
    if (PyType_Ready(&CbcType) < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&evp_module);
    if (module == NULL) {
        return NULL;
    }
    Py_INCREF(&CbcType);
    if (PyModule_AddObject(module, "Cbc", (PyObject *)&CbcType) < 0) {
        Py_DECREF(&CbcType);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
