package io.jvs.forwarder.daemon;

import io.jvs.core.pipeline.DataPlane;
import io.jvs.core.pipeline.WorkerCounters;
import io.jvs.core.pipeline.WorkerCountersDescriptor;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.VirtualService;
import io.jvs.core.stats.TrafficLedger;
import io.jvs.core.stats.TrafficStats;
import io.jvs.core.stats.TrafficStatsDescriptor;
import io.jvs.forwarder.port.PortCountersDescriptor;
import io.jvs.nativebindings.bpf.XdpKernelDrops;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The control socket's {@code status} answer: one {@code name value} pair a line, summed over the workers
 * (each counter read without stopping them, so a sum may lag a burst), then per worker the hand-off and host
 * path, then per service and real server the connections and packets. The names are stable: tests and scripts
 * read them. The counters file and {@code tools/jvs stat} replace this later; until then it is the daemon's
 * one window on its counters.
 */
final class Status
{
    /** How long the status waits for the conductor's service and server lines. */
    private static final long SLOTS_WAIT_S = 2;

    private Status()
    {
    }

    static String text(final Daemon daemon)
    {
        final StringBuilder out = new StringBuilder();
        final int workers = daemon.workers();
        line(out, "workers", workers);
        // Every count of the workers' own, summed, under the descriptor's names (frames, transmitted, ...,
        // drop.<reason>): the names a counters file will give them too.
        for (int id = 0; id < WorkerCountersDescriptor.ids(); id++)
        {
            final String name = WorkerCountersDescriptor.name(id);
            if (name != null)
            {
                long sum = 0;
                for (int w = 0; w < workers; w++)
                {
                    sum += daemon.worker(w).pipeline().counters().get(id);
                }
                line(out, name, sum);
            }
        }
        line(out, "snapshots", daemon.conductor().snapshots());
        final ControlServer control = daemon.controlServer();
        if (control != null)
        {
            for (int id = 0; id < ControlCounters.COUNT; id++)
            {
                line(out, "control." + ControlCounters.label(id), control.counter(id));
            }
        }
        line(out, "xdp-unplaced", daemon.unplacedFrames());
        kernelDrops(out, daemon);
        final DaemonCounters counters = daemon.counters();
        for (int id = 0; id < DaemonCounters.COUNT; id++)
        {
            long sum = 0;
            for (int w = 0; w < workers; w++)
            {
                final long value = counters.get(w, id);
                sum += value;
                line(out, "worker." + w + "." + DaemonCounters.label(id), value);
            }
            line(out, DaemonCounters.label(id), sum);
        }
        for (int w = 0; w < workers; w++)
        {
            final WorkerCounters pipeline = daemon.worker(w).pipeline().counters();
            line(out, "worker." + w + ".frames", pipeline.frames());
            line(out, "worker." + w + ".connections", pipeline.connections());
            final io.jvs.forwarder.port.Port[] ports = daemon.worker(w).ports();
            for (int p = 0; p < ports.length; p++)
            {
                final io.jvs.forwarder.port.PortCounters port = ports[p].counters();
                final String name = "port." + w + "." + p + ".";
                // The kernel's drops for the socket (XDP_STATISTICS, PACKET_STATISTICS): one system call, made
                // with the counters' own bindings, so it does not touch the worker's.
                port.refresh();
                // The counts every port keeps (ids below the pcap ports' own), under the descriptor's names.
                for (int id = 0; id < PortCountersDescriptor.RX_TOO_LONG; id++)
                {
                    final String count = PortCountersDescriptor.name(id);
                    if (count != null)
                    {
                        line(out, name + count, port.get(id));
                    }
                }
            }
        }
        final TrafficStats[] traffic = new TrafficStats[workers];
        for (int w = 0; w < workers; w++)
        {
            traffic[w] = daemon.worker(w).pipeline().traffic();
        }
        // On the conductor, whose ledger knows when each occupant took its slot: the workers' counters of a slot run
        // on from one occupant to the next (a removed server's slot is given to the next one added). Left out when
        // the conductor does not answer, as a reload stuck on a hung file system would keep it.
        try
        {
            out.append(daemon.conductor().call(conductor -> slots(conductor.current(), traffic, conductor.ledger()))
                .get(SLOTS_WAIT_S, TimeUnit.SECONDS));
        }
        catch (final ExecutionException | TimeoutException ex)
        {
            DaemonLog.warning("status: no service and server lines: the conductor did not answer");
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        final org.HdrHistogram.Histogram latency = daemon.latencySinceZero();
        line(out, "latency.count", latency.getTotalCount());
        line(out, "latency.p50-ns", latency.getValueAtPercentile(50));
        line(out, "latency.p90-ns", latency.getValueAtPercentile(90));
        line(out, "latency.p99-ns", latency.getValueAtPercentile(99));
        line(out, "latency.p99.9-ns", latency.getValueAtPercentile(99.9));
        line(out, "latency.max-ns", latency.getMaxValue());
        for (final HostTap tap : daemon.taps())
        {
            line(out, "tap." + tap.name() + ".written", tap.written());
        }
        return out.toString();
    }

    /**
     * What the kernel dropped after the AF_XDP interfaces' XDP programs decided ({@link XdpKernelDrops}): summed as
     * {@code xdp-aborted}, {@code xdp-socket-refused}, {@code xdp-device-refused} and {@code xdp-transmit-dropped},
     * then per interface as {@code xdp.IFNAME.aborted} and so on; 0 without AF_XDP interfaces, and -1 in the sums
     * when the kernel cannot count them.
     */
    private static void kernelDrops(final StringBuilder out, final Daemon daemon)
    {
        final long[][] counts = daemon.kernelDrops();
        for (int c = 0; c < XdpKernelDrops.COUNTS; c++)
        {
            long sum = counts == null ? -1 : 0;
            if (counts != null)
            {
                for (final long[] port : counts)
                {
                    sum += port == null ? 0 : port[c];
                }
            }
            line(out, "xdp-" + XdpKernelDrops.label(c), sum);
        }
        if (counts != null)
        {
            for (int p = 0; p < counts.length; p++)
            {
                for (int c = 0; counts[p] != null && c < XdpKernelDrops.COUNTS; c++)
                {
                    line(out, "xdp." + daemon.interfaceName(p) + "." + XdpKernelDrops.label(c), counts[p][c]);
                }
            }
        }
    }

    /**
     * The services' and servers' lines of the snapshot, each counted since it took its slot ({@link
     * TrafficLedger#sinceJoined}: {@code ipvsadm -Z} leaves them), or over the slot's whole life without a ledger.
     */
    static String slots(final DataPlane plane, final TrafficStats[] traffic, final TrafficLedger ledger)
    {
        final StringBuilder out = new StringBuilder();
        for (int slot = 0; slot < plane.serviceCount(); slot++)
        {
            final VirtualService service = plane.service(slot);
            if (service == null)
            {
                continue;
            }
            final long[] counts = ledger == null ? null : ledger.sinceJoined(service);
            counts(out, "service." + key(service), counts != null ? counts : sum(traffic, false, slot));
        }
        final String[] serverNames = serverNames(plane);
        for (int slot = 1; slot < plane.serverSlots(); slot++)
        {
            final RealServer server = plane.server(slot);
            if (server == null)
            {
                continue;
            }
            final String name = serverNames[slot];
            final long[] counts = ledger == null ? null : ledger.sinceJoined(server);
            counts(out, name, counts != null ? counts : sum(traffic, true, slot));
            line(out, name + ".active", server.activeConnections());
            line(out, name + ".inactive", server.inactiveConnections());
            line(out, name + ".weight", server.weight());
        }
        return out.toString();
    }

    /** @return every field of a slot over its whole life, summed over the workers. */
    private static long[] sum(final TrafficStats[] traffic, final boolean server, final int slot)
    {
        final long[] sum = new long[TrafficStatsDescriptor.FRAMES + 1];
        for (final TrafficStats stats : traffic)
        {
            for (int field = 0; field < sum.length; field++)
            {
                sum[field] += server ? stats.server(slot, field) : stats.service(slot, field);
            }
        }
        return sum;
    }

    /** A service's or server's connections and frames, then IPVS's counters ({@code ipvsadm --stats}'s). */
    private static void counts(final StringBuilder out, final String name, final long[] counts)
    {
        line(out, name + ".connections", counts[TrafficStatsDescriptor.CONNECTIONS]);
        line(out, name + ".packets", counts[TrafficStatsDescriptor.FRAMES]);
        for (int field = TrafficStatsDescriptor.IN_PACKETS; field < TrafficStatsDescriptor.FIELDS; field++)
        {
            line(out, name + "." + TrafficStatsDescriptor.name(field), counts[field]);
        }
    }

    /**
     * The status names of the snapshot's servers, by slot (null where no server): {@code server.ADDR:PORT}, and
     * for an address and port that several services have (IPVS keeps a destination per service, each with its
     * own counters) {@code server.ADDR:PORT@SERVICE} for each, e.g. {@code server.10.1.0.11:8080@tcp-198.51.100.10:82},
     * so that no two lines of the answer share a name.
     */
    static String[] serverNames(final DataPlane plane)
    {
        final Map<String, Integer> services = new HashMap<>();
        for (int slot = 1; slot < plane.serverSlots(); slot++)
        {
            final RealServer server = plane.server(slot);
            if (server != null)
            {
                services.merge(server.toString(), 1, Integer::sum);
            }
        }
        final String[] names = new String[plane.serverSlots()];
        for (int slot = 1; slot < plane.serverSlots(); slot++)
        {
            final RealServer server = plane.server(slot);
            if (server != null)
            {
                final String endpoint = server.toString();
                final VirtualService service = plane.service(plane.serviceOfServer(slot));
                names[slot] = services.get(endpoint) > 1 && service != null ?
                    "server." + endpoint + "@" + key(service) : "server." + endpoint;
            }
        }
        return names;
    }

    private static String key(final VirtualService service)
    {
        return service.key().toString().toLowerCase(Locale.ROOT).replace(' ', '-');
    }

    private static void line(final StringBuilder out, final String name, final long value)
    {
        out.append(name).append(' ').append(value).append('\n');
    }

}
