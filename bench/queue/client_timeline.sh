#!/usr/bin/env bash
# Where one `gpusched queue`'s wall time goes, from its class loading (-Xlog:class+load with uptime): the JVM's
# uptime in ms when each phase's first class loaded: Main (JVM start), ClientOptions..Parsed (reading the command
# line), Codec (Jackson), Socket (connect), Hello (the first request), Rows1 (the first line of rows: an old
# client), QText (the daemon's text head: a new one), Shown (printing from rows), last (the last class). Issue #27.
# Usage: bench/queue/client_timeline.sh JAR SOCK [queue options...]
jar=$1; sock=$2; shift 2
. "$(dirname "$0")/../jvm_flags.sh" || exit 2 # bin/gpusched's JVM flags, into jvm_flags
opts="${jvm_flags[*]}"
log=$(mktemp); t0=$(date +%s%N)
java $opts -Xlog:class+load:file=$log:uptime -cp "$jar" io.gpusched.cli.Main queue --socket "$sock" "$@" > /dev/null
t1=$(date +%s%N)
f() { grep -m1 -F " $1 " "$log" | sed 's/^\[\([0-9.]*\)s\].*/\1/' | awk '{printf "%4.0f", $1*1000}'; }
last=$(tail -1 "$log" | sed 's/^\[\([0-9.]*\)s\].*/\1/' | awk '{printf "%4.0f", $1*1000}')
echo "wall $(( (t1-t0)/1000000 )) | Main $(f io.gpusched.cli.Main) ClientOptions $(f io.gpusched.cli.ClientOptions) Parsed $(f 'io.gpusched.cli.ClientOptions$Parsed') Codec $(f io.gpusched.protocol.ProtocolCodec) Socket $(f java.nio.channels.SocketChannel) Hello $(f 'io.gpusched.protocol.Request$Hello') Rows1 $(f "io.gpusched.protocol.Answer\$Rows") QText $(f "io.gpusched.protocol.Answer\$QueueText") Shown $(f 'io.gpusched.cli.QueueView$Shown') last $last"
rm -f "$log"
