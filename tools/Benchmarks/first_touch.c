/*
 * What a page of fresh memory costs this machine: maps <MiB> of anonymous memory, writes one byte per
 * 4 KiB page (one page fault each), unmaps it, and does it again <passes> times. Prints the time per page
 * of each pass.
 *
 *   first_touch <MiB> <passes>
 *
 * On a virtual machine the first pass can be several times slower than the next: a guest page the VM has
 * never used must first be backed by the host. Every benchmark that grows a process's memory (a client's
 * cache of 100,000 devices, ten of them) pays that in its page faults, so the machine's state counts in
 * the figure; a first pass over most of the free memory also leaves the machine in the faster state.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: first_touch <MiB> <passes>\n");
        return 64;
    }
    size_t bytes = (size_t)atol(argv[1]) << 20;
    int passes = atoi(argv[2]);
    for (int pass = 1; pass <= passes; pass++) {
        struct timespec start, end;
        clock_gettime(CLOCK_MONOTONIC, &start);
        char *memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (memory == MAP_FAILED) {
            perror("mmap");
            return 1;
        }
        for (size_t offset = 0; offset < bytes; offset += 4096) memory[offset] = 1;
        clock_gettime(CLOCK_MONOTONIC, &end);
        munmap(memory, bytes);
        double seconds = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
        printf("pass %d: %zu MiB in %.2f s, %.2f us per 4 KiB page\n", pass, bytes >> 20, seconds,
               seconds * 1e6 / (double)(bytes / 4096));
    }
    return 0;
}
