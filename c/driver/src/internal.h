/* libhearth-driver internals: the driver object and the pieces its source files share.
 *
 * Layout of the work:
 *   driver.c   public entry points (lock, check, delegate), creation and teardown
 *   config.c   defaults, checks and copies of the configuration; the hub address
 *   loop.c     the state machine: connect, lose, back off, stop; timers; run() and process()
 *   conn.c     one connection: socket, nghttp2 client session, bytes in and out
 *   inbound.c  gRPC deframing, checking and decoding HubMessages, dispatch to callbacks
 *   produce.c  encoding what waits (answers, announcements, events, reports) when nghttp2 asks for data
 *   model.c    the devices with their current values, and which traits have unsent changes
 *   removals.c removed device ids, kept until a Welcome shows the hub has taken them
 *   value.c    hearth_value <-> protobuf-c trees; UTF-8 and depth checks
 *   util.c     errors, logging, time, buffers, rings, packing
 *
 * Outbound data is pulled, not pushed: nothing is encoded until nghttp2's data provider asks for bytes,
 * which it does only while the hub's flow-control window is open. So a slow hub leaves changes coalesced
 * in the model (newest value per attribute) instead of growing a queue. */
#ifndef HEARTH_DRIVER_INTERNAL_H
#define HEARTH_DRIVER_INTERNAL_H

#define _GNU_SOURCE
#include "hearth/driver.h"
#include "hearth/v1/driver_service.pb-c.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#define HD_HIDDEN __attribute__((visibility("hidden")))

/* Fixed bounds that are not worth a config field. */
#define HD_MAX_DESC_BYTES ((size_t)1 << 20)   /* a device's announcement, an event, an answer, when packed */
#define HD_MAX_OUT_MESSAGE ((size_t)1 << 20)  /* Announce and Report messages are cut at about this size */
#define HD_MAX_PROTO_DEPTH 64                 /* nesting of inbound protobuf messages */
#define HD_MAX_HEADER_BYTES 8192              /* one header block from the hub (name + value + 32 each) */
#define HD_MAX_REMOVALS 65536                 /* removed ids kept (waiting, or sent and not yet confirmed) */
#define HD_MAX_QUEUED_BYTES ((size_t)16 << 20) /* events waiting, and answers waiting, each */
#define HD_MAX_ADDRESSES 8                    /* resolved addresses tried per attempt */
#define HD_WRITE_ROUND ((size_t)256 << 10)    /* serialized bytes gathered before one send(2) */
#define HD_READ_SIZE ((size_t)64 << 10)

/* What each descriptor in the driver's epoll set is (epoll_event.data.u32). */
enum { HD_TAG_SOCKET = 1, HD_TAG_WAKE, HD_TAG_TIMER, HD_TAG_STDIN };

/* ---- util.c ------------------------------------------------------------------------------------------ */

typedef struct hd_buffer {
    uint8_t *data;
    size_t start, end, cap;
} hd_buffer;

HD_HIDDEN int hd_buffer_reserve(hd_buffer *b, size_t more, size_t limit);
static inline size_t hd_buffer_length(const hd_buffer *b) { return b->end - b->start; }
HD_HIDDEN void hd_buffer_free(hd_buffer *b);

HD_HIDDEN hearth_code hd_fail(hearth_error *error, hearth_code code, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
HD_HIDDEN uint64_t hd_now(void); /* CLOCK_MONOTONIC, ns */
HD_HIDDEN int64_t hd_unix_ms(void);
HD_HIDDEN bool hd_utf8_valid(const char *s, size_t length);
/* A copy of `s` ("" for NULL), checked to be UTF-8 of at most `max` bytes; NULL with `error` set. */
HD_HIDDEN char *hd_strdup_checked(const char *s, size_t max, const char *what, hearth_error *error);
HD_HIDDEN size_t hd_varint_size(uint64_t v);
HD_HIDDEN uint8_t *hd_put_varint(uint8_t *p, uint64_t v);
HD_HIDDEN uint64_t hd_hash(const char *s); /* FNV-1a */

/* A FIFO (a deque, at need) of fixed-size items in one circular array, grown on demand. The capacity is 0
 * or a power of two; the item size is given at each call (sizeof the item). It holds the dirty traits, the
 * events and answers waiting, the removals, and where the body ends in the frames on the wire. */
typedef struct hd_ring {
    uint8_t *items;
    size_t head, count, cap;
} hd_ring;

/* Room for `need` items in all, order kept; -1 when out of memory. */
HD_HIDDEN int hd_ring_reserve(hd_ring *r, size_t need, size_t size);
HD_HIDDEN void hd_ring_free(hd_ring *r);
/* Item i from the front. */
static inline void *hd_ring_at(const hd_ring *r, size_t i, size_t size) {
    return r->items + ((r->head + i) & (r->cap - 1)) * size;
}
/* A slot for one more item at the back (or the front); NULL when out of memory. */
static inline void *hd_ring_push(hd_ring *r, size_t size) {
    if (r->count == r->cap && hd_ring_reserve(r, r->count + 1, size) != 0) return NULL;
    r->count++;
    return hd_ring_at(r, r->count - 1, size);
}
static inline void *hd_ring_push_front(hd_ring *r, size_t size) {
    if (r->count == r->cap && hd_ring_reserve(r, r->count + 1, size) != 0) return NULL;
    r->head = (r->head + r->cap - 1) & (r->cap - 1);
    r->count++;
    return hd_ring_at(r, 0, size);
}
static inline void hd_ring_pop(hd_ring *r) { /* the front item; the ring must not be empty */
    r->head = (r->head + 1) & (r->cap - 1);
    r->count--;
}

/* A packed message body waiting to be framed (an event, or a CommandResult). `end`: for an event written
 * into the connection's stream, where its message ends there (see hd_conn.body_framed). */
typedef struct hd_blob {
    uint8_t *data;
    size_t length;
    uint64_t end;
} hd_blob;

/* Packs `m` into a new blob of at most HD_MAX_DESC_BYTES (ELIMIT beyond; `what` names it). */
HD_HIDDEN hearth_code hd_blob_pack(const ProtobufCMessage *m, hd_blob *out, const char *what, hearth_error *error);

/* A queue of blobs, with the bytes they hold. */
typedef struct hd_blobs {
    hd_ring ring;
    size_t bytes;
} hd_blobs;

/* Appends a blob; beyond `max_count` blobs or `max_bytes` bytes, drops the oldest (counting them in
 * *dropped) or, without drop_oldest, refuses (HEARTH_ELIMIT). HEARTH_ENOMEM when out of memory. */
HD_HIDDEN hearth_code hd_blobs_push(hd_blobs *q, hd_blob blob, size_t max_count, size_t max_bytes, bool drop_oldest,
                            uint64_t *dropped);
/* Frees the oldest blobs while more than `max_count` or `max_bytes` are held, counting them in *dropped. */
HD_HIDDEN void hd_blobs_trim(hd_blobs *q, size_t max_count, size_t max_bytes, uint64_t *dropped);
static inline hd_blob *hd_blobs_peek(hd_blobs *q) { return q->ring.count ? hd_ring_at(&q->ring, 0, sizeof(hd_blob)) : NULL; }
/* Takes the oldest blob off the queue (its data is the caller's). */
HD_HIDDEN hd_blob hd_blobs_take(hd_blobs *q);
/* Frees every blob (and the queue's array). */
HD_HIDDEN void hd_blobs_free(hd_blobs *q);

/* ---- value.c ----------------------------------------------------------------------------------------- */

/* A stored value: scalars live in `inline_value`; strings, bytes, lists and structs in one block. */
typedef struct hd_stored {
    Hearth__V1__Value inline_value;
    void *block;
} hd_stored;

/* Checks `v` (kinds, UTF-8, depth) and builds its protobuf-c tree into `out`. */
HD_HIDDEN hearth_code hd_value_store(hd_stored *out, const hearth_value *v, hearth_error *error);
HD_HIDDEN void hd_value_release(hd_stored *stored);
/* The tree of a stored value. */
static inline Hearth__V1__Value *hd_stored_value(hd_stored *s) {
    return s->block ? (Hearth__V1__Value *)s->block : &s->inline_value;
}
HD_HIDDEN bool hd_value_equal(const hearth_value *a, const Hearth__V1__Value *b);

/* A StructValue for `fields` (NULL when count is 0), one block to free(). */
HD_HIDDEN hearth_code hd_struct_build(Hearth__V1__StructValue **out, const hearth_field *fields, size_t count,
                                      hearth_error *error);
/* hearth_fields view of a decoded StructValue, in one block to free() (NULL when empty). -1: too deep. */
HD_HIDDEN int hd_fields_view(const Hearth__V1__StructValue *s, hearth_field **out, size_t *count);
HD_HIDDEN int hd_attributes_view(Hearth__V1__Attribute *const *attributes, size_t n, hearth_field **out);

/* ---- model.c ----------------------------------------------------------------------------------------- */

/* Each record embeds its protobuf-c message first, so a pointer to one is a pointer to the other and the
 * model can be packed as it stands. */
typedef struct hd_attribute {
    Hearth__V1__Attribute pb;
    hd_stored value;
    bool dirty;
} hd_attribute;

typedef struct hd_device hd_device;

typedef struct hd_trait {
    Hearth__V1__AnnouncedTrait pb; /* pb.attributes holds hd_attribute pointers */
    hd_device *device;
    uint32_t endpoint;
    size_t attribute_cap;
    size_t dirty_count; /* attributes with unsent changes */
    Hearth__V1__ConnectivityState connectivity, sent_connectivity;
    bool connectivity_dirty;
    bool queued; /* in the dirty ring */
} hd_trait;

typedef struct hd_endpoint {
    Hearth__V1__AnnouncedType pb; /* pb.traits holds hd_trait pointers */
} hd_endpoint;

struct hd_device {
    Hearth__V1__DeviceAnnouncement pb; /* pb.types holds hd_endpoint pointers */
    hd_device *next;                   /* hash chain */
    size_t index;                      /* in model.devices */
    size_t trait_count;
    bool needs_announce;               /* this session has not announced it yet */
};

typedef struct hd_model {
    hd_device **buckets;
    size_t bucket_count;
    hd_device **devices; /* every device, for announcing */
    size_t count, cap;
    size_t announce_pending;
    size_t trait_total;
    hd_ring dirty; /* hd_trait *: traits with unsent changes, oldest first; room for every trait */
    struct hd_update_slot *slots; /* scratch of hd_model_update(), grown on demand */
    size_t slot_cap;
} hd_model;

HD_HIDDEN void hd_model_free(hd_model *m);
HD_HIDDEN hd_device *hd_model_find(const hd_model *m, const char *id);
/* Adds or replaces a device, marked for announcement. */
HD_HIDDEN hearth_code hd_model_add(hd_model *m, const hearth_device_desc *desc, hearth_error *error);
HD_HIDDEN void hd_model_remove(hd_model *m, hd_device *device);
HD_HIDDEN hd_trait *hd_model_trait(hd_device *device, uint32_t endpoint, uint32_t trait_id);
/* Stores new values (all or none); marks what changed dirty (queued for the hub) when `queue`. Returns 1 if
 * anything changed, 0 if not, minus a hearth_code on failure. */
HD_HIDDEN int hd_model_update(hd_model *m, hd_trait *t, const hearth_field *attributes, size_t count,
                              bool queue, hearth_error *error);
HD_HIDDEN void hd_model_set_connectivity(hd_model *m, hd_trait *t, Hearth__V1__ConnectivityState c, bool queue);
/* Marks every device for announcement and forgets unsent changes (a new session announces values). */
HD_HIDDEN void hd_model_begin_session(hd_model *m);
HD_HIDDEN hd_trait *hd_model_pop_dirty(hd_model *m);
HD_HIDDEN void hd_model_push_front(hd_model *m, hd_trait *t);
HD_HIDDEN hd_device *hd_device_at(const hd_model *m, size_t i);
HD_HIDDEN void hd_device_free(hd_device *d);
static inline hd_attribute *hd_attr(const hd_trait *t, size_t i) { return (hd_attribute *)t->pb.attributes[i]; }
static inline hd_endpoint *hd_ep(const hd_device *d, size_t i) { return (hd_endpoint *)d->pb.types[i]; }
static inline hd_trait *hd_tr(const hd_endpoint *e, size_t i) { return (hd_trait *)e->pb.traits[i]; }

/* ---- removals.c -------------------------------------------------------------------------------------- */

typedef struct hd_removal hd_removal;

typedef struct hd_removals {
    hd_removal **buckets; /* hash chains (a fixed number), allocated with the first removal */
    hd_ring pending;      /* hd_removal *: to be sent in this session (or the next), oldest first */
    hd_ring sent;         /* hd_removal *: sent, kept until a Welcome settles them, oldest first */
} hd_removals;

/* A device was removed: its id is to be sent (ELIMIT when HD_MAX_REMOVALS wait to be sent). */
HD_HIDDEN hearth_code hd_removals_add(hd_removals *r, const char *id, hearth_error *error);
/* A device was added: a removal of the same id still waiting goes out once, before the announcement;
 * one already sent is forgotten. */
HD_HIDDEN void hd_removals_readded(hd_removals *r, const char *id);
/* The id of the i-th removal waiting to be sent. */
HD_HIDDEN char *hd_removals_id(const hd_removals *r, size_t i);
/* The first n waiting removals were encoded. */
HD_HIDDEN void hd_removals_sent(hd_removals *r, size_t n);
/* A Welcome: removals the hub still knows (`known`, local ids) wait to be sent again, the rest are forgotten. */
HD_HIDDEN void hd_removals_welcome(hd_removals *r, char *const *known, size_t n);
HD_HIDDEN void hd_removals_free(hd_removals *r);

/* ---- the driver -------------------------------------------------------------------------------------- */

typedef struct hd_pending {
    uint64_t id;
    uint64_t expires; /* hd_now() ns */
} hd_pending;

typedef struct hd_address {
    struct sockaddr_storage addr;
    socklen_t length;
} hd_address;

typedef struct hd_conn hd_conn;

struct hearth_driver {
    pthread_mutex_t lock; /* recursive: callbacks run with it held and may call back in */
    atomic_int stop_requested;
    int epfd, wakefd, timerfd;
    bool woken; /* wakefd written and not yet drained */

    /* Configuration (strings owned). */
    hearth_config config; /* callbacks, user, limits with defaults applied */
    char *hub, *token, *driver_id, *version;
    char **schemas;
    size_t schema_count;
    char *unix_path;      /* the hub's Unix socket, or NULL for TCP */
    char *host, *port;    /* TCP */
    char authority[300];

    /* Life. */
    hearth_state state;
    bool started, stopping, finished, in_process, running, stdin_watched;
    hearth_error final; /* why it finished */
    unsigned attempt;   /* failed attempts since the last Welcome */
    uint64_t next_connect, stop_deadline, next_tick, next_sweep, armed;
    uint64_t random; /* xorshift state for jitter */
    hd_conn *conn;
    char epoch[128];

    /* What waits to go out. */
    hd_model model;
    hd_blobs events;    /* waiting to be encoded */
    hd_blobs unwritten; /* encoded into this connection's stream, not yet written to the socket */
    hd_blobs results;
    hd_removals removals;
    hd_pending *pending;
    size_t pending_count;
    bool schemas_sent; /* this session */

    /* Scratch for encoding reports (reused). */
    Hearth__V1__TraitReport *scratch_reports;
    Hearth__V1__Attribute **scratch_attributes;
    size_t scratch_attribute_cap;
    size_t *scratch_sizes, *scratch_offsets; /* per trait report: packed size, first attribute */

    hearth_stats stats;
    int stdin_flags; /* standard input's file status flags before watch_stdin made it non-blocking */
};

/* Fills d's configuration from `config` (config.c). */
HD_HIDDEN hearth_code hd_config_copy(hearth_driver *d, const hearth_config *config, hearth_error *error);
HD_HIDDEN void hd_log(hearth_driver *d, hearth_log_level level, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
/* Makes the driver's fd readable so the loop (or the embedder's) runs process() soon. */
HD_HIDDEN void hd_wake(hearth_driver *d);
HD_HIDDEN bool hd_connected(const hearth_driver *d);

/* ---- conn.c ------------------------------------------------------------------------------------------ */

/* How a connection is doing, as the loop sees it after each step. */
typedef enum hd_conn_status {
    HD_CONN_OPEN = 0,
    HD_CONN_ENDED,  /* the call ended (trailers or reset): see grpc_status/message */
    HD_CONN_FAILED, /* the socket or the HTTP/2 session failed: see message */
} hd_conn_status;

struct hd_conn {
    hearth_driver *driver;
    int fd;
    bool tcp_connecting; /* non-blocking connect in progress */
    size_t address_index, address_count;
    hd_address addresses[HD_MAX_ADDRESSES];
    struct nghttp2_session *session;
    int32_t stream_id;
    hd_buffer out;  /* framed messages not yet taken by nghttp2 */
    hd_buffer wire; /* serialized frames not yet taken by the kernel */
    /* Where the request body stands: bytes ever framed into `out` (so body_framed - length(out) have gone
     * to nghttp2), and, per chunk of frames in `wire` that carried body bytes, how far the body had got
     * when the chunk ends (hd_mark, oldest first), so written bytes map back to written messages. */
    uint64_t body_framed, body_marked, wire_appended, wire_sent;
    hd_ring marks;
    hd_buffer in;   /* inbound bytes short of a whole message */
    uint8_t *read_buffer;
    size_t header_bytes;
    bool deferred, eof_sent, welcomed, hello_sent, remote_closed, stream_closed, ping_outstanding;
    uint64_t welcome_deadline, last_inbound, ping_deadline, keepalive_check;
    uint32_t interest; /* epoll events registered for the socket */
    int http_status, grpc_status; /* -1: none */
    hd_conn_status status;
    char message[256]; /* why it ended or failed */
};

/* Starts a connection attempt; NULL with `error` set when it cannot even start. */
HD_HIDDEN hd_conn *hd_conn_open(hearth_driver *d, hearth_error *error);
HD_HIDDEN void hd_conn_close(hd_conn *c);
/* The socket is ready (events from epoll). */
HD_HIDDEN void hd_conn_ready(hd_conn *c, uint32_t events);
/* Resumes the request stream if there is something to send and writes what the session has. */
HD_HIDDEN void hd_conn_flush(hd_conn *c);
HD_HIDDEN void hd_conn_ping(hd_conn *c);
HD_HIDDEN void hd_conn_failed(hd_conn *c, const char *format, ...) __attribute__((format(printf, 2, 3)));
HD_HIDDEN bool hd_conn_wants_write(const hd_conn *c);

/* ---- inbound.c --------------------------------------------------------------------------------------- */

/* Appends stream bytes and handles every whole message; -1 (conn marked failed) on a framing error. */
HD_HIDDEN int hd_inbound_data(hd_conn *c, const uint8_t *data, size_t length);
/* Decodes and handles one HubMessage payload. */
HD_HIDDEN void hd_inbound_message(hearth_driver *d, const uint8_t *data, size_t length);
/* 0 when `data` parses as `descriptor` with nesting at most `max_depth`; -1 otherwise. Iterative. */
HD_HIDDEN int hd_wire_check(const ProtobufCMessageDescriptor *descriptor, const uint8_t *data, size_t length,
                            unsigned max_depth);
HD_HIDDEN void hd_requests_clear(hearth_driver *d);
HD_HIDDEN void hd_requests_expire(hearth_driver *d, uint64_t now);
HD_HIDDEN int hd_request_take(hearth_driver *d, uint64_t id);
HD_HIDDEN bool hd_request_pending(const hearth_driver *d, uint64_t id);

/* ---- produce.c --------------------------------------------------------------------------------------- */

/* Whether anything waits to be encoded for this session. */
HD_HIDDEN bool hd_has_output(const hearth_driver *d);
/* Encodes waiting messages into c->out until it holds at least `want` bytes or nothing is left. */
HD_HIDDEN void hd_produce(hearth_driver *d, hd_conn *c, size_t want);
/* The body is written to the socket up to `body` (a hd_conn.body_framed offset): events up to there are sent. */
HD_HIDDEN void hd_output_written(hearth_driver *d, uint64_t body);
/* The connection is gone: events it had not written go back to the front of the queue. */
HD_HIDDEN void hd_output_lost(hearth_driver *d);
/* Packs a CommandResult and queues it. */
HD_HIDDEN hearth_code hd_queue_result(hearth_driver *d, uint64_t id, const hearth_field *fields, size_t count,
                                      uint32_t status, const char *message, hearth_error *error);

/* ---- loop.c ------------------------------------------------------------------------------------------ */

/* One turn: handles the `n` ready descriptors in `events` (epoll_wait'ed for by the caller, without the
 * lock; NULL: looks now, without blocking), then timers and writes; arms the timer for the next. */
HD_HIDDEN hearth_code hd_process(hearth_driver *d, const struct epoll_event *events, int n, hearth_error *error);
/* Blocks until the driver has work; the ready descriptors go to `events`. -1 with errno when epoll fails. */
HD_HIDDEN int hd_wait(hearth_driver *d, struct epoll_event *events, int max);
/* Welcome arrived; `known`: the driver's devices the hub has (local ids). */
HD_HIDDEN void hd_session_welcomed(hearth_driver *d, const char *epoch, char *const *known, size_t known_count);

#endif
