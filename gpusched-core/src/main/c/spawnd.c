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
 * wrapper shell a run had before (issue #27). In a session of its own, it starts the run's process (a
 * clone in the monitor's memory until it execs: no fork's copy), which leads the run's session and
 * waits for the monitor's word; the monitor writes that process's pid (the
 * session id) to PID_PATH before it says it is ready, so the file exists before the scheduler is told
 * the run started and before any of the run's code runs. Once let go, the run's process execs ARG...
 * with exactly ENV... (every signal at its default, none blocked), so a command `/bin/sh -c CMD` is the
 * session's leader and its $$ the session id, as under the wrapper. The monitor waits for it, writes
 * its exit status (or 128 + the signal that ended it) to EXIT_PATH while the leader is still a zombie (a live process to whoever looks for the session), then reaps it and exits
 * with that status. Signals to the run's group do not reach the monitor; if it is killed itself, no
 * status is written (the run counts as interrupted).
 * Without them (both empty) the child execs ARG... itself.
 *
 * Replies, on stdout, one line each:
 *   started ID PID CHILD    the run is ready and let go (PID leads the run's session; CHILD is the
 *                           monitor, or PID itself without one)
 *   failed ID ERRNO TEXT    it is not; nothing of the run's command runs
 *   exit PID STATUS         a started run ended (its monitor, once the status is written): its exit
 *                           code, or 128 + the signal
 * At end of stdin (the scheduler stopped or died) it exits at once and leaves its runs running: each
 * monitor writes its run's exit file, which a restarted scheduler reads.
 * A child starts the command only after its "started" line is written: one the scheduler was never
 * told of never runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Each started child's pid and the pid it was reported as (a monitor's: its command's, the session
   leader): exits are reported under the latter. A small table: one entry per running run. */
/* What a child that could not get ready failed at: the words its failure starts with. */
enum step { STEP_OTHER, STEP_DIRECTORY, STEP_OUTPUT, STEP_OUTPUT_OWNER };
static const char *const step_words[] = {
    "", "working directory: ", "output: ",
    "output belongs to another user: never appended to (a file swapped in after the scheduler looked)",
};

/* What the child tells this server: 0 and the run's pid, or why it is not ready and at which step. */
struct ready {
    int err;
    pid_t pid;
    int step;
};

/* Opens a run's output for appending: created here (so this process's own), or one already there that
   is a regular file of this process's user. Never through a link, nor held by a FIFO no one reads, nor
   another user's file: the scheduler looked at the output already (JobLauncher.prepareOutput); this
   refuses one swapped in since by a user who may write its directory, who would otherwise be handed the
   output, or have a file of hers (or a FIFO that holds the launch) written by this process.
   Returns the descriptor, or -1 with errno set and *step saying what failed. */
static int open_output(const char *path, int *step) {
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0644);
    if (fd >= 0) {
        return fd; /* made here: a regular file of this process's, whatever the file system maps it to */
    }
    if (errno == EEXIST) {
        fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
    }
    if (fd < 0) {
        *step = STEP_OUTPUT;
        return -1;
    }
    struct stat st;
    int err = 0;
    if (fstat(fd, &st) < 0) {
        err = errno;
    } else if (!S_ISREG(st.st_mode)) {
        err = EINVAL;
    } else if (st.st_uid != geteuid()) {
        err = EPERM;
        *step = STEP_OUTPUT_OWNER;
    }
    if (err != 0) {
        close(fd);
        errno = err;
        if (*step != STEP_OUTPUT_OWNER) {
            *step = STEP_OUTPUT;
        }
        return -1;
    }
    return fd;
}

static struct { pid_t child, run; } *table;
static size_t table_len, table_cap;

static int remember(pid_t child, pid_t run) {
    if (table_len == table_cap) {
        size_t cap = table_cap == 0 ? 64 : table_cap * 2;
        void *t = realloc(table, cap * sizeof *table);
        if (t == NULL) {
            return 0;
        }
        table = t;
        table_cap = cap;
    }
    table[table_len].child = child;
    table[table_len].run = run;
    table_len++;
    return 1;
}

static pid_t forget(pid_t child) {
    for (size_t i = 0; i < table_len; i++) {
        if (table[i].child == child) {
            pid_t run = table[i].run;
            table[i] = table[--table_len];
            return run;
        }
    }
    return child;
}

/* Reads the one-byte "go" from fd; returns whether it came (EOF or an error: the run must not start). */
static int await_go(int fd) {
    char b;
    ssize_t r;
    do {
        r = read(fd, &b, 1);
    } while (r < 0 && errno == EINTR);
    return r == 1;
}

/* The run's monitor, once let go: lets the command's shell (its child cmd, the session's leader) go,
   waits for it to end, writes its status while it is still a zombie, reaps it, and ends with
   its status. It never returns. While the status is written, the leader's pid still exists (a zombie is
   a live process to a scheduler that looks for the run's session), so a scheduler restarted meanwhile
   waits, and then finds the exit file: never an ended session without its status. */
static void monitor(pid_t cmd, int release, const char *exit_path) {
    /* Not in the run's session, so its group's signals do not reach it; these are for the scheduler's
       group, should it be started there. */
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    ssize_t w;
    do {
        w = write(release, "g", 1);
    } while (w < 0 && errno == EINTR);
    close(release);
    siginfo_t si;
    int code;
    memset(&si, 0, sizeof si);
    int r;
    do {
        r = waitid(P_PID, (id_t) cmd, &si, WEXITED | WNOWAIT);
    } while (r < 0 && errno == EINTR);
    if (r < 0) {
        code = 127;
    } else if (si.si_code == CLD_EXITED) {
        code = si.si_status & 0xff;
    } else {
        code = 128 + si.si_status; /* killed or dumped: the signal */
    }
    /* Not forced to disk, as the wrapper's was not: an fsync here measured 0.4 ms of wall per job on a
       quiet disk and 4 ms on a busy one, all of it before the scheduler hears the exit, and the outcome
       the scheduler journals is forced anyway; the file speaks only for a run nobody watched end. */
    int werr = r < 0 ? 0 : write_number(exit_path, code, 0);
    if (werr != 0) {
        dprintf(2, "gpusched-spawnd: cannot write the exit status %d to %s: %s\n", code, exit_path, strerror(werr));
    }
    while (waitpid(cmd, NULL, 0) < 0 && errno == EINTR) {
    }
    _exit(code);
}

/* What the command's process needs until it execs: it reads these in the monitor's memory. */
struct command {
    char **argv, **envp;
    int release_read, release_write;
};

/* The command's process runs on this stack, in the monitor's memory, until it execs (or ends unrun). A
   monitor starts one command, so one stack serves: it is the monitor's own (a copy of this server's),
   untouched by the monitor meanwhile. */
static char command_stack[64 * 1024] __attribute__((aligned(16)));

/* The command's process, cloned from the monitor sharing its memory (CLONE_VM, as posix_spawn does, but
   without suspending the monitor, which must report ready and then let it go): no copy of the
   monitor's page tables, no copy-on-write faults, and no address space to tear down at its exec: 2.3 ms
   of CPU and 1.5 ms of wall less per run than the fork on the project's 2-core VM (bench/spawn/spawnd_ab.py;
   BENCHMARKS.md, "The run's process cloned"), on every job's path to its start.
   Until it execs it only makes system calls on its own stack and reads what the monitor set up
   before the clone and leaves alone. It leads the run's session, waits for the monitor's word, and
   execs the command; end-of-file instead (the monitor ended first) ends it unrun. */
static int command(void *arg) {
    struct command *c = arg;
    close(c->release_write);
    if (setsid() < 0 || !await_go(c->release_read)) {
        _exit(127);
    }
    execve(c->argv[0], c->argv, c->envp);
    dprintf(2, "gpusched-spawnd: cannot run %s: %s\n", c->argv[0], strerror(errno));
    _exit(127);
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
        /* What this server ignores, or the scheduler's own starter did (nohup, a shell's trap ''), a job
           must not: an ignored signal survives exec, and a shell may not trap a signal that was ignored
           when it started (a job's `trap ... TERM` would be void, a framework's SIGUSR1 handler never run).
           Every signal at its default, as POSIX_SPAWN_SETSIGDEF over all of them would set it. The two
           the C library keeps for its threads (32, 33) it refuses to set: they stay as they came. */
        for (int sig = 1; sig < NSIG; sig++) {
            if (sig != SIGKILL && sig != SIGSTOP) {
                signal(sig, SIG_DFL);
            }
        }
        close(go[1]);
        close(report[0]);
        /* ready: what the child tells this server, 0 and the run's pid, or why it is not ready */
        struct ready ready = {0, getpid(), STEP_OTHER};
        int in = -1, out = -1, out_flags;
        if (setsid() < 0) {
            ready.err = errno;
        } else if (chdir(f[1]) < 0) {
            ready.err = errno;
            ready.step = STEP_DIRECTORY;
        } else if ((in = open(f[2], O_RDONLY)) < 0) {
            ready.err = errno;
        } else if ((out = open_output(f[3], &ready.step)) < 0) {
            ready.err = errno;
        } else if ((out_flags = fcntl(out, F_GETFL)) < 0 || fcntl(out, F_SETFL, out_flags & ~O_NONBLOCK) < 0) {
            ready.err = errno;
        } else if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0) {
            ready.err = errno;
        }
        if (in > 2) {
            close(in);
        }
        if (out > 2) {
            close(out);
        }
        if (ready.err == 0 && monitored) {
            /* This child is the monitor, in a session of its own (the scheduler's group signals do not
               reach it); the command's shell is its child and leads the run's session, so the shell's
               $$ is the session id, as under the wrapper. The shell waits for the monitor's word. */
            int rel[2];
            if (pipe2(rel, O_CLOEXEC) < 0) {
                ready.err = errno;
            } else {
                static struct command c; /* the monitor's, read by its command's process */
                c = (struct command) {argv, envp, rel[0], rel[1]};
                pid_t cmd = clone(command, command_stack + sizeof command_stack, CLONE_VM | SIGCHLD, &c);
                close(rel[0]);
                if (cmd < 0) {
                    ready.err = errno;
                } else {
                    ready.pid = cmd;
                    /* Before "ready": the file exists before the scheduler hears the run started, and so
                       before a restarted one could look for it; the command has not started. */
                    ready.err = write_number(pid_path, (long) cmd, 0);
                    if (ready.err == 0) {
                        (void) !write(report[1], &ready, sizeof ready);
                        close(report[1]);
                        if (!await_go(go[0])) {
                            close(rel[1]); /* the shell reads end-of-file and ends unrun */
                            while (waitpid(cmd, NULL, 0) < 0 && errno == EINTR) {
                            }
                            _exit(127);
                        }
                        close(go[0]);
                        monitor(cmd, rel[1], exit_path);
                    }
                    close(rel[1]);
                    while (waitpid(cmd, NULL, 0) < 0 && errno == EINTR) {
                    }
                }
            }
        }
        (void) !write(report[1], &ready, sizeof ready);
        close(report[1]);
        if (ready.err != 0 || !await_go(go[0])) {
            _exit(127);
        }
        close(go[0]);
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
        struct ready ready = {EIO, 0, STEP_OTHER};
        ssize_t r;
        do {
            r = read(report[0], &ready, sizeof ready);
        } while (r < 0 && errno == EINTR);
        close(report[0]);
        if (r != (ssize_t) sizeof ready || ready.err != 0) {
            /* it could not get ready: reap it here, it never was a job */
            close(go[1]);
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
            }
            int why = r == (ssize_t) sizeof ready ? ready.err : EIO;
            int step = r == (ssize_t) sizeof ready ? ready.step : STEP_OTHER;
            reply("failed %s %d %s%s\n", f[0], why, step_words[step], step == STEP_OUTPUT_OWNER ? "" : strerror(why));
        } else if (!remember(pid, ready.pid)) {
            close(go[1]); /* nothing runs: the child ends unrun */
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
            }
            reply("failed %s %d %s\n", f[0], ENOMEM, strerror(ENOMEM));
        } else {
            reply("started %s %ld %ld\n", f[0], (long) ready.pid, (long) pid);
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
        reply("exit %ld %d\n", (long) forget(pid), code);
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
