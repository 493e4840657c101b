/* test-driver: a driver the hub tests (test/hub_test.py) steer through standard input.
 *
 *   test-driver --hub ADDRESS --token TOKEN [--threaded]
 *
 * Devices: "lamp" (OnOffLight: Identify, OnOff) and "counter" (a vendor device carrying the vendor trait
 * CDriverTest.Counter, announced with its schema). By default it embeds the driver in its own poll()
 * loop (hearth_driver_fd + hearth_driver_process); with --threaded, hearth_driver_run() runs on a second
 * thread while the main thread calls the driver from outside (the thread-safety contract).
 *
 * Input lines:  report DEV EP TRAIT ATTR KIND VALUE   (KIND: uint, int, bool, string)
 *               event DEV EP TRAIT EVENT VALUE         (one uint field 0)
 *               offline|online DEV EP TRAIT
 *               flood-until-lost SECONDS               (reports of counter.count in batches while connected,
 *                                                       the loop turning between batches; at most SECONDS)
 *               barrier                                (BARRIER once the loop has flushed what came before)
 *               add-late | remove DEV | stats | stop
 * Output lines: STATE name [why], REQUEST kind device trait id, REJECTED subject code message, ERROR ...,
 *               FLOODING n (after each batch), FLOODED n count lost|timeout|not-connected, BARRIER,
 *               STATS ..., EXIT name (then exit 0 for a stop, 3 refused, 4 replaced, 1 other). */
#define _GNU_SOURCE
#include <hearth/driver.h>

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define COUNTER 0xFFF1FC10u
#define COUNTER_SCHEMA                                                                                              \
    "{\"id\": 4294048784, \"name\": \"Counter\", \"namespace\": \"vendor:CDriverTest\", \"revision\": 1,"            \
    " \"description\": \"A counter for the C driver tests.\", \"enums\": [], \"bitmaps\": [], \"structs\": [],"     \
    " \"attributes\": ["                                                                                            \
    "{\"id\": 0, \"name\": \"count\", \"type\": \"uint64\", \"access\": \"read\", \"nullable\": false,"            \
    " \"isOptional\": false, \"constraints\": {}, \"description\": \"The count.\"},"                               \
    "{\"id\": 1, \"name\": \"label\", \"type\": \"string\", \"access\": \"readWrite\", \"nullable\": false,"       \
    " \"isOptional\": false, \"constraints\": {\"maxLength\": 32}, \"description\": \"A label.\"}],"               \
    " \"commands\": ["                                                                                              \
    "{\"id\": 0, \"name\": \"add\", \"fields\": [{\"id\": 0, \"name\": \"amount\", \"type\": \"uint32\","          \
    " \"nullable\": false, \"isOptional\": false, \"constraints\": {}, \"description\": \"\"}],"                   \
    " \"response\": \"AddResponse\", \"isTimed\": false, \"isOptional\": false, \"description\": \"Adds.\"},"       \
    "{\"id\": 1, \"name\": \"refuse\", \"fields\": [], \"isTimed\": false, \"isOptional\": false,"                 \
    " \"description\": \"Always fails.\"},"                                                                         \
    "{\"id\": 2, \"name\": \"later\", \"fields\": [], \"isTimed\": false, \"isOptional\": false,"                  \
    " \"description\": \"Answered 300 ms later.\"}],"                                                               \
    " \"responses\": [{\"id\": 0, \"name\": \"AddResponse\", \"fields\": [{\"id\": 0, \"name\": \"total\","         \
    " \"type\": \"uint64\", \"nullable\": false, \"isOptional\": false, \"constraints\": {}, \"description\": \"\"}],"\
    " \"description\": \"The new total.\"}],"                                                                       \
    " \"events\": [{\"id\": 0, \"name\": \"ticked\", \"priority\": \"info\", \"isOptional\": false,"                \
    " \"description\": \"\", \"fields\": [{\"id\": 0, \"name\": \"value\", \"type\": \"uint64\", \"nullable\": false,"\
    " \"isOptional\": false, \"constraints\": {}, \"description\": \"\"}]}]}"

typedef struct state {
    uint64_t count;
    bool on;
    uint64_t later_id; /* a request answered on a later tick */
    struct timespec later_at;
    pthread_mutex_t print;
    bool threaded;
    /* The loop's progress, for the input thread: ticks so far, and whether the driver is connected. */
    pthread_mutex_t sync;
    pthread_cond_t changed;
    unsigned long ticks;
    bool connected;
} state;

static state S = {.print = PTHREAD_MUTEX_INITIALIZER, .sync = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER};

static void say(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *format, ...) {
    pthread_mutex_lock(&S.print);
    va_list args;
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    putchar('\n');
    fflush(stdout);
    pthread_mutex_unlock(&S.print);
}

static void check(hearth_code rc, const hearth_error *e, const char *what) {
    if (rc != HEARTH_OK) say("ERROR %s %s %s", what, hearth_code_name(rc), e->message);
}

static void on_state(hearth_driver *d, hearth_state st, const hearth_error *why, const char *epoch, void *user) {
    (void)d, (void)epoch, (void)user;
    static const char *const names[] = {"idle", "connecting", "connected", "waiting", "stopping", "stopped"};
    say("STATE %s %s", names[st], why ? why->message : "");
    pthread_mutex_lock(&S.sync);
    S.connected = st == HEARTH_STATE_CONNECTED;
    pthread_cond_broadcast(&S.changed);
    pthread_mutex_unlock(&S.sync);
}

static bool connected(void) {
    pthread_mutex_lock(&S.sync);
    bool yes = S.connected;
    pthread_mutex_unlock(&S.sync);
    return yes;
}

/* Lets the driver's loop take `turns` turns (threaded: that many ticks, or until the state changes, at most
 * 10 s; embedded: runs them). */
static void let_loop_run(hearth_driver *d, unsigned turns) {
    if (!S.threaded) {
        for (unsigned i = 0; i < turns; i++) hearth_driver_process(d, NULL);
        return;
    }
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    pthread_mutex_lock(&S.sync);
    unsigned long until = S.ticks + turns;
    bool was = S.connected;
    while (S.ticks < until && S.connected == was && pthread_cond_timedwait(&S.changed, &S.sync, &deadline) != ETIMEDOUT) {
    }
    pthread_mutex_unlock(&S.sync);
}

static void on_rejection(hearth_driver *d, const char *subject, uint32_t code, const char *message, void *user) {
    (void)d, (void)user;
    say("REJECTED %s %u %s", subject, code, message);
}

static void on_request(hearth_driver *d, const hearth_request *r, void *user) {
    (void)user;
    hearth_error e;
    say("REQUEST %s %s 0x%x %u", r->kind == HEARTH_REQUEST_COMMAND ? "command" : "write", r->device_id, r->trait_id,
        r->command_id);
    const hearth_value *v = hearth_find_field(r->fields, r->field_count, r->kind == HEARTH_REQUEST_WRITE ? 1 : 0);
    if (r->trait_id == 0x0006 && r->kind == HEARTH_REQUEST_COMMAND && r->command_id <= 2) {
        S.on = r->command_id == 2 ? !S.on : r->command_id == 1;
        hearth_field f = {0, hearth_bool(S.on)};
        check(hearth_driver_report(d, "lamp", 1, 0x0006, &f, 1, &e), &e, "report");
        check(hearth_driver_succeed(d, r->id, NULL, 0, &e), &e, "succeed");
    } else if (r->trait_id == COUNTER && r->kind == HEARTH_REQUEST_COMMAND && r->command_id == 0 && v && v->kind == HEARTH_UINT) {
        S.count += v->as.u;
        hearth_field f = {0, hearth_uint(S.count)};
        check(hearth_driver_report(d, "counter", 1, COUNTER, &f, 1, &e), &e, "report");
        check(hearth_driver_succeed(d, r->id, &f, 1, &e), &e, "succeed");
    } else if (r->trait_id == COUNTER && r->kind == HEARTH_REQUEST_COMMAND && r->command_id == 1) {
        check(hearth_driver_fail(d, r->id, HEARTH_STATUS_FAILED_PRECONDITION, "the counter says no", &e), &e, "fail");
    } else if (r->trait_id == COUNTER && r->kind == HEARTH_REQUEST_COMMAND && r->command_id == 2) {
        S.later_id = r->id;
        clock_gettime(CLOCK_MONOTONIC, &S.later_at);
        S.later_at.tv_nsec += 300000000;
        if (S.later_at.tv_nsec >= 1000000000) S.later_at.tv_sec++, S.later_at.tv_nsec -= 1000000000;
    } else if (r->trait_id == COUNTER && r->kind == HEARTH_REQUEST_WRITE && v && v->kind == HEARTH_STRING) {
        if (!strcmp(v->as.str.data, "bad")) {
            check(hearth_driver_fail(d, r->id, HEARTH_STATUS_INVALID_ARGUMENT, "label refused by the driver", &e), &e, "fail");
            return;
        }
        hearth_field f = {1, *v};
        check(hearth_driver_report(d, "counter", 1, COUNTER, &f, 1, &e), &e, "report");
        check(hearth_driver_succeed(d, r->id, NULL, 0, &e), &e, "succeed");
    } else {
        check(hearth_driver_fail(d, r->id, HEARTH_STATUS_UNIMPLEMENTED, "not in the test driver", &e), &e, "fail");
    }
    /* Answering twice is refused, not sent twice (`later` is answered from the tick). */
    bool deferred = r->trait_id == COUNTER && r->kind == HEARTH_REQUEST_COMMAND && r->command_id == 2;
    if (!deferred && hearth_driver_succeed(d, r->id, NULL, 0, &e) != HEARTH_ENOTFOUND) say("ERROR answered twice");
}

/* The deferred answer of `later`, from the tick. */
static void on_tick(hearth_driver *d, void *user) {
    (void)user;
    pthread_mutex_lock(&S.sync);
    S.ticks++;
    pthread_cond_broadcast(&S.changed);
    pthread_mutex_unlock(&S.sync);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!S.later_id || now.tv_sec < S.later_at.tv_sec || (now.tv_sec == S.later_at.tv_sec && now.tv_nsec < S.later_at.tv_nsec))
        return;
    hearth_error e;
    check(hearth_driver_succeed(d, S.later_id, NULL, 0, &e), &e, "later");
    S.later_id = 0;
}

static void add_devices(hearth_driver *d) {
    hearth_error e;
    hearth_field identify[] = {{0, hearth_uint(0)}, {1, hearth_enum(1)}}, onoff[] = {{0, hearth_bool(false)}};
    hearth_trait_desc lamp_traits[] = {{0x0003, identify, 2, HEARTH_LOCALITY_LOCAL}, {0x0006, onoff, 1, HEARTH_LOCALITY_LOCAL}};
    hearth_endpoint_desc lamp_ep = {1, 0x0100, true, lamp_traits, 2};
    hearth_device_desc lamp = {"lamp", "Test lamp", "Test room", true, &lamp_ep, 1};
    check(hearth_driver_add_device(d, &lamp, &e), &e, "add lamp");
    hearth_field counter_attrs[] = {{0, hearth_uint(0)}, {1, hearth_string("")}};
    hearth_trait_desc counter_trait = {COUNTER, counter_attrs, 2, HEARTH_LOCALITY_REMOTE};
    hearth_endpoint_desc counter_ep = {1, 0xFFF10F7E, true, &counter_trait, 1};
    hearth_device_desc counter = {"counter", "Test counter", "Test room", false, &counter_ep, 1};
    check(hearth_driver_add_device(d, &counter, &e), &e, "add counter");
}

static void command(hearth_driver *d, char *line) {
    char dev[64], kind[16], text[256];
    unsigned ep, trait, id;
    unsigned long long n;
    hearth_error e;
    if (sscanf(line, "report %63s %u %i %u %15s %255s", dev, &ep, (int *)&trait, &id, kind, text) == 6) {
        hearth_value v = !strcmp(kind, "uint") ? hearth_uint(strtoull(text, NULL, 0))
                         : !strcmp(kind, "int") ? hearth_int(strtoll(text, NULL, 0))
                         : !strcmp(kind, "bool") ? hearth_bool(!strcmp(text, "true"))
                                                 : hearth_string(text);
        if (!strcmp(dev, "counter") && trait == COUNTER && id == 0) S.count = v.as.u;
        hearth_field f = {id, v};
        check(hearth_driver_report(d, dev, ep, trait, &f, 1, &e), &e, "report");
    } else if (sscanf(line, "event %63s %u %i %u %llu", dev, &ep, (int *)&trait, &id, &n) == 5) {
        hearth_field f = {0, hearth_uint(n)};
        check(hearth_driver_event(d, dev, ep, trait, id, &f, 1, 0, &e), &e, "event");
    } else if (sscanf(line, "offline %63s %u %i", dev, &ep, (int *)&trait) == 3) {
        check(hearth_driver_set_connectivity(d, dev, ep, trait, HEARTH_CONNECTIVITY_OFFLINE, &e), &e, "offline");
    } else if (sscanf(line, "online %63s %u %i", dev, &ep, (int *)&trait) == 3) {
        check(hearth_driver_set_connectivity(d, dev, ep, trait, HEARTH_CONNECTIVITY_ONLINE, &e), &e, "online");
    } else if (sscanf(line, "flood-until-lost %llu", &n) == 1) {
        /* Batches of reports while connected; between batches the loop turns (a tick), so it sends them and
         * notices the hub's end however fast the batches come. */
        struct timespec start, now;
        clock_gettime(CLOCK_MONOTONIC, &start);
        unsigned long long made = 0;
        const char *why = "not-connected";
        while (connected()) {
            for (int i = 0; i < 10000; i++, made++) {
                hearth_field f = {0, hearth_uint(++S.count)};
                check(hearth_driver_report(d, "counter", 1, COUNTER, &f, 1, &e), &e, "flood");
            }
            say("FLOODING %llu", made);
            why = "lost";
            clock_gettime(CLOCK_MONOTONIC, &now);
            if ((unsigned long long)(now.tv_sec - start.tv_sec) >= n) {
                why = "timeout";
                break;
            }
            let_loop_run(d, 1);
        }
        say("FLOODED %llu %" PRIu64 " %s", made, S.count, why);
    } else if (!strncmp(line, "barrier", 7)) {
        /* Any turn that starts after this call sends what came before it; the second tick from now comes
         * after such a turn has ended. */
        let_loop_run(d, 2);
        say("BARRIER");
    } else if (sscanf(line, "remove %63s", dev) == 1) {
        check(hearth_driver_remove_device(d, dev, &e), &e, "remove");
    } else if (!strncmp(line, "add-late", 8)) {
        hearth_field f[] = {{0, hearth_uint(0)}, {1, hearth_string("late")}};
        hearth_trait_desc t = {COUNTER, f, 2, HEARTH_LOCALITY_REMOTE};
        hearth_endpoint_desc ep1 = {1, 0xFFF10F7E, true, &t, 1};
        hearth_device_desc late = {"late", "Late counter", NULL, false, &ep1, 1};
        check(hearth_driver_add_device(d, &late, &e), &e, "add late");
    } else if (!strncmp(line, "stats", 5)) {
        hearth_stats s;
        hearth_driver_stats(d, &s);
        say("STATS reports=%" PRIu64 " sent=%" PRIu64 " sessions=%" PRIu64 " requests=%" PRIu64 " answers=%" PRIu64
            " events=%" PRIu64 " dropped=%" PRIu64, s.reports, s.trait_reports_sent, s.sessions, s.requests, s.answers,
            s.events_sent, s.events_dropped);
    } else if (!strncmp(line, "stop", 4)) {
        hearth_driver_stop(d);
    } else if (line[0]) {
        say("ERROR unknown input: %s", line);
    }
}

typedef struct outcome {
    hearth_code rc;
    hearth_error error;
} outcome;

static void *run_thread(void *driver) {
    static outcome result;
    result.rc = hearth_driver_run(driver, &result.error);
    return &result;
}

static int finish(hearth_code rc, const hearth_error *e) {
    say("EXIT %s %s", hearth_code_name(rc), rc == HEARTH_OK || rc == HEARTH_ESTOPPED ? "" : e->message);
    return rc == HEARTH_OK || rc == HEARTH_ESTOPPED ? 0 : rc == HEARTH_EREFUSED ? 3 : rc == HEARTH_EREPLACED ? 4 : 1;
}

int main(int argc, char **argv) {
    hearth_config config = {0};
    bool threaded = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threaded")) threaded = S.threaded = true;
        else if (!strcmp(argv[i], "--hub") && i + 1 < argc) config.hub = argv[++i];
        else if (!strcmp(argv[i], "--token") && i + 1 < argc) config.token = argv[++i];
        else return fprintf(stderr, "usage: test-driver --hub ADDRESS --token TOKEN [--threaded]\n"), 2;
    }
    const char *schemas[] = {COUNTER_SCHEMA};
    config.vendor_trait_schemas_json = schemas, config.vendor_trait_schema_count = 1;
    config.on_state = on_state, config.on_request = on_request, config.on_rejection = on_rejection, config.on_tick = on_tick;
    config.tick_ms = 50, config.reconnect_max_ms = 1000, config.stop_grace_ms = 3000, config.log_level = HEARTH_LOG_DEBUG;
    hearth_error e;
    hearth_driver *d = hearth_driver_new(&config, &e);
    if (!d) return say("EXIT %s %s", hearth_code_name(e.code), e.message), 1;
    add_devices(d);
    char line[512];
    hearth_code rc = HEARTH_OK;
    if (threaded) {
        pthread_t thread;
        pthread_create(&thread, NULL, run_thread, d);
        while (fgets(line, sizeof line, stdin)) {
            line[strcspn(line, "\n")] = '\0';
            command(d, line);
        }
        hearth_driver_stop(d);
        void *result;
        pthread_join(thread, &result);
        rc = ((outcome *)result)->rc;
        e = ((outcome *)result)->error;
    } else {
        /* Embedded: one poll() over our input and the driver's fd. */
        size_t used = 0;
        bool input_open = true;
        while ((rc = hearth_driver_process(d, &e)) == HEARTH_OK) {
            struct pollfd p[2] = {{.fd = hearth_driver_fd(d), .events = POLLIN}, {.fd = input_open ? 0 : -1, .events = POLLIN}};
            if (poll(p, 2, -1) < 0) continue;
            if (!(p[1].revents & (POLLIN | POLLHUP))) continue;
            ssize_t n = read(0, line + used, sizeof line - 1 - used);
            if (n <= 0) {
                input_open = false;
                hearth_driver_stop(d);
                continue;
            }
            used += (size_t)n;
            line[used] = '\0';
            char *start = line, *nl;
            while ((nl = strchr(start, '\n'))) {
                *nl = '\0';
                command(d, start);
                start = nl + 1;
            }
            used = strlen(start);
            memmove(line, start, used + 1);
            if (used == sizeof line - 1) used = 0; /* an overlong line: dropped */
        }
    }
    int status = finish(rc, &e);
    hearth_driver_free(d);
    return status;
}
