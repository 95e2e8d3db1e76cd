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
/// One handshake step, saying which way it waits: 1 done, 2 it waits to read, 3 it waits to write, -1 failed
/// (with cssl_last_error). A caller that polls for both while the handshake waits to read spins.
int cssl_handshake_step(SSL *ssl);
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

// MARK: - Client certificates (mutual TLS)

/// Makes the server ask every client for a certificate signed by the CA in `ca_path` (PEM). Asked, not required:
/// a client without one goes on; one whose certificate does not verify is refused with the matching TLS alert.
int cssl_ctx_request_client_cert(SSL_CTX *ctx, const char *ca_path);
/// X509_V_OK (0) or why the peer's certificate failed verification (X509_V_ERR_*).
long cssl_verify_result(SSL *ssl);
/// OpenSSL's text for a verification result ("certificate has expired", "unable to get local issuer certificate").
const char *cssl_verify_error_string(long result);
/// 1 when a verification result means the certificate is outside its validity period.
int cssl_verify_is_expired(long result);
/// The SNI host name the client asked for, into out; its length, 0 when none.
int cssl_servername(SSL *ssl, char *out, int cap);
/// 1 when the peer presented a certificate (which then verified: one that did not ends the handshake).
int cssl_peer_has_cert(SSL *ssl);
/// The first subject entry `field` ("UID", "CN", "OU") of the peer's certificate as UTF-8; its length, 0 absent.
int cssl_peer_subject_entry(SSL *ssl, const char *field, char *out, int cap);
/// The peer certificate's extension number `index`: its dotted OID into oid_out and its value (extnValue octets)
/// into value_out; the value's length, -1 past the last extension, -2 when a buffer is too small.
int cssl_peer_extension_at(SSL *ssl, int index, char *oid_out, int oid_cap, unsigned char *value_out,
                           int value_cap);

/// What a push client certificate says, shaped like Apple's: subject UID = bundle id, CN "VoIP Services: <bundle>",
/// OU = team id, Apple's environment extensions and its topics extension (DER, built by the caller).
struct cssl_push_cert_spec {
    const char *uid;
    const char *common_name;
    const char *team;
    const unsigned char *topics_der;
    size_t topics_len;
    int development;
    int production;
    /// Validity relative to now, in seconds (negative for the past: an expired certificate for tests).
    long not_before_offset_seconds;
    long not_after_offset_seconds;
};
/// Creates a P-256 client certificate (clientAuth) signed by the CA and writes it and its key into one PEM
/// file (mode 0600), as users convert Apple's .p12.
int cssl_make_push_client_cert(const char *ca_cert_path, const char *ca_key_path, const char *out_path,
                               const struct cssl_push_cert_spec *spec);

/// The most recent failure on this thread as text (OpenSSL's error queue, drained).
void cssl_last_error(char *out, size_t cap);
#endif
