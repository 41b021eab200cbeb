/*
 * A fake libnvidia-ml.so.1 for the gpusched-nvml tests: no GPU needed.
 *
 * It serves GPUs, MIG instances and compute processes from a small text file, re-read at every
 * nvmlInit_v2 and nvmlDeviceGetCount_v2 (the start of each poll), so a test can change the machine
 * between two snapshots. Tests name the file with fakeNvmlSetStateFile() (called through JNA: the
 * library lives inside the JVM, so environment variables set later would not be seen); the
 * environment variable FAKE_NVML_STATE is the fallback for manual runs.
 *
 * Faithful where the backend can go wrong: real return codes, INSUFFICIENT_SIZE with infoCount
 * in/out semantics, 16-byte v1 process entries, 24-byte _v2/_v3 entries, and build variants that
 * lack the versioned symbols or write the 32-byte entries of the R535 drivers. Structs are declared
 * here with the layouts of the real header (not copied from it).
 *
 * Build flags (see build-fake-nvml.sh):
 *   FAKE_LEGACY        no _v2/_v3 process symbols, no nvmlDeviceGetPciInfo_v3, no MIG (R430/R440)
 *   FAKE_NO_V3         no nvmlDeviceGetComputeRunningProcesses_v3 (drivers before 510)
 *   FAKE_V3_STRIDE=N   bytes per entry written by the _v3 symbol (24, or 32 like R535)
 *   FAKE_CONF_COMPUTE  export nvmlDeviceGetConfComputeMemSizeInfo
 *   FAKE_DETAIL_LIST   export nvmlDeviceGetRunningProcessDetailList
 *   FAKE_NO_MEMORY_V2  no nvmlDeviceGetMemoryInfo_v2 (drivers before R510)
 *
 * State file, one item per line, key=value tokens, '#' starts a comment; '_' in names becomes ' ':
 *   driver 550.54.15
 *   gpu uuid=GPU-0 name=NVIDIA_H100 bus=00000000:17:00.0 total_mib=81920 used_mib=1024 util=37
 *       (also total_bytes=, used_bytes=, util=na for NOT_SUPPORTED, mig=1 for MIG mode, lost=1,
 *        reserved_mib=616 for memory the driver keeps: counted as used by the v1 memory call, apart by _v2)
 *   mig gpu=0 idx=0 uuid=MIG-0 name=NVIDIA_H100_MIG_1g.10gb total_mib=9856 used_mib=12 gi=1 ci=0
 *   proc gpu=0 pid=4242 used_mib=900     (also used_bytes=, used=na, mig=IDX for a MIG instance)
 *   fail fn=nvmlDeviceGetUtilizationRates gpu=1 rc=3   (gpu omitted: every call; mig=IDX: that instance)
 *   static        (re-read the file only at nvmlInit_v2: lets a benchmark time JNA, not this parser)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FAKE_V3_STRIDE
#define FAKE_V3_STRIDE 24
#endif

#define API __attribute__((visibility("default")))

enum {
    RC_SUCCESS = 0, RC_UNINITIALIZED = 1, RC_INVALID_ARGUMENT = 2, RC_NOT_SUPPORTED = 3,
    RC_NO_PERMISSION = 4, RC_NOT_FOUND = 6, RC_INSUFFICIENT_SIZE = 7, RC_DRIVER_NOT_LOADED = 9,
    RC_GPU_IS_LOST = 15, RC_LIB_RM_VERSION_MISMATCH = 18, RC_ARGUMENT_VERSION_MISMATCH = 25,
    RC_UNKNOWN = 999
};

typedef int nvmlReturn_t;
typedef struct fake_device *nvmlDevice_t;

typedef struct { unsigned long long total, free, used; } fake_memory_t;
/* nvmlMemory_v2_t: a version word, then total, reserved, free, used. */
typedef struct { unsigned int version; unsigned long long total, reserved, free, used; } fake_memory_v2_t;
#define MEMORY_V2_VERSION ((unsigned int) (sizeof(fake_memory_v2_t) | (2u << 24)))
typedef struct { unsigned int gpu, memory; } fake_utilization_t;
typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];
} fake_pci_t;
typedef struct { unsigned int pid; unsigned long long usedGpuMemory; } fake_proc_v1_t;
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
} fake_proc_v2_t;
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId, computeInstanceId;
    unsigned long long usedGpuCcProtectedMemory;
} fake_proc_r535_t;

#define MAX_GPUS 16
#define MAX_MIG 7
#define MAX_PROCS 256
#define MAX_FAILS 32
#define NA_VALUE 0xFFFFFFFFFFFFFFFFULL
#define MIB 1048576ULL

struct fake_device {
    int gpu, mig;          /* parent index; MIG index or -1 for the physical GPU */
    int present;
    char uuid[96], name[96], bus[32];
    unsigned long long total, used, reserved;
    int util;              /* -1: NOT_SUPPORTED */
    int mig_mode, lost;
    unsigned int gi, ci;
};
struct fake_proc { int gpu, mig; unsigned int pid; unsigned long long used; };
struct fake_fail { char fn[64]; int gpu, mig, rc; };

static struct fake_device gpus[MAX_GPUS];
static struct fake_device migs[MAX_GPUS][MAX_MIG];
static struct fake_proc procs[MAX_PROCS];
static struct fake_fail fails[MAX_FAILS];
static int gpu_count, proc_count, fail_count;
static char driver_version[80];
static char state_path[4096];
static int refcount, init_calls;
static int static_state;

static void copy_name(char *dst, size_t cap, const char *src) {
    snprintf(dst, cap, "%s", src);
    for (char *p = dst; *p; p++) {
        if (*p == '_') *p = ' ';
    }
}

static unsigned long long parse_memory(const char *key, const char *value, const char *stem) {
    char mib[32], bytes[32];
    snprintf(mib, sizeof mib, "%s_mib", stem);
    snprintf(bytes, sizeof bytes, "%s_bytes", stem);
    if (strcmp(key, mib) == 0) return strtoull(value, NULL, 10) * MIB;
    if (strcmp(key, bytes) == 0) return strtoull(value, NULL, 10);
    return 0;
}

static void reset_state(void) {
    memset(gpus, 0, sizeof gpus);
    memset(migs, 0, sizeof migs);
    gpu_count = proc_count = fail_count = 0;
    static_state = 0;
    strcpy(driver_version, "550.54.15");
}

/* Applies one "key=value" token of a line of the given kind into the scratch records. */
static void apply(const char *kind, char *token, struct fake_device *d, struct fake_proc *p,
                  struct fake_fail *f) {
    char *eq = strchr(token, '=');
    if (eq == NULL) return;
    *eq = '\0';
    const char *k = token, *v = eq + 1;
    if (strcmp(kind, "proc") == 0) {
        if (strcmp(k, "gpu") == 0) p->gpu = atoi(v);
        else if (strcmp(k, "mig") == 0) p->mig = atoi(v);
        else if (strcmp(k, "pid") == 0) p->pid = (unsigned int) strtoul(v, NULL, 10);
        else if (strcmp(k, "used") == 0 && strcmp(v, "na") == 0) p->used = NA_VALUE;
        else if (strncmp(k, "used_", 5) == 0) p->used = parse_memory(k, v, "used");
    } else if (strcmp(kind, "fail") == 0) {
        if (strcmp(k, "fn") == 0) snprintf(f->fn, sizeof f->fn, "%s", v);
        else if (strcmp(k, "gpu") == 0) f->gpu = atoi(v);
        else if (strcmp(k, "mig") == 0) f->mig = atoi(v);
        else if (strcmp(k, "rc") == 0) f->rc = atoi(v);
    } else {
        if (strcmp(k, "gpu") == 0) d->gpu = atoi(v);
        else if (strcmp(k, "idx") == 0) d->mig = atoi(v);
        else if (strcmp(k, "uuid") == 0) snprintf(d->uuid, sizeof d->uuid, "%s", v);
        else if (strcmp(k, "name") == 0) copy_name(d->name, sizeof d->name, v);
        else if (strcmp(k, "bus") == 0) snprintf(d->bus, sizeof d->bus, "%s", v);
        else if (strncmp(k, "total_", 6) == 0) d->total = parse_memory(k, v, "total");
        else if (strncmp(k, "used_", 5) == 0) d->used = parse_memory(k, v, "used");
        else if (strncmp(k, "reserved_", 9) == 0) d->reserved = parse_memory(k, v, "reserved");
        else if (strcmp(k, "util") == 0) d->util = strcmp(v, "na") == 0 ? -1 : atoi(v);
        else if (strcmp(k, "mig") == 0) d->mig_mode = atoi(v);
        else if (strcmp(k, "lost") == 0) d->lost = atoi(v);
        else if (strcmp(k, "gi") == 0) d->gi = (unsigned int) atoi(v);
        else if (strcmp(k, "ci") == 0) d->ci = (unsigned int) atoi(v);
    }
}

static void load_state(void) {
    const char *path = state_path[0] ? state_path : getenv("FAKE_NVML_STATE");
    reset_state();
    FILE *in = path ? fopen(path, "r") : NULL;
    if (in == NULL) return;
    char line[1024];
    while (fgets(line, sizeof line, in)) {
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *save = NULL;
        char *kind = strtok_r(line, " \t\r\n", &save);
        if (kind == NULL) continue;
        if (strcmp(kind, "static") == 0) {
            static_state = 1;
            continue;
        }
        if (strcmp(kind, "driver") == 0) {
            char *v = strtok_r(NULL, " \t\r\n", &save);
            if (v) snprintf(driver_version, sizeof driver_version, "%s", v);
            continue;
        }
        struct fake_device d = {.gpu = 0, .mig = -1, .present = 1, .util = 0};
        struct fake_proc p = {.gpu = 0, .mig = -1};
        struct fake_fail f = {.gpu = -1, .mig = -1};
        for (char *t = strtok_r(NULL, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
            apply(kind, t, &d, &p, &f);
        }
        if (strcmp(kind, "gpu") == 0 && gpu_count < MAX_GPUS) {
            d.gpu = gpu_count;
            d.mig = -1;
            gpus[gpu_count++] = d;
        } else if (strcmp(kind, "mig") == 0 && d.gpu >= 0 && d.gpu < MAX_GPUS && d.mig >= 0 && d.mig < MAX_MIG) {
            migs[d.gpu][d.mig] = d;
        } else if (strcmp(kind, "proc") == 0 && proc_count < MAX_PROCS) {
            procs[proc_count++] = p;
        } else if (strcmp(kind, "fail") == 0 && fail_count < MAX_FAILS) {
            fails[fail_count++] = f;
        }
    }
    fclose(in);
}

static int is_handle(const struct fake_device *d) {
    const char *p = (const char *) d;
    int physical = p >= (const char *) gpus && p < (const char *) (gpus + gpu_count);
    int mig = p >= (const char *) migs && p < (const char *) (migs + MAX_GPUS);
    return d != NULL && (physical || (mig && d->present));
}

/* The injected return code for this function on this device (NULL: a call without a device). */
static int injected(const char *fn, const struct fake_device *d) {
    for (int i = 0; i < fail_count; i++) {
        const struct fake_fail *f = &fails[i];
        if (strcmp(f->fn, fn) != 0) continue;
        if (f->gpu < 0 || (d != NULL && d->gpu == f->gpu && d->mig == f->mig)) return f->rc;
    }
    return RC_SUCCESS;
}

/* The checks every device query makes, in the order a driver would. */
static int enter(const char *fn, const struct fake_device *d) {
    if (refcount <= 0) return RC_UNINITIALIZED;
    if (!is_handle(d)) return RC_INVALID_ARGUMENT;
    int rc = injected(fn, d);
    if (rc != RC_SUCCESS) return rc;
    if (gpus[d->gpu].lost) return RC_GPU_IS_LOST;
    return RC_SUCCESS;
}

static int copy_out(char *dst, unsigned int len, const char *src) {
    if (dst == NULL) return RC_INVALID_ARGUMENT;
    if (strlen(src) + 1 > len) return RC_INSUFFICIENT_SIZE;
    strcpy(dst, src);
    return RC_SUCCESS;
}

API nvmlReturn_t nvmlInit_v2(void) {
    init_calls++;
    load_state();
    int rc = injected("nvmlInit_v2", NULL);
    if (rc != RC_SUCCESS) return rc;
    refcount++;
    return RC_SUCCESS;
}

API nvmlReturn_t nvmlShutdown(void) {
    if (refcount <= 0) return RC_UNINITIALIZED;
    refcount--;
    return RC_SUCCESS;
}

API const char *nvmlErrorString(nvmlReturn_t rc) {
    switch (rc) {
    case RC_SUCCESS: return "Success";
    case RC_UNINITIALIZED: return "Uninitialized";
    case RC_INVALID_ARGUMENT: return "Invalid Argument";
    case RC_NOT_SUPPORTED: return "Not Supported";
    case RC_NO_PERMISSION: return "Insufficient Permissions";
    case RC_NOT_FOUND: return "Not Found";
    case RC_INSUFFICIENT_SIZE: return "Insufficient Size";
    case RC_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case RC_GPU_IS_LOST: return "GPU is lost";
    case RC_LIB_RM_VERSION_MISMATCH: return "RM has detected an NVML/RM version mismatch.";
    default: return "Unknown Error";
    }
}

API nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    if (refcount <= 0) return RC_UNINITIALIZED;
    int rc = injected(__func__, NULL);
    return rc != RC_SUCCESS ? rc : copy_out(version, length, driver_version);
}

API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
    if (refcount <= 0) return RC_UNINITIALIZED;
    if (!static_state) load_state();
    int rc = injected(__func__, NULL);
    if (rc != RC_SUCCESS) return rc;
    if (count == NULL) return RC_INVALID_ARGUMENT;
    *count = (unsigned int) gpu_count;
    return RC_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
    if (refcount <= 0) return RC_UNINITIALIZED;
    if (index >= (unsigned int) gpu_count || device == NULL) return RC_INVALID_ARGUMENT;
    int rc = injected(__func__, &gpus[index]);
    if (rc != RC_SUCCESS) return rc;
    *device = &gpus[index];
    return RC_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int length) {
    int rc = enter(__func__, d);
    return rc != RC_SUCCESS ? rc : copy_out(name, length, d->name);
}

API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *uuid, unsigned int length) {
    int rc = enter(__func__, d);
    return rc != RC_SUCCESS ? rc : copy_out(uuid, length, d->uuid);
}

API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, fake_memory_t *memory) {
    int rc = enter(__func__, d);
    if (rc != RC_SUCCESS) return rc;
    if (memory == NULL) return RC_INVALID_ARGUMENT;
    /* As real drivers do, the v1 call counts the driver's reserve as used. */
    unsigned long long used = d->used + d->reserved;
    memory->total = d->total;
    memory->used = used > d->total ? d->total : used;
    memory->free = d->total - memory->used;
    return RC_SUCCESS;
}

#ifndef FAKE_NO_MEMORY_V2
API nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, fake_memory_v2_t *memory) {
    /* A device whose memory cannot be read fails through either entry point. */
    int rc = enter(__func__, d);
    if (rc == RC_SUCCESS) rc = enter("nvmlDeviceGetMemoryInfo", d);
    if (rc != RC_SUCCESS) return rc;
    if (memory == NULL) return RC_INVALID_ARGUMENT;
    if (memory->version != MEMORY_V2_VERSION) return RC_ARGUMENT_VERSION_MISMATCH;
    unsigned long long reserved = d->reserved > d->total ? d->total : d->reserved;
    memory->total = d->total;
    memory->reserved = reserved;
    memory->used = d->used > d->total - reserved ? d->total - reserved : d->used;
    memory->free = d->total - reserved - memory->used;
    return RC_SUCCESS;
}
#endif

API nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, fake_utilization_t *utilization) {
    int rc = enter(__func__, d);
    if (rc != RC_SUCCESS) return rc;
    if (d->mig >= 0 || d->mig_mode || d->util < 0) return RC_NOT_SUPPORTED;
    if (utilization == NULL) return RC_INVALID_ARGUMENT;
    utilization->gpu = (unsigned int) d->util;
    utilization->memory = (unsigned int) d->util / 2;
    return RC_SUCCESS;
}

/* The process-list protocol shared by every version; only the entry layout differs. */
static nvmlReturn_t list_processes(const char *fn, nvmlDevice_t d, unsigned int *count, void *infos,
                                   size_t stride) {
    int rc = enter(fn, d);
    if (rc != RC_SUCCESS) return rc;
    if (count == NULL) return RC_INVALID_ARGUMENT;
    unsigned int n = 0;
    for (int i = 0; i < proc_count; i++) {
        if (procs[i].gpu == d->gpu && procs[i].mig == d->mig) n++;
    }
    if (infos == NULL || *count < n) {
        /* the real driver: SUCCESS when there is nothing to list, else the size needed */
        *count = n;
        return n == 0 ? RC_SUCCESS : RC_INSUFFICIENT_SIZE;
    }
    unsigned char *out = infos;
    for (int i = 0; i < proc_count; i++) {
        const struct fake_proc *p = &procs[i];
        if (p->gpu != d->gpu || p->mig != d->mig) continue;
        unsigned int gi = d->mig >= 0 ? d->gi : 0xFFFFFFFFu;
        unsigned int ci = d->mig >= 0 ? d->ci : 0xFFFFFFFFu;
        memset(out, 0, stride);
        if (stride == sizeof(fake_proc_v1_t)) {
            fake_proc_v1_t e = {p->pid, p->used};
            memcpy(out, &e, sizeof e);
        } else if (stride == sizeof(fake_proc_v2_t)) {
            fake_proc_v2_t e = {p->pid, p->used, gi, ci};
            memcpy(out, &e, sizeof e);
        } else {
            fake_proc_r535_t e = {p->pid, p->used, gi, ci, 0};
            memcpy(out, &e, sizeof e);
        }
        out += stride;
    }
    *count = n;
    return RC_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t d, unsigned int *count, void *infos) {
    return list_processes(__func__, d, count, infos, sizeof(fake_proc_v1_t));
}

#ifndef FAKE_LEGACY
API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t d, unsigned int *count, void *infos) {
    return list_processes(__func__, d, count, infos, sizeof(fake_proc_v2_t));
}

#ifndef FAKE_NO_V3
API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned int *count, void *infos) {
    return list_processes(__func__, d, count, infos, FAKE_V3_STRIDE);
}
#endif

API nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, fake_pci_t *pci) {
    int rc = enter(__func__, d);
    if (rc != RC_SUCCESS) return rc;
    if (pci == NULL) return RC_INVALID_ARGUMENT;
    const struct fake_device *physical = &gpus[d->gpu];
    memset(pci, 0, sizeof *pci);
    snprintf(pci->busId, sizeof pci->busId, "%s", physical->bus);
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%s", physical->bus + (strlen(physical->bus) > 12 ? 4 : 0));
    sscanf(physical->bus, "%x:%x:%x", &pci->domain, &pci->bus, &pci->device);
    return RC_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int *current, unsigned int *pending) {
    int rc = enter(__func__, d);
    if (rc != RC_SUCCESS) return rc;
    if (d->mig >= 0) return RC_NOT_SUPPORTED;
    if (current == NULL || pending == NULL) return RC_INVALID_ARGUMENT;
    *current = *pending = (unsigned int) d->mig_mode;
    return RC_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned int *count) {
    int rc = enter(__func__, d);
    if (rc != RC_SUCCESS) return rc;
    if (count == NULL) return RC_INVALID_ARGUMENT;
    *count = d->mig < 0 && d->mig_mode ? MAX_MIG : 0;
    return RC_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned int index, nvmlDevice_t *mig) {
    int rc = enter(__func__, d);
    if (rc != RC_SUCCESS) return rc;
    if (d->mig >= 0 || !d->mig_mode || index >= MAX_MIG || mig == NULL) return RC_INVALID_ARGUMENT;
    struct fake_device *m = &migs[d->gpu][index];
    if (!m->present) return RC_NOT_FOUND;
    rc = injected(__func__, m);
    if (rc != RC_SUCCESS) return rc;
    *mig = m;
    return RC_SUCCESS;
}
#endif

#ifdef FAKE_CONF_COMPUTE
API nvmlReturn_t nvmlDeviceGetConfComputeMemSizeInfo(nvmlDevice_t d, void *info) {
    (void) info;
    int rc = enter(__func__, d);
    return rc != RC_SUCCESS ? rc : RC_NOT_SUPPORTED;
}
#endif

#ifdef FAKE_DETAIL_LIST
API nvmlReturn_t nvmlDeviceGetRunningProcessDetailList(nvmlDevice_t d, void *list) {
    (void) list;
    int rc = enter(__func__, d);
    return rc != RC_SUCCESS ? rc : RC_NOT_SUPPORTED;
}
#endif

/* ---- test hooks: not part of NVML ---- */

/* Names the state file and forgets every counter, so each test starts from a clean library. */
API void fakeNvmlSetStateFile(const char *path) {
    snprintf(state_path, sizeof state_path, "%s", path ? path : "");
    refcount = 0;
    init_calls = 0;
    load_state();
}

/* How often nvmlInit_v2 was called since the last fakeNvmlSetStateFile. */
API int fakeNvmlInitCalls(void) { return init_calls; }

/* nvmlInit_v2 successes not yet matched by nvmlShutdown. */
API int fakeNvmlRefCount(void) { return refcount; }

/* sizeof of this library's structs, so tests can hold the JNA layouts against the C compiler's. */
API int fakeNvmlSizeof(const char *type) {
    if (strcmp(type, "memory") == 0) return (int) sizeof(fake_memory_t);
    if (strcmp(type, "memory_v2") == 0) return (int) sizeof(fake_memory_v2_t);
    if (strcmp(type, "utilization") == 0) return (int) sizeof(fake_utilization_t);
    if (strcmp(type, "pci") == 0) return (int) sizeof(fake_pci_t);
    if (strcmp(type, "proc_v1") == 0) return (int) sizeof(fake_proc_v1_t);
    if (strcmp(type, "proc_v2") == 0) return (int) sizeof(fake_proc_v2_t);
    if (strcmp(type, "proc_r535") == 0) return (int) sizeof(fake_proc_r535_t);
    if (strcmp(type, "return") == 0) return (int) sizeof(nvmlReturn_t);
    return -1;
}
