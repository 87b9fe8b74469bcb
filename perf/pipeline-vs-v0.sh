#!/bin/bash
# pipeline-vs-v0.sh - issue 13's targets against the code before it, alternately in one sitting: a build of REF
# (default 2cb5d5e, the last commit before issue 13) in a git worktree of its own, and this checkout, each run by its
# own launcher (tools/jvs, JVS_SKIP_BUILD=1), because on a shared machine only a ratio measured in one run means
# something.
#
#   new connections   bench pipeline --mode nat --scheduler wlc --new-flows --flows 4000000, on one core;
#                     REF gets today's JVM options and compile commands (tools/jvm/jvs.options, hot-path.compile),
#                     as it had none of its own: the ratio is the code's (V0_OPTIONS=own: REF as it shipped)
#   farm replay       replay of synth farm traffic (--packets FARM_PACKETS --services 2 --servers-per-service 4
#                     --clients 100000), its "rate" line (frames a second from the first record to the last)
#   capture wall time the wall time of `tools/jvs replay` of a CAPTURE_PACKETS capture of the same farm, from the
#                     launcher's start to its exit (JVM start and JIT warm-up included); one untimed replay of it
#                     by each build first, so each has its start-up cache or class-data archive from a replay
#
# Usage (from anywhere, after a build): perf/pipeline-vs-v0.sh [REF]
# Environment: REPS (3: runs of each, alternating), SECONDS_EACH (4), CPU (1: the core the benchmark runs on),
#              FARM_PACKETS (10000000), CAPTURE_PACKETS (1000000), WORK (a scratch directory; the default, a new
#              one under TMPDIR, is removed at the end; the captures take about 4 GB), TOGETHER (1: new connections
#              measured with both builds at once on the core, below), V0_OPTIONS (today, the default: REF's new
#              connections with today's JVM options and compile commands; own: with its launcher's own, none, as a
#              user of that commit ran it; the options are part of what this issue changed, so "own" credits them to
#              this checkout and "today" to neither).
# TOGETHER=1: where the host's cores slow down by phases, runs one after another see different phases and the new
# connections' ratio moves by a tenth between sittings. Each rep then runs both builds' benchmarks at the same time on
# core CPU, which it shares between them in slices of milliseconds, and takes each one's CPU time a connection
# (bench pipeline's cpu-ns/packet) instead of its wall time. Their 256 MB tables share the last-level cache, so the
# figures are the pair's, not one build's alone. The farm and the capture stay alternating (each uses two threads).
# Prints every run, then the medians and the ratios (above 1: this checkout is faster; with TOGETHER=1 the new
# connections' ratio is the median of the reps' ratios). Exit status 2 when a tool is missing or a step fails, with
# what to do.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
REF="${1:-2cb5d5e}"
REPS="${REPS:-3}"; SECONDS_EACH="${SECONDS_EACH:-4}"; CPU="${CPU:-1}"
FARM_PACKETS="${FARM_PACKETS:-10000000}"; CAPTURE_PACKETS="${CAPTURE_PACKETS:-1000000}"; TOGETHER="${TOGETHER:-0}"
V0_OPTIONS="${V0_OPTIONS:-today}"

die() { echo "pipeline-vs-v0: $*" >&2; exit 2; }
command -v taskset >/dev/null || die "taskset is missing: apt-get install util-linux"
command -v mvn >/dev/null || die "Maven is missing: apt-get install maven"
for n in "$REPS" "$SECONDS_EACH" "$FARM_PACKETS" "$CAPTURE_PACKETS"; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || die "REPS, SECONDS_EACH, FARM_PACKETS and CAPTURE_PACKETS must be positive integers"
done
[[ $TOGETHER == 0 || $TOGETHER == 1 ]] || die "TOGETHER must be 0 or 1"
[[ $V0_OPTIONS == today || $V0_OPTIONS == own ]] || die "V0_OPTIONS must be today or own, not '$V0_OPTIONS'"
git -C "$ROOT" rev-parse -q --verify "$REF^{commit}" >/dev/null || die "no commit '$REF' in $ROOT"
# Build this checkout first (the launcher does when sources changed), and learn its JDK for REF's build.
"$ROOT/tools/jvs" bench pipeline --help >/dev/null || die "tools/jvs did not build or start"
JAVA_HOME="$("$ROOT/tools/jvs" --java-home)" || die "no JDK: see tools/jvs --java-home"
export JAVA_HOME

OWN_WORK=0
if [[ -z ${WORK:-} ]]; then
    WORK="$(mktemp -d)"; OWN_WORK=1
fi
V0="$WORK/v0"
cleanup() {
    git -C "$ROOT" worktree remove --force "$V0" >/dev/null 2>&1 || rm -rf "$V0"
    git -C "$ROOT" worktree prune >/dev/null 2>&1 || true
    if ((OWN_WORK)); then rm -rf "$WORK"; else rm -f "$WORK"/farm.* "$WORK"/capture.* "$WORK"/together.v0; fi
}
trap cleanup EXIT
git -C "$ROOT" worktree add --detach -f "$V0" "$REF" >/dev/null 2>&1 || die "git worktree add $V0 $REF failed"
# package, not install: REF's modules have this checkout's version, and must not replace its jars in ~/.m2.
(cd "$V0" && mvn -B -q -DskipTests -DskipITs -pl tools -am package) >"$WORK/v0-build.log" 2>&1 ||
    { cat "$WORK/v0-build.log" >&2; die "$REF did not build (mvn package in $V0); output above"; }

export JVS_SKIP_BUILD=1
"$ROOT/tools/jvs" synth --packets "$FARM_PACKETS" --services 2 --servers-per-service 4 --clients 100000 \
    --out "$WORK/farm.pcap" --rules-out "$WORK/farm.rules" >/dev/null 2>&1 || die "synth of the farm trace failed"
"$ROOT/tools/jvs" synth --packets "$CAPTURE_PACKETS" --services 2 --servers-per-service 4 --clients 100000 \
    --out "$WORK/capture.pcap" --rules-out "$WORK/capture.rules" >/dev/null 2>&1 || die "synth of the capture failed"
for build in "$V0" "$ROOT"; do
    "$build/tools/jvs" replay --rules "$WORK/capture.rules" --in "$WORK/capture.pcap" >/dev/null 2>&1 ||
        die "$build: the first replay failed"
done

median() { sort -g | awk '{v[NR]=$1} END {if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }
# $2: the figure taken, ns/packet (wall time) or cpu-ns/packet.
new_connections() {
    local opts=()
    [[ $1 == "$V0" && $V0_OPTIONS == today ]] &&
        opts=(env JVS_JAVA_OPTS="@$ROOT/tools/jvm/jvs.options -XX:CompileCommandFile=$ROOT/tools/jvm/hot-path.compile")
    "${opts[@]}" taskset -c "$CPU" "$1/tools/jvs" bench pipeline --mode nat --scheduler wlc --new-flows \
        --flows 4000000 --seconds "$SECONDS_EACH" 2>/dev/null | grep -oE "(^| )${2:-ns/packet}=[0-9.]+" | head -1 |
        cut -d= -f2
}
# Both builds' new connections at once on the core (TOGETHER=1): prints v0's CPU ns a connection, then this one's.
new_connections_together() {
    local v0_value now_value pid
    new_connections "$V0" cpu-ns/packet >"$WORK/together.v0" &
    pid=$!
    now_value="$(new_connections "$ROOT" cpu-ns/packet)" || now_value=""
    wait "$pid" || true
    v0_value="$(cat "$WORK/together.v0")"
    [[ -n $v0_value && -n $now_value ]] || return 1
    echo "$v0_value $now_value"
}
# The host's memory balloon gives back the guest's page cache within minutes (a 3.5 GB trace loses a fifth of its
# cached pages a minute here), and a replay that reads part of its trace from the disk ran 2.5 times as long: each
# replay's file is read into the cache first, outside what is timed, so that neither build pays the disk.
cached() { cat "$1" >/dev/null; }
farm_rate() {
    cached "$WORK/farm.pcap"
    "$1/tools/jvs" replay --rules "$WORK/farm.rules" --in "$WORK/farm.pcap" 2>/dev/null |
        grep -oE '^rate: .* = [0-9.]+ M frames/s' | grep -oE '[0-9.]+ M frames/s' | cut -d' ' -f1
}
capture_wall() {
    local started ended
    cached "$WORK/capture.pcap"
    started="$(date +%s.%N)"
    "$1/tools/jvs" replay --rules "$WORK/capture.rules" --in "$WORK/capture.pcap" >/dev/null 2>&1 || return 1
    ended="$(date +%s.%N)"
    awk -v a="$started" -v b="$ended" 'BEGIN {printf "%.3f", b - a}'
}

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -r) $(nproc) CPUs; $REF against $(git -C "$ROOT" rev-parse --short HEAD)$(
    [[ -z $(git -C "$ROOT" status --porcelain) ]] || echo ' (with changes)'); $REPS runs of each, alternating$(
    ((TOGETHER)) && echo "; new connections both at once on core $CPU, CPU ns"); $REF's new connections with $(
    [[ $V0_OPTIONS == today ]] && echo "today's JVM options" || echo "its own JVM options")"
declare -A RESULT
for measure in new_connections farm_rate capture_wall; do
    if [[ $measure == new_connections && $TOGETHER == 1 ]]; then
        for rep in $(seq "$REPS"); do
            pair="$(new_connections_together)" || die "new_connections (together) printed no figure"
            read -r v0_value now_value <<<"$pair"
            echo "$measure v0 rep=$rep $v0_value"
            echo "$measure now rep=$rep $now_value"
            RESULT[$measure.v0]+=" $v0_value"
            RESULT[$measure.now]+=" $now_value"
            RESULT[$measure.ratio]+=" $(awk -v a="$v0_value" -v b="$now_value" 'BEGIN {printf "%.3f", a / b}')"
        done
        continue
    fi
    for rep in $(seq "$REPS"); do
        for build in "$V0" "$ROOT"; do
            name=now; [[ $build == "$V0" ]] && name=v0
            value="$("$measure" "$build")" || die "$name: $measure failed"
            [[ -n $value ]] || die "$name: $measure printed no figure"
            echo "$measure $name rep=$rep $value"
            RESULT[$measure.$name]+=" $value"
        done
    done
done
echo "# medians, and the ratio (above 1: this checkout is faster)"
for measure in new_connections farm_rate capture_wall; do
    v0="$(tr ' ' '\n' <<<"${RESULT[$measure.v0]}" | grep . | median)"
    now="$(tr ' ' '\n' <<<"${RESULT[$measure.now]}" | grep . | median)"
    case $measure in
        new_connections) unit="ns a connection"; ratio="$(awk -v a="$v0" -v b="$now" 'BEGIN {printf "%.2f", a / b}')"
            if ((TOGETHER)); then
                # Each rep's two figures are a pair: the median of the reps' ratios, as perf/pipeline-vs-c.sh's.
                unit="CPU ns a connection, both at once"
                ratio="$(tr ' ' '\n' <<<"${RESULT[$measure.ratio]}" | grep . | median | awk '{printf "%.2f", $1}')"
                ratio+=" (the reps' ratios:${RESULT[$measure.ratio]})"
            fi ;;
        farm_rate) unit="M frames/s"; ratio="$(awk -v a="$v0" -v b="$now" 'BEGIN {printf "%.2f", b / a}')" ;;
        capture_wall) unit="s"; ratio="$(awk -v a="$v0" -v b="$now" 'BEGIN {printf "%.2f", a / b}')" ;;
    esac
    echo "$measure v0=$v0 now=$now ($unit) ratio=$ratio"
done
