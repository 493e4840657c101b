/* Removed device ids, kept until the hub is known to have taken them.
 *
 * The hub answers a RemoveDevices with nothing (or a rejection), and one encoded just before the connection
 * drops may never reach it. So a removal is kept after it is sent, and every Welcome settles them: an id the
 * hub still lists among its known_device_ids is sent again first thing in the session, the others are
 * forgotten (delivered, or never known to the hub). A device added again after its removal replaces it, as
 * when connected: a removal still waiting goes out once before the announcement; one already sent is
 * forgotten (the hub may have the device again, from the announcement). Ids are found through a fixed hash
 * table; waiting and sent ones are kept oldest first in two rings, and when HD_MAX_REMOVALS are kept, the
 * oldest sent one is forgotten to make room. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

#define BUCKETS 4096 /* chains of at most HD_MAX_REMOVALS / BUCKETS on average */
#define PTR sizeof(hd_removal *)

struct hd_removal {
    hd_removal *next; /* hash chain */
    bool sent;        /* in the sent ring (else the pending one) */
    bool readded;     /* waiting, and the device was added again: sent once, then forgotten */
    bool dead;        /* in the sent ring but forgotten (not hashed): freed when it leaves the ring */
    char id[];
};

static hd_removal **chain(const hd_removals *r, const char *id) { return &r->buckets[hd_hash(id) & (BUCKETS - 1)]; }

static hd_removal *find(const hd_removals *r, const char *id) {
    if (!r->buckets) return NULL;
    for (hd_removal *x = *chain(r, id); x; x = x->next)
        if (!strcmp(x->id, id)) return x;
    return NULL;
}

static void unhash(hd_removals *r, hd_removal *x) {
    hd_removal **slot = chain(r, x->id);
    while (*slot != x) slot = &(*slot)->next;
    *slot = x->next;
}

static hd_removal *take(hd_ring *ring) {
    hd_removal *x = *(hd_removal **)hd_ring_at(ring, 0, PTR);
    hd_ring_pop(ring);
    return x;
}

/* Frees a record leaving a ring: unhashed first unless already forgotten. */
static void forget(hd_removals *r, hd_removal *x) {
    if (!x->dead) unhash(r, x);
    free(x);
}

hearth_code hd_removals_add(hd_removals *r, const char *id, hearth_error *error) {
    hd_removal *x = find(r, id);
    if (x && !x->sent) { /* removed, added again, removed again before anything went out: one removal */
        x->readded = false;
        return HEARTH_OK;
    }
    if (r->pending.count >= HD_MAX_REMOVALS) return hd_fail(error, HEARTH_ELIMIT, "too many removals waiting to be sent");
    size_t length = strlen(id);
    hd_removal *fresh = malloc(sizeof *fresh + length + 1);
    if (!fresh || (!r->buckets && !(r->buckets = calloc(BUCKETS, sizeof *r->buckets))) ||
        hd_ring_reserve(&r->pending, r->pending.count + 1, PTR) != 0) {
        free(fresh);
        return hd_fail(error, HEARTH_ENOMEM, "out of memory");
    }
    if (x) { /* sent before the device came back: that removal is settled, this one is new */
        unhash(r, x);
        x->dead = true;
    }
    while (r->pending.count + r->sent.count >= HD_MAX_REMOVALS) forget(r, take(&r->sent));
    *fresh = (hd_removal){.next = *chain(r, id)};
    memcpy(fresh->id, id, length + 1);
    *chain(r, id) = fresh;
    *(hd_removal **)hd_ring_push(&r->pending, PTR) = fresh;
    return HEARTH_OK;
}

void hd_removals_readded(hd_removals *r, const char *id) {
    hd_removal *x = find(r, id);
    if (!x) return;
    if (!x->sent) {
        x->readded = true;
        return;
    }
    unhash(r, x);
    x->dead = true;
}

char *hd_removals_id(const hd_removals *r, size_t i) { return (*(hd_removal **)hd_ring_at(&r->pending, i, PTR))->id; }

void hd_removals_sent(hd_removals *r, size_t n) {
    for (size_t i = 0; i < n; i++) {
        hd_removal *x = take(&r->pending);
        hd_removal **slot = x->readded ? NULL : hd_ring_push(&r->sent, PTR);
        if (!slot) { /* sent once (a device added again), or no room to keep it: forgotten */
            forget(r, x);
            continue;
        }
        x->sent = true;
        *slot = x;
    }
}

static int compare(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void hd_removals_welcome(hd_removals *r, char *const *known, size_t n) {
    size_t total = r->sent.count + r->pending.count;
    if (!total) return;
    /* Sorted to look ids up; without the memory for it, every removal is sent again (the hub refuses the
     * ones it does not know, harmlessly). */
    char **sorted = n ? malloc(n * sizeof *sorted) : NULL;
    if (sorted) {
        memcpy(sorted, known, n * sizeof *sorted);
        qsort(sorted, n, sizeof *sorted, compare);
    }
    hd_ring again = {0};
    if (hd_ring_reserve(&again, total, PTR) != 0) { /* left as they are: settled by the next Welcome */
        free(sorted);
        return;
    }
    hd_ring *oldest_first[] = {&r->sent, &r->pending};
    for (size_t k = 0; k < 2; k++)
        while (oldest_first[k]->count) {
            hd_removal *x = take(oldest_first[k]);
            char *id = x->id;
            if (x->dead || !n || (sorted && !bsearch(&id, sorted, n, sizeof *sorted, compare))) {
                forget(r, x);
                continue;
            }
            x->sent = false;
            *(hd_removal **)hd_ring_push(&again, PTR) = x;
        }
    free(sorted);
    hd_ring_free(&r->pending);
    r->pending = again;
}

void hd_removals_free(hd_removals *r) {
    while (r->pending.count) free(take(&r->pending));
    while (r->sent.count) free(take(&r->sent));
    hd_ring_free(&r->pending);
    hd_ring_free(&r->sent);
    free(r->buckets);
    *r = (hd_removals){0};
}
