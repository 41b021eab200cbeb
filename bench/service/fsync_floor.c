/*
 * The journal's floor under a submission's round trip: append one line the size of a submission's
 * journal line (311 bytes) and fdatasync it, N times, in a file under DIR; prints the median and the
 * 10th and 90th percentiles in ms. Every submission waits for one such fsync before its number is given.
 * Build and run: gcc -O2 -o /tmp/fsync_floor bench/service/fsync_floor.c && /tmp/fsync_floor [DIR] [N]
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    int n = argc > 2 ? atoi(argv[2]) : 2000;
    if (n < 10) {
        fprintf(stderr, "fsync_floor: N must be at least 10\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/fsync_floor.%d", dir, (int) getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_TRUNC, 0600);
    if (fd < 0) {
        perror(path);
        return 1;
    }
    char line[311];
    memset(line, 'x', sizeof line - 1);
    line[sizeof line - 1] = '\n';
    double *took = malloc(sizeof(double) * (size_t) n);
    for (int i = 0; i < n; i++) {
        double t0 = now_ms();
        if (write(fd, line, sizeof line) != (ssize_t) sizeof line || fdatasync(fd) != 0) {
            perror(path);
            return 1;
        }
        took[i] = now_ms() - t0;
    }
    close(fd);
    unlink(path);
    qsort(took, (size_t) n, sizeof(double), by_value);
    printf("append+fdatasync of 311 bytes: median %.3f ms, p10 %.3f, p90 %.3f (%d times, %s)\n", took[n / 2],
           took[n / 10], took[n * 9 / 10], n, dir);
    free(took);
    return 0;
}
