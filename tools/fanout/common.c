/* The fan-out benchmark's shared pieces; see common.h. */
#define _GNU_SOURCE
#include "common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

uint64_t fo_now(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) fo_die("clock_gettime: %s", strerror(errno));
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double fo_cpu_seconds(void) {
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return -1;
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

double fo_runq_seconds(void) {
    FILE *f = fopen("/proc/self/schedstat", "r");
    if (!f) return 0;
    unsigned long long running = 0, waiting = 0;
    int n = fscanf(f, "%llu %llu", &running, &waiting);
    fclose(f);
    return n == 2 ? waiting / 1e9 : 0;
}

static volatile sig_atomic_t *stop_flag;

static void on_signal(int signal_number) {
    (void)signal_number;
    if (stop_flag) *stop_flag = 1;
}

int fo_on_stop(volatile sig_atomic_t *flag) {
    stop_flag = flag;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    if (sigemptyset(&action.sa_mask) != 0) return -1;
    if (sigaction(SIGINT, &action, NULL) != 0 || sigaction(SIGTERM, &action, NULL) != 0) return -1;
    if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) return -1;
    return 0;
}

void fo_die(const char *format, ...) {
    va_list args;
    va_start(args, format);
    fputs("fanout: ", stderr);
    vfprintf(stderr, format, args);
    fputc('\n', stderr);
    va_end(args);
    exit(1);
}

uint64_t fo_parse_u64(const char *option, const char *text) {
    if (!text || !*text) fo_die("%s needs a value", option);
    char *end = NULL;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0' || text[0] == '-') fo_die("%s: '%s' is not a non-negative integer", option, text);
    return (uint64_t)value;
}

int fo_exists(const char *path) { return access(path, F_OK) == 0; }

/* --- schedule --------------------------------------------------------------------------------------- */

void fo_schedule_init(fo_schedule *s, uint64_t t0, uint64_t rate, uint64_t total, uint64_t first, uint64_t stride) {
    memset(s, 0, sizeof *s);
    s->t0 = t0;
    s->rate = rate ? rate : 1;
    s->total = total;
    s->stride = stride ? stride : 1;
    s->next = first;
}

uint64_t fo_due(const fo_schedule *s, uint64_t k) {
    /* k × 1e9 stays far below 2^64 for any k a run makes (k < 1.8e10). */
    return s->t0 + k * 1000000000u / s->rate;
}

size_t fo_schedule_take(fo_schedule *s, uint64_t now, size_t max, uint64_t *first, uint64_t *wake) {
    if (s->next >= s->total) {
        *wake = UINT64_MAX;
        return 0;
    }
    uint64_t k = s->next;
    uint64_t bucket_end = s->t0 + ((fo_due(s, k) - s->t0) / 1000000u + 1) * 1000000u;
    uint64_t last = k;
    size_t count = 1;
    while (count < max && last + s->stride < s->total && fo_due(s, last + s->stride) < bucket_end) {
        last += s->stride;
        count++;
    }
    if (now < fo_due(s, last)) {
        *wake = fo_due(s, last);
        return 0;
    }
    /* Behind schedule: also take whatever else is already due. */
    while (count < max && last + s->stride < s->total && fo_due(s, last + s->stride) <= now) {
        last += s->stride;
        count++;
    }
    uint64_t lag = now - fo_due(s, last);
    if (lag > s->max_lag_ns) s->max_lag_ns = lag;
    if (lag > 1000000u) s->late_batches++;
    s->batches++;
    *first = k;
    s->next = last + s->stride;
    *wake = now;
    return count;
}

void fo_schedule_print(const fo_schedule *s, FILE *out, const char *system, int publisher, double seconds,
                       double cpu, double runq, uint64_t sent, uint64_t rejected, size_t max_queued) {
    fprintf(out,
            "{\"role\":\"pub\",\"system\":\"%s\",\"publisher\":%d,\"sent\":%llu,\"batches\":%llu,"
            "\"seconds\":%.3f,\"max_lag_us\":%.1f,\"late_batches\":%llu,\"cpu_s\":%.3f,\"runq_s\":%.3f,"
            "\"rejected\":%llu,\"max_queued_bytes\":%zu}\n",
            system, publisher, (unsigned long long)sent, (unsigned long long)s->batches, seconds,
            s->max_lag_ns / 1e3, (unsigned long long)s->late_batches, cpu, runq, (unsigned long long)rejected,
            max_queued);
    fflush(out);
}

/* --- tracker ---------------------------------------------------------------------------------------- */

uint64_t fo_final_seq(uint64_t devices, uint64_t total, uint64_t g) {
    if (devices == 0 || g >= devices || g >= total) return 0;
    return (total - 1 - g) / devices + 1;
}

int fo_tracker_init(fo_tracker *t, uint64_t devices, uint64_t total) {
    memset(t, 0, sizeof *t);
    t->devices = devices;
    t->total = total;
    t->expected_devices = devices < total ? devices : total;
    t->last = calloc(devices ? devices : 1, sizeof *t->last);
    /* One slot per report, plus room for duplicates; a run never needs more. */
    t->lat_cap = (size_t)(total + total / 4 + 1024);
    if (t->lat_cap > (size_t)200000000u) t->lat_cap = 200000000u;
    t->lat_us = malloc(t->lat_cap * sizeof *t->lat_us);
    if (!t->last || !t->lat_us) {
        fo_tracker_free(t);
        return -1;
    }
    return 0;
}

void fo_tracker_free(fo_tracker *t) {
    free(t->last);
    free(t->lat_us);
    t->last = NULL;
    t->lat_us = NULL;
}

void fo_tracker_observe(fo_tracker *t, uint64_t g, uint64_t seq, uint64_t due, uint64_t now) {
    if (g >= t->devices || seq == 0) {
        t->foreign++;
        return;
    }
    if (t->deliveries++ == 0) {
        t->first_ns = now;
        t->cpu_start = fo_cpu_seconds();
        t->runq_start = fo_runq_seconds();
    }
    t->last_ns = now;
    uint64_t latency = now > due ? now - due : 0;
    if (latency > t->max_lat_ns) t->max_lat_ns = latency;
    if (t->lat_count < t->lat_cap) {
        uint64_t us = latency / 1000u;
        t->lat_us[t->lat_count++] = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
    }
    uint64_t previous = t->last[g];
    if (seq <= previous) {
        t->dup++;
        return;
    }
    t->skipped += seq - previous - 1;
    t->last[g] = seq;
    if (seq == fo_final_seq(t->devices, t->total, g)) t->complete_devices++;
}

int fo_tracker_done(const fo_tracker *t) { return t->complete_devices >= t->expected_devices; }

static int compare_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static double percentile(const uint32_t *sorted, size_t count, double p) {
    if (count == 0) return 0;
    size_t index = (size_t)(p * (double)count);
    if (index >= count) index = count - 1;
    return sorted[index];
}

void fo_tracker_print(fo_tracker *t, FILE *out, const char *system, int watcher, int skipped_is_lost) {
    double cpu = t->deliveries ? fo_cpu_seconds() - t->cpu_start : 0;
    double runq = t->deliveries ? fo_runq_seconds() - t->runq_start : 0;
    qsort(t->lat_us, t->lat_count, sizeof *t->lat_us, compare_u32);
    /* Seqs never seen at the end: a device short of its last seq misses the rest. */
    uint64_t missing = 0, stale = 0;
    for (uint64_t g = 0; g < t->devices; g++) {
        uint64_t final = fo_final_seq(t->devices, t->total, g);
        if (t->last[g] < final) {
            missing += final - t->last[g];
            stale++;
        }
    }
    double window = t->last_ns > t->first_ns ? (t->last_ns - t->first_ns) / 1e9 : 0;
    uint64_t lost = skipped_is_lost ? t->skipped + missing : stale;
    uint64_t coalesced = skipped_is_lost ? 0 : t->skipped + missing;
    fprintf(out,
            "{\"role\":\"sub\",\"system\":\"%s\",\"watcher\":%d,\"deliveries\":%llu,\"window_s\":%.3f,"
            "\"deliveries_per_s\":%.1f,\"p50_us\":%.0f,\"p99_us\":%.0f,\"p999_us\":%.0f,\"max_us\":%.0f,"
            "\"lost\":%llu,\"dup\":%llu,\"coalesced\":%llu,\"stale_devices\":%llu,\"complete\":%s,"
            "\"foreign\":%llu,\"resets\":%llu,\"cpu_s\":%.3f,\"runq_s\":%.3f}\n",
            system, watcher, (unsigned long long)t->deliveries, window,
            window > 0 ? t->deliveries / window : 0.0, percentile(t->lat_us, t->lat_count, 0.50),
            percentile(t->lat_us, t->lat_count, 0.99), percentile(t->lat_us, t->lat_count, 0.999),
            t->max_lat_ns / 1e3, (unsigned long long)lost, (unsigned long long)t->dup,
            (unsigned long long)coalesced, (unsigned long long)stale, fo_tracker_done(t) ? "true" : "false",
            (unsigned long long)t->foreign, (unsigned long long)t->resets, cpu, runq);
    fflush(out);
}
