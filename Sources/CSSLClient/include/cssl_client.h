#ifndef CSSL_CLIENT_H
#define CSSL_CLIENT_H
// TLS client sessions (wss): a context that verifies the server against a CA file (or the system store) and
// sessions bound to a non-blocking socket. Read, write, handshake and shutdown are cssl.h's, which work for
// either side. A target of its own so the server-side shim and this one change independently.
#include <openssl/ssl.h>

/// A TLS 1.2+ client context verifying peers against `ca_file` (PEM; NULL: the system's default store), with
/// SSL_MODE_RELEASE_BUFFERS so an idle session holds no record buffers (the memory floor of an idle wss
/// socket). NULL on failure, with the reason in `why` (`cap` bytes, NUL-terminated).
SSL_CTX *cssl_client_ctx_new(const char *ca_file, char *why, size_t cap);
/// A client session on a connected (or connecting) non-blocking socket, sending SNI for `host` unless it is
/// an IP literal and checking the certificate names `host` (DNS name or IP address). No ALPN: WebSocket
/// upgrades speak HTTP/1.1.
SSL *cssl_client_new(SSL_CTX *ctx, int fd, const char *host);
/// Frees the session's record buffers when nothing is pending in them (1 freed, 0 kept): for sockets gone idle.
/// Measured (docs/WEBSOCKET.md): with SSL_MODE_RELEASE_BUFFERS alone an idle TLS 1.3 client session kept ~36 KB
/// (its read buffer stayed); after this, ~19 KB, the rest being OpenSSL's session, cipher and certificate state.
int cssl_client_release_buffers(SSL *ssl);
/// TLS session resumption (RFC 5077 tickets, TLS 1.3 PSK): the session of a finished handshake, with a reference
/// the caller frees (`cssl_client_session_free`), or NULL when it cannot be resumed (no ticket came).
SSL_SESSION *cssl_client_get1_session(SSL *ssl);
/// Offers `session` on a new session before its handshake (1 offered, 0 not).
int cssl_client_set_session(SSL *ssl, SSL_SESSION *session);
/// Whether the finished handshake resumed the offered session (1) or was a full one (0).
int cssl_client_session_reused(SSL *ssl);
void cssl_client_session_free(SSL_SESSION *session);
/// Offers `h2` alone in ALPN on every session of `ctx` (the HTTP/2 push client's contexts); 1 on success.
int cssl_client_ctx_offer_h2(SSL_CTX *ctx);
/// Presents the certificate chain and private key in the PEM file `path` on every session of `ctx`
/// (certificate-based APNs provider auth, mutual TLS); 1 on success, else 0 with the reason in `why`.
int cssl_client_ctx_use_certificate(SSL_CTX *ctx, const char *path, char *why, size_t cap);
#endif
