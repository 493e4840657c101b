/* hearth_renamer: renames devices during a fan-out phase and measures how long the hub takes to answer, in C
 * on libnghttp2: renamer.py's twin without the cost of grpcio in Python per call (0.4–0.6 ms).
 *
 *   hearth_renamer --port P --token T --devices N --drivers D --rate R --seconds S --go FILE [--host 127.0.0.1]
 *
 * run.sh starts it beside Hearth's publishers when FANOUT_RENAMES=R (FANOUT_RENAMER=c, the default). It makes
 * one health check to see the hub answer, prints READY on stderr, waits for FILE to exist (start = then) and
 * runs the open-loop plan for S seconds: RenameDevice n (device "fanout<l mod D>/d<l>" with l = n mod N, as
 * hearth_pub announces them, name "Renamed <n>", the admin token T; the hub commits it durably before it
 * answers) is due at start + n/R, and a grpc.health.v1.Health/Check (an empty request; no disk; it carries
 * the token too, which the hub does not read for health checks) at start + (n + 0.5)/R. Latency = arrival of the call's trailers − its due time. Prints renamer.py's JSON line
 * on stdout: renames and health checks, each with count, errors, p50, p99 and max in ms.
 *
 * One h2g is one call on its own connection. Each call's connection is opened, and its HEADERS sent, as soon
 * as the previous call is answered; the hub holds such a call until its message comes (for at most its
 * first_message_timeout, 30 s: a call prepared longer than PREPARED_MAX_NS ago, as while waiting for FILE,
 * is opened afresh). What is measured is thus request message → answer on an established HTTP/2 connection,
 * not the TCP and HTTP/2 set-up. Calls go one at a time, in order: a call due while the previous one is still
 * in flight (rare: a call takes about 1 ms, and they come every 5 ms at R = 100) leaves when that one is
 * answered, on a connection opened after its due time, and its latency counts from its due time all the
 * same; stderr says how many calls left over 1 ms late. A call fails when its grpc-status is not 0, it has
 * no response message, its connection fails, or it is not answered within 10 s (renamer.py's timeout): it
 * counts in errors, and the first 3 failures of each kind go to stderr. */
#define _GNU_SOURCE
#include "common.h"
#include "h2grpc.h"
#include "hearth/v1/client_service.pb-c.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#define RENAME_PATH "/hearth.v1.HomeService/RenameDevice"
#define HEALTH_PATH "/grpc.health.v1.Health/Check"
#define CALL_TIMEOUT_NS 10000000000ull
#define PREPARED_MAX_NS 20000000000ull
#define LATE_NS 1000000u

typedef struct {
    const char *host, *token, *go;
    int port;
    uint64_t devices, drivers, rate, seconds;
} options;

/* The next call: its connection, opened and its HEADERS sent ahead of its due time. */
typedef struct {
    h2g *c;
    uint64_t opened;
    size_t messages; /* response messages received */
} call;

/* One kind of call's results. */
typedef struct {
    const char *name;
    uint64_t *latency_ns;
    size_t count;
    uint64_t errors;
} results;

static void on_message(void *context, const uint8_t *data, size_t length) {
    (void)data, (void)length;
    ++*(size_t *)context;
}

static void prepare(call *p, const options *o, const char *path) {
    p->messages = 0;
    p->opened = fo_now();
    p->c = h2g_open(o->host, o->port, path, o->token, on_message, &p->messages);
    if (p->c && h2g_pump(p->c, 0) != 0) { /* the preface, SETTINGS and HEADERS leave now */
        h2g_close(p->c);
        p->c = NULL;
    }
}

static void discard(call *p) {
    h2g_close(p->c);
    p->c = NULL;
}

/* Keeps the prepared call alive until `until`, or until FILE `go` exists: answers the hub's frames, opens it
 * again when it grew old, or (not sooner than 100 ms after) when the hub ended it or it could not connect. */
static void hold(call *p, const options *o, const char *path, uint64_t until, const char *go, uint64_t *reopened,
                 volatile sig_atomic_t *stop) {
    for (;;) {
        if (*stop) fo_die("hearth_renamer: stopped");
        uint64_t now = fo_now();
        if (now >= until || (go && fo_exists(go))) return;
        if (p->c && now - p->opened > PREPARED_MAX_NS) discard(p);
        if (!p->c) prepare(p, o, path);
        if (p->c && h2g_pump(p->c, go ? now + 1000000u : until) == 0 && !h2g_done(p->c)) continue;
        if (p->c) {
            if ((*reopened)++ < 3)
                fprintf(stderr, "hearth_renamer: a prepared call ended before its request (status %d %s)\n",
                        h2g_status(p->c), h2g_status_message(p->c));
            discard(p);
        }
        /* Past `until`, the call tries once more when it is sent (and fails if it cannot connect). */
        uint64_t resume = until - now > 100000000u ? now + 100000000u : until;
        struct timespec at = {.tv_sec = (time_t)(resume / 1000000000u), .tv_nsec = (long)(resume % 1000000000u)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
    }
}

static void fail(results *r, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void fail(results *r, const char *format, ...) {
    if (r->errors++ >= 3) return;
    char text[400];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof text, format, args);
    va_end(args);
    fprintf(stderr, "hearth_renamer: %s failed: %s\n", r->name, text);
}

/* Sends the prepared call's request (or fails it), waits for the answer and records it. Returns when the
 * request left (CLOCK_MONOTONIC ns). */
static uint64_t run_call(call *p, const options *o, const char *path, const uint8_t *body, size_t length,
                         uint64_t due, results *r, volatile sig_atomic_t *stop) {
    if (!p->c) prepare(p, o, path);
    uint64_t sent = fo_now();
    if (!p->c) {
        fail(r, "cannot connect");
        return sent;
    }
    uint8_t *out = h2g_message(p->c, length);
    if (!out) fo_die("hearth_renamer: out of memory");
    if (length) memcpy(out, body, length);
    h2g_end_stream(p->c);
    uint64_t deadline = sent + CALL_TIMEOUT_NS;
    int failed = 0;
    while (!h2g_done(p->c)) {
        if (*stop) fo_die("hearth_renamer: stopped");
        if (fo_now() >= deadline) {
            fail(r, "no answer within %llu s", CALL_TIMEOUT_NS / 1000000000ull);
            return sent;
        }
        if (h2g_pump(p->c, deadline) != 0) {
            failed = 1;
            break;
        }
    }
    uint64_t answered = fo_now();
    if (failed)
        fail(r, "connection failed (%s)", h2g_status_message(p->c));
    else if (h2g_status(p->c) != 0)
        fail(r, "grpc-status %d: %s", h2g_status(p->c), h2g_status_message(p->c));
    else if (p->messages != 1)
        fail(r, "%zu response messages", p->messages);
    else
        r->latency_ns[r->count++] = answered > due ? answered - due : 0;
    return sent;
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A latency in ms as Python's json.dumps(round(ms, 3)) writes it: 1.25, 2.0. */
static void print_ms(FILE *out, const char *key, const uint64_t *sorted, size_t count, double p) {
    if (count == 0) {
        fprintf(out, "\"%s\": null", key);
        return;
    }
    size_t index = p < 0 ? count - 1 : (size_t)(p / 100 * (double)count);
    if (index > count - 1) index = count - 1;
    char text[64];
    snprintf(text, sizeof text, "%.3f", sorted[index] / 1e6);
    size_t n = strlen(text);
    while (text[n - 1] == '0' && text[n - 2] != '.') text[--n] = '\0';
    fprintf(out, "\"%s\": %s", key, text);
}

static void print_summary(FILE *out, results *r) {
    qsort(r->latency_ns, r->count, sizeof *r->latency_ns, compare_u64);
    fprintf(out, "{\"count\": %zu, \"errors\": %llu, ", r->count, (unsigned long long)r->errors);
    print_ms(out, "p50_ms", r->latency_ns, r->count, 50);
    fputs(", ", out);
    print_ms(out, "p99_ms", r->latency_ns, r->count, 99);
    fputs(", ", out);
    print_ms(out, "max_ms", r->latency_ns, r->count, -1);
    fputc('}', out);
}

static void parse(int argc, char **argv, options *o) {
    *o = (options){.host = "127.0.0.1"};
    for (int i = 1; i < argc; i++) {
        const char *name = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!value) fo_die("%s needs a value", name);
        i++;
        if (!strcmp(name, "--host")) o->host = value;
        else if (!strcmp(name, "--port")) o->port = (int)fo_parse_u64(name, value);
        else if (!strcmp(name, "--token")) o->token = value;
        else if (!strcmp(name, "--go")) o->go = value;
        else if (!strcmp(name, "--devices")) o->devices = fo_parse_u64(name, value);
        else if (!strcmp(name, "--drivers")) o->drivers = fo_parse_u64(name, value);
        else if (!strcmp(name, "--rate")) o->rate = fo_parse_u64(name, value);
        else if (!strcmp(name, "--seconds")) o->seconds = fo_parse_u64(name, value);
        else fo_die("unknown option %s", name);
    }
    if (!o->port || !o->token || !o->go) fo_die("--port, --token and --go are required");
    if (!o->devices || !o->drivers || !o->rate || !o->seconds)
        fo_die("--devices, --drivers, --rate and --seconds must be positive");
}

int main(int argc, char **argv) {
    options o;
    parse(argc, argv, &o);
    volatile sig_atomic_t stop = 0;
    if (fo_on_stop(&stop) != 0) fo_die("signal handlers");
    /* Wake up at the due time, not up to 50 µs after it (the default timer slack): lateness counts. */
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);

    uint64_t total = o.rate * o.seconds;
    results renames = {.name = "rename", .latency_ns = calloc(total, sizeof(uint64_t))};
    results health = {.name = "health", .latency_ns = calloc(total, sizeof(uint64_t))};
    if (!renames.latency_ns || !health.latency_ns) fo_die("out of memory");

    call next = {0};
    uint64_t reopened = 0, late = 0;
    prepare(&next, &o, HEALTH_PATH);
    uint64_t warm_up_latency;
    results warm_up = {.name = "the first health check", .latency_ns = &warm_up_latency};
    run_call(&next, &o, HEALTH_PATH, NULL, 0, fo_now(), &warm_up, &stop);
    if (warm_up.errors) fo_die("hearth_renamer: the hub did not answer a health check on %s:%d", o.host, o.port);
    discard(&next);
    prepare(&next, &o, RENAME_PATH);
    fprintf(stderr, "READY\n");
    fflush(stderr);

    hold(&next, &o, RENAME_PATH, UINT64_MAX, o.go, &reopened, &stop);
    uint64_t start = fo_now();
    /* Call k: rename k/2 when k is even, health check k/2 when odd, due at start + k/(2R). */
    for (uint64_t k = 0; k < 2 * total; k++) {
        uint64_t n = k / 2, due = start + k * 500000000u / o.rate;
        const char *path = k % 2 ? HEALTH_PATH : RENAME_PATH;
        uint8_t body[128];
        size_t length = 0;
        if (k % 2 == 0) {
            char device[48], name[32];
            uint64_t local = n % o.devices;
            snprintf(device, sizeof device, "fanout%llu/d%llu", (unsigned long long)(local % o.drivers),
                     (unsigned long long)local);
            snprintf(name, sizeof name, "Renamed %llu", (unsigned long long)n);
            Hearth__V1__RenameDeviceRequest request = HEARTH__V1__RENAME_DEVICE_REQUEST__INIT;
            request.device_id = device;
            request.name = name;
            if (hearth__v1__rename_device_request__get_packed_size(&request) > sizeof body)
                fo_die("hearth_renamer: a rename request outgrew its buffer");
            length = hearth__v1__rename_device_request__pack(&request, body);
        }
        hold(&next, &o, path, due, NULL, &reopened, &stop);
        uint64_t sent = run_call(&next, &o, path, body, length, due, k % 2 ? &health : &renames, &stop);
        if (sent > due + LATE_NS) late++;
        discard(&next);
        if (k + 1 < 2 * total) prepare(&next, &o, k % 2 ? RENAME_PATH : HEALTH_PATH);
    }

    fprintf(stdout, "{\"rate\": %llu, \"renames\": ", (unsigned long long)o.rate);
    print_summary(stdout, &renames);
    fputs(", \"health_checks\": ", stdout);
    print_summary(stdout, &health);
    fputs("}\n", stdout);
    fflush(stdout);
    fprintf(stderr, "hearth_renamer: %llu calls left over 1 ms after their due time; %llu prepared calls ended early\n",
            (unsigned long long)late, (unsigned long long)reopened);
    free(renames.latency_ns);
    free(health.latency_ns);
    return 0;
}
