#ifndef MAILROOM_CCRYPTO_SHIM_H
#define MAILROOM_CCRYPTO_SHIM_H

// OpenSSL's libcrypto (from libssl-dev, which TLS needs already), for its digests only: its
// SHA-256 uses the CPU's SHA instructions where there are some; HMAC signs webhook calls.
#include <openssl/evp.h>
#include <openssl/hmac.h>

#endif
