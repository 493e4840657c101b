/* Shared by the fan-out benchmark's publishers and subscribers (Hearth and mosquitto alike): the clock,
 * the open-loop schedule, the probe tracker (latency, gaps, duplicates) and small helpers.
 *
 * The plan every process derives from the same arguments: N devices (global index g = 0..N-1), M = rate ×
 * seconds reports in all. Report k (0..M-1) is due at t0 + k/rate, changes device k mod N and carries
 * seq = k / N + 1. Publisher j of D owns the devices with g mod D == j (N must be a multiple of D), so it
 * sends reports j, j+D, j+2D, … at rate/D. A device's last seq is therefore known to every subscriber. */
#ifndef FANOUT_COMMON_H
#define FANOUT_COMMON_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FANOUT_PROBE_TRAIT 0xFFF1FC7Eu /* HearthLoad.LoadProbe: seq (0x0000), sentAt (0x0001) */
#define FANOUT_DEVICE_TYPE 0xFFF10F7Eu /* a vendor device type the hub accepts without a schema */

/* CLOCK_MONOTONIC nanoseconds: the same clock in every process of the machine. */
uint64_t fo_now(void);
/* This process's user + system CPU seconds so far. */
double fo_cpu_seconds(void);
/* Seconds this (single-threaded) process has spent runnable but waiting for a CPU so far. */
double fo_runq_seconds(void);
/* Installs SIGINT/SIGTERM handlers that set *flag (no SA_RESTART: blocking calls return EINTR). */
int fo_on_stop(volatile sig_atomic_t *flag);
/* Prints "fanout: <message>" to stderr and exits 1. */
void fo_die(const char *format, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* Parses a non-negative integer argument; dies with the option's name when it is not one. */
uint64_t fo_parse_u64(const char *option, const char *text);
/* Whether the file exists (the run script's "go" signal). */
int fo_exists(const char *path);

/* The reports one publisher sends: k = first, first + stride, … below total. */
typedef struct {
    uint64_t t0;     /* monotonic ns of report 0's due time */
    uint64_t rate;   /* reports per second, all publishers together */
    uint64_t total;  /* M */
    uint64_t stride; /* D */
    uint64_t next;   /* the next report not yet taken */
    uint64_t max_lag_ns;
    uint64_t late_batches; /* batches taken more than 1 ms after their due time */
    uint64_t batches;
} fo_schedule;

void fo_schedule_init(fo_schedule *s, uint64_t t0, uint64_t rate, uint64_t total, uint64_t first, uint64_t stride);
uint64_t fo_due(const fo_schedule *s, uint64_t k);
/* The next batch: the reports due in the same millisecond as the next one, taken once the last of them is
 * due; when behind, everything due by `now` (at most `max`). Returns the count (consecutive by stride from
 * *first) or 0 with *wake set to when to call again (UINT64_MAX when all are taken). */
size_t fo_schedule_take(fo_schedule *s, uint64_t now, size_t max, uint64_t *first, uint64_t *wake);
/* Prints the publisher's summary line. */
void fo_schedule_print(const fo_schedule *s, FILE *out, const char *system, int publisher, double seconds,
                       double cpu, double runq, uint64_t sent, uint64_t rejected, size_t max_queued);

/* What one subscriber saw. */
typedef struct {
    uint64_t devices, total;
    uint64_t *last;    /* per device: last seq seen (0: none) */
    uint32_t *lat_us;  /* one latency per delivery, bounded by lat_cap */
    size_t lat_count, lat_cap;
    uint64_t deliveries, dup, skipped, complete_devices, expected_devices, foreign;
    uint64_t resets; /* streams the server ended or reset, each resumed */
    uint64_t first_ns, last_ns, max_lat_ns;
    double cpu_start, runq_start; /* at the first delivery: the subscriber's own cost is measured from there */
} fo_tracker;

int fo_tracker_init(fo_tracker *t, uint64_t devices, uint64_t total);
void fo_tracker_free(fo_tracker *t);
/* The last seq device g gets in the plan (0: none). */
uint64_t fo_final_seq(uint64_t devices, uint64_t total, uint64_t g);
/* One probe delivery: device g, its seq and due time, received at now. */
void fo_tracker_observe(fo_tracker *t, uint64_t g, uint64_t seq, uint64_t due, uint64_t now);
/* Whether every device has reached its last seq. */
int fo_tracker_done(const fo_tracker *t);
/* Prints the subscriber's summary line, with its CPU and run-queue wait since the first delivery. `skipped_is_lost`: intermediate seqs that never arrived are losses
 * (MQTT QoS 0 drops) rather than coalescing (Hearth folds a slow watcher's backlog to the newest state). */
void fo_tracker_print(fo_tracker *t, FILE *out, const char *system, int watcher, int skipped_is_lost);

#endif
