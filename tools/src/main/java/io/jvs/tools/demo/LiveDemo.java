package io.jvs.tools.demo;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * {@code jvs demo} as root: jvs balancing real HTTP traffic. It builds a two-arm NAT farm in network namespaces
 * <pre>
 *   client c0 10.0.0.2 --- lc 10.0.0.1 [jvs] ls 172.16.0.1 --- switch (br0) ---+--- eth0 172.16.0.2 rs1
 *                                                                             +--- eth0 172.16.0.3 rs2
 *                                                                             +--- eth0 172.16.0.4 rs3
 * </pre>
 * starts the daemon on it ({@code tools/jvs run}: AF_XDP on {@code lc} and {@code ls}, one worker, a wrr service
 * with weights 1, 2 and 3), an HTTP server on each real server ({@link DemoHttpServer}) and drives HTTP requests
 * from the client ({@link DemoHttpClient}) for a few seconds; then it prints each server's connections and share
 * against its weight, the packets per second through jvs and the requests' latency ({@link LiveReport}). The
 * programs run as child processes inside their namespaces, all starting at once. Whatever it made (namespaces,
 * processes) is removed when it ends, fails or is interrupted (a shutdown hook: Ctrl-C); the config and the
 * programs' logs stay in its directory.
 */
final class LiveDemo
{
    static final String VIP = "198.51.100.10";
    static final int VIP_PORT = 80;
    static final int SERVER_PORT = 8080;
    static final int[] WEIGHTS = {1, 2, 3};
    static final String CLIENT_ADDRESS = "10.0.0.2";
    static final String DIRECTOR_CLIENT_ADDRESS = "10.0.0.1";
    static final String DIRECTOR_SERVER_ADDRESS = "172.16.0.1";
    /** Requests the client keeps in flight. */
    static final int IN_FLIGHT = 8;
    /** Requests each of the client's connections carries before it opens the next. */
    static final int PER_CONNECTION = 20;

    /** The daemon's main class: tools/jvs's, as an operator runs it. */
    static final String DAEMON_CLASS = "io.jvs.tools.JvsMain";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(40);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);
    private static final String READY_LOG = " info ready: ";
    private static final int CONTROL_PATH_MAX = 107;

    private final String daemonClass;
    private final PrintWriter out;
    private final PrintWriter err;
    private final Path dir;
    private final double seconds;
    private final List<DemoProcess> processes = new CopyOnWriteArrayList<>();
    private volatile boolean cleaned;
    private volatile boolean interrupted;
    private final DemoNetwork network = new DemoNetwork(ProcessHandle.current().pid());

    /**
     * @param dir     where the config and the logs go (a {@code live} directory in it).
     * @param seconds how long the client drives.
     */
    LiveDemo(final PrintWriter out, final PrintWriter err, final Path dir, final double seconds)
    {
        this(out, err, dir, seconds, DAEMON_CLASS);
    }

    /**
     * @param daemonClass the daemon's main class, given {@code run --config FILE} (tests give one that fails).
     */
    LiveDemo(final PrintWriter out, final PrintWriter err, final Path dir, final double seconds,
        final String daemonClass)
    {
        this.daemonClass = daemonClass;
        this.out = out;
        this.err = err;
        this.dir = dir.resolve("live").toAbsolutePath();
        this.seconds = seconds;
    }

    /**
     * Runs the demo and removes what it made.
     *
     * @return 0 when jvs balanced every server and stopped cleanly; 1, after one line saying why, otherwise.
     */
    int run()
    {
        final long begin = System.nanoTime();
        final Thread hook = new Thread(this::interrupt, "jvs-demo-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        int status;
        try
        {
            status = demo(begin);
        }
        catch (final IllegalStateException | IllegalArgumentException ex)
        {
            status = fail(ex.getMessage());
        }
        catch (final IOException ex)
        {
            status = fail(ex.getClass().getSimpleName() + ": " + ex.getMessage());
        }
        finally
        {
            cleanUp();
            try
            {
                Runtime.getRuntime().removeShutdownHook(hook);
            }
            catch (final IllegalStateException ignored)
            {
                // Shutting down already: the hook has done the cleaning.
            }
        }
        final List<String> left = leftOver();
        if (!left.isEmpty())
        {
            return fail("could not remove the namespaces " + left + "; remove them with: ip netns delete NAME");
        }
        if (status == 0)
        {
            out.printf(Locale.ROOT, "removed the namespaces and processes; %.1f s in all%n", since(begin));
            out.flush();
        }
        return status;
    }

    /** @return this run's namespaces that are still there (none when they cannot even be listed). */
    private List<String> leftOver()
    {
        try
        {
            return DemoNetwork.list().stream().filter(name -> name.startsWith(network.prefix())).toList();
        }
        catch (final IllegalStateException ex)
        {
            return List.of();
        }
    }

    private int fail(final String why)
    {
        if (!interrupted)
        {
            err.println("jvs demo: " + why + " (the logs: " + dir + ")");
            err.flush();
        }
        return 1;
    }

    private void interrupt()
    {
        interrupted = true;
        if (!cleaned)
        {
            err.println("jvs demo: interrupted; removing its namespaces and processes");
            err.flush();
        }
        // Also when the main thread is cleaning already (a command of its got the Ctrl-C too and failed): the
        // hook waits for it, since the JVM halts when its hooks return.
        cleanUp();
    }

    /**
     * Stops every process (all asked at once, then each waited for) and removes the namespaces; once. A second
     * caller waits until the first is done.
     */
    private synchronized void cleanUp()
    {
        if (cleaned)
        {
            return;
        }
        cleaned = true;
        for (final DemoProcess process : processes)
        {
            process.terminate();
        }
        for (final DemoProcess process : processes)
        {
            process.close();
        }
        network.close();
    }

    private int demo(final long begin) throws IOException
    {
        final List<String> stale = DemoNetwork.removeStale();
        if (!stale.isEmpty())
        {
            out.println("removed what killed demos had left: the namespaces " + String.join(", ", stale));
        }
        Files.createDirectories(dir);
        final Path config = dir.resolve("jvs.conf");
        final Path control = dir.resolve("jvs.sock");
        if (control.toString().getBytes(StandardCharsets.UTF_8).length > CONTROL_PATH_MAX)
        {
            throw new IllegalArgumentException("the control socket's path " + control + " is longer than " +
                CONTROL_PATH_MAX + " bytes: give a shorter --dir");
        }
        Files.deleteIfExists(control);

        out.println("jvs demo: jvs balancing HTTP requests between three real servers, live, in network " +
            "namespaces " + network.prefix() + "*:");
        out.println("  client " + CLIENT_ADDRESS + " -- lc " + DIRECTOR_CLIENT_ADDRESS + " [jvs] ls " +
            DIRECTOR_SERVER_ADDRESS + " -- switch -- rs1 " + server(1) + ", rs2 " + server(2) + ", rs3 " + server(3));
        out.println("  the virtual service " + VIP + ":" + VIP_PORT + ", wrr, NAT to port " + SERVER_PORT +
            " with weights " + WEIGHTS[0] + ", " + WEIGHTS[1] + " and " + WEIGHTS[2] + "; AF_XDP on lc and ls, " +
            "one worker");
        out.flush();

        final long networkStart = System.nanoTime();
        final Topology topology = buildTopology();
        Files.writeString(config, config(control));
        out.printf(Locale.ROOT, "network up in %.2f s; starting jvs (tools/jvs run --config %s), the HTTP servers " +
            "and the client...%n", since(networkStart), config);
        out.flush();

        final long startup = System.nanoTime();
        final DemoProcess daemon = start(DemoProcess.start("jvs", topology.director(),
            daemonFlags(java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()),
            daemonClass, List.of("run", "--config", config.toString()), dir.resolve("jvs.log")));
        final List<DemoProcess> servers = new ArrayList<>();
        for (int i = 1; i <= WEIGHTS.length; i++)
        {
            // Small JVMs that start fast (C1 only): they answer a few thousand tiny requests a second.
            servers.add(start(DemoProcess.start("rs" + i, topology.servers().get(i - 1),
                List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx64m"), DemoHttpServer.class.getName(),
                List.of("rs" + i, server(i), Integer.toString(SERVER_PORT)), dir.resolve("rs" + i + ".log"))));
        }
        final DemoProcess client = start(DemoProcess.start("the client", topology.client(),
            List.of("-XX:+UseSerialGC", "-Xmx256m"), DemoHttpClient.class.getName(),
            List.of("http://" + VIP + ":" + VIP_PORT + "/", Double.toString(seconds), Integer.toString(IN_FLIGHT),
                Integer.toString(PER_CONNECTION)), dir.resolve("client.log")));
        final long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        for (final DemoProcess server : servers)
        {
            server.awaitLine(line -> line.startsWith(DemoHttpServer.READY), deadline, "listening");
        }
        client.awaitLine(DemoHttpClient.READY::equals, deadline, "ready");
        final String ready = daemon.awaitLine(line -> line.contains(READY_LOG), deadline, "ready");
        out.printf(Locale.ROOT, "jvs ready in %.1f s: %s%n", since(startup),
            ready.substring(ready.indexOf(READY_LOG) + READY_LOG.length()));
        out.printf(Locale.ROOT, "driving http://%s/ from the client for %s s: %d requests in flight, a new " +
            "connection every %d requests...%n%n", VIP, seconds(), IN_FLIGHT, PER_CONNECTION);
        out.flush();

        final Map<String, Long> before = DaemonStatus.read(control);
        final long driveStart = System.nanoTime();
        client.send(DemoHttpClient.GO);
        client.awaitLine(line -> line.equals(DemoHttpClient.RESULT + "end"),
            System.nanoTime() + Duration.ofMillis((long)(seconds * 1000)).plus(STOP_TIMEOUT).toNanos(), "done");
        final Map<String, Long> after = DaemonStatus.read(control);
        final double driven = since(driveStart);
        final DemoClientResult result = DemoClientResult.parse(client.lines());

        final List<LiveReport.Server> rows = new ArrayList<>();
        for (int i = 1; i <= WEIGHTS.length; i++)
        {
            final String key = "server." + server(i) + ":" + SERVER_PORT;
            rows.add(new LiveReport.Server("rs" + i, server(i) + ":" + SERVER_PORT,
                DaemonStatus.get(after, key + ".weight"), delta(before, after, key + ".connections"),
                result.answered().getOrDefault("rs" + i, 0L)));
        }
        final long[] packetLatency = {DaemonStatus.get(after, "latency.p50-ns"), DaemonStatus.get(after,
            "latency.p90-ns"), DaemonStatus.get(after, "latency.p99-ns"), DaemonStatus.get(after, "latency.p99.9-ns"),
            DaemonStatus.get(after, "latency.max-ns")};
        out.print(LiveReport.format(rows, delta(before, after, "frames"), delta(before, after, "dropped"), driven,
            result, packetLatency));
        out.println();
        out.flush();

        daemon.terminate();
        final int exit = daemon.awaitExit(STOP_TIMEOUT);
        if (exit != 0)
        {
            throw new IllegalStateException("jvs did not stop cleanly on SIGTERM: " +
                (exit < 0 ? "still running after " + STOP_TIMEOUT.toSeconds() + " s" : "exit status " + exit) +
                daemon.lastLine());
        }
        out.println("jvs stopped cleanly on SIGTERM (exit status 0)");
        out.flush();
        return verdict(rows, result);
    }

    /** @return 0 when every server answered and no request failed; else 1, saying why. */
    private int verdict(final List<LiveReport.Server> rows, final DemoClientResult result)
    {
        if (result.requests() == 0)
        {
            return fail("no request was answered" + (result.firstError() == null ? "" : ": " + result.firstError()));
        }
        for (final LiveReport.Server row : rows)
        {
            if (row.connections() == 0 || row.requests() == 0)
            {
                return fail(row.name() + " got " + row.connections() + " connections and answered " +
                    row.requests() + " requests: jvs did not balance");
            }
        }
        if (result.failed() > 0)
        {
            return fail(result.failed() + " of " + (result.failed() + result.requests()) + " requests failed; the " +
                "first: " + result.firstError());
        }
        return 0;
    }

    private DemoProcess start(final DemoProcess process)
    {
        processes.add(process);
        if (cleaned)
        {
            // Interrupted while it started: the cleaning may have missed it.
            process.close();
            throw new IllegalStateException("interrupted");
        }
        return process;
    }

    /** The namespaces made. */
    private record Topology(String client, String director, String serverSwitch, List<String> servers)
    {
    }

    private Topology buildTopology()
    {
        final String client = network.namespace("client");
        final String director = network.namespace("jvs");
        final String serverSwitch = network.namespace("switch");
        final List<String> servers = new ArrayList<>();
        for (int i = 1; i <= WEIGHTS.length; i++)
        {
            servers.add(network.namespace("rs" + i));
        }
        final List<String> all = new ArrayList<>(List.of(client, director, serverSwitch));
        all.addAll(servers);
        for (final String namespace : all)
        {
            // Before the veths arrive, as a device takes the namespace's defaults when it is registered: IPv4
            // only (no router solicitations or MLD reports to pass through), no reverse-path filter.
            DemoNetwork.exec(namespace, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1",
                "net.ipv6.conf.default.disable_ipv6=1", "net.ipv4.conf.all.rp_filter=0",
                "net.ipv4.conf.default.rp_filter=0");
        }
        // The client's veth goes straight to jvs's lc; the servers' side is a bridge in a namespace of its own,
        // so jvs's ls is one plain veth as it would be one NIC.
        DemoNetwork.ip(client, List.of(
            "link add c0 type veth peer name lc netns " + director,
            "addr add " + CLIENT_ADDRESS + "/24 dev c0",
            "link set dev c0 up",
            "route add " + VIP + "/32 via " + DIRECTOR_CLIENT_ADDRESS));
        final List<String> lan = new ArrayList<>(List.of("link add br0 type bridge", "link set dev br0 up"));
        lan.addAll(port("pl", director, "ls"));
        for (int i = 1; i <= WEIGHTS.length; i++)
        {
            lan.addAll(port("p" + i, servers.get(i - 1), "eth0"));
        }
        DemoNetwork.ip(serverSwitch, lan);
        DemoNetwork.ip(director, List.of(
            "addr add " + DIRECTOR_CLIENT_ADDRESS + "/24 dev lc",
            "link set dev lc up",
            "addr add " + DIRECTOR_SERVER_ADDRESS + "/24 dev ls",
            "link set dev ls up"));
        for (int i = 1; i <= WEIGHTS.length; i++)
        {
            DemoNetwork.ip(servers.get(i - 1), List.of(
                "addr add " + server(i) + "/24 dev eth0",
                "link set dev eth0 up",
                // NAT: the replies go back through jvs, which gives them the virtual address again.
                "route add default via " + DIRECTOR_SERVER_ADDRESS));
        }
        // A veth hands AF_XDP its sender's partial checksums (checksum offload) with nothing to say so: the
        // senders compute them.
        DemoNetwork.exec(client, "ethtool", "-K", "c0", "tx", "off");
        for (final String server : servers)
        {
            DemoNetwork.exec(server, "ethtool", "-K", "eth0", "tx", "off");
        }
        // The networks are a second old, where a real farm's neighbour caches are warm: jvs drops a packet to a
        // neighbour the kernel has not resolved yet while it asks the kernel to (KernelTopology), which would
        // cost each server's first connection a SYN retransmission, a second. A refused connection to each
        // (nothing listens on port 9) resolves them, both ways.
        final StringBuilder probe = new StringBuilder();
        for (int i = 1; i <= WEIGHTS.length; i++)
        {
            probe.append("(: </dev/tcp/").append(server(i)).append("/9) 2>/dev/null; ");
        }
        DemoNetwork.exec(director, "bash", "-c", probe + "true");
        DemoNetwork.exec(client, "bash", "-c", "(: </dev/tcp/" + DIRECTOR_CLIENT_ADDRESS + "/9) 2>/dev/null; true");
        return new Topology(client, director, serverSwitch, servers);
    }

    /**
     * The JVM flags of this JVM that {@code tools/jvs} gives the daemon too: the data path's compile commands
     * ({@code -XX:CompileCommandFile}, which it gives {@code demo} as it gives {@code run}) and the choice of object
     * references ({@code tools/jvm/jvs.options}, which it gives every command), so that the demo's daemon runs as
     * {@code tools/jvs run} would.
     */
    static List<String> daemonFlags(final List<String> inputArguments)
    {
        return inputArguments.stream().filter(flag -> flag.startsWith("-XX:CompileCommandFile=") ||
            flag.equals("-XX:-UseCompressedOops") || flag.equals("-XX:+UseCompressedOops")).toList();
    }

    /** A bridge port: a veth whose other end goes to the namespace it serves. */
    private static List<String> port(final String name, final String peerNamespace, final String peerName)
    {
        return List.of(
            "link add " + name + " type veth peer name " + peerName + " netns " + peerNamespace,
            "link set dev " + name + " master br0",
            "link set dev " + name + " up");
    }

    /** @return the daemon's config. */
    static String config(final Path control)
    {
        final StringBuilder config = new StringBuilder()
            .append("# tools/jvs demo: jvs as a two-arm NAT balancer in front of three HTTP servers\n")
            .append("interface lc port afxdp            # port 0: the client's side, ")
            .append(DIRECTOR_CLIENT_ADDRESS).append('\n')
            .append("interface ls port afxdp            # port 1: the servers' side, ")
            .append(DIRECTOR_SERVER_ADDRESS).append('\n')
            .append("workers 1\n")
            .append("connections 65536                  # per worker and address family: plenty for a demo\n")
            .append("control ").append(control).append('\n')
            .append("-A -t ").append(VIP).append(':').append(VIP_PORT).append(" -s wrr\n");
        for (int i = 1; i <= WEIGHTS.length; i++)
        {
            config.append("-a -t ").append(VIP).append(':').append(VIP_PORT).append(" -r ").append(server(i))
                .append(':').append(SERVER_PORT).append(" -m -w ").append(WEIGHTS[i - 1]).append('\n');
        }
        return config.toString();
    }

    /** @return real server i's address, 172.16.0.(1 + i). */
    static String server(final int i)
    {
        return "172.16.0." + (1 + i);
    }

    private String seconds()
    {
        return seconds == Math.rint(seconds) ? Long.toString((long)seconds) : Double.toString(seconds);
    }

    private static long delta(final Map<String, Long> before, final Map<String, Long> after, final String name)
    {
        return DaemonStatus.get(after, name) - DaemonStatus.get(before, name);
    }

    private static double since(final long start)
    {
        return (System.nanoTime() - start) / 1e9;
    }
}
