/* hearth_pub: a lean Hearth driver for the fan-out benchmark, in C on libnghttp2 and protobuf-c.
 *
 *   hearth_pub --port P --token T --driver-id ID --publisher J --drivers D --devices N --rate R --seconds S
 *              --go FILE [--host 127.0.0.1] [--max-seconds 900]
 *
 * Opens hearth.v1.DriverService/Connect, says Hello, announces its N/D devices (global index g with
 * g mod D == J, local id "d<g>", one endpoint of a vendor device type carrying the HearthLoad probe trait,
 * whose schema it sends) and waits for every AnnounceResult. Prints READY on stderr, waits for FILE to
 * exist, then sends its share of the plan (common.h) open loop at R/D per second: the reports due in the
 * same millisecond go in one Report message, one DATA frame, one write. When all are written it prints
 * one JSON line on stdout and keeps the stream open until SIGTERM (closing it would mark the devices
 * offline while watchers still count). */
#define _GNU_SOURCE
#include "common.h"
#include "h2grpc.h"
#include "hearth/v1/driver_service.pb-c.h"

#include <stdlib.h>
#include <string.h>

#define MAX_BATCH 4096
#define ANNOUNCE_CHUNK 5000
#define QUEUE_HIGH ((size_t)32 << 20) /* stop generating above this many queued bytes (the hub pushes back) */

static const char probe_schema[] =
    "{\"id\": 4294048894, \"name\": \"LoadProbe\", \"namespace\": \"vendor:HearthLoad\", \"revision\": 1,"
    " \"description\": \"The load test's sequence number and send time of a device's latest report.\","
    " \"enums\": [], \"bitmaps\": [], \"structs\": [], \"commands\": [], \"responses\": [], \"events\": [],"
    " \"attributes\": ["
    "{\"id\": 0, \"name\": \"seq\", \"type\": \"uint64\", \"access\": \"read\", \"nullable\": false,"
    " \"isOptional\": false, \"defaultValue\": {\"uint\": 0}, \"constraints\": {}, \"description\": \"Reports so far.\"},"
    "{\"id\": 1, \"name\": \"sentAt\", \"type\": \"uint64\", \"access\": \"read\", \"nullable\": false,"
    " \"isOptional\": false, \"defaultValue\": {\"uint\": 0}, \"constraints\": {},"
    " \"description\": \"CLOCK_MONOTONIC nanoseconds at which the report was due.\"}]}";

typedef struct {
    const char *host, *token, *driver_id, *go;
    int port;
    uint64_t publisher, drivers, devices, rate, seconds, max_seconds;
} options;

/* What the hub told us. */
typedef struct {
    int welcomed;
    uint64_t results, accepted, rejected;
} hub_state;

/* One probe report, wired once: only the device id and the two values change. */
typedef struct {
    Hearth__V1__TraitReport report;
    Hearth__V1__Attribute attributes[2], *attribute_pointers[2];
    Hearth__V1__Value values[2];
} probe_slot;

static void on_hub_message(void *context, const uint8_t *data, size_t length) {
    hub_state *state = context;
    Hearth__V1__HubMessage *message = hearth__v1__hub_message__unpack(NULL, length, data);
    if (!message) {
        fprintf(stderr, "hearth_pub: undecodable HubMessage (%zu bytes)\n", length);
        state->rejected++;
        return;
    }
    if (message->kind_case == HEARTH__V1__HUB_MESSAGE__KIND_WELCOME) {
        state->welcomed = 1;
    } else if (message->kind_case == HEARTH__V1__HUB_MESSAGE__KIND_ANNOUNCE_RESULT) {
        Hearth__V1__AnnounceResult *result = message->announce_result;
        state->results++;
        state->accepted += result->n_accepted;
        state->rejected += result->n_rejected;
        for (size_t i = 0; i < result->n_rejected && i < 3; i++)
            fprintf(stderr, "hearth_pub: rejected %s: %s\n", result->rejected[i]->subject, result->rejected[i]->message);
    } else if (message->kind_case == HEARTH__V1__HUB_MESSAGE__KIND_REJECTION) {
        if (state->rejected++ < 3)
            fprintf(stderr, "hearth_pub: rejected %s: %s\n", message->rejection->subject, message->rejection->message);
    }
    hearth__v1__hub_message__free_unpacked(message, NULL);
}

/* Queues one DriverMessage. */
static void send_message(h2g *c, const Hearth__V1__DriverMessage *message) {
    size_t length = hearth__v1__driver_message__get_packed_size(message);
    uint8_t *out = h2g_message(c, length);
    if (!out) fo_die("hearth_pub: cannot queue a %zu-byte message", length);
    if (hearth__v1__driver_message__pack(message, out) != length) fo_die("hearth_pub: pack size mismatch");
}

/* Pumps until `condition` holds, the call fails, or `seconds` pass. */
static void pump_until(h2g *c, const int *condition, const uint64_t *counter, uint64_t target, double seconds,
                       const char *what, volatile sig_atomic_t *stop) {
    uint64_t deadline = fo_now() + (uint64_t)(seconds * 1e9);
    while (!(condition && *condition) && !(counter && *counter >= target)) {
        if (*stop || fo_now() > deadline) fo_die("hearth_pub: no %s in %.0f s", what, seconds);
        if (h2g_pump(c, fo_now() + 100000000u) != 0 || h2g_done(c))
            fo_die("hearth_pub: stream ended waiting for %s: status %d %s", what, h2g_status(c), h2g_status_message(c));
    }
}

static void announce(h2g *c, const options *o, char **ids, size_t count, hub_state *state,
                     volatile sig_atomic_t *stop) {
    Hearth__V1__Value zero = HEARTH__V1__VALUE__INIT;
    zero.kind_case = HEARTH__V1__VALUE__KIND_UINT_VALUE;
    Hearth__V1__Attribute seq = HEARTH__V1__ATTRIBUTE__INIT, sent_at = HEARTH__V1__ATTRIBUTE__INIT;
    seq.id = 0, seq.value = &zero, sent_at.id = 1, sent_at.value = &zero;
    Hearth__V1__Attribute *attributes[] = {&seq, &sent_at};
    Hearth__V1__AnnouncedTrait trait = HEARTH__V1__ANNOUNCED_TRAIT__INIT;
    trait.trait_id = FANOUT_PROBE_TRAIT, trait.n_attributes = 2, trait.attributes = attributes;
    Hearth__V1__AnnouncedTrait *traits[] = {&trait};
    Hearth__V1__AnnouncedType type = HEARTH__V1__ANNOUNCED_TYPE__INIT;
    type.endpoint = 1, type.device_type_id = FANOUT_DEVICE_TYPE, type.primary = 1, type.n_traits = 1;
    type.traits = traits;
    Hearth__V1__AnnouncedType *types[] = {&type};
    Hearth__V1__DeviceAnnouncement *devices = calloc(ANNOUNCE_CHUNK, sizeof *devices);
    Hearth__V1__DeviceAnnouncement **pointers = calloc(ANNOUNCE_CHUNK, sizeof *pointers);
    if (!devices || !pointers) fo_die("hearth_pub: out of memory");
    char *schemas[] = {(char *)probe_schema};
    uint64_t chunks = 0;
    for (size_t start = 0; start < count; start += ANNOUNCE_CHUNK, chunks++) {
        size_t n = count - start < ANNOUNCE_CHUNK ? count - start : ANNOUNCE_CHUNK;
        for (size_t i = 0; i < n; i++) {
            Hearth__V1__DeviceAnnouncement init = HEARTH__V1__DEVICE_ANNOUNCEMENT__INIT;
            devices[i] = init;
            devices[i].id = ids[start + i];
            devices[i].n_types = 1, devices[i].types = types;
            pointers[i] = &devices[i];
        }
        Hearth__V1__Announce body = HEARTH__V1__ANNOUNCE__INIT;
        body.n_devices = n, body.devices = pointers;
        if (start == 0) body.n_vendor_trait_schemas_json = 1, body.vendor_trait_schemas_json = schemas;
        Hearth__V1__DriverMessage message = HEARTH__V1__DRIVER_MESSAGE__INIT;
        message.kind_case = HEARTH__V1__DRIVER_MESSAGE__KIND_ANNOUNCE, message.announce = &body;
        send_message(c, &message);
        pump_until(c, NULL, &state->results, chunks + 1, 120, "AnnounceResult", stop);
    }
    free(devices);
    free(pointers);
    if (state->rejected > 0 || state->accepted != count)
        fo_die("hearth_pub: %s: %llu of %zu devices accepted, %llu rejections", o->driver_id,
               (unsigned long long)state->accepted, count, (unsigned long long)state->rejected);
}

static void parse(int argc, char **argv, options *o) {
    *o = (options){.host = "127.0.0.1", .drivers = 1, .devices = 1000, .rate = 1000, .seconds = 10, .max_seconds = 900};
    for (int i = 1; i < argc; i++) {
        const char *name = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!value) fo_die("%s needs a value", name);
        i++;
        if (!strcmp(name, "--host")) o->host = value;
        else if (!strcmp(name, "--port")) o->port = (int)fo_parse_u64(name, value);
        else if (!strcmp(name, "--token")) o->token = value;
        else if (!strcmp(name, "--driver-id")) o->driver_id = value;
        else if (!strcmp(name, "--go")) o->go = value;
        else if (!strcmp(name, "--publisher")) o->publisher = fo_parse_u64(name, value);
        else if (!strcmp(name, "--drivers")) o->drivers = fo_parse_u64(name, value);
        else if (!strcmp(name, "--devices")) o->devices = fo_parse_u64(name, value);
        else if (!strcmp(name, "--rate")) o->rate = fo_parse_u64(name, value);
        else if (!strcmp(name, "--seconds")) o->seconds = fo_parse_u64(name, value);
        else if (!strcmp(name, "--max-seconds")) o->max_seconds = fo_parse_u64(name, value);
        else fo_die("unknown option %s", name);
    }
    if (!o->port || !o->token || !o->driver_id || !o->go) fo_die("--port, --token, --driver-id and --go are required");
    if (!o->drivers || o->publisher >= o->drivers || !o->devices || o->devices % o->drivers || !o->rate)
        fo_die("need 0 <= publisher < drivers, devices a positive multiple of drivers, rate > 0");
}

int main(int argc, char **argv) {
    options o;
    parse(argc, argv, &o);
    volatile sig_atomic_t stop = 0;
    if (fo_on_stop(&stop) != 0) fo_die("signal handlers");
    uint64_t started = fo_now(), hard_end = started + o.max_seconds * 1000000000u;

    size_t owned = o.devices / o.drivers;
    char **ids = calloc(owned, sizeof *ids);
    if (!ids) fo_die("out of memory");
    for (size_t l = 0; l < owned; l++) {
        char id[32];
        snprintf(id, sizeof id, "d%llu", (unsigned long long)(l * o.drivers + o.publisher));
        if (!(ids[l] = strdup(id))) fo_die("out of memory");
    }

    hub_state state = {0};
    h2g *c = h2g_open(o.host, o.port, "/hearth.v1.DriverService/Connect", o.token, on_hub_message, &state);
    if (!c) fo_die("hearth_pub: cannot open the driver stream");
    Hearth__V1__Hello hello = HEARTH__V1__HELLO__INIT;
    hello.driver_id = (char *)o.driver_id, hello.driver_version = "fanout-1";
    Hearth__V1__DriverMessage message = HEARTH__V1__DRIVER_MESSAGE__INIT;
    message.kind_case = HEARTH__V1__DRIVER_MESSAGE__KIND_HELLO, message.hello = &hello;
    send_message(c, &message);
    pump_until(c, &state.welcomed, NULL, 0, 30, "Welcome", &stop);
    announce(c, &o, ids, owned, &state, &stop);
    fprintf(stderr, "READY %s %zu devices\n", o.driver_id, owned);

    while (!fo_exists(o.go)) {
        if (stop || fo_now() > hard_end) fo_die("hearth_pub: stopped before the go signal");
        if (h2g_pump(c, fo_now() + 1000000u) != 0 || h2g_done(c)) fo_die("hearth_pub: stream ended before go");
    }

    probe_slot *slots = calloc(MAX_BATCH, sizeof *slots);
    Hearth__V1__TraitReport **reports = calloc(MAX_BATCH, sizeof *reports);
    if (!slots || !reports) fo_die("out of memory");
    for (size_t i = 0; i < MAX_BATCH; i++) {
        probe_slot *s = &slots[i];
        Hearth__V1__TraitReport report = HEARTH__V1__TRAIT_REPORT__INIT;
        s->report = report;
        s->report.endpoint = 1, s->report.trait_id = FANOUT_PROBE_TRAIT;
        s->report.n_attributes = 2, s->report.attributes = s->attribute_pointers;
        for (int a = 0; a < 2; a++) {
            Hearth__V1__Attribute attribute = HEARTH__V1__ATTRIBUTE__INIT;
            Hearth__V1__Value value = HEARTH__V1__VALUE__INIT;
            s->values[a] = value;
            s->values[a].kind_case = HEARTH__V1__VALUE__KIND_UINT_VALUE;
            s->attributes[a] = attribute;
            s->attributes[a].id = (uint32_t)a, s->attributes[a].value = &s->values[a];
            s->attribute_pointers[a] = &s->attributes[a];
        }
        reports[i] = &s->report;
    }

    uint64_t total = o.rate * o.seconds, sent = 0;
    size_t max_queued = 0;
    double cpu_start = fo_cpu_seconds(), runq_start = fo_runq_seconds();
    fo_schedule schedule;
    fo_schedule_init(&schedule, fo_now(), o.rate, total, o.publisher, o.drivers);
    for (;;) {
        if (stop || fo_now() > hard_end) fo_die("hearth_pub: stopped while sending");
        uint64_t now = fo_now(), first = 0, wake = 0;
        size_t queued = h2g_queued(c);
        if (queued > max_queued) max_queued = queued;
        size_t count = queued > QUEUE_HIGH ? 0 : fo_schedule_take(&schedule, now, MAX_BATCH, &first, &wake);
        if (count > 0) {
            for (size_t i = 0; i < count; i++) {
                uint64_t k = first + i * o.drivers, g = k % o.devices;
                slots[i].report.device_id = ids[g / o.drivers];
                slots[i].values[0].uint_value = k / o.devices + 1;
                slots[i].values[1].uint_value = fo_due(&schedule, k);
            }
            Hearth__V1__Report report = HEARTH__V1__REPORT__INIT;
            report.n_traits = count, report.traits = reports;
            message.kind_case = HEARTH__V1__DRIVER_MESSAGE__KIND_REPORT, message.report = &report;
            send_message(c, &message);
            sent += count;
            wake = 0; /* write it now */
        } else if (queued > QUEUE_HIGH) {
            wake = now + 1000000u;
        } else if (wake == UINT64_MAX) {
            if (queued == 0) break;
            wake = now + 1000000u; /* all taken: drain */
        }
        if (h2g_pump(c, wake) != 0 || h2g_done(c))
            fo_die("hearth_pub: stream ended while sending: status %d %s", h2g_status(c), h2g_status_message(c));
    }
    double seconds = (fo_now() - schedule.t0) / 1e9;
    fo_schedule_print(&schedule, stdout, "hearth", (int)o.publisher, seconds, fo_cpu_seconds() - cpu_start,
                      fo_runq_seconds() - runq_start, sent, state.rejected, max_queued);

    /* Keep the session (and the devices online) until told to stop; answer nothing, just read. */
    while (!stop && fo_now() < hard_end && h2g_pump(c, fo_now() + 100000000u) == 0 && !h2g_done(c)) {
    }
    if (state.rejected > 0) fprintf(stderr, "hearth_pub: %llu rejections\n", (unsigned long long)state.rejected);
    h2g_close(c);
    for (size_t l = 0; l < owned; l++) free(ids[l]);
    free(ids);
    free(slots);
    free(reports);
    return state.rejected > 0 ? 1 : 0;
}
