/* hearth-driver-sensors: a family of simulated sensors written with libhearth-driver.
 *
 *   hearth-driver-sensors [--hub ADDRESS] [--token TOKEN] [--devices N] [--seed S] [--interval-ms MS]
 *
 * N of each kind (default 2): temperature and humidity sensors that drift (a slow daily swing, a random
 * walk, reports only on a change a real sensor would report), contact sensors that open and close, and
 * occupancy sensors that see motion and stay occupied for their hold time; each change of the last two
 * also sends its event. Every sensor has Identify: `identify` (or a write of identifyTime) counts down
 * once a second; `triggerEffect` identifies for 3 s. OccupancySensing.holdTime is writable within 1..300.
 *
 * The hub and token come from the flags, else HEARTH_HUB and HEARTH_DRIVER_TOKEN (the hub sets both for
 * the plugins it supervises). SIGTERM or SIGINT stops it cleanly; exit 0 then, 1 on a refused token. */
#define _GNU_SOURCE /* M_PI, sigaction */
#include <hearth/driver.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { IDENTIFY = 0x0003, BASIC_INFORMATION = 0x0028, TEMPERATURE = 0x0402, HUMIDITY = 0x0405, BOOLEAN_STATE = 0x0045,
       OCCUPANCY = 0x0406 };
enum { TEMPERATURE_SENSOR, HUMIDITY_SENSOR, CONTACT_SENSOR, OCCUPANCY_SENSOR, KINDS };
static const uint32_t device_types[KINDS] = {0x0302, 0x0307, 0x0015, 0x0107};
static const uint32_t measured[KINDS] = {TEMPERATURE, HUMIDITY, BOOLEAN_STATE, OCCUPANCY};
static const char *const names[KINDS] = {"Temperature sensor", "Humidity sensor", "Contact sensor", "Motion sensor"};
static const char *const ids[KINDS] = {"temperature", "humidity", "contact", "occupancy"};
static const char *const products[KINDS] = {"Sensors TS-1", "Sensors HS-1", "Sensors CS-1", "Sensors PIR-1"};
static const char *const rooms[] = {"Living room", "Kitchen", "Bedroom", "Hallway", "Office"};

typedef struct sensor {
    char id[32];
    int kind;
    double base, value, reported; /* °C or %RH; the last value sent */
    int state;                    /* contact: 1 closed; occupancy: 1 occupied */
    int identify, hold, quiet;    /* seconds: identifying left, hold time, since the last motion */
} sensor;

typedef struct simulation {
    sensor *sensors;
    size_t count;
    uint64_t random;
    double elapsed; /* simulated seconds */
    double interval;
} simulation;

static hearth_driver *running; /* for the signal handler: hearth_driver_stop() is async-signal-safe */

static void on_signal(int signal) {
    (void)signal;
    hearth_driver_stop(running);
}

static double uniform(simulation *s) { /* xorshift64: seeded, so runs repeat */
    s->random ^= s->random << 13, s->random ^= s->random >> 7, s->random ^= s->random << 17;
    return (double)(s->random >> 11) / (double)(1ull << 53);
}

static sensor *find(simulation *s, const char *id) {
    for (size_t i = 0; i < s->count; i++)
        if (!strcmp(s->sensors[i].id, id)) return &s->sensors[i];
    return NULL;
}

static void report(hearth_driver *d, sensor *x, uint32_t trait, uint32_t attribute, hearth_value value) {
    hearth_field field = {attribute, value};
    hearth_error error;
    if (hearth_driver_report(d, x->id, 1, trait, &field, 1, &error) != HEARTH_OK)
        fprintf(stderr, "sensors: report %s: %s\n", x->id, error.message);
}

static void event(hearth_driver *d, sensor *x, uint32_t trait, hearth_value value) {
    hearth_field field = {0, value};
    hearth_error error;
    if (hearth_driver_event(d, x->id, 1, trait, 0, &field, 1, 0, &error) != HEARTH_OK)
        fprintf(stderr, "sensors: event %s: %s\n", x->id, error.message);
}

static void add(hearth_driver *d, sensor *x, size_t index) {
    hearth_field hold_limits[] = {{0, hearth_uint(1)}, {1, hearth_uint(300)}, {2, hearth_uint(30)}};
    hearth_field identify[] = {{0, hearth_uint(0)}, {1, hearth_enum(2)}}; /* visibleIndicator */
    hearth_field temperature[] = {{0, hearth_int(lround(x->value * 100))}, {1, hearth_int(-4000)}, {2, hearth_int(8500)}};
    hearth_field humidity[] = {{0, hearth_uint((uint64_t)lround(x->value * 100))}, {1, hearth_uint(0)}, {2, hearth_uint(10000)}};
    hearth_field contact[] = {{0, hearth_bool(x->state)}};
    hearth_field occupancy[] = {{0, hearth_uint(0)}, {1, hearth_enum(0)}, {2, hearth_uint(1)},
                                {3, hearth_uint((uint64_t)x->hold)}, {4, hearth_struct(hold_limits, 3)}};
    const hearth_field *measures[KINDS] = {temperature, humidity, contact, occupancy};
    const size_t counts[KINDS] = {3, 3, 1, 5};
    /* Who made it, as Matter's BasicInformation says it (a Matter test vendor id: no real vendor's). */
    hearth_field minima[] = {{0, hearth_uint(3)}, {1, hearth_uint(3)}};
    hearth_field information[] = {
        {0x00, hearth_uint(18)}, {0x01, hearth_string("Hearth C Sensors")}, {0x02, hearth_uint(0xFFF4)},
        {0x03, hearth_string(products[x->kind])}, {0x04, hearth_uint(0xC001 + (uint64_t)x->kind)},
        {0x05, hearth_string("")}, {0x06, hearth_string("XX")}, {0x07, hearth_uint(1)}, {0x08, hearth_string("1.0")},
        {0x09, hearth_uint(0x01000000)}, {0x0A, hearth_string("1.0.0")}, {0x0F, hearth_string(x->id)},
        {0x12, hearth_string(x->id)}, {0x13, hearth_struct(minima, 2)}, {0x15, hearth_uint(0x01040000)},
        {0x16, hearth_uint(1)}};
    hearth_trait_desc traits[] = {
        {IDENTIFY, identify, 2, HEARTH_LOCALITY_LOCAL},
        {measured[x->kind], measures[x->kind], counts[x->kind], HEARTH_LOCALITY_LOCAL},
        {BASIC_INFORMATION, information, sizeof information / sizeof *information, HEARTH_LOCALITY_LOCAL}};
    hearth_endpoint_desc endpoint = {1, device_types[x->kind], true, traits, 3};
    char name[64];
    snprintf(name, sizeof name, "%s %zu", names[x->kind], index + 1);
    hearth_device_desc device = {x->id, name, rooms[index % (sizeof rooms / sizeof *rooms)], false, &endpoint, 1};
    hearth_error error;
    if (hearth_driver_add_device(d, &device, &error) != HEARTH_OK) fprintf(stderr, "sensors: %s\n", error.message);
}

/* One step of every sensor. Temperatures follow a daily swing plus a mean-reverting random walk and are
 * reported on a 0.1 °C change; humidity moves against them; contacts and motion flip now and then. */
static void on_tick(hearth_driver *d, void *user) {
    simulation *s = user;
    s->elapsed += s->interval;
    double day = sin(2 * M_PI * s->elapsed / 86400.0);
    for (size_t i = 0; i < s->count; i++) {
        sensor *x = &s->sensors[i];
        if (x->identify > 0 && fmod(s->elapsed, 1.0) < s->interval) report(d, x, IDENTIFY, 0, hearth_uint((uint64_t)--x->identify));
        if (x->kind == TEMPERATURE_SENSOR || x->kind == HUMIDITY_SENSOR) {
            double swing = x->kind == TEMPERATURE_SENSOR ? 1.5 * day : -6 * day, step = x->kind == TEMPERATURE_SENSOR ? 0.05 : 0.3;
            x->value += 0.05 * (x->base + swing - x->value) + step * (uniform(s) * 2 - 1);
            if (x->kind == HUMIDITY_SENSOR) x->value = fmin(fmax(x->value, 0), 100);
            if (fabs(x->value - x->reported) < (x->kind == TEMPERATURE_SENSOR ? 0.1 : 1.0)) continue;
            x->reported = x->value;
            long hundredths = lround(x->value * 100);
            report(d, x, measured[x->kind], 0, x->kind == TEMPERATURE_SENSOR ? hearth_int(hundredths) : hearth_uint((uint64_t)hundredths));
        } else if (x->kind == CONTACT_SENSOR && uniform(s) < 0.01 * s->interval) {
            x->state = !x->state;
            report(d, x, BOOLEAN_STATE, 0, hearth_bool(x->state));
            event(d, x, BOOLEAN_STATE, hearth_bool(x->state));
        } else if (x->kind == OCCUPANCY_SENSOR) {
            x->quiet = uniform(s) < 0.02 * s->interval ? 0 : x->quiet + 1;
            int occupied = x->quiet * s->interval < x->hold;
            if (occupied == x->state) continue;
            x->state = occupied;
            report(d, x, OCCUPANCY, 0, hearth_uint((uint64_t)occupied));
            event(d, x, OCCUPANCY, hearth_uint((uint64_t)occupied));
        }
    }
}

static void identify(hearth_driver *d, sensor *x, uint64_t seconds) {
    x->identify = (int)seconds;
    report(d, x, IDENTIFY, 0, hearth_uint(seconds));
}

static void on_request(hearth_driver *d, const hearth_request *r, void *user) {
    sensor *x = find(user, r->device_id);
    const hearth_value *v = hearth_find_field(r->fields, r->field_count, 0);
    hearth_error error;
    if (!x) {
        hearth_driver_fail(d, r->id, HEARTH_STATUS_NOT_FOUND, "no such sensor", &error);
    } else if (r->kind == HEARTH_REQUEST_COMMAND && r->trait_id == IDENTIFY && r->command_id == 0x00 && v && v->kind == HEARTH_UINT) {
        identify(d, x, v->as.u);
        hearth_driver_succeed(d, r->id, NULL, 0, &error);
    } else if (r->kind == HEARTH_REQUEST_COMMAND && r->trait_id == IDENTIFY && r->command_id == 0x40 && v && v->kind == HEARTH_ENUM) {
        identify(d, x, v->as.e >= 0xFE ? 0 : 3); /* finishEffect, stopEffect: stop */
        hearth_driver_succeed(d, r->id, NULL, 0, &error);
    } else if (r->kind == HEARTH_REQUEST_WRITE && r->trait_id == IDENTIFY && v && v->kind == HEARTH_UINT) {
        identify(d, x, v->as.u);
        hearth_driver_succeed(d, r->id, NULL, 0, &error);
    } else if (r->kind == HEARTH_REQUEST_WRITE && r->trait_id == OCCUPANCY && (v = hearth_find_field(r->fields, r->field_count, 3))) {
        if (v->kind != HEARTH_UINT || v->as.u < 1 || v->as.u > 300) {
            hearth_driver_fail(d, r->id, HEARTH_STATUS_OUT_OF_RANGE, "holdTime must be within holdTimeLimits (1...300 s)", &error);
            return;
        }
        x->hold = (int)v->as.u;
        report(d, x, OCCUPANCY, 3, *v);
        hearth_driver_succeed(d, r->id, NULL, 0, &error);
    } else {
        hearth_driver_fail(d, r->id, HEARTH_STATUS_UNIMPLEMENTED, "the sensors do not do that", &error);
    }
}

static void on_state(hearth_driver *d, hearth_state state, const hearth_error *why, const char *epoch, void *user) {
    (void)d, (void)user;
    if (state == HEARTH_STATE_CONNECTED) fprintf(stderr, "sensors: connected (hub epoch %s)\n", epoch);
    else if (why) fprintf(stderr, "sensors: %s\n", why->message);
}

int main(int argc, char **argv) {
    hearth_config config = {0};
    long devices = 2, interval_ms = 1000;
    uint64_t seed = (uint64_t)time(NULL);
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i], *value = i + 1 < argc ? argv[++i] : NULL;
        if (!value) return fprintf(stderr, "usage: %s [--hub ADDRESS] [--token TOKEN] [--devices N] [--seed S] [--interval-ms MS]\n", argv[0]), 2;
        if (!strcmp(flag, "--hub")) config.hub = value;
        else if (!strcmp(flag, "--token")) config.token = value;
        else if (!strcmp(flag, "--devices")) devices = atol(value);
        else if (!strcmp(flag, "--seed")) seed = strtoull(value, NULL, 10);
        else if (!strcmp(flag, "--interval-ms")) interval_ms = atol(value);
        else return fprintf(stderr, "sensors: unknown option %s\n", flag), 2;
    }
    if (devices < 1 || devices > 10000 || interval_ms < 10) return fprintf(stderr, "sensors: need 1 <= devices <= 10000, interval >= 10 ms\n"), 2;

    simulation sim = {calloc((size_t)devices * KINDS, sizeof(sensor)), (size_t)devices * KINDS, seed * 2654435761u + 1, 0, interval_ms / 1000.0};
    if (!sim.sensors) return fprintf(stderr, "sensors: out of memory\n"), 1;
    hearth_config_from_env(&config);
    config.on_request = on_request, config.on_state = on_state, config.on_tick = on_tick;
    config.tick_ms = (uint32_t)interval_ms, config.user = &sim;
    hearth_error error;
    hearth_driver *d = hearth_driver_new(&config, &error);
    if (!d) return fprintf(stderr, "sensors: %s\n", error.message), 1;
    for (size_t i = 0; i < sim.count; i++) {
        sensor *x = &sim.sensors[i];
        x->kind = (int)(i % KINDS);
        snprintf(x->id, sizeof x->id, "%s-%zu", ids[x->kind], i / KINDS + 1);
        x->base = x->kind == TEMPERATURE_SENSOR ? 19.5 + 3 * uniform(&sim) : 40 + 15 * uniform(&sim);
        x->value = x->reported = x->base;
        x->state = x->kind == CONTACT_SENSOR, x->hold = 30, x->quiet = 1000;
        add(d, x, i / KINDS);
    }

    running = d;
    struct sigaction action = {.sa_handler = on_signal};
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);
    signal(SIGPIPE, SIG_IGN); /* under the hub, stdout and stderr are pipes that close if the hub dies */
    hearth_code rc = hearth_driver_run(d, &error);
    if (rc != HEARTH_OK) fprintf(stderr, "sensors: %s: %s\n", hearth_code_name(rc), error.message);
    hearth_driver_free(d);
    free(sim.sensors);
    return rc == HEARTH_OK ? 0 : 1;
}
