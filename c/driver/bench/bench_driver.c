/* bench-driver: one C driver process reporting at a fixed open-loop rate; prints its own CPU per report.
 *
 *   bench-driver --hub ADDRESS --token TOKEN [--devices 2000] [--rate 20000] [--seconds 10] [--tick-ms 1]
 *
 * Announces N temperature sensors, waits until connected (and a second for the announcements), then every
 * tick makes the reports that fell due (each one a new value of the next device's measuredValue, so none
 * coalesce while N >= rate × tick) and lets the driver flush. CPU is getrusage(RUSAGE_SELF), user + system,
 * over the sending window and the drain after it; the driver's counters say what went on the wire (fewer
 * trait reports than reports when the hub fell behind and the driver coalesced). One JSON line on stdout;
 * exit 1 if the session dropped. */
#define _GNU_SOURCE
#include <hearth/driver.h>

#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cpu(double *user, double *sys) {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    *user = (double)r.ru_utime.tv_sec + (double)r.ru_utime.tv_usec / 1e6;
    *sys = (double)r.ru_stime.tv_sec + (double)r.ru_stime.tv_usec / 1e6;
    return *user + *sys;
}

/* Runs the driver for `seconds` (or until `until` says so), waking at least every tick. */
static int pump(hearth_driver *d, double seconds, int (*until)(hearth_driver *)) {
    double end = now() + seconds;
    hearth_error e;
    while (now() < end && !(until && until(d))) {
        hearth_code rc = hearth_driver_process(d, &e);
        if (rc == HEARTH_ESTOPPED) return 0;
        if (rc != HEARTH_OK) return fprintf(stderr, "bench: %s\n", e.message), -1;
        struct pollfd p = {.fd = hearth_driver_fd(d), .events = POLLIN};
        poll(&p, 1, 1);
    }
    return 0;
}

static int connected(hearth_driver *d) { return hearth_driver_state(d) == HEARTH_STATE_CONNECTED; }

int main(int argc, char **argv) {
    hearth_config config = {0};
    long devices = 2000, rate = 20000, seconds = 10, tick_ms = 1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--hub")) config.hub = argv[i + 1];
        else if (!strcmp(argv[i], "--token")) config.token = argv[i + 1];
        else if (!strcmp(argv[i], "--devices")) devices = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--rate")) rate = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--seconds")) seconds = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--tick-ms")) tick_ms = atol(argv[i + 1]);
        else return fprintf(stderr, "bench: unknown option %s\n", argv[i]), 2;
    }
    if (devices < 1 || devices > 1000000 || rate < 1 || seconds < 1 || tick_ms < 1) return fprintf(stderr, "bench: bad arguments\n"), 2;
    config.log_level = HEARTH_LOG_WARNING;
    hearth_error e;
    hearth_driver *d = hearth_driver_new(&config, &e);
    if (!d) return fprintf(stderr, "bench: %s\n", e.message), 1;
    char (*ids)[24] = calloc((size_t)devices, sizeof *ids);
    for (long i = 0; i < devices; i++) {
        snprintf(ids[i], sizeof ids[i], "t%ld", i);
        hearth_field identify[] = {{0, hearth_uint(0)}, {1, hearth_enum(2)}};
        hearth_field temperature[] = {{0, hearth_int(2000)}, {1, hearth_int(-4000)}, {2, hearth_int(8500)}};
        hearth_trait_desc traits[] = {{0x0003, identify, 2, HEARTH_LOCALITY_LOCAL}, {0x0402, temperature, 3, HEARTH_LOCALITY_LOCAL}};
        hearth_endpoint_desc endpoint = {1, 0x0302, true, traits, 2};
        hearth_device_desc device = {ids[i], ids[i], NULL, false, &endpoint, 1};
        if (hearth_driver_add_device(d, &device, &e) != HEARTH_OK) return fprintf(stderr, "bench: %s\n", e.message), 1;
    }
    if (pump(d, 30, connected) != 0 || !connected(d)) return fprintf(stderr, "bench: not connected in 30 s\n"), 1;
    pump(d, 1.5, NULL); /* the announcements go out and the hub digests them */

    hearth_stats before, after;
    hearth_driver_stats(d, &before);
    double user0, sys0, user1, sys1, cpu0 = cpu(&user0, &sys0), t0 = now(), tick = (double)tick_ms / 1000.0;
    long total = rate * seconds, sent = 0;
    while (sent < total) {
        long due = (long)((now() - t0) * (double)rate) + 1;
        if (due > total) due = total;
        for (; sent < due; sent++) {
            hearth_field f = {0, hearth_int(sent / devices % 20000)};
            if (hearth_driver_report(d, ids[sent % devices], 1, 0x0402, &f, 1, &e) != HEARTH_OK)
                return fprintf(stderr, "bench: report: %s\n", e.message), 1;
        }
        if (hearth_driver_process(d, &e) != HEARTH_OK) return fprintf(stderr, "bench: %s\n", e.message), 1;
        double next = t0 + (double)sent / (double)rate, wait = next - now();
        if (wait < tick) wait = tick; /* batch at most a tick's worth: a driver's own rhythm */
        struct pollfd p = {.fd = hearth_driver_fd(d), .events = POLLIN};
        struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
        ppoll(&p, 1, &ts, NULL);
    }
    double t1 = now();
    /* Drain: until every report has gone out (the hub's window permitting), or nothing moves for 0.5 s. */
    uint64_t last = UINT64_MAX;
    for (double end = now() + 10, quiet = now(); now() < end;) {
        hearth_driver_stats(d, &after);
        uint64_t out = after.trait_reports_sent - before.trait_reports_sent;
        if (out >= after.reports - before.reports) break;
        if (out != last) last = out, quiet = now();
        else if (now() - quiet > 0.5) break;
        pump(d, 0.01, NULL);
    }
    double cpu1 = cpu(&user1, &sys1), wall = now() - t0;
    hearth_driver_stats(d, &after);
    uint64_t reports = after.reports - before.reports, wire = after.trait_reports_sent - before.trait_reports_sent;
    uint64_t messages = after.messages_sent - before.messages_sent, bytes = after.bytes_sent - before.bytes_sent;
    double per_report = (cpu1 - cpu0) / (double)total * 1e6, per_sent = wire ? (cpu1 - cpu0) / (double)wire * 1e6 : 0;
    printf("{\"devices\": %ld, \"rate\": %ld, \"tick_ms\": %ld, \"reports\": %" PRIu64 ", \"trait_reports_sent\": %" PRIu64
           ", \"messages\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"send_seconds\": %.3f, \"seconds\": %.3f,"
           " \"reports_per_second\": %.0f, \"cpu_seconds\": %.3f, \"user\": %.3f, \"system\": %.3f,"
           " \"cpu_us_per_report\": %.2f, \"cpu_us_per_sent\": %.2f, \"coalesced\": %" PRIu64 ", \"sessions\": %" PRIu64 "}\n",
           devices, rate, tick_ms, reports, wire, messages, bytes, t1 - t0, wall, (double)total / (t1 - t0), cpu1 - cpu0,
           user1 - user0, sys1 - sys0, per_report, per_sent, reports - wire, after.sessions);
    /* Coalescing is not a failure (the hub was slower than the rate: newest values win), but it is shown. */
    int ok = after.sessions == 1 && reports == (uint64_t)total;
    hearth_driver_stop(d);
    pump(d, 5, NULL);
    hearth_driver_free(d);
    free(ids);
    if (!ok) fprintf(stderr, "bench: %" PRIu64 " of %ld reports made in %" PRIu64 " session(s)\n", reports, total, after.sessions);
    return ok ? 0 : 1;
}
