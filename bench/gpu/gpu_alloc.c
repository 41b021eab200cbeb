/* gpu_alloc: holds real GPU memory through the CUDA driver API, found with dlopen (no toolkit needed).
 * usage: gpu_alloc MIB HOLD_S [STEP_MIB]
 * Allocates STEP_MIB (default 1024) at a time up to MIB on the first visible device, writes each block,
 * prints its pid and total, holds HOLD_S seconds and exits 0. When an allocation fails it prints the
 * driver's error name (CUDA_ERROR_OUT_OF_MEMORY for a full card) and what it got, keeps that for 2 s,
 * as a framework does while it unwinds, and exits 1. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef int (*init_f)(unsigned);
typedef int (*devget_f)(int *, int);
typedef int (*ctx_f)(void **, unsigned, int);
typedef int (*alloc_f)(unsigned long long *, size_t);
typedef int (*set_f)(unsigned long long, unsigned char, size_t);
typedef int (*name_f)(int, const char **);

static void *sym(void *lib, const char *name) {
  void *f = dlsym(lib, name);
  if (!f) { fprintf(stderr, "gpu_alloc: %s missing in libcuda.so.1\n", name); exit(2); }
  return f;
}

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: gpu_alloc MIB HOLD_S [STEP_MIB]\n"); return 2; }
  long want = atol(argv[1]), hold = atol(argv[2]), step = argc > 3 ? atol(argv[3]) : 1024;
  void *lib = dlopen("libcuda.so.1", RTLD_NOW);
  if (!lib) { fprintf(stderr, "gpu_alloc: %s\n", dlerror()); return 2; }
  init_f cuInit = (init_f)sym(lib, "cuInit");
  devget_f cuDeviceGet = (devget_f)sym(lib, "cuDeviceGet");
  ctx_f cuCtxCreate = (ctx_f)sym(lib, "cuCtxCreate_v2");
  alloc_f cuMemAlloc = (alloc_f)sym(lib, "cuMemAlloc_v2");
  set_f cuMemsetD8 = (set_f)sym(lib, "cuMemsetD8_v2");
  name_f cuGetErrorName = (name_f)sym(lib, "cuGetErrorName");
  int dev, rc;
  void *ctx;
  const char *err = "?";
  if ((rc = cuInit(0)) || (rc = cuDeviceGet(&dev, 0)) || (rc = cuCtxCreate(&ctx, 0, dev))) {
    cuGetErrorName(rc, &err);
    fprintf(stderr, "gpu_alloc: CUDA set-up failed: %s\n", err);
    return 2;
  }
  long got = 0;
  while (got < want) {
    long n = want - got < step ? want - got : step;
    unsigned long long p;
    if ((rc = cuMemAlloc(&p, (size_t)n << 20)) != 0) {
      cuGetErrorName(rc, &err);
      printf("pid %d: %s after %ld MiB of %ld\n", (int)getpid(), err, got, want);
      fflush(stdout);
      sleep(2);
      return 1;
    }
    cuMemsetD8(p, 1, (size_t)n << 20);
    got += n;
  }
  printf("pid %d: holding %ld MiB for %ld s\n", (int)getpid(), got, hold);
  fflush(stdout);
  sleep((unsigned)hold);
  return 0;
}
