/* The driver's devices with their current values, and which traits have changes the hub has not seen.
 *
 * Devices are found by id through a chained hash table and listed in an array for announcing. A trait with
 * unsent changes sits once in a FIFO ring and its changed attributes carry a dirty flag, so a burst of
 * reports for one trait costs one trait report with the newest values, and the memory held for unsent
 * changes never exceeds the model itself. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define MAX_ID_BYTES 256
#define MAX_NAME_BYTES 1024

hd_device *hd_model_find(const hd_model *m, const char *id) {
    if (!m->bucket_count) return NULL;
    for (hd_device *d = m->buckets[hd_hash(id) & (m->bucket_count - 1)]; d; d = d->next)
        if (!strcmp(d->pb.id, id)) return d;
    return NULL;
}

hd_device *hd_device_at(const hd_model *m, size_t i) { return m->devices[i]; }

/* One attribute of a report being applied (see hd_model_update). */
typedef struct hd_update_slot {
    hd_stored value;
    hd_attribute *created; /* a new attribute's record */
    size_t index;          /* the attribute's, SIZE_MAX for a new one, UNCHANGED for an equal value */
} hd_update_slot;

#define UNCHANGED (SIZE_MAX - 1)
#define TRAIT_SIZE sizeof(hd_trait *)

/* The ring holds every trait at most once: capacity for all of them means enqueueing never fails. */
static int ring_ensure(hd_model *m, size_t need) { return hd_ring_reserve(&m->dirty, need, TRAIT_SIZE); }

static int devices_grow(hd_model *m) {
    size_t cap = m->cap ? m->cap * 2 : 64;
    hd_device **devices = realloc(m->devices, cap * sizeof *devices);
    if (!devices) return -1;
    m->devices = devices, m->cap = cap;
    return 0;
}

/* Queues a trait once. */
static void enqueue(hd_model *m, hd_trait *t) {
    if (t->queued || m->dirty.count == m->dirty.cap) return;
    *(hd_trait **)hd_ring_push(&m->dirty, TRAIT_SIZE) = t;
    t->queued = true;
}

hd_trait *hd_model_pop_dirty(hd_model *m) {
    if (!m->dirty.count) return NULL;
    hd_trait *t = *(hd_trait **)hd_ring_at(&m->dirty, 0, TRAIT_SIZE);
    hd_ring_pop(&m->dirty);
    t->queued = false;
    return t;
}

void hd_model_push_front(hd_model *m, hd_trait *t) {
    if (t->queued || m->dirty.count == m->dirty.cap) return;
    *(hd_trait **)hd_ring_push_front(&m->dirty, TRAIT_SIZE) = t;
    t->queued = true;
}

static void ring_purge(hd_model *m, const hd_device *device) {
    size_t kept = 0;
    for (size_t i = 0; i < m->dirty.count; i++) {
        hd_trait *t = *(hd_trait **)hd_ring_at(&m->dirty, i, TRAIT_SIZE);
        if (t->device != device) *(hd_trait **)hd_ring_at(&m->dirty, kept++, TRAIT_SIZE) = t;
    }
    m->dirty.count = kept;
}

void hd_device_free(hd_device *d) {
    if (!d) return;
    for (size_t e = 0; e < d->pb.n_types && d->pb.types; e++) {
        hd_endpoint *ep = hd_ep(d, e);
        if (!ep) continue;
        for (size_t t = 0; t < ep->pb.n_traits && ep->pb.traits; t++) {
            hd_trait *tr = hd_tr(ep, t);
            if (!tr) continue;
            for (size_t a = 0; a < tr->pb.n_attributes; a++) {
                hd_attribute *at = hd_attr(tr, a);
                if (at) hd_value_release(&at->value);
                free(at);
            }
            free(tr->pb.attributes);
            free(tr);
        }
        free(ep->pb.traits);
        free(ep);
    }
    free(d->pb.types);
    free(d->pb.id);
    free(d->pb.suggested_name);
    free(d->pb.suggested_room);
    free(d);
}

/* Builds a trait's record with its initial values. */
static hearth_code build_trait(hd_device *device, uint32_t endpoint, const hearth_trait_desc *desc, hd_trait **out,
                               hearth_error *error) {
    if (desc->attribute_count && !desc->attributes) return hd_fail(error, HEARTH_EINVAL, "trait 0x%x: NULL attributes", desc->trait_id);
    hd_trait *t = calloc(1, sizeof *t);
    size_t cap = desc->attribute_count ? desc->attribute_count : 1;
    if (!t || !(t->pb.attributes = calloc(cap, sizeof *t->pb.attributes))) {
        free(t);
        return hd_fail(error, HEARTH_ENOMEM, "out of memory adding a device");
    }
    Hearth__V1__AnnouncedTrait init = HEARTH__V1__ANNOUNCED_TRAIT__INIT;
    Hearth__V1__Attribute **attributes = t->pb.attributes;
    t->pb = init;
    t->pb.attributes = attributes;
    t->pb.trait_id = desc->trait_id;
    t->pb.locality = (Hearth__V1__DataSourceLocality)desc->locality;
    t->device = device, t->endpoint = endpoint, t->attribute_cap = cap;
    t->connectivity = t->sent_connectivity = HEARTH__V1__CONNECTIVITY_STATE__CONNECTIVITY_STATE_ONLINE;
    *out = t; /* the caller frees it with the device, whatever happens next */
    for (size_t a = 0; a < desc->attribute_count; a++) {
        const hearth_field *in = &desc->attributes[a];
        for (size_t b = 0; b < a; b++)
            if (desc->attributes[b].id == in->id) return hd_fail(error, HEARTH_EINVAL, "trait 0x%x: attribute %u appears twice", desc->trait_id, in->id);
        hd_attribute *at = calloc(1, sizeof *at);
        if (!at) return hd_fail(error, HEARTH_ENOMEM, "out of memory adding a device");
        Hearth__V1__Attribute ainit = HEARTH__V1__ATTRIBUTE__INIT;
        at->pb = ainit;
        at->pb.id = in->id;
        t->pb.attributes[t->pb.n_attributes++] = &at->pb;
        hearth_code rc = hd_value_store(&at->value, &in->value, error);
        if (rc != HEARTH_OK) return rc;
        at->pb.value = hd_stored_value(&at->value);
    }
    return HEARTH_OK;
}

static hearth_code build_device(const hearth_device_desc *desc, hd_device **out, size_t *traits, hearth_error *error) {
    hearth_error ignored;
    if (!error) error = &ignored; /* the code of a failed copy below comes back through it */
    hd_device *d = calloc(1, sizeof *d);
    if (!d) return hd_fail(error, HEARTH_ENOMEM, "out of memory adding a device");
    *out = d;
    Hearth__V1__DeviceAnnouncement init = HEARTH__V1__DEVICE_ANNOUNCEMENT__INIT;
    d->pb = init;
    d->pb.id = d->pb.suggested_name = d->pb.suggested_room = NULL;
    if (!(d->pb.id = hd_strdup_checked(desc->id, MAX_ID_BYTES, "the device id", error)) ||
        !(d->pb.suggested_name = hd_strdup_checked(desc->name, MAX_NAME_BYTES, "the device name", error)) ||
        !(d->pb.suggested_room = hd_strdup_checked(desc->room, MAX_NAME_BYTES, "the room name", error)))
        return error->code;
    if (!d->pb.id[0]) return hd_fail(error, HEARTH_EINVAL, "the device id is empty");
    d->pb.is_matter_device = desc->is_matter_device;
    if (desc->endpoint_count && !desc->endpoints) return hd_fail(error, HEARTH_EINVAL, "device %s: NULL endpoints", d->pb.id);
    if (desc->endpoint_count && !(d->pb.types = calloc(desc->endpoint_count, sizeof *d->pb.types)))
        return hd_fail(error, HEARTH_ENOMEM, "out of memory adding a device");
    for (size_t e = 0; e < desc->endpoint_count; e++) {
        const hearth_endpoint_desc *in = &desc->endpoints[e];
        hd_endpoint *ep = calloc(1, sizeof *ep);
        if (!ep) return hd_fail(error, HEARTH_ENOMEM, "out of memory adding a device");
        Hearth__V1__AnnouncedType tinit = HEARTH__V1__ANNOUNCED_TYPE__INIT;
        ep->pb = tinit;
        d->pb.types[d->pb.n_types++] = &ep->pb;
        ep->pb.endpoint = in->endpoint, ep->pb.device_type_id = in->device_type_id, ep->pb.primary = in->primary;
        if (in->trait_count && !in->traits) return hd_fail(error, HEARTH_EINVAL, "device %s: NULL traits", d->pb.id);
        if (in->trait_count && !(ep->pb.traits = calloc(in->trait_count, sizeof *ep->pb.traits)))
            return hd_fail(error, HEARTH_ENOMEM, "out of memory adding a device");
        for (size_t t = 0; t < in->trait_count; t++) {
            /* Reports find a trait by (endpoint, trait id): it must be unique. */
            for (size_t pe = 0; pe <= e; pe++)
                for (size_t pt = 0; pt < (pe == e ? t : desc->endpoints[pe].trait_count); pt++)
                    if (desc->endpoints[pe].endpoint == in->endpoint && desc->endpoints[pe].traits[pt].trait_id == in->traits[t].trait_id)
                        return hd_fail(error, HEARTH_EINVAL, "device %s: trait 0x%x twice on endpoint %u", d->pb.id,
                                       in->traits[t].trait_id, in->endpoint);
            hd_trait *tr = NULL;
            hearth_code rc = build_trait(d, in->endpoint, &in->traits[t], &tr, error);
            if (tr) ep->pb.traits[ep->pb.n_traits++] = &tr->pb;
            if (rc != HEARTH_OK) return rc;
            (*traits)++;
        }
    }
    size_t packed = protobuf_c_message_get_packed_size(&d->pb.base);
    if (packed > HD_MAX_DESC_BYTES) return hd_fail(error, HEARTH_ELIMIT, "device %s packs to %zu bytes, over 1 MiB", d->pb.id, packed);
    return HEARTH_OK;
}

static int hash_insert(hd_model *m, hd_device *d) {
    if (m->count + 1 > m->bucket_count) { /* load factor at most 1 */
        size_t n = m->bucket_count ? m->bucket_count * 2 : 64;
        hd_device **buckets = calloc(n, sizeof *buckets);
        if (!buckets) return -1;
        for (size_t i = 0; i < m->bucket_count; i++)
            for (hd_device *x = m->buckets[i], *next; x; x = next) {
                next = x->next;
                x->next = buckets[hd_hash(x->pb.id) & (n - 1)];
                buckets[hd_hash(x->pb.id) & (n - 1)] = x;
            }
        free(m->buckets);
        m->buckets = buckets, m->bucket_count = n;
    }
    hd_device **slot = &m->buckets[hd_hash(d->pb.id) & (m->bucket_count - 1)];
    d->next = *slot;
    *slot = d;
    return 0;
}

hearth_code hd_model_add(hd_model *m, const hearth_device_desc *desc, hearth_error *error) {
    if (!desc) return hd_fail(error, HEARTH_EINVAL, "no device description");
    hd_device *d = NULL;
    size_t traits = 0;
    hearth_code rc = build_device(desc, &d, &traits, error);
    if (rc != HEARTH_OK) {
        hd_device_free(d);
        return rc;
    }
    hd_device *old = hd_model_find(m, d->pb.id);
    /* Room in the device array and in the ring for every trait, reserved before anything changes. */
    if (ring_ensure(m, m->trait_total + traits) != 0 || (!old && m->count == m->cap && devices_grow(m) != 0)) {
        hd_device_free(d);
        return hd_fail(error, HEARTH_ENOMEM, "out of memory adding a device");
    }
    if (old) hd_model_remove(m, old);
    if (hash_insert(m, d) != 0) {
        hd_device_free(d);
        return hd_fail(error, HEARTH_ENOMEM, "out of memory adding a device");
    }
    d->index = m->count;
    m->devices[m->count++] = d;
    d->needs_announce = true;
    d->trait_count = traits;
    m->trait_total += traits;
    m->announce_pending++;
    return HEARTH_OK;
}

void hd_model_remove(hd_model *m, hd_device *d) {
    hd_device **slot = &m->buckets[hd_hash(d->pb.id) & (m->bucket_count - 1)];
    while (*slot != d) slot = &(*slot)->next;
    *slot = d->next;
    m->devices[d->index] = m->devices[--m->count];
    m->devices[d->index]->index = d->index;
    if (d->needs_announce) m->announce_pending--;
    m->trait_total -= d->trait_count;
    ring_purge(m, d);
    hd_device_free(d);
}

void hd_model_free(hd_model *m) {
    for (size_t i = 0; i < m->count; i++) hd_device_free(m->devices[i]);
    free(m->devices);
    free(m->buckets);
    hd_ring_free(&m->dirty);
    free(m->slots);
    *m = (hd_model){0};
}

hd_trait *hd_model_trait(hd_device *d, uint32_t endpoint, uint32_t trait_id) {
    for (size_t e = 0; e < d->pb.n_types; e++) {
        hd_endpoint *ep = hd_ep(d, e);
        if (endpoint != HEARTH_ANY_ENDPOINT && ep->pb.endpoint != endpoint) continue;
        for (size_t t = 0; t < ep->pb.n_traits; t++)
            if (hd_tr(ep, t)->pb.trait_id == trait_id) return hd_tr(ep, t);
    }
    return NULL;
}

static void mark(hd_model *m, hd_trait *t, hd_attribute *a) {
    if (!a->dirty) a->dirty = true, t->dirty_count++;
    enqueue(m, t);
}

int hd_model_update(hd_model *m, hd_trait *t, const hearth_field *in, size_t n, bool queue, hearth_error *error) {
    if (n && !in) return -hd_fail(error, HEARTH_EINVAL, "NULL attributes");
    /* All or nothing: new values are built first, in scratch slots the model keeps (a report on the hot path
     * allocates nothing but what its values need), then swapped in. */
    if (n > m->slot_cap) {
        size_t cap = n < 8 ? 8 : n;
        hd_update_slot *slots = cap <= SIZE_MAX / sizeof *slots ? realloc(m->slots, cap * sizeof *slots) : NULL;
        if (!slots) return -hd_fail(error, HEARTH_ENOMEM, "out of memory");
        m->slots = slots, m->slot_cap = cap;
    }
    hd_update_slot *slot = m->slots;
    hearth_code rc = HEARTH_OK;
    size_t built = 0, grow = 0;
    for (size_t i = 0; rc == HEARTH_OK && i < n; i++, built++) {
        slot[i].value.block = NULL, slot[i].created = NULL;
        for (size_t j = 0; j < i; j++)
            if (in[j].id == in[i].id) rc = hd_fail(error, HEARTH_EINVAL, "attribute %u appears twice", in[i].id);
        slot[i].index = SIZE_MAX;
        for (size_t a = 0; a < t->pb.n_attributes; a++)
            if (hd_attr(t, a)->pb.id == in[i].id) slot[i].index = a;
        if (rc != HEARTH_OK) break;
        if (slot[i].index != SIZE_MAX && hd_value_equal(&in[i].value, hd_attr(t, slot[i].index)->pb.value)) {
            slot[i].index = UNCHANGED;
            continue;
        }
        rc = hd_value_store(&slot[i].value, &in[i].value, error);
        if (rc == HEARTH_OK && slot[i].index == SIZE_MAX) {
            grow++;
            if (!(slot[i].created = calloc(1, sizeof *slot[i].created))) rc = hd_fail(error, HEARTH_ENOMEM, "out of memory");
        }
    }
    if (rc == HEARTH_OK && t->pb.n_attributes + grow > t->attribute_cap) {
        size_t cap = (t->pb.n_attributes + grow) * 2;
        Hearth__V1__Attribute **a = realloc(t->pb.attributes, cap * sizeof *a);
        if (a) t->pb.attributes = a, t->attribute_cap = cap;
        else rc = hd_fail(error, HEARTH_ENOMEM, "out of memory");
    }
    int changed = 0;
    for (size_t i = 0; i < built; i++) {
        if (slot[i].index == UNCHANGED) continue;
        if (rc != HEARTH_OK) {
            hd_value_release(&slot[i].value);
            free(slot[i].created);
            continue;
        }
        hd_attribute *a;
        if (slot[i].index == SIZE_MAX) {
            a = slot[i].created;
            Hearth__V1__Attribute init = HEARTH__V1__ATTRIBUTE__INIT;
            a->pb = init;
            a->pb.id = in[i].id;
            t->pb.attributes[t->pb.n_attributes++] = &a->pb;
        } else {
            a = hd_attr(t, slot[i].index);
            hd_value_release(&a->value);
        }
        a->value = slot[i].value;
        a->pb.value = hd_stored_value(&a->value);
        if (queue) mark(m, t, a);
        changed = 1;
    }
    if (rc != HEARTH_OK) return -(int)rc;
    /* A report says the trait is reachable: bring it back online if the driver had marked it offline. */
    if (t->connectivity != HEARTH__V1__CONNECTIVITY_STATE__CONNECTIVITY_STATE_ONLINE) {
        hd_model_set_connectivity(m, t, HEARTH__V1__CONNECTIVITY_STATE__CONNECTIVITY_STATE_ONLINE, queue);
        changed = 1;
    }
    return changed;
}

void hd_model_set_connectivity(hd_model *m, hd_trait *t, Hearth__V1__ConnectivityState c, bool queue) {
    t->connectivity = c;
    t->connectivity_dirty = queue && c != t->sent_connectivity;
    if (t->connectivity_dirty) enqueue(m, t);
}

void hd_model_begin_session(hd_model *m) {
    m->dirty.count = m->dirty.head = 0;
    m->announce_pending = m->count;
    for (size_t i = 0; i < m->count; i++) {
        hd_device *d = m->devices[i];
        d->needs_announce = true;
        for (size_t e = 0; e < d->pb.n_types; e++) {
            hd_endpoint *ep = hd_ep(d, e);
            for (size_t t = 0; t < ep->pb.n_traits; t++) {
                hd_trait *tr = hd_tr(ep, t);
                tr->queued = false;
                tr->dirty_count = 0;
                for (size_t a = 0; a < tr->pb.n_attributes; a++) hd_attr(tr, a)->dirty = false;
                /* An announcement says nothing of connectivity: the hub takes the trait as online, so an
                 * offline one is reported right after it. */
                tr->sent_connectivity = HEARTH__V1__CONNECTIVITY_STATE__CONNECTIVITY_STATE_ONLINE;
                hd_model_set_connectivity(m, tr, tr->connectivity, true);
            }
        }
    }
}
