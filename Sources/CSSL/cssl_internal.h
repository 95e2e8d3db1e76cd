#ifndef CSSL_INTERNAL_H
#define CSSL_INTERNAL_H
// Helpers shared by the C files of this target; not part of the module's interface.
#include <openssl/x509.h>

extern _Thread_local char cssl_last_message[256];
void cssl_note(const char *what);
int cssl_write_pem_file(const char *path, int private_mode, int (*writer)(BIO *, void *), void *object);
int cssl_write_private(BIO *bio, void *key);
int cssl_write_cert(BIO *bio, void *cert);
int cssl_add_extension(X509 *cert, X509 *issuer, int nid, const char *value);
X509 *cssl_new_cert(EVP_PKEY *key, const char *common_name, long days);
/// Reads a CA certificate and its key (PEM); 1 and both set, or 0 with a message.
int cssl_load_ca(const char *ca_cert_path, const char *ca_key_path, X509 **ca_out, EVP_PKEY **key_out);
#endif
