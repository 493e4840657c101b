/*
 * The floor under a command's round trip on this machine: three processes that do nothing but pass a
 * 40-byte message on, shaped like a command through Hearth (client -> hub -> driver -> hub -> client), over
 * loopback TCP with TCP_NODELAY. The "hub" waits in epoll_wait like an event loop; the others block in
 * read. Prints the round trip's p50, p99 and max.
 *
 *   relay_floor <calls> <gap-us> <layout>
 *
 * layout "together": every process on CPU 0; "apart": the hub on CPU 1, the client and the driver on
 * CPU 0 (every leg wakes the other CPU); "free": no pinning, the scheduler decides.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void pin(int cpu) {
    if (cpu < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) perror("sched_setaffinity");
}

static void no_delay(int fd) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

static int connect_to(const struct sockaddr_in *address) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (const struct sockaddr *)address, sizeof *address) != 0) {
        perror("connect");
        exit(1);
    }
    no_delay(fd);
    return fd;
}

static int compare(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Forwards whatever one side sends to the other, from one epoll loop. */
static void run_hub(int listener, int cpu) {
    pin(cpu);
    int client = accept(listener, NULL, NULL);
    int driver = accept(listener, NULL, NULL);
    no_delay(client);
    no_delay(driver);
    int loop = epoll_create1(0);
    struct epoll_event event = {.events = EPOLLIN};
    event.data.fd = client;
    epoll_ctl(loop, EPOLL_CTL_ADD, client, &event);
    event.data.fd = driver;
    epoll_ctl(loop, EPOLL_CTL_ADD, driver, &event);
    char buffer[256];
    for (;;) {
        struct epoll_event ready[2];
        int count = epoll_wait(loop, ready, 2, -1);
        for (int i = 0; i < count; i++) {
            int from = ready[i].data.fd;
            ssize_t n = read(from, buffer, sizeof buffer);
            if (n <= 0) _exit(0);
            if (write(from == client ? driver : client, buffer, (size_t)n) != n) _exit(1);
        }
    }
}

/* Answers each message with itself. */
static void run_driver(const struct sockaddr_in *address, int cpu) {
    pin(cpu);
    int fd = connect_to(address);
    char buffer[256];
    for (;;) {
        ssize_t n = read(fd, buffer, sizeof buffer);
        if (n <= 0) _exit(0);
        if (write(fd, buffer, (size_t)n) != n) _exit(1);
    }
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: relay_floor <calls> <gap-us> together|apart|free\n");
        return 2;
    }
    int calls = atoi(argv[1]), gap_us = atoi(argv[2]);
    int client_cpu = -1, hub_cpu = -1, driver_cpu = -1;
    if (strcmp(argv[3], "together") == 0) {
        client_cpu = hub_cpu = driver_cpu = 0;
    } else if (strcmp(argv[3], "apart") == 0) {
        client_cpu = driver_cpu = 0;
        hub_cpu = 1;
    } else if (strcmp(argv[3], "free") != 0) {
        fprintf(stderr, "layout must be together, apart or free\n");
        return 2;
    }
    if (calls < 100) calls = 100;

    int listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t length = sizeof address;
    if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 4) != 0 ||
        getsockname(listener, (struct sockaddr *)&address, &length) != 0) {
        perror("listen");
        return 1;
    }
    pid_t hub = fork();
    if (hub == 0) run_hub(listener, hub_cpu);
    pin(client_cpu);
    int fd = connect_to(&address); /* accepted first: the hub's client side */
    usleep(50000);
    pid_t driver = fork();
    if (driver == 0) {
        close(fd); /* the client's socket: kept open here, the hub would never see the client leave */
        run_driver(&address, driver_cpu);
    }
    usleep(200000);

    long long *round_trips = malloc(sizeof(long long) * (size_t)calls);
    char message[40] = {1};
    char answer[256];
    for (int i = 0; i < calls; i++) {
        long long start = now_ns();
        if (write(fd, message, sizeof message) != sizeof message) return 1;
        ssize_t got = 0;
        while (got < (ssize_t)sizeof message) {
            ssize_t n = read(fd, answer + got, sizeof answer - (size_t)got);
            if (n <= 0) return 1;
            got += n;
        }
        round_trips[i] = now_ns() - start;
        if (gap_us > 0) usleep((useconds_t)gap_us);
    }
    qsort(round_trips, (size_t)calls, sizeof(long long), compare);
    printf("%-8s calls %d, gap %d us: p50 %.1f us, p99 %.1f us, max %.1f us\n", argv[3], calls, gap_us,
           round_trips[calls / 2] / 1e3, round_trips[calls * 99 / 100] / 1e3, round_trips[calls - 1] / 1e3);
    close(fd);
    waitpid(driver, NULL, 0);
    waitpid(hub, NULL, 0);
    free(round_trips);
    return 0;
}
