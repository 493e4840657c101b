/* Fuzz target: bytes from the hub, through the inbound path of a welcomed session.
 *
 * The first byte picks the entry: even, the rest is one HubMessage body (decode and dispatch); odd, the
 * rest is raw stream bytes for the gRPC deframer, fed in chunks whose size the second byte sets. The
 * request callback answers by echoing the decoded fields back (decoded values go through the outbound
 * checks and encoder), or fails, or reports, so every path a hub message can reach runs. Afterwards
 * everything the driver encoded must decode as a sequence of framed DriverMessages.
 *
 * Built with libFuzzer (clang -fsanitize=fuzzer) by test/run.sh, or linked with fuzz_random.c for a bounded
 * random-input run without clang. No state survives between inputs. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_request(hearth_driver *d, const hearth_request *r, void *user) {
    (void)user;
    switch (r->id % 4) {
    case 0: hearth_driver_succeed(d, r->id, r->fields, r->field_count, NULL); break;
    case 1: hearth_driver_fail(d, r->id, (uint32_t)(r->id % 17), r->device_id, NULL); break;
    case 2: hearth_driver_report(d, r->device_id, r->endpoint, r->trait_id, r->fields, r->field_count, NULL); break;
    default: break; /* left unanswered: expires, or is dropped with the driver */
    }
}

static void on_rejection(hearth_driver *d, const char *subject, uint32_t code, const char *message, void *user) {
    (void)d, (void)code, (void)user;
    if (strlen(subject) + strlen(message) == (size_t)-1) abort(); /* touch both strings */
}

static void on_log(void *user, hearth_log_level level, const char *message) { (void)user, (void)level, (void)message; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    hearth_config config = {0};
    config.token = "fuzz", config.hub = "127.0.0.1:9", config.on_request = on_request, config.on_rejection = on_rejection;
    config.on_log = on_log, config.max_message_bytes = 1 << 16, config.max_requests = 8;
    hearth_driver *d = hearth_driver_new(&config, NULL);
    if (!d) abort();
    hearth_field attributes[] = {{0, hearth_uint(0)}};
    hearth_trait_desc trait = {6, attributes, 1, HEARTH_LOCALITY_LOCAL};
    hearth_endpoint_desc endpoint = {1, 0x0100, true, &trait, 1};
    hearth_device_desc device = {"d", "Device", NULL, false, &endpoint, 1};
    if (hearth_driver_add_device(d, &device, NULL) != HEARTH_OK) abort();

    hd_conn *c = calloc(1, sizeof *c);
    if (!c) abort();
    c->driver = d, c->fd = -1, c->status = HD_CONN_OPEN, c->hello_sent = true, c->grpc_status = -1;
    d->conn = c;
    d->in_process = true;
    hd_session_welcomed(d, "fuzz", NULL, 0);

    if (data[0] % 2 == 0) {
        hd_inbound_message(d, data + 2, size - 2);
    } else {
        size_t step = data[1] ? data[1] : 1;
        for (size_t at = 2; at < size && c->status == HD_CONN_OPEN; at += step)
            hd_inbound_data(c, data + at, size - at < step ? size - at : step);
    }

    if (c->status == HD_CONN_OPEN) {
        hd_produce(d, c, SIZE_MAX);
        while (hd_buffer_length(&c->out) > 0) { /* what we would send must be well formed */
            const uint8_t *p = c->out.data + c->out.start;
            if (hd_buffer_length(&c->out) < 5 || p[0] != 0) abort();
            size_t length = (size_t)p[1] << 24 | (size_t)p[2] << 16 | (size_t)p[3] << 8 | p[4];
            if (hd_buffer_length(&c->out) < 5 + length) abort();
            Hearth__V1__DriverMessage *m = hearth__v1__driver_message__unpack(NULL, length, p + 5);
            if (!m) abort();
            hearth__v1__driver_message__free_unpacked(m, NULL);
            c->out.start += 5 + length;
        }
    }
    hearth_driver_free(d);
    return 0;
}
