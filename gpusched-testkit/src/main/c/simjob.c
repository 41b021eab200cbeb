/*
 * simjob: a pretend GPU job for gpusched's simulated backend (provider "sim").
 *
 * It holds no GPU memory. It reports the memory it pretends to hold on every GPU in
 * CUDA_VISIBLE_DEVICES by rewriting $GPUSCHED_SIM_DIR/<pid>.json every 50 ms, and removes that
 * file when it exits. The Java class io.gpusched.testkit.sim.SimJob is the portable twin of this
 * program; both must accept the same flags and write the same files (SimJobTest checks both).
 *
 * Written in C because tests start hundreds of these: a JVM costs tens of milliseconds and a core
 * per start, this costs about one millisecond.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define MAX_GPUS 64
#define TICK_SECONDS 0.05
#define EXIT_USAGE 2

static const char USAGE[] =
    "usage: simjob --vram MiB [--ramp s] [--hold s] [--exit-code N] [--oom-once MARKER]\n"
    "              [--spike MiB --spike-at s --spike-for s] [--ignore-term]\n"
    "Pretends to hold --vram MiB on each GPU of CUDA_VISIBLE_DEVICES (GPU 0 when unset),\n"
    "ramping up linearly over --ramp s (default 0.5) and holding for --hold s (default 1),\n"
    "reported through $GPUSCHED_SIM_DIR/<pid>.json.\n";

struct options {
    long vram_mib;
    double ramp_s;
    double hold_s;
    int exit_code;
    const char *oom_marker;
    long spike_mib;
    double spike_at_s;
    double spike_for_s;
    int ignore_term;
};

/* Set from the signal handler; the main loop turns it into an orderly exit. */
static volatile sig_atomic_t stop_signal = 0;

static void on_signal(int sig) {
    stop_signal = sig;
}

static void usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "simjob: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", USAGE);
    exit(EXIT_USAGE);
}

static long parse_long(const char *flag, const char *text, long min, long max) {
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < min || v > max) {
        usage_error("%s needs a whole number in range", flag);
    }
    return v;
}

static double parse_seconds(const char *flag, const char *text) {
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    /* v != v rejects NaN; the upper bound keeps the arithmetic finite */
    if (errno != 0 || end == text || *end != '\0' || v != v || v < 0 || v > 1e9) {
        usage_error("%s needs a number of seconds >= 0", flag);
    }
    return v;
}

static int known_flag_with_value(const char *arg, size_t len) {
    static const char *const flags[] = {
        "--vram", "--ramp", "--hold", "--exit-code", "--oom-once", "--spike", "--spike-at", "--spike-for",
    };
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++) {
        if (strlen(flags[k]) == len && strncmp(arg, flags[k], len) == 0) {
            return 1;
        }
    }
    return 0;
}

static void parse_args(int argc, char **argv, struct options *o) {
    int have_vram = 0;
    o->ramp_s = 0.5;
    o->hold_s = 1.0;
    o->spike_for_s = 0.3;
    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(USAGE, stdout);
            exit(0);
        }
        if (strcmp(arg, "--probe") == 0) {
            /* lets the Java side check that this binary runs on this machine */
            puts("simjob native");
            exit(0);
        }
        if (strcmp(arg, "--ignore-term") == 0) {
            o->ignore_term = 1;
            continue;
        }
        /* every other flag takes a value, as "--flag value" or "--flag=value" */
        char *value = strchr(arg, '=');
        size_t name_len = value ? (size_t)(value - arg) : strlen(arg);
        char name[32];
        if (name_len >= sizeof name || !known_flag_with_value(arg, name_len)) {
            usage_error("unknown flag %s", arg);
        }
        memcpy(name, arg, name_len);
        name[name_len] = '\0';
        if (value) {
            value++;
        } else if (i + 1 < argc) {
            value = argv[++i];
        } else {
            usage_error("%s needs a value", name);
        }
        if (strcmp(name, "--vram") == 0) {
            o->vram_mib = parse_long(name, value, 0, 1L << 40);
            have_vram = 1;
        } else if (strcmp(name, "--ramp") == 0) {
            o->ramp_s = parse_seconds(name, value);
        } else if (strcmp(name, "--hold") == 0) {
            o->hold_s = parse_seconds(name, value);
        } else if (strcmp(name, "--exit-code") == 0) {
            o->exit_code = (int)parse_long(name, value, 0, 255);
        } else if (strcmp(name, "--oom-once") == 0) {
            if (*value == '\0') {
                usage_error("%s needs a file name", name);
            }
            o->oom_marker = value;
        } else if (strcmp(name, "--spike") == 0) {
            o->spike_mib = parse_long(name, value, 0, 1L << 40);
        } else if (strcmp(name, "--spike-at") == 0) {
            o->spike_at_s = parse_seconds(name, value);
        } else if (strcmp(name, "--spike-for") == 0) {
            o->spike_for_s = parse_seconds(name, value);
        }
    }
    if (!have_vram) {
        usage_error("%s is required", "--vram");
    }
}

/* mkdir -p; returns 0 on success */
static int make_dirs(const char *path) {
    char buf[4096];
    size_t n = strlen(path);
    if (n == 0 || n >= sizeof buf) {
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (char *p = buf + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
                return -1;
            }
            *p = '/';
        }
    }
    return (mkdir(buf, 0777) == 0 || errno == EEXIST) ? 0 : -1;
}

/* Returns 1 when this run should fail with an OOM (and records that it did). */
static int oom_this_time(const char *marker) {
    if (access(marker, F_OK) == 0) {
        return 0;
    }
    const char *slash = strrchr(marker, '/');
    if (slash && slash != marker) {
        char parent[4096];
        size_t n = (size_t)(slash - marker);
        if (n < sizeof parent) {
            memcpy(parent, marker, n);
            parent[n] = '\0';
            make_dirs(parent);
        }
    }
    int fd = open(marker, O_WRONLY | O_CREAT, 0644);
    if (fd < 0) {
        /* without the marker every retry would fail the same way; say so instead */
        fprintf(stderr, "simjob: cannot create --oom-once marker %s: %s\n", marker, strerror(errno));
        exit(EXIT_USAGE);
    }
    close(fd);
    return 1;
}

static int parse_gpus(int gpus[MAX_GPUS]) {
    const char *env = getenv("CUDA_VISIBLE_DEVICES");
    int count = 0;
    if (env != NULL) {
        const char *p = env;
        while (*p) {
            while (*p == ' ' || *p == ',') {
                p++;
            }
            if (!*p) {
                break;
            }
            char *end;
            long g = strtol(p, &end, 10);
            if (end == p || g < 0 || g > 1000000 || (*end && *end != ',' && *end != ' ')) {
                fprintf(stderr, "simjob: CUDA_VISIBLE_DEVICES=%s: simulated GPUs are named by index, e.g. 0,1\n", env);
                exit(EXIT_USAGE);
            }
            if (count == MAX_GPUS) {
                fprintf(stderr, "simjob: CUDA_VISIBLE_DEVICES names more than %d GPUs\n", MAX_GPUS);
                exit(EXIT_USAGE);
            }
            gpus[count++] = (int)g;
            p = end;
        }
    }
    if (count == 0) {
        gpus[count++] = 0;
    }
    return count;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_until(double deadline) {
    struct timespec ts;
    ts.tv_sec = (time_t)deadline;
    ts.tv_nsec = (long)((deadline - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    /* EINTR from a signal ends the sleep early, which is what lets SIGTERM act at once */
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static long usage_at(const struct options *o, double t) {
    long mib = o->vram_mib;
    if (o->ramp_s > 0 && t < o->ramp_s) {
        mib = (long)((double)o->vram_mib * (t / o->ramp_s));
    }
    if (o->spike_mib > mib && t >= o->spike_at_s && t < o->spike_at_s + o->spike_for_s) {
        mib = o->spike_mib;
    }
    return mib;
}

/* Writes the whole file under a name the backend ignores, then renames it into place, so a
 * reader sees the old report or the new one and never half of one. */
static void report(const char *tmp_path, const char *path, const int *gpus, int ngpus, long mib) {
    static int warned = 0;
    char buf[64 + MAX_GPUS * 32];
    int n = snprintf(buf, sizeof buf, "{\"pid\": %ld, \"usage\": {", (long)getpid());
    for (int i = 0; i < ngpus; i++) {
        n += snprintf(buf + n, sizeof buf - (size_t)n, "%s\"%d\": %ld", i ? ", " : "", gpus[i], mib);
    }
    n += snprintf(buf + n, sizeof buf - (size_t)n, "}}\n");
    int fd = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int ok = fd >= 0 && write(fd, buf, (size_t)n) == n;
    if (fd >= 0) {
        close(fd);
    }
    ok = ok && rename(tmp_path, path) == 0;
    if (!ok && !warned) {
        /* keep running: the job's exit status still matters even if nobody sees its usage */
        fprintf(stderr, "simjob: cannot write %s: %s\n", path, strerror(errno));
        warned = 1;
    }
}

int main(int argc, char **argv) {
    struct options o = {0};
    parse_args(argc, argv, &o);

    if (o.oom_marker && oom_this_time(o.oom_marker)) {
        fprintf(stderr,
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %ld MiB "
                "(simulated by gpusched simjob; marker %s)\n",
                o.vram_mib, o.oom_marker);
        return 1;
    }

    int gpus[MAX_GPUS];
    int ngpus = parse_gpus(gpus);

    const char *dir = getenv("GPUSCHED_SIM_DIR");
    if (dir == NULL || *dir == '\0') {
        dir = "/tmp/gpusched_sim";
    }
    if (make_dirs(dir) != 0) {
        fprintf(stderr, "simjob: cannot create GPUSCHED_SIM_DIR %s: %s\n", dir, strerror(errno));
    }
    char path[4200];
    char tmp_path[4200];
    snprintf(path, sizeof path, "%s/%ld.json", dir, (long)getpid());
    snprintf(tmp_path, sizeof tmp_path, "%s/.%ld.tmp", dir, (long)getpid());

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    if (o.ignore_term) {
        sa.sa_handler = SIG_IGN;
    }
    sigaction(SIGTERM, &sa, NULL);

    double start = now_s();
    double end = o.ramp_s + o.hold_s;
    double spike_end = o.spike_at_s + o.spike_for_s;
    for (;;) {
        double t = now_s() - start;
        if (stop_signal || t >= end) {
            break;
        }
        report(tmp_path, path, gpus, ngpus, usage_at(&o, t));
        /* wake at the next tick, or earlier at a phase edge so a short spike is always reported */
        double next = t + TICK_SECONDS;
        if (o.spike_mib > 0 && o.spike_at_s > t && o.spike_at_s < next) {
            next = o.spike_at_s;
        }
        if (o.spike_mib > 0 && spike_end > t && spike_end < next) {
            next = spike_end;
        }
        if (end < next) {
            next = end;
        }
        sleep_until(start + next);
    }
    unlink(path);
    unlink(tmp_path);
    if (stop_signal) {
        return 128 + stop_signal;
    }
    return o.exit_code;
}
