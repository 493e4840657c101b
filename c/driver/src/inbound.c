/* What the hub sends: gRPC deframing, checking and decoding HubMessages, and dispatching them.
 *
 * Nothing from the hub is trusted to be well formed. A message is at most max_message_bytes (the deframer
 * refuses a longer length before buffering it); its nesting is checked by an iterative scan before
 * protobuf-c's recursive decoder sees it (a few hundred KB of nested values would otherwise overflow the
 * stack); the decoder allocates from a budget; a message that fails any of this is logged and skipped,
 * since the gRPC framing around it is intact. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define DECODE_BUDGET ((size_t)16 << 20) /* bytes protobuf-c may allocate for one message */
#define DATA_STEP ((size_t)64 << 10)

/* ---- the depth check --------------------------------------------------------------------------------- */

static int read_varint(const uint8_t *p, size_t end, size_t *pos, uint64_t *out) {
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64 && *pos < end; shift += 7) {
        uint8_t byte = p[(*pos)++];
        v |= (uint64_t)(byte & 0x7F) << shift;
        if (!(byte & 0x80)) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

int hd_wire_check(const ProtobufCMessageDescriptor *descriptor, const uint8_t *p, size_t length, unsigned max_depth) {
    struct {
        const ProtobufCMessageDescriptor *descriptor;
        size_t end;
    } stack[HD_MAX_PROTO_DEPTH];
    if (max_depth == 0 || max_depth > HD_MAX_PROTO_DEPTH) max_depth = HD_MAX_PROTO_DEPTH;
    unsigned depth = 0;
    size_t pos = 0;
    stack[0].descriptor = descriptor, stack[0].end = length;
    for (;;) {
        while (pos == stack[depth].end) {
            if (depth == 0) return 0;
            depth--;
        }
        size_t end = stack[depth].end;
        uint64_t tag, n;
        if (read_varint(p, end, &pos, &tag) != 0 || tag >> 3 == 0 || tag >> 3 > 0x1FFFFFFF) return -1;
        switch (tag & 7) {
        case 0:
            if (read_varint(p, end, &pos, &n) != 0) return -1;
            break;
        case 1:
            if (end - pos < 8) return -1;
            pos += 8;
            break;
        case 5:
            if (end - pos < 4) return -1;
            pos += 4;
            break;
        case 2: {
            if (read_varint(p, end, &pos, &n) != 0 || n > end - pos) return -1;
            const ProtobufCFieldDescriptor *field =
                protobuf_c_message_descriptor_get_field(stack[depth].descriptor, (unsigned)(tag >> 3));
            if (field && field->type == PROTOBUF_C_TYPE_MESSAGE) {
                if (depth + 1 >= max_depth) return -1;
                depth++;
                stack[depth].descriptor = field->descriptor, stack[depth].end = pos + (size_t)n;
            } else {
                pos += (size_t)n;
            }
            break;
        }
        default: /* groups (3, 4) are not proto3; 6 and 7 do not exist */
            return -1;
        }
    }
}

/* ---- a decoder with a budget ------------------------------------------------------------------------- */

typedef struct budget {
    size_t used, limit;
} budget;

/* Each block carries its size in a 16-byte header, so free can give it back to the budget. */
static void *budget_alloc(void *data, size_t size) {
    budget *b = data;
    if (size > b->limit - b->used || size > SIZE_MAX - 16) return NULL;
    uint8_t *p = malloc(size + 16);
    if (!p) return NULL;
    memcpy(p, &size, sizeof size);
    b->used += size;
    return p + 16;
}

static void budget_free(void *data, void *pointer) {
    if (!pointer) return;
    budget *b = data;
    uint8_t *p = (uint8_t *)pointer - 16;
    size_t size;
    memcpy(&size, p, sizeof size);
    b->used -= size;
    free(p);
}

/* ---- requests in flight ------------------------------------------------------------------------------ */

bool hd_request_pending(const hearth_driver *d, uint64_t id) {
    for (size_t i = 0; i < d->pending_count; i++)
        if (d->pending[i].id == id) return true;
    return false;
}

int hd_request_take(hearth_driver *d, uint64_t id) {
    for (size_t i = 0; i < d->pending_count; i++)
        if (d->pending[i].id == id) {
            d->pending[i] = d->pending[--d->pending_count];
            return 0;
        }
    return -1;
}

void hd_requests_clear(hearth_driver *d) { d->pending_count = 0; }

/* Forgets requests the hub has long given up on (their deadline plus a second), so a handler that never
 * answers cannot fill the table. */
void hd_requests_expire(hearth_driver *d, uint64_t now) {
    for (size_t i = 0; i < d->pending_count;) {
        if (d->pending[i].expires <= now) {
            hd_log(d, HEARTH_LOG_WARNING, "request %llu was never answered; forgotten after its deadline",
                   (unsigned long long)d->pending[i].id);
            d->pending[i] = d->pending[--d->pending_count];
        } else {
            i++;
        }
    }
}

static void refuse(hearth_driver *d, uint64_t id, uint32_t status, const char *message) {
    if (hd_queue_result(d, id, NULL, 0, status, message, NULL) != HEARTH_OK)
        hd_log(d, HEARTH_LOG_WARNING, "cannot queue the answer to request %llu", (unsigned long long)id);
}

static void request(hearth_driver *d, hearth_request *r, Hearth__V1__StructValue *fields,
                    Hearth__V1__Attribute *const *attributes, size_t attribute_count) {
    d->stats.requests++;
    if (hd_request_pending(d, r->id)) {
        hd_log(d, HEARTH_LOG_WARNING, "the hub sent request %llu twice; ignored", (unsigned long long)r->id);
        return;
    }
    if (!d->config.on_request) return refuse(d, r->id, HEARTH_STATUS_UNIMPLEMENTED, "this driver takes no commands or writes");
    if (d->pending_count >= d->config.max_requests)
        return refuse(d, r->id, HEARTH_STATUS_RESOURCE_EXHAUSTED, "the driver has too many requests in flight");
    hearth_field *view = NULL;
    int rc = r->kind == HEARTH_REQUEST_COMMAND ? hd_fields_view(fields, &view, &r->field_count)
                                               : hd_attributes_view(attributes, r->field_count = attribute_count, &view);
    if (rc != 0) return refuse(d, r->id, HEARTH_STATUS_RESOURCE_EXHAUSTED, "the driver cannot hold the request's values");
    uint32_t timeout = r->timeout_ms ? r->timeout_ms : d->config.request_timeout_ms;
    d->pending[d->pending_count++] = (hd_pending){r->id, hd_now() + ((uint64_t)timeout + 1000) * 1000000u};
    r->fields = view;
    d->config.on_request(d, r, d->config.user);
    free(view);
}

static void rejected(hearth_driver *d, const Hearth__V1__Rejection *r) {
    d->stats.rejections++;
    if (d->config.on_rejection)
        d->config.on_rejection(d, r->subject, r->code, r->message, d->config.user);
    else
        hd_log(d, HEARTH_LOG_WARNING, "the hub refused %s: %s (status %u)", r->subject, r->message, r->code);
}

void hd_inbound_message(hearth_driver *d, const uint8_t *data, size_t length) {
    d->stats.messages_received++;
    if (hd_wire_check(&hearth__v1__hub_message__descriptor, data, length, HD_MAX_PROTO_DEPTH) != 0) {
        hd_log(d, HEARTH_LOG_WARNING, "skipped a malformed or too deeply nested message from the hub (%zu bytes)", length);
        return;
    }
    budget b = {0, DECODE_BUDGET};
    ProtobufCAllocator allocator = {budget_alloc, budget_free, &b};
    Hearth__V1__HubMessage *m = hearth__v1__hub_message__unpack(&allocator, length, data);
    if (!m) {
        hd_log(d, HEARTH_LOG_WARNING, "skipped an undecodable message from the hub (%zu bytes)", length);
        return;
    }
    switch (m->kind_case) {
    case HEARTH__V1__HUB_MESSAGE__KIND_WELCOME:
        if (d->conn && d->conn->welcomed) hd_log(d, HEARTH_LOG_WARNING, "a second Welcome from the hub; ignored");
        else hd_session_welcomed(d, m->welcome->epoch, m->welcome->known_device_ids, m->welcome->n_known_device_ids);
        break;
    case HEARTH__V1__HUB_MESSAGE__KIND_COMMAND: {
        Hearth__V1__CommandRequest *c = m->command;
        hearth_request r = {HEARTH_REQUEST_COMMAND, c->correlation_id, c->device_id, c->endpoint, c->trait_id,
                            c->command_id, NULL, 0, c->timeout_ms};
        request(d, &r, c->fields, NULL, 0);
        break;
    }
    case HEARTH__V1__HUB_MESSAGE__KIND_WRITE: {
        Hearth__V1__WriteRequest *w = m->write;
        hearth_request r = {HEARTH_REQUEST_WRITE, w->correlation_id, w->device_id, w->endpoint, w->trait_id,
                            0, NULL, 0, w->timeout_ms};
        request(d, &r, NULL, w->attributes, w->n_attributes);
        break;
    }
    case HEARTH__V1__HUB_MESSAGE__KIND_REJECTION:
        rejected(d, m->rejection);
        break;
    case HEARTH__V1__HUB_MESSAGE__KIND_ANNOUNCE_RESULT:
        for (size_t i = 0; i < m->announce_result->n_rejected; i++) rejected(d, m->announce_result->rejected[i]);
        break;
    default: /* nothing, or a kind newer than this library */
        break;
    }
    hearth__v1__hub_message__free_unpacked(m, &allocator);
}

/* ---- deframing --------------------------------------------------------------------------------------- */

int hd_inbound_data(hd_conn *c, const uint8_t *data, size_t length) {
    hearth_driver *d = c->driver;
    size_t max = d->config.max_message_bytes;
    while (length > 0) {
        /* Appended a step at a time and drained in between, so the buffer never holds more than one
         * message's worth plus one step. */
        size_t n = length < DATA_STEP ? length : DATA_STEP;
        if (hd_buffer_reserve(&c->in, n, max + 5 + DATA_STEP) != 0) {
            hd_conn_failed(c, "out of memory buffering a message from the hub");
            return -1;
        }
        memcpy(c->in.data + c->in.end, data, n);
        c->in.end += n, data += n, length -= n;
        while (hd_buffer_length(&c->in) >= 5 && c->status == HD_CONN_OPEN) {
            const uint8_t *p = c->in.data + c->in.start;
            size_t size = (size_t)p[1] << 24 | (size_t)p[2] << 16 | (size_t)p[3] << 8 | (size_t)p[4];
            if (p[0] != 0) {
                hd_conn_failed(c, "the hub sent a compressed message (none was offered)");
                return -1;
            }
            if (size > max) {
                hd_conn_failed(c, "the hub sent a %zu-byte message, over max_message_bytes (%zu)", size, max);
                return -1;
            }
            if (hd_buffer_length(&c->in) < 5 + size) break;
            c->in.start += 5 + size;
            hd_inbound_message(d, p + 5, size);
        }
        if (hd_buffer_length(&c->in) == 0) c->in.start = c->in.end = 0;
    }
    return 0;
}
