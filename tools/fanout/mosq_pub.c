/* mosq_pub: the fan-out benchmark's publisher for mosquitto, in C on libmosquitto.
 *
 *   mosq_pub --port P --publisher J --drivers D --devices N --rate R --seconds S --go FILE
 *            [--host 127.0.0.1] [--max-seconds 900]
 *
 * The same plan and schedule as hearth_pub (common.h): it connects (MQTT 3.1.1, clean session, no Nagle),
 * prints READY on stderr, waits for FILE, then publishes its share open loop at R/D per second, QoS 0, not
 * retained, to home/dev/<g> with a 16-byte payload: seq and due time (CLOCK_MONOTONIC ns), both uint64 in
 * host order (publisher and subscriber share the machine). The messages due in the same millisecond are
 * corked (TCP_CORK) and leave together, the counterpart of hearth_pub's one Report per millisecond. When
 * all are written it prints one JSON line on stdout and stays connected until SIGTERM. */
#define _GNU_SOURCE
#include "common.h"

#include <errno.h>
#include <mosquitto.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define MAX_BATCH 4096

typedef struct {
    int connected, connect_rc;
} client_state;

static void on_connect(struct mosquitto *m, void *context, int rc) {
    (void)m;
    client_state *state = context;
    state->connect_rc = rc;
    state->connected = rc == 0 ? 1 : -1;
}

/* Waits up to `wait_ns` for the socket, then lets libmosquitto read, write and keep alive. */
static void service(struct mosquitto *m, uint64_t wait_ns) {
    int fd = mosquitto_socket(m);
    if (fd < 0) fo_die("mosq_pub: not connected");
    struct pollfd p = {.fd = fd, .events = POLLIN | (mosquitto_want_write(m) ? POLLOUT : 0)};
    struct timespec wait = {(time_t)(wait_ns / 1000000000u), (long)(wait_ns % 1000000000u)};
    int ready = ppoll(&p, 1, &wait, NULL);
    if (ready < 0 && errno != EINTR) fo_die("mosq_pub: poll: %s", strerror(errno));
    int rc = MOSQ_ERR_SUCCESS;
    if (ready > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR))) rc = mosquitto_loop_read(m, 1);
    if (rc == MOSQ_ERR_SUCCESS && mosquitto_want_write(m)) rc = mosquitto_loop_write(m, 1);
    if (rc == MOSQ_ERR_SUCCESS) rc = mosquitto_loop_misc(m);
    if (rc != MOSQ_ERR_SUCCESS) fo_die("mosq_pub: connection: %s", mosquitto_strerror(rc));
}

static void cork(int fd, int on) {
    if (setsockopt(fd, IPPROTO_TCP, TCP_CORK, &on, sizeof on) != 0) fo_die("mosq_pub: TCP_CORK: %s", strerror(errno));
}

int main(int argc, char **argv) {
    const char *host = "127.0.0.1", *go = NULL;
    uint64_t port = 0, publisher = 0, drivers = 1, devices = 0, rate = 0, seconds = 0, max_seconds = 900;
    for (int i = 1; i < argc; i += 2) {
        const char *name = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!value) fo_die("%s needs a value", name);
        if (!strcmp(name, "--host")) host = value;
        else if (!strcmp(name, "--go")) go = value;
        else if (!strcmp(name, "--port")) port = fo_parse_u64(name, value);
        else if (!strcmp(name, "--publisher")) publisher = fo_parse_u64(name, value);
        else if (!strcmp(name, "--drivers")) drivers = fo_parse_u64(name, value);
        else if (!strcmp(name, "--devices")) devices = fo_parse_u64(name, value);
        else if (!strcmp(name, "--rate")) rate = fo_parse_u64(name, value);
        else if (!strcmp(name, "--seconds")) seconds = fo_parse_u64(name, value);
        else if (!strcmp(name, "--max-seconds")) max_seconds = fo_parse_u64(name, value);
        else fo_die("unknown option %s", name);
    }
    if (!port || !go || !devices || !rate || !drivers || publisher >= drivers || devices % drivers)
        fo_die("need --port, --go, --rate, and devices a positive multiple of drivers > publisher");
    volatile sig_atomic_t stop = 0;
    if (fo_on_stop(&stop) != 0) fo_die("signal handlers");
    uint64_t hard_end = fo_now() + max_seconds * 1000000000u;

    size_t owned = devices / drivers;
    char **topics = calloc(owned, sizeof *topics);
    if (!topics) fo_die("out of memory");
    for (size_t l = 0; l < owned; l++) {
        char topic[48];
        snprintf(topic, sizeof topic, "home/dev/%llu", (unsigned long long)(l * drivers + publisher));
        if (!(topics[l] = strdup(topic))) fo_die("out of memory");
    }

    if (mosquitto_lib_init() != MOSQ_ERR_SUCCESS) fo_die("mosquitto_lib_init");
    char id[64];
    snprintf(id, sizeof id, "fanout-pub-%llu", (unsigned long long)publisher);
    client_state state = {0};
    struct mosquitto *m = mosquitto_new(id, true, &state);
    if (!m) fo_die("mosquitto_new: %s", strerror(errno));
    mosquitto_connect_callback_set(m, on_connect);
    int rc = mosquitto_int_option(m, MOSQ_OPT_TCP_NODELAY, 1);
    if (rc == MOSQ_ERR_SUCCESS) rc = mosquitto_connect(m, host, (int)port, 60);
    if (rc != MOSQ_ERR_SUCCESS) fo_die("mosq_pub: connect: %s", mosquitto_strerror(rc));
    while (state.connected == 0) {
        if (stop || fo_now() > hard_end) fo_die("mosq_pub: no CONNACK");
        service(m, 100000000u);
    }
    if (state.connected < 0) fo_die("mosq_pub: connection refused (%d)", state.connect_rc);
    fprintf(stderr, "READY %s %zu topics\n", id, owned);
    while (!fo_exists(go)) {
        if (stop || fo_now() > hard_end) fo_die("mosq_pub: stopped before the go signal");
        service(m, 1000000u);
    }

    uint64_t total = rate * seconds, sent = 0;
    double cpu_start = fo_cpu_seconds(), runq_start = fo_runq_seconds();
    fo_schedule schedule;
    fo_schedule_init(&schedule, fo_now(), rate, total, publisher, drivers);
    for (;;) {
        if (stop || fo_now() > hard_end) fo_die("mosq_pub: stopped while sending");
        uint64_t now = fo_now(), first = 0, wake = 0;
        int blocked = mosquitto_want_write(m); /* the socket is full: the broker pushes back */
        size_t count = blocked ? 0 : fo_schedule_take(&schedule, now, MAX_BATCH, &first, &wake);
        if (count > 0) {
            int fd = mosquitto_socket(m);
            cork(fd, 1);
            for (size_t i = 0; i < count; i++) {
                uint64_t k = first + i * drivers, g = k % devices, payload[2] = {k / devices + 1, fo_due(&schedule, k)};
                rc = mosquitto_publish(m, NULL, topics[g / drivers], (int)sizeof payload, payload, 0, false);
                if (rc != MOSQ_ERR_SUCCESS) fo_die("mosq_pub: publish: %s", mosquitto_strerror(rc));
            }
            cork(fd, 0);
            sent += count;
            service(m, 0);
            continue;
        }
        if (wake == UINT64_MAX && !blocked) break;
        service(m, blocked || wake == UINT64_MAX ? 1000000u : wake - (wake > now ? now : wake));
    }
    double elapsed = (fo_now() - schedule.t0) / 1e9;
    fo_schedule_print(&schedule, stdout, "mosquitto", (int)publisher, elapsed, fo_cpu_seconds() - cpu_start,
                      fo_runq_seconds() - runq_start, sent, 0, 0);

    while (!stop && fo_now() < hard_end) service(m, 100000000u);
    rc = mosquitto_disconnect(m);
    if (rc != MOSQ_ERR_SUCCESS && rc != MOSQ_ERR_NO_CONN) fprintf(stderr, "mosq_pub: disconnect: %s\n", mosquitto_strerror(rc));
    mosquitto_destroy(m);
    mosquitto_lib_cleanup();
    for (size_t l = 0; l < owned; l++) free(topics[l]);
    free(topics);
    return 0;
}
