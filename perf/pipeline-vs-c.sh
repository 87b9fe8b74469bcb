#!/bin/bash
# pipeline-vs-c.sh - issue 13's measure: jvs's pipeline (`tools/jvs bench pipeline`, default settings) against the
# hand-written C twin of its established-NAT work (../shared/bench/natpipe), alternately on one core in one run,
# because on a shared machine only a ratio measured in one sitting means something. Between the two runs the C's
# work written in Java and nothing more (perf's NatpipeTwin: no classification, histogram, sweep or descriptors),
# so that jvs's distance from the C splits into the language's part (twin / c) and that of jvs's own extra stages
# (jvs / twin).
#
# Usage (from anywhere, after a build): perf/pipeline-vs-c.sh [FLOWS...]      (default: 1000000 1000)
# Environment: REPS (3: runs of each, alternating), SECONDS_EACH (10), CPU (1: the core both run on),
#              MODE (nat), SCHEDULER (wlc), NATPIPE_DIR (../shared/bench/natpipe), JVS_EXTRA (more options for
#              bench pipeline, e.g. --new-flows: then the ratio compares different work),
#              TOGETHER (1: each rep runs the C and bench pipeline at once on the core instead, see below).
# Prints every run ("c", "twin" and "jvs" lines with Mpps and ns/packet), then per flow count the medians and the
# ratios jvs/c, twin/c and jvs/twin (Mpps). Exit status 2 when a tool is missing or a run fails, with what to do.
#
# TOGETHER=1: where the host's cores slow down by phases (half speed for seconds to minutes, one vCPU at a time),
# runs one after the other see different phases, and a ratio of medians swings with them. Then each rep starts the
# C and bench pipeline at once on the core, where they share it in slices of milliseconds and so see the same
# phases, and compares their rates in CPU time: jvs's cpu-ns/packet (its own measure, over its measured seconds)
# and the C's CPU time less its set-up (a run of no seconds, timed alone first) over its packets. The C runs 4 s
# longer than jvs measures, so that it covers jvs's start and warm-up as well. No Java twin in this mode (its CPU
# time would include its JIT's). Both share the core's caches slice by slice, the same for both. A rep whose C
# set-up takes over a quarter of its CPU time (10 M flows here) prints a warning: its figure is not to be used.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
NATPIPE_DIR="${NATPIPE_DIR:-$ROOT/../shared/bench/natpipe}"
REPS="${REPS:-3}"; SECONDS_EACH="${SECONDS_EACH:-10}"; CPU="${CPU:-1}"; TOGETHER="${TOGETHER:-0}"
MODE="${MODE:-nat}"; SCHEDULER="${SCHEDULER:-wlc}"
FLOWS=("$@"); [ ${#FLOWS[@]} -gt 0 ] || FLOWS=(1000000 1000)

die() { echo "pipeline-vs-c: $*" >&2; exit 2; }
[ -f "$NATPIPE_DIR/natpipe.c" ] || die "no $NATPIPE_DIR/natpipe.c (set NATPIPE_DIR to the natpipe directory)"
command -v gcc >/dev/null || die "gcc is missing: apt-get install gcc libc6-dev"
command -v taskset >/dev/null || die "taskset is missing: apt-get install util-linux"
for f in "${FLOWS[@]}"; do [[ $f =~ ^[1-9][0-9]*$ ]] || die "flows must be positive integers, not '$f'"; done

BUILD="$(mktemp -d)"
trap 'rm -rf "$BUILD"' EXIT
# The README's command, into a scratch directory (the shared one is not ours to write).
(cd "$BUILD" && gcc -O2 -march=native -o natpipe "$NATPIPE_DIR/natpipe.c") || die "natpipe did not build"
# Build jvs once up front, so that no run pays for it.
"$ROOT/tools/jvs" bench pipeline --help >/dev/null || die "tools/jvs did not build or start"
JAVA="$("$ROOT/tools/jvs" --java-home)/bin/java" || die "no JDK: see tools/jvs --java-home"
BENCH_JAR="$ROOT/perf/target/benchmarks.jar"
[ -f "$BENCH_JAR" ] || die "no $BENCH_JAR: build with 'mvn -B -DskipTests -DskipITs install'"

median() { sort -g | awk '{v[NR]=$1} END {if (NR % 2) print v[(NR+1)/2]; else print (v[NR/2]+v[NR/2+1])/2}'; }

# Seconds of CPU (user and system) and of wall time a command took, as "cpu wall"; its output goes to $1.
cpu_and_wall() {
    local out="$1" TIMEFORMAT='%U %S %R' times
    shift
    times="$( { time "$@" >"$out" 2>/dev/null; } 2>&1 )" || return 1
    awk '{printf "%.3f %.3f", $1 + $2, $3}' <<<"$times"
}

if [[ $TOGETHER == 1 ]]; then
    echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -r) $(nproc) CPUs, core $CPU shared by both at once;" \
        "$REPS x ${SECONDS_EACH}s, rates in CPU time"
    echo "# jvs: tools/jvs bench pipeline --mode $MODE --scheduler $SCHEDULER ${JVS_EXTRA:-}(defaults otherwise)"
    for flows in "${FLOWS[@]}"; do
        # The C's set-up (its table filled), timed alone: taken off its CPU time below.
        setup="$(cpu_and_wall "$BUILD/setup.out" taskset -c "$CPU" "$BUILD/natpipe" "$flows" 0)" ||
            die "natpipe failed"
        setup_cpu="${setup% *}"
        ratios=""
        for rep in $(seq "$REPS"); do
            cpu_and_wall "$BUILD/c.out" taskset -c "$CPU" "$BUILD/natpipe" "$flows" "$((SECONDS_EACH + 4))" \
                >"$BUILD/c.times" &
            c_job=$!
            # shellcheck disable=SC2086
            line="$(taskset -c "$CPU" "$ROOT/tools/jvs" bench pipeline --mode "$MODE" --scheduler "$SCHEDULER" \
                --flows "$flows" --seconds "$SECONDS_EACH" ${JVS_EXTRA:-} 2>/dev/null | tail -1)" ||
                die "bench failed"
            wait "$c_job" || die "natpipe failed"
            c_line="$(cat "$BUILD/c.out")"
            c_mpps="$(grep -oE 'Mpps=[0-9.]+' <<<"$c_line" | cut -d= -f2)"
            c_cpu="$(cut -d' ' -f1 "$BUILD/c.times")"
            # The C's packets (its rate over its loop's seconds) against its loop's CPU time.
            c_ns="$(awk -v cpu="$c_cpu" -v setup="$setup_cpu" -v mpps="$c_mpps" -v s="$((SECONDS_EACH + 4))" \
                'BEGIN {printf "%.1f", (cpu - setup) * 1e3 / (mpps * s)}')"
            j_ns="$(grep -oE 'cpu-ns/packet=[0-9.]+' <<<"$line" | cut -d= -f2)"
            [[ -n $c_ns && -n $j_ns ]] || die "a run gave no rate"
            ratio="$(awk -v c="$c_ns" -v j="$j_ns" 'BEGIN {printf "%.3f", c / j}')"
            c_wall="$(grep -oE 'ns/packet=[0-9.]+' <<<"$c_line" | cut -d= -f2)"
            echo "together flows=$flows rep=$rep c cpu-ns/packet=$c_ns (wall $c_wall) jvs" \
                "cpu-ns/packet=$j_ns ratio=$ratio"
            # The set-up timed alone is taken off a run's CPU time: where it is a large share of that (a big table on
            # a host whose first touches of memory cost more one time than the next), the subtraction can be off by
            # as much as the set-up moves between runs, and the C's figure with it.
            if awk -v cpu="$c_cpu" -v setup="$setup_cpu" 'BEGIN {exit !(setup > cpu / 4)}'; then
                echo "# warning: the C's set-up took ${setup_cpu}s of this run's ${c_cpu}s of CPU: its figure is" \
                    "unreliable here; use the alternating mode (without TOGETHER) for these flows"
            fi
            ratios+=" $ratio"
        done
        echo "flows=$flows ratio jvs/c in CPU time, median of the reps=$(tr ' ' '\n' <<<"$ratios" | grep . |
            median)"
    done
    exit 0
fi

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -r) $(nproc) CPUs, core $CPU; $REPS x ${SECONDS_EACH}s each, alternating"
echo "# jvs: tools/jvs bench pipeline --mode $MODE --scheduler $SCHEDULER ${JVS_EXTRA:-}(defaults otherwise)"
declare -A C_MPPS TWIN_MPPS JVS_MPPS
for flows in "${FLOWS[@]}"; do
    C_MPPS[$flows]=""; TWIN_MPPS[$flows]=""; JVS_MPPS[$flows]=""
    for rep in $(seq "$REPS"); do
        line="$(taskset -c "$CPU" "$BUILD/natpipe" "$flows" "$SECONDS_EACH")" || die "natpipe failed"
        echo "c    flows=$flows rep=$rep ${line#c-natpipe flows=$flows }"
        C_MPPS[$flows]+=" $(grep -oE 'Mpps=[0-9.]+' <<<"$line" | cut -d= -f2)"
        # The JVM options tools/jvs gives jvs (tools/jvm/jvs.options), so that the language's part is the same JVM's.
        line="$(taskset -c "$CPU" "$JAVA" @"$ROOT/tools/jvm/jvs.options" \
            --add-exports java.base/jdk.internal.misc=ALL-UNNAMED --enable-native-access=ALL-UNNAMED \
            -cp "$BENCH_JAR" io.jvs.perf.NatpipeTwin "$flows" "$SECONDS_EACH")" ||
            die "the Java twin failed"
        echo "twin flows=$flows rep=$rep ${line#java-twin flows=$flows }"
        TWIN_MPPS[$flows]+=" $(grep -oE 'Mpps=[0-9.]+' <<<"$line" | cut -d= -f2)"
        # shellcheck disable=SC2086
        line="$(taskset -c "$CPU" "$ROOT/tools/jvs" bench pipeline --mode "$MODE" --scheduler "$SCHEDULER" \
            --flows "$flows" --seconds "$SECONDS_EACH" ${JVS_EXTRA:-} 2>/dev/null | tail -1)" || die "bench failed"
        echo "jvs  flows=$flows rep=$rep $(grep -oE 'Mpps=.*' <<<"$line")"
        JVS_MPPS[$flows]+=" $(grep -oE 'Mpps=[0-9.]+' <<<"$line" | cut -d= -f2)"
    done
done
echo "# medians (Mpps) and the ratios: jvs/c (ratio), twin/c (the language), jvs/twin (jvs's own stages)"
for flows in "${FLOWS[@]}"; do
    c="$(tr ' ' '\n' <<<"${C_MPPS[$flows]}" | grep . | median)"
    t="$(tr ' ' '\n' <<<"${TWIN_MPPS[$flows]}" | grep . | median)"
    j="$(tr ' ' '\n' <<<"${JVS_MPPS[$flows]}" | grep . | median)"
    echo "flows=$flows c=$c twin=$t jvs=$j ratio=$(awk -v j="$j" -v c="$c" 'BEGIN {printf "%.2f", j / c}')" \
        "twin/c=$(awk -v t="$t" -v c="$c" 'BEGIN {printf "%.2f", t / c}')" \
        "jvs/twin=$(awk -v j="$j" -v t="$t" 'BEGIN {printf "%.2f", j / t}')"
done
