#!/usr/bin/env python3
"""The shape of a built checkout, for issue #24's before/after: per module, its packages and the
gpusched packages each one uses (jdeps -verbose:package on target/classes), the package cycles
(strongly connected components of that graph), the largest main classes by source lines, the
constructors with the most parameters (javap), and how many sibling classes the engine's top class
refers to. Not a benchmark: it reads bytecode and sources, and prints the same for the same commit.

Usage: python3 bench/architecture.py [CHECKOUT ...]   (each built: mvn -DskipTests package)
       --top N (default 12) for the class and constructor lists.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

MODULES = ["gpusched-core", "gpusched-nvml", "gpusched-testkit", "gpusched-slurm", "gpusched-cli"]


def jar(pattern):
    hits = sorted(glob.glob(os.path.expanduser("~/.m2/repository/" + pattern), recursive=True))
    hits = [h for h in hits if "sources" not in h and "javadoc" not in h]
    return hits[-1] if hits else None


def package_graph(classes, cp):
    """package -> set of io.gpusched packages it uses (its own excluded). The classes are read as a
    plain directory (module-info left out), so a checkout with modules and one without compare alike."""
    with tempfile.TemporaryDirectory() as flat:
        shutil.copytree(classes, flat, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("module-info.class", "META-INF"))
        out = subprocess.run(["jdeps", "--multi-release", "17", "-cp", cp, "-verbose:package", flat],
                             capture_output=True, text=True).stdout
    graph = {}
    for line in out.splitlines():
        m = re.match(r"\s+(io\.gpusched[\w.]*)\s+->\s+(\S+)", line)
        if not m:
            continue
        src, dst = m.group(1), m.group(2)
        graph.setdefault(src, set())
        if dst.startswith("io.gpusched") and dst != src:
            graph[src].add(dst)
    return graph


def cycles(graph):
    """Strongly connected components of more than one package (Tarjan, iterative enough for ~40)."""
    index, low, stack, on, comps, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in graph:
                continue
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return comps


def largest_classes(root, top):
    sizes = []
    for m in MODULES:
        for f in glob.glob(f"{root}/{m}/src/main/java/**/*.java", recursive=True):
            with open(f, encoding="utf-8") as fh:
                sizes.append((sum(1 for _ in fh), os.path.relpath(f, root)))
    sizes.sort(reverse=True)
    return sizes[:top], len(sizes), sum(s for s, _ in sizes)


def params(sig):
    inner = sig[sig.index("(") + 1: sig.rindex(")")]
    while "<" in inner:
        inner = re.sub(r"<[^<>]*>", "", inner)
    inner = inner.strip()
    return 0 if not inner else inner.count(",") + 1


def widest_constructors(root, top):
    found = []
    for m in MODULES:
        classes = f"{root}/{m}/target/classes"
        files = [f for f in glob.glob(f"{classes}/**/*.class", recursive=True)
                 if not f.endswith("module-info.class") and not f.endswith("package-info.class")]
        for i in range(0, len(files), 400):
            out = subprocess.run(["javap", "-p"] + files[i:i + 400], capture_output=True, text=True).stdout
            cls, kind = None, ""
            for line in out.splitlines():
                c = re.match(r"(?:[\w ]*?)(?:class|interface|enum|record) ([\w.$]+)", line)
                if c and not line.startswith(" "):
                    cls = c.group(1)
                    kind = "record" if "extends java.lang.Record" in line else "class"
                    continue
                if cls and "(" in line and re.search(r"\b" + re.escape(cls.split(".")[-1].split("$")[-1]) + r"\(", line):
                    found.append((params(line), cls, kind))
    widest = {}
    for n, c, k in found:  # the widest constructor of each class
        widest[c] = max(widest.get(c, (0, c, k)), (n, c, k))
    found = sorted(widest.values(), reverse=True)
    # A record's canonical constructor is its list of fields; a class's is its wiring: listed apart.
    return [f for f in found if f[2] == "class"][:top], [f for f in found if f[2] == "record"][:top]


def engine_siblings(root):
    eng = f"{root}/gpusched-core/target/classes/io/gpusched/engine/Engine.class"
    if not os.path.exists(eng):
        return None
    out = subprocess.run(["jdeps", "-verbose:class", "-filter:none", "-cp", f"{root}/gpusched-core/target/classes", eng],
                         capture_output=True, text=True).stdout
    used = {m.group(1) for m in re.finditer(r"->\s+(io\.gpusched\.engine\.[\w.$]+)", out)}
    used = {u.split("$")[0] for u in used if not u.startswith("io.gpusched.engine.Engine")}
    every = {os.path.relpath(f, f"{root}/gpusched-core/target/classes").replace("/", ".")[:-6].split("$")[0]
             for f in glob.glob(f"{root}/gpusched-core/target/classes/io/gpusched/engine/**/*.class", recursive=True)}
    every.discard("io.gpusched.engine.Engine")
    return len(used), len(every)


def report(root, top):
    root = os.path.abspath(root)
    rev = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"## {root} at {rev or 'unknown'}\n")
    libs = [j for j in (jar("**/jackson-core-*.jar"), jar("**/jna-5*.jar"), jar("**/picocli-*.jar"),
                        jar("**/junit-jupiter-api-*.jar"), jar("**/apiguardian-api-*.jar")) if j]
    cp = ":".join(libs + [f"{root}/{m}/target/classes" for m in MODULES])
    for m in MODULES:
        classes = f"{root}/{m}/target/classes"
        if not os.path.isdir(classes):
            continue
        g = package_graph(classes, cp)
        cyc = cycles({p: {d for d in ds if d in g} for p, ds in g.items()})
        print(f"### {m}: {len(g)} packages, {len(cyc)} cycle(s)")
        for c in cyc:
            print("  cycle: " + " <-> ".join(c))
        for p in sorted(g):
            short = lambda q: q.replace("io.gpusched.", "") if q != "io.gpusched" else "io.gpusched"
            print(f"  {short(p):28s} uses: {' '.join(sorted(short(d) for d in g[p])) or '-'}")
        print()
    biggest, n, total = largest_classes(root, top)
    print(f"### largest main source files ({n} files, {total} lines)")
    for s, f in biggest:
        print(f"  {s:5d}  {f}")
    classes, records = widest_constructors(root, top)
    print(f"\n### classes' constructors with the most parameters")
    for p, c, _ in classes:
        print(f"  {p:3d}  {c}")
    print(f"\n### records' constructors with the most parameters (fields)")
    for p, c, _ in records:
        print(f"  {p:3d}  {c}")
    sib = engine_siblings(root)
    if sib:
        print(f"\n### engine.Engine refers to {sib[0]} of the engine's {sib[1]} other top-level classes")
    print()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("roots", nargs="*", default=["."])
    ap.add_argument("--top", type=int, default=12)
    a = ap.parse_args()
    for r in a.roots:
        report(r, a.top)


if __name__ == "__main__":
    main()
