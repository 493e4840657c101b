/* mosq_sub: the fan-out benchmark's subscriber for mosquitto, in C on libmosquitto.
 *
 *   mosq_sub --port P --watcher I --devices N --rate R --seconds S [--host 127.0.0.1] [--max-seconds 900]
 *
 * Connects (clean session, no Nagle), subscribes to home/dev/# at QoS 0 and prints READY on stderr once the
 * broker acknowledged. For every message (topic home/dev/<g>, payload seq and due time as mosq_pub writes
 * them) records the delay from the due time to its arrival and checks the device's seq (common.h). QoS 0
 * gives no newest-value guarantee, so every seq that never arrives counts as lost. Ends when every device
 * has reached its last seq, on SIGTERM, or after --max-seconds, and prints one JSON line on stdout. */
#define _GNU_SOURCE
#include "common.h"

#include <errno.h>
#include <mosquitto.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#define TOPIC_PREFIX "home/dev/"

typedef struct {
    fo_tracker tracker;
    int connected, subscribed, failed;
    uint64_t messages;
} sub_state;

static void on_connect(struct mosquitto *m, void *context, int rc) {
    sub_state *state = context;
    if (rc != 0) {
        fprintf(stderr, "mosq_sub: connection refused (%d)\n", rc);
        state->failed = 1;
        return;
    }
    state->connected = 1;
    rc = mosquitto_subscribe(m, NULL, TOPIC_PREFIX "#", 0);
    if (rc != MOSQ_ERR_SUCCESS) {
        fprintf(stderr, "mosq_sub: subscribe: %s\n", mosquitto_strerror(rc));
        state->failed = 1;
    }
}

static void on_subscribe(struct mosquitto *m, void *context, int mid, int count, const int *granted) {
    (void)m, (void)mid;
    sub_state *state = context;
    if (count < 1 || granted[0] > 2) {
        fprintf(stderr, "mosq_sub: subscription refused\n");
        state->failed = 1;
        return;
    }
    state->subscribed = 1;
}

static void on_message(struct mosquitto *m, void *context, const struct mosquitto_message *message) {
    (void)m;
    uint64_t now = fo_now();
    sub_state *state = context;
    state->messages++;
    const char *topic = message->topic;
    size_t prefix = sizeof TOPIC_PREFIX - 1;
    uint64_t payload[2];
    if (!topic || strncmp(topic, TOPIC_PREFIX, prefix) != 0 || message->payloadlen != (int)sizeof payload) {
        state->tracker.foreign++;
        return;
    }
    char *end = NULL;
    unsigned long long g = strtoull(topic + prefix, &end, 10);
    if (end == topic + prefix || *end != '\0') {
        state->tracker.foreign++;
        return;
    }
    memcpy(payload, message->payload, sizeof payload);
    fo_tracker_observe(&state->tracker, (uint64_t)g, payload[0], payload[1], now);
}

/* Waits up to 100 ms for the socket; reads the packets that are there (libmosquitto reads at most one per
 * call, so it is called again while calls deliver messages: the last call finds nothing), writes what is
 * pending and keeps alive. Returns a libmosquitto error code. */
static int service(struct mosquitto *m, sub_state *state) {
    int fd = mosquitto_socket(m);
    if (fd < 0) return MOSQ_ERR_NO_CONN;
    struct pollfd p = {.fd = fd, .events = POLLIN | (mosquitto_want_write(m) ? POLLOUT : 0)};
    int ready = poll(&p, 1, 100);
    if (ready < 0) return errno == EINTR ? MOSQ_ERR_SUCCESS : MOSQ_ERR_ERRNO;
    int rc = MOSQ_ERR_SUCCESS;
    if (ready > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR))) {
        for (int round = 0; round < 4096 && rc == MOSQ_ERR_SUCCESS; round++) {
            uint64_t before = state->messages;
            rc = mosquitto_loop_read(m, 1);
            if (state->messages == before) break;
        }
    }
    if (rc == MOSQ_ERR_SUCCESS && mosquitto_want_write(m)) rc = mosquitto_loop_write(m, 1);
    if (rc == MOSQ_ERR_SUCCESS) rc = mosquitto_loop_misc(m);
    return rc;
}

int main(int argc, char **argv) {
    const char *host = "127.0.0.1";
    uint64_t port = 0, watcher = 0, devices = 0, rate = 0, seconds = 0, max_seconds = 900;
    for (int i = 1; i < argc; i += 2) {
        const char *name = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!value) fo_die("%s needs a value", name);
        if (!strcmp(name, "--host")) host = value;
        else if (!strcmp(name, "--port")) port = fo_parse_u64(name, value);
        else if (!strcmp(name, "--watcher")) watcher = fo_parse_u64(name, value);
        else if (!strcmp(name, "--devices")) devices = fo_parse_u64(name, value);
        else if (!strcmp(name, "--rate")) rate = fo_parse_u64(name, value);
        else if (!strcmp(name, "--seconds")) seconds = fo_parse_u64(name, value);
        else if (!strcmp(name, "--max-seconds")) max_seconds = fo_parse_u64(name, value);
        else fo_die("unknown option %s", name);
    }
    if (!port || !devices || !rate || !seconds) fo_die("--port, --devices, --rate, --seconds are required");
    volatile sig_atomic_t stop = 0;
    if (fo_on_stop(&stop) != 0) fo_die("signal handlers");
    uint64_t hard_end = fo_now() + max_seconds * 1000000000u;

    sub_state state;
    memset(&state, 0, sizeof state);
    if (fo_tracker_init(&state.tracker, devices, rate * seconds) != 0) fo_die("out of memory");
    if (mosquitto_lib_init() != MOSQ_ERR_SUCCESS) fo_die("mosquitto_lib_init");
    char id[64];
    snprintf(id, sizeof id, "fanout-sub-%llu", (unsigned long long)watcher);
    struct mosquitto *m = mosquitto_new(id, true, &state);
    if (!m) fo_die("mosquitto_new: %s", strerror(errno));
    mosquitto_connect_callback_set(m, on_connect);
    mosquitto_subscribe_callback_set(m, on_subscribe);
    mosquitto_message_callback_set(m, on_message);
    int rc = mosquitto_int_option(m, MOSQ_OPT_TCP_NODELAY, 1);
    if (rc == MOSQ_ERR_SUCCESS) rc = mosquitto_connect(m, host, (int)port, 60);
    if (rc != MOSQ_ERR_SUCCESS) fo_die("mosq_sub: connect: %s", mosquitto_strerror(rc));

    int announced_ready = 0, ok = 1;
    while (!stop && !fo_tracker_done(&state.tracker)) {
        if (fo_now() > hard_end) {
            fprintf(stderr, "mosq_sub %llu: --max-seconds reached\n", (unsigned long long)watcher);
            break;
        }
        rc = service(m, &state);
        if (rc != MOSQ_ERR_SUCCESS || state.failed) {
            fprintf(stderr, "mosq_sub %llu: connection: %s\n", (unsigned long long)watcher, mosquitto_strerror(rc));
            ok = 0;
            break;
        }
        if (state.subscribed && !announced_ready) {
            fprintf(stderr, "READY watcher %llu\n", (unsigned long long)watcher);
            announced_ready = 1;
        }
    }
    fo_tracker_print(&state.tracker, stdout, "mosquitto", (int)watcher, 1);
    rc = mosquitto_disconnect(m);
    if (rc != MOSQ_ERR_SUCCESS && rc != MOSQ_ERR_NO_CONN) fprintf(stderr, "mosq_sub: disconnect: %s\n", mosquitto_strerror(rc));
    mosquitto_destroy(m);
    mosquitto_lib_cleanup();
    fo_tracker_free(&state.tracker);
    return ok ? 0 : 1;
}
