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
#              bench pipeline, e.g. --new-flows: then the ratio compares different work).
# Prints every run ("c", "twin" and "jvs" lines with Mpps and ns/packet), then per flow count the medians and the
# ratios jvs/c, twin/c and jvs/twin (Mpps). Exit status 2 when a tool is missing or a run fails, with what to do.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
NATPIPE_DIR="${NATPIPE_DIR:-$ROOT/../shared/bench/natpipe}"
REPS="${REPS:-3}"; SECONDS_EACH="${SECONDS_EACH:-10}"; CPU="${CPU:-1}"
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

echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) $(uname -r) $(nproc) CPUs, core $CPU; $REPS x ${SECONDS_EACH}s each, alternating"
echo "# jvs: tools/jvs bench pipeline --mode $MODE --scheduler $SCHEDULER ${JVS_EXTRA:-}(defaults otherwise)"
declare -A C_MPPS TWIN_MPPS JVS_MPPS
for flows in "${FLOWS[@]}"; do
    C_MPPS[$flows]=""; TWIN_MPPS[$flows]=""; JVS_MPPS[$flows]=""
    for rep in $(seq "$REPS"); do
        line="$(taskset -c "$CPU" "$BUILD/natpipe" "$flows" "$SECONDS_EACH")" || die "natpipe failed"
        echo "c    flows=$flows rep=$rep ${line#c-natpipe flows=$flows }"
        C_MPPS[$flows]+=" $(grep -oE 'Mpps=[0-9.]+' <<<"$line" | cut -d= -f2)"
        line="$(taskset -c "$CPU" "$JAVA" --add-exports java.base/jdk.internal.misc=ALL-UNNAMED \
            --enable-native-access=ALL-UNNAMED -cp "$BENCH_JAR" io.jvs.perf.NatpipeTwin "$flows" "$SECONDS_EACH")" ||
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
