/*
 * gpusched-runas: how a root scheduler starts a job as the user who submitted it (issue #28).
 *
 * The job's wrapper shell, run by root with an environment the scheduler fixed, execs this program as
 * the last thing it does as root. Nothing the submitter sent is ever interpreted here while we are
 * root: the submitter's environment, command, working directory and output path are read from a spec
 * file as plain bytes, and are only used after the user's uid, gid and groups are in place.
 *
 * usage: gpusched-runas SPEC_FILE
 *        gpusched-runas --tail USER FILE MAX_BYTES
 *
 * SPEC_FILE (written by the scheduler, root-owned, mode 0600; removed once read) holds NUL-terminated
 * fields:
 *   "gpusched-runas 1" USER CWD OUTPUT UMASK ENVMODE COMMAND COUNT ENTRY...
 * USER is the submitter's name, CWD and OUTPUT absolute paths, UMASK octal (e.g. "077"), ENVMODE
 * "given" (the ENTRYs are the whole environment) or "login" (HOME, USER, LOGNAME and SHELL from the
 * passwd entry and a default PATH, then the ENTRYs over them), COUNT the number of NAME=VALUE entries.
 *
 * Order, after the file is read: initgroups, setgid, setuid (then checks root cannot be regained),
 * umask, open OUTPUT as the user without following a symlink (created if missing; refused unless it is
 * a regular file the user owns), stdout and stderr to it, chdir CWD as the user, exec /bin/sh -c COMMAND
 * with the environment. Any failure before the exec prints one line starting "gpusched-runas: " (to
 * the output when it is open, else to the wrapper's log) and exits 126, so the command never runs.
 *
 * --tail prints the last MAX_BYTES of a job's output for the scheduler (which looks there for a CUDA
 * out-of-memory message) after dropping to USER, so root never opens a path a user chose: FILE is opened
 * without following a symbolic link and without blocking (a FIFO put in its place cannot hang the
 * scheduler), and read only if it is a regular file USER owns. Exit 0 with the bytes, else 1 and nothing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define MAGIC "gpusched-runas 1"
#define MAX_SPEC (64L * 1024 * 1024)
#define FAILED 126

/* The log the scheduler gave this program as stderr (the wrapper's log, root's), kept once stderr is the
   job's output: a failure from then on (a working directory the user cannot enter; an exec the kernel
   refuses because the user is at the process limit, EAGAIN) is said in both, so the user reads it in
   her output and the scheduler, which reads only the wrapper's log, gives the queue and its own log the
   cause instead of a bare "exit 126". -1 while stderr is still that log. Closed at the exec. */
static int scheduler_log = -1;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void fail(const char *fmt, ...) {
    char line[16384]; /* room for two paths of PATH_MAX and the words around them */
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) {
        n = 0;
        line[0] = '\0';
    }
    /* One line, whatever the paths and names in it hold: the scheduler takes the log's last line that
       starts with "gpusched-runas: " as the cause every user's queue shows, so a directory named with a
       newline and that prefix must not put words of the user's choosing there. */
    for (char *c = line; *c != '\0'; c++) {
        if ((unsigned char) *c < 0x20 || *c == 0x7f) {
            *c = '?';
        }
    }
    fputs("gpusched-runas: ", stderr);
    fputs(line, stderr);
    fputc('\n', stderr);
    fflush(stderr);
    if (scheduler_log >= 0) {
        dprintf(scheduler_log, "gpusched-runas: %s\n", line);
    }
    _exit(FAILED);
}

/* The spec's fields, in place: each points into the buffer read from the file. */
static char *buf;
static size_t len;
static size_t pos;

static const char *field(const char *what) {
    if (pos >= len) {
        fail("spec file ends before its %s field; the scheduler wrote it, so this is a bug", what);
    }
    char *start = buf + pos;
    char *end = memchr(start, '\0', len - pos);
    if (end == NULL) {
        fail("spec file's %s field is not terminated; the scheduler wrote it, so this is a bug", what);
    }
    pos = (size_t) (end - buf) + 1;
    return start;
}

static void read_spec(const char *path) {
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        fail("cannot open spec file %s: %s", path, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        fail("cannot stat spec file %s: %s", path, strerror(errno));
    }
    /* Only a file the scheduler itself wrote, that nobody else could have written, is believed. */
    if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
        fail("spec file %s is not a private file of uid %u (mode %o, owner %u); refusing it", path,
             (unsigned) geteuid(), (unsigned) (st.st_mode & 07777), (unsigned) st.st_uid);
    }
    if (st.st_size > MAX_SPEC) {
        fail("spec file %s is larger than %ld bytes", path, MAX_SPEC);
    }
    buf = malloc((size_t) st.st_size + 1);
    if (buf == NULL) {
        fail("out of memory reading %s", path);
    }
    while (len < (size_t) st.st_size) {
        ssize_t n = read(fd, buf + len, (size_t) st.st_size - len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            fail("cannot read spec file %s: %s", path, n < 0 ? strerror(errno) : "it shrank");
        }
        len += (size_t) n;
    }
    close(fd);
    /* The file holds the user's environment: it is gone before anything of theirs runs. */
    if (unlink(path) != 0 && errno != ENOENT) {
        fail("cannot remove spec file %s: %s", path, strerror(errno));
    }
}

/* Who a command runs as, from the passwd entry, kept after privileges are dropped. */
struct who {
    uid_t uid;
    gid_t gid;
    char *name;
    char *home;
    char *shell;
};

static const char *become(const char *user, struct who *w);

static int tail(const char *user, const char *path, const char *max_text) {
    char *end;
    long max = strtol(max_text, &end, 10);
    if (*end != '\0' || max <= 0 || max > 16L * 1024 * 1024) {
        return 1;
    }
    struct who w;
    if (become(user, &w) != NULL) {
        return 1;
    }
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        return 1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != getuid()) {
        return 1;
    }
    off_t from = st.st_size > max ? st.st_size - max : 0;
    char *b = malloc((size_t) max);
    if (b == NULL) {
        return 1;
    }
    ssize_t n = pread(fd, b, (size_t) max, from);
    if (n < 0) {
        return 1;
    }
    for (ssize_t off = 0; off < n;) {
        ssize_t w = write(STDOUT_FILENO, b + off, (size_t) (n - off));
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return 1;
        }
        off += w;
    }
    return 0;
}

/*
 * Looks USER up and drops to its uid, gid and groups (groups first, then the gid, then the uid: after
 * setuid nothing else could be changed), checking root cannot be regained. Never to uid 0: root's own
 * jobs do not come here. NULL when done, with W filled in; else why not, as one line.
 */
static const char *become(const char *user, struct who *w) {
    static char why[512];
    errno = 0;
    struct passwd *pw = getpwnam(user);
    if (pw == NULL) {
        snprintf(why, sizeof why, "no user '%s' on this machine (%s); the job did not run", user,
                 errno ? strerror(errno) : "no passwd entry");
        return why;
    }
    if (pw->pw_uid == 0) {
        snprintf(why, sizeof why, "will not run a submission as uid 0 (user '%s'); root's own jobs do not go through"
                 " gpusched-runas", user);
        return why;
    }
    w->uid = pw->pw_uid;
    w->gid = pw->pw_gid;
    w->home = strdup(pw->pw_dir ? pw->pw_dir : "/");
    w->shell = strdup(pw->pw_shell && *pw->pw_shell ? pw->pw_shell : "/bin/sh");
    w->name = strdup(pw->pw_name);
    if (w->home == NULL || w->shell == NULL || w->name == NULL) {
        return "out of memory";
    }
    if (initgroups(w->name, w->gid) != 0) {
        snprintf(why, sizeof why, "cannot set the groups of %s: %s; the job did not run", w->name, strerror(errno));
        return why;
    }
    if (setgid(w->gid) != 0) {
        snprintf(why, sizeof why, "cannot set gid %u for %s: %s; the job did not run", (unsigned) w->gid, w->name,
                 strerror(errno));
        return why;
    }
    if (setuid(w->uid) != 0) {
        snprintf(why, sizeof why, "cannot set uid %u for %s: %s; the job did not run", (unsigned) w->uid, w->name,
                 strerror(errno));
        return why;
    }
    if (getuid() != w->uid || geteuid() != w->uid || getgid() != w->gid || getegid() != w->gid || setuid(0) == 0) {
        snprintf(why, sizeof why, "privileges were not dropped to %s (uid %u); the job did not run", w->name,
                 (unsigned) w->uid);
        return why;
    }
    return NULL;
}

static char *concat(const char *name, const char *value) {
    size_t n = strlen(name) + strlen(value) + 2;
    char *s = malloc(n);
    if (s == NULL) {
        fail("out of memory");
    }
    snprintf(s, n, "%s=%s", name, value);
    return s;
}

/* Sets NAME in env (replacing an entry of the same name), returning the new count. */
static size_t put(char **env, size_t count, char *entry) {
    size_t name = strcspn(entry, "=");
    for (size_t i = 0; i < count; i++) {
        if (strncmp(env[i], entry, name + 1) == 0) {
            env[i] = entry;
            return count;
        }
    }
    env[count] = entry;
    return count + 1;
}

int main(int argc, char **argv) {
    if (argc == 5 && strcmp(argv[1], "--tail") == 0) {
        return geteuid() == 0 ? tail(argv[2], argv[3], argv[4]) : 1;
    }
    if (argc != 2) {
        fail("usage: gpusched-runas SPEC_FILE (run by the scheduler, not by hand)");
    }
    /* What the scheduler's starter ignored or blocked (nohup, a shell's trap '') the job must not inherit:
       an ignored signal survives exec. The spawn server resets them too; this also covers a run started
       without it. */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int sig = 1; sig < NSIG; sig++) {
        if (sig != SIGKILL && sig != SIGSTOP) {
            signal(sig, SIG_DFL);
        }
    }
    if (geteuid() != 0) {
        fail("runs jobs as their submitters, which needs root; this is uid %u", (unsigned) geteuid());
    }
    read_spec(argv[1]);
    if (strcmp(field("magic"), MAGIC) != 0) {
        fail("spec file %s is not of this version (" MAGIC ")", argv[1]);
    }
    const char *user = field("user");
    const char *cwd = field("cwd");
    const char *output = field("output");
    const char *mask_text = field("umask");
    const char *mode = field("environment mode");
    const char *command = field("command");
    const char *count_text = field("environment count");

    char *end;
    errno = 0;
    unsigned long mask = strtoul(mask_text, &end, 8);
    if (errno != 0 || *end != '\0' || *mask_text == '\0' || mask > 0777) {
        fail("bad umask '%s' in the spec file", mask_text);
    }
    unsigned long count = strtoul(count_text, &end, 10);
    if (*end != '\0' || *count_text == '\0' || count > 1000000) {
        fail("bad environment count '%s' in the spec file", count_text);
    }
    int login = strcmp(mode, "login") == 0;
    if (!login && strcmp(mode, "given") != 0) {
        fail("bad environment mode '%s' in the spec file", mode);
    }
    if (cwd[0] != '/' || output[0] != '/') {
        fail("working directory and output must be absolute paths, got '%s' and '%s'", cwd, output);
    }

    struct who w;
    const char *refused = become(user, &w);
    if (refused != NULL) {
        fail("%s", refused);
    }
    uid_t uid = w.uid;
    const char *name = w.name;
    umask((mode_t) mask);

    /* As the user from here on: the kernel checks every path against their rights, not root's. Without
       blocking: a FIFO another user planted at the name would otherwise hold the job here, unrun, for as
       long as no one reads it (opened so, it fails at once, or opens and is refused below as not a
       regular file). */
    int out = open(output, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK, 0666);
    if (out < 0) {
        int why = errno;
        struct stat link;
        /* A sticky directory's protection answers EACCES for a link or another user's file: say which. */
        if (why == ELOOP || (lstat(output, &link) == 0 && S_ISLNK(link.st_mode))) {
            fail("output %s is a symbolic link; gpusched writes a job's output only to a regular file; name the file"
                 " itself with --output; the job did not run", output);
        }
        if (lstat(output, &link) == 0 && link.st_uid != uid) {
            fail("output %s belongs to uid %u, not to %s: gpusched never appends a job's output to another user's file;"
                 " remove it or name another file with --output; the job did not run", output, (unsigned) link.st_uid, name);
        }
        if (why == ENXIO || (lstat(output, &link) == 0 && !S_ISREG(link.st_mode))) {
            fail("output %s is not a regular file (a FIFO, a socket or a device); name a file with --output; the job"
                 " did not run", output);
        }
        fail("cannot open output %s as %s: %s; name a file %s may write with --output; the job did not run", output, name,
             strerror(why), name);
    }
    struct stat st;
    if (fstat(out, &st) != 0) {
        fail("cannot stat output %s: %s; the job did not run", output, strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) {
        fail("output %s is not a regular file; name a file with --output; the job did not run", output);
    }
    if (st.st_uid != uid) {
        fail("output %s belongs to uid %u, not to %s: gpusched never appends a job's output to another user's file;"
             " remove it or name another file with --output; the job did not run", output, (unsigned) st.st_uid, name);
    }
    int flags = fcntl(out, F_GETFL);
    if (flags < 0 || fcntl(out, F_SETFL, flags & ~O_NONBLOCK) < 0) {
        fail("cannot set up output %s: %s; the job did not run", output, strerror(errno));
    }
    int log = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    if (dup2(out, STDOUT_FILENO) < 0 || dup2(out, STDERR_FILENO) < 0) {
        fail("cannot redirect to %s: %s; the job did not run", output, strerror(errno));
    }
    close(out);
    scheduler_log = log;
    if (chdir(cwd) != 0) {
        fail("cannot enter %s as %s: %s; the job did not run", cwd, name, strerror(errno));
    }

    char **env = calloc(count + 6, sizeof *env);
    if (env == NULL) {
        fail("out of memory");
    }
    size_t n = 0;
    if (login) {
        n = put(env, n, concat("HOME", w.home));
        n = put(env, n, concat("USER", name));
        n = put(env, n, concat("LOGNAME", name));
        n = put(env, n, concat("SHELL", w.shell));
        n = put(env, n, concat("PATH", "/usr/local/bin:/usr/bin:/bin"));
    }
    for (unsigned long i = 0; i < count; i++) {
        const char *entry = field("environment entry");
        if (strchr(entry, '=') == NULL || entry[0] == '=') {
            fail("bad environment entry in the spec file (no NAME=)");
        }
        n = put(env, n, (char *) entry);
    }
    env[n] = NULL;
    char *sh_argv[] = {"sh", "-c", (char *) command, NULL};
    execve("/bin/sh", sh_argv, env);
    if (errno == EAGAIN) {
        /* The kernel lets setuid pass a user at RLIMIT_NPROC and refuses the exec after it. The limit is
           the scheduler's own (no PAM session is opened for a job), counted over every process of hers. */
        struct rlimit nproc;
        getrlimit(RLIMIT_NPROC, &nproc);
        fail("cannot run /bin/sh as %s: %s: %s has as many processes as the scheduler's limit allows (RLIMIT_NPROC %llu);"
             " the job did not run", name, strerror(EAGAIN), name, (unsigned long long) nproc.rlim_cur);
    }
    fail("cannot run /bin/sh as %s: %s", name, strerror(errno));
}
