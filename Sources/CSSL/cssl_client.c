#include "cssl.h"
#include "cssl_internal.h"
#include <stdio.h>
#include <string.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

// MARK: - Client certificates on the server side

int cssl_ctx_request_client_cert(SSL_CTX *ctx, const char *ca_path) {
    if (SSL_CTX_load_verify_locations(ctx, ca_path, NULL) != 1) {
        cssl_note("cannot load the client CA");
        return 0;
    }
    STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(ca_path);
    if (names) SSL_CTX_set_client_CA_list(ctx, names);
    // Requested, not required: a token-auth client sends no certificate and goes on. A certificate that does
    // not verify ends the handshake with OpenSSL's alert for the reason (unknown_ca, certificate_expired).
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_CLIENT_ONCE, NULL);
    // Session resumption with client verification needs a session id context, or resumed handshakes fail.
    static const unsigned char context_id[] = "callstorm-gateway";
    SSL_CTX_set_session_id_context(ctx, context_id, sizeof context_id - 1);
    return 1;
}

long cssl_verify_result(SSL *ssl) { return SSL_get_verify_result(ssl); }

int cssl_verify_is_expired(long result) {
    return result == X509_V_ERR_CERT_HAS_EXPIRED || result == X509_V_ERR_CERT_NOT_YET_VALID;
}

int cssl_servername(SSL *ssl, char *out, int cap) {
    const char *name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
    if (!name || cap <= 0) { if (cap > 0) out[0] = 0; return 0; }
    snprintf(out, (size_t)cap, "%s", name);
    return (int)strlen(out);
}

int cssl_peer_has_cert(SSL *ssl) { return SSL_get0_peer_certificate(ssl) != NULL; }

int cssl_peer_subject_entry(SSL *ssl, const char *field, char *out, int cap) {
    if (cap > 0) out[0] = 0;
    X509 *cert = SSL_get0_peer_certificate(ssl);
    int nid = OBJ_txt2nid(field);
    if (!cert || nid == NID_undef) { ERR_clear_error(); return 0; }
    X509_NAME *name = X509_get_subject_name(cert);
    int index = X509_NAME_get_index_by_NID(name, nid, -1);
    if (index < 0) return 0;
    ASN1_STRING *value = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, index));
    int n = ASN1_STRING_length(value);
    if (n >= cap) return -1;
    memcpy(out, ASN1_STRING_get0_data(value), (size_t)n);
    out[n] = 0;
    return n;
}

int cssl_peer_extension_at(SSL *ssl, int index, char *oid_out, int oid_cap, unsigned char *value_out,
                           int value_cap) {
    X509 *cert = SSL_get0_peer_certificate(ssl);
    if (!cert || index < 0 || index >= X509_get_ext_count(cert)) return -1;
    X509_EXTENSION *ext = X509_get_ext(cert, index);
    if (OBJ_obj2txt(oid_out, oid_cap, X509_EXTENSION_get_object(ext), 1) <= 0) return -2;
    ASN1_OCTET_STRING *data = X509_EXTENSION_get_data(ext);
    int n = ASN1_STRING_length(data);
    if (n > value_cap) return -2;
    memcpy(value_out, ASN1_STRING_get0_data(data), (size_t)n);
    return n;
}

// MARK: - Issuing a push client certificate

static int add_raw_extension(X509 *cert, const char *oid, const unsigned char *value, size_t len) {
    ASN1_OBJECT *object = OBJ_txt2obj(oid, 1);
    ASN1_OCTET_STRING *data = ASN1_OCTET_STRING_new();
    int ok = object && data && ASN1_OCTET_STRING_set(data, value, (int)len) == 1;
    X509_EXTENSION *ext = ok ? X509_EXTENSION_create_by_OBJ(NULL, object, 0, data) : NULL;
    ok = ext && X509_add_ext(cert, ext, -1) == 1;
    if (!ok) cssl_note(oid);
    X509_EXTENSION_free(ext);
    ASN1_OCTET_STRING_free(data);
    ASN1_OBJECT_free(object);
    return ok;
}

static int set_subject(X509 *cert, const char *uid, const char *common_name, const char *team) {
    X509_NAME *name = X509_NAME_new();
    int ok = name
        && X509_NAME_add_entry_by_txt(name, "UID", MBSTRING_UTF8, (const unsigned char *)uid, -1, -1, 0)
        && X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)common_name, -1, -1, 0)
        && X509_NAME_add_entry_by_txt(name, "OU", MBSTRING_UTF8, (const unsigned char *)team, -1, -1, 0)
        && X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, (const unsigned char *)"callstorm", -1, -1, 0)
        && X509_NAME_add_entry_by_txt(name, "C", MBSTRING_ASC, (const unsigned char *)"US", -1, -1, 0)
        && X509_set_subject_name(cert, name) == 1;
    X509_NAME_free(name);
    return ok;
}

static int write_cert_and_key(BIO *bio, void *pair) {
    void **both = (void **)pair;
    return PEM_write_bio_X509(bio, (X509 *)both[0])
        && PEM_write_bio_PKCS8PrivateKey(bio, (EVP_PKEY *)both[1], NULL, NULL, 0, NULL, NULL);
}

static const unsigned char asn1_null[] = {0x05, 0x00};

int cssl_make_push_client_cert(const char *ca_cert_path, const char *ca_key_path, const char *out_path,
                               const struct cssl_push_cert_spec *spec) {
    X509 *ca = NULL;
    EVP_PKEY *ca_key = NULL;
    if (!cssl_load_ca(ca_cert_path, ca_key_path, &ca, &ca_key)) return 0;
    EVP_PKEY *key = EVP_EC_gen("P-256");
    X509 *cert = key ? cssl_new_cert(key, spec->common_name, 1) : NULL;
    int ok = cert && set_subject(cert, spec->uid, spec->common_name, spec->team)
             && X509_gmtime_adj(X509_getm_notBefore(cert), spec->not_before_offset_seconds)
             && X509_gmtime_adj(X509_getm_notAfter(cert), spec->not_after_offset_seconds)
             && X509_set_issuer_name(cert, X509_get_subject_name(ca))
             && cssl_add_extension(cert, ca, NID_basic_constraints, "critical,CA:FALSE")
             && cssl_add_extension(cert, ca, NID_key_usage, "critical,digitalSignature")
             && cssl_add_extension(cert, ca, NID_ext_key_usage, "clientAuth")
             && cssl_add_extension(cert, ca, NID_subject_key_identifier, "hash")
             && cssl_add_extension(cert, ca, NID_authority_key_identifier, "keyid:always")
             && (!spec->development || add_raw_extension(cert, "1.2.840.113635.100.6.3.1", asn1_null, 2))
             && (!spec->production || add_raw_extension(cert, "1.2.840.113635.100.6.3.2", asn1_null, 2))
             && (spec->topics_len == 0
                 || add_raw_extension(cert, "1.2.840.113635.100.6.3.6", spec->topics_der, spec->topics_len))
             && X509_sign(cert, ca_key, EVP_sha256()) > 0;
    void *pair[2] = {cert, key};
    ok = ok && cssl_write_pem_file(out_path, 1, write_cert_and_key, pair);
    if (!ok && !cssl_last_message[0]) cssl_note("creating the push client certificate");
    X509_free(cert);
    EVP_PKEY_free(key);
    X509_free(ca);
    EVP_PKEY_free(ca_key);
    return ok;
}

const char *cssl_verify_error_string(long result) { return X509_verify_cert_error_string(result); }
