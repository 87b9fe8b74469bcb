package io.jvs.forwarder.daemon.it;

import io.jvs.forwarder.daemon.it.LbTopology.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import io.jvs.nativebindings.testing.TestNetwork;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code offload on}: the NAT selftest's 30 TCP connections of 1 MiB, their established frames forwarded by the
 * AF_XDP ports' XDP program (XdpFlowTable) rather than by the worker, byte-exact; every connection offered once
 * established and withdrawn at its FIN; the frames the program forwarded counted in the service's and servers'
 * counters as the worker counts its own. The switch ports the director's veths lead to run NAPI (GRO on), as a
 * veth that takes redirected frames must (veth_xdp_xmit). Root only (namespaces, XDP).
 */
class DaemonOffloadTest
{
    private static final int PORT = 8080;
    private static final int MIB = 1 << 20;

    @TempDir
    Path directory;

    @Test
    void shouldForwardEstablishedNatConnectionsInXdpByteExactAndCountThem() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("doff").mode(Mode.NAT).realServers(3).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            switchPortsRunNapi(topology);
            topology.startTcpServers(PORT, false);
            final String config = DaemonConfigs.twoArm() + "offload on\n" + DaemonConfigs.service('t',
                topology.vip4(), PORT, "rr", 'm', DaemonConfigs.serversV4(topology), DaemonConfigs.ones(3));
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                final List<TcpDigestClient.Connection> connections = TcpDigestClient.run(topology.clientNamespace(),
                    TcpDigestClient.Load.of(new InetSocketAddress(topology.vip4(), PORT), 30, MIB).parallel(3));
                // Each connection is taken back at its FIN, and what the program forwarded for it counted then.
                final Map<String, Long> status = awaitStatus(daemon, "offload-withdrawn", 30);
                final String log = String.join("\n", daemon.log()) + "\n" + status;
                assertThat(TcpDigestClient.failures(connections)).as(log).isEmpty();
                assertThat(connections).allSatisfy(connection ->
                    assertThat(connection.bytesConfirmed()).isEqualTo(MIB));
                assertThat(status.get("offloaded")).as("offered once established: %s", log).isEqualTo(30);
                assertThat(status.get("offload-withdrawn")).as("withdrawn at the FINs").isEqualTo(30);
                assertThat(status.get("offload-refused")).isZero();
                for (final String drop : List.of("xdp-aborted", "xdp-socket-refused", "xdp-device-refused",
                    "xdp-transmit-dropped"))
                {
                    assertThat(status.get(drop)).as("counted, and nothing dropped: " + drop).isZero();
                }
                final String service = "service.tcp-" + topology.vip4().getHostAddress() + ":" + PORT + ".";
                final long packets = status.get(service + "inpkts") + status.get(service + "outpkts");
                assertThat(status.get("offloaded-frames")).as("most frames forwarded in XDP")
                    .isGreaterThan(packets / 2);
                assertThat(status.get("frames")).as("the worker saw the rest").isLessThan(packets / 2);
                assertThat(status.get(service + "inbytes") + status.get(service + "outbytes"))
                    .as("IP bytes both ways").isGreaterThan(30L * MIB);
                for (final String field : List.of("inpkts", "outpkts", "inbytes", "outbytes"))
                {
                    assertThat(status.entrySet().stream()
                        .filter(entry -> entry.getKey().startsWith("server.") && entry.getKey().endsWith("." + field))
                        .mapToLong(Map.Entry::getValue).sum()).as("servers' " + field)
                        .isEqualTo(status.get(service + field));
                }
                daemon.signal("TERM");
                assertThat(daemon.awaitExit(Duration.ofSeconds(20))).isZero();
                assertThat(Netns.ip(topology.directorNamespace(), "-d", "link")).doesNotContain("xdp");
            }
        }
    }

    @Test
    void shouldLeaveConnectionsToTheWorkersWhileNoPortTakesRedirectedFramesAndOffloadOnceOneDoes() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("doff2").mode(Mode.NAT).realServers(1).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            topology.startTcpServers(PORT, false);
            final String config = DaemonConfigs.twoArm() + "offload on\n" + DaemonConfigs.service('t',
                topology.vip4(), PORT, "rr", 'm', DaemonConfigs.serversV4(topology), DaemonConfigs.ones(1));
            try (DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config))
            {
                for (final String device : List.of(LbTopology.DIRECTOR_CLIENT_DEVICE + " (port 0)",
                    LbTopology.DIRECTOR_SERVER_DEVICE + " (port 1)"))
                {
                    assertThat(daemon.awaitLog("offload: " + device + ": its driver takes no redirected frames now",
                        Duration.ofSeconds(5))).contains(" warning ");
                }
                final InetSocketAddress vip = new InetSocketAddress(topology.vip4(), PORT);
                assertThat(TcpDigestClient.failures(TcpDigestClient.run(topology.clientNamespace(),
                    TcpDigestClient.Load.of(vip, 3, MIB)))).isEmpty();
                assertThat(daemon.status().get("offloaded")).as("nothing offered while no port takes any").isZero();

                // The server side's switch port runs NAPI: the clients' frames go in XDP, the replies through the
                // worker (the client side takes none: the program finds no egress for them).
                topology.inNamespace(topology.serverSwitchNamespace(), "ethtool", "-K", "pl", "gro", "on");
                daemon.awaitLog("offload: " + LbTopology.DIRECTOR_SERVER_DEVICE + " (port 1) takes redirected " +
                    "frames again", Duration.ofSeconds(5));
                final String service = "service.tcp-" + topology.vip4().getHostAddress() + ":" + PORT + ".";
                final Map<String, Long> before = daemon.status();
                final List<TcpDigestClient.Connection> connections = TcpDigestClient.run(topology.clientNamespace(),
                    TcpDigestClient.Load.of(vip, 3, MIB));
                assertThat(TcpDigestClient.failures(connections)).isEmpty();
                final Map<String, Long> status = awaitStatus(daemon, "offload-withdrawn", 3);
                assertThat(status.get("offloaded")).as("offered now: %s", status).isEqualTo(3);
                assertThat(status.get("offloaded-frames")).as("the uploads' segments").isGreaterThan(3L * MIB / 1500);
                assertThat(status.get("frames") - before.get("frames")).as("the replies, through the worker")
                    .isGreaterThanOrEqualTo(status.get(service + "outpkts") - before.get(service + "outpkts"));
            }
        }
    }

    /**
     * A UDP stream through an offloaded connection while the server side's switch port stops running NAPI: the
     * program still redirects the stream's frames there and the kernel refuses them (the veth no longer takes
     * redirected frames) until the conductor, seeing the refusals, takes the port out of the egresses (within
     * milliseconds, not at the next second's check); then the worker forwards them. Every
     * datagram the server missed is counted in the status as a refused redirect or an unsent transmit, but for the
     * few a veth frees uncounted from its peer's ring as NAPI stops (veth_napi_del: at most the ring's 256).
     */
    @Test
    void shouldCountTheFramesTheKernelRefusesWhenAnEgressStopsTakingRedirectedFrames() throws Exception
    {
        try (LbTopology topology = LbTopology.builder("doff3").mode(Mode.NAT).realServers(1).build())
        {
            DaemonConfigs.sendersComputeChecksums(topology);
            switchPortsRunNapi(topology);
            final String config = DaemonConfigs.twoArm() + "offload on\n" + DaemonConfigs.service('u',
                topology.vip4(), PORT, "rr", 'm', DaemonConfigs.serversV4(topology), DaemonConfigs.ones(1));
            try (DatagramSink sink = DatagramSink.open(topology.realServer(1).namespace(), PORT);
                 DaemonProcess daemon = DaemonProcess.start(topology.directorNamespace(), directory, config);
                 DatagramChannel client = TestNetwork.callIn(topology.clientNamespace(),
                     () -> DatagramChannel.open().connect(new InetSocketAddress(topology.vip4(), PORT))))
            {
                long sent = sendFor(client, Duration.ofSeconds(1));
                assertThat(awaitStatus(daemon, "offloaded", 1).get("offloaded")).as("the stream offloaded")
                    .isEqualTo(1);
                topology.inNamespace(topology.serverSwitchNamespace(), "ethtool", "-K", "pl", "gro", "off");
                sent += sendFor(client, Duration.ofSeconds(2));
                final long received = sink.awaitQuiet();
                final Map<String, Long> status = daemon.status();
                final long counted = status.get("xdp-device-refused") + status.get("xdp-transmit-dropped");
                final String what = "sent " + sent + ", received " + received + ": " + status;
                assertThat(status.get("xdp-device-refused")).as("refused while the port looked able: %s", what)
                    .isPositive()
                    // Taken out at the first refusals (looked for every 10 ms), not at the next second's check.
                    .isLessThan(sent / 15);
                assertThat(sent - received).as("what the server missed: %s", what)
                    .isGreaterThanOrEqualTo(counted).isLessThanOrEqualTo(counted + 256);
                assertThat(status.get("xdp." + LbTopology.DIRECTOR_CLIENT_DEVICE + ".device-refused"))
                    .as("counted on the interface the stream arrived by").isEqualTo(status.get("xdp-device-refused"));
            }
        }
    }

    /** The director's veths lead to switch ports that run NAPI (GRO on), so they take redirected frames. */
    private static void switchPortsRunNapi(final LbTopology topology)
    {
        for (final String namespace : List.of(topology.clientSwitchNamespace(), topology.serverSwitchNamespace()))
        {
            topology.inNamespace(namespace, "ethtool", "-K", "pl", "gro", "on");
        }
    }

    /** Sends 100-byte datagrams, about ten a millisecond, for {@code duration}; @return how many. */
    private static long sendFor(final DatagramChannel client, final Duration duration) throws Exception
    {
        final ByteBuffer payload = ByteBuffer.allocate(100);
        long sent = 0;
        final long end = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() - end < 0)
        {
            for (int i = 0; i < 10; i++)
            {
                payload.clear();
                client.write(payload);
                sent++;
            }
            Thread.sleep(1);
        }
        return sent;
    }

    /** Counts the datagrams a UDP port of a namespace receives, on a thread of its own. */
    private static final class DatagramSink implements AutoCloseable
    {
        private final DatagramChannel channel;
        private final AtomicLong received = new AtomicLong();
        private final Thread thread;

        private DatagramSink(final DatagramChannel channel)
        {
            this.channel = channel;
            thread = new Thread(this::receive, "datagram-sink");
            thread.setDaemon(true);
            thread.start();
        }

        static DatagramSink open(final String namespace, final int port)
        {
            return new DatagramSink(TestNetwork.callIn(namespace, () ->
            {
                final DatagramChannel channel = DatagramChannel.open(StandardProtocolFamily.INET);
                channel.setOption(StandardSocketOptions.SO_RCVBUF, 8 << 20);
                return channel.bind(new InetSocketAddress(port));
            }));
        }

        private void receive()
        {
            final ByteBuffer buffer = ByteBuffer.allocate(2048);
            try
            {
                while (true)
                {
                    buffer.clear();
                    channel.receive(buffer);
                    received.incrementAndGet();
                }
            }
            catch (final IOException ex)
            {
                // Closed: the test is over.
            }
        }

        /** @return how many arrived, once none has for half a second. */
        long awaitQuiet() throws InterruptedException
        {
            long before = -1;
            while (received.get() != before)
            {
                before = received.get();
                Thread.sleep(500);
            }
            return before;
        }

        @Override
        public void close() throws Exception
        {
            channel.close();
            thread.join(5_000);
        }
    }

    /** @return the daemon's status once {@code key} reached {@code value}, or after 10 s, whatever it says then. */
    private static Map<String, Long> awaitStatus(final DaemonProcess daemon, final String key, final long value)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        Map<String, Long> status = daemon.status();
        while (status.getOrDefault(key, -1L) < value && System.nanoTime() - deadline < 0)
        {
            Thread.sleep(50);
            status = daemon.status();
        }
        return status;
    }
}
