#!/bin/bash
# l2fwd-vs-peers.sh - the wire benchmarks of issues 4 and 11: jvs's L2 forwarding loop (`bench l2fwd`) and the
# daemon (`tools/jvs run`, forwarding NAT) over AF_XDP and AF_PACKET, measured in the same run as the peers of
# ../shared/bench (DPDK testpmd af_xdp / af_packet, XDP redirect, Linux forwarding, nftables DNAT), on the same
# veth topology and CPU plan:
#
#   [bgen] g0 --veth-- l0 [blb] l1 --veth-- s0 [bsink]     CPU0: generator + sink NAPI; CPU1: everything in blb
#
# Usage (as root, from the repository root, after a build): perf/wire/l2fwd-vs-peers.sh [CASE...]
#   cases: route xdp dpdk_afxdp dpdk_afxdp_threaded dpdk_afpacket nft_dnat jvs_afxdp_skb jvs_afxdp_drv
#   jvs_afpacket jvs_afpacket_steal jvs_afpacket_steal_paged jvs_daemon_nat_afxdp jvs_daemon_nat_afpacket
#   jvs_daemon_nat_afxdp_offload_off jvs_daemon_latency jvs_daemon_idle
#   (default: the issue 4 set: route xdp dpdk_afxdp dpdk_afpacket jvs_afxdp_* jvs_afpacket jvs_afpacket_steal);
#   the DPDK cases run twice, with the l0/l1 NAPI in kthreads on CPU1 (threaded) and with busy-poll settings
#   (no NAPI threads: veth's receive work then runs as softirq on the sender's CPU0); dpdk_afxdp_threaded only
#   the first. nft_dnat is the shared bench's nat_jhash (DNAT over conntrack to 10.0.1.2-4).
#   jvs_daemon_nat_*: the daemon with default settings (jvs_daemon_nat_afxdp_idle_MODE: with `idle MODE`), one
#   worker, wlc over 10.0.1.2-4 for udp 10.0.0.100:80, started fresh, measured once it logs "ready", its status
#   saved at the end (logs/<case>_60.status). By default the daemon offloads established connections to the XDP
#   program wherever a port takes redirected frames (here l1, whose peer s0 runs the sink's XDP program);
#   jvs_daemon_nat_afxdp_offload_off measures the workers' path alone (`offload off`).
#   jvs_daemon_latency: a fresh daemon under `bench txgen --rate JVS_LAT_RATE` (frames/s, default 250000; bursts
#   of 16, each at its own time), whatever GEN says; its status's latency.* are the workers' histograms over the
#   measured window (zeroed by `ctl -Z` as it starts; JVS_LAT_FROM_START=1: from the daemon's start). Not
#   trafgen --rate: it sends each second's frames in one burst at full speed, then nothing until the next second.
#   jvs_daemon_idle: a fresh daemon, no traffic, its CPU time (all threads) over JVS_IDLE_SECONDS (30).
# Environment: BENCH_DIR (a writable copy of ../shared/bench, default /tmp/jvs-bench), REPS (3), DUR (10),
#              ROUNDS (1: how often the whole list of cases runs, alternating; logs then get "_r<N>"),
#              JVS_L2FWD_OPTS (more bench l2fwd options, e.g. --rx-block-kib 64),
#              JVS_LB_NAPI (threaded: l0/l1 NAPI kthreads pinned to CPU1, the forwarder's core; or busypoll),
#              GEN (trafgen, the default; or jvs: `tools/jvs bench txgen` over AF_XDP, which offers more from
#              one core, swapped in for trafgen by a shim around the bench's measure.py; logs get "_genjvs").
# Results: $BENCH_DIR/logs/<case>_60.log/.json (interface counters, CPU split) and, for jvs, <case>_60.jvs.log
# (the loop's own per-second lines: Mpps, CPU ns and busy ns per frame; the daemon's log). Prints a table at
# the end; perf/wire/summary.py makes the issue 11 table (medians over all reps and rounds, ratios).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
SHARED_BENCH="${SHARED_BENCH:-$ROOT/../shared/bench}"
BENCH_DIR="${BENCH_DIR:-/tmp/jvs-bench}"
REPS="${REPS:-3}"; DUR="${DUR:-10}"; ROUNDS="${ROUNDS:-1}"; JVS_LB_NAPI="${JVS_LB_NAPI:-threaded}"
SINK_MAC=02:b0:00:00:01:02
CASES=("$@"); [ ${#CASES[@]} -gt 0 ] || CASES=(route xdp dpdk_afxdp dpdk_afpacket jvs_afxdp_skb jvs_afxdp_drv jvs_afpacket
    jvs_afpacket_steal)

[ "$(id -u)" = 0 ] || { echo "l2fwd-vs-peers: run as root (namespaces, XDP, AF_PACKET)" >&2; exit 1; }
# The peers' tools are not test dependencies, so .ci/run does not install them.
missing=()
for tool in trafgen:netsniff-ng dpdk-testpmd:"dpdk-dev librte-net-af-xdp23 librte-net-af-packet23" \
    clang:"clang libbpf-dev" bpftool:bpftool python3:python3 ethtool:ethtool nft:nftables conntrack:conntrack \
    socat:socat; do
    command -v "${tool%%:*}" >/dev/null || missing+=("${tool#*:}")
done
[ ${#missing[@]} -eq 0 ] || { echo "l2fwd-vs-peers: apt-get install ${missing[*]}" >&2; exit 1; }
[ -d "$BENCH_DIR" ] || cp -r "$SHARED_BENCH" "$BENCH_DIR"
JAVA="$("$ROOT/tools/jvs" --java-home)/bin/java"
JAR="$ROOT/tools/target/jvs.jar"
# Build (or rebuild after a change) up front, so that no case pays for it: a subcommand's help builds the jar.
"$ROOT/tools/jvs" run --help >/dev/null || { echo "l2fwd-vs-peers: tools/jvs did not build or start" >&2; exit 1; }
[ -f "$JAR" ] || { echo "l2fwd-vs-peers: no $JAR after the build" >&2; exit 1; }

cd "$BENCH_DIR"
mkdir -p logs
# The XDP objects with BTF (xdp/build.sh's -g0 objects are refused by iproute2's libbpf: "BTF is required").
if [ ! -f xdp/xdp_drop.o ]; then
    inc=-I/usr/include/$(uname -m)-linux-gnu
    clang -O2 -g -target bpf $inc -c xdp/xdp_drop.c -o xdp/xdp_drop.o
    clang -O2 -g -target bpf $inc -c xdp/xdp_redirect_map.c -o xdp/xdp_redirect_map.o
    clang -O2 -g -target bpf $inc -DREWRITE_MAC -c xdp/xdp_redirect_map.c -o xdp/xdp_redirect_map_mac.o
fi
GEN="${GEN:-trafgen}"; GS=""; [ "$GEN" = jvs ] && GS=_genjvs
[ -f measure_trafgen.py ] || cp measure.py measure_trafgen.py
# The bench's measure.py starts trafgen; this shim starts jvs's generator in its place (WIRE_GEN=jvs), same CPU
# and namespace, or gives trafgen a rate (WIRE_TRAFGEN_RATE).
cat > measure.py <<'PY'
import os, subprocess, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure_trafgen as m
real_popen = subprocess.Popen
def popen(args, *a, **kw):
    if isinstance(args, list) and "trafgen" in args:
        if os.environ.get("WIRE_GEN") == "jvs":
            device = args[args.index("-o") + 1]
            args = args[:args.index("trafgen")] + os.environ["JVS_GEN_CMD"].split() + ["--tx", device]
        elif os.environ.get("WIRE_TRAFGEN_RATE"):
            args = args + ["--rate", os.environ["WIRE_TRAFGEN_RATE"]]
    return real_popen(args, *a, **kw)
m.subprocess.Popen = popen
# "lb": the CPU time of the balancer's own work (every process in blb, the NAPI kthreads of l0/l1) as a share of
# one core, beside the CPUs' totals: on a machine shared with other work, CPU1 at 100 % does not say the balancer
# had all of it.
HZ = os.sysconf("SC_CLK_TCK")
LB_NS = os.stat("/run/netns/blb").st_ino
real_cpu_stat = m.cpu_stat
def lb_ticks():
    user = system = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/comm") as f:
                comm = f.read().strip()
            if not (comm.startswith("napi/l0-") or comm.startswith("napi/l1-")) \
                    and os.stat(f"/proc/{pid}/ns/net").st_ino != LB_NS:
                continue
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            user += int(fields[11]); system += int(fields[12])
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            pass
    return user, system
# WIRE_WINDOW_START: a shell command run once, as the first measured window begins (the first of its two readings).
window_started = [False]
def cpu_stat():
    if not window_started[0] and os.environ.get("WIRE_WINDOW_START"):
        window_started[0] = True
        subprocess.run(os.environ["WIRE_WINDOW_START"], shell=True, check=False)
    res = real_cpu_stat()
    user, system = lb_ticks()
    wall = int(m.time.monotonic() * HZ)
    res["lb"] = [user, 0, system, wall - user - system, 0, 0, 0, 0]
    return res
m.cpu_stat = cpu_stat
m.main()
PY
export WIRE_GEN="$GEN"
export JVS_GEN_CMD="$JAVA --enable-native-access=ALL-UNNAMED --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -jar $JAR bench txgen --port afxdp --dst-mac 02:b0:00:00:00:02 --dst-ip 10.0.0.100 --seconds 3600"
./topo.sh up >/dev/null
trap '[ -z "${DAEMON_PID:-}" ] || kill -TERM $DAEMON_PID 2>/dev/null; ./topo.sh down' EXIT

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

# The daemon's configuration: forwarding NAT as in the issue, defaults for everything else (one worker: the
# bench has one lb core and the veths one queue each).
daemon_config() {   # port control-socket [more statements]
    cat <<EOF
# written by perf/wire/l2fwd-vs-peers.sh
interface l0 port $1
interface l1 port $1
workers 1
control $2
-A -u 10.0.0.100:80 -s wlc
-a -u 10.0.0.100:80 -r 10.0.1.2:80 -m -w 1
-a -u 10.0.0.100:80 -r 10.0.1.3:80 -m -w 1
-a -u 10.0.0.100:80 -r 10.0.1.4:80 -m -w 1
${3:-}
EOF
}

# Starts a fresh daemon in blb pinned to CPU1 with the launcher's own JVM flags; sets DAEMON_PID once it logs
# "ready" (its warm-up compiles the data path first).
daemon_start() {   # name port [more statements]
    local name=$1 port=$2 i
    DAEMON_LOG="logs/${name}_60.jvs.log"; DAEMON_SOCK="$BENCH_DIR/logs/${name}.sock"
    daemon_config "$port" "$DAEMON_SOCK" "${3:-}" > "logs/${name}.conf"
    ./topo.sh lbfix
    ip netns exec blb nft flush ruleset 2>/dev/null || true
    ip netns exec blb sysctl -qw net.ipv4.ip_forward=0
    setsid ip netns exec blb taskset -c 1 env JVS_SKIP_BUILD=1 "$ROOT/tools/jvs" run --config "$PWD/logs/${name}.conf" \
        > "$DAEMON_LOG" 2>&1 < /dev/null &
    DAEMON_PID=$!
    for i in $(seq 1 240); do
        grep -q ' info ready: ' "$DAEMON_LOG" && break
        if ! kill -0 $DAEMON_PID 2>/dev/null; then echo "the daemon did not start:"; cat "$DAEMON_LOG"; return 1; fi
        sleep 0.5
    done
    grep ' info ready: ' "$DAEMON_LOG" ||
        { echo "no ready line after 120 s:"; cat "$DAEMON_LOG"; daemon_stop; return 1; }
}

daemon_stop() {   # saves the status first
    local status="${DAEMON_LOG%.jvs.log}.status"
    printf 'status\n' | socat - "UNIX-CONNECT:$DAEMON_SOCK" > "$status" 2>&1 || true
    kill -TERM $DAEMON_PID 2>/dev/null || true
    wait $DAEMON_PID 2>/dev/null || true
    DAEMON_PID=""
    # what bounds it: the counters that name drops, full rings, sleeps, and the latency histogram
    grep -E '^(frames|transmitted|passed|dropped|connections|sleeps|handed-off|offloaded-frames) |'\
'^drop\.[a-z.-]+ [1-9]|^xdp-[a-z-]+ |^port\..*(rx-frames|tx-frames|tx-ring-full) |^latency\.|'\
'^server\..*\.connections ' "$status" |
        tr '\n' ' ' | sed 's/^/STATUS: /'; echo
}

daemon_case() {   # name port [more statements]
    local name=$1$S
    daemon_start "$name" "$2" "${3:-}" || return 0
    LB_NAPI=$JVS_LB_NAPI TAG="_$name" ./run_case.sh custom 60 "$REPS" "$DUR" || true
    daemon_stop
    mv logs/custom_${name}_60.log logs/${name}_60.log; mv logs/custom_${name}_60.json logs/${name}_60.json
    sed -i "s/\"label\": \"custom_$name\"/\"label\": \"$name\"/" logs/${name}_60.json
}

# Latency at a set rate, paced burst by burst by bench txgen whatever GEN says. The status's percentiles count from
# the measured window's start, when `ctl -Z` zeroes them (the bench's own 3 s of warm-up excluded, as for the rates);
# with JVS_LAT_FROM_START=1 from the daemon's start (its first frames included; the case name gets "_fromstart").
# JVS_LAT_IDLE names an idle mode for the daemon (default: its own).
daemon_latency() {
    local rate=${JVS_LAT_RATE:-250000} S=${S/_genjvs/} name zero=""
    [[ $rate =~ ^[1-9][0-9]*$ ]] || { echo "JVS_LAT_RATE must be frames per second, e.g. 250000, not $rate"; return 1; }
    name="jvs_daemon_latency_${rate}pps${JVS_LAT_IDLE:+_$JVS_LAT_IDLE}"
    if [ "${JVS_LAT_FROM_START:-0}" = 1 ]; then
        name+=_fromstart
    else
        zero="JVS_SKIP_BUILD=1 $ROOT/tools/jvs ctl --socket=$BENCH_DIR/logs/$name$S.sock -Z"
    fi
    # The workers' histograms time the frames that pass a worker: offloaded ones never do, so the case measures
    # the workers' path (offload off).
    local statements="offload off"
    [ -n "${JVS_LAT_IDLE:-}" ] && statements+=$'\n'"idle $JVS_LAT_IDLE"
    WIRE_GEN=jvs JVS_GEN_CMD="$JVS_GEN_CMD --rate $rate --burst 16" WIRE_WINDOW_START="$zero" \
        daemon_case "$name" afxdp "$statements"
}

# Idle CPU: a fresh daemon, no traffic; utime + stime of all its threads over the window.
snap_threads() {   # tid comm ticks, one line per thread of DAEMON_PID
    local t
    for t in /proc/$DAEMON_PID/task/*; do
        echo "$(basename "$t") $(tr -d '()' < "$t/comm" | tr ' ' _) \
            $(sed 's/^.*) //' "$t/stat" | awk '{ print $12 + $13 }')"
    done
}
daemon_idle() {
    local name=jvs_daemon_idle$S secs=${JVS_IDLE_SECONDS:-30} hz t0 t1
    hz=$(getconf CLK_TCK)
    daemon_start "$name" afxdp || return 0
    sleep 5
    t0=$(sed 's/^.*) //' /proc/$DAEMON_PID/stat | awk '{ print $12 + $13 }'); snap_threads > "logs/${name}.t0"
    sleep "$secs"
    t1=$(sed 's/^.*) //' /proc/$DAEMON_PID/stat | awk '{ print $12 + $13 }'); snap_threads > "logs/${name}.t1"
    echo "IDLE $name: $((t1 - t0)) ticks of 1/$hz s in $secs s = $(awk -v d=$((t1 - t0)) -v hz=$hz -v s=$secs \
        'BEGIN { printf "%.2f", 100 * d / hz / s }') % of a core" | tee "logs/${name}.idle"
    join <(sort logs/${name}.t0) <(sort logs/${name}.t1) |
        awk '$5 - $3 > 0 { print "  thread", $2, $5 - $3, "ticks" }' \
        | sort -k3 -nr | head -8 | tee -a "logs/${name}.idle"
    daemon_stop
}

for round in $(seq 1 "$ROUNDS"); do
S=$GS; [ "$ROUNDS" -gt 1 ] && S=${GS}_r$round
for c in "${CASES[@]}"; do
    echo "=== round $round: $c $(date -Is) loadavg $(cut -d" " -f1-3 /proc/loadavg)"
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
        dpdk_afxdp_threaded) LB_NAPI=threaded TAG=_threaded$S ./run_case.sh dpdk_afxdp_io 60 "$REPS" "$DUR" ;;
        nft_dnat) TAG=$S ./run_case.sh nat_jhash 60 "$REPS" "$DUR" ;;
        jvs_daemon_nat_afxdp) daemon_case jvs_daemon_nat_afxdp_$JVS_LB_NAPI afxdp ;;
        jvs_daemon_nat_afpacket) daemon_case jvs_daemon_nat_afpacket_$JVS_LB_NAPI afpacket ;;
        jvs_daemon_nat_afxdp_offload_off) daemon_case jvs_daemon_nat_afxdp_offload_off_$JVS_LB_NAPI afxdp \
                                              "offload off" ;;
        jvs_daemon_nat_afxdp_idle_*) daemon_case jvs_daemon_nat_afxdp_${JVS_LB_NAPI}_${c#jvs_daemon_nat_afxdp_} afxdp \
                                         "idle ${c#jvs_daemon_nat_afxdp_idle_}" ;;
        jvs_daemon_latency) daemon_latency ;;
        jvs_daemon_idle) daemon_idle ;;
        *) echo "unknown case $c" >&2; exit 2 ;;
    esac
done
done
# hugepages and the hugetlbfs mount that the DPDK cases set up
if mountpoint -q "$BENCH_DIR/huge"; then umount "$BENCH_DIR/huge"; echo 0 > /proc/sys/vm/nr_hugepages; fi
python3 make_table.py
