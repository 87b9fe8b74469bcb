#!/bin/bash
# l2fwd-vs-peers.sh - the wire benchmark of issue 4: jvs's L2 forwarding loop over AF_XDP and AF_PACKET,
# measured in the same run as the peers of ../shared/bench (DPDK testpmd af_xdp / af_packet, XDP redirect,
# Linux forwarding), on the same veth topology and CPU plan:
#
#   [bgen] g0 --veth-- l0 [blb] l1 --veth-- s0 [bsink]     CPU0: trafgen + sink NAPI; CPU1: everything in blb
#
# Usage (as root, from the repository root, after a build): perf/wire/l2fwd-vs-peers.sh [CASE...]
#   cases: route xdp dpdk_afxdp dpdk_afpacket jvs_afxdp_skb jvs_afxdp_drv jvs_afpacket jvs_afpacket_steal
#   jvs_afpacket_steal_paged
#   (default: all);
#   the DPDK cases run twice, with the l0/l1 NAPI in kthreads on CPU1 (threaded) and with busy-poll settings
#   (no NAPI threads: veth's receive work then runs as softirq on the sender's CPU0).
# Environment: BENCH_DIR (a writable copy of ../shared/bench, default /tmp/jvs-bench), REPS (3), DUR (10),
#              JVS_L2FWD_OPTS (more bench l2fwd options, e.g. --rx-block-kib 64),
#              JVS_LB_NAPI (threaded: l0/l1 NAPI kthreads pinned to CPU1, the forwarder's core; or busypoll),
#              GEN (trafgen, the default; or jvs: `tools/jvs bench txgen` over AF_XDP, which offers more from
#              one core, swapped in for trafgen by a shim around the bench's measure.py; logs get "_genjvs").
# Results: $BENCH_DIR/logs/<case>_60.log/.json (interface counters, CPU split) and, for jvs, <case>_60.jvs.log
# (the loop's own per-second lines: Mpps, CPU ns and busy ns per frame). Prints a table at the end.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SHARED_BENCH="${SHARED_BENCH:-$ROOT/../shared/bench}"
BENCH_DIR="${BENCH_DIR:-/tmp/jvs-bench}"
REPS="${REPS:-3}"; DUR="${DUR:-10}"; JVS_LB_NAPI="${JVS_LB_NAPI:-threaded}"
SINK_MAC=02:b0:00:00:01:02
CASES=("$@"); [ ${#CASES[@]} -gt 0 ] || CASES=(route xdp dpdk_afxdp dpdk_afpacket jvs_afxdp_skb jvs_afxdp_drv jvs_afpacket
    jvs_afpacket_steal)

[ "$(id -u)" = 0 ] || { echo "l2fwd-vs-peers: run as root (namespaces, XDP, AF_PACKET)" >&2; exit 1; }
# The peers' tools are not test dependencies, so .ci/run does not install them.
missing=()
for tool in trafgen:netsniff-ng dpdk-testpmd:"dpdk-dev librte-net-af-xdp23 librte-net-af-packet23" \
    clang:"clang libbpf-dev" bpftool:bpftool python3:python3 ethtool:ethtool; do
    command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
done
[ ${#missing[@]} -eq 0 ] || { echo "l2fwd-vs-peers: apt-get install ${missing[*]}" >&2; exit 1; }
[ -d "$BENCH_DIR" ] || cp -r "$SHARED_BENCH" "$BENCH_DIR"
JAVA="$("$ROOT/tools/jvs" --java-home)/bin/java"
JAR="$ROOT/tools/target/jvs.jar"
[ -f "$JAR" ] || { echo "l2fwd-vs-peers: build first (tools/jvs --help builds)" >&2; exit 1; }

cd "$BENCH_DIR"
mkdir -p logs
GEN="${GEN:-trafgen}"; S=""
[ -f measure_trafgen.py ] || cp measure.py measure_trafgen.py
if [ "$GEN" = jvs ]; then
    S=_genjvs
    # The bench's measure.py starts trafgen; this shim starts jvs's generator in its place, same CPU and namespace.
    cat > measure.py <<'PY'
import os, subprocess, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_trafgen as m
real_popen = subprocess.Popen
def popen(args, *a, **kw):
    if isinstance(args, list) and "trafgen" in args:
        device = args[args.index("-o") + 1]
        args = args[:args.index("trafgen")] + os.environ["JVS_GEN_CMD"].split() + ["--tx", device]
    return real_popen(args, *a, **kw)
m.subprocess.Popen = popen
m.main()
PY
    export JVS_GEN_CMD="$JAVA --enable-native-access=ALL-UNNAMED --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -jar $JAR bench txgen --port afxdp --dst-mac 02:b0:00:00:00:02 --dst-ip 10.0.0.100 --seconds 3600"
else
    cp measure_trafgen.py measure.py
fi
./topo.sh up >/dev/null
trap './topo.sh down' EXIT

jvs_case() {   # name port xdp-mode
    local name=$1${JVS_IDLE:+_$JVS_IDLE}$S port=$2 mode=$3 log="logs/${1}${JVS_IDLE:+_$JVS_IDLE}${S}_60.jvs.log" pid busy=()
    # Preferred busy polling, as DPDK's af_xdp driver does it, where the NAPI settings expect it.
    [ "$JVS_LB_NAPI" = busypoll ] && [ "$port" = afxdp ] && busy=(--busy-poll)
    # jvs_afpacket_steal: the port's tcx program drops the kernel's originals after the taps copied them.
    [ "${4:-}" = steal ] && busy+=(--steal)
    # jvs_afpacket_steal_paged: the kernel's default paged TX skbs instead of jvs's linear ones, for comparison.
    [ "${5:-}" = paged ] && busy+=(--paged-tx)
    ./topo.sh lbfix
    ip netns exec blb sysctl -qw net.ipv4.ip_forward=0
    setsid ip netns exec blb taskset -c 1 "$JAVA" --enable-native-access=ALL-UNNAMED \
        --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -XX:+UseParallelGC -Xms256m -Xmx256m ${JVS_JVM_OPTS:-} -jar "$JAR" \
        bench l2fwd --port "$port" --rx l0 --tx l1 --dst-mac $SINK_MAC --xdp-mode "$mode" "${busy[@]}" --idle "${JVS_IDLE:-spin}" ${JVS_L2FWD_OPTS:-} \
        --warmup 0 --seconds 600 > "$log" 2>&1 < /dev/null &
    pid=$!
    sleep 4
    if ! kill -0 $pid 2>/dev/null; then echo "jvs did not start:"; cat "$log"; return 1; fi
    LB_NAPI=$JVS_LB_NAPI TAG="_$name" ./run_case.sh custom 60 "$REPS" "$DUR" || true
    kill -TERM $pid 2>/dev/null || true   # not INT: a background job of a script ignores SIGINT, and so does the JVM then
    wait $pid 2>/dev/null || true
    mv logs/custom_${name}_60.log logs/${name}_60.log; mv logs/custom_${name}_60.json logs/${name}_60.json
    sed -i "s/\"label\": \"custom_$name\"/\"label\": \"$name\"/" logs/${name}_60.json
    grep -E "^l2fwd|port:" "$log" || true
    # The loop's own view of the seconds the generator was sending (>= 0.05 Mpps): medians per second.
    awk '$2 == "s" && $5 >= 0.05 { n++; mpps[n] = $5; cpu[n] = $7; busy[n] = $9 }
         function median(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
             if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } return a[int((n + 1) / 2)] }
         END { if (n) printf "JVS %s: %d busy seconds, median %.3f Mpps, %.0f cpu-ns/frame, %.0f busy-ns/frame\n",
               name, n, median(mpps, n), median(cpu, n), median(busy, n) }' name="$name" "$log" | tee -a "$log"
}

for c in "${CASES[@]}"; do
    case $c in
        route) TAG=$S ./run_case.sh route 60 "$REPS" "$DUR" ;;
        xdp) TAG=$S ./run_case.sh xdp_redirect_map 60 "$REPS" "$DUR" ;;
        dpdk_afxdp) LB_NAPI=busypoll TAG=$S ./run_case.sh dpdk_afxdp_io 60 "$REPS" "$DUR"
                    LB_NAPI=threaded TAG=_threaded$S ./run_case.sh dpdk_afxdp_io 60 "$REPS" "$DUR" ;;
        dpdk_afpacket) TAG=$S ./run_case.sh dpdk_afpacket_io 60 "$REPS" "$DUR"
                       LB_NAPI=busypoll TAG=_busypoll$S ./run_case.sh dpdk_afpacket_io 60 "$REPS" "$DUR" ;;
        jvs_afxdp_skb) jvs_case jvs_afxdp_skb_$JVS_LB_NAPI afxdp skb ;;
        jvs_afxdp_drv) jvs_case jvs_afxdp_drv_$JVS_LB_NAPI afxdp drv ;;
        jvs_afpacket) jvs_case jvs_afpacket_$JVS_LB_NAPI afpacket drv ;;
        jvs_afpacket_steal) jvs_case jvs_afpacket_steal_$JVS_LB_NAPI afpacket drv steal ;;
        jvs_afpacket_steal_paged) jvs_case jvs_afpacket_steal_paged_$JVS_LB_NAPI afpacket drv steal paged ;;
        *) echo "unknown case $c" >&2; exit 2 ;;
    esac
done
# hugepages and the hugetlbfs mount that the DPDK cases set up
if mountpoint -q "$BENCH_DIR/huge"; then umount "$BENCH_DIR/huge"; echo 0 > /proc/sys/vm/nr_hugepages; fi
python3 make_table.py
