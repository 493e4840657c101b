/* Errors, logging, time, growable buffers, UTF-8 and varints. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *hearth_code_name(int code) {
    static const char *const names[] = {
        "HEARTH_OK",      "HEARTH_EINVAL", "HEARTH_ENOMEM",    "HEARTH_ENOTFOUND",  "HEARTH_ELIMIT", "HEARTH_ECONFIG",
        "HEARTH_ESTATE",  "HEARTH_EIO",    "HEARTH_EREFUSED",  "HEARTH_EREPLACED", "HEARTH_ESTOPPED",
    };
    return code >= 0 && (size_t)code < sizeof names / sizeof *names ? names[code] : "HEARTH_E?";
}

hearth_code hd_fail(hearth_error *error, hearth_code code, const char *format, ...) {
    if (error) {
        error->code = code;
        va_list args;
        va_start(args, format);
        vsnprintf(error->message, sizeof error->message, format, args);
        va_end(args);
    }
    return code;
}

void hd_log(hearth_driver *d, hearth_log_level level, const char *format, ...) {
    if (level < d->config.log_level) return;
    char line[512];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof line, format, args);
    va_end(args);
    if (d->config.on_log) {
        d->config.on_log(d->config.user, level, line);
    } else {
        static const char *const levels[] = {"?", "debug", "info", "warning", "error"};
        /* One fprintf per line, so lines from several threads do not interleave. */
        fprintf(stderr, "hearth-driver %s: %s\n", levels[level <= HEARTH_LOG_ERROR ? level : 0], line);
    }
}

uint64_t hd_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int64_t hd_unix_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Makes room for `more` bytes at the end; -1 beyond `limit` bytes held or out of memory. */
int hd_buffer_reserve(hd_buffer *b, size_t more, size_t limit) {
    if (b->cap - b->end >= more) return 0;
    if (b->start > 0) {
        memmove(b->data, b->data + b->start, b->end - b->start);
        b->end -= b->start;
        b->start = 0;
        if (b->cap - b->end >= more) return 0;
    }
    if (more > limit || b->end > limit - more) return -1;
    size_t cap = b->cap ? b->cap : 16 << 10;
    while (cap - b->end < more) cap *= 2;
    uint8_t *data = realloc(b->data, cap);
    if (!data) return -1;
    b->data = data;
    b->cap = cap;
    return 0;
}

void hd_buffer_free(hd_buffer *b) {
    free(b->data);
    *b = (hd_buffer){0};
}

/* Well-formed UTF-8 (no overlongs, no surrogates, at most U+10FFFF) and no NUL: protobuf-c packs strings
 * with strlen(), and the hub refuses a message with invalid UTF-8 in a string whole. */
bool hd_utf8_valid(const char *s, size_t length) {
    const unsigned char *p = (const unsigned char *)s, *end = p + length;
    while (p < end) {
        unsigned c = *p++;
        if (c == 0) return false;
        if (c < 0x80) continue;
        size_t n;
        unsigned min, code;
        if ((c & 0xE0) == 0xC0) n = 1, min = 0x80, code = c & 0x1F;
        else if ((c & 0xF0) == 0xE0) n = 2, min = 0x800, code = c & 0x0F;
        else if ((c & 0xF8) == 0xF0) n = 3, min = 0x10000, code = c & 0x07;
        else return false;
        if ((size_t)(end - p) < n) return false;
        for (size_t i = 0; i < n; i++) {
            if ((p[i] & 0xC0) != 0x80) return false;
            code = code << 6 | (p[i] & 0x3F);
        }
        p += n;
        if (code < min || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return false;
    }
    return true;
}

char *hd_strdup_checked(const char *s, size_t max, const char *what, hearth_error *error) {
    if (!s) s = "";
    size_t length = strnlen(s, max + 1);
    if (length > max) {
        hd_fail(error, HEARTH_EINVAL, "%s is longer than %zu bytes", what, max);
        return NULL;
    }
    if (!hd_utf8_valid(s, length)) {
        hd_fail(error, HEARTH_EINVAL, "%s is not valid UTF-8", what);
        return NULL;
    }
    char *copy = malloc(length + 1);
    if (!copy) {
        hd_fail(error, HEARTH_ENOMEM, "out of memory copying %s", what);
        return NULL;
    }
    memcpy(copy, s, length + 1);
    return copy;
}

size_t hd_varint_size(uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) v >>= 7, n++;
    return n;
}

uint8_t *hd_put_varint(uint8_t *p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

uint64_t hd_hash(const char *s) {
    uint64_t h = 14695981039346656037u;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211u;
    return h;
}

/* ---- rings ------------------------------------------------------------------------------------------- */

int hd_ring_reserve(hd_ring *r, size_t need, size_t size) {
    if (r->cap >= need) return 0;
    size_t cap = r->cap ? r->cap : 16;
    while (cap < need) {
        if (cap > SIZE_MAX / 2 / size) return -1;
        cap *= 2;
    }
    uint8_t *items = malloc(cap * size);
    if (!items) return -1;
    for (size_t i = 0; i < r->count; i++) memcpy(items + i * size, hd_ring_at(r, i, size), size);
    free(r->items);
    r->items = items, r->cap = cap, r->head = 0;
    return 0;
}

void hd_ring_free(hd_ring *r) {
    free(r->items);
    *r = (hd_ring){0};
}

/* ---- packed messages (events, answers) and queues of them -------------------------------------------- */

hearth_code hd_blob_pack(const ProtobufCMessage *m, hd_blob *out, const char *what, hearth_error *error) {
    size_t size = protobuf_c_message_get_packed_size(m);
    *out = (hd_blob){NULL, size, 0};
    if (size > HD_MAX_DESC_BYTES) return hd_fail(error, HEARTH_ELIMIT, "%s packs to %zu bytes, over 1 MiB", what, size);
    if (!(out->data = malloc(size ? size : 1))) return hd_fail(error, HEARTH_ENOMEM, "out of memory packing %s", what);
    protobuf_c_message_pack(m, out->data);
    return HEARTH_OK;
}

hd_blob hd_blobs_take(hd_blobs *q) {
    hd_blob b = *hd_blobs_peek(q);
    hd_ring_pop(&q->ring);
    q->bytes -= b.length;
    return b;
}

void hd_blobs_trim(hd_blobs *q, size_t max_count, size_t max_bytes, uint64_t *dropped) {
    while (q->ring.count && (q->ring.count > max_count || q->bytes > max_bytes)) {
        free(hd_blobs_take(q).data);
        if (dropped) (*dropped)++;
    }
}

hearth_code hd_blobs_push(hd_blobs *q, hd_blob blob, size_t max_count, size_t max_bytes, bool drop_oldest,
                          uint64_t *dropped) {
    if (blob.length > max_bytes || max_count == 0) return HEARTH_ELIMIT;
    bool full = q->ring.count >= max_count || q->bytes + blob.length > max_bytes;
    if (full && !drop_oldest) return HEARTH_ELIMIT;
    if (full) hd_blobs_trim(q, max_count - 1, max_bytes - blob.length, dropped);
    hd_blob *slot = hd_ring_push(&q->ring, sizeof *slot);
    if (!slot) return HEARTH_ENOMEM;
    *slot = blob;
    q->bytes += blob.length;
    return HEARTH_OK;
}

void hd_blobs_free(hd_blobs *q) {
    while (q->ring.count) free(hd_blobs_take(q).data);
    hd_ring_free(&q->ring);
    q->bytes = 0;
}
