/* The driver's life, one process() step at a time.
 *
 *   IDLE --process()--> CONNECTING --Welcome--> CONNECTED
 *                          |    ^                  |
 *        failed, no Welcome|    |backoff ran out   | lost (EOF, reset, GOAWAY, no PING ack, status != final)
 *                          v    |                  v
 *                         WAITING <----------------+
 *
 *   stop() from any state -> STOPPING (CONNECTED: send what waits, half-close, wait for the hub's trailers
 *   or stop_grace_ms) -> STOPPED. A final status from the hub (UNAUTHENTICATED, PERMISSION_DENIED: the
 *   token is refused; ABORTED: another process of the driver took over) -> STOPPED with that error: trying
 *   again would only fail again, or fight the newer process for the session.
 *
 * Every timer lives in one timerfd of the driver's epoll set, re-armed only when the earliest deadline
 * moves, so an embedding loop needs no timeout and a busy driver pays no syscall per step for timers. */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#define MS 1000000u

static void set_state(hearth_driver *d, hearth_state state, const hearth_error *why) {
    if (d->state == state && !why) return;
    d->state = state;
    if (d->config.on_state)
        d->config.on_state(d, state, why, state == HEARTH_STATE_CONNECTED ? d->epoch : NULL, d->config.user);
}

static double next_random(hearth_driver *d) { /* xorshift64: jitter only */
    uint64_t x = d->random;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    d->random = x;
    return (double)(x >> 11) / (double)(1ull << 53);
}

/* Jittered exponential backoff, as HearthDriverKit's: the ceiling doubles per failed attempt up to the
 * maximum, and the wait is drawn from its upper half, so drivers that lost the hub together spread out. */
static uint64_t backoff(hearth_driver *d) {
    uint64_t ceiling = (uint64_t)d->config.reconnect_initial_ms * MS, max = (uint64_t)d->config.reconnect_max_ms * MS;
    for (unsigned i = 0; i < d->attempt && ceiling < max; i++) ceiling *= 2;
    if (ceiling > max) ceiling = max;
    return ceiling - (uint64_t)((double)ceiling * 0.5 * next_random(d));
}

/* Drops the connection and everything that belonged to its session; events it had not written wait again. */
static void drop(hearth_driver *d) {
    hd_conn_close(d->conn);
    d->conn = NULL;
    hd_requests_clear(d);
    hd_blobs_free(&d->results);
    hd_output_lost(d);
}

static void finish(hearth_driver *d, hearth_code code, const char *message) {
    drop(d);
    d->finished = true;
    hd_fail(&d->final, code, "%s", message);
    hd_log(d, code == HEARTH_ESTOPPED ? HEARTH_LOG_INFO : HEARTH_LOG_ERROR, "stopped: %s", message);
    set_state(d, HEARTH_STATE_STOPPED, code == HEARTH_ESTOPPED ? NULL : &d->final);
}

static void lose(hearth_driver *d, uint64_t now, const char *message) {
    drop(d);
    if (d->stopping) return finish(d, HEARTH_ESTOPPED, "stopped");
    uint64_t wait = backoff(d);
    d->attempt++;
    d->next_connect = now + wait;
    hearth_error why;
    hd_fail(&why, HEARTH_EIO, "%s", message);
    hd_log(d, HEARTH_LOG_WARNING, "connection lost: %s; next attempt in %llu ms (attempt %u)", message,
           (unsigned long long)(wait / MS), d->attempt + 1);
    set_state(d, HEARTH_STATE_WAITING, &why);
}

static void connect_now(hearth_driver *d, uint64_t now) {
    d->stats.connects++;
    set_state(d, HEARTH_STATE_CONNECTING, NULL);
    hearth_error error;
    d->conn = hd_conn_open(d, &error);
    if (!d->conn) return lose(d, now, error.message);
    d->conn->keepalive_check = now + (uint64_t)d->config.keepalive_ms * MS;
}

void hd_session_welcomed(hearth_driver *d, const char *epoch, char *const *known, size_t known_count) {
    d->conn->welcomed = true;
    d->attempt = 0;
    d->schemas_sent = false;
    d->stats.sessions++;
    snprintf(d->epoch, sizeof d->epoch, "%s", epoch ? epoch : "");
    hd_model_begin_session(&d->model);
    hd_removals_welcome(&d->removals, known, known_count);
    hd_log(d, HEARTH_LOG_INFO, "connected to the hub (epoch %s): announcing %zu devices (%zu known to the hub), removing %zu",
           d->epoch, d->model.count, known_count, d->removals.pending.count);
    set_state(d, HEARTH_STATE_CONNECTED, NULL);
}

/* The call ended or the connection failed: final, stopped, or lost. */
static void end_session(hearth_driver *d, uint64_t now) {
    hd_conn *c = d->conn;
    char why[400];
    if (c->status == HD_CONN_ENDED && c->grpc_status >= 0)
        snprintf(why, sizeof why, "the hub ended the call: status %d%s%s", c->grpc_status, c->message[0] ? ": " : "", c->message);
    else if (c->status == HD_CONN_ENDED && c->http_status >= 0 && c->http_status != 200)
        snprintf(why, sizeof why, "the hub answered HTTP %d", c->http_status);
    else
        snprintf(why, sizeof why, "%s", c->message[0] ? c->message : "the connection ended");
    if (c->status == HD_CONN_ENDED && (c->grpc_status == 16 || c->grpc_status == 7))
        return finish(d, HEARTH_EREFUSED, why);
    if (c->status == HD_CONN_ENDED && c->grpc_status == 10) return finish(d, HEARTH_EREPLACED, why);
    if (d->stopping) return finish(d, HEARTH_ESTOPPED, "stopped");
    lose(d, now, why);
}

static void begin_stop(hearth_driver *d, uint64_t now) {
    d->stopping = true;
    d->stop_deadline = now + (uint64_t)d->config.stop_grace_ms * MS;
    set_state(d, HEARTH_STATE_STOPPING, NULL);
    /* Only a welcomed session has anything to hand over; otherwise close at once. */
    if (d->conn && !d->conn->welcomed) drop(d);
}

static void timers(hearth_driver *d, uint64_t now) {
    hd_conn *c = d->conn;
    if (c && c->status == HD_CONN_OPEN) {
        if (!c->welcomed && now >= c->welcome_deadline) {
            hd_conn_failed(c, "no Welcome from the hub within %u ms", d->config.welcome_timeout_ms);
        } else if (c->welcomed && c->ping_outstanding && now >= c->ping_deadline) {
            hd_conn_failed(c, "no PING ack from the hub within %u ms", d->config.keepalive_timeout_ms);
        } else if (c->welcomed && !c->ping_outstanding && now >= c->keepalive_check) {
            /* The check time moves only when reached, so traffic does not re-arm the timer. */
            if (now - c->last_inbound >= (uint64_t)d->config.keepalive_ms * MS) {
                hd_conn_ping(c);
                c->ping_deadline = now + (uint64_t)d->config.keepalive_timeout_ms * MS;
            }
            c->keepalive_check = (c->ping_outstanding ? now : c->last_inbound) + (uint64_t)d->config.keepalive_ms * MS;
        }
        if (d->stopping && now >= d->stop_deadline) hd_conn_failed(c, "stop_grace_ms ran out");
    }
    if (!c && !d->stopping && d->state == HEARTH_STATE_WAITING && now >= d->next_connect) connect_now(d, now);
    if (d->config.on_tick && now >= d->next_tick) {
        /* No bursts after a stall: the next tick is a period from now if we fell behind. */
        d->next_tick = d->next_tick + (uint64_t)d->config.tick_ms * MS > now ? d->next_tick + (uint64_t)d->config.tick_ms * MS
                                                                              : now + (uint64_t)d->config.tick_ms * MS;
        d->config.on_tick(d, d->config.user);
    }
    if (now >= d->next_sweep) {
        hd_requests_expire(d, now);
        d->next_sweep = now + 1000 * MS;
    }
}

static uint64_t earliest(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Arms the timerfd for the earliest deadline (when it moved) and the socket's interest in writing. */
static void arm(hearth_driver *d) {
    uint64_t next = UINT64_MAX;
    hd_conn *c = d->conn;
    if (c && c->status == HD_CONN_OPEN) {
        if (!c->welcomed) next = c->welcome_deadline;
        else next = c->ping_outstanding ? c->ping_deadline : c->keepalive_check;
    }
    if (d->stopping) next = earliest(next, d->stop_deadline);
    if (!c && !d->stopping && d->state == HEARTH_STATE_WAITING) next = earliest(next, d->next_connect);
    if (d->config.on_tick) next = earliest(next, d->next_tick);
    if (d->pending_count) next = earliest(next, d->next_sweep);
    if (next != d->armed) {
        struct itimerspec when = {{0, 0}, {0, 0}};
        if (next != UINT64_MAX) {
            when.it_value.tv_sec = (time_t)(next / 1000000000u);
            when.it_value.tv_nsec = (long)(next % 1000000000u);
            if (next == 0) when.it_value.tv_nsec = 1;
        }
        if (timerfd_settime(d->timerfd, TFD_TIMER_ABSTIME, &when, NULL) == 0) d->armed = next;
    }
    if (c && c->fd >= 0) {
        uint32_t interest = EPOLLIN | (hd_conn_wants_write(c) ? EPOLLOUT : 0);
        struct epoll_event ev = {.events = interest, .data.u32 = HD_TAG_SOCKET};
        if (interest != c->interest && epoll_ctl(d->epfd, EPOLL_CTL_MOD, c->fd, &ev) == 0) c->interest = interest;
    }
}

static void read_stdin(hearth_driver *d) {
    char buffer[256];
    ssize_t n = read(STDIN_FILENO, buffer, sizeof buffer);
    if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR))) return; /* the hub never writes; ignore */
    hd_log(d, HEARTH_LOG_INFO, "standard input ended: the hub went away; stopping");
    epoll_ctl(d->epfd, EPOLL_CTL_DEL, STDIN_FILENO, NULL);
    d->stdin_watched = false;
    atomic_store(&d->stop_requested, 1);
}

static hearth_code result(hearth_driver *d, hearth_error *error) {
    if (error) *error = d->final;
    return d->final.code;
}

int hd_wait(hearth_driver *d, struct epoll_event *events, int max) {
    int n = epoll_wait(d->epfd, events, max, -1);
    return n < 0 && errno == EINTR ? 0 : n;
}

hearth_code hd_process(hearth_driver *d, const struct epoll_event *events, int n, hearth_error *error) {
    if (d->in_process) return hd_fail(error, HEARTH_ESTATE, "hearth_driver_process() called from a callback");
    if (d->finished) return result(d, error);
    struct epoll_event polled[8];
    if (!events) { /* hearth_driver_process(): whatever is ready now */
        n = epoll_wait(d->epfd, polled, 8, 0);
        if (n < 0 && errno != EINTR) return hd_fail(error, HEARTH_EIO, "epoll_wait: %s", strerror(errno));
        events = polled;
    }
    d->in_process = true;
    uint64_t now = hd_now();
    if (!d->started) {
        d->started = true;
        d->next_tick = now + (uint64_t)d->config.tick_ms * MS;
        d->next_sweep = now + 1000 * MS;
        d->armed = 0;
        if (!atomic_load(&d->stop_requested)) connect_now(d, now);
    }
    for (int i = 0; i < n; i++) {
        uint64_t count;
        switch (events[i].data.u32) {
        case HD_TAG_SOCKET:
            if (d->conn) hd_conn_ready(d->conn, events[i].events);
            break;
        case HD_TAG_WAKE:
            if (read(d->wakefd, &count, sizeof count) >= 0 || errno == EAGAIN) d->woken = false;
            break;
        case HD_TAG_TIMER:
            if (read(d->timerfd, &count, sizeof count) < 0 && errno != EAGAIN) hd_log(d, HEARTH_LOG_WARNING, "timerfd read failed");
            d->armed = 0; /* fired (or cancelled): arm again below */
            break;
        case HD_TAG_STDIN:
            read_stdin(d);
            break;
        }
    }
    if (atomic_load(&d->stop_requested) && !d->stopping) begin_stop(d, now);
    timers(d, now);
    if (d->conn) hd_conn_flush(d->conn);
    if (d->conn && d->conn->status != HD_CONN_OPEN) end_session(d, now);
    if (d->stopping && !d->conn && !d->finished) finish(d, HEARTH_ESTOPPED, "stopped");
    if (!d->finished) arm(d);
    d->in_process = false;
    return d->finished ? result(d, error) : HEARTH_OK;
}
