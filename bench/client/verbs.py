#!/usr/bin/env python3
"""How a client verb starts (issue #27, item 4): `gpusched queue` against a running `gpusched serve --sim 2`,
each way of starting the JVM measured in turn (interleaved, so load drifts hit every variant alike).

Variants: the launcher as it is (bin/gpusched), and the java command under it with one change each:
  cds          the launcher's JVM flags and its class-data archive (target/cds/client.jsa): the baseline
  nocds        the same without the archive
  int          + -Xint (no JIT compiler at all)
  c1one        + -XX:CICompilerCount=1
  j25-cds      a Java 24+ runtime (--java25 or the newest /usr/lib/jvm/*-2[4-9]*), a dynamic archive of its own
  j25-aot      the same runtime with an ahead-of-time cache (-XX:AOTCache, trained once here)
  launcher-j25 bin/gpusched with the Java 24+ runtime first on the PATH (what its launcher then picks)
  launcher-base  --base ROOT's bin/gpusched (an older checkout), against the same daemon
  version      bin/gpusched --version, for the ratio the issue asks about
Prints median [min-max] wall and CPU (user+sys) per variant over --runs (>= 10) rounds.
usage: bench/client/verbs.py [--runs N] [--root DIR] [--java25 PATH]
"""
import argparse, glob, os, shutil, signal, statistics, subprocess, sys, tempfile, time

ap = argparse.ArgumentParser()
ap.add_argument("--runs", type=int, default=10)
ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
ap.add_argument("--java25", default=None)
ap.add_argument("--only", default=None, help="comma-separated variant names")
ap.add_argument("--base", default=None, help="another checkout whose bin/gpusched is measured too (launcher-base)")
a = ap.parse_args()
root = a.root
gs = os.path.join(root, "bin", "gpusched")
jar = os.path.join(root, "gpusched-cli", "target", "gpusched.jar")
subprocess.run([gs, "--version"], check=True, stdout=subprocess.DEVNULL)
subprocess.run([gs, "queue", "--socket", "/nonexistent"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # trains client.jsa
# The measured launcher's JVM flags, as bench/jvm_flags.sh reads them from it.
flags = subprocess.run(["bash", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "jvm_flags.sh"), gs],
                       check=True, stdout=subprocess.PIPE, text=True).stdout.split()
work = tempfile.mkdtemp(prefix="gpusched-verbs-")
sock = os.path.join(work, "s.sock")
daemon = subprocess.Popen([gs, "serve", "--socket", sock, "--sim", "2", "--log-dir", os.path.join(work, "logs")],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
for _ in range(400):
    if os.path.exists(sock):
        break
    time.sleep(0.05)
q = ["queue", "--socket", sock]
jsa = os.path.join(root, "gpusched-cli", "target", "cds", "client.jsa")
variants = {
    "launcher": [gs] + q,
    "cds": ["java"] + flags + [f"-XX:SharedArchiveFile={jsa}", "-jar", jar] + q,
    "nocds": ["java"] + flags + ["-jar", jar] + q,
    "int": ["java"] + flags + [f"-XX:SharedArchiveFile={jsa}", "-Xint", "-jar", jar] + q,
    "c1one": ["java"] + flags + [f"-XX:SharedArchiveFile={jsa}", "-XX:CICompilerCount=1", "-jar", jar] + q,
    "version": [gs, "--version"],
}
j25 = a.java25 or next(iter(sorted(glob.glob("/usr/lib/jvm/*-2[4-9]*/bin/java"), reverse=True)), None)
if j25:
    f25 = [f for f in flags if f != "-Xshare:auto"]
    aot, jsa25 = os.path.join(work, "client.aot"), os.path.join(work, "client25.jsa")
    subprocess.run([j25] + f25 + [f"-XX:AOTCacheOutput={aot}", "-jar", jar] + q, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    subprocess.run([j25] + f25 + [f"-XX:ArchiveClassesAtExit={jsa25}", "-jar", jar] + q, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    variants["j25-cds"] = [j25] + f25 + [f"-XX:SharedArchiveFile={jsa25}", "-jar", jar] + q
    variants["j25-aot"] = [j25] + f25 + [f"-XX:AOTCache={aot}", "-jar", jar] + q
if j25:
    env25 = dict(os.environ, PATH=os.path.dirname(j25) + ":" + os.environ["PATH"])
    subprocess.run([gs, "queue", "--socket", sock], env=env25, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # trains
    variants["launcher-j25"] = ["env", "PATH=" + env25["PATH"], gs] + q
if a.base:
    gsb = os.path.join(a.base, "bin", "gpusched")
    subprocess.run([gsb] + q, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # trains its archive
    variants["launcher-base"] = [gsb] + q
if a.only:
    variants = {k: v for k, v in variants.items() if k in a.only.split(",")}
wall = {k: [] for k in variants}
cpu = {k: [] for k in variants}
for r in range(max(a.runs, 1)):
    for k, cmd in variants.items():
        b = os.times()
        t = time.perf_counter()
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wall[k].append((time.perf_counter() - t) * 1000)
        e = os.times()
        cpu[k].append(((e.children_user - b.children_user) + (e.children_system - b.children_system)) * 1000)
        if p.returncode != 0:
            print(f"{k} failed: {p.stderr.decode()[-300:]}", file=sys.stderr)
os.killpg(daemon.pid, signal.SIGTERM)
daemon.wait()
shutil.rmtree(work, ignore_errors=True)
print(f"| variant ({a.runs} rounds, interleaved; median [min–max]) | wall ms | CPU ms |")
print("|---|---|---|")
for k in variants:
    w, c = wall[k], cpu[k]
    print(f"| {k} | {statistics.median(w):.0f} [{min(w):.0f}–{max(w):.0f}] | {statistics.median(c):.0f} [{min(c):.0f}–{max(c):.0f}] |")
