#!/bin/bash
# ab-same-core.sh - compares two builds of jvs on `bench pipeline` by running them at once on one core, round after
# round, and printing each one's CPU time a packet and the ratio. On a shared host whose cores slow down by phases
# (this one's run at half speed for seconds to minutes, one vCPU at a time), two runs one after the other often see
# different phases, and a 2 % change drowns in a 2x swing. Two processes on one core share it in slices of a few
# milliseconds, so they see the same phases; each one's rate is taken from its own CPU time (bench pipeline's
# cpu-ns/packet), which sharing does not change. What sharing does change: each slice starts with the other's lines
# in the core's caches, the same for both (a 1 000-flow run's tables fit in L2 beside the other's; at a million
# flows the two tables compete for the last-level cache, so the figures there are the pair's, not one run's alone).
# Two copies of one build gave a median of 1.002 over seven rounds here, most rounds within 1 % and some 5-7 % apart
# (the two JVMs' JIT compiling differently), hence several rounds and their median.
#
# Usage (after a build): perf/ab-same-core.sh A.jar B.jar [bench pipeline options]
#   e.g. perf/ab-same-core.sh /tmp/before.jar tools/target/jvs.jar --mode nat --scheduler wlc --flows 1000
# A jar is tools/target/jvs.jar of a build (copy it aside before rebuilding).
# Environment: ROUNDS (6), SECONDS_EACH (8), CPU (1: the core both share).
# Prints one line a round ("round N a=... b=... b/a=...", CPU ns a packet) and the median of b/a: below 1, B is
# faster. Exit status 2 when a jar or the JDK is missing or a run fails.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
ROUNDS="${ROUNDS:-6}"; SECONDS_EACH="${SECONDS_EACH:-8}"; CPU="${CPU:-1}"

die() { echo "ab-same-core: $*" >&2; exit 2; }
[ $# -ge 2 ] || die "usage: perf/ab-same-core.sh A.jar B.jar [bench pipeline options]"
JAR_A="$1"; JAR_B="$2"; shift 2
for jar in "$JAR_A" "$JAR_B"; do [ -f "$jar" ] || die "no $jar (build with 'mvn -B -DskipTests -DskipITs install')"; done
command -v taskset >/dev/null || die "taskset is missing: apt-get install util-linux"
JAVA="$("$ROOT/tools/jvs" --java-home)/bin/java" || die "no JDK: see tools/jvs --java-home"
# The launcher's flags for bench: its JVM options (tools/jvm/jvs.options) and compile commands
# (tools/jvm/hot-path.compile).
OPTIONS="@$ROOT/tools/jvm/jvs.options"
COMPILE="-XX:CompileCommandFile=$ROOT/tools/jvm/hot-path.compile"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cpu_ns() {
    taskset -c "$CPU" "$JAVA" "$OPTIONS" "$COMPILE" -jar "$1" bench pipeline --seconds "$SECONDS_EACH" "${@:2}" \
        2>/dev/null | tail -1 | grep -oE 'cpu-ns/packet=[0-9.]+' | cut -d= -f2
}

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -r), core $CPU shared by both; $ROUNDS rounds of ${SECONDS_EACH}s"
echo "# a: $JAR_A  b: $JAR_B  bench pipeline $*"
for round in $(seq "$ROUNDS"); do
    cpu_ns "$JAR_A" "$@" >"$WORK/a" &
    cpu_ns "$JAR_B" "$@" >"$WORK/b" || die "a run of $JAR_B failed"
    wait $! || die "a run of $JAR_A failed"
    a="$(cat "$WORK/a")"; b="$(cat "$WORK/b")"
    [[ -n $a && -n $b ]] || die "a run gave no cpu-ns/packet"
    echo "round $round a=$a b=$b b/a=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", b / a}')" | tee -a "$WORK/rounds"
done
awk -F'b/a=' '{print $2}' "$WORK/rounds" | sort -g |
    awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; printf "median b/a=%.3f\n", m}'
