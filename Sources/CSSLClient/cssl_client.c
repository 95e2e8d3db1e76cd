#include "cssl_client.h"
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>


static int is_ip_literal(const char *host) {
    unsigned char buf[16];
    return inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1;
}

/* The reason for a failure: OpenSSL's last error, or `fallback` when it queued none. */
static void note_failure(char *why, size_t cap, const char *fallback) {
    unsigned long code = ERR_get_error();
    if (code) {
        ERR_error_string_n(code, why, cap);
    } else {
        snprintf(why, cap, "%s", fallback);
    }
    ERR_clear_error();
}

SSL_CTX *cssl_client_ctx_new(const char *ca_file, char *why, size_t cap) {
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) { note_failure(why, cap, "SSL_CTX_new failed"); return NULL; }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
    // RELEASE_BUFFERS: tens of thousands of idle sockets is the point of a signaling-socket load test, and each
    // session would otherwise hold ~34 KB of record buffers it does not use between messages.
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER
                              | SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    int ok = ca_file ? SSL_CTX_load_verify_locations(ctx, ca_file, NULL) : SSL_CTX_set_default_verify_paths(ctx);
    if (ok != 1) {
        note_failure(why, cap, ca_file ? "no CA certificate could be read from it (a PEM file of certificates)"
                                       : "the system's CA store could not be loaded");
        SSL_CTX_free(ctx);
        return NULL;
    }
    return ctx;
}

SSL *cssl_client_new(SSL_CTX *ctx, int fd, const char *host) {
    SSL *ssl = SSL_new(ctx);
    if (!ssl) return NULL;
    if (SSL_set_fd(ssl, fd) != 1) { SSL_free(ssl); return NULL; }
    SSL_set_connect_state(ssl);
    if (is_ip_literal(host)) {
        X509_VERIFY_PARAM *param = SSL_get0_param(ssl);
        if (X509_VERIFY_PARAM_set1_ip_asc(param, host) != 1) { SSL_free(ssl); return NULL; }
    } else {
        SSL_set_tlsext_host_name(ssl, host);
        if (SSL_set1_host(ssl, host) != 1) { SSL_free(ssl); return NULL; }
    }
    return ssl;
}

int cssl_client_release_buffers(SSL *ssl) { return SSL_free_buffers(ssl); }

SSL_SESSION *cssl_client_get1_session(SSL *ssl) {
    SSL_SESSION *session = SSL_get1_session(ssl);
    if (session && !SSL_SESSION_is_resumable(session)) {
        SSL_SESSION_free(session);
        return NULL;
    }
    return session;
}

int cssl_client_set_session(SSL *ssl, SSL_SESSION *session) { return SSL_set_session(ssl, session); }

int cssl_client_session_reused(SSL *ssl) { return SSL_session_reused(ssl); }

void cssl_client_session_free(SSL_SESSION *session) { SSL_SESSION_free(session); }

int cssl_client_ctx_offer_h2(SSL_CTX *ctx) {
    static const unsigned char protos[] = {2, 'h', '2'};
    // SSL_CTX_set_alpn_protos returns 0 on success.
    return SSL_CTX_set_alpn_protos(ctx, protos, sizeof protos) == 0;
}

int cssl_client_ctx_use_certificate(SSL_CTX *ctx, const char *path, char *why, size_t cap) {
    if (SSL_CTX_use_certificate_chain_file(ctx, path) != 1
        || SSL_CTX_use_PrivateKey_file(ctx, path, SSL_FILETYPE_PEM) != 1
        || SSL_CTX_check_private_key(ctx) != 1) {
        note_failure(why, cap, "no certificate and matching key could be read from it");
        return 0;
    }
    return 1;
}
