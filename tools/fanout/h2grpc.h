/* A minimal gRPC client call over HTTP/2 without TLS (prior knowledge) on libnghttp2: one connection, one
 * call, messages framed as gRPC wants (1 flag byte, 4-byte big-endian length, the bytes). Enough for a
 * bidirectional stream (a driver's Connect) and a server stream (Watch); nothing more. Single-threaded:
 * the caller drives it with h2g_pump. */
#ifndef FANOUT_H2GRPC_H
#define FANOUT_H2GRPC_H

#include <stddef.h>
#include <stdint.h>

typedef struct h2g h2g;
/* Called for each complete response message; the bytes are valid only during the call. */
typedef void (*h2g_message_fn)(void *context, const uint8_t *data, size_t length);

/* Connects to host:port, opens the call `path` with `authorization: Bearer <token>`. NULL on failure (the
 * reason on stderr). */
h2g *h2g_open(const char *host, int port, const char *path, const char *token, h2g_message_fn on_message,
              void *context);
/* Reserves a request message of `length` bytes and returns where to write them (NULL: out of memory or
 * more than the outbound bound queued). Nothing leaves before the next h2g_pump. */
uint8_t *h2g_message(h2g *c, size_t length);
/* Ends the request stream once what is queued has been sent. */
void h2g_end_stream(h2g *c);
/* Sends what it can, waits for the socket until `deadline` (CLOCK_MONOTONIC ns; 0: do not wait), reads and
 * processes what arrived (calling on_message). Returns 0, or -1 when the connection failed or closed. */
int h2g_pump(h2g *c, uint64_t deadline);
/* Bytes queued and not yet handed to the kernel. */
size_t h2g_queued(const h2g *c);
/* Whether the call has ended; its grpc-status (-1: none received) and grpc-message. */
int h2g_done(const h2g *c);
int h2g_status(const h2g *c);
const char *h2g_status_message(const h2g *c);
void h2g_close(h2g *c);

#endif
