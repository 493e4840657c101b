/* hearth_sub: a lean Hearth watcher for the fan-out benchmark, in C on libnghttp2 and protobuf-c.
 *
 *   hearth_sub --port P --token T --watcher I --devices N --rate R --seconds S [--host 127.0.0.1]
 *              [--max-seconds 900]
 *
 * Calls hearth.v1.HomeService/Watch from revision 0, skips the snapshot up to the `synced` mark (then
 * prints READY on stderr), and for every later change of the probe trait (device "<driver>/d<g>", online)
 * records the delay from the report's due time to the arrival of its WatchResponse and checks the device's
 * seq (common.h). Ends when every device has reached its last seq of the plan, on SIGTERM, or after
 * --max-seconds, and prints one JSON line on stdout. A seq the hub folded into a newer one (a slow watcher
 * coalesced) counts as coalesced; a device whose last seq never came counts as lost. When the hub ends or
 * resets the stream (or the connection), it watches again, as a client is told to: from the last revision it
 * processed, or from 0 if the snapshot was not complete yet; at most MAX_RESUMES times, each counted. */
#define _GNU_SOURCE
#include "common.h"
#include "h2grpc.h"
#include "hearth/v1/watch.pb-c.h"

#include <stdlib.h>
#include <string.h>

#define MAX_RESUMES 20

typedef struct {
    fo_tracker tracker;
    int synced, failed;
    uint64_t responses, revision; /* the resume point of the last response */
    char epoch[128];
} watch_state;

/* The global device index of "<driver>/d<g>", or UINT64_MAX. */
static uint64_t device_index(const char *id) {
    const char *slash = strrchr(id, '/');
    if (!slash || slash[1] != 'd' || slash[2] < '0' || slash[2] > '9') return UINT64_MAX;
    char *end = NULL;
    unsigned long long g = strtoull(slash + 2, &end, 10);
    return *end == '\0' ? (uint64_t)g : UINT64_MAX;
}

static void observe(watch_state *state, const Hearth__V1__TraitChange *change, uint64_t now) {
    const Hearth__V1__TraitState *trait = change->state;
    if (!trait || trait->trait_id != FANOUT_PROBE_TRAIT) return;
    if (trait->connectivity != HEARTH__V1__CONNECTIVITY_STATE__CONNECTIVITY_STATE_ONLINE) {
        state->tracker.foreign++; /* e.g. an earlier phase's drivers going away */
        return;
    }
    uint64_t seq = 0, due = 0;
    int found = 0;
    for (size_t i = 0; i < trait->n_attributes; i++) {
        const Hearth__V1__Attribute *a = trait->attributes[i];
        if (!a->value || a->value->kind_case != HEARTH__V1__VALUE__KIND_UINT_VALUE) continue;
        if (a->id == 0) seq = a->value->uint_value, found |= 1;
        if (a->id == 1) due = a->value->uint_value, found |= 2;
    }
    if (found != 3) {
        state->tracker.foreign++;
        return;
    }
    fo_tracker_observe(&state->tracker, device_index(change->device_id), seq, due, now);
}

static void on_response(void *context, const uint8_t *data, size_t length) {
    uint64_t now = fo_now();
    watch_state *state = context;
    Hearth__V1__WatchResponse *response = hearth__v1__watch_response__unpack(NULL, length, data);
    if (!response) {
        fprintf(stderr, "hearth_sub: undecodable WatchResponse (%zu bytes)\n", length);
        state->failed = 1;
        return;
    }
    state->responses++;
    state->revision = response->revision;
    if (response->epoch && response->epoch[0]) snprintf(state->epoch, sizeof state->epoch, "%s", response->epoch);
    if (response->relist) {
        fprintf(stderr, "hearth_sub: the hub asked for a relist (reason %d)\n", response->relist->reason);
        state->failed = 1;
    } else if (!state->synced) {
        if (response->synced) state->synced = 1; /* the snapshot ends here; its changes are not deliveries */
    } else {
        for (size_t i = 0; i < response->n_changes; i++) {
            const Hearth__V1__Change *change = response->changes[i];
            if (change->kind_case == HEARTH__V1__CHANGE__KIND_TRAIT && change->trait) observe(state, change->trait, now);
        }
    }
    hearth__v1__watch_response__free_unpacked(response, NULL);
}

/* Opens a watch: from 0 the first time, then from the last revision processed (with its epoch). */
static h2g *watch(const char *host, int port, const char *token, watch_state *state) {
    h2g *c = h2g_open(host, port, "/hearth.v1.HomeService/Watch", token, on_response, state);
    if (!c) return NULL;
    Hearth__V1__WatchRequest request = HEARTH__V1__WATCH_REQUEST__INIT;
    if (state->synced) request.from_revision = state->revision, request.epoch = state->epoch;
    size_t length = hearth__v1__watch_request__get_packed_size(&request);
    uint8_t *out = h2g_message(c, length);
    if (!out || hearth__v1__watch_request__pack(&request, out) != length) {
        h2g_close(c);
        return NULL;
    }
    h2g_end_stream(c);
    return c;
}

int main(int argc, char **argv) {
    const char *host = "127.0.0.1", *token = NULL;
    uint64_t port = 0, watcher = 0, devices = 0, rate = 0, seconds = 0, max_seconds = 900;
    for (int i = 1; i < argc; i += 2) {
        const char *name = argv[i], *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (!value) fo_die("%s needs a value", name);
        if (!strcmp(name, "--host")) host = value;
        else if (!strcmp(name, "--token")) token = value;
        else if (!strcmp(name, "--port")) port = fo_parse_u64(name, value);
        else if (!strcmp(name, "--watcher")) watcher = fo_parse_u64(name, value);
        else if (!strcmp(name, "--devices")) devices = fo_parse_u64(name, value);
        else if (!strcmp(name, "--rate")) rate = fo_parse_u64(name, value);
        else if (!strcmp(name, "--seconds")) seconds = fo_parse_u64(name, value);
        else if (!strcmp(name, "--max-seconds")) max_seconds = fo_parse_u64(name, value);
        else fo_die("unknown option %s", name);
    }
    if (!port || !token || !devices || !rate || !seconds) fo_die("--port, --token, --devices, --rate, --seconds are required");
    volatile sig_atomic_t stop = 0;
    if (fo_on_stop(&stop) != 0) fo_die("signal handlers");
    uint64_t hard_end = fo_now() + max_seconds * 1000000000u;

    watch_state state;
    memset(&state, 0, sizeof state);
    if (fo_tracker_init(&state.tracker, devices, rate * seconds) != 0) fo_die("out of memory");
    h2g *c = watch(host, (int)port, token, &state);
    if (!c) fo_die("hearth_sub: cannot open the watch");

    int announced_ready = 0, ok = 1;
    while (!stop && !fo_tracker_done(&state.tracker)) {
        if (fo_now() > hard_end) {
            fprintf(stderr, "hearth_sub %llu: --max-seconds reached\n", (unsigned long long)watcher);
            break;
        }
        if (h2g_pump(c, fo_now() + 100000000u) != 0 || h2g_done(c) || state.failed) {
            fprintf(stderr, "hearth_sub %llu: watch ended at revision %llu: status %d %s\n", (unsigned long long)watcher,
                    (unsigned long long)state.revision, h2g_status(c), h2g_status_message(c));
            h2g_close(c);
            c = NULL;
            if (state.failed || state.tracker.resets >= MAX_RESUMES ||
                !(c = watch(host, (int)port, token, &state))) {
                ok = 0;
                break;
            }
            state.tracker.resets++;
            continue;
        }
        if (state.synced && !announced_ready) {
            fprintf(stderr, "READY watcher %llu\n", (unsigned long long)watcher);
            announced_ready = 1;
        }
    }
    fo_tracker_print(&state.tracker, stdout, "hearth", (int)watcher, 0);
    if (c) h2g_close(c);
    fo_tracker_free(&state.tracker);
    return ok ? 0 : 1;
}
