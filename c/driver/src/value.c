/* hearth_value <-> protobuf-c Value trees.
 *
 * Outbound, a value is checked (kinds, UTF-8, depth, sizes) and copied into one allocation holding the
 * whole protobuf-c tree, so storing, replacing and freeing a value is one malloc and one free; scalars
 * need none. Inbound, a decoded tree is viewed as hearth_values in one allocation, strings pointing into
 * the decoded message. Recursion is bounded by HEARTH_MAX_VALUE_DEPTH outbound and by the depth check of
 * inbound messages (inbound.c) before anything is decoded. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define ALIGN(n) (((size_t)(n) + 15) & ~(size_t)15)
#define MAX_ITEMS ((size_t)1 << 20)
#define MAX_TREE_BYTES ((size_t)16 << 20)

typedef struct bump {
    uint8_t *next;
} bump;

static void *take(bump *b, size_t n) {
    void *p = b->next;
    b->next += ALIGN(n);
    return p;
}

static bool is_scalar(hearth_kind kind) {
    return kind == HEARTH_NULL || kind == HEARTH_BOOL || kind == HEARTH_INT || kind == HEARTH_UINT ||
           kind == HEARTH_DOUBLE || kind == HEARTH_ENUM;
}

static int compare_ids(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Struct field ids must be unique. Small structs are checked pairwise, large ones by sorting a copy. */
static hearth_code check_unique(const hearth_field *fields, size_t count, hearth_error *error) {
    if (count <= 32) {
        for (size_t i = 0; i < count; i++)
            for (size_t j = i + 1; j < count; j++)
                if (fields[i].id == fields[j].id) return hd_fail(error, HEARTH_EINVAL, "field id %u appears twice", fields[i].id);
        return HEARTH_OK;
    }
    uint32_t *ids = malloc(count * sizeof *ids);
    if (!ids) return hd_fail(error, HEARTH_ENOMEM, "out of memory checking field ids");
    for (size_t i = 0; i < count; i++) ids[i] = fields[i].id;
    qsort(ids, count, sizeof *ids, compare_ids);
    hearth_code rc = HEARTH_OK;
    for (size_t i = 1; i < count && rc == HEARTH_OK; i++)
        if (ids[i] == ids[i - 1]) rc = hd_fail(error, HEARTH_EINVAL, "field id %u appears twice", ids[i]);
    free(ids);
    return rc;
}

static hearth_code fields_size(const hearth_field *fields, size_t count, unsigned depth, size_t *size,
                               hearth_error *error);

/* Checks `v` and adds the bytes its tree needs below its own Value node to *size. */
static hearth_code subtree_size(const hearth_value *v, unsigned depth, size_t *size, hearth_error *error) {
    if (depth > HEARTH_MAX_VALUE_DEPTH)
        return hd_fail(error, HEARTH_EINVAL, "value nested deeper than %d levels", HEARTH_MAX_VALUE_DEPTH);
    switch (v->kind) {
    case HEARTH_NULL: case HEARTH_BOOL: case HEARTH_INT: case HEARTH_UINT: case HEARTH_DOUBLE: case HEARTH_ENUM:
        return HEARTH_OK;
    case HEARTH_STRING:
    case HEARTH_BYTES:
        if (v->as.str.length > HD_MAX_DESC_BYTES) return hd_fail(error, HEARTH_ELIMIT, "a string or bytes value over 1 MiB");
        if (v->as.str.length && !v->as.str.data) return hd_fail(error, HEARTH_EINVAL, "a string or bytes value with NULL data");
        if (v->kind == HEARTH_STRING && !hd_utf8_valid(v->as.str.data, v->as.str.length))
            return hd_fail(error, HEARTH_EINVAL, "a string value is not UTF-8 (or holds a NUL byte)");
        *size += v->kind == HEARTH_STRING ? ALIGN(v->as.str.length + 1) : ALIGN(v->as.str.length);
        break;
    case HEARTH_LIST: {
        size_t n = v->as.list.count;
        if (n > MAX_ITEMS) return hd_fail(error, HEARTH_ELIMIT, "a list of more than %zu items", MAX_ITEMS);
        if (n && !v->as.list.items) return hd_fail(error, HEARTH_EINVAL, "a list with NULL items");
        *size += ALIGN(sizeof(Hearth__V1__ListValue)) + ALIGN(n * sizeof(void *)) + n * ALIGN(sizeof(Hearth__V1__Value));
        for (size_t i = 0; i < n; i++) {
            hearth_code rc = subtree_size(&v->as.list.items[i], depth + 1, size, error);
            if (rc != HEARTH_OK) return rc;
        }
        break;
    }
    case HEARTH_STRUCT: {
        size_t n = v->as.fields.count;
        *size += ALIGN(sizeof(Hearth__V1__StructValue));
        hearth_code rc = fields_size(v->as.fields.fields, n, depth + 1, size, error);
        if (rc != HEARTH_OK) return rc;
        break;
    }
    default:
        return hd_fail(error, HEARTH_EINVAL, "a value of unknown kind %d", (int)v->kind);
    }
    if (*size > MAX_TREE_BYTES) return hd_fail(error, HEARTH_ELIMIT, "a value larger than %zu bytes", MAX_TREE_BYTES);
    return HEARTH_OK;
}

/* The pointer array, Field and Value nodes of a struct's fields, and their subtrees. */
static hearth_code fields_size(const hearth_field *fields, size_t n, unsigned depth, size_t *size,
                               hearth_error *error) {
    if (n > MAX_ITEMS) return hd_fail(error, HEARTH_ELIMIT, "a struct of more than %zu fields", MAX_ITEMS);
    if (n && !fields) return hd_fail(error, HEARTH_EINVAL, "a struct with NULL fields");
    hearth_code rc = check_unique(fields, n, error);
    if (rc != HEARTH_OK) return rc;
    *size += ALIGN(n * sizeof(void *)) + n * (ALIGN(sizeof(Hearth__V1__Field)) + ALIGN(sizeof(Hearth__V1__Value)));
    for (size_t i = 0; i < n; i++) {
        rc = subtree_size(&fields[i].value, depth, size, error);
        if (rc != HEARTH_OK) return rc;
    }
    return HEARTH_OK;
}

static void fill_fields(Hearth__V1__StructValue *s, const hearth_field *fields, size_t n, bump *b);

static void fill(Hearth__V1__Value *node, const hearth_value *v, bump *b) {
    hearth__v1__value__init(node);
    switch (v->kind) {
    case HEARTH_NULL: node->kind_case = HEARTH__V1__VALUE__KIND_NULL_VALUE; break;
    case HEARTH_BOOL: node->kind_case = HEARTH__V1__VALUE__KIND_BOOL_VALUE, node->bool_value = v->as.b; break;
    case HEARTH_INT: node->kind_case = HEARTH__V1__VALUE__KIND_INT_VALUE, node->int_value = v->as.i; break;
    case HEARTH_UINT: node->kind_case = HEARTH__V1__VALUE__KIND_UINT_VALUE, node->uint_value = v->as.u; break;
    case HEARTH_DOUBLE: node->kind_case = HEARTH__V1__VALUE__KIND_DOUBLE_VALUE, node->double_value = v->as.d; break;
    case HEARTH_ENUM: node->kind_case = HEARTH__V1__VALUE__KIND_ENUM_VALUE, node->enum_value = v->as.e; break;
    case HEARTH_STRING: {
        char *s = take(b, v->as.str.length + 1);
        if (v->as.str.length) memcpy(s, v->as.str.data, v->as.str.length);
        s[v->as.str.length] = '\0';
        node->kind_case = HEARTH__V1__VALUE__KIND_STRING_VALUE, node->string_value = s;
        break;
    }
    case HEARTH_BYTES:
        node->kind_case = HEARTH__V1__VALUE__KIND_BYTES_VALUE;
        node->bytes_value.len = v->as.str.length;
        node->bytes_value.data = v->as.str.length ? take(b, v->as.str.length) : NULL;
        if (v->as.str.length) memcpy(node->bytes_value.data, v->as.str.data, v->as.str.length);
        break;
    case HEARTH_LIST: {
        Hearth__V1__ListValue *l = take(b, sizeof *l);
        hearth__v1__list_value__init(l);
        l->n_values = v->as.list.count;
        l->values = take(b, l->n_values * sizeof(void *));
        for (size_t i = 0; i < l->n_values; i++) {
            l->values[i] = take(b, sizeof(Hearth__V1__Value));
            fill(l->values[i], &v->as.list.items[i], b);
        }
        node->kind_case = HEARTH__V1__VALUE__KIND_LIST_VALUE, node->list_value = l;
        break;
    }
    case HEARTH_STRUCT: {
        Hearth__V1__StructValue *s = take(b, sizeof *s);
        fill_fields(s, v->as.fields.fields, v->as.fields.count, b);
        node->kind_case = HEARTH__V1__VALUE__KIND_STRUCT_VALUE, node->struct_value = s;
        break;
    }
    }
}

/* Fields go out in ascending id order, as the protocol asks (insertion sort: structs are small). */
static void fill_fields(Hearth__V1__StructValue *s, const hearth_field *fields, size_t n, bump *b) {
    hearth__v1__struct_value__init(s);
    s->n_fields = n;
    s->fields = take(b, n * sizeof(void *));
    for (size_t i = 0; i < n; i++) {
        Hearth__V1__Field *f = take(b, sizeof *f);
        hearth__v1__field__init(f);
        f->id = fields[i].id;
        f->value = take(b, sizeof(Hearth__V1__Value));
        fill(f->value, &fields[i].value, b);
        size_t j = i;
        for (; j > 0 && s->fields[j - 1]->id > f->id; j--) s->fields[j] = s->fields[j - 1];
        s->fields[j] = f;
    }
}

hearth_code hd_value_store(hd_stored *out, const hearth_value *v, hearth_error *error) {
    out->block = NULL;
    if (is_scalar(v->kind)) {
        bump unused = {NULL};
        fill(&out->inline_value, v, &unused);
        return HEARTH_OK;
    }
    size_t size = ALIGN(sizeof(Hearth__V1__Value));
    hearth_code rc = subtree_size(v, 1, &size, error);
    if (rc != HEARTH_OK) return rc;
    void *block = malloc(size);
    if (!block) return hd_fail(error, HEARTH_ENOMEM, "out of memory storing a value");
    bump b = {block};
    fill(take(&b, sizeof(Hearth__V1__Value)), v, &b);
    out->block = block;
    return HEARTH_OK;
}

void hd_value_release(hd_stored *stored) {
    free(stored->block);
    stored->block = NULL;
}

hearth_code hd_struct_build(Hearth__V1__StructValue **out, const hearth_field *fields, size_t count,
                            hearth_error *error) {
    *out = NULL;
    if (count == 0) return HEARTH_OK;
    size_t size = ALIGN(sizeof(Hearth__V1__StructValue));
    hearth_code rc = fields_size(fields, count, 1, &size, error);
    if (rc != HEARTH_OK) return rc;
    void *block = malloc(size);
    if (!block) return hd_fail(error, HEARTH_ENOMEM, "out of memory encoding fields");
    bump b = {block};
    fill_fields(take(&b, sizeof(Hearth__V1__StructValue)), fields, count, &b);
    *out = block;
    return HEARTH_OK;
}

bool hd_value_equal(const hearth_value *a, const Hearth__V1__Value *b) {
    if (!b) return false;
    switch (a->kind) {
    case HEARTH_NULL:
        return b->kind_case == HEARTH__V1__VALUE__KIND_NULL_VALUE || b->kind_case == HEARTH__V1__VALUE__KIND__NOT_SET;
    case HEARTH_BOOL: return b->kind_case == HEARTH__V1__VALUE__KIND_BOOL_VALUE && !b->bool_value == !a->as.b;
    case HEARTH_INT: return b->kind_case == HEARTH__V1__VALUE__KIND_INT_VALUE && b->int_value == a->as.i;
    case HEARTH_UINT: return b->kind_case == HEARTH__V1__VALUE__KIND_UINT_VALUE && b->uint_value == a->as.u;
    case HEARTH_ENUM: return b->kind_case == HEARTH__V1__VALUE__KIND_ENUM_VALUE && b->enum_value == a->as.e;
    case HEARTH_DOUBLE: /* bit for bit: a NaN equals the same NaN, 0.0 differs from -0.0 */
        return b->kind_case == HEARTH__V1__VALUE__KIND_DOUBLE_VALUE && !memcmp(&b->double_value, &a->as.d, sizeof a->as.d);
    case HEARTH_STRING:
        /* hearth_string(NULL) is "" with no data: equal to an empty string, like BYTES below */
        return b->kind_case == HEARTH__V1__VALUE__KIND_STRING_VALUE && strlen(b->string_value) == a->as.str.length &&
               (!a->as.str.length || (a->as.str.data && !memcmp(b->string_value, a->as.str.data, a->as.str.length)));
    case HEARTH_BYTES:
        return b->kind_case == HEARTH__V1__VALUE__KIND_BYTES_VALUE && b->bytes_value.len == a->as.str.length &&
               (!a->as.str.length || (a->as.str.data && !memcmp(b->bytes_value.data, a->as.str.data, a->as.str.length)));
    case HEARTH_LIST: {
        if (b->kind_case != HEARTH__V1__VALUE__KIND_LIST_VALUE || b->list_value->n_values != a->as.list.count) return false;
        if (a->as.list.count && !a->as.list.items) return false;
        for (size_t i = 0; i < a->as.list.count; i++)
            if (!hd_value_equal(&a->as.list.items[i], b->list_value->values[i])) return false;
        return true;
    }
    case HEARTH_STRUCT: {
        /* Same fields in the same order; a struct given in another order merely counts as changed. */
        if (b->kind_case != HEARTH__V1__VALUE__KIND_STRUCT_VALUE || b->struct_value->n_fields != a->as.fields.count) return false;
        if (a->as.fields.count && !a->as.fields.fields) return false;
        for (size_t i = 0; i < a->as.fields.count; i++) {
            const Hearth__V1__Field *f = b->struct_value->fields[i];
            if (f->id != a->as.fields.fields[i].id || !hd_value_equal(&a->as.fields.fields[i].value, f->value)) return false;
        }
        return true;
    }
    }
    return false;
}

/* ---- inbound views ----------------------------------------------------------------------------------- */

static int view_size(const Hearth__V1__Value *v, unsigned depth, size_t *size) {
    if (depth > HD_MAX_PROTO_DEPTH) return -1;
    if (!v) return 0;
    if (v->kind_case == HEARTH__V1__VALUE__KIND_LIST_VALUE && v->list_value) {
        *size += ALIGN(v->list_value->n_values * sizeof(hearth_value));
        for (size_t i = 0; i < v->list_value->n_values; i++)
            if (view_size(v->list_value->values[i], depth + 1, size) != 0) return -1;
    } else if (v->kind_case == HEARTH__V1__VALUE__KIND_STRUCT_VALUE && v->struct_value) {
        *size += ALIGN(v->struct_value->n_fields * sizeof(hearth_field));
        for (size_t i = 0; i < v->struct_value->n_fields; i++)
            if (view_size(v->struct_value->fields[i]->value, depth + 1, size) != 0) return -1;
    }
    return 0;
}

static void view_fill(hearth_value *out, const Hearth__V1__Value *v, bump *b) {
    *out = hearth_null();
    if (!v) return;
    switch (v->kind_case) {
    case HEARTH__V1__VALUE__KIND_BOOL_VALUE: *out = hearth_bool(v->bool_value); break;
    case HEARTH__V1__VALUE__KIND_INT_VALUE: *out = hearth_int(v->int_value); break;
    case HEARTH__V1__VALUE__KIND_UINT_VALUE: *out = hearth_uint(v->uint_value); break;
    case HEARTH__V1__VALUE__KIND_DOUBLE_VALUE: *out = hearth_double(v->double_value); break;
    case HEARTH__V1__VALUE__KIND_ENUM_VALUE: *out = hearth_enum(v->enum_value); break;
    case HEARTH__V1__VALUE__KIND_STRING_VALUE: *out = hearth_string(v->string_value ? v->string_value : ""); break;
    case HEARTH__V1__VALUE__KIND_BYTES_VALUE: *out = hearth_bytes(v->bytes_value.data, v->bytes_value.len); break;
    case HEARTH__V1__VALUE__KIND_LIST_VALUE: {
        if (!v->list_value) break;
        size_t n = v->list_value->n_values;
        hearth_value *items = n ? take(b, n * sizeof *items) : NULL;
        for (size_t i = 0; i < n; i++) view_fill(&items[i], v->list_value->values[i], b);
        *out = hearth_list(items, n);
        break;
    }
    case HEARTH__V1__VALUE__KIND_STRUCT_VALUE: {
        if (!v->struct_value) break;
        size_t n = v->struct_value->n_fields;
        hearth_field *fields = n ? take(b, n * sizeof *fields) : NULL;
        for (size_t i = 0; i < n; i++) {
            fields[i].id = v->struct_value->fields[i]->id;
            view_fill(&fields[i].value, v->struct_value->fields[i]->value, b);
        }
        *out = hearth_struct(fields, n);
        break;
    }
    default: break; /* null, unset, or a kind newer than this library: null */
    }
}

/* Views `n` (id, value) pairs, given as accessors over either Fields or Attributes. */
static int view_pairs(size_t n, uint32_t (*id_at)(const void *, size_t), const Hearth__V1__Value *(*value_at)(const void *, size_t),
                      const void *pairs, hearth_field **out) {
    *out = NULL;
    if (n == 0) return 0;
    size_t size = ALIGN(n * sizeof(hearth_field));
    for (size_t i = 0; i < n; i++)
        if (view_size(value_at(pairs, i), 1, &size) != 0) return -1;
    void *block = malloc(size);
    if (!block) return -1;
    bump b = {block};
    hearth_field *fields = take(&b, n * sizeof *fields);
    for (size_t i = 0; i < n; i++) {
        fields[i].id = id_at(pairs, i);
        view_fill(&fields[i].value, value_at(pairs, i), &b);
    }
    *out = fields;
    return 0;
}

static uint32_t field_id(const void *p, size_t i) { return ((Hearth__V1__Field *const *)p)[i]->id; }
static const Hearth__V1__Value *field_value(const void *p, size_t i) { return ((Hearth__V1__Field *const *)p)[i]->value; }
static uint32_t attribute_id(const void *p, size_t i) { return ((Hearth__V1__Attribute *const *)p)[i]->id; }
static const Hearth__V1__Value *attribute_value(const void *p, size_t i) {
    return ((Hearth__V1__Attribute *const *)p)[i]->value;
}

int hd_fields_view(const Hearth__V1__StructValue *s, hearth_field **out, size_t *count) {
    *count = s ? s->n_fields : 0;
    return view_pairs(*count, field_id, field_value, s ? (const void *)s->fields : NULL, out);
}

int hd_attributes_view(Hearth__V1__Attribute *const *attributes, size_t n, hearth_field **out) {
    return view_pairs(n, attribute_id, attribute_value, attributes, out);
}

const hearth_value *hearth_find_field(const hearth_field *fields, size_t count, uint32_t id) {
    for (size_t i = 0; fields && i < count; i++)
        if (fields[i].id == id) return &fields[i].value;
    return NULL;
}
