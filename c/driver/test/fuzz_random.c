/* A bounded random-input run of the fuzz target (fuzz_hub_message.c) for machines without libFuzzer, and
 * the seed corpus for the libFuzzer run.
 *
 *   fuzz-random ITERATIONS [SEED]     mutate the seeds ITERATIONS times and run each input
 *   fuzz-random --write-seeds DIR     write the seeds as files (the libFuzzer corpus)
 *
 * Seeds are real HubMessages built with protobuf-c (Welcome, commands with nested fields, a write,
 * rejections, an announce result, a deeply nested value), in both entry modes of the target. Mutations
 * flip bits, overwrite, insert, delete, duplicate and splice bytes, and plant varint edge values. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define INPUT_BYTES 8192

typedef struct input {
    uint8_t data[INPUT_BYTES];
    size_t size;
} input;

static uint64_t state = 0x9E3779B97F4A7C15u;
static uint64_t next(void) {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
}

static size_t pack_hub(Hearth__V1__HubMessage *m, uint8_t *out) { return hearth__v1__hub_message__pack(m, out); }

/* Seeds as target inputs: mode, step, body. */
static size_t seeds(input *out) {
    size_t n = 0;
    uint8_t body[4096];
    Hearth__V1__HubMessage m = HEARTH__V1__HUB_MESSAGE__INIT;
    size_t lengths[8];
    uint8_t bodies[8][2048];
    size_t count = 0;

    Hearth__V1__Welcome w = HEARTH__V1__WELCOME__INIT;
    char *known[] = {"d", "x"};
    w.driver_id = "d", w.epoch = "e", w.n_known_device_ids = 2, w.known_device_ids = known;
    m.kind_case = HEARTH__V1__HUB_MESSAGE__KIND_WELCOME, m.welcome = &w;
    lengths[count] = pack_hub(&m, bodies[count]), count++;

    hearth_value items[] = {hearth_int(-7), hearth_bool(true)};
    hearth_field inner[] = {{0, hearth_double(2.5)}, {1, hearth_bytes("\x00\x01\x02", 3)}, {2, hearth_null()}, {3, hearth_enum(4)}};
    hearth_field fields[] = {{0, hearth_uint(5)}, {1, hearth_string("text")}, {2, hearth_list(items, 2)}, {3, hearth_struct(inner, 4)}};
    Hearth__V1__StructValue *s = NULL;
    hd_struct_build(&s, fields, 4, NULL);
    Hearth__V1__CommandRequest c = HEARTH__V1__COMMAND_REQUEST__INIT;
    c.correlation_id = 4, c.device_id = "d", c.endpoint = 1, c.trait_id = 6, c.command_id = 2, c.fields = s, c.timeout_ms = 500;
    m.kind_case = HEARTH__V1__HUB_MESSAGE__KIND_COMMAND, m.command = &c;
    lengths[count] = pack_hub(&m, bodies[count]), count++;
    c.correlation_id = 6;
    lengths[count] = pack_hub(&m, bodies[count]), count++;

    Hearth__V1__WriteRequest wr = HEARTH__V1__WRITE_REQUEST__INIT;
    Hearth__V1__Attribute a = HEARTH__V1__ATTRIBUTE__INIT, *ap = &a;
    a.id = 0, a.value = s->fields[0]->value;
    wr.correlation_id = 8, wr.device_id = "d", wr.endpoint = 1, wr.trait_id = 6, wr.n_attributes = 1, wr.attributes = &ap;
    m.kind_case = HEARTH__V1__HUB_MESSAGE__KIND_WRITE, m.write = &wr;
    lengths[count] = pack_hub(&m, bodies[count]), count++;

    Hearth__V1__Rejection r = HEARTH__V1__REJECTION__INIT, *rp = &r;
    r.subject = "d/1/6", r.code = 3, r.message = "refused";
    m.kind_case = HEARTH__V1__HUB_MESSAGE__KIND_REJECTION, m.rejection = &r;
    lengths[count] = pack_hub(&m, bodies[count]), count++;

    Hearth__V1__AnnounceResult ar = HEARTH__V1__ANNOUNCE_RESULT__INIT;
    char *accepted[] = {"d"};
    ar.n_accepted = 1, ar.accepted = accepted, ar.n_rejected = 1, ar.rejected = &rp;
    m.kind_case = HEARTH__V1__HUB_MESSAGE__KIND_ANNOUNCE_RESULT, m.announce_result = &ar;
    lengths[count] = pack_hub(&m, bodies[count]), count++;
    free(s);

    /* A command whose fields nest 40 lists deep (past HEARTH_MAX_VALUE_DEPTH, within the decoder's limit). */
    hearth_value chain[41];
    chain[0] = hearth_uint(1);
    for (int i = 1; i <= 40; i++) chain[i] = hearth_list(&chain[i - 1], 1);
    Hearth__V1__Value deep_values[41];
    Hearth__V1__ListValue deep_lists[41];
    Hearth__V1__Value *deep_pointers[41];
    for (int i = 0; i <= 40; i++) {
        hearth__v1__value__init(&deep_values[i]);
        if (i == 0) {
            deep_values[i].kind_case = HEARTH__V1__VALUE__KIND_UINT_VALUE, deep_values[i].uint_value = 1;
            continue;
        }
        hearth__v1__list_value__init(&deep_lists[i]);
        deep_pointers[i] = &deep_values[i - 1];
        deep_lists[i].n_values = 1, deep_lists[i].values = &deep_pointers[i];
        deep_values[i].kind_case = HEARTH__V1__VALUE__KIND_LIST_VALUE, deep_values[i].list_value = &deep_lists[i];
    }
    Hearth__V1__Field f = HEARTH__V1__FIELD__INIT, *fp = &f;
    f.id = 0, f.value = &deep_values[40];
    Hearth__V1__StructValue deep = HEARTH__V1__STRUCT_VALUE__INIT;
    deep.n_fields = 1, deep.fields = &fp;
    c.correlation_id = 12, c.fields = &deep;
    m.kind_case = HEARTH__V1__HUB_MESSAGE__KIND_COMMAND, m.command = &c;
    lengths[count] = pack_hub(&m, bodies[count]), count++;

    /* Each body alone (mode 0), and all of them framed back to back (mode 1, in chunks of 7 bytes). */
    size_t framed = 0;
    for (size_t i = 0; i < count; i++) {
        out[n].data[0] = 0, out[n].data[1] = 0;
        memcpy(out[n].data + 2, bodies[i], lengths[i]);
        out[n++].size = lengths[i] + 2;
        body[framed] = 0, body[framed + 1] = 0, body[framed + 2] = 0;
        body[framed + 3] = (uint8_t)(lengths[i] >> 8), body[framed + 4] = (uint8_t)lengths[i];
        memcpy(body + framed + 5, bodies[i], lengths[i]);
        framed += 5 + lengths[i];
    }
    out[n].data[0] = 1, out[n].data[1] = 7;
    memcpy(out[n].data + 2, body, framed);
    out[n++].size = framed + 2;
    return n;
}

static void mutate(input *x, const input *seed_pool, size_t pool) {
    static const uint8_t edges[] = {0x00, 0x01, 0x7F, 0x80, 0xFF, 0x0A, 0x12, 0x3A, 0x42};
    for (int ops = 1 + (int)(next() % 8); ops > 0; ops--) {
        size_t at = x->size ? next() % x->size : 0;
        switch (next() % 8) {
        case 0: if (x->size) x->data[at] ^= (uint8_t)(1u << (next() % 8)); break;
        case 1: if (x->size) x->data[at] = (uint8_t)next(); break;
        case 2: if (x->size) x->data[at] = edges[next() % sizeof edges]; break;
        case 3: { /* insert */
            size_t n = 1 + next() % 16;
            if (x->size + n > INPUT_BYTES) break;
            memmove(x->data + at + n, x->data + at, x->size - at);
            for (size_t i = 0; i < n; i++) x->data[at + i] = (uint8_t)next();
            x->size += n;
            break;
        }
        case 4: { /* delete */
            size_t n = x->size - at < 16 ? x->size - at : 1 + next() % 16;
            if (n > x->size - at) n = x->size - at;
            memmove(x->data + at, x->data + at + n, x->size - at - n);
            x->size -= n;
            break;
        }
        case 5: { /* duplicate a range */
            size_t n = 1 + next() % 64;
            if (at + n > x->size || x->size + n > INPUT_BYTES) break;
            memmove(x->data + at + n, x->data + at, x->size - at);
            x->size += n;
            break;
        }
        case 6: if (x->size > 2) x->size = 2 + next() % (x->size - 2); break; /* truncate */
        default: { /* splice the tail of another seed */
            const input *other = &seed_pool[next() % pool];
            if (other->size < 3) break;
            size_t from = 2 + next() % (other->size - 2), n = other->size - from;
            if (at + n > INPUT_BYTES) n = INPUT_BYTES - at;
            memcpy(x->data + at, other->data + from, n);
            x->size = at + n;
            break;
        }
        }
    }
    if (x->size < 2) x->size = 2;
}

int main(int argc, char **argv) {
    static input pool[16], x;
    size_t count = seeds(pool);
    if (argc == 3 && !strcmp(argv[1], "--write-seeds")) {
        for (size_t i = 0; i < count; i++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/seed-%02zu", argv[2], i);
            FILE *f = fopen(path, "wb");
            if (!f || fwrite(pool[i].data, 1, pool[i].size, f) != pool[i].size) return perror(path), 1;
            fclose(f);
        }
        printf("fuzz-random: wrote %zu seeds to %s\n", count, argv[2]);
        return 0;
    }
    long iterations = argc > 1 ? atol(argv[1]) : 10000;
    if (argc > 2) state = strtoull(argv[2], NULL, 10) | 1;
    for (size_t i = 0; i < count; i++) LLVMFuzzerTestOneInput(pool[i].data, pool[i].size);
    for (long i = 0; i < iterations; i++) {
        x = pool[next() % count];
        mutate(&x, pool, count);
        LLVMFuzzerTestOneInput(x.data, x.size);
    }
    printf("fuzz-random: %zu seeds and %ld mutated inputs, no crash\n", count, iterations);
    return 0;
}
