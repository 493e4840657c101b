/* libhearth-driver: write a Hearth device-family driver in C.
 *
 * A driver is one process holding the devices of one family (a Zigbee stick, a vendor cloud, a serial
 * bus). It connects to the hub with its token, announces its devices, reports what they do, and answers
 * the commands and attribute writes the hub routes to it. This library does the protocol (gRPC over
 * HTTP/2 on libnghttp2, messages on libprotobuf-c, Protos/hearth/v1/driver_service.proto in the Hearth
 * repository) and the connection's life: reconnecting with backoff, announcing again after every
 * reconnect with the values the devices have then, keepalive, a clean stop. Docs/CDriver.md is the
 * reference with a walk-through; examples/sensors.c is a complete driver.
 *
 *     hearth_config config = {0};
 *     hearth_config_from_env(&config);           // HEARTH_HUB, HEARTH_DRIVER_TOKEN, HEARTH_SUPERVISED
 *     config.on_request = on_request;            // commands and writes
 *     hearth_error error;
 *     hearth_driver *driver = hearth_driver_new(&config, &error);
 *     hearth_driver_add_device(driver, &lamp, &error);
 *     hearth_driver_run(driver, &error);         // until hearth_driver_stop() (e.g. from SIGTERM)
 *     hearth_driver_free(driver);
 *
 * Errors. Every function that can fail returns a hearth_code (HEARTH_OK is 0) and, when `error` is not
 * NULL, fills it with the code and a message saying what and why; the code is the same either way. Log
 * lines go to the on_log callback, or to stderr when there is none.
 *
 * Threads. A driver has an internal lock: every function may be called from any thread, except as noted.
 * hearth_driver_run() or hearth_driver_process() (one thread at a time) do the I/O and call the callbacks
 * on their thread with the lock held, so callbacks may call the driver's functions (not run, process or
 * free) and must not block. hearth_driver_stop() is also async-signal-safe. hearth_driver_new() and
 * hearth_driver_free() must not race with any other call on the same driver. The library keeps no global
 * state; any number of drivers may live in one process.
 *
 * Memory. Descriptions and values passed in are copied before the call returns. Pointers the library
 * passes to callbacks are valid only during the callback. Everything the library buffers is bounded:
 * reports are coalesced per trait (newest value wins) while the hub is slow or away, events are kept up to
 * a count (oldest dropped and counted), answers up to the number of requests in flight, removals up to
 * 65,536 ids.
 */
#ifndef HEARTH_DRIVER_H
#define HEARTH_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define HEARTH_API __attribute__((visibility("default")))
#else
#define HEARTH_API
#endif

#define HEARTH_DRIVER_VERSION "0.1.0"

/* ---- Errors ------------------------------------------------------------------------------------------ */

typedef enum hearth_code {
    HEARTH_OK = 0,
    HEARTH_EINVAL = 1,    /* a bad argument: a NULL, an id that is not UTF-8, a value nested too deep */
    HEARTH_ENOMEM = 2,    /* out of memory */
    HEARTH_ENOTFOUND = 3, /* no such device, endpoint or trait; or no request with that id in flight */
    HEARTH_ELIMIT = 4,    /* a bound was reached (see hearth_config) */
    HEARTH_ECONFIG = 5,   /* the configuration is unusable (no token, a malformed hub address) */
    HEARTH_ESTATE = 6,    /* not now: process() called from a callback, run() called twice */
    HEARTH_EIO = 7,       /* a system call failed (epoll, eventfd, ...) */
    HEARTH_EREFUSED = 8,  /* the hub refused the token (UNAUTHENTICATED, PERMISSION_DENIED): final */
    HEARTH_EREPLACED = 9, /* another process of this driver took over (ABORTED): final */
    HEARTH_ESTOPPED = 10, /* the driver has stopped after hearth_driver_stop() */
} hearth_code;

typedef struct hearth_error {
    hearth_code code;
    char message[256];
} hearth_error;

/* The code's name, e.g. "HEARTH_ENOTFOUND". Never NULL. */
HEARTH_API const char *hearth_code_name(int code);

/* gRPC status codes, for hearth_driver_fail() and rejections. */
enum {
    HEARTH_STATUS_CANCELLED = 1,
    HEARTH_STATUS_UNKNOWN = 2,
    HEARTH_STATUS_INVALID_ARGUMENT = 3,
    HEARTH_STATUS_DEADLINE_EXCEEDED = 4,
    HEARTH_STATUS_NOT_FOUND = 5,
    HEARTH_STATUS_PERMISSION_DENIED = 7,
    HEARTH_STATUS_RESOURCE_EXHAUSTED = 8,
    HEARTH_STATUS_FAILED_PRECONDITION = 9,
    HEARTH_STATUS_ABORTED = 10,
    HEARTH_STATUS_OUT_OF_RANGE = 11,
    HEARTH_STATUS_UNIMPLEMENTED = 12,
    HEARTH_STATUS_INTERNAL = 13,
    HEARTH_STATUS_UNAVAILABLE = 14,
};

/* ---- Values ------------------------------------------------------------------------------------------ */

/* The shape of a value; the catalog (or a vendor schema) gives it its meaning. Mirrors hearth.v1.Value. */
typedef enum hearth_kind {
    HEARTH_NULL = 0, /* the null of a nullable attribute or field */
    HEARTH_BOOL,
    HEARTH_INT,    /* signed integers of any Matter width */
    HEARTH_UINT,   /* unsigned integers and bitmaps */
    HEARTH_DOUBLE,
    HEARTH_STRING, /* UTF-8 without NUL bytes */
    HEARTH_BYTES,
    HEARTH_ENUM,   /* an enum's raw number */
    HEARTH_LIST,
    HEARTH_STRUCT, /* fields by numeric id */
} hearth_kind;

typedef struct hearth_field hearth_field;

/* One value. Build them with the helpers below: hearth_uint(3), hearth_string("x"), ... */
typedef struct hearth_value {
    hearth_kind kind;
    union {
        bool b;
        int64_t i;
        uint64_t u;
        double d;
        uint32_t e;
        struct { const char *data; size_t length; } str;               /* HEARTH_STRING, HEARTH_BYTES */
        struct { const struct hearth_value *items; size_t count; } list; /* HEARTH_LIST */
        struct { const hearth_field *fields; size_t count; } fields;     /* HEARTH_STRUCT */
    } as;
} hearth_value;

/* An attribute (id and value), a command field, a struct member or an event field. */
struct hearth_field {
    uint32_t id;
    hearth_value value;
};

/* Values are nested at most this deep (a list in a struct in a list ... counts each level). */
#define HEARTH_MAX_VALUE_DEPTH 16

static inline hearth_value hearth_null(void) { hearth_value v = {HEARTH_NULL, {0}}; return v; }
static inline hearth_value hearth_bool(bool b) { hearth_value v = {HEARTH_BOOL, {0}}; v.as.b = b; return v; }
static inline hearth_value hearth_int(int64_t i) { hearth_value v = {HEARTH_INT, {0}}; v.as.i = i; return v; }
static inline hearth_value hearth_uint(uint64_t u) { hearth_value v = {HEARTH_UINT, {0}}; v.as.u = u; return v; }
static inline hearth_value hearth_double(double d) { hearth_value v = {HEARTH_DOUBLE, {0}}; v.as.d = d; return v; }
static inline hearth_value hearth_enum(uint32_t e) { hearth_value v = {HEARTH_ENUM, {0}}; v.as.e = e; return v; }
/* The data is not copied here: it must stay valid until the call the value is passed to returns. */
static inline hearth_value hearth_string(const char *s) {
    hearth_value v = {HEARTH_STRING, {0}};
    v.as.str.data = s, v.as.str.length = s ? strlen(s) : 0;
    return v;
}
static inline hearth_value hearth_bytes(const void *data, size_t length) {
    hearth_value v = {HEARTH_BYTES, {0}};
    v.as.str.data = (const char *)data, v.as.str.length = length;
    return v;
}
static inline hearth_value hearth_list(const hearth_value *items, size_t count) {
    hearth_value v = {HEARTH_LIST, {0}};
    v.as.list.items = items, v.as.list.count = count;
    return v;
}
static inline hearth_value hearth_struct(const hearth_field *fields, size_t count) {
    hearth_value v = {HEARTH_STRUCT, {0}};
    v.as.fields.fields = fields, v.as.fields.count = count;
    return v;
}

/* The field with `id` in `fields`, or NULL. Handy in request callbacks. */
HEARTH_API const hearth_value *hearth_find_field(const hearth_field *fields, size_t count, uint32_t id);

/* ---- Devices ----------------------------------------------------------------------------------------- */

/* Where a trait's data comes from (hearth.v1.DataSourceLocality). */
typedef enum hearth_locality {
    HEARTH_LOCALITY_UNSPECIFIED = 0,
    HEARTH_LOCALITY_LOCAL = 1,
    HEARTH_LOCALITY_REMOTE = 2,
    HEARTH_LOCALITY_PEER_TO_PEER = 3,
    HEARTH_LOCALITY_MIXED = 4,
} hearth_locality;

/* Whether a trait can be reached (hearth.v1.ConnectivityState). */
typedef enum hearth_connectivity {
    HEARTH_CONNECTIVITY_ONLINE = 1,
    HEARTH_CONNECTIVITY_OFFLINE = 2,
} hearth_connectivity;

/* A trait (Matter cluster or vendor trait) on an endpoint, with its attributes' initial values. */
typedef struct hearth_trait_desc {
    uint32_t trait_id;
    const hearth_field *attributes;
    size_t attribute_count;
    hearth_locality locality;
} hearth_trait_desc;

/* A device type instance (a Matter endpoint). Exactly one endpoint of a device is primary. */
typedef struct hearth_endpoint_desc {
    uint32_t endpoint;
    uint32_t device_type_id;
    bool primary;
    const hearth_trait_desc *traits;
    size_t trait_count;
} hearth_endpoint_desc;

/* A device as the driver describes it. `id` is the driver's own (the hub scopes it as "<driver>/<id>").
 * `name` and `room` are used only when the hub first sees the device: after that they belong to the user.
 * Either may be NULL. */
typedef struct hearth_device_desc {
    const char *id;
    const char *name;
    const char *room;
    bool is_matter_device;
    const hearth_endpoint_desc *endpoints;
    size_t endpoint_count;
} hearth_device_desc;

/* Pass as `endpoint` to mean "the first endpoint that has this trait". */
#define HEARTH_ANY_ENDPOINT UINT32_MAX

/* ---- Requests from the hub --------------------------------------------------------------------------- */

typedef enum hearth_request_kind {
    HEARTH_REQUEST_COMMAND = 1, /* run command `command_id` with `fields` as its arguments */
    HEARTH_REQUEST_WRITE = 2,   /* write the attributes in `fields` */
} hearth_request_kind;

/* A command or an attribute write the hub routes to the driver. The hub has already checked the caller's
 * rights, the device, the trait and the values against the catalog; the driver checks what only it can
 * know. Answer every request once, now or later, with hearth_driver_succeed() or hearth_driver_fail(). */
typedef struct hearth_request {
    hearth_request_kind kind;
    uint64_t id;           /* pass to succeed/fail */
    const char *device_id; /* the driver's local id */
    uint32_t endpoint;
    uint32_t trait_id;
    uint32_t command_id;        /* commands only */
    const hearth_field *fields; /* command arguments, or attributes to write */
    size_t field_count;
    uint32_t timeout_ms; /* time left of the caller's deadline; the hub gives up on the answer after it */
} hearth_request;

/* ---- Configuration ----------------------------------------------------------------------------------- */

typedef struct hearth_driver hearth_driver;

typedef enum hearth_state {
    HEARTH_STATE_IDLE = 0,   /* created; nothing started until run() or process() */
    HEARTH_STATE_CONNECTING, /* dialling, or waiting for the hub's Welcome */
    HEARTH_STATE_CONNECTED,  /* welcomed: announcing, reporting, serving requests */
    HEARTH_STATE_WAITING,    /* lost the hub; reconnecting after a backoff */
    HEARTH_STATE_STOPPING,   /* after hearth_driver_stop(): sending what is queued, then closing */
    HEARTH_STATE_STOPPED,    /* finished: stopped, or refused for good (the error says which) */
} hearth_state;

typedef enum hearth_log_level {
    HEARTH_LOG_DEBUG = 1,
    HEARTH_LOG_INFO = 2,
    HEARTH_LOG_WARNING = 3,
    HEARTH_LOG_ERROR = 4,
} hearth_log_level;

/* A command or write arrived. Answer with hearth_driver_succeed()/hearth_driver_fail(), here or later. */
typedef void (*hearth_request_fn)(hearth_driver *driver, const hearth_request *request, void *user);
/* The connection's state changed. `why` says why a connection ended (NULL otherwise); `epoch` is the hub's
 * epoch when CONNECTED (NULL otherwise). */
typedef void (*hearth_state_fn)(hearth_driver *driver, hearth_state state, const hearth_error *why,
                                const char *epoch, void *user);
/* The hub refused part of what the driver sent (an announced device, a report, an event, an answer); the
 * session goes on. `subject` is a local device id, "device/endpoint/trait" or a request id; `code` a gRPC
 * status. Without this callback, rejections are logged as warnings. */
typedef void (*hearth_rejection_fn)(hearth_driver *driver, const char *subject, uint32_t code,
                                    const char *message, void *user);
/* A log line (no newline). Without this callback, lines at `log_level` and above go to stderr. */
typedef void (*hearth_log_fn)(void *user, hearth_log_level level, const char *message);
/* Called every `tick_ms` on the loop's thread: the place for polling hardware or simulating. */
typedef void (*hearth_tick_fn)(hearth_driver *driver, void *user);

/* What hearth_driver_new() needs. Start from `hearth_config config = {0};`: every zero field takes the
 * default written beside it. Strings are copied. */
typedef struct hearth_config {
    /* The hub: "host:port", "[v6addr]:port", "unix:/path" or "/path" (a Unix socket). NULL:
     * "127.0.0.1:7070". Host names are resolved (blocking) at each connection attempt. */
    const char *hub;
    /* The driver's token (a "drivers" entry of the hub's config, or the one the hub gives a plugin). */
    const char *token;
    /* The driver id the token belongs to, sent in Hello; NULL: whatever the token says. */
    const char *driver_id;
    /* Sent in Hello and logged by the hub. NULL: HEARTH_DRIVER_VERSION. */
    const char *version;
    /* Vendor trait schemas the devices use, as HearthModel TraitSchema JSON (Docs/Catalog.md); sent with
     * the first announcement of every connection. */
    const char *const *vendor_trait_schemas_json;
    size_t vendor_trait_schema_count;

    hearth_request_fn on_request;     /* NULL: every request fails with UNIMPLEMENTED */
    hearth_state_fn on_state;         /* optional */
    hearth_rejection_fn on_rejection; /* optional */
    hearth_log_fn on_log;             /* optional */
    hearth_tick_fn on_tick;           /* optional */
    uint32_t tick_ms;                 /* 1000 */
    void *user;                       /* passed to every callback */
    hearth_log_level log_level;       /* lines below it are not logged (stderr or on_log): HEARTH_LOG_INFO */

    /* 1: stop when standard input ends (the hub supervises the driver and closes the pipe when it dies,
     * even by SIGKILL). 0: no. hearth_config_from_env() sets it from HEARTH_SUPERVISED=1. Standard input is
     * non-blocking (O_NONBLOCK) from hearth_driver_new() to hearth_driver_free(), which restores its flags. */
    int watch_stdin;

    uint32_t reconnect_initial_ms; /* 200: the first wait after a lost connection; doubles per attempt */
    uint32_t reconnect_max_ms;     /* 30000: the longest wait (each wait is drawn from [w/2, w]) */
    uint32_t welcome_timeout_ms;   /* 10000: from dialling to the hub's Welcome, else try again */
    uint32_t keepalive_ms;         /* 30000: PING the hub after this long without hearing from it */
    uint32_t keepalive_timeout_ms; /* 20000: no PING ack in this time: the connection is dead */
    uint32_t stop_grace_ms;        /* 5000: how long a stop waits for queued messages to go out */
    uint32_t request_timeout_ms;   /* 30000: how long an unanswered request is kept when the hub gave none */

    uint32_t max_message_bytes;    /* 4194304: the largest message accepted from the hub (gRPC's default) */
    uint32_t max_traits_per_report;/* 1000: trait reports per Report message */
    uint32_t devices_per_announce; /* 200: devices per Announce message */
    uint32_t max_events;           /* 4096: events kept while they cannot be sent; then the oldest go */
    uint32_t max_requests;         /* 1024: requests in flight (unanswered); more fail RESOURCE_EXHAUSTED */
} hearth_config;

/* Fills the fields still NULL or 0 from the environment the hub gives its plugins and the systemd units
 * use: `hub` from HEARTH_HUB, `token` from HEARTH_DRIVER_TOKEN, `driver_id` from HEARTH_DRIVER_ID, and
 * `watch_stdin` from HEARTH_SUPERVISED=1. The strings point into the environment. */
HEARTH_API void hearth_config_from_env(hearth_config *config);

/* ---- The driver -------------------------------------------------------------------------------------- */

/* Creates a driver. Nothing connects until hearth_driver_run() or hearth_driver_process().
 * Returns NULL on failure, with `error` set (HEARTH_ECONFIG, HEARTH_ENOMEM, HEARTH_EIO). */
HEARTH_API hearth_driver *hearth_driver_new(const hearth_config *config, hearth_error *error);

/* Closes the connection at once (without flushing: stop and run to the end first for that), frees
 * everything, and gives standard input back its flags (watch_stdin). Not concurrently with any other call
 * on `driver`; not from a callback. NULL is fine. */
HEARTH_API void hearth_driver_free(hearth_driver *driver);

/* Adds a device, or replaces the one with the same id. The description is copied; the device is announced
 * now when connected, else on connection. Checks ids and values (EINVAL), the size (ELIMIT: it must pack
 * under 1 MiB). */
HEARTH_API hearth_code hearth_driver_add_device(hearth_driver *driver, const hearth_device_desc *device,
                                                hearth_error *error);

/* Removes a device for good: the hub deletes it, with the name and room the user gave it (told at once
 * when connected, else first thing in the next session). The hub does not acknowledge a removal, so the
 * library keeps it until the next session's Welcome shows whether the hub still has the device: if the
 * connection ended before the hub took it, it is sent again then. Adding a device with the same id later
 * replaces it (a removal not yet sent goes first). A device that is only unreachable should be reported
 * offline instead, see hearth_driver_set_connectivity(). ENOTFOUND for an unknown id; ELIMIT when 65,536
 * removals wait to be sent. */
HEARTH_API hearth_code hearth_driver_remove_device(hearth_driver *driver, const char *device_id,
                                                   hearth_error *error);

/* Reports new values of some of a trait's attributes. Values equal to the current ones are not sent; new
 * ones are queued and coalesced: if the trait changes again before the message leaves, the hub gets only
 * the newest values. A report also marks the trait online. While disconnected only the device's values
 * change: the next announcement carries them. ENOTFOUND for an unknown device or trait. */
HEARTH_API hearth_code hearth_driver_report(hearth_driver *driver, const char *device_id, uint32_t endpoint,
                                            uint32_t trait_id, const hearth_field *attributes, size_t count,
                                            hearth_error *error);

/* Marks a trait online or offline (say, the driver lost touch with the device). */
HEARTH_API hearth_code hearth_driver_set_connectivity(hearth_driver *driver, const char *device_id,
                                                      uint32_t endpoint, uint32_t trait_id,
                                                      hearth_connectivity connectivity, hearth_error *error);

/* Sends an event (a button press, a state change). Events are never coalesced and keep their order; while
 * disconnected up to `max_events` are kept, then the oldest are dropped (counted in the stats). An event
 * is kept until the message carrying it has been written to the socket whole: if the connection ends
 * first, it is sent again in the next session, before newer ones (within `max_events`). One written to the
 * socket counts as sent, even if the connection then dies before the hub reads it (TCP does not tell).
 * `timestamp_ms`: Unix time in milliseconds, 0 for now. */
HEARTH_API hearth_code hearth_driver_event(hearth_driver *driver, const char *device_id, uint32_t endpoint,
                                           uint32_t trait_id, uint32_t event_id, const hearth_field *fields,
                                           size_t count, int64_t timestamp_ms, hearth_error *error);

/* Answers request `request_id` with success, and the command's response fields (none: NULL, 0).
 * ENOTFOUND when no such request is in flight (answered already, expired, or its connection is gone). */
HEARTH_API hearth_code hearth_driver_succeed(hearth_driver *driver, uint64_t request_id,
                                             const hearth_field *fields, size_t count, hearth_error *error);

/* Answers request `request_id` with a failure: a gRPC status code (HEARTH_STATUS_*, not 0) and a message
 * the caller sees. */
HEARTH_API hearth_code hearth_driver_fail(hearth_driver *driver, uint64_t request_id, uint32_t status,
                                          const char *message, hearth_error *error);

/* Runs the driver on the calling thread: connects, serves, reconnects, until hearth_driver_stop() or
 * standard input ends (watch_stdin). Each turn blocks once, in epoll_wait on hearth_driver_fd() without
 * the lock, then does what is due. Returns HEARTH_OK after such a stop, HEARTH_EREFUSED or
 * HEARTH_EREPLACED when the hub refused the driver for good, or HEARTH_EIO when the loop itself broke. */
HEARTH_API hearth_code hearth_driver_run(hearth_driver *driver, hearth_error *error);

/* Asks the driver to stop: what is queued is sent (within stop_grace_ms), the stream is closed, and run()
 * returns (process() returns HEARTH_ESTOPPED). Any thread; async-signal-safe; idempotent. */
HEARTH_API void hearth_driver_stop(hearth_driver *driver);

/* Embedding in another event loop: a file descriptor (an epoll instance; it stays the same across
 * reconnections) that becomes readable when the driver has work. Watch it for POLLIN/EPOLLIN, and call
 * hearth_driver_process() when it is readable. Timers (backoff, keepalive, ticks) make it readable too,
 * so no timeout is needed. */
HEARTH_API int hearth_driver_fd(const hearth_driver *driver);

/* Does whatever is due without blocking: reads, runs callbacks, timers, writes. Returns HEARTH_OK while
 * the driver runs; HEARTH_ESTOPPED once it has stopped; HEARTH_EREFUSED/HEARTH_EREPLACED once refused;
 * HEARTH_ESTATE when called from a callback; HEARTH_EIO when epoll itself failed. */
HEARTH_API hearth_code hearth_driver_process(hearth_driver *driver, hearth_error *error);

/* The connection's state now. */
HEARTH_API hearth_state hearth_driver_state(hearth_driver *driver);

/* Counters since the driver was created. */
typedef struct hearth_stats {
    uint64_t reports;            /* hearth_driver_report() calls that changed something */
    uint64_t trait_reports_sent; /* trait reports written to the hub (after coalescing) */
    uint64_t events_sent;        /* events written to the socket (see hearth_driver_event) */
    uint64_t events_dropped;     /* events dropped over max_events */
    uint64_t requests, answers;  /* requests received; answers written */
    uint64_t messages_sent, messages_received;
    uint64_t bytes_sent, bytes_received; /* HTTP/2 bytes on the socket */
    uint64_t connects, sessions; /* connection attempts; sessions the hub welcomed */
    uint64_t rejections;         /* things the hub refused */
} hearth_stats;

HEARTH_API void hearth_driver_stats(hearth_driver *driver, hearth_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
