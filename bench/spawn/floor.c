/*
 * The floor of a trivial job's CPU on this machine (issue #27, item 3): what starting `/bin/sh -c true`
 * costs with nothing of ours around it. Runs it N times one after another, each way below, and prints the
 * CPU per run (user + sys of the reaped children, getrusage(RUSAGE_CHILDREN), and of this harness itself,
 * getrusage(RUSAGE_SELF): a fork's page-table copy is the parent's system time) and the wall per run, for
 * ROUNDS rounds with the ways interleaved (the order reversed every other round), as median [min-max].
 *   fork          fork(), the child execve()s /bin/sh -c true; waitpid()
 *   vfork         vfork() + execve(); waitpid()
 *   posix_spawn   posix_spawn() (glibc: clone(CLONE_VM|CLONE_VFORK) on a stack of its own); waitpid()
 *   spawn /bin/true   posix_spawn() of /bin/true (no shell): what a job without `sh -c` would cost
 *   monitor       as gpusched-spawnd does a monitored run, less its files and pipes: fork() a monitor,
 *                 which starts the command with clone(CLONE_VM) and waits for it, then exits; the
 *                 harness waits for the monitor
 *   monitor cloned    the same with the monitor itself started by clone(CLONE_VM) on a stack of its
 *                 own (sharing the harness's memory) in place of the fork
 *   fork only     fork(), the child _exit(0)s: the fork alone
 *   tsp-like      what task-spooler does per job beside its client process (see below): fork() a child
 *                 that fork()s again, the grandchild execvp()s `true`; the child waits and exits
 * Process starts are expensive on the project's 2-core VM (page-table work under virtualisation), so this
 * says what part of issue #27's "CPU per trivial job <= 3 ms" any scheduler pays before its own work.
 * task-spooler per job (its `tsp true` row in bench/vs_tsp.py) also starts the client (`tsp` itself,
 * exec'd by the caller), which forks to wait for its turn; the server forks nothing per job.
 *
 * build: gcc -O2 -o /tmp/floor bench/spawn/floor.c
 * usage: /tmp/floor [N] [ROUNDS]     (defaults 200 and 7)
 */
#define _GNU_SOURCE
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
static char *sh_argv[] = {"/bin/sh", "-c", "true", NULL};
static char *true_argv[] = {"/bin/true", NULL};

static void wait_for(pid_t pid) {
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "floor: a run failed\n");
        exit(1);
    }
}

static void by_fork(void) {
    pid_t p = fork();
    if (p == 0) {
        execve(sh_argv[0], sh_argv, environ);
        _exit(127);
    }
    wait_for(p);
}

static void by_vfork(void) {
    pid_t p = vfork();
    if (p == 0) {
        execve(sh_argv[0], sh_argv, environ);
        _exit(127);
    }
    wait_for(p);
}

static void by_posix_spawn(void) {
    pid_t p;
    if (posix_spawn(&p, sh_argv[0], NULL, NULL, sh_argv, environ) != 0) {
        p = -1;
    }
    wait_for(p);
}

static void true_posix_spawn(void) {
    pid_t p;
    if (posix_spawn(&p, true_argv[0], NULL, NULL, true_argv, environ) != 0) {
        p = -1;
    }
    wait_for(p);
}

static char stack[64 * 1024] __attribute__((aligned(16)));

static int command(void *arg) {
    (void) arg;
    execve(sh_argv[0], sh_argv, environ);
    _exit(127);
}

static void monitor(void) {
    pid_t p = fork();
    if (p == 0) {
        pid_t c = clone(command, stack + sizeof stack, CLONE_VM | SIGCHLD, NULL);
        int st;
        _exit(c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) ? WEXITSTATUS(st) : 127);
    }
    wait_for(p);
}

static char monitor_stack[64 * 1024] __attribute__((aligned(16)));

static int monitor_body(void *arg) {
    (void) arg;
    pid_t c = clone(command, stack + sizeof stack, CLONE_VM | SIGCHLD, NULL);
    int st;
    return c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) ? WEXITSTATUS(st) : 127;
}

static void monitor_cloned(void) {
    wait_for(clone(monitor_body, monitor_stack + sizeof monitor_stack, CLONE_VM | SIGCHLD, NULL));
}

static void fork_only(void) {
    pid_t p = fork();
    if (p == 0) {
        _exit(0);
    }
    wait_for(p);
}

static void tsp_like(void) {
    pid_t p = fork();
    if (p == 0) {
        pid_t c = fork();
        if (c == 0) {
            execvp("true", true_argv);
            _exit(127);
        }
        int st;
        _exit(c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) ? WEXITSTATUS(st) : 127);
    }
    wait_for(p);
}

static double secs(struct timeval t) { return (double) t.tv_sec + (double) t.tv_usec / 1e6; }

static double cpu_now(void) {
    struct rusage c, s;
    getrusage(RUSAGE_CHILDREN, &c);
    getrusage(RUSAGE_SELF, &s);
    return secs(c.ru_utime) + secs(c.ru_stime) + secs(s.ru_utime) + secs(s.ru_stime);
}

static double wall_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double) t.tv_sec + (double) t.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

#define WAYS 8
#define MAX_ROUNDS 101

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 200;
    int rounds = argc > 2 ? atoi(argv[2]) : 7;
    if (n < 1 || rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: floor [N] [ROUNDS<=%d]\n", MAX_ROUNDS);
        return 2;
    }
    struct { const char *name; void (*run)(void); } ways[WAYS] = {
        {"fork + execve sh -c true", by_fork},
        {"vfork + execve sh -c true", by_vfork},
        {"posix_spawn sh -c true", by_posix_spawn},
        {"posix_spawn /bin/true", true_posix_spawn},
        {"monitor: fork, clone(CLONE_VM) sh -c true", monitor},
        {"monitor cloned: clone(CLONE_VM) x2, sh -c", monitor_cloned},
        {"fork only (child _exit)", fork_only},
        {"tsp-like: fork, fork + execvp true", tsp_like},
    };
    static double cpu[WAYS][MAX_ROUNDS], wall[WAYS][MAX_ROUNDS];
    for (int k = 0; k < WAYS; k++) {
        ways[k].run(); /* warm the page cache and the loader */
    }
    for (int r = 0; r < rounds; r++) {
        for (int j = 0; j < WAYS; j++) {
            int k = r % 2 == 0 ? j : WAYS - 1 - j;
            double c0 = cpu_now(), w0 = wall_now();
            for (int i = 0; i < n; i++) {
                ways[k].run();
            }
            cpu[k][r] = (cpu_now() - c0) / n * 1000;
            wall[k][r] = (wall_now() - w0) / n * 1000;
        }
    }
    printf("%d runs x %d rounds, per run, median [min-max]\n", n, rounds);
    for (int k = 0; k < WAYS; k++) {
        qsort(cpu[k], (size_t) rounds, sizeof(double), cmp);
        qsort(wall[k], (size_t) rounds, sizeof(double), cmp);
        printf("%-44s CPU %6.3f ms [%.3f-%.3f]   wall %6.3f ms [%.3f-%.3f]\n", ways[k].name,
               cpu[k][rounds / 2], cpu[k][0], cpu[k][rounds - 1], wall[k][rounds / 2], wall[k][0], wall[k][rounds - 1]);
    }
    return 0;
}
