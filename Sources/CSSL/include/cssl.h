#ifndef CSSL_H
#define CSSL_H
// Typed wrappers around OpenSSL for what Swift cannot call directly (function-like macros such as
// SSL_CTX_set_min_proto_version, callbacks such as ALPN selection) or would need pages of pointer code for
// (building X.509 certificates, converting ECDSA signatures between DER and JOSE's raw r||s form).
// Every function returns 0/NULL or a negative value on failure and leaves a message for cssl_last_error.
#include <stddef.h>
#include <stdint.h>
#include <openssl/ssl.h>
#include <openssl/evp.h>

// MARK: - TLS server

/// A TLS 1.2+ server context with `cert_chain_path` (PEM, leaf first) and `key_path`, whose ALPN callback
/// picks h2, else http/1.1, else nothing (the connection goes on without ALPN, as aioapns expects).
SSL_CTX *cssl_server_ctx_new(const char *cert_chain_path, const char *key_path);
void cssl_ctx_free(SSL_CTX *ctx);
/// A server-side session on a connected non-blocking socket.
SSL *cssl_new(SSL_CTX *ctx, int fd);
void cssl_free(SSL *ssl);
/// 1 finished, 0 needs the socket readable or writable again, -1 failed.
int cssl_handshake(SSL *ssl);
/// The ALPN protocol agreed on, copied into out (NUL-terminated); its length, 0 when none.
int cssl_alpn_selected(SSL *ssl, char *out, int cap);
/// Bytes read (>0); 0 the peer closed the TLS session; -1 would block; -2 failed.
int cssl_read(SSL *ssl, void *buf, int len);
/// Bytes written (>0); -1 would block; -2 failed.
int cssl_write(SSL *ssl, const void *buf, int len);
/// Sends close_notify without waiting for the peer's.
void cssl_shutdown(SSL *ssl);

// MARK: - Keys and ES256

/// Loads a PEM private key (PKCS#8 as in Apple's .p8 files, or SEC1) or, failing that, a PEM public key.
EVP_PKEY *cssl_pkey_load_pem(const char *pem, size_t len);
void cssl_pkey_free(EVP_PKEY *key);
/// 1 when the key holds its private half.
int cssl_pkey_is_private(EVP_PKEY *key);
/// Creates a P-256 key and writes it to `private_path` (PKCS#8 PEM, mode 0600) and `public_path` (SPKI PEM).
int cssl_es256_generate(const char *private_path, const char *public_path);
/// A new P-256 key held in memory only.
EVP_PKEY *cssl_es256_new_key(void);
/// The key's public half as SPKI PEM into out (NUL-terminated); its length, or -1 when out is too small.
int cssl_pkey_public_pem(EVP_PKEY *key, char *out, int cap);
/// The key (private half, PKCS#8 PEM) into out; its length, or -1.
int cssl_pkey_private_pem(EVP_PKEY *key, char *out, int cap);
/// ES256 (ECDSA P-256 over SHA-256) of data, as the 64-byte r||s JWS wants. Returns 1 on success.
int cssl_es256_sign(EVP_PKEY *key, const uint8_t *data, size_t len, uint8_t out[64]);
/// 1 when sig (64-byte r||s) is a valid ES256 signature of data under key; 0 when not.
int cssl_es256_verify(EVP_PKEY *key, const uint8_t *data, size_t len, const uint8_t sig[64]);

// MARK: - Certificates

/// Creates a self-signed CA (P-256, 10 years) and writes its certificate and key as PEM.
int cssl_make_ca(const char *cert_path, const char *key_path, const char *common_name);
/// Creates a server certificate (P-256, 825 days, serverAuth) signed by the CA, for the comma-separated
/// subjectAltName list `sans` (e.g. "IP:127.0.0.1,DNS:localhost"), and writes it and its key as PEM.
int cssl_make_server_cert(const char *ca_cert_path, const char *ca_key_path, const char *cert_path,
                          const char *key_path, const char *common_name, const char *sans);

/// The most recent failure on this thread as text (OpenSSL's error queue, drained).
void cssl_last_error(char *out, size_t cap);
#endif
