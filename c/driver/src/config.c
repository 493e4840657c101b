/* The configuration: defaults for zero fields, checks, copies of the strings, the hub's address parsed.
 * hearth_config_from_env() is the only place the library reads the environment. */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#define MAX_SCHEMA_BYTES ((size_t)256 << 10) /* the hub's default max_schema_bytes */

void hearth_config_from_env(hearth_config *c) {
    if (!c) return;
    if (!c->hub) c->hub = getenv("HEARTH_HUB");
    if (!c->token) c->token = getenv("HEARTH_DRIVER_TOKEN");
    if (!c->driver_id) c->driver_id = getenv("HEARTH_DRIVER_ID");
    const char *supervised = getenv("HEARTH_SUPERVISED");
    if (!c->watch_stdin && supervised && !strcmp(supervised, "1")) c->watch_stdin = 1;
}

static hearth_code apply_defaults(hearth_config *c, hearth_error *error) {
#define DEFAULT(field, value) if (!c->field) c->field = (value)
    DEFAULT(tick_ms, 1000);
    DEFAULT(log_level, HEARTH_LOG_INFO);
    DEFAULT(reconnect_initial_ms, 200);
    DEFAULT(reconnect_max_ms, 30000);
    DEFAULT(welcome_timeout_ms, 10000);
    DEFAULT(keepalive_ms, 30000);
    DEFAULT(keepalive_timeout_ms, 20000);
    DEFAULT(stop_grace_ms, 5000);
    DEFAULT(request_timeout_ms, 30000);
    DEFAULT(max_message_bytes, 4u << 20);
    DEFAULT(max_traits_per_report, 1000);
    DEFAULT(devices_per_announce, 200);
    DEFAULT(max_events, 4096);
    DEFAULT(max_requests, 1024);
#undef DEFAULT
    if (c->max_message_bytes > (64u << 20)) return hd_fail(error, HEARTH_ECONFIG, "max_message_bytes is over 64 MiB");
    if (c->max_traits_per_report > 100000 || c->devices_per_announce > 100000 || c->max_requests > 65536 ||
        c->max_events > (1u << 24))
        return hd_fail(error, HEARTH_ECONFIG, "a limit in the configuration is out of range");
    if (c->reconnect_max_ms < c->reconnect_initial_ms) c->reconnect_max_ms = c->reconnect_initial_ms;
    return HEARTH_OK;
}

/* "unix:/path" or "/path", "[v6]:port", "host:port". */
static hearth_code parse_hub(hearth_driver *d, hearth_error *error) {
    const char *hub = d->hub;
    if (!strncmp(hub, "unix:", 5) || hub[0] == '/') {
        const char *path = hub[0] == '/' ? hub : hub + 5;
        if (!path[0] || strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
            return hd_fail(error, HEARTH_ECONFIG, "the hub's socket path '%s' is empty or too long", path);
        if (!(d->unix_path = strdup(path))) return hd_fail(error, HEARTH_ENOMEM, "out of memory");
        snprintf(d->authority, sizeof d->authority, "localhost");
        return HEARTH_OK;
    }
    const char *colon = strrchr(hub, ':');
    const char *host = hub, *host_end = colon;
    if (hub[0] == '[') {
        const char *close = strchr(hub, ']');
        if (!close || close[1] != ':') return hd_fail(error, HEARTH_ECONFIG, "the hub address '%s' is not [v6]:port", hub);
        host = hub + 1, host_end = close, colon = close + 1;
    } else if (!colon || strchr(hub, ':') != colon) {
        return hd_fail(error, HEARTH_ECONFIG, "the hub address must be host:port, [v6]:port or unix:/path, got '%s'", hub);
    }
    char *end = NULL;
    errno = 0;
    long port = strtol(colon + 1, &end, 10);
    if (host_end == host || errno || !colon[1] || *end || port < 1 || port > 65535)
        return hd_fail(error, HEARTH_ECONFIG, "the hub address '%s' has no valid host and port", hub);
    if (!(d->host = strndup(host, (size_t)(host_end - host))) || !(d->port = strdup(colon + 1)))
        return hd_fail(error, HEARTH_ENOMEM, "out of memory");
    if (strlen(hub) >= sizeof d->authority) return hd_fail(error, HEARTH_ECONFIG, "the hub address is too long");
    snprintf(d->authority, sizeof d->authority, "%s", hub);
    return HEARTH_OK;
}

hearth_code hd_config_copy(hearth_driver *d, const hearth_config *config, hearth_error *error) {
    hearth_error ignored;
    if (!error) error = &ignored; /* the code of a failed copy below comes back through it */
    d->config = *config;
    hearth_code rc = apply_defaults(&d->config, error);
    if (rc != HEARTH_OK) return rc;
    if (!config->token || !config->token[0])
        return hd_fail(error, HEARTH_ECONFIG, "no token: set hearth_config.token or HEARTH_DRIVER_TOKEN");
    for (const char *p = config->token; *p; p++) /* it goes into a header value */
        if (*p < 0x21 || *p > 0x7E) return hd_fail(error, HEARTH_ECONFIG, "the token holds a character a header cannot carry");
    if (!(d->token = hd_strdup_checked(config->token, 4096, "the token", error)) ||
        !(d->hub = hd_strdup_checked(config->hub ? config->hub : "127.0.0.1:7070", 1024, "the hub address", error)) ||
        !(d->version = hd_strdup_checked(config->version ? config->version : HEARTH_DRIVER_VERSION, 256, "the version", error)) ||
        (config->driver_id && !(d->driver_id = hd_strdup_checked(config->driver_id, 256, "the driver id", error))))
        return error->code;
    if (config->vendor_trait_schema_count) {
        if (!config->vendor_trait_schemas_json) return hd_fail(error, HEARTH_EINVAL, "vendor_trait_schemas_json is NULL");
        if (!(d->schemas = calloc(config->vendor_trait_schema_count, sizeof *d->schemas)))
            return hd_fail(error, HEARTH_ENOMEM, "out of memory");
        for (size_t i = 0; i < config->vendor_trait_schema_count; i++, d->schema_count++)
            if (!(d->schemas[i] = hd_strdup_checked(config->vendor_trait_schemas_json[i], MAX_SCHEMA_BYTES, "a vendor trait schema", error)))
                return error->code;
    }
    d->config.hub = d->config.token = d->config.driver_id = d->config.version = NULL; /* use the copies */
    d->config.vendor_trait_schemas_json = NULL;
    return parse_hub(d, error);
}
