#!/usr/bin/env python3
"""summary.py - the table of a batch of perf/wire/l2fwd-vs-peers.sh, over all its reps and rounds.

  summary.py [--logs /tmp/jvs-bench/logs] [--ratio NUM/DEN ...] [LABEL-SUBSTRING ...]

Groups the logs/*.json of measure.py by label with the round suffix (_r<N>) taken off, and prints per group
the medians over every rep of every round: lb-forwarded (Δ l1 tx + tx_dropped, the shared bench's metric),
delivered (s0 rx), offered (g0 tx + tx_dropped), the CPU split of both CPUs and, where measured, the
balancer's own CPU time (the processes in blb and the NAPI kthreads of l0/l1) as a share of one core, and
lb-forwarded divided by that share (what one core of the balancer's own time forwarded: a rough correction
when other work took part of CPU1; tick-sampled, and it ignores what the sharing costs in caches and
wake-ups). --ratio prints the ratio of two groups' lb-forwarded medians (group names as printed, or unique
substrings of them). For daemon runs it prints, per saved status file (logs/<label>_60.status), the counters
that say what bounded them.
"""
import argparse, glob, json, os, re, statistics

STATUS_KEYS = ("frames", "transmitted", "dropped", "passed", "sleeps", "handed-off")


def median_range(values):
    return statistics.median(values), min(values), max(values)


def status_counters(path):
    out = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2 and re.fullmatch(r"-?\d+", parts[1]):
                out[parts[0]] = int(parts[1])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--logs", default="/tmp/jvs-bench/logs")
    ap.add_argument("--ratio", action="append", default=[])
    ap.add_argument("only", nargs="*")
    a = ap.parse_args()
    groups = {}
    for path in sorted(glob.glob(os.path.join(a.logs, "*.json"))):
        with open(path) as f:
            summ = json.load(f)
        label = summ["label"]
        if a.only and not any(o in label for o in a.only):
            continue
        group = re.sub(r"_r\d+$", "", label)
        g = groups.setdefault(group, {"reps": [], "status": []})
        g["reps"].extend(summ["reps_detail"])
        status = path[:-len(".json")] + ".status"
        if os.path.exists(status):
            g["status"].append(status_counters(status))
    print("| case | reps | lb-forwarded Mpps median (min–max) | delivered Mpps | offered Mpps | "
          "CPU1 usr/sys/si/idle % | CPU0 busy % | lb's own CPU, % of a core | Mpps per lb core |")
    print("|---|---|---|---|---|---|---|---|---|")
    medians = {}
    for group, g in groups.items():
        reps = g["reps"]
        lf = [r["lb_fwd_mpps"] for r in reps if r.get("lb_fwd_mpps") is not None]
        dl = [r["delivered_mpps"] for r in reps]
        off = [r["gen_tx_mpps"] + r["gen_txdrop_mpps"] for r in reps]
        c1 = {k: statistics.median(r["cpu"]["cpu1"][k] for r in reps) for k in ("usr", "sys", "softirq", "idle")}
        c0 = statistics.median(100 - r["cpu"]["cpu0"]["idle"] for r in reps)
        own = [100 - r["cpu"]["lb"]["idle"] for r in reps if "lb" in r["cpu"]]
        own_text = f"{statistics.median(own):.0f}" if own else "–"
        per_core = [r["lb_fwd_mpps"] / ((100 - r["cpu"]["lb"]["idle"]) / 100) for r in reps
                    if "lb" in r["cpu"] and r["cpu"]["lb"]["idle"] < 100 and r.get("lb_fwd_mpps") is not None]
        per_core_text = f"{statistics.median(per_core):.3f}" if per_core else "–"
        m, lo, hi = median_range(lf) if lf else (0, 0, 0)
        medians[group] = m
        print(f"| {group} | {len(reps)} | {m:.3f} ({lo:.3f}–{hi:.3f}) | {statistics.median(dl):.3f} | "
              f"{statistics.median(off):.3f} | {c1['usr']:.0f}/{c1['sys']:.0f}/{c1['softirq']:.0f}/{c1['idle']:.0f} "
              f"| {c0:.0f} | {own_text} | {per_core_text} |")
    for group, g in groups.items():
        for s in g["status"]:
            shown = {k: v for k, v in s.items()
                     if k in STATUS_KEYS or (k.startswith("drop.") and v) or k.startswith("latency.")
                     or re.fullmatch(r"port\.\d+\.\d+\.(rx-frames|tx-frames|tx-ring-full)", k)}
            print(f"status {group}: " + " ".join(f"{k}={v}" for k, v in shown.items()))
    for ratio in a.ratio:
        num, den = ratio.split("/")
        pick = lambda name: next((g for g in medians if g == name), None) or next(g for g in medians if name in g)
        n, d = pick(num), pick(den)
        print(f"ratio {n} / {d}: {medians[n]:.3f} / {medians[d]:.3f} = {medians[n] / medians[d]:.2f}")


if __name__ == "__main__":
    main()
