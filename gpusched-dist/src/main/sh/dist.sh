#!/bin/sh
# Builds gpusched-VERSION-linux-x86_64.tar.gz and gpusched_DEBVERSION_amd64.deb from the bundled jar: the
# package phase of gpusched-dist (see its pom.xml). The man page, the completions and the example
# configuration are generated from the CLI's picocli specs and help texts by io.gpusched.cli.DistDocs. Without dpkg-deb
# (not a Debian-family machine) the .deb is left out, and said so.
# usage: dist.sh VERSION JAVA JAR REPO OUT
set -eu
version=$1 java=$2 jar=$3 repo=$4 out=$5
here=$repo/gpusched-dist/src/main
name=gpusched-$version-linux-x86_64
# Debian orders ~ before anything, so 0.1.0~snapshot comes before the release 0.1.0.
debversion=$(printf '%s' "$version" | sed 's/-SNAPSHOT$/~snapshot/; s/-/~/g')
# Reproducible archives: every file dated the last commit (or 2000-01-01 outside git), owned by root.
epoch=${SOURCE_DATE_EPOCH:-$(git -C "$repo" log -1 --format=%ct 2>/dev/null || echo 946684800)}

rm -rf "$out/generated" "$out/stage" "$out/$name.tar.gz" "$out"/gpusched_*.deb
"$java" -cp "$jar" io.gpusched.cli.DistDocs "$out/generated" "$version"
gen=$out/generated
gzip -9n <"$gen/gpusched.1" >"$gen/gpusched.1.gz"

# The C helpers, out of the jar: gpusched queue's native client is installed beside the jar (the launcher
# runs it), and all of them set the .deb's libc floor below.
mkdir -p "$out/stage/native"
(cd "$out/stage/native" && "$(dirname "$java")/jar" xf "$jar" io/gpusched/engine/spawn/gpusched-spawnd \
    io/gpusched/engine/spawn/gpusched-runas io/gpusched/testkit/sim/simjob io/gpusched/cli/gpusched-queue)
queue_client=$out/stage/native/io/gpusched/cli/gpusched-queue

# stage DIR BIN LIB MAN BASHCOMP ZSHCOMP SYSTEMUNIT USERUNIT ETC DOC: one installation's files under DIR
stage() {
    d=$1
    install -D -m 0755 "$here/dist/gpusched" "$d/$2/gpusched"
    install -D -m 0644 "$jar" "$d/$3/gpusched/gpusched.jar"
    install -D -m 0755 "$queue_client" "$d/$3/gpusched/gpusched-queue"
    install -D -m 0644 "$gen/gpusched.1.gz" "$d/$4/man1/gpusched.1.gz"
    install -D -m 0644 "$gen/gpusched.bash" "$d/$5/gpusched"
    install -D -m 0644 "$gen/_gpusched" "$d/$6/_gpusched"
    install -D -m 0644 "$here/systemd/gpusched.service" "$d/$7/gpusched.service"
    install -D -m 0644 "$here/systemd/user/gpusched.service" "$d/$8/gpusched.service"
    install -D -m 0644 "$gen/gpusched.conf" "$d/$9/gpusched/gpusched.conf"
    shift 9
    install -D -m 0644 "$repo/examples/demo.txt" "$d/$1/examples/demo.txt"
}

# The tarball: a prefix of its own (bin/, lib/, share/, etc/), README and LICENSE on top.
t=$out/stage/$name
stage "$t" bin lib share/man share/bash-completion/completions share/zsh/site-functions lib/systemd/system \
    lib/systemd/user etc .
install -D -m 0644 "$gen/gpusched.fish" "$t/share/fish/vendor_completions.d/gpusched.fish"
install -m 0644 "$repo/README.md" "$repo/LICENSE" "$t/"
(cd "$out/stage" && tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner -cf - "$name") \
    | gzip -9n >"$out/$name.tar.gz"
echo "gpusched-dist: $out/$name.tar.gz"

if ! command -v dpkg-deb >/dev/null 2>&1; then
    echo "gpusched-dist: dpkg-deb not found (not a Debian-family system): gpusched_${debversion}_amd64.deb not built"
    exit 0
fi
d=$out/stage/deb
stage "$d" usr/bin usr/lib usr/share/man usr/share/bash-completion/completions usr/share/zsh/vendor-completions \
    lib/systemd/system usr/lib/systemd/user etc usr/share/doc/gpusched
install -D -m 0644 "$gen/gpusched.fish" "$d/usr/share/fish/vendor_completions.d/gpusched.fish"
install -D -m 0644 "$repo/LICENSE" "$d/usr/share/doc/gpusched/copyright"
mkdir -p "$d/DEBIAN"
for s in postinst prerm postrm; do install -m 0755 "$here/debian/$s" "$d/DEBIAN/$s"; done
echo /etc/gpusched/gpusched.conf >"$d/DEBIAN/conffiles"
# The C helpers (taken out of the jar above) link against glibc: the newest symbol version they use is the floor.
libc=$(find "$out/stage/native" -type f -exec cat {} + | grep -ao 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV \
    | tail -n 1)
size=$(du -sk --exclude=DEBIAN "$d" | cut -f1)
sed -e "s/@VERSION@/$debversion/" -e "s/@SIZE@/$size/" -e "s/@LIBC@/libc6 (>= ${libc:-2.17})/" \
    "$here/debian/control" >"$d/DEBIAN/control"
find "$d" -exec touch -h -d "@$epoch" {} +
SOURCE_DATE_EPOCH=$epoch dpkg-deb --root-owner-group -Zxz --build "$d" "$out/gpusched_${debversion}_amd64.deb" >/dev/null
echo "gpusched-dist: $out/gpusched_${debversion}_amd64.deb"
