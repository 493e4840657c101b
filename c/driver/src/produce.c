/* Encoding what waits for the hub, when nghttp2 asks for data (see conn.c's data provider).
 *
 * Order within a session: Hello; then, once welcomed, answers (a caller is waiting), removals,
 * announcements (before any report, so the hub knows every device a report names), events, reports.
 * Messages are framed straight into the connection's out buffer. Repeated fields of events and reports are
 * framed by hand around individually packed elements: that sizes each element once and lets a message be
 * cut at HD_MAX_OUT_MESSAGE bytes. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define MAX_PER_MESSAGE 1000 /* removed ids or events per message */

bool hd_has_output(const hearth_driver *d) {
    const hd_conn *c = d->conn;
    if (!c || c->status != HD_CONN_OPEN) return false;
    if (!c->hello_sent) return true;
    if (!c->welcomed) return false;
    return d->results.ring.count || d->removals.pending.count || d->model.announce_pending || d->events.ring.count ||
           d->model.dirty.count;
}

/* Reserves one gRPC message of `size` bytes in c->out and returns where its body goes. */
static uint8_t *frame(hearth_driver *d, hd_conn *c, size_t size) {
    if (size > UINT32_MAX || hd_buffer_reserve(&c->out, 5 + size, SIZE_MAX / 2) != 0) {
        hd_conn_failed(c, "out of memory encoding a %zu-byte message", size);
        return NULL;
    }
    uint8_t *p = c->out.data + c->out.end;
    p[0] = 0, p[1] = (uint8_t)(size >> 24), p[2] = (uint8_t)(size >> 16), p[3] = (uint8_t)(size >> 8), p[4] = (uint8_t)size;
    c->out.end += 5 + size;
    c->body_framed += 5 + size;
    d->stats.messages_sent++;
    return p + 5;
}

/* A length-delimited field (tag, length) of `length` bytes, framed by hand: its size, and its head. */
static size_t field_size(size_t length) { return 1 + hd_varint_size(length) + length; }
static uint8_t *field_head(uint8_t *p, unsigned number, size_t length) {
    *p++ = (uint8_t)(number << 3 | 2);
    return hd_put_varint(p, length);
}

static void emit(hearth_driver *d, hd_conn *c, Hearth__V1__DriverMessage *m) {
    size_t size = hearth__v1__driver_message__get_packed_size(m);
    uint8_t *p = frame(d, c, size);
    if (p) hearth__v1__driver_message__pack(m, p);
}

static void hello(hearth_driver *d, hd_conn *c) {
    Hearth__V1__Hello h = HEARTH__V1__HELLO__INIT;
    h.driver_id = d->driver_id ? d->driver_id : "";
    h.driver_version = d->version;
    Hearth__V1__DriverMessage m = HEARTH__V1__DRIVER_MESSAGE__INIT;
    m.kind_case = HEARTH__V1__DRIVER_MESSAGE__KIND_HELLO, m.hello = &h;
    emit(d, c, &m);
    c->hello_sent = true;
}

/* Each answer is its own DriverMessage (field 5, `result`) around the CommandResult packed at answer time. */
static void results(hearth_driver *d, hd_conn *c, size_t want) {
    for (hd_blob *b; hd_buffer_length(&c->out) < want && (b = hd_blobs_peek(&d->results)) && c->status == HD_CONN_OPEN;) {
        uint8_t *p = frame(d, c, field_size(b->length));
        if (!p) return;
        memcpy(field_head(p, 5, b->length), b->data, b->length);
        free(hd_blobs_take(&d->results).data);
        d->stats.answers++;
    }
}

/* The removals are kept once sent, until a Welcome settles them (removals.c). */
static void removals(hearth_driver *d, hd_conn *c) {
    char *ids[MAX_PER_MESSAGE];
    size_t n = 0;
    for (; n < d->removals.pending.count && n < MAX_PER_MESSAGE; n++) ids[n] = hd_removals_id(&d->removals, n);
    Hearth__V1__RemoveDevices r = HEARTH__V1__REMOVE_DEVICES__INIT;
    r.n_device_ids = n, r.device_ids = ids;
    Hearth__V1__DriverMessage m = HEARTH__V1__DRIVER_MESSAGE__INIT;
    m.kind_case = HEARTH__V1__DRIVER_MESSAGE__KIND_REMOVE, m.remove = &r;
    emit(d, c, &m);
    if (c->status == HD_CONN_OPEN) hd_removals_sent(&d->removals, n);
}

/* The announcement carries each device's current values, so their unsent changes are dropped with it. */
static void announced(hd_device *dev) {
    for (size_t e = 0; e < dev->pb.n_types; e++)
        for (size_t t = 0; t < hd_ep(dev, e)->pb.n_traits; t++) {
            hd_trait *tr = hd_tr(hd_ep(dev, e), t);
            tr->dirty_count = 0;
            for (size_t a = 0; a < tr->pb.n_attributes; a++) hd_attr(tr, a)->dirty = false;
        }
}

static void announce(hearth_driver *d, hd_conn *c) {
    hd_model *m = &d->model;
    size_t limit = d->config.devices_per_announce, n = 0, total = 0;
    Hearth__V1__DeviceAnnouncement **list = malloc(limit * sizeof *list);
    if (!list) return hd_conn_failed(c, "out of memory announcing devices");
    for (size_t i = 0; i < m->count && n < limit && m->announce_pending; i++) {
        hd_device *dev = hd_device_at(m, i);
        if (!dev->needs_announce) continue;
        size_t size = protobuf_c_message_get_packed_size(&dev->pb.base);
        if (n > 0 && total + size + 8 > HD_MAX_OUT_MESSAGE) break;
        list[n++] = &dev->pb;
        total += size + 8;
        dev->needs_announce = false;
        m->announce_pending--;
        announced(dev);
    }
    Hearth__V1__Announce a = HEARTH__V1__ANNOUNCE__INIT;
    a.n_devices = n, a.devices = list;
    if (!d->schemas_sent) {
        a.n_vendor_trait_schemas_json = d->schema_count, a.vendor_trait_schemas_json = d->schemas;
        d->schemas_sent = true;
    }
    Hearth__V1__DriverMessage msg = HEARTH__V1__DRIVER_MESSAGE__INIT;
    msg.kind_case = HEARTH__V1__DRIVER_MESSAGE__KIND_ANNOUNCE, msg.announce = &a;
    emit(d, c, &msg);
    free(list);
}

/* DriverMessage{events (4): EventReport{events (1): Event...}} around events packed when they happened.
 * Each event is kept (in d->unwritten) until its message is written to the socket: see hd_output_lost(). */
static void events(hearth_driver *d, hd_conn *c) {
    size_t n = 0, inner = 0;
    for (; n < d->events.ring.count && n < MAX_PER_MESSAGE; n++) {
        size_t length = ((hd_blob *)hd_ring_at(&d->events.ring, n, sizeof(hd_blob)))->length;
        if (n > 0 && inner + field_size(length) > HD_MAX_OUT_MESSAGE) break;
        inner += field_size(length);
    }
    if (hd_ring_reserve(&d->unwritten.ring, d->unwritten.ring.count + n, sizeof(hd_blob)) != 0)
        return hd_conn_failed(c, "out of memory encoding events");
    uint8_t *p = frame(d, c, field_size(inner));
    if (!p) return;
    p = field_head(p, 4, inner);
    for (size_t i = 0; i < n; i++) {
        hd_blob b = hd_blobs_take(&d->events);
        p = field_head(p, 1, b.length);
        memcpy(p, b.data, b.length);
        p += b.length;
        b.end = c->body_framed;
        hd_blobs_push(&d->unwritten, b, SIZE_MAX, SIZE_MAX, false, NULL); /* room reserved above */
    }
}

void hd_output_written(hearth_driver *d, uint64_t body) {
    for (hd_blob *b; (b = hd_blobs_peek(&d->unwritten)) && b->end <= body;) {
        free(hd_blobs_take(&d->unwritten).data);
        d->stats.events_sent++;
    }
}

/* Events in the stream's buffers (ours, nghttp2's, the frames not yet taken by the kernel) when the
 * connection ends are not lost: they go back before the ones still waiting, to be sent in the next session,
 * within max_events (the oldest go first, counted as dropped). Those the kernel took are sent: TCP does not
 * say whether the hub read them. */
void hd_output_lost(hearth_driver *d) {
    hd_ring *back = &d->unwritten.ring;
    for (; back->count; back->count--) {
        hd_blob b = *(hd_blob *)hd_ring_at(back, back->count - 1, sizeof b);
        d->unwritten.bytes -= b.length;
        hd_blob *slot = hd_ring_push_front(&d->events.ring, sizeof *slot);
        if (!slot) {
            free(b.data);
            d->stats.events_dropped++;
            continue;
        }
        *slot = b;
        d->events.bytes += b.length;
    }
    hd_blobs_trim(&d->events, d->config.max_events, HD_MAX_QUEUED_BYTES, &d->stats.events_dropped);
}

/* DriverMessage{report (3): Report{traits (1): TraitReport...}}: the dirty attributes of up to
 * max_traits_per_report traits, straight from the model. */
static void reports(hearth_driver *d, hd_conn *c) {
    hd_model *m = &d->model;
    size_t n = 0, inner = 0, used = 0;
    hd_trait *t;
    while (n < d->config.max_traits_per_report && (t = hd_model_pop_dirty(m))) {
        if (!t->dirty_count && !t->connectivity_dirty) continue;
        if (used + t->dirty_count > d->scratch_attribute_cap) {
            size_t cap = (used + t->dirty_count) * 2;
            Hearth__V1__Attribute **a = realloc(d->scratch_attributes, cap * sizeof *a);
            if (!a) {
                hd_model_push_front(m, t);
                break;
            }
            /* Reports already built pointed into the old array: re-point them by their offsets. */
            for (size_t i = 0; i < n; i++) d->scratch_reports[i].attributes = a + d->scratch_offsets[i];
            d->scratch_attributes = a, d->scratch_attribute_cap = cap;
        }
        Hearth__V1__TraitReport *r = &d->scratch_reports[n];
        hearth__v1__trait_report__init(r);
        r->device_id = t->device->pb.id, r->endpoint = t->endpoint, r->trait_id = t->pb.trait_id;
        r->attributes = d->scratch_attributes + used;
        for (size_t a = 0; a < t->pb.n_attributes; a++)
            if (hd_attr(t, a)->dirty) r->attributes[r->n_attributes++] = &hd_attr(t, a)->pb;
        if (t->connectivity_dirty) r->connectivity = t->connectivity;
        size_t size = hearth__v1__trait_report__get_packed_size(r);
        if (n > 0 && inner + field_size(size) > HD_MAX_OUT_MESSAGE) {
            hd_model_push_front(m, t);
            break;
        }
        for (size_t a = 0; a < r->n_attributes; a++) ((hd_attribute *)r->attributes[a])->dirty = false;
        t->dirty_count = 0;
        t->sent_connectivity = t->connectivity;
        t->connectivity_dirty = false;
        d->scratch_sizes[n] = size;
        d->scratch_offsets[n] = used;
        inner += field_size(size);
        used += r->n_attributes;
        n++;
    }
    if (n == 0) return;
    uint8_t *p = frame(d, c, field_size(inner));
    if (!p) return;
    p = field_head(p, 3, inner);
    for (size_t i = 0; i < n; i++) {
        p = field_head(p, 1, d->scratch_sizes[i]);
        p += hearth__v1__trait_report__pack(&d->scratch_reports[i], p);
    }
    d->stats.trait_reports_sent += n;
}

void hd_produce(hearth_driver *d, hd_conn *c, size_t want) {
    while (hd_buffer_length(&c->out) < want && c->status == HD_CONN_OPEN) {
        size_t before = hd_buffer_length(&c->out), ring = d->model.dirty.count;
        if (!c->hello_sent) hello(d, c);
        else if (!c->welcomed) break;
        else if (d->results.ring.count) results(d, c, want);
        else if (d->removals.pending.count) removals(d, c);
        else if (d->model.announce_pending) announce(d, c);
        else if (d->events.ring.count) events(d, c);
        else if (d->model.dirty.count) reports(d, c);
        else break;
        /* Every step writes or consumes something; a step that could not (out of memory) must not spin. */
        if (hd_buffer_length(&c->out) == before && d->model.dirty.count == ring) break;
    }
}

hearth_code hd_queue_result(hearth_driver *d, uint64_t id, const hearth_field *fields, size_t count, uint32_t status,
                            const char *message, hearth_error *error) {
    Hearth__V1__CommandResult r = HEARTH__V1__COMMAND_RESULT__INIT;
    r.correlation_id = id;
    Hearth__V1__StructValue *block = NULL;
    char *text = NULL;
    if (status) {
        r.error_code = status;
        /* The caller sees the message; one that is not UTF-8 would make the hub drop the whole answer. */
        if (!(text = hd_strdup_checked(message, 1024, "the failure message", NULL)))
            text = hd_strdup_checked("(the driver's message was not UTF-8 or too long)", 1024, "", NULL);
        r.error_message = text ? text : "";
    } else {
        hearth_code rc = hd_struct_build(&block, fields, count, error);
        if (rc != HEARTH_OK) return rc;
        r.fields = block;
    }
    hd_blob blob;
    hearth_code rc = hd_blob_pack(&r.base, &blob, "the answer", error);
    free(block);
    free(text);
    if (rc == HEARTH_OK &&
        (rc = hd_blobs_push(&d->results, blob, (size_t)d->config.max_requests * 2, HD_MAX_QUEUED_BYTES, false, NULL)))
        hd_fail(error, rc, rc == HEARTH_ELIMIT ? "too many answers waiting to be sent" : "out of memory queueing an answer");
    if (rc != HEARTH_OK) free(blob.data);
    else hd_wake(d);
    return rc;
}
