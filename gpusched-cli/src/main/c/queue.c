/*
 * gpusched-queue: `gpusched queue`'s common command lines without a JVM (issue #27: the verb is typed
 * often, and a JVM's start alone is over its 80 ms target).
 *
 * It does what the Java client's quick path (io.gpusched.cli.QuickQueue) does, and decides everything
 * as it does: which command lines it takes, the socket, list or table, the terminal's width, ASCII,
 * and the request line, byte for byte. The daemon renders the text; this copies it to standard output
 * as it arrives.
 *
 * usage: gpusched-queue queue [--all] [--user U] [--format SPEC] [--socket PATH] [--log-dir DIR]
 *
 * Anything else it hands over: it exits HAND_OVER (100) having written nothing, and the launcher
 * (bin/gpusched, the installed one) runs the Java client with the same arguments, so every message and
 * exit code stays the Java client's. That is: an option it does not take, --json, --help, --user me
 * (which needs hello), a --format the Java parser would refuse or one naming a note by its key, any
 * byte above ASCII in what it would use (the JVM decodes arguments and the environment by the locale),
 * no daemon, a daemon it does not trust (one run by neither this user nor root), and any answer other
 * than the text's two heads (an error, an older daemon's rows).
 *
 * The answer, once its head is taken: either
 *   {"v":1,"ok":true,"text_chunks":true}  then chunks, each a decimal length 1..1048576 and "\n" then
 *                                          that many bytes, whole lines, ended by "0\n"; or
 *   {"v":1,"ok":true,"text_bytes":N}      then N bytes.
 * From then on it speaks for itself: a daemon that goes away midway or breaks the framing gets one line
 * on stderr and exit 1, in the Java client's words (GpuschedClient.copyText, LineChannel.copyChunks). Everything read is bounded: the head line (128
 * bytes), a chunk's length line, the buffer (64 KiB); nothing the daemon sends can overflow it.
 *
 * It runs as the invoking user and needs no privilege.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

/* The launcher's cue to run the Java client instead; nothing has been written. */
#define HAND_OVER 100
/* What the Java client returns: done, and refused or the daemon gone (ExitCodes). */
#define OK 0
#define REFUSED 1

/* Request.Text's bounds and QueueFormat's. */
#define MAX_WIDTH 99999
#define MAX_USER_CHARS 256
#define FORMAT_MAX_COLUMNS 24
#define FORMAT_MAX_FIELD_WIDTH 1000
/* The longest head line taken: the longest one accepted is 49 bytes. */
#define HEAD_MAX 128
/* A chunk's bound, as the daemon writes them. */
#define CHUNK_MAX 1048576
#define CHUNK_DIGITS 7

static const char TEXT_BYTES_HEAD[] = "{\"v\":1,\"ok\":true,\"text_bytes\":";
static const char TEXT_CHUNKS_HEAD[] = "{\"v\":1,\"ok\":true,\"text_chunks\":true}";

static void hand_over(void) __attribute__((noreturn));
static void hand_over(void) {
    _exit(HAND_OVER);
}

/* ---- what is used must be ASCII: the JVM decodes argv and the environment by the locale ---- */

static int ascii(const char *s) {
    for (; *s; s++) {
        if ((unsigned char) *s >= 0x80) {
            return 0;
        }
    }
    return 1;
}

/* Character.isWhitespace, for ASCII: what String.strip() and isBlank() take away. */
static int java_space(int c) {
    return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

static int blank(const char *s) {
    for (; *s; s++) {
        if (!java_space((unsigned char) *s)) {
            return 0;
        }
    }
    return 1;
}

/* ---- a bounded string builder ---- */

struct buf {
    char *p;
    size_t len, cap;
};

static void put(struct buf *b, const char *s, size_t n) {
    if (n >= b->cap - b->len) {
        hand_over(); /* cannot happen within the bounds above; never written past */
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void puts_(struct buf *b, const char *s) {
    put(b, s, strlen(s));
}

static void putc_(struct buf *b, char c) {
    put(b, &c, 1);
}

static void putnum(struct buf *b, long v) {
    char d[24];
    int n = snprintf(d, sizeof d, "%ld", v);
    put(b, d, (size_t) n);
}

/* A JSON string as the codec's generator writes it (QueueTextLines.string), for ASCII input. */
static void putjson(struct buf *b, const char *s) {
    static const char hex[] = "0123456789ABCDEF";
    putc_(b, '"');
    for (; *s; s++) {
        unsigned char c = (unsigned char) *s;
        switch (c) {
            case '"': puts_(b, "\\\""); break;
            case '\\': puts_(b, "\\\\"); break;
            case '\b': puts_(b, "\\b"); break;
            case '\t': puts_(b, "\\t"); break;
            case '\n': puts_(b, "\\n"); break;
            case '\f': puts_(b, "\\f"); break;
            case '\r': puts_(b, "\\r"); break;
            default:
                if (c < 0x20) {
                    char u[7] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xF], '\0'};
                    puts_(b, u);
                } else {
                    putc_(b, (char) c);
                }
        }
    }
    putc_(b, '"');
}

/* ---- --format, read as QueueFormat.parse reads it, written back as its spec() ---- */

struct field {
    char letter;
    const char *name;
};

static const struct field FIELDS[] = {
    {'i', "job"}, {'u', "user"}, {'t', "state"}, {'y', "tty"}, {'b', "gpus"}, {'m', "memory"},
    {'M', "time"}, {'p', "priority"}, {'r', "reason"}, {'x', "exit"}, {'c', "command"}, {'k', "note"},
};
#define FIELD_COUNT (sizeof FIELDS / sizeof FIELDS[0])

/* A width's digits (1 to 4 of them, 1..1000), or -1 when QueueFormat.width would refuse them; 0: none. */
static int field_width(const char *d, size_t n) {
    if (n == 0) {
        return 0;
    }
    if (n > 4) {
        return -1;
    }
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        v = v * 10 + (d[i] - '0');
    }
    return v < 1 || v > FORMAT_MAX_FIELD_WIDTH ? -1 : v;
}

static void column(struct buf *spec, int *columns, char letter, int width, int right) {
    if (++*columns > FORMAT_MAX_COLUMNS) {
        hand_over(); /* QueueFormat refuses it: its words are the Java client's */
    }
    puts_(spec, *columns == 1 ? "%" : " %");
    if (right) {
        putc_(spec, '.');
    }
    if (width > 0) {
        putnum(spec, width);
    }
    putc_(spec, letter);
}

/* %-fields: whatever lies between them is ignored. Any refusal is handed over. */
static void percent(const char *s, struct buf *spec, int *columns) {
    size_t n = strlen(s), i = 0;
    while (i < n) {
        if (s[i] != '%') {
            i++;
            continue;
        }
        i++;
        int right = i < n && s[i] == '.';
        if (right) {
            i++;
        }
        size_t digits = i;
        while (i < n && s[i] >= '0' && s[i] <= '9') {
            i++;
        }
        if (i >= n) {
            hand_over();
        }
        char letter = s[i++];
        const struct field *f = NULL;
        for (size_t k = 0; k < FIELD_COUNT; k++) {
            if (FIELDS[k].letter == letter) {
                f = &FIELDS[k];
            }
        }
        int w = field_width(s + digits, i - 1 - digits);
        if (f == NULL || w < 0) {
            hand_over();
        }
        column(spec, columns, f->letter, w, right);
    }
}

/* Names separated by commas, each with an optional ":[.]WIDTH". A note by its key is handed over. */
static void names(const char *s, struct buf *spec, int *columns) {
    const char *part = s;
    for (;;) {
        const char *end = strchr(part, ',');
        if (end == NULL) {
            end = part + strlen(part);
        }
        const char *a = part, *z = end;
        while (a < z && java_space((unsigned char) *a)) {
            a++;
        }
        while (z > a && java_space((unsigned char) z[-1])) {
            z--;
        }
        const char *colon = memchr(a, ':', (size_t) (z - a));
        const char *name_end = colon != NULL ? colon : z;
        const char *size = colon != NULL ? colon + 1 : z;
        int right = size < z && *size == '.';
        if (right) {
            size++;
        }
        const struct field *f = NULL;
        size_t name_len = (size_t) (name_end - a);
        for (size_t k = 0; k < FIELD_COUNT; k++) {
            const char *fn = FIELDS[k].name;
            if (strlen(fn) != name_len) {
                continue;
            }
            size_t j = 0;
            while (j < name_len && (a[j] >= 'A' && a[j] <= 'Z' ? a[j] - 'A' + 'a' : a[j]) == fn[j]) {
                j++;
            }
            if (j == name_len) {
                f = &FIELDS[k];
            }
        }
        if (f == NULL) {
            hand_over(); /* a note by its key, or no field: the Java client knows which */
        }
        for (const char *d = size; d < z; d++) {
            if (*d < '0' || *d > '9') {
                hand_over();
            }
        }
        int w = field_width(size, (size_t) (z - size));
        if (w < 0) {
            hand_over();
        }
        column(spec, columns, f->letter, w, right);
        if (*end == '\0') {
            break;
        }
        part = end + 1;
    }
}

static void format_spec(const char *s, struct buf *spec) {
    int columns = 0;
    if (strchr(s, '%') != NULL) {
        percent(s, spec, &columns);
    } else {
        names(s, spec, &columns);
    }
    if (columns == 0) {
        hand_over();
    }
}

/* ---- the terminal: Terminal.columns() ---- */

/* COLUMNS when it is 1 to 5 digits (around them ASCII white space) and over 0; else -1. */
static long columns_env(void) {
    const char *env = getenv("COLUMNS");
    if (env == NULL) {
        return -1;
    }
    if (!ascii(env)) {
        hand_over(); /* String.strip() takes Unicode white space this does not know */
    }
    const char *a = env, *z = env + strlen(env);
    while (a < z && java_space((unsigned char) *a)) {
        a++;
    }
    while (z > a && java_space((unsigned char) z[-1])) {
        z--;
    }
    if (z - a < 1 || z - a > 5) {
        return -1;
    }
    long v = 0;
    for (const char *d = a; d < z; d++) {
        if (*d < '0' || *d > '9') {
            return -1;
        }
        v = v * 10 + (*d - '0');
    }
    return v > 0 ? v : -1;
}

/* System.console() != null: standard input and output are both terminals. */
static int console(void) {
    return isatty(0) && isatty(1);
}

/* What `stty size </dev/tty` says of the columns, at least 1; -1 when it would fail. */
static long tty_columns(void) {
    int fd = open("/dev/tty", O_RDONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    struct termios t;
    struct winsize w;
    long cols = -1;
    if (tcgetattr(fd, &t) == 0 && ioctl(fd, TIOCGWINSZ, &w) == 0) {
        cols = w.ws_col < 1 ? 1 : w.ws_col;
    }
    close(fd);
    return cols;
}

/* ---- the locale: QueueTable.utf8Locale() ---- */

static int contains_ci(const char *s, const char *lower) {
    size_t n = strlen(lower);
    for (; *s; s++) {
        size_t i = 0;
        while (i < n && s[i] && (s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]) == lower[i]) {
            i++;
        }
        if (i == n) {
            return 1;
        }
    }
    return 0;
}

static int utf8_locale(void) {
    static const char *const vars[] = {"LC_ALL", "LC_CTYPE", "LANG"};
    for (size_t i = 0; i < 3; i++) {
        const char *v = getenv(vars[i]);
        if (v != NULL && *v) {
            return contains_ci(v, "utf-8") || contains_ci(v, "utf8");
        }
    }
    return 1;
}

/* ---- the socket: GpuschedClient.defaultSocket(), and paths as java.nio's Path writes them ---- */

/* Path.of(s).toString(): repeated slashes as one, no trailing slash (but "/" itself). */
static void path_into(struct buf *b, const char *s) {
    size_t start = b->len;
    for (; *s; s++) {
        if (*s == '/' && b->len > start && b->p[b->len - 1] == '/') {
            continue;
        }
        putc_(b, *s);
    }
    if (b->len - start > 1 && b->p[b->len - 1] == '/') {
        b->p[--b->len] = '\0';
    }
}

/* dir.resolve(name): dir's path, a slash unless it already ends in one, then name. */
static void resolve_into(struct buf *b, const char *dir, const char *name) {
    path_into(b, dir);
    if (b->len > 0 && b->p[b->len - 1] != '/') {
        putc_(b, '/');
    }
    puts_(b, name);
}

static void socket_path(struct buf *b, const char *socket, const char *log_dir, const char *me) {
    if (socket != NULL) {
        path_into(b, socket);
        return;
    }
    if (log_dir != NULL) {
        resolve_into(b, log_dir, "gpusched.sock");
        return;
    }
    const char *env = getenv("GPUSCHED_SOCKET");
    if (env != NULL && !ascii(env)) {
        hand_over();
    }
    if (env != NULL && !blank(env)) {
        path_into(b, env);
        return;
    }
    struct stat st;
    if (stat("/run/gpusched/gpusched.sock", &st) == 0) {
        puts_(b, "/run/gpusched/gpusched.sock");
        return;
    }
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    if (runtime != NULL && !ascii(runtime)) {
        hand_over();
    }
    if (runtime != NULL && !blank(runtime)) {
        resolve_into(b, runtime, "gpusched");
        puts_(b, "/gpusched.sock");
        return;
    }
    puts_(b, "/tmp/gpusched-");
    puts_(b, me);
    puts_(b, "/gpusched.sock");
}

/* ---- the answer ---- */

static int sock = -1;
static const char *sock_name;
static char in[64 * 1024];
static size_t in_pos, in_len;
static int output_failed;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "gpusched: %s\n", msg);
    fflush(stderr);
    _exit(REFUSED);
}

/* ClientCommand's words for a daemon gone midway: "the gpusched service at S went away in the middle of an answer: WHY". */
static void gone(const char *why) __attribute__((noreturn));
static void gone(const char *why) {
    die("the gpusched service at %s went away in the middle of an answer: %s", sock_name, why);
}

/* Reads more into the buffer (emptied first when all of it was taken); 0 at the end of the stream. */
static size_t fill(void) {
    if (in_pos == in_len) {
        in_pos = in_len = 0;
    }
    for (;;) {
        ssize_t n = read(sock, in + in_len, sizeof in - in_len);
        if (n >= 0) {
            in_len += (size_t) n;
            return (size_t) n;
        }
        if (errno != EINTR) {
            gone(strerror(errno));
        }
    }
}

/* Standard output as the Java client's PrintStream takes it: a failure to write is kept quiet. */
static void emit(const char *p, size_t n) {
    while (n > 0 && !output_failed) {
        ssize_t w = write(1, p, n);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            output_failed = 1;
            return;
        }
        p += w;
        n -= (size_t) w;
    }
}

/*
 * Copies the next n bytes of the stream to standard output, as they come; gone(why) names what was left
 * ("the stream ended L bytes before the text's end", "... before a chunk's end"). Returns the last byte.
 */
static char copy(uint64_t n, const char *before) {
    char last = 0;
    while (n > 0) {
        if (in_pos == in_len && fill() == 0) {
            char why[96];
            snprintf(why, sizeof why, "the stream ended %llu bytes before %s", (unsigned long long) n, before);
            gone(why);
        }
        size_t take = in_len - in_pos < n ? in_len - in_pos : (size_t) n;
        emit(in + in_pos, take);
        in_pos += take;
        n -= take;
        last = in[in_pos - 1];
    }
    return last;
}

/* The Java client's words for chunks out of the protocol's form (GpuschedClient, bad_answer). */
static void out_of_form(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void out_of_form(const char *fmt, ...) {
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    die("the gpusched service at %s sent a queue text out of its form (PROTOCOL.md, text_chunks): %s", sock_name, why);
}

/*
 * The chunks after a text_chunks head, read as the Java client reads them (LineChannel.copyChunks): a
 * length line of at most CHUNK_DIGITS characters, a length of 1 to CHUNK_MAX without sign or leading zero,
 * a chunk that ends a line; the line "0" ends the text.
 */
static void chunks(void) {
    for (;;) {
        char digits[CHUNK_DIGITS + 2];
        size_t len = 0;
        for (;;) {
            if (in_pos == in_len && fill() == 0) {
                gone("the stream ended inside the text, at a chunk's length");
            }
            char c = in[in_pos++];
            if (c == '\n') {
                break;
            }
            digits[len++] = c >= 0x20 && c < 0x7f ? c : '?';
            if (len > CHUNK_DIGITS) {
                digits[len] = '\0';
                out_of_form("a chunk's length line is longer than %d digits: '%s...'", CHUNK_DIGITS, digits);
            }
        }
        digits[len] = '\0';
        uint64_t n = 0;
        int ok = len > 0 && !(len > 1 && digits[0] == '0');
        for (size_t i = 0; ok && i < len; i++) {
            ok = digits[i] >= '0' && digits[i] <= '9';
            n = n * 10 + (uint64_t) (digits[i] - '0');
        }
        if (!ok || n > CHUNK_MAX) {
            out_of_form("a chunk's length is not 0 to %d in decimal digits: '%s'", CHUNK_MAX, digits);
        }
        if (n == 0) {
            return;
        }
        if (copy(n, "a chunk's end") != '\n') {
            out_of_form("a chunk of %llu bytes does not end a line", (unsigned long long) n);
        }
    }
}

/* text_bytes' count as QueueTextLines.textBytes reads it: 1 to 18 digits, no leading zero; -1 if not. */
static int64_t text_bytes(const char *line, size_t len) {
    size_t head = sizeof TEXT_BYTES_HEAD - 1;
    if (len < head + 2 || memcmp(line, TEXT_BYTES_HEAD, head) != 0 || line[len - 1] != '}') {
        return -1;
    }
    const char *d = line + head;
    size_t n = len - head - 1;
    if (n > 18 || (n > 1 && d[0] == '0')) {
        return -1;
    }
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (d[i] < '0' || d[i] > '9') {
            return -1;
        }
        v = v * 10 + (d[i] - '0');
    }
    return v;
}

/* ---- who serves the socket: GpuschedClient.requireTrustedServer ---- */

static int trusted(int fd, uid_t me_uid, const char *me) {
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof cred) {
        return 0;
    }
    if (cred.uid == me_uid) {
        return 1;
    }
    /* As the JVM names the peer: its passwd name, else its uid in decimal. */
    char server[64];
    struct passwd *pw = getpwuid(cred.uid);
    if (pw != NULL) {
        if (strlen(pw->pw_name) >= sizeof server) {
            return 0;
        }
        snprintf(server, sizeof server, "%s", pw->pw_name);
    } else {
        snprintf(server, sizeof server, "%u", (unsigned) cred.uid);
    }
    return strcmp(server, me) == 0 || strcmp(server, "root") == 0;
}

int main(int argc, char **argv) {
    /* A reader gone from standard output is the Java client's quiet failure, not a signal's death. */
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2 || strcmp(argv[1], "queue") != 0) {
        hand_over();
    }
    /* QuickQueue.line: the options it takes, each valued one also as --name=value, once. */
    int all = 0;
    const char *format = NULL, *user = NULL, *socket_arg = NULL, *log_dir = NULL;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        const char *eq = strchr(a, '=');
        size_t name_len = strncmp(a, "--", 2) == 0 && eq != NULL && eq - a > 2 ? (size_t) (eq - a) : strlen(a);
        const char *value = name_len == strlen(a) ? NULL : eq + 1;
#define IS(n) (name_len == sizeof(n) - 1 && strncmp(a, n, name_len) == 0)
        if (IS("--all")) {
            if (value != NULL) {
                hand_over();
            }
            all = 1;
            continue;
        }
        const char **slot = IS("--format") ? &format : IS("--user") ? &user : IS("--socket") ? &socket_arg
                : IS("--log-dir") ? &log_dir : NULL;
#undef IS
        if (slot == NULL) {
            hand_over(); /* --json, --help, a word, an option it does not take */
        }
        if (value == NULL) {
            if (i + 1 >= argc) {
                hand_over();
            }
            value = argv[++i];
        }
        if (*value == '\0' || *value == '-' || !ascii(value) || *slot != NULL) {
            hand_over(); /* a valued option given twice: the Java client refuses it, naming both values */
        }
        *slot = value;
    }
    if (user != NULL && (strcmp(user, "me") == 0 || strlen(user) > MAX_USER_CHARS)) {
        hand_over(); /* "me" needs hello; the Java client asks it */
    }
    char spec_mem[512];
    struct buf spec = {spec_mem, 0, sizeof spec_mem};
    spec_mem[0] = '\0';
    if (format != NULL) {
        format_spec(format, &spec);
    }

    /* Who this is, as the JVM's user.name says it; a user the passwd database does not know is handed over. */
    uid_t me_uid = getuid();
    struct passwd *pw = getpwuid(me_uid);
    if (pw == NULL || !ascii(pw->pw_name) || strlen(pw->pw_name) > 255) {
        hand_over();
    }
    char me[256];
    snprintf(me, sizeof me, "%s", pw->pw_name);

    /* The request, as QueueTextLines.request writes it, with "chunks": a daemon that frames the text takes it. */
    int table = format != NULL || console();
    long width = -1;
    if (table) {
        width = columns_env();
        if (width < 0 && console()) {
            width = tty_columns();
        }
        if (width > MAX_WIDTH) {
            width = MAX_WIDTH;
        }
    }
    char req_mem[4096];
    struct buf req = {req_mem, 0, sizeof req_mem};
    puts_(&req, "{\"v\":1,\"op\":\"queue\",\"stream\":true,\"text\":{\"layout\":\"");
    puts_(&req, table ? "table\"" : "list\"");
    if (format != NULL) {
        puts_(&req, ",\"format\":");
        putjson(&req, spec.p);
    }
    if (width > 0) {
        puts_(&req, ",\"width\":");
        putnum(&req, width);
    }
    if (!utf8_locale()) {
        puts_(&req, ",\"ascii\":true");
    }
    if (user != NULL) {
        puts_(&req, ",\"user\":");
        putjson(&req, user);
    }
    if (all) {
        puts_(&req, ",\"all\":true");
    }
    puts_(&req, ",\"chunks\":true}}\n");

    char path_mem[4096];
    struct buf path = {path_mem, 0, sizeof path_mem};
    socket_path(&path, socket_arg, log_dir, me);
    sock_name = path.p;

    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (path.len == 0 || path.len >= sizeof addr.sun_path) {
        hand_over();
    }
    memcpy(addr.sun_path, path.p, path.len);
    sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock < 0 || connect(sock, (struct sockaddr *) &addr, sizeof addr) != 0 || !trusted(sock, me_uid, me)) {
        hand_over(); /* no daemon, or not one to send to: the Java client says which */
    }
    for (size_t sent = 0; sent < req.len;) {
        ssize_t w = write(sock, req.p + sent, req.len - sent);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            hand_over();
        }
        sent += (size_t) w;
    }

    /* The head: one line of at most HEAD_MAX bytes; any line but the text's two heads is handed over. */
    char *nl = NULL;
    while ((nl = memchr(in, '\n', in_len)) == NULL) {
        if (in_len >= HEAD_MAX) {
            hand_over();
        }
        ssize_t n = read(sock, in + in_len, sizeof in - in_len);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            hand_over();
        }
        in_len += (size_t) n;
    }
    size_t head_len = (size_t) (nl - in);
    if (head_len >= HEAD_MAX) {
        hand_over();
    }
    in_pos = head_len + 1;
    if (head_len == sizeof TEXT_CHUNKS_HEAD - 1 && memcmp(in, TEXT_CHUNKS_HEAD, head_len) == 0) {
        chunks();
    } else {
        int64_t n = text_bytes(in, head_len);
        if (n < 0) {
            hand_over();
        }
        copy((uint64_t) n, "the text's end");
    }
    close(sock);
    return OK;
}
