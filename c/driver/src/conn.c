/* One connection to the hub: a non-blocking socket, an nghttp2 client session and the one call
 * (hearth.v1.DriverService/Connect) on it.
 *
 * Written against the public libnghttp2 1.52 API (Debian bookworm; no *2 variants). The session
 * serializes into memory: flush() gathers frames from nghttp2_session_mem_send into the wire buffer
 * (copied before the next call, never from inside a callback) and writes them with few send(2)s; reads go
 * to nghttp2_session_mem_recv. The request body is pulled from produce.c by the data provider. nghttp2
 * does not bound header lists on the client side, so on_header does (HD_MAX_HEADER_BYTES). */
#include "internal.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/un.h>
#include <unistd.h>

void hd_conn_failed(hd_conn *c, const char *format, ...) {
    if (c->status != HD_CONN_OPEN) return;
    c->status = HD_CONN_FAILED;
    va_list args;
    va_start(args, format);
    vsnprintf(c->message, sizeof c->message, format, args);
    va_end(args);
}

static void ended(hd_conn *c, const char *message) {
    if (c->status != HD_CONN_OPEN) return;
    c->status = HD_CONN_ENDED;
    if (!c->message[0]) snprintf(c->message, sizeof c->message, "%s", message);
}

/* ---- nghttp2 callbacks ------------------------------------------------------------------------------- */

static ssize_t read_request(nghttp2_session *session, int32_t stream_id, uint8_t *buf, size_t length,
                            uint32_t *flags, nghttp2_data_source *source, void *user_data) {
    (void)session, (void)stream_id, (void)source;
    hd_conn *c = user_data;
    hearth_driver *d = c->driver;
    if (hd_buffer_length(&c->out) < length) hd_produce(d, c, length);
    if (c->status == HD_CONN_FAILED) return NGHTTP2_ERR_CALLBACK_FAILURE;
    size_t available = hd_buffer_length(&c->out);
    if (available == 0) {
        if (d->stopping && c->welcomed && !hd_has_output(d)) {
            *flags |= NGHTTP2_DATA_FLAG_EOF; /* half-close: the hub then ends the call */
            c->eof_sent = true;
            return 0;
        }
        c->deferred = true;
        return NGHTTP2_ERR_DEFERRED;
    }
    size_t n = available < length ? available : length;
    memcpy(buf, c->out.data + c->out.start, n);
    c->out.start += n;
    if (hd_buffer_length(&c->out) == 0) c->out.start = c->out.end = 0;
    return (ssize_t)n;
}

static int on_begin_headers(nghttp2_session *session, const nghttp2_frame *frame, void *user_data) {
    (void)session, (void)frame;
    ((hd_conn *)user_data)->header_bytes = 0;
    return 0;
}

static int hex(uint8_t c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* grpc-message is percent-encoded (gRPC over HTTP/2). */
static void percent_decode(char *out, size_t size, const uint8_t *in, size_t length) {
    size_t o = 0;
    for (size_t i = 0; i < length && o + 1 < size; i++) {
        if (in[i] == '%' && i + 2 < length && hex(in[i + 1]) >= 0 && hex(in[i + 2]) >= 0) {
            out[o++] = (char)(hex(in[i + 1]) << 4 | hex(in[i + 2]));
            i += 2;
        } else {
            out[o++] = (char)in[i];
        }
    }
    out[o] = '\0';
}

static int parse_status(const uint8_t *value, size_t length) {
    int v = 0;
    if (length == 0 || length > 4) return 2; /* UNKNOWN */
    for (size_t i = 0; i < length; i++) {
        if (value[i] < '0' || value[i] > '9') return 2;
        v = v * 10 + (value[i] - '0');
    }
    return v;
}

static int on_header(nghttp2_session *session, const nghttp2_frame *frame, const uint8_t *name, size_t namelen,
                     const uint8_t *value, size_t valuelen, uint8_t flags, void *user_data) {
    (void)session, (void)flags;
    hd_conn *c = user_data;
    if (frame->hd.stream_id != c->stream_id) return 0;
    c->header_bytes += namelen + valuelen + 32;
    if (c->header_bytes > HD_MAX_HEADER_BYTES) {
        hd_conn_failed(c, "the hub sent a header list over %d bytes", HD_MAX_HEADER_BYTES);
        return NGHTTP2_ERR_CALLBACK_FAILURE;
    }
    if (namelen == 7 && !memcmp(name, ":status", 7)) c->http_status = parse_status(value, valuelen);
    else if (namelen == 11 && !memcmp(name, "grpc-status", 11)) c->grpc_status = parse_status(value, valuelen);
    else if (namelen == 12 && !memcmp(name, "grpc-message", 12)) percent_decode(c->message, sizeof c->message, value, valuelen);
    return 0;
}

static int on_frame_recv(nghttp2_session *session, const nghttp2_frame *frame, void *user_data) {
    (void)session;
    hd_conn *c = user_data;
    switch (frame->hd.type) {
    case NGHTTP2_HEADERS:
    case NGHTTP2_DATA:
        if (frame->hd.stream_id == c->stream_id && (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
            c->remote_closed = true;
            ended(c, c->grpc_status < 0 ? "the hub ended the call without a status" : "");
        }
        break;
    case NGHTTP2_PING:
        if (frame->hd.flags & NGHTTP2_FLAG_ACK) c->ping_outstanding = false;
        break;
    case NGHTTP2_GOAWAY:
        hd_log(c->driver, HEARTH_LOG_INFO, "the hub is going away (GOAWAY, HTTP/2 error %u)", frame->goaway.error_code);
        if (frame->goaway.last_stream_id < c->stream_id) ended(c, "the hub went away before taking the call");
        break;
    default:
        break;
    }
    return 0;
}

static int on_data(nghttp2_session *session, uint8_t flags, int32_t stream_id, const uint8_t *data, size_t length,
                   void *user_data) {
    (void)session, (void)flags;
    hd_conn *c = user_data;
    if (stream_id != c->stream_id || c->status != HD_CONN_OPEN) return 0;
    return hd_inbound_data(c, data, length) == 0 ? 0 : NGHTTP2_ERR_CALLBACK_FAILURE;
}

/* Never fails: a fatal error here leaks the stream in nghttp2 1.52. */
static int on_stream_close(nghttp2_session *session, int32_t stream_id, uint32_t error_code, void *user_data) {
    (void)session;
    hd_conn *c = user_data;
    if (stream_id != c->stream_id) return 0;
    c->stream_closed = true;
    if (error_code != NGHTTP2_NO_ERROR && c->status == HD_CONN_OPEN) {
        snprintf(c->message, sizeof c->message, "the hub reset the call (HTTP/2 error %u)", error_code);
        c->status = HD_CONN_ENDED;
    }
    ended(c, "the call closed");
    return 0;
}

/* ---- the socket -------------------------------------------------------------------------------------- */

/* Tries the addresses from c->address_index on: 0 when one is connected or connecting. */
static int dial(hd_conn *c) {
    hearth_driver *d = c->driver;
    int last = ECONNREFUSED;
    for (; c->address_index < c->address_count; c->address_index++) {
        hd_address *a = &c->addresses[c->address_index];
        int fd = socket(a->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            last = errno;
            continue;
        }
        int rc = connect(fd, (struct sockaddr *)&a->addr, a->length);
        if (rc != 0 && errno != EINPROGRESS) {
            last = errno;
            close(fd);
            continue;
        }
        struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.u32 = HD_TAG_SOCKET};
        if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
            last = errno;
            close(fd);
            continue;
        }
        c->fd = fd;
        c->interest = ev.events;
        c->tcp_connecting = rc != 0;
        if (a->addr.ss_family != AF_UNIX) {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        }
        return 0;
    }
    snprintf(c->message, sizeof c->message, "cannot connect to %s: %s", d->hub, strerror(last));
    return -1;
}

static void drop_socket(hd_conn *c) {
    if (c->fd < 0) return;
    epoll_ctl(c->driver->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
}

static int resolve(hd_conn *c) {
    hearth_driver *d = c->driver;
    if (d->unix_path) {
        struct sockaddr_un *un = (struct sockaddr_un *)&c->addresses[0].addr;
        un->sun_family = AF_UNIX;
        memcpy(un->sun_path, d->unix_path, strlen(d->unix_path) + 1); /* length checked at creation */
        c->addresses[0].length = sizeof *un;
        c->address_count = 1;
        return 0;
    }
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *found = NULL;
    int rc = getaddrinfo(d->host, d->port, &hints, &found);
    if (rc != 0) {
        snprintf(c->message, sizeof c->message, "cannot resolve %s: %s", d->host, gai_strerror(rc));
        return -1;
    }
    for (struct addrinfo *a = found; a && c->address_count < HD_MAX_ADDRESSES; a = a->ai_next) {
        if (a->ai_addrlen > sizeof c->addresses[0].addr) continue;
        memcpy(&c->addresses[c->address_count].addr, a->ai_addr, a->ai_addrlen);
        c->addresses[c->address_count++].length = a->ai_addrlen;
    }
    freeaddrinfo(found);
    return 0;
}

#define HEADER(n, v) {(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, strlen(v), NGHTTP2_NV_FLAG_NONE}

static int start_call(hd_conn *c) {
    hearth_driver *d = c->driver;
    nghttp2_session_callbacks *callbacks = NULL;
    if (nghttp2_session_callbacks_new(&callbacks) != 0) return -1;
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, on_begin_headers);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, on_frame_recv);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, on_data);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_stream_close);
    int rc = nghttp2_session_client_new(&c->session, callbacks, c);
    nghttp2_session_callbacks_del(callbacks);
    if (rc != 0) {
        c->session = NULL;
        return -1;
    }
    nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
                                         {NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20},
                                         {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, HD_MAX_HEADER_BYTES}};
    size_t authorization_length = strlen(d->token) + 8;
    char *authorization = malloc(authorization_length);
    if (!authorization) return -1;
    snprintf(authorization, authorization_length, "Bearer %s", d->token);
    nghttp2_nv headers[] = {HEADER(":method", "POST"), HEADER(":scheme", "http"),
                            HEADER(":path", "/hearth.v1.DriverService/Connect"), HEADER(":authority", d->authority),
                            HEADER("content-type", "application/grpc"), HEADER("te", "trailers"),
                            HEADER("user-agent", "hearth-driver-c/" HEARTH_DRIVER_VERSION),
                            HEADER("authorization", authorization)};
    nghttp2_data_provider provider = {.source = {.ptr = c}, .read_callback = read_request};
    rc = nghttp2_submit_settings(c->session, NGHTTP2_FLAG_NONE, settings, sizeof settings / sizeof *settings);
    if (rc == 0) rc = nghttp2_session_set_local_window_size(c->session, NGHTTP2_FLAG_NONE, 0, 1 << 20);
    if (rc == 0) {
        c->stream_id = nghttp2_submit_request(c->session, NULL, headers, sizeof headers / sizeof *headers, &provider, NULL);
        if (c->stream_id < 0) rc = c->stream_id;
    }
    free(authorization);
    return rc == 0 ? 0 : -1;
}

hd_conn *hd_conn_open(hearth_driver *d, hearth_error *error) {
    hd_conn *c = calloc(1, sizeof *c);
    if (!c || !(c->read_buffer = malloc(HD_READ_SIZE))) {
        free(c);
        hd_fail(error, HEARTH_ENOMEM, "out of memory opening a connection");
        return NULL;
    }
    c->driver = d, c->fd = -1, c->http_status = c->grpc_status = -1;
    uint64_t now = hd_now();
    c->welcome_deadline = now + (uint64_t)d->config.welcome_timeout_ms * 1000000u;
    c->last_inbound = now;
    if (resolve(c) != 0 || dial(c) != 0) {
        hd_fail(error, HEARTH_EIO, "%s", c->message);
        hd_conn_close(c);
        return NULL;
    }
    if (start_call(c) != 0) {
        hd_fail(error, HEARTH_ENOMEM, "cannot start an HTTP/2 session");
        hd_conn_close(c);
        return NULL;
    }
    return c;
}

void hd_conn_close(hd_conn *c) {
    if (!c) return;
    drop_socket(c);
    if (c->session) nghttp2_session_del(c->session);
    hd_buffer_free(&c->out);
    hd_buffer_free(&c->wire);
    hd_buffer_free(&c->in);
    hd_ring_free(&c->marks);
    free(c->read_buffer);
    free(c);
}

static void receive(hd_conn *c) {
    hearth_driver *d = c->driver;
    for (int round = 0; round < 16 && c->status == HD_CONN_OPEN; round++) { /* bounded: timers must run */
        ssize_t n = recv(c->fd, c->read_buffer, HD_READ_SIZE, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (n < 0 && errno == ECONNREFUSED) return hd_conn_failed(c, "cannot connect to %s: %s", d->hub, strerror(errno));
        if (n < 0) return hd_conn_failed(c, "reading from the hub: %s", strerror(errno));
        if (n == 0) return hd_conn_failed(c, "the hub closed the connection");
        d->stats.bytes_received += (uint64_t)n;
        c->last_inbound = hd_now();
        ssize_t used = nghttp2_session_mem_recv(c->session, c->read_buffer, (size_t)n);
        if (used < 0) return hd_conn_failed(c, "HTTP/2 from the hub: %s", nghttp2_strerror((int)used));
        if ((size_t)n < HD_READ_SIZE) return;
    }
}

void hd_conn_ready(hd_conn *c, uint32_t events) {
    if (c->tcp_connecting) {
        int err = 0;
        socklen_t length = sizeof err;
        if (!(events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) return;
        if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &length) != 0) err = errno;
        if (err == 0) {
            c->tcp_connecting = false;
        } else {
            /* The next address, if any (a name resolving to ::1 and 127.0.0.1, say). */
            drop_socket(c);
            c->address_index++;
            if (dial(c) != 0) {
                char why[sizeof c->message];
                snprintf(why, sizeof why, "%s", c->message);
                c->message[0] = '\0';
                hd_conn_failed(c, "%s", why);
            }
            return;
        }
    }
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) receive(c);
}

/* Where the request body had got when the wire reached `wire` (a count of bytes appended to c->wire). */
typedef struct hd_mark {
    uint64_t wire, body;
} hd_mark;

/* `n` more bytes of frames in c->wire: marks how far the body has gone to nghttp2, if further. nghttp2 pulls
 * body bytes (read_request) only for the DATA frame it returns from the same mem_send call. */
static int appended(hd_conn *c, size_t n) {
    c->wire_appended += n;
    uint64_t body = c->body_framed - hd_buffer_length(&c->out);
    if (body == c->body_marked) return 0;
    hd_mark *m = hd_ring_push(&c->marks, sizeof *m);
    if (!m) return -1;
    *m = (hd_mark){c->wire_appended, body};
    c->body_marked = body;
    return 0;
}

/* `n` more bytes went to the kernel: the body up to the last mark passed is written. */
static void written(hd_conn *c, size_t n) {
    c->wire_sent += n;
    c->driver->stats.bytes_sent += n;
    uint64_t body = 0;
    bool moved = false;
    while (c->marks.count) {
        hd_mark *m = hd_ring_at(&c->marks, 0, sizeof *m);
        if (m->wire > c->wire_sent) break;
        body = m->body, moved = true;
        hd_ring_pop(&c->marks);
    }
    if (moved) hd_output_written(c->driver, body);
}

void hd_conn_flush(hd_conn *c) {
    hearth_driver *d = c->driver;
    if (c->status != HD_CONN_OPEN || c->tcp_connecting) return;
    if (c->deferred && (hd_has_output(d) || (d->stopping && c->welcomed && !c->eof_sent))) {
        c->deferred = false;
        nghttp2_session_resume_data(c->session, c->stream_id); /* fails only if the stream is gone */
    }
    for (int round = 0; round < 16; round++) { /* at most 16 × HD_WRITE_ROUND per call */
        while (hd_buffer_length(&c->wire) < HD_WRITE_ROUND) {
            const uint8_t *data = NULL;
            ssize_t n = nghttp2_session_mem_send(c->session, &data);
            if (n < 0) return hd_conn_failed(c, "HTTP/2: %s", nghttp2_strerror((int)n));
            if (n == 0) break;
            if (hd_buffer_reserve(&c->wire, (size_t)n, SIZE_MAX / 2) != 0 || appended(c, (size_t)n) != 0)
                return hd_conn_failed(c, "out of memory");
            memcpy(c->wire.data + c->wire.end, data, (size_t)n);
            c->wire.end += (size_t)n;
        }
        if (hd_buffer_length(&c->wire) == 0) return;
        while (hd_buffer_length(&c->wire) > 0) {
            ssize_t n = send(c->fd, c->wire.data + c->wire.start, hd_buffer_length(&c->wire), MSG_NOSIGNAL);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
            if (n < 0) return hd_conn_failed(c, "writing to the hub: %s", strerror(errno));
            c->wire.start += (size_t)n;
            written(c, (size_t)n);
        }
        c->wire.start = c->wire.end = 0;
    }
}

bool hd_conn_wants_write(const hd_conn *c) {
    return c->tcp_connecting || hd_buffer_length(&c->wire) > 0 || (c->session && nghttp2_session_want_write(c->session));
}

void hd_conn_ping(hd_conn *c) {
    if (nghttp2_submit_ping(c->session, NGHTTP2_FLAG_NONE, NULL) == 0) c->ping_outstanding = true;
}
