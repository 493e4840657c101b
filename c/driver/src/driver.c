/* Public entry points: creation and teardown, and the calls a driver author makes. Each takes the
 * driver's (recursive) lock, checks its arguments, and delegates to the model, the queues or the loop.
 * The configuration is read and checked in config.c. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#define LOCK(d) pthread_mutex_lock(&(d)->lock)
#define UNLOCK(d) pthread_mutex_unlock(&(d)->lock)

static hearth_code open_fds(hearth_driver *d, hearth_error *error) {
    d->epfd = epoll_create1(EPOLL_CLOEXEC);
    d->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    d->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (d->epfd < 0 || d->wakefd < 0 || d->timerfd < 0) return hd_fail(error, HEARTH_EIO, "epoll/eventfd/timerfd: %s", strerror(errno));
    struct epoll_event wake = {.events = EPOLLIN, .data.u32 = HD_TAG_WAKE}, timer = {.events = EPOLLIN, .data.u32 = HD_TAG_TIMER};
    if (epoll_ctl(d->epfd, EPOLL_CTL_ADD, d->wakefd, &wake) != 0 || epoll_ctl(d->epfd, EPOLL_CTL_ADD, d->timerfd, &timer) != 0)
        return hd_fail(error, HEARTH_EIO, "epoll_ctl: %s", strerror(errno));
    if (d->config.watch_stdin == 1) {
        /* Non-blocking while watched; the flags belong to the open file, which other processes may share (a
         * terminal, the hub's pipe), so hearth_driver_free() puts them back. */
        struct epoll_event in = {.events = EPOLLIN, .data.u32 = HD_TAG_STDIN};
        int flags = fcntl(STDIN_FILENO, F_GETFL);
        if (flags >= 0 && fcntl(STDIN_FILENO, F_SETFL, flags | O_NONBLOCK) == 0) d->stdin_flags = flags;
        if (d->stdin_flags >= 0 && epoll_ctl(d->epfd, EPOLL_CTL_ADD, STDIN_FILENO, &in) == 0)
            d->stdin_watched = true;
        else
            hd_log(d, HEARTH_LOG_WARNING, "cannot watch standard input (%s): the driver will not notice the hub dying", strerror(errno));
    }
    return HEARTH_OK;
}

hearth_driver *hearth_driver_new(const hearth_config *config, hearth_error *error) {
    if (!config) {
        hd_fail(error, HEARTH_EINVAL, "no configuration");
        return NULL;
    }
    hearth_driver *d = calloc(1, sizeof *d);
    if (!d) {
        hd_fail(error, HEARTH_ENOMEM, "out of memory");
        return NULL;
    }
    d->epfd = d->wakefd = d->timerfd = d->stdin_flags = -1;
    pthread_mutexattr_t attributes;
    pthread_mutexattr_init(&attributes);
    pthread_mutexattr_settype(&attributes, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&d->lock, &attributes);
    pthread_mutexattr_destroy(&attributes);
    hearth_code rc = hd_config_copy(d, config, error);
    if (rc == HEARTH_OK) rc = open_fds(d, error);
    if (rc == HEARTH_OK &&
        (!(d->pending = calloc(d->config.max_requests, sizeof *d->pending)) ||
         !(d->scratch_reports = calloc(d->config.max_traits_per_report, sizeof *d->scratch_reports)) ||
         !(d->scratch_sizes = calloc(d->config.max_traits_per_report, sizeof *d->scratch_sizes)) ||
         !(d->scratch_offsets = calloc(d->config.max_traits_per_report, sizeof *d->scratch_offsets))))
        rc = hd_fail(error, HEARTH_ENOMEM, "out of memory");
    if (rc != HEARTH_OK) {
        hearth_driver_free(d);
        return NULL;
    }
    d->random = hd_now() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)d;
    if (!d->random) d->random = 1;
    d->state = HEARTH_STATE_IDLE;
    return d;
}

void hearth_driver_free(hearth_driver *d) {
    if (!d) return;
    hd_conn_close(d->conn);
    hd_model_free(&d->model);
    hd_blobs_free(&d->events);
    hd_blobs_free(&d->unwritten);
    hd_blobs_free(&d->results);
    hd_removals_free(&d->removals);
    for (size_t i = 0; i < d->schema_count; i++) free(d->schemas[i]);
    free(d->schemas);
    free(d->pending);
    free(d->scratch_reports);
    free(d->scratch_attributes);
    free(d->scratch_sizes);
    free(d->scratch_offsets);
    free(d->hub), free(d->token), free(d->driver_id), free(d->version);
    free(d->unix_path), free(d->host), free(d->port);
    if (d->epfd >= 0) close(d->epfd);
    if (d->wakefd >= 0) close(d->wakefd);
    if (d->timerfd >= 0) close(d->timerfd);
    if (d->stdin_flags >= 0) fcntl(STDIN_FILENO, F_SETFL, d->stdin_flags);
    pthread_mutex_destroy(&d->lock);
    free(d);
}

bool hd_connected(const hearth_driver *d) { return d->conn && d->conn->welcomed && d->conn->status == HD_CONN_OPEN; }

void hd_wake(hearth_driver *d) {
    /* Inside process() the flush at its end sends it; otherwise one write per batch, not per call. */
    if (d->woken || d->in_process) return;
    uint64_t one = 1;
    if (write(d->wakefd, &one, sizeof one) == sizeof one) d->woken = true;
}

hearth_code hearth_driver_add_device(hearth_driver *d, const hearth_device_desc *device, hearth_error *error) {
    if (!d) return hd_fail(error, HEARTH_EINVAL, "no driver");
    LOCK(d);
    hearth_code rc = hd_model_add(&d->model, device, error);
    if (rc == HEARTH_OK) hd_removals_readded(&d->removals, device->id);
    if (rc == HEARTH_OK && hd_connected(d)) hd_wake(d);
    UNLOCK(d);
    return rc;
}

hearth_code hearth_driver_remove_device(hearth_driver *d, const char *id, hearth_error *error) {
    if (!d || !id) return hd_fail(error, HEARTH_EINVAL, "no driver or device id");
    LOCK(d);
    hd_device *device = hd_model_find(&d->model, id);
    /* Queued even while disconnected: it goes out first thing in the next session (removals.c). */
    hearth_code rc = device ? hd_removals_add(&d->removals, id, error) : hd_fail(error, HEARTH_ENOTFOUND, "no device '%s'", id);
    if (rc == HEARTH_OK) {
        hd_model_remove(&d->model, device);
        if (hd_connected(d)) hd_wake(d);
    }
    UNLOCK(d);
    return rc;
}

static hearth_code find_trait(hearth_driver *d, const char *id, uint32_t endpoint, uint32_t trait_id, hd_trait **out,
                              hearth_error *error) {
    hd_device *device = id ? hd_model_find(&d->model, id) : NULL;
    if (!device) return hd_fail(error, HEARTH_ENOTFOUND, "no device '%s'", id ? id : "(null)");
    if (!(*out = hd_model_trait(device, endpoint, trait_id))) {
        if (endpoint == HEARTH_ANY_ENDPOINT) return hd_fail(error, HEARTH_ENOTFOUND, "device '%s' has no trait 0x%x", id, trait_id);
        return hd_fail(error, HEARTH_ENOTFOUND, "device '%s' has no trait 0x%x on endpoint %u", id, trait_id, endpoint);
    }
    return HEARTH_OK;
}

hearth_code hearth_driver_report(hearth_driver *d, const char *id, uint32_t endpoint, uint32_t trait_id,
                                 const hearth_field *attributes, size_t count, hearth_error *error) {
    if (!d) return hd_fail(error, HEARTH_EINVAL, "no driver");
    LOCK(d);
    hd_trait *t = NULL;
    hearth_code rc = find_trait(d, id, endpoint, trait_id, &t, error);
    if (rc == HEARTH_OK) {
        bool queue = hd_connected(d);
        int changed = hd_model_update(&d->model, t, attributes, count, queue, error);
        if (changed < 0) rc = (hearth_code)-changed;
        if (changed > 0) d->stats.reports++;
        if (changed > 0 && queue) hd_wake(d);
    }
    UNLOCK(d);
    return rc;
}

hearth_code hearth_driver_set_connectivity(hearth_driver *d, const char *id, uint32_t endpoint, uint32_t trait_id,
                                           hearth_connectivity connectivity, hearth_error *error) {
    if (!d) return hd_fail(error, HEARTH_EINVAL, "no driver");
    if (connectivity != HEARTH_CONNECTIVITY_ONLINE && connectivity != HEARTH_CONNECTIVITY_OFFLINE)
        return hd_fail(error, HEARTH_EINVAL, "connectivity must be HEARTH_CONNECTIVITY_ONLINE or _OFFLINE");
    LOCK(d);
    hd_trait *t = NULL;
    hearth_code rc = find_trait(d, id, endpoint, trait_id, &t, error);
    if (rc == HEARTH_OK) {
        hd_model_set_connectivity(&d->model, t, (Hearth__V1__ConnectivityState)connectivity, hd_connected(d));
        if (t->connectivity_dirty) hd_wake(d);
    }
    UNLOCK(d);
    return rc;
}

hearth_code hearth_driver_event(hearth_driver *d, const char *id, uint32_t endpoint, uint32_t trait_id, uint32_t event_id,
                                const hearth_field *fields, size_t count, int64_t timestamp_ms, hearth_error *error) {
    if (!d) return hd_fail(error, HEARTH_EINVAL, "no driver");
    LOCK(d);
    hd_trait *t = NULL;
    Hearth__V1__StructValue *block = NULL;
    hearth_code rc = find_trait(d, id, endpoint, trait_id, &t, error);
    if (rc == HEARTH_OK) rc = hd_struct_build(&block, fields, count, error);
    if (rc == HEARTH_OK) {
        Hearth__V1__Event e = HEARTH__V1__EVENT__INIT;
        e.device_id = t->device->pb.id, e.endpoint = t->endpoint, e.trait_id = trait_id, e.event_id = event_id;
        e.fields = block, e.timestamp_ms = timestamp_ms ? timestamp_ms : hd_unix_ms();
        hd_blob blob;
        uint64_t dropped = d->stats.events_dropped;
        rc = hd_blob_pack(&e.base, &blob, "the event", error);
        if (rc == HEARTH_OK && (rc = hd_blobs_push(&d->events, blob, d->config.max_events, HD_MAX_QUEUED_BYTES, true,
                                                   &d->stats.events_dropped)))
            hd_fail(error, rc, rc == HEARTH_ENOMEM ? "out of memory" : "the event does not fit in the queue");
        if (rc != HEARTH_OK) free(blob.data);
        /* Logged at 1, 2, 4, 8, ... drops: visible without flooding the log. */
        if (d->stats.events_dropped != dropped && !(d->stats.events_dropped & (d->stats.events_dropped - 1)))
            hd_log(d, HEARTH_LOG_WARNING, "%llu events dropped so far: more than max_events (%u) waited to be sent",
                   (unsigned long long)d->stats.events_dropped, d->config.max_events);
        if (rc == HEARTH_OK && hd_connected(d)) hd_wake(d);
    }
    free(block);
    UNLOCK(d);
    return rc;
}

static hearth_code answer(hearth_driver *d, uint64_t id, const hearth_field *fields, size_t count, uint32_t status,
                          const char *message, hearth_error *error) {
    if (!d) return hd_fail(error, HEARTH_EINVAL, "no driver");
    LOCK(d);
    hearth_code rc = HEARTH_OK;
    if (!hd_request_pending(d, id))
        rc = hd_fail(error, HEARTH_ENOTFOUND, "no request %llu in flight (answered, expired, or its connection ended)",
                     (unsigned long long)id);
    if (rc == HEARTH_OK) rc = hd_queue_result(d, id, fields, count, status, message, error);
    if (rc == HEARTH_OK) hd_request_take(d, id);
    UNLOCK(d);
    return rc;
}

hearth_code hearth_driver_succeed(hearth_driver *d, uint64_t id, const hearth_field *fields, size_t count,
                                  hearth_error *error) {
    return answer(d, id, fields, count, 0, NULL, error);
}

hearth_code hearth_driver_fail(hearth_driver *d, uint64_t id, uint32_t status, const char *message, hearth_error *error) {
    if (status == 0 || status > 16) return hd_fail(error, HEARTH_EINVAL, "status %u is not a gRPC error code", status);
    return answer(d, id, NULL, 0, status, message ? message : "", error);
}

int hearth_driver_fd(const hearth_driver *d) { return d ? d->epfd : -1; }

hearth_code hearth_driver_process(hearth_driver *d, hearth_error *error) {
    if (!d) return hd_fail(error, HEARTH_EINVAL, "no driver");
    LOCK(d);
    hearth_code rc = hd_process(d, NULL, 0, error);
    UNLOCK(d);
    return rc;
}

hearth_code hearth_driver_run(hearth_driver *d, hearth_error *error) {
    if (!d) return hd_fail(error, HEARTH_EINVAL, "no driver");
    LOCK(d);
    bool busy = d->running || d->in_process;
    if (!busy) d->running = true; /* a refused call (from a callback) must not leave the driver marked running */
    UNLOCK(d);
    if (busy) return hd_fail(error, HEARTH_ESTATE, "hearth_driver_run() is already running, or called from a callback");
    /* One blocking epoll_wait per turn, without the lock (other threads may call in meanwhile); the turn
     * then handles what it returned. */
    hearth_code rc;
    struct epoll_event events[8];
    int n = 0;
    for (;;) {
        LOCK(d);
        rc = hd_process(d, events, n, error);
        UNLOCK(d);
        if (rc != HEARTH_OK) break;
        if ((n = hd_wait(d, events, 8)) < 0) {
            rc = hd_fail(error, HEARTH_EIO, "epoll_wait: %s", strerror(errno));
            break;
        }
    }
    LOCK(d);
    d->running = false;
    UNLOCK(d);
    if (rc == HEARTH_ESTOPPED) {
        if (error) error->code = HEARTH_OK, error->message[0] = '\0';
        return HEARTH_OK;
    }
    return rc;
}

void hearth_driver_stop(hearth_driver *d) {
    if (!d) return;
    /* Async-signal-safe: an atomic store and a write(2); the loop does the rest. */
    atomic_store(&d->stop_requested, 1);
    uint64_t one = 1;
    ssize_t ignored = write(d->wakefd, &one, sizeof one);
    (void)ignored;
}

hearth_state hearth_driver_state(hearth_driver *d) {
    if (!d) return HEARTH_STATE_STOPPED;
    LOCK(d);
    hearth_state state = d->state;
    UNLOCK(d);
    return state;
}

void hearth_driver_stats(hearth_driver *d, hearth_stats *stats) {
    if (!d || !stats) return;
    LOCK(d);
    *stats = d->stats;
    UNLOCK(d);
}
