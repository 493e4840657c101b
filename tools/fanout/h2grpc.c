/* See h2grpc.h. Written against the public libnghttp2 1.52 API (no *2 variants): the session serializes
 * into memory (nghttp2_session_mem_send), we gather a whole round into one buffer and write it with one
 * send(2); reads go to nghttp2_session_mem_recv. */
#define _GNU_SOURCE
#include "h2grpc.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define OUT_LIMIT ((size_t)256 << 20) /* request bytes we queue at most */
#define IN_LIMIT ((size_t)64 << 20)   /* the largest response message we accept */
#define WRITE_ROUND ((size_t)1 << 20) /* serialized bytes gathered per send(2) at most */
#define READ_SIZE ((size_t)256 << 10)

typedef struct {
    uint8_t *data;
    size_t start, end, cap;
} buffer;

struct h2g {
    int fd;
    nghttp2_session *session;
    int32_t stream_id;
    buffer out;   /* framed request messages not yet taken by nghttp2 */
    buffer wire;  /* serialized frames not yet written to the socket */
    buffer in;    /* response bytes not yet a whole message */
    uint8_t *read_buffer;
    int deferred, eof_requested, done, failed, http_status, grpc_status;
    char grpc_message[256];
    h2g_message_fn on_message;
    void *context;
};

/* Makes room for `more` bytes at the end; -1 beyond `limit`. */
static int buffer_reserve(buffer *b, size_t more, size_t limit) {
    if (b->cap - b->end >= more) return 0;
    if (b->start > 0) {
        memmove(b->data, b->data + b->start, b->end - b->start);
        b->end -= b->start;
        b->start = 0;
        if (b->cap - b->end >= more) return 0;
    }
    if (b->end + more > limit) return -1;
    size_t cap = b->cap ? b->cap : 64 << 10;
    while (cap - b->end < more) cap *= 2;
    uint8_t *data = realloc(b->data, cap);
    if (!data) return -1;
    b->data = data;
    b->cap = cap;
    return 0;
}

static size_t buffer_length(const buffer *b) { return b->end - b->start; }

/* --- nghttp2 callbacks ------------------------------------------------------------------------------ */

static ssize_t read_request(nghttp2_session *session, int32_t stream_id, uint8_t *buf, size_t length,
                            uint32_t *flags, nghttp2_data_source *source, void *user_data) {
    (void)session, (void)stream_id, (void)source;
    h2g *c = user_data;
    size_t available = buffer_length(&c->out);
    if (available == 0) {
        if (c->eof_requested) {
            *flags |= NGHTTP2_DATA_FLAG_EOF;
            return 0;
        }
        c->deferred = 1;
        return NGHTTP2_ERR_DEFERRED;
    }
    size_t n = available < length ? available : length;
    memcpy(buf, c->out.data + c->out.start, n);
    c->out.start += n;
    if (buffer_length(&c->out) == 0) c->out.start = c->out.end = 0;
    if (c->eof_requested && buffer_length(&c->out) == 0) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

static int on_data(nghttp2_session *session, uint8_t flags, int32_t stream_id, const uint8_t *data, size_t len,
                   void *user_data) {
    (void)session, (void)flags;
    h2g *c = user_data;
    if (stream_id != c->stream_id) return 0;
    if (buffer_reserve(&c->in, len, IN_LIMIT + 5) != 0) {
        fprintf(stderr, "h2grpc: response message over %zu bytes\n", IN_LIMIT);
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    }
    memcpy(c->in.data + c->in.end, data, len);
    c->in.end += len;
    /* Deliver every whole message; bounded by the bytes buffered. */
    while (buffer_length(&c->in) >= 5) {
        const uint8_t *p = c->in.data + c->in.start;
        size_t length = (size_t)p[1] << 24 | (size_t)p[2] << 16 | (size_t)p[3] << 8 | (size_t)p[4];
        if (p[0] != 0) {
            fprintf(stderr, "h2grpc: compressed response messages are not supported\n");
            return NGHTTP2_ERR_CALLBACK_FAILURE;
        }
        if (length > IN_LIMIT) {
            fprintf(stderr, "h2grpc: response message of %zu bytes is over the limit\n", length);
            return NGHTTP2_ERR_CALLBACK_FAILURE;
        }
        if (buffer_length(&c->in) < 5 + length) break;
        c->on_message(c->context, p + 5, length);
        c->in.start += 5 + length;
    }
    if (buffer_length(&c->in) == 0) c->in.start = c->in.end = 0;
    return 0;
}

static int on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name, size_t namelen,
                     const uint8_t *value, size_t valuelen, uint8_t flags, void *user_data) {
    (void)session, (void)flags;
    h2g *c = user_data;
    if (frame->hd.stream_id != c->stream_id) return 0;
    if (namelen == 7 && memcmp(name, ":status", 7) == 0) {
        c->http_status = atoi((const char *)value);
    } else if (namelen == 11 && memcmp(name, "grpc-status", 11) == 0) {
        c->grpc_status = atoi((const char *)value);
    } else if (namelen == 12 && memcmp(name, "grpc-message", 12) == 0) {
        size_t n = valuelen < sizeof c->grpc_message - 1 ? valuelen : sizeof c->grpc_message - 1;
        memcpy(c->grpc_message, value, n);
        c->grpc_message[n] = '\0';
    }
    return 0;
}

static int on_close(nghttp2_session *session, int32_t stream_id, uint32_t error_code, void *user_data) {
    (void)session;
    h2g *c = user_data;
    if (stream_id != c->stream_id) return 0;
    c->done = 1;
    if (error_code != 0 && c->grpc_status < 0)
        snprintf(c->grpc_message, sizeof c->grpc_message, "stream reset, HTTP/2 error %u", error_code);
    return 0;
}

static int on_frame(nghttp2_session *session, const nghttp2_frame *frame, void *user_data) {
    (void)session;
    h2g *c = user_data;
    if (frame->hd.type == NGHTTP2_GOAWAY && frame->goaway.error_code != 0 && c->grpc_status < 0)
        snprintf(c->grpc_message, sizeof c->grpc_message, "GOAWAY, HTTP/2 error %u", frame->goaway.error_code);
    return 0;
}

/* --- connection ------------------------------------------------------------------------------------- */

static int dial(const char *host, int port) {
    char service[16];
    snprintf(service, sizeof service, "%d", port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *found = NULL;
    int rc = getaddrinfo(host, service, &hints, &found);
    if (rc != 0) {
        fprintf(stderr, "h2grpc: %s: %s\n", host, gai_strerror(rc));
        return -1;
    }
    int fd = -1;
    for (struct addrinfo *a = found; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(found);
    if (fd < 0) {
        fprintf(stderr, "h2grpc: cannot connect to %s:%d: %s\n", host, port, strerror(errno));
        return -1;
    }
    int one = 1, flags = fcntl(fd, F_GETFL);
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0 || flags < 0 ||
        fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) {
        fprintf(stderr, "h2grpc: socket options: %s\n", strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

#define HEADER(n, v) {(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, strlen(v), NGHTTP2_NV_FLAG_NONE}

h2g *h2g_open(const char *host, int port, const char *path, const char *token, h2g_message_fn on_message,
              void *context) {
    h2g *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->grpc_status = -1;
    c->on_message = on_message;
    c->context = context;
    c->read_buffer = malloc(READ_SIZE);
    c->fd = c->read_buffer ? dial(host, port) : -1;
    if (c->fd < 0) {
        h2g_close(c);
        return NULL;
    }
    nghttp2_session_callbacks *callbacks = NULL;
    if (nghttp2_session_callbacks_new(&callbacks) != 0) {
        h2g_close(c);
        return NULL;
    }
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, on_data);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_close);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, on_frame);
    int rc = nghttp2_session_client_new(&c->session, callbacks, c);
    nghttp2_session_callbacks_del(callbacks);
    if (rc != 0) {
        fprintf(stderr, "h2grpc: session: %s\n", nghttp2_strerror(rc));
        c->session = NULL;
        h2g_close(c);
        return NULL;
    }
    /* Large windows: a watcher must never slow the hub by flow control. */
    nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
                                         {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 16 << 20}};
    char authority[300], authorization[600];
    snprintf(authority, sizeof authority, "%s:%d", host, port);
    snprintf(authorization, sizeof authorization, "Bearer %s", token);
    nghttp2_nv headers[] = {HEADER(":method", "POST"), HEADER(":scheme", "http"), HEADER(":path", path),
                            HEADER(":authority", authority), HEADER("content-type", "application/grpc"),
                            HEADER("te", "trailers"), HEADER("authorization", authorization)};
    nghttp2_data_provider provider = {.source = {.ptr = c}, .read_callback = read_request};
    rc = nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, settings, 2);
    if (rc == 0) rc = nghttp2_session_set_local_window_size(c->session, NGHTTP2_FLAG_NONE, 0, 64 << 20);
    if (rc == 0) {
        c->stream_id = nghttp2_submit_request(c->session, NULL, headers, sizeof headers / sizeof *headers,
                                              &provider, NULL);
        if (c->stream_id < 0) rc = c->stream_id;
    }
    if (rc != 0) {
        fprintf(stderr, "h2grpc: request: %s\n", nghttp2_strerror(rc));
        h2g_close(c);
        return NULL;
    }
    return c;
}

uint8_t *h2g_message(h2g *c, size_t length) {
    if (length > 0xFFFFFFFFu || buffer_reserve(&c->out, 5 + length, OUT_LIMIT) != 0) return NULL;
    uint8_t *p = c->out.data + c->out.end;
    p[0] = 0;
    p[1] = (uint8_t)(length >> 24), p[2] = (uint8_t)(length >> 16), p[3] = (uint8_t)(length >> 8);
    p[4] = (uint8_t)length;
    c->out.end += 5 + length;
    return p + 5;
}

void h2g_end_stream(h2g *c) { c->eof_requested = 1; }

/* Serializes what nghttp2 has to send (at most one round) and writes as much as the socket takes. */
static int flush(h2g *c) {
    if (c->deferred && (buffer_length(&c->out) > 0 || c->eof_requested)) {
        c->deferred = 0;
        int rc = nghttp2_session_resume_data(c->session, c->stream_id);
        if (rc != 0 && rc != NGHTTP2_ERR_INVALID_ARGUMENT) return -1; /* invalid: the stream is gone */
    }
    while (buffer_length(&c->wire) < WRITE_ROUND) {
        const uint8_t *data = NULL;
        ssize_t n = nghttp2_session_mem_send(c->session, &data);
        if (n < 0) {
            fprintf(stderr, "h2grpc: send: %s\n", nghttp2_strerror((int)n));
            return -1;
        }
        if (n == 0) break;
        if (buffer_reserve(&c->wire, (size_t)n, OUT_LIMIT) != 0) return -1;
        memcpy(c->wire.data + c->wire.end, data, (size_t)n);
        c->wire.end += (size_t)n;
    }
    while (buffer_length(&c->wire) > 0) {
        ssize_t n = send(c->fd, c->wire.data + c->wire.start, buffer_length(&c->wire), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        if (n < 0) {
            fprintf(stderr, "h2grpc: write: %s\n", strerror(errno));
            return -1;
        }
        c->wire.start += (size_t)n;
    }
    if (buffer_length(&c->wire) == 0) c->wire.start = c->wire.end = 0;
    return 0;
}

static int receive(h2g *c) {
    for (int round = 0; round < 64; round++) { /* bounded: let the caller's schedule run */
        ssize_t n = recv(c->fd, c->read_buffer, READ_SIZE, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
        if (n < 0) {
            fprintf(stderr, "h2grpc: read: %s\n", strerror(errno));
            return -1;
        }
        if (n == 0 && !c->done && !c->grpc_message[0])
            snprintf(c->grpc_message, sizeof c->grpc_message, "connection closed by the peer");
        if (n == 0) return c->done ? 0 : -1;
        ssize_t used = nghttp2_session_mem_recv(c->session, c->read_buffer, (size_t)n);
        if (used < 0) {
            fprintf(stderr, "h2grpc: receive: %s\n", nghttp2_strerror((int)used));
            return -1;
        }
        if ((size_t)n < READ_SIZE) return 0;
    }
    return 0;
}

int h2g_pump(h2g *c, uint64_t deadline) {
    if (c->failed) return -1;
    if (flush(c) != 0) goto failed;
    struct pollfd p = {.fd = c->fd, .events = POLLIN | (buffer_length(&c->wire) ? POLLOUT : 0)};
    struct timespec now, wait = {0, 0};
    if (clock_gettime(CLOCK_MONOTONIC, &now) != 0) goto failed;
    uint64_t now_ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
    if (deadline > now_ns) {
        uint64_t left = deadline - now_ns;
        wait.tv_sec = (time_t)(left / 1000000000u);
        wait.tv_nsec = (long)(left % 1000000000u);
    }
    int ready = ppoll(&p, 1, &wait, NULL);
    if (ready < 0 && errno == EINTR) return 0;
    if (ready < 0) goto failed;
    if (ready > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)) && receive(c) != 0) goto failed;
    if (flush(c) != 0) goto failed;
    if (h2g_done(c) && c->http_status != 200 && c->http_status != 0)
        snprintf(c->grpc_message, sizeof c->grpc_message, "HTTP status %d", c->http_status);
    return 0;
failed:
    c->failed = 1;
    return -1;
}

size_t h2g_queued(const h2g *c) { return buffer_length(&c->out) + buffer_length(&c->wire); }
int h2g_done(const h2g *c) { return c->done; }
int h2g_status(const h2g *c) { return c->grpc_status; }
const char *h2g_status_message(const h2g *c) { return c->grpc_message; }

void h2g_close(h2g *c) {
    if (!c) return;
    if (c->session) nghttp2_session_del(c->session);
    if (c->fd >= 0) close(c->fd);
    free(c->out.data);
    free(c->wire.data);
    free(c->in.data);
    free(c->read_buffer);
    free(c);
}
