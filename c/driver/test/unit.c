/* White-box tests of libhearth-driver without a hub: values, the model's coalescing, the hand-made framing
 * of outbound messages (decoded back with protobuf-c), inbound decoding and dispatch, limits, config,
 * removals and events across sessions, allocation failures, the loop's waits. A driver is "connected" to a
 * fake connection (no socket) so produce and inbound run as in a session, or to a peer on a Unix socket
 * that speaks just enough HTTP/2 to take what it writes. The binary is linked with --wrap for malloc,
 * calloc, realloc, epoll_wait and poll, so tests can count those calls and fail allocations. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

static int failures, checks;

#define CHECK(cond)                                                                                                \
    do {                                                                                                           \
        checks++;                                                                                                  \
        if (!(cond)) failures++, fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);         \
    } while (0)

/* ---- wrapped calls ----------------------------------------------------------------------------------- */

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *p, size_t size);
int __real_epoll_wait(int fd, struct epoll_event *events, int max, int timeout);
int __real_poll(struct pollfd *fds, nfds_t n, int timeout);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
void *__wrap_realloc(void *p, size_t size);
int __wrap_epoll_wait(int fd, struct epoll_event *events, int max, int timeout);
int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout);

static long allocations;     /* malloc, calloc and realloc calls since reset */
static long fail_at = -1;    /* the allocation (counting from 0) that fails; -1: none */
static long polls, nonblocking_waits, blocking_waits;

static bool failing(void) { return allocations++ == fail_at; }
void *__wrap_malloc(size_t size) { return failing() ? NULL : __real_malloc(size); }
void *__wrap_calloc(size_t count, size_t size) { return failing() ? NULL : __real_calloc(count, size); }
void *__wrap_realloc(void *p, size_t size) { return failing() ? NULL : __real_realloc(p, size); }
int __wrap_epoll_wait(int fd, struct epoll_event *events, int max, int timeout) {
    timeout ? blocking_waits++ : nonblocking_waits++;
    return __real_epoll_wait(fd, events, max, timeout);
}
int __wrap_poll(struct pollfd *fds, nfds_t n, int timeout) {
    polls++;
    return __real_poll(fds, n, timeout);
}

/* ---- helpers ----------------------------------------------------------------------------------------- */

typedef struct seen {
    int requests, rejections;
    hearth_request last;
    hearth_field fields[8];
    char device[64];
    int answer; /* 0: succeed echoing the fields, else fail with this status */
    hearth_code process_rc;
} seen;

static void on_request(hearth_driver *d, const hearth_request *r, void *user) {
    seen *s = user;
    s->requests++;
    s->last = *r;
    snprintf(s->device, sizeof s->device, "%s", r->device_id);
    for (size_t i = 0; i < r->field_count && i < 8; i++) s->fields[i] = r->fields[i];
    s->process_rc = hearth_driver_process(d, NULL); /* not allowed from a callback */
    if (s->answer) hearth_driver_fail(d, r->id, (uint32_t)s->answer, "no", NULL);
    else hearth_driver_succeed(d, r->id, r->fields, r->field_count, NULL);
}

static void on_rejection(hearth_driver *d, const char *subject, uint32_t code, const char *message, void *user) {
    (void)d, (void)subject, (void)code, (void)message;
    ((seen *)user)->rejections++;
}

static void quiet(void *user, hearth_log_level level, const char *message) { (void)user, (void)level, (void)message; }

static hearth_driver *driver(seen *s, uint32_t max_events) {
    hearth_config c = {0};
    c.token = "t", c.hub = "127.0.0.1:9", c.on_request = on_request, c.on_rejection = on_rejection, c.on_log = quiet;
    c.user = s, c.max_events = max_events;
    hearth_error e;
    hearth_driver *d = hearth_driver_new(&c, &e);
    if (!d) fprintf(stderr, "hearth_driver_new: %s\n", e.message);
    return d;
}

/* A welcomed session without a socket. */
static hd_conn *fake_session(hearth_driver *d) {
    hd_conn *c = calloc(1, sizeof *c);
    c->driver = d, c->fd = -1, c->status = HD_CONN_OPEN, c->hello_sent = true, c->grpc_status = -1;
    d->conn = c;
    d->in_process = true; /* as inside hearth_driver_process(): no wake-ups, and callbacks cannot re-enter */
    hd_session_welcomed(d, "epoch-1", NULL, 0);
    return c;
}

/* The connection is lost (whatever it had not written waits again), and a new one is welcomed by a hub that
 * knows the devices in `known`. */
static hd_conn *reconnect(hearth_driver *d, char **known, size_t n) {
    hd_conn_close(d->conn);
    d->conn = NULL;
    hd_output_lost(d);
    hd_conn *c = calloc(1, sizeof *c);
    c->driver = d, c->fd = -1, c->status = HD_CONN_OPEN, c->hello_sent = true, c->grpc_status = -1;
    d->conn = c;
    hd_session_welcomed(d, "epoch-n", known, n);
    return c;
}

static void add_sensor(hearth_driver *d, const char *id) {
    hearth_field attrs[] = {{0, hearth_int(2100)}, {1, hearth_string("x")}};
    hearth_trait_desc t = {0x0402, attrs, 2, HEARTH_LOCALITY_LOCAL};
    hearth_endpoint_desc ep = {1, 0x0302, true, &t, 1};
    hearth_device_desc dev = {id, "Sensor", "Room", false, &ep, 1};
    hearth_error e;
    CHECK(hearth_driver_add_device(d, &dev, &e) == HEARTH_OK);
}

/* Decodes every framed DriverMessage in c->out (then empties it); returns how many. */
static size_t drain(hd_conn *c, Hearth__V1__DriverMessage **out, size_t max) {
    size_t n = 0;
    while (hd_buffer_length(&c->out) >= 5) {
        const uint8_t *p = c->out.data + c->out.start;
        size_t size = (size_t)p[1] << 24 | (size_t)p[2] << 16 | (size_t)p[3] << 8 | p[4];
        CHECK(p[0] == 0 && hd_buffer_length(&c->out) >= 5 + size);
        Hearth__V1__DriverMessage *m = hearth__v1__driver_message__unpack(NULL, size, p + 5);
        CHECK(m != NULL);
        if (m && n < max) out[n++] = m;
        else if (m) hearth__v1__driver_message__free_unpacked(m, NULL);
        c->out.start += 5 + size;
    }
    CHECK(hd_buffer_length(&c->out) == 0);
    c->out.start = c->out.end = 0;
    return n;
}

static void free_all(Hearth__V1__DriverMessage **m, size_t n) {
    for (size_t i = 0; i < n; i++) hearth__v1__driver_message__free_unpacked(m[i], NULL);
}

/* Frames a HubMessage as the hub would. */
static size_t frame_hub(const Hearth__V1__HubMessage *m, uint8_t *out) {
    size_t size = hearth__v1__hub_message__pack(m, out + 5);
    out[0] = 0, out[1] = (uint8_t)(size >> 24), out[2] = (uint8_t)(size >> 16), out[3] = (uint8_t)(size >> 8), out[4] = (uint8_t)size;
    return size + 5;
}

/* ---- tests ------------------------------------------------------------------------------------------- */

static void test_utf8(void) {
    CHECK(hd_utf8_valid("plain", 5));
    CHECK(hd_utf8_valid("\xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x8f\xa0", 14));
    CHECK(!hd_utf8_valid("\xc3", 1));             /* truncated */
    CHECK(!hd_utf8_valid("\xc0\xaf", 2));         /* overlong */
    CHECK(!hd_utf8_valid("\xed\xa0\x80", 3));     /* surrogate */
    CHECK(!hd_utf8_valid("\xf4\x90\x80\x80", 4)); /* over U+10FFFF */
    CHECK(!hd_utf8_valid("a\0b", 3));             /* NUL */
}

static void test_values(void) {
    hearth_value items[] = {hearth_uint(1), hearth_string("two"), hearth_null()};
    hearth_field inner[] = {{7, hearth_double(-0.5)}, {2, hearth_bytes("\0\1", 2)}};
    hearth_field top[] = {{3, hearth_list(items, 3)}, {1, hearth_struct(inner, 2)}, {0, hearth_enum(9)}};
    hearth_value v = hearth_struct(top, 3);
    hd_stored s;
    hearth_error e;
    CHECK(hd_value_store(&s, &v, &e) == HEARTH_OK);
    Hearth__V1__Value *pb = hd_stored_value(&s);
    CHECK(pb->struct_value->n_fields == 3 && pb->struct_value->fields[0]->id == 0); /* sorted */
    /* Packed, decoded and viewed back: the same value (fields now in id order). */
    uint8_t buffer[256];
    size_t n = hearth__v1__value__pack(pb, buffer);
    Hearth__V1__Value *back = hearth__v1__value__unpack(NULL, n, buffer);
    CHECK(back && back->kind_case == HEARTH__V1__VALUE__KIND_STRUCT_VALUE);
    hearth_field *view = NULL;
    size_t count = 0;
    CHECK(hd_fields_view(back->struct_value, &view, &count) == 0 && count == 3);
    const hearth_value *list = hearth_find_field(view, count, 3), *sub = hearth_find_field(view, count, 1);
    CHECK(list && list->kind == HEARTH_LIST && list->as.list.count == 3 && list->as.list.items[2].kind == HEARTH_NULL);
    CHECK(list && !strcmp(list->as.list.items[1].as.str.data, "two"));
    CHECK(sub && sub->kind == HEARTH_STRUCT && sub->as.fields.count == 2);
    const hearth_value *bytes = sub ? hearth_find_field(sub->as.fields.fields, 2, 2) : NULL;
    CHECK(bytes && bytes->kind == HEARTH_BYTES && bytes->as.str.length == 2 && bytes->as.str.data[1] == 1);
    hearth_value sorted = hearth_struct(view, count);
    CHECK(hd_value_equal(&sorted, pb));
    CHECK(!hd_value_equal(&v, pb)); /* given in another order: counts as changed, which is harmless */
    hearth_value other = hearth_uint(1);
    CHECK(!hd_value_equal(&other, pb));
    free(view);
    hearth__v1__value__free_unpacked(back, NULL);
    hd_value_release(&s);

    /* Depth: HEARTH_MAX_VALUE_DEPTH levels are fine, one more is refused. */
    hearth_value chain[HEARTH_MAX_VALUE_DEPTH + 1];
    chain[0] = hearth_uint(0);
    for (int i = 1; i <= HEARTH_MAX_VALUE_DEPTH; i++) chain[i] = hearth_list(&chain[i - 1], 1);
    CHECK(hd_value_store(&s, &chain[HEARTH_MAX_VALUE_DEPTH - 1], &e) == HEARTH_OK);
    hd_value_release(&s);
    CHECK(hd_value_store(&s, &chain[HEARTH_MAX_VALUE_DEPTH], &e) == HEARTH_EINVAL);
    /* A cycle is caught by the same bound. */
    hearth_value loop;
    loop = hearth_list(&loop, 1);
    CHECK(hd_value_store(&s, &loop, &e) == HEARTH_EINVAL);

    hearth_field dup[] = {{1, hearth_uint(1)}, {1, hearth_uint(2)}};
    hearth_value d = hearth_struct(dup, 2);
    CHECK(hd_value_store(&s, &d, &e) == HEARTH_EINVAL && strstr(e.message, "twice"));
    hearth_value bad = {HEARTH_STRING, {0}};
    bad.as.str.data = "a\xff", bad.as.str.length = 2;
    CHECK(hd_value_store(&s, &bad, &e) == HEARTH_EINVAL);
    bad.kind = (hearth_kind)99;
    CHECK(hd_value_store(&s, &bad, &e) == HEARTH_EINVAL);
    hearth_value nan1 = hearth_double(NAN);
    CHECK(hd_value_store(&s, &nan1, &e) == HEARTH_OK && hd_value_equal(&nan1, hd_stored_value(&s)));
}

static void test_config(void) {
    struct { const char *hub, *token; hearth_code want; } cases[] = {
        {"127.0.0.1:7070", "t", HEARTH_OK}, {"[::1]:7070", "t", HEARTH_OK}, {"unix:/run/hub.sock", "t", HEARTH_OK},
        {"/run/hub.sock", "t", HEARTH_OK},  {"hub.local:1", "t", HEARTH_OK}, {"hub", "t", HEARTH_ECONFIG},
        {"a:b:c", "t", HEARTH_ECONFIG},     {":80", "t", HEARTH_ECONFIG},   {"h:0", "t", HEARTH_ECONFIG},
        {"h:70000", "t", HEARTH_ECONFIG},   {"h:80x", "t", HEARTH_ECONFIG}, {"unix:", "t", HEARTH_ECONFIG},
        {"h:1", NULL, HEARTH_ECONFIG},      {"h:1", "two words", HEARTH_ECONFIG}, {"[::1]7070", "t", HEARTH_ECONFIG},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        hearth_config c = {0};
        c.hub = cases[i].hub, c.token = cases[i].token, c.on_log = quiet;
        hearth_error e = {0};
        hearth_driver *d = hearth_driver_new(&c, &e);
        CHECK((d != NULL) == (cases[i].want == HEARTH_OK));
        if (!d) CHECK(e.code == cases[i].want && e.message[0]);
        if (!d && e.code != cases[i].want) fprintf(stderr, "  hub %s: %s\n", cases[i].hub, e.message);
        hearth_driver_free(d);
    }
}

static void test_model_and_reports(void) {
    seen s = {0};
    hearth_driver *d = driver(&s, 0);
    hearth_error e;
    add_sensor(d, "a");
    add_sensor(d, "b");
    hd_conn *c = fake_session(d);
    Hearth__V1__DriverMessage *m[8];
    hd_produce(d, c, SIZE_MAX);
    size_t n = drain(c, m, 8);
    CHECK(n == 1 && m[0]->kind_case == HEARTH__V1__DRIVER_MESSAGE__KIND_ANNOUNCE && m[0]->announce->n_devices == 2);
    free_all(m, n);

    /* Three reports of one trait leave one trait report with the newest value; an unchanged value sends nothing. */
    for (int v = 2200; v <= 2202; v++) {
        hearth_field f = {0, hearth_int(v)};
        CHECK(hearth_driver_report(d, "a", 1, 0x0402, &f, 1, &e) == HEARTH_OK);
    }
    hearth_field same = {1, hearth_string("x")}, fresh = {0, hearth_int(5)};
    CHECK(hearth_driver_report(d, "b", HEARTH_ANY_ENDPOINT, 0x0402, &same, 1, &e) == HEARTH_OK);
    CHECK(hearth_driver_report(d, "b", 1, 0x0402, &fresh, 1, &e) == HEARTH_OK);
    CHECK(hearth_driver_report(d, "nope", 1, 0x0402, &fresh, 1, &e) == HEARTH_ENOTFOUND);
    CHECK(hearth_driver_report(d, "a", 2, 0x0402, &fresh, 1, &e) == HEARTH_ENOTFOUND);
    hearth_field twice[] = {{0, hearth_int(1)}, {0, hearth_int(2)}};
    CHECK(hearth_driver_report(d, "a", 1, 0x0402, twice, 2, &e) == HEARTH_EINVAL);
    hd_produce(d, c, SIZE_MAX);
    n = drain(c, m, 8);
    CHECK(n == 1 && m[0]->kind_case == HEARTH__V1__DRIVER_MESSAGE__KIND_REPORT);
    if (n == 1 && m[0]->report) {
        Hearth__V1__Report *r = m[0]->report;
        CHECK(r->n_traits == 2 && !strcmp(r->traits[0]->device_id, "a") && r->traits[0]->n_attributes == 1);
        CHECK(r->traits[0]->attributes[0]->value->int_value == 2202 && r->traits[1]->attributes[0]->value->int_value == 5);
    }
    free_all(m, n);

    /* Offline, then a report: one trait report saying ONLINE with the value. */
    CHECK(hearth_driver_set_connectivity(d, "a", 1, 0x0402, HEARTH_CONNECTIVITY_OFFLINE, &e) == HEARTH_OK);
    hd_produce(d, c, SIZE_MAX);
    n = drain(c, m, 8);
    CHECK(n == 1 && m[0]->report->traits[0]->connectivity == HEARTH__V1__CONNECTIVITY_STATE__CONNECTIVITY_STATE_OFFLINE);
    free_all(m, n);
    hearth_field back = {0, hearth_int(7)};
    CHECK(hearth_driver_report(d, "a", 1, 0x0402, &back, 1, &e) == HEARTH_OK);
    hd_produce(d, c, SIZE_MAX);
    n = drain(c, m, 8);
    CHECK(n == 1 && m[0]->report->traits[0]->connectivity == HEARTH__V1__CONNECTIVITY_STATE__CONNECTIVITY_STATE_ONLINE);
    free_all(m, n);

    /* Removing a device with a pending report drops the report and sends RemoveDevices. */
    CHECK(hearth_driver_report(d, "b", 1, 0x0402, &back, 1, &e) == HEARTH_OK);
    CHECK(hearth_driver_remove_device(d, "b", &e) == HEARTH_OK);
    CHECK(hearth_driver_remove_device(d, "b", &e) == HEARTH_ENOTFOUND);
    hd_produce(d, c, SIZE_MAX);
    n = drain(c, m, 8);
    CHECK(n == 1 && m[0]->kind_case == HEARTH__V1__DRIVER_MESSAGE__KIND_REMOVE && !strcmp(m[0]->remove->device_ids[0], "b"));
    free_all(m, n);

    /* A new session announces the current values and forgets unsent changes. */
    CHECK(hearth_driver_report(d, "a", 1, 0x0402, &fresh, 1, &e) == HEARTH_OK);
    c->welcomed = false;
    char *known[] = {"a"};
    hd_session_welcomed(d, "epoch-2", known, 1); /* the hub has no "b": its removal was delivered, and is forgotten */
    hd_produce(d, c, SIZE_MAX);
    n = drain(c, m, 8);
    CHECK(n == 1 && m[0]->kind_case == HEARTH__V1__DRIVER_MESSAGE__KIND_ANNOUNCE);
    if (n == 1) CHECK(m[0]->announce->devices[0]->types[0]->traits[0]->attributes[0]->value->int_value == 5);
    free_all(m, n);
    hearth_driver_free(d);
}

/* Many traits in one Report: the scratch arrays grow while reports are being built. */
static void test_many_traits(void) {
    seen s = {0};
    hearth_driver *d = driver(&s, 0);
    char id[16];
    for (int i = 0; i < 300; i++) snprintf(id, sizeof id, "s%d", i), add_sensor(d, id);
    hd_conn *c = fake_session(d);
    Hearth__V1__DriverMessage *m[8];
    hd_produce(d, c, SIZE_MAX);
    size_t n = drain(c, m, 8);
    CHECK(n == 2 && m[0]->announce->n_devices == 200 && m[1]->announce->n_devices == 100 && m[0]->announce->n_vendor_trait_schemas_json == 0);
    free_all(m, n);
    hearth_error e;
    for (int i = 0; i < 300; i++) {
        hearth_field f[] = {{0, hearth_int(i)}, {1, hearth_string(i % 2 ? "odd" : "even")}};
        snprintf(id, sizeof id, "s%d", i);
        CHECK(hearth_driver_report(d, id, 1, 0x0402, f, 2, &e) == HEARTH_OK);
    }
    hd_produce(d, c, SIZE_MAX);
    n = drain(c, m, 8);
    CHECK(n == 1 && m[0]->report->n_traits == 300);
    for (size_t i = 0; n == 1 && i < m[0]->report->n_traits; i++) {
        Hearth__V1__TraitReport *t = m[0]->report->traits[i];
        CHECK(t->n_attributes == 2 && t->attributes[0]->value->int_value == (int64_t)i);
        CHECK(!strcmp(t->attributes[1]->value->string_value, i % 2 ? "odd" : "even"));
    }
    free_all(m, n);
    hearth_driver_free(d);
}

static void test_events(void) {
    seen s = {0};
    hearth_driver *d = driver(&s, 4);
    hearth_error e;
    add_sensor(d, "a");
    for (uint64_t i = 0; i < 10; i++) { /* disconnected: the newest 4 are kept */
        hearth_field f = {0, hearth_uint(i)};
        CHECK(hearth_driver_event(d, "a", 1, 0x0402, 3, &f, 1, 1000, &e) == HEARTH_OK);
    }
    CHECK(hearth_driver_event(d, "a", 1, 0x9999, 3, NULL, 0, 0, &e) == HEARTH_ENOTFOUND);
    hearth_stats st;
    hearth_driver_stats(d, &st);
    CHECK(st.events_dropped == 6);
    hd_conn *c = fake_session(d);
    Hearth__V1__DriverMessage *m[8];
    hd_produce(d, c, SIZE_MAX);
    size_t n = drain(c, m, 8);
    CHECK(n == 2 && m[1]->kind_case == HEARTH__V1__DRIVER_MESSAGE__KIND_EVENTS && m[1]->events->n_events == 4);
    if (n == 2) CHECK(m[1]->events->events[0]->fields->fields[0]->value->uint_value == 6 && m[1]->events->events[3]->timestamp_ms == 1000);
    free_all(m, n);
    hearth_driver_free(d);
}

static void test_requests(void) {
    seen s = {0};
    hearth_driver *d = driver(&s, 0);
    add_sensor(d, "a");
    hd_conn *c = fake_session(d);
    Hearth__V1__DriverMessage *m[8];
    hd_produce(d, c, SIZE_MAX);
    free_all(m, drain(c, m, 8));

    /* A command with fields, framed as the hub frames it, split across two chunks. */
    hearth_value items[] = {hearth_int(-3)};
    hearth_field args[] = {{0, hearth_uint(5)}, {1, hearth_list(items, 1)}};
    Hearth__V1__StructValue *fields = NULL;
    CHECK(hd_struct_build(&fields, args, 2, NULL) == HEARTH_OK);
    Hearth__V1__CommandRequest cmd = HEARTH__V1__COMMAND_REQUEST__INIT;
    cmd.correlation_id = 41, cmd.device_id = "a", cmd.endpoint = 1, cmd.trait_id = 0x0402, cmd.command_id = 2, cmd.fields = fields;
    Hearth__V1__HubMessage hm = HEARTH__V1__HUB_MESSAGE__INIT;
    hm.kind_case = HEARTH__V1__HUB_MESSAGE__KIND_COMMAND, hm.command = &cmd;
    uint8_t wire[512];
    size_t length = frame_hub(&hm, wire);
    CHECK(hd_inbound_data(c, wire, 3) == 0 && s.requests == 0);
    CHECK(hd_inbound_data(c, wire + 3, length - 3) == 0 && s.requests == 1);
    CHECK(s.last.id == 41 && s.last.command_id == 2 && !strcmp(s.device, "a") && s.last.field_count == 2);
    CHECK(s.fields[1].value.kind == HEARTH_LIST && s.process_rc == HEARTH_ESTATE);
    hd_produce(d, c, SIZE_MAX);
    size_t n = drain(c, m, 8);
    CHECK(n == 1 && m[0]->kind_case == HEARTH__V1__DRIVER_MESSAGE__KIND_RESULT && m[0]->result->correlation_id == 41);
    if (n == 1) CHECK(m[0]->result->fields && m[0]->result->fields->n_fields == 2 && m[0]->result->error_code == 0);
    free_all(m, n);
    hearth_error e;
    CHECK(hearth_driver_succeed(d, 41, NULL, 0, &e) == HEARTH_ENOTFOUND);
    CHECK(hearth_driver_fail(d, 41, 0, "x", &e) == HEARTH_EINVAL);

    /* A failing write; then the same id again is a new request. */
    s.answer = HEARTH_STATUS_FAILED_PRECONDITION;
    Hearth__V1__WriteRequest w = HEARTH__V1__WRITE_REQUEST__INIT;
    Hearth__V1__Attribute a = HEARTH__V1__ATTRIBUTE__INIT, *ap = &a;
    a.id = 1, a.value = fields->fields[0]->value;
    w.correlation_id = 42, w.device_id = "a", w.n_attributes = 1, w.attributes = &ap;
    hm.kind_case = HEARTH__V1__HUB_MESSAGE__KIND_WRITE, hm.write = &w;
    length = frame_hub(&hm, wire);
    CHECK(hd_inbound_data(c, wire, length) == 0 && s.requests == 2 && s.last.kind == HEARTH_REQUEST_WRITE);
    hd_produce(d, c, SIZE_MAX);
    n = drain(c, m, 8);
    CHECK(n == 1 && m[0]->result->error_code == HEARTH_STATUS_FAILED_PRECONDITION && !strcmp(m[0]->result->error_message, "no"));
    free_all(m, n);
    free(fields);

    /* Rejections reach the callback; an undecodable message and an unknown kind are skipped. */
    Hearth__V1__Rejection rej = HEARTH__V1__REJECTION__INIT;
    rej.subject = "a", rej.code = 3, rej.message = "bad";
    hm.kind_case = HEARTH__V1__HUB_MESSAGE__KIND_REJECTION, hm.rejection = &rej;
    length = frame_hub(&hm, wire);
    CHECK(hd_inbound_data(c, wire, length) == 0 && s.rejections == 1);
    uint8_t junk[] = {0, 0, 0, 0, 3, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 2, 0x78, 0x01};
    CHECK(hd_inbound_data(c, junk, sizeof junk) == 0 && c->status == HD_CONN_OPEN);

    /* Framing errors end the connection: a compressed message, one over max_message_bytes. */
    uint8_t compressed[] = {1, 0, 0, 0, 0};
    CHECK(hd_inbound_data(c, compressed, 5) == -1 && c->status == HD_CONN_FAILED);
    c->status = HD_CONN_OPEN, c->in.start = c->in.end = 0;
    uint8_t huge[] = {0, 0x7F, 0xFF, 0xFF, 0xFF};
    CHECK(hd_inbound_data(c, huge, 5) == -1 && c->status == HD_CONN_FAILED);
    hearth_driver_free(d);
}

/* The depth check refuses deep nesting before protobuf-c recurses into it, and passes what is fine. */
static void test_wire_check(void) {
    enum { LEVELS = 5000 };
    /* Value{list_value: ListValue{values: Value{list_value: ...}}}: built inside out. */
    uint8_t *buffer = malloc(LEVELS * 12 + 16);
    size_t start = LEVELS * 12, end = start;
    for (int i = 0; i < LEVELS; i++) {
        size_t inner = end - start;
        uint8_t head[12];
        uint8_t *p = hd_put_varint(head + 1, inner);
        head[0] = i % 2 ? (1 << 3 | 2) : (7 << 3 | 2); /* ListValue.values / Value.list_value, outermost first */
        size_t h = (size_t)(p - head);
        start -= h;
        memcpy(buffer + start, head, h);
    }
    CHECK(hd_wire_check(&hearth__v1__list_value__descriptor, buffer + start, end - start, HD_MAX_PROTO_DEPTH) == -1);
    CHECK(hd_wire_check(&hearth__v1__list_value__descriptor, buffer + start, 20, HD_MAX_PROTO_DEPTH) == -1); /* cut short */
    CHECK(hd_wire_check(&hearth__v1__list_value__descriptor, buffer + end - 40, 40, HD_MAX_PROTO_DEPTH) == 0); /* shallow */
    free(buffer);
    uint8_t ok[64];
    Hearth__V1__Value v = HEARTH__V1__VALUE__INIT;
    v.kind_case = HEARTH__V1__VALUE__KIND_STRING_VALUE, v.string_value = "fine";
    size_t n = hearth__v1__value__pack(&v, ok);
    ok[n++] = 0xF8, ok[n++] = 0x07, ok[n++] = 1; /* an unknown varint field (127) is skipped */
    CHECK(hd_wire_check(&hearth__v1__value__descriptor, ok, n, HD_MAX_PROTO_DEPTH) == 0);
    uint8_t group[] = {0x0B};
    CHECK(hd_wire_check(&hearth__v1__value__descriptor, group, 1, HD_MAX_PROTO_DEPTH) == -1);
}

/* The kind of each message in c->out (drained); the ids of the first RemoveDevices into `removed`. */
static size_t kinds(hd_conn *c, int *out, size_t max, char *removed, size_t size) {
    Hearth__V1__DriverMessage *m[8];
    size_t n = drain(c, m, 8);
    if (removed) removed[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (i < max) out[i] = (int)m[i]->kind_case;
        if (removed && m[i]->kind_case == HEARTH__V1__DRIVER_MESSAGE__KIND_REMOVE)
            for (size_t j = 0; j < m[i]->remove->n_device_ids; j++)
                snprintf(removed + strlen(removed), size - strlen(removed), "%s%s", j ? "," : "", m[i]->remove->device_ids[j]);
    }
    free_all(m, n);
    return n;
}

enum { REMOVE = HEARTH__V1__DRIVER_MESSAGE__KIND_REMOVE, ANNOUNCE = HEARTH__V1__DRIVER_MESSAGE__KIND_ANNOUNCE };

/* A removal is kept until a Welcome shows the hub has taken it. */
static void test_removals_across_sessions(void) {
    seen s = {0};
    hearth_driver *d = driver(&s, 0);
    hearth_error e;
    add_sensor(d, "a");
    add_sensor(d, "b");
    add_sensor(d, "c");
    hd_conn *c = fake_session(d);
    int k[8];
    char removed[256];
    hd_produce(d, c, SIZE_MAX);
    CHECK(kinds(c, k, 8, NULL, 0) == 1 && k[0] == ANNOUNCE);

    /* Encoded, then the connection drops: the hub still lists "a", so the next session removes it again. */
    CHECK(hearth_driver_remove_device(d, "a", &e) == HEARTH_OK);
    hd_produce(d, c, SIZE_MAX);
    CHECK(kinds(c, k, 8, removed, sizeof removed) == 1 && k[0] == REMOVE && !strcmp(removed, "a"));
    char *abc[] = {"a", "b", "c"}, *bc[] = {"b", "c"}, *b[] = {"b"};
    c = reconnect(d, abc, 3);
    hd_produce(d, c, SIZE_MAX);
    CHECK(kinds(c, k, 8, removed, sizeof removed) == 2 && k[0] == REMOVE && !strcmp(removed, "a") && k[1] == ANNOUNCE);
    /* Delivered this time: the next Welcome does not list it, and it is forgotten. */
    c = reconnect(d, bc, 2);
    hd_produce(d, c, SIZE_MAX);
    CHECK(kinds(c, k, 8, NULL, 0) == 1 && k[0] == ANNOUNCE);
    CHECK(d->removals.pending.count == 0 && d->removals.sent.count == 0);

    /* Removed while away, of a device the hub does not have: nothing to send (no NOT_FOUND from the hub). */
    hd_conn_close(d->conn), d->conn = NULL;
    CHECK(hearth_driver_remove_device(d, "c", &e) == HEARTH_OK);
    c = reconnect(d, b, 1);
    hd_produce(d, c, SIZE_MAX);
    CHECK(kinds(c, k, 8, NULL, 0) == 1 && k[0] == ANNOUNCE && d->removals.sent.count == 0);

    /* Removed and added again before the removal went out: replaced (removal, then announcement), once. */
    hd_conn_close(d->conn), d->conn = NULL;
    CHECK(hearth_driver_remove_device(d, "b", &e) == HEARTH_OK);
    add_sensor(d, "b");
    c = reconnect(d, b, 1);
    hd_produce(d, c, SIZE_MAX);
    CHECK(kinds(c, k, 8, removed, sizeof removed) == 2 && k[0] == REMOVE && !strcmp(removed, "b") && k[1] == ANNOUNCE);
    c = reconnect(d, b, 1);
    hd_produce(d, c, SIZE_MAX);
    CHECK(kinds(c, k, 8, NULL, 0) == 1 && k[0] == ANNOUNCE);

    /* Removed (sent), added again (announced): the hub has it again; a later Welcome removes nothing. */
    CHECK(hearth_driver_remove_device(d, "b", &e) == HEARTH_OK);
    hd_produce(d, c, SIZE_MAX);
    CHECK(kinds(c, k, 8, NULL, 0) == 1 && k[0] == REMOVE);
    add_sensor(d, "b");
    hd_produce(d, c, SIZE_MAX);
    CHECK(kinds(c, k, 8, NULL, 0) == 1 && k[0] == ANNOUNCE);
    c = reconnect(d, b, 1);
    hd_produce(d, c, SIZE_MAX);
    CHECK(kinds(c, k, 8, NULL, 0) == 1 && k[0] == ANNOUNCE);

    /* ... and removed once more: a new removal, kept like the first. */
    CHECK(hearth_driver_remove_device(d, "b", &e) == HEARTH_OK);
    hd_produce(d, c, SIZE_MAX);
    CHECK(kinds(c, k, 8, removed, sizeof removed) == 1 && k[0] == REMOVE && !strcmp(removed, "b"));
    c = reconnect(d, b, 1);
    hd_produce(d, c, SIZE_MAX);
    CHECK(kinds(c, k, 8, removed, sizeof removed) == 1 && k[0] == REMOVE && !strcmp(removed, "b"));

    /* Added, then while away removed, added and removed again: one removal (and no device to announce). */
    add_sensor(d, "b");
    hd_conn_close(d->conn), d->conn = NULL;
    CHECK(hearth_driver_remove_device(d, "b", &e) == HEARTH_OK);
    add_sensor(d, "b");
    CHECK(hearth_driver_remove_device(d, "b", &e) == HEARTH_OK);
    c = reconnect(d, b, 1);
    hd_produce(d, c, SIZE_MAX);
    CHECK(kinds(c, k, 8, removed, sizeof removed) == 1 && k[0] == REMOVE && !strcmp(removed, "b"));
    CHECK(d->removals.pending.count == 0 && d->removals.sent.count == 1);
    hearth_driver_free(d);
}

/* The uint field 0 of every event in the EventReports in c->out (drained), appended to `values`. */
static size_t event_values(hd_conn *c, uint64_t *values, size_t n, size_t max) {
    Hearth__V1__DriverMessage *m[8];
    size_t got = drain(c, m, 8);
    for (size_t i = 0; i < got; i++)
        for (size_t j = 0; m[i]->kind_case == HEARTH__V1__DRIVER_MESSAGE__KIND_EVENTS && j < m[i]->events->n_events; j++)
            if (n < max) values[n++] = m[i]->events->events[j]->fields->fields[0]->value->uint_value;
    free_all(m, got);
    return n;
}

static void event(hearth_driver *d, uint64_t value) {
    hearth_field f = {0, hearth_uint(value)};
    hearth_error e;
    CHECK(hearth_driver_event(d, "a", 1, 0x0402, 3, &f, 1, 1000, &e) == HEARTH_OK);
}

/* Events encoded into a connection that ends before writing them are sent in the next session (within
 * max_events), and counted as sent only once written. */
static void test_events_kept_until_written(void) {
    seen s = {0};
    hearth_driver *d = driver(&s, 8);
    add_sensor(d, "a");
    hd_conn *c = fake_session(d);
    hd_produce(d, c, SIZE_MAX);
    drain(c, (Hearth__V1__DriverMessage *[8]){0}, 0);
    for (uint64_t i = 0; i < 5; i++) event(d, i);
    hd_produce(d, c, SIZE_MAX);
    hd_output_written(d, c->body_framed - 1); /* all but the message's last byte */
    hearth_stats st;
    hearth_driver_stats(d, &st);
    CHECK(st.events_sent == 0 && d->unwritten.ring.count == 5 && d->events.ring.count == 0);
    c = reconnect(d, NULL, 0); /* the 5 wait again; 5 more make 10, over max_events (8): the 2 oldest go */
    for (uint64_t i = 5; i < 10; i++) event(d, i);
    hearth_driver_stats(d, &st);
    CHECK(st.events_sent == 0 && st.events_dropped == 2 && d->events.ring.count == 8);
    uint64_t values[16];
    hd_produce(d, c, SIZE_MAX);
    size_t n = event_values(c, values, 0, 16);
    CHECK(n == 8 && values[0] == 2 && values[7] == 9);
    hd_output_written(d, c->body_framed);
    hearth_driver_stats(d, &st);
    CHECK(st.events_sent == 8 && st.events_dropped == 2 && d->unwritten.ring.count == 0);
    hearth_driver_free(d);
}

/* ---- a peer on a Unix socket ------------------------------------------------------------------------- */

typedef struct peer {
    int listener, fd;
    char path[108], dir[64];
    uint8_t *bytes; /* everything read on the current connection */
    size_t length, cap;
} peer;

static void peer_listen(peer *p) {
    snprintf(p->dir, sizeof p->dir, "/tmp/hearth-unit-XXXXXX");
    CHECK(mkdtemp(p->dir) != NULL);
    snprintf(p->path, sizeof p->path, "%s/hub.sock", p->dir);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", p->path);
    p->listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(bind(p->listener, (struct sockaddr *)&a, sizeof a) == 0 && listen(p->listener, 4) == 0);
    p->fd = -1;
}

/* Takes the driver's connection and opens the HTTP/2 flow-control windows wide (a SETTINGS frame and two
 * WINDOW_UPDATEs, to 2^31 - 1), so what the driver writes is bounded by the socket only. */
static void peer_accept(peer *p) {
    p->fd = accept4(p->listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    CHECK(p->fd >= 0);
    p->length = 0;
    uint8_t frames[9 + 2 * 13] = {0, 0, 0, 4}; /* SETTINGS, empty */
    for (int stream = 0; stream < 2; stream++) {
        uint8_t *w = frames + 9 + 13 * stream;
        w[2] = 4, w[3] = 8, w[8] = (uint8_t)stream, w[9] = 0x7F, w[10] = 0xFF; /* WINDOW_UPDATE 0x7FFF0000 */
    }
    CHECK(write(p->fd, frames, sizeof frames) == (ssize_t)sizeof frames);
}

static void peer_read(peer *p) {
    for (;;) {
        if (p->cap - p->length < 65536) p->bytes = realloc(p->bytes, p->cap = p->cap * 2 + 65536);
        ssize_t n = read(p->fd, p->bytes + p->length, p->cap - p->length);
        if (n <= 0) return;
        p->length += (size_t)n;
    }
}

/* The event values in the whole gRPC messages of the request body the peer has read (DATA on stream 1). */
static size_t peer_events(const peer *p, uint64_t *values, size_t max) {
    static uint8_t body[4 << 20];
    size_t at = 24, length = 0, n = 0; /* after the connection preface */
    while (at + 9 <= p->length) {
        const uint8_t *f = p->bytes + at;
        size_t size = (size_t)f[0] << 16 | (size_t)f[1] << 8 | f[2];
        if (at + 9 + size > p->length) break;
        if (f[3] == 0 && f[8] == 1 && length + size <= sizeof body) { /* DATA, stream 1 (nghttp2 does not pad) */
            memcpy(body + length, f + 9, size);
            length += size;
        }
        at += 9 + size;
    }
    for (size_t m = 0; m + 5 <= length;) {
        size_t size = (size_t)body[m + 1] << 24 | (size_t)body[m + 2] << 16 | (size_t)body[m + 3] << 8 | body[m + 4];
        if (m + 5 + size > length) break;
        Hearth__V1__DriverMessage *msg = hearth__v1__driver_message__unpack(NULL, size, body + m + 5);
        CHECK(msg != NULL);
        for (size_t j = 0; msg && msg->kind_case == HEARTH__V1__DRIVER_MESSAGE__KIND_EVENTS && j < msg->events->n_events; j++)
            if (n < max) values[n++] = msg->events->events[j]->fields->fields[0]->value->uint_value;
        if (msg) hearth__v1__driver_message__free_unpacked(msg, NULL);
        m += 5 + size;
    }
    return n;
}

/* Runs the driver's turns (waiting on its fd up to 10 ms each) until `done` or about five seconds. */
static void turns(hearth_driver *d, bool (*done)(hearth_driver *)) {
    for (int i = 0; i < 500 && !done(d); i++) {
        struct pollfd p = {hearth_driver_fd(d), POLLIN, 0};
        __real_poll(&p, 1, 10);
        hearth_driver_process(d, NULL);
    }
}
static bool has_conn(hearth_driver *d) { return d->conn != NULL; }
static bool waiting(hearth_driver *d) { return d->state == HEARTH_STATE_WAITING; }
static bool blocked(hearth_driver *d) { return d->conn && hd_buffer_length(&d->conn->wire) > 0; }

/* Events through a real nghttp2 session: the connection ends with messages in every buffer (ours, and the
 * frames the kernel would not take); the hub got exactly the events counted as sent, and the rest come in
 * the next session, in order, none twice. */
static void test_events_on_the_wire(void) {
    enum { EVENTS = 30000 };
    peer p = {0};
    peer_listen(&p);
    hearth_config config = {0};
    char hub[120];
    snprintf(hub, sizeof hub, "unix:%s", p.path);
    config.token = "t", config.hub = hub, config.on_log = quiet, config.max_events = EVENTS;
    config.reconnect_initial_ms = 1, config.reconnect_max_ms = 1;
    hearth_error e;
    hearth_driver *d = hearth_driver_new(&config, &e);
    add_sensor(d, "a");
    turns(d, has_conn);
    int sndbuf = 64 << 10; /* well under the ~800 KiB of events, whatever the system's default */
    CHECK(setsockopt(d->conn->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf) == 0);
    peer_accept(&p);
    hd_session_welcomed(d, "wire", NULL, 0);
    for (uint64_t i = 0; i < EVENTS; i++) event(d, i);
    turns(d, blocked); /* the peer reads nothing: the socket fills */
    CHECK(blocked(d) && d->unwritten.ring.count > 0);
    peer_read(&p);
    close(p.fd);
    turns(d, waiting);
    static uint64_t values[EVENTS + 1];
    size_t first = peer_events(&p, values, EVENTS);
    hearth_stats st;
    hearth_driver_stats(d, &st);
    CHECK(d->state == HEARTH_STATE_WAITING && first > 0 && first < EVENTS);
    CHECK(st.events_sent == first && st.events_dropped == 0 && d->events.ring.count == EVENTS - first);

    turns(d, has_conn);
    peer_accept(&p);
    hd_session_welcomed(d, "wire", NULL, 0);
    for (int i = 0; i < 500 && st.events_sent < EVENTS; i++) { /* the peer reads as the driver writes */
        struct pollfd w = {hearth_driver_fd(d), POLLIN, 0};
        __real_poll(&w, 1, 10);
        hearth_driver_process(d, NULL);
        peer_read(&p);
        hearth_driver_stats(d, &st);
    }
    size_t second = peer_events(&p, values + first, EVENTS + 1 - first);
    CHECK(st.events_sent == EVENTS && first + second == EVENTS);
    size_t wrong = 0;
    for (size_t i = 0; i < first + second; i++) wrong += values[i] != i;
    CHECK(wrong == 0);
    hearth_driver_free(d);
    close(p.fd), close(p.listener), unlink(p.path), rmdir(p.dir);
    free(p.bytes);
}

/* ---- allocation failures, the hot path, the loop ------------------------------------------------------ */

static hearth_code add_big(hearth_driver *d, hearth_error *error) {
    hearth_field attrs[] = {{0, hearth_int(1)}, {1, hearth_string("a string value")}};
    hearth_trait_desc t[] = {{0x0402, attrs, 2, HEARTH_LOCALITY_LOCAL}, {0x0003, attrs, 1, HEARTH_LOCALITY_LOCAL}};
    hearth_endpoint_desc ep[] = {{1, 0x0302, true, t, 2}, {2, 0x0302, false, t, 1}};
    hearth_device_desc dev = {"big", "A name", "A room", false, ep, 2};
    return hearth_driver_add_device(d, &dev, error);
}

/* Each allocation failing in turn: the call returns ENOMEM (never EINVAL), with or without an error
 * struct, and leaves nothing behind (the sanitizer build checks leaks). */
static void test_out_of_memory(void) {
    for (int with_error = 0; with_error < 2; with_error++) {
        seen s = {0};
        hearth_driver *d = driver(&s, 0);
        hearth_error e, *error = with_error ? &e : NULL;
        int bad = 0;
        hearth_code rc = HEARTH_ENOMEM;
        for (long at = 0; rc != HEARTH_OK && at < 1000; at++) {
            allocations = 0, fail_at = at;
            rc = add_big(d, error);
            fail_at = -1;
            bad += rc != HEARTH_OK && rc != HEARTH_ENOMEM;
            if (rc != HEARTH_OK) CHECK(!hd_model_find(&d->model, "big"));
        }
        CHECK(rc == HEARTH_OK && bad == 0);
        hearth_field f[] = {{1, hearth_string("another")}, {7, hearth_uint(1)}};
        for (long at = 0, done = 0; !done && at < 100; at++) {
            allocations = 0, fail_at = at;
            rc = hearth_driver_report(d, "big", 1, 0x0402, f, 2, error);
            fail_at = -1;
            CHECK(rc == HEARTH_OK || rc == HEARTH_ENOMEM);
            done = rc == HEARTH_OK;
        }
        for (long at = 0, done = 0; !done && at < 100; at++) {
            allocations = 0, fail_at = at;
            rc = hearth_driver_event(d, "big", 1, 0x0402, 1, f, 2, 0, error);
            fail_at = -1;
            CHECK(rc == HEARTH_OK || rc == HEARTH_ENOMEM);
            done = rc == HEARTH_OK;
        }
        for (long at = 0, done = 0; !done && at < 100; at++) {
            allocations = 0, fail_at = at;
            rc = hearth_driver_remove_device(d, "big", error);
            fail_at = -1;
            CHECK(rc == HEARTH_OK || rc == HEARTH_ENOMEM);
            done = rc == HEARTH_OK;
        }
        CHECK(!hd_model_find(&d->model, "big"));
        hearth_driver_free(d);

        /* The configuration's copies (hearth_driver_new cannot say its code without an error struct). */
        const char *schemas[] = {"{}", "{\"x\": 1}"};
        hearth_config c = {0};
        c.token = "t", c.hub = "[::1]:7070", c.driver_id = "id", c.version = "1";
        c.vendor_trait_schemas_json = schemas, c.vendor_trait_schema_count = 2;
        for (long at = 0, done = 0; !done && at < 100; at++) {
            hearth_driver *x = calloc(1, sizeof *x);
            x->epfd = x->wakefd = x->timerfd = x->stdin_flags = -1;
            allocations = 0, fail_at = at;
            rc = hd_config_copy(x, &c, error);
            fail_at = -1;
            CHECK(rc == HEARTH_OK || rc == HEARTH_ENOMEM);
            done = rc == HEARTH_OK;
            hearth_driver_free(x);
        }
    }
}

/* A report of changed scalar values allocates nothing (the model's scratch is reused). */
static void test_report_allocates_nothing(void) {
    seen s = {0};
    hearth_driver *d = driver(&s, 0);
    add_sensor(d, "a");
    hd_conn *c = fake_session(d);
    hd_produce(d, c, SIZE_MAX);
    drain(c, (Hearth__V1__DriverMessage *[8]){0}, 0);
    hearth_error e;
    hearth_field f[] = {{0, hearth_int(0)}, {1, hearth_string("x")}};
    CHECK(hearth_driver_report(d, "a", 1, 0x0402, f, 1, &e) == HEARTH_OK);
    allocations = 0;
    for (int i = 1; i <= 100; i++) {
        f[0].value = hearth_int(i);
        CHECK(hearth_driver_report(d, "a", 1, 0x0402, f, 2, &e) == HEARTH_OK);
    }
    CHECK(allocations == 0);
    hearth_driver_free(d);
}

/* watch_stdin makes standard input non-blocking while the driver lives, and only then. */
static void test_stdin_flags(void) {
    int saved = dup(STDIN_FILENO), pipe_fds[2];
    CHECK(saved >= 0 && pipe(pipe_fds) == 0 && dup2(pipe_fds[0], STDIN_FILENO) == STDIN_FILENO);
    int before = fcntl(STDIN_FILENO, F_GETFL);
    hearth_config c = {0};
    c.token = "t", c.on_log = quiet, c.watch_stdin = 1;
    hearth_driver *d = hearth_driver_new(&c, NULL);
    CHECK(d && d->stdin_watched && (fcntl(STDIN_FILENO, F_GETFL) & O_NONBLOCK));
    hearth_driver_free(d);
    CHECK(!(before & O_NONBLOCK) && fcntl(STDIN_FILENO, F_GETFL) == before);
    dup2(saved, STDIN_FILENO);
    close(saved), close(pipe_fds[0]), close(pipe_fds[1]);
}

static void stop_at_ten(hearth_driver *d, void *user) {
    if (++*(int *)user == 10) hearth_driver_stop(d);
}

/* run() blocks once per turn: one epoll_wait, no poll() before it and no second look after it. */
static void test_run_waits_once(void) {
    int ticks = 0;
    hearth_config c = {0};
    c.token = "t", c.hub = "unix:/nonexistent/hearth-unit.sock", c.on_log = quiet;
    c.on_tick = stop_at_ten, c.tick_ms = 5, c.user = &ticks;
    hearth_error e;
    hearth_driver *d = hearth_driver_new(&c, &e);
    polls = nonblocking_waits = blocking_waits = 0;
    CHECK(hearth_driver_run(d, &e) == HEARTH_OK && ticks == 10);
    CHECK(polls == 0 && nonblocking_waits == 0 && blocking_waits >= 10);
    hearth_driver_free(d);
}

int main(void) {
    test_utf8();
    test_values();
    test_config();
    test_model_and_reports();
    test_many_traits();
    test_events();
    test_requests();
    test_wire_check();
    test_removals_across_sessions();
    test_events_kept_until_written();
    test_events_on_the_wire();
    test_out_of_memory();
    test_report_allocates_nothing();
    test_stdin_flags();
    test_run_waits_once();
    printf("unit: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
