#ifndef MAILROOM_CLIBEVENT_SHIM_H
#define MAILROOM_CLIBEVENT_SHIM_H

// event-config.h defines _GNU_SOURCE; these system headers must come first or
// importing Glibc beside this module fails with an fd_set conflict.
#include <sys/types.h>
#include <sys/time.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <event2/event.h>
#include <event2/http.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/keyvalq_struct.h>
#include <event2/thread.h>
#include <event2/listener.h>
#include <event2/bufferevent_ssl.h>
// libevent's resolver, so the webhook client looks names up without blocking its loop.
#include <event2/dns.h>

#include <openssl/ssl.h>
#include <openssl/err.h>

// Macros Swift does not import, as values it can.
static const int mailroom_ssl_filetype_pem = SSL_FILETYPE_PEM;
static const int mailroom_bev_ssl_accepting = BUFFEREVENT_SSL_ACCEPTING;
static const int mailroom_bev_ssl_connecting = BUFFEREVENT_SSL_CONNECTING;

// SSL_set_tlsext_host_name is a macro over SSL_ctrl: the name a client asks for by SNI.
static inline int mailroom_ssl_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

#endif
