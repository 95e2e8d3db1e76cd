#include "cssl.h"
#include "cssl_internal.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

_Thread_local char cssl_last_message[256];
#define last_message cssl_last_message

void cssl_note(const char *what) {
    unsigned long code = ERR_get_error();
    if (code) {
        char detail[200];
        ERR_error_string_n(code, detail, sizeof detail);
        snprintf(last_message, sizeof last_message, "%s: %s", what, detail);
    } else {
        snprintf(last_message, sizeof last_message, "%s", what);
    }
    ERR_clear_error();
}

void cssl_last_error(char *out, size_t cap) {
    if (cap == 0) return;
    snprintf(out, cap, "%s", last_message[0] ? last_message : "unknown OpenSSL failure");
    last_message[0] = 0;
}

// MARK: - TLS server

static int select_alpn(SSL *ssl, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
                       unsigned int inlen, void *arg) {
    (void)ssl; (void)arg;
    static const char *preferred[] = {"h2", "http/1.1"};
    for (int p = 0; p < 2; p++) {
        size_t want = strlen(preferred[p]);
        for (unsigned int i = 0; i < inlen;) {
            unsigned int n = in[i];
            if (i + 1 + n > inlen) break;
            if (n == want && memcmp(in + i + 1, preferred[p], n) == 0) {
                *out = in + i + 1;
                *outlen = (unsigned char)n;
                return SSL_TLSEXT_ERR_OK;
            }
            i += 1 + n;
        }
    }
    return SSL_TLSEXT_ERR_NOACK;
}

SSL_CTX *cssl_server_ctx_new(const char *cert_chain_path, const char *key_path) {
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx) { cssl_note("SSL_CTX_new"); return NULL; }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_COMPRESSION);
    // Not SSL_MODE_RELEASE_BUFFERS: freeing and reallocating record buffers between bursts costs more than the
    // memory it saves at the connection counts a push gateway sees.
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    if (SSL_CTX_use_certificate_chain_file(ctx, cert_chain_path) != 1) {
        cssl_note("cannot load the certificate chain");
        SSL_CTX_free(ctx);
        return NULL;
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, key_path, SSL_FILETYPE_PEM) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
        cssl_note("cannot load the private key, or it does not match the certificate");
        SSL_CTX_free(ctx);
        return NULL;
    }
    SSL_CTX_set_alpn_select_cb(ctx, select_alpn, NULL);
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
    return ctx;
}

void cssl_ctx_free(SSL_CTX *ctx) { SSL_CTX_free(ctx); }

SSL *cssl_new(SSL_CTX *ctx, int fd) {
    SSL *ssl = SSL_new(ctx);
    if (!ssl) { cssl_note("SSL_new"); return NULL; }
    if (SSL_set_fd(ssl, fd) != 1) { cssl_note("SSL_set_fd"); SSL_free(ssl); return NULL; }
    SSL_set_accept_state(ssl);
    return ssl;
}

void cssl_free(SSL *ssl) { SSL_free(ssl); }

static int classify(SSL *ssl, int rc, const char *what) {
    int e = SSL_get_error(ssl, rc);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return -1;
    if (e == SSL_ERROR_ZERO_RETURN) return 0;
    cssl_note(what);
    return -2;
}

int cssl_handshake(SSL *ssl) {
    int rc = SSL_do_handshake(ssl);
    if (rc == 1) return 1;
    int c = classify(ssl, rc, "TLS handshake");
    return c == -1 ? 0 : -1;
}

int cssl_handshake_step(SSL *ssl) {
    int rc = SSL_do_handshake(ssl);
    if (rc == 1) return 1;
    int e = SSL_get_error(ssl, rc);
    if (e == SSL_ERROR_WANT_READ) return 2;
    if (e == SSL_ERROR_WANT_WRITE) return 3;
    cssl_note("TLS handshake");
    return -1;
}

int cssl_alpn_selected(SSL *ssl, char *out, int cap) {
    const unsigned char *p = NULL;
    unsigned int n = 0;
    SSL_get0_alpn_selected(ssl, &p, &n);
    if (!p || n == 0 || (int)n >= cap) { if (cap > 0) out[0] = 0; return 0; }
    memcpy(out, p, n);
    out[n] = 0;
    return (int)n;
}

int cssl_read(SSL *ssl, void *buf, int len) {
    int rc = SSL_read(ssl, buf, len);
    if (rc > 0) return rc;
    return classify(ssl, rc, "TLS read");
}

int cssl_write(SSL *ssl, const void *buf, int len) {
    int rc = SSL_write(ssl, buf, len);
    if (rc > 0) return rc;
    int c = classify(ssl, rc, "TLS write");
    return c == 0 ? -2 : c;
}

void cssl_shutdown(SSL *ssl) {
    if (SSL_is_init_finished(ssl)) SSL_shutdown(ssl);
    ERR_clear_error();
}

// MARK: - Keys and ES256

EVP_PKEY *cssl_pkey_load_pem(const char *pem, size_t len) {
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    if (!bio) { cssl_note("BIO_new_mem_buf"); return NULL; }
    EVP_PKEY *key = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
    if (!key) {
        ERR_clear_error();
        BIO_reset(bio);
        key = PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
    }
    BIO_free(bio);
    if (!key) { cssl_note("not a PEM private or public key"); return NULL; }
    if (EVP_PKEY_get_base_id(key) != EVP_PKEY_EC || EVP_PKEY_get_bits(key) != 256) {
        snprintf(last_message, sizeof last_message, "the key is not an EC P-256 key (ES256 needs one)");
        EVP_PKEY_free(key);
        return NULL;
    }
    return key;
}

void cssl_pkey_free(EVP_PKEY *key) { EVP_PKEY_free(key); }

int cssl_pkey_is_private(EVP_PKEY *key) {
    BIGNUM *priv = NULL;
    int has = EVP_PKEY_get_bn_param(key, "priv", &priv) == 1 && priv != NULL;
    BN_free(priv);
    ERR_clear_error();
    return has;
}

int cssl_write_pem_file(const char *path, int private_mode, int (*writer)(BIO *, void *), void *object) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, private_mode ? 0600 : 0644);
    if (fd < 0) { snprintf(last_message, sizeof last_message, "cannot write %s: %s", path, strerror(errno)); return 0; }
    FILE *file = fdopen(fd, "w");
    if (!file) { close(fd); snprintf(last_message, sizeof last_message, "fdopen %s", path); return 0; }
    BIO *bio = BIO_new_fp(file, BIO_CLOSE);
    int ok = bio && writer(bio, object);
    if (!ok) cssl_note(path);
    if (bio) BIO_free(bio); else fclose(file);
    return ok;
}

int cssl_write_private(BIO *bio, void *key) {
    return PEM_write_bio_PKCS8PrivateKey(bio, (EVP_PKEY *)key, NULL, NULL, 0, NULL, NULL);
}
static int write_public(BIO *bio, void *key) { return PEM_write_bio_PUBKEY(bio, (EVP_PKEY *)key); }
int cssl_write_cert(BIO *bio, void *cert) { return PEM_write_bio_X509(bio, (X509 *)cert); }

int cssl_es256_generate(const char *private_path, const char *public_path) {
    EVP_PKEY *key = EVP_EC_gen("P-256");
    if (!key) { cssl_note("EVP_EC_gen"); return 0; }
    int ok = cssl_write_pem_file(private_path, 1, cssl_write_private, key)
             && (!public_path || cssl_write_pem_file(public_path, 0, write_public, key));
    EVP_PKEY_free(key);
    return ok;
}

EVP_PKEY *cssl_es256_new_key(void) {
    EVP_PKEY *key = EVP_EC_gen("P-256");
    if (!key) cssl_note("EVP_EC_gen");
    return key;
}

static int pem_to_buffer(EVP_PKEY *key, int private_half, char *out, int cap) {
    BIO *bio = BIO_new(BIO_s_mem());
    if (!bio) return -1;
    int ok = private_half ? PEM_write_bio_PKCS8PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL)
                          : PEM_write_bio_PUBKEY(bio, key);
    char *data = NULL;
    long len = ok ? BIO_get_mem_data(bio, &data) : -1;
    int result = -1;
    if (len >= 0 && len < cap) {
        memcpy(out, data, (size_t)len);
        out[len] = 0;
        result = (int)len;
    }
    BIO_free(bio);
    ERR_clear_error();
    return result;
}

int cssl_pkey_public_pem(EVP_PKEY *key, char *out, int cap) { return pem_to_buffer(key, 0, out, cap); }
int cssl_pkey_private_pem(EVP_PKEY *key, char *out, int cap) { return pem_to_buffer(key, 1, out, cap); }

int cssl_es256_sign(EVP_PKEY *key, const uint8_t *data, size_t len, uint8_t out[64]) {
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    unsigned char der[80];
    size_t der_len = sizeof der;
    int ok = md && EVP_DigestSignInit(md, NULL, EVP_sha256(), NULL, key) == 1
             && EVP_DigestSign(md, der, &der_len, data, len) == 1;
    EVP_MD_CTX_free(md);
    if (!ok) { cssl_note("ES256 signing"); return 0; }
    const unsigned char *p = der;
    ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &p, (long)der_len);
    if (!sig) { cssl_note("ES256 signature decoding"); return 0; }
    const BIGNUM *r = NULL, *s = NULL;
    ECDSA_SIG_get0(sig, &r, &s);
    ok = BN_bn2binpad(r, out, 32) == 32 && BN_bn2binpad(s, out + 32, 32) == 32;
    ECDSA_SIG_free(sig);
    return ok;
}

int cssl_es256_verify(EVP_PKEY *key, const uint8_t *data, size_t len, const uint8_t sig[64]) {
    ECDSA_SIG *ecsig = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(sig, 32, NULL), *s = BN_bin2bn(sig + 32, 32, NULL);
    if (!ecsig || !r || !s || ECDSA_SIG_set0(ecsig, r, s) != 1) {
        BN_free(r); BN_free(s); ECDSA_SIG_free(ecsig);
        ERR_clear_error();
        return 0;
    }
    unsigned char *der = NULL;
    int der_len = i2d_ECDSA_SIG(ecsig, &der);
    ECDSA_SIG_free(ecsig);
    if (der_len <= 0) { ERR_clear_error(); return 0; }
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int ok = md && EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, key) == 1
             && EVP_DigestVerify(md, der, (size_t)der_len, data, len) == 1;
    EVP_MD_CTX_free(md);
    OPENSSL_free(der);
    ERR_clear_error();
    return ok;
}

// MARK: - Certificates

int cssl_add_extension(X509 *cert, X509 *issuer, int nid, const char *value) {
    X509V3_CTX v3;
    X509V3_set_ctx_nodb(&v3);
    X509V3_set_ctx(&v3, issuer, cert, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &v3, nid, value);
    if (!ext) { cssl_note(value); return 0; }
    int ok = X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    return ok;
}

X509 *cssl_new_cert(EVP_PKEY *key, const char *common_name, long days) {
    X509 *cert = X509_new();
    if (!cert) return NULL;
    X509_set_version(cert, 2);
    unsigned char serial[16];
    RAND_bytes(serial, sizeof serial);
    serial[0] &= 0x7f;
    BIGNUM *bn = BN_bin2bn(serial, sizeof serial, NULL);
    BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert));
    BN_free(bn);
    X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
    X509_gmtime_adj(X509_getm_notAfter(cert), days * 24 * 3600);
    X509_set_pubkey(cert, key);
    X509_NAME *name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, (const unsigned char *)"callstorm", -1, -1, 0);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)common_name, -1, -1, 0);
    return cert;
}

int cssl_make_ca(const char *cert_path, const char *key_path, const char *common_name) {
    EVP_PKEY *key = EVP_EC_gen("P-256");
    if (!key) { cssl_note("EVP_EC_gen"); return 0; }
    X509 *cert = cssl_new_cert(key, common_name, 3650);
    int ok = cert && X509_set_issuer_name(cert, X509_get_subject_name(cert))
             && cssl_add_extension(cert, cert, NID_basic_constraints, "critical,CA:TRUE")
             && cssl_add_extension(cert, cert, NID_key_usage, "critical,keyCertSign,cRLSign")
             && cssl_add_extension(cert, cert, NID_subject_key_identifier, "hash")
             && X509_sign(cert, key, EVP_sha256()) > 0
             && cssl_write_pem_file(key_path, 1, cssl_write_private, key)
             && cssl_write_pem_file(cert_path, 0, cssl_write_cert, cert);
    if (!ok && !last_message[0]) cssl_note("creating the CA certificate");
    X509_free(cert);
    EVP_PKEY_free(key);
    return ok;
}

int cssl_load_ca(const char *ca_cert_path, const char *ca_key_path, X509 **ca_out, EVP_PKEY **key_out) {
    FILE *f = fopen(ca_cert_path, "r");
    X509 *ca = f ? PEM_read_X509(f, NULL, NULL, NULL) : NULL;
    if (f) fclose(f);
    f = fopen(ca_key_path, "r");
    EVP_PKEY *ca_key = f ? PEM_read_PrivateKey(f, NULL, NULL, NULL) : NULL;
    if (f) fclose(f);
    if (!ca || !ca_key) {
        cssl_note("cannot read the CA certificate or key");
        X509_free(ca); EVP_PKEY_free(ca_key);
        return 0;
    }
    *ca_out = ca;
    *key_out = ca_key;
    return 1;
}

int cssl_make_server_cert(const char *ca_cert_path, const char *ca_key_path, const char *cert_path,
                          const char *key_path, const char *common_name, const char *sans) {
    X509 *ca = NULL;
    EVP_PKEY *ca_key = NULL;
    if (!cssl_load_ca(ca_cert_path, ca_key_path, &ca, &ca_key)) return 0;
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *cert = key ? cssl_new_cert(key, common_name, 825) : NULL;
    int ok = cert && X509_set_issuer_name(cert, X509_get_subject_name(ca))
             && cssl_add_extension(cert, ca, NID_basic_constraints, "critical,CA:FALSE")
             && cssl_add_extension(cert, ca, NID_key_usage, "critical,digitalSignature,keyEncipherment")
             && cssl_add_extension(cert, ca, NID_ext_key_usage, "serverAuth")
             && cssl_add_extension(cert, ca, NID_subject_alt_name, sans)
             && cssl_add_extension(cert, ca, NID_subject_key_identifier, "hash")
             && cssl_add_extension(cert, ca, NID_authority_key_identifier, "keyid:always")
             && X509_sign(cert, ca_key, EVP_sha256()) > 0
             && cssl_write_pem_file(key_path, 1, cssl_write_private, key)
             && cssl_write_pem_file(cert_path, 0, cssl_write_cert, cert);
    if (!ok && !last_message[0]) cssl_note("creating the server certificate");
    X509_free(cert);
    EVP_PKEY_free(key);
    X509_free(ca);
    EVP_PKEY_free(ca_key);
    return ok;
}
