/*
 * gpusched-spawnd: the scheduler's spawn server (issues #18, #27). One per scheduler, started once; it
 * forks each run as the leader of a new session and reports when it exits.
 *
 * Requests, on stdin, each a run of NUL-terminated fields:
 *   ID CWD STDIN_PATH LOG_PATH PID_PATH EXIT_PATH ARGC ARG... ENVC ENV...
 * The child leads a new session (setsid), starts in CWD, reads STDIN_PATH, appends stdout and stderr
 * to LOG_PATH (created 0644 if missing).
 *
 * With PID_PATH and EXIT_PATH (both non-empty) the child is the run's monitor, which replaces the
 * wrapper shell a run had before (issue #27): it writes its pid (the session id) to PID_PATH before it
 * says it is ready, so the file exists before the scheduler is told the run started and before any of
 * the run's code runs; once let go it starts ARG... with exactly ENV... (posix_spawn, every signal at
 * its default and none blocked), waits for it, writes its exit status (or 128 + the signal that ended
 * it) to EXIT_PATH, forces it to disk, and exits with that status. The monitor ignores SIGTERM, SIGINT
 * and SIGHUP, so a stop signal sent to the run's process group ends the command and the monitor still
 * records how; SIGKILL ends it too, and then no status is written (the run counts as interrupted).
 * Without them (both empty) the child execs ARG... itself.
 *
 * Replies, on stdout, one line each:
 *   started ID PID          the run is ready and let go (PID leads the run's session)
 *   failed ID ERRNO TEXT    it is not; nothing of the run's command runs
 *   exit PID STATUS         a started run's leader ended: its exit code, or 128 + the signal
 * At end of stdin (the scheduler stopped or died) it exits at once and leaves its runs running: each
 * monitor writes its run's exit file, which a restarted scheduler reads.
 * A child starts the command only after its "started" line is written: one the scheduler was never
 * told of never runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int sigpipe_fds[2];

static void on_child(int sig) {
    (void) sig;
    int saved = errno;
    char b = 1;
    (void) !write(sigpipe_fds[1], &b, 1);
    errno = saved;
}

static void reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void reply(const char *fmt, ...) {
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) {
        return;
    }
    size_t len = (size_t) n < sizeof line ? (size_t) n : sizeof line - 1;
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(STDOUT_FILENO, line + off, len - off);
        if (w < 0) {
            if (errno == EINTR) {
                continue;
            }
            _exit(0); /* the scheduler is gone */
        }
        off += (size_t) w;
    }
}

/* Input buffer: requests arrive in pieces; fields are NUL-terminated. */
#define FIXED 6 /* ID CWD STDIN_PATH LOG_PATH PID_PATH EXIT_PATH, before ARGC */
static char *buf;
static size_t buf_len, buf_cap;

/* Parses one whole request from the buffer if it holds one; returns its length, or 0. */
static size_t parse(char **fields, size_t max_fields, size_t *count) {
    size_t pos = 0, n = 0;
    size_t need = FIXED + 1; /* ID CWD IN LOG PID EXIT ARGC, then more once known */
    int stage = 0;   /* 0: fixed fields and argc; 1: args and envc; 2: env */
    size_t argc = 0, envc = 0;
    while (n < need) {
        char *end = memchr(buf + pos, '\0', buf_len - pos);
        if (end == NULL) {
            return 0;
        }
        if (n >= max_fields) {
            reply("failed ? %d request has too many fields\n", E2BIG);
            _exit(2);
        }
        fields[n++] = buf + pos;
        pos = (size_t) (end - buf) + 1;
        if (stage == 0 && n == FIXED + 1) {
            argc = strtoul(fields[FIXED], NULL, 10);
            need = FIXED + 1 + argc + 1;
            stage = 1;
        } else if (stage == 1 && n == FIXED + 1 + argc + 1) {
            envc = strtoul(fields[FIXED + 1 + argc], NULL, 10);
            need = FIXED + 1 + argc + 1 + envc;
            stage = 2;
        }
    }
    *count = n;
    return pos;
}

/* Writes "VALUE\n" to path in one write (a reader takes a value only with its newline); with sync, forces
   it to disk before returning. Returns 0 or an errno. */
static int write_number(const char *path, long value, int sync) {
    char line[32];
    int n = snprintf(line, sizeof line, "%ld\n", value);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        return errno;
    }
    int err = 0;
    ssize_t w;
    do {
        w = write(fd, line, (size_t) n);
    } while (w < 0 && errno == EINTR);
    if (w != n) {
        err = w < 0 ? errno : EIO;
    } else if (sync && fsync(fd) < 0) {
        err = errno;
    }
    if (close(fd) < 0 && err == 0 && errno != EINTR) {
        err = errno;
    }
    return err;
}

/* The run's monitor, once let go: starts the command, waits for it, writes its status durably, and ends
   with it. It is the session leader, as the wrapper shell was; it never returns. */
static void monitor(char **argv, char **envp, const char *exit_path) {
    /* Ignored here before the command starts, and reset to the default in it by posix_spawn: a stop
       signal sent to the run's process group ends the command, and the monitor lives to record how. */
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    posix_spawnattr_t attr;
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    posix_spawnattr_init(&attr);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    pid_t cmd;
    int code;
    int err = posix_spawn(&cmd, argv[0], NULL, &attr, argv, envp);
    posix_spawnattr_destroy(&attr);
    if (err != 0) {
        dprintf(2, "gpusched-spawnd: cannot run %s: %s\n", argv[0], strerror(err));
        code = 127;
    } else {
        int status;
        pid_t r;
        do {
            r = waitpid(cmd, &status, 0);
        } while (r < 0 && errno == EINTR);
        code = r < 0 ? 127 : WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 127;
    }
    int werr = write_number(exit_path, code, 1);
    if (werr != 0) {
        dprintf(2, "gpusched-spawnd: cannot write the exit status %d to %s: %s\n", code, exit_path, strerror(werr));
    }
    _exit(code);
}

static void spawn(char **f, size_t count) {
    size_t argc = strtoul(f[FIXED], NULL, 10);
    size_t envc = count - FIXED - 1 - argc - 1;
    const char *pid_path = f[4], *exit_path = f[5];
    int monitored = pid_path[0] != '\0' && exit_path[0] != '\0';
    char **argv = calloc(argc + 1, sizeof *argv);
    char **envp = calloc(envc + 1, sizeof *envp);
    if (argv == NULL || envp == NULL || argc == 0) {
        reply("failed %s %d bad request\n", f[0], EINVAL);
        free(argv);
        free(envp);
        return;
    }
    memcpy(argv, f + FIXED + 1, argc * sizeof *argv);
    memcpy(envp, f + FIXED + 1 + argc + 1, envc * sizeof *envp);
    /* report: the child says whether it is ready (0) or why not (errno). go: the child execs only once
       this server has told the scheduler the run started; if the server dies first, the child reads
       end-of-file and exits without running anything, so a run the scheduler never heard of never runs
       (and cannot run a second time beside the retry the scheduler then makes). */
    int report[2], go[2];
    if (pipe2(report, O_CLOEXEC) < 0) {
        reply("failed %s %d pipe: %s\n", f[0], errno, strerror(errno));
        free(argv);
        free(envp);
        return;
    }
    if (pipe2(go, O_CLOEXEC) < 0) {
        reply("failed %s %d pipe: %s\n", f[0], errno, strerror(errno));
        close(report[0]);
        close(report[1]);
        free(argv);
        free(envp);
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        /* What this server ignores, a job must not: an ignored signal survives exec, and a shell may
           not trap a signal that was ignored when it started (a job's `trap ... TERM` would be void). */
        signal(SIGCHLD, SIG_DFL);
        signal(SIGPIPE, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        close(go[1]);
        close(report[0]);
        int err = 0;
        int in = -1, out = -1;
        if (setsid() < 0) {
            err = errno;
        } else if (chdir(f[1]) < 0) {
            err = errno;
        } else if ((in = open(f[2], O_RDONLY)) < 0) {
            err = errno;
        } else if ((out = open(f[3], O_WRONLY | O_APPEND | O_CREAT, 0644)) < 0) {
            err = errno;
        } else if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0) {
            err = errno;
        } else if (monitored) {
            /* Before "ready": the file exists before the scheduler hears the run started, and so before
               a restarted one could look for it; the command has not started. */
            err = write_number(pid_path, (long) getpid(), 0);
        }
        if (in > 2) {
            close(in);
        }
        if (out > 2) {
            close(out);
        }
        (void) !write(report[1], &err, sizeof err);
        close(report[1]);
        if (err != 0) {
            _exit(127);
        }
        char b;
        ssize_t r;
        do {
            r = read(go[0], &b, 1);
        } while (r < 0 && errno == EINTR);
        if (r != 1) {
            _exit(127);
        }
        close(go[0]);
        if (monitored) {
            monitor(argv, envp, exit_path);
        }
        execve(argv[0], argv, envp);
        dprintf(2, "gpusched-spawnd: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(report[1]);
    close(go[0]);
    if (pid < 0) {
        reply("failed %s %d fork: %s\n", f[0], errno, strerror(errno));
        close(report[0]);
        close(go[1]);
    } else {
        int err = 0;
        ssize_t r;
        do {
            r = read(report[0], &err, sizeof err);
        } while (r < 0 && errno == EINTR);
        close(report[0]);
        if (r != (ssize_t) sizeof err || err != 0) {
            /* it could not get ready: reap it here, it never was a job */
            close(go[1]);
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
            }
            int why = r == (ssize_t) sizeof err ? err : EIO;
            reply("failed %s %d %s\n", f[0], why, strerror(why));
        } else {
            reply("started %s %ld\n", f[0], (long) pid);
            (void) !write(go[1], "g", 1);
            close(go[1]);
        }
    }
    free(argv);
    free(envp);
}

static void reap(void) {
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 127;
        reply("exit %ld %d\n", (long) pid, code);
    }
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "--probe") == 0) {
        puts("gpusched-spawnd 1");
        return 0;
    }
    if (pipe2(sigpipe_fds, O_CLOEXEC | O_NONBLOCK) < 0) {
        perror("gpusched-spawnd: pipe");
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    /* The scheduler's stop signals are for the scheduler: its jobs' spawner outlives them until stdin ends. */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_child;
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, NULL);
    buf_cap = 1 << 16;
    buf = malloc(buf_cap);
    char **fields = NULL;
    size_t max_fields = 0;
    for (;;) {
        struct pollfd p[2] = {{STDIN_FILENO, POLLIN, 0}, {sigpipe_fds[0], POLLIN, 0}};
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            return 1;
        }
        if (p[1].revents & POLLIN) {
            char drain[64];
            while (read(sigpipe_fds[0], drain, sizeof drain) > 0) {
            }
            reap();
        }
        if (p[0].revents & (POLLIN | POLLHUP)) {
            if (buf_len == buf_cap) {
                buf_cap *= 2;
                buf = realloc(buf, buf_cap);
                if (buf == NULL) {
                    return 1;
                }
            }
            ssize_t r = read(STDIN_FILENO, buf + buf_len, buf_cap - buf_len);
            if (r == 0) {
                return 0; /* the scheduler is gone: its jobs go on */
            }
            if (r < 0) {
                if (errno == EINTR) {
                    continue;
                }
                return 1;
            }
            buf_len += (size_t) r;
            for (;;) {
                if (max_fields < buf_len + 8) {
                    max_fields = buf_len + 8;
                    fields = realloc(fields, max_fields * sizeof *fields);
                    if (fields == NULL) {
                        return 1;
                    }
                }
                size_t count = 0;
                size_t used = parse(fields, max_fields, &count);
                if (used == 0) {
                    break;
                }
                spawn(fields, count);
                memmove(buf, buf + used, buf_len - used);
                buf_len -= used;
            }
        }
    }
}
