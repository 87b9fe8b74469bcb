package io.jvs.forwarder.replay;

import io.jvs.core.pcap.LinkType;
import io.jvs.core.pcap.PcapReader;
import io.jvs.core.pcap.TimestampPrecision;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.pcap4j.core.PcapHandle;
import org.pcap4j.core.Pcaps;
import org.pcap4j.packet.EthernetPacket;
import org.pcap4j.packet.IpV4Packet;
import org.pcap4j.packet.Packet;
import org.pcap4j.packet.TcpPacket;
import org.pcap4j.packet.UdpPacket;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ReplayTest
{
    private static final long SECOND = 1_000_000_000L;
    private static final long T0 = 1_767_225_600L * SECOND;

    @TempDir
    Path dir;

    private Path rules(final String... lines) throws Exception
    {
        return Files.write(dir.resolve("test.rules"), List.of(lines));
    }

    private ReplayReport replay(final ReplayOptions options) throws Exception
    {
        final ReplayReport report = new Replay(options).run();
        assertThat(report.framesIn()).as("in = forwarded + passed + dropped")
            .isEqualTo(report.forwarded() + report.passed() + report.dropped());
        return report;
    }

    private static ReplayOptions options(final Path rules, final Path in, final Path out, final Path decisions,
        final int workers)
    {
        return new ReplayOptions(rules, null, in, null, out, false, decisions, workers,
            ReplayOptions.DEFAULT_CONNECTIONS / 64, 0);
    }

    @Test
    void shouldRewriteNatFramesWithValidChecksumsAndLogEveryDecisionInWrrOrder() throws Exception
    {
        final Path rules = rules("-A -t 10.0.0.100:80 -s wrr",
            "-a -t 10.0.0.100:80 -r 192.168.10.1:8080 -m -w 1",
            "-a -t 10.0.0.100:80 -r 192.168.10.2:8080 -m -w 3");
        final Path in = dir.resolve("in.pcap");
        try (TestTrace trace = new TestTrace(in))
        {
            for (int client = 0; client < 8; client++)
            {
                trace.tcp(T0 + client * SECOND / 100, "100.64.0." + (client + 1), 40000 + client, "10.0.0.100", 80,
                    TestTrace.SYN);
            }
            trace.udp(T0 + SECOND, "100.64.0.1", 5353, "10.9.9.9", 53);
        }
        final Path out = dir.resolve("out.pcap");
        final Path decisions = dir.resolve("decisions.csv");
        final ReplayReport report = replay(options(rules, in, out, decisions, 1));

        assertThat(report.framesIn()).isEqualTo(9);
        assertThat(report.forwarded()).isEqualTo(8);
        assertThat(report.passed()).as("the datagram for no service goes to the host").isEqualTo(1);
        assertThat(report.connections()).isEqualTo(8);
        final List<String> lines = Files.readAllLines(decisions);
        assertThat(lines.get(0)).isEqualTo(ReplayOutput.DECISIONS_HEADER);
        assertThat(lines).hasSize(9);
        assertThat(lines.get(1)).isEqualTo("2026-01-01T00:00:00Z,tcp,100.64.0.1:40000,10.0.0.100:80,192.168.10.2:8080,");
        // wrr 1:3 (the newest server listed first, as the kernel): .2 .2 .2 .1 per cycle
        assertThat(lines.subList(1, 9).stream().map(line -> line.split(",")[4]).toList()).containsExactly(
            "192.168.10.2:8080", "192.168.10.2:8080", "192.168.10.2:8080", "192.168.10.1:8080",
            "192.168.10.2:8080", "192.168.10.2:8080", "192.168.10.2:8080", "192.168.10.1:8080");

        final List<Packet> packets = readWithPcap4j(out);
        assertThat(packets).hasSize(8);
        for (int i = 0; i < packets.size(); i++)
        {
            final IpV4Packet ip = packets.get(i).get(IpV4Packet.class);
            final TcpPacket tcp = packets.get(i).get(TcpPacket.class);
            assertThat(ip.getHeader().getDstAddr().getHostAddress()).isEqualTo(lines.get(i + 1).split(",")[4]
                .split(":")[0]);
            assertThat(ip.getHeader().getSrcAddr().getHostAddress()).isEqualTo("100.64.0." + (i + 1));
            assertThat(tcp.getHeader().getDstPort().valueAsInt()).isEqualTo(8080);
            assertThat(ip.getHeader().hasValidChecksum(false)).isTrue();
            assertThat(tcp.hasValidChecksum(ip.getHeader().getSrcAddr(), ip.getHeader().getDstAddr(), false)).isTrue();
            assertThat(packets.get(i).get(EthernetPacket.class).getHeader().getDstAddr().toString())
                .as("the server's derived MAC").startsWith("02:6a:c0:a8:0a:0");
        }
    }

    @Test
    void shouldForwardDirectRoutingFramesWithOnlyTheMacChanged() throws Exception
    {
        final Path rules = rules("-A -u 10.0.0.100:53 -s rr", "-a -u 10.0.0.100:53 -r 192.168.10.7:53 -g");
        final Path config = Files.write(dir.resolve("box.conf"), List.of(
            "port 0 mac 02:00:00:00:00:10 mtu 1500 ipv4 192.0.2.1",
            "neighbour 192.168.10.7 mac 02:00:00:00:07:07  # the real server"));
        final Path in = dir.resolve("in.pcap");
        try (TestTrace trace = new TestTrace(in))
        {
            trace.udp(T0, "100.64.0.9", 3333, "10.0.0.100", 53);
        }
        final Path out = dir.resolve("out.pcap");
        final ReplayReport report = replay(new ReplayOptions(rules, config, in, null, out, false, null, 1, 4096, 0));
        assertThat(report.forwarded()).isEqualTo(1);
        final Packet packet = readWithPcap4j(out).get(0);
        assertThat(packet.get(EthernetPacket.class).getHeader().getDstAddr().toString()).isEqualTo("02:00:00:00:07:07");
        assertThat(packet.get(EthernetPacket.class).getHeader().getSrcAddr().toString()).isEqualTo("02:00:00:00:00:10");
        final IpV4Packet ip = packet.get(IpV4Packet.class);
        assertThat(ip.getHeader().getDstAddr().getHostAddress()).isEqualTo("10.0.0.100");
        assertThat(ip.getHeader().hasValidChecksum(false)).isTrue();
        assertThat(packet.get(UdpPacket.class).hasValidChecksum(ip.getHeader().getSrcAddr(),
            ip.getHeader().getDstAddr(), false)).isTrue();
    }

    @Test
    void shouldExpireConnectionsOnTheCaptureClock() throws Exception
    {
        final Path rules = rules("-A -u 10.0.0.100:53 -s rr", "-a -u 10.0.0.100:53 -r 192.168.10.1:53 -m",
            "-a -u 10.0.0.100:53 -r 192.168.10.2:53 -m");
        final Path in = dir.resolve("in.pcap");
        try (TestTrace trace = new TestTrace(in))
        {
            trace.udp(T0, "100.64.0.1", 1000, "10.0.0.100", 53);
            trace.udp(T0 + 299 * SECOND, "100.64.0.1", 1000, "10.0.0.100", 53);
            // 301 s after the last datagram: past the UDP timeout of 300 s, so a new connection
            trace.udp(T0 + 600 * SECOND, "100.64.0.1", 1000, "10.0.0.100", 53);
        }
        final Path decisions = dir.resolve("decisions.csv");
        final ReplayReport report = replay(options(rules, in, null, decisions, 1));
        assertThat(report.connections()).isEqualTo(2);
        assertThat(Files.readAllLines(decisions)).hasSize(3);
        assertThat(report.wallSeconds()).as("virtual time, not real").isLessThan(60);
    }

    @Test
    void shouldExpireOnTheTimeoutsARulesFilesSetLineGives() throws Exception
    {
        // ipvsadm --set tcp tcpfin udp: a UDP timeout of 10 s, so the datagram 20 s later opens a connection again.
        final Path rules = rules("-A -u 10.0.0.100:53 -s rr", "-a -u 10.0.0.100:53 -r 192.168.10.1:53 -m",
            "--set 0 0 10");
        final Path in = dir.resolve("in.pcap");
        try (TestTrace trace = new TestTrace(in))
        {
            trace.udp(T0, "100.64.0.1", 1000, "10.0.0.100", 53);
            trace.udp(T0 + 20 * SECOND, "100.64.0.1", 1000, "10.0.0.100", 53);
        }
        assertThat(replay(options(rules, in, null, null, 1)).connections()).isEqualTo(2);
    }

    @Test
    void shouldCountOutOfOrderAndTruncatedRecordsAndWriteEverythingMarkedWithAll() throws Exception
    {
        final Path rules = rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.10.1:80 -m");
        final Path in = dir.resolve("in.pcap");
        try (TestTrace trace = new TestTrace(in))
        {
            trace.tcp(T0 + 10 * SECOND, "100.64.0.1", 1000, "10.0.0.100", 80, TestTrace.SYN);
            trace.tcp(T0, "100.64.0.2", 1000, "10.0.0.100", 80, TestTrace.SYN);
            trace.raw(T0 + 11 * SECOND, new byte[] {2, 0, 0, 0, 0, 0x10, 2, 0, 0, 0, 0, (byte)0xFE, 8, 0, 0x45, 0}, 60);
        }
        final Path out = dir.resolve("all.pcapng");
        final ReplayReport report = replay(new ReplayOptions(rules, null, in, null, out, true, null, 1, 4096, 0));
        assertThat(report.outOfOrder()).isEqualTo(1);
        assertThat(report.snapTruncated()).isEqualTo(1);
        assertThat(report.forwarded()).isEqualTo(2);
        // Both were replayed, the out-of-order SYN forwarded: the summary says so, not "not replayed".
        assertThat(ReplayReportFormat.table(report)).contains("records not replayed: filtered out 0, sent by the " +
            "capturing host 0; replayed as captured: snap-truncated 1, out of order 1 (on the clock of the record " +
            "before);");
        assertThat(report.dropsByReason()).containsEntry("truncated", 1L);
        assertThat(report.written()).isEqualTo(3);
        final List<String> comments = new ArrayList<>();
        try (PcapHandle handle = Pcaps.openOffline(out.toString(), PcapHandle.TimestampPrecision.NANO))
        {
            for (Packet packet = handle.getNextPacket(); packet != null; packet = handle.getNextPacket())
            {
                comments.add(packet.getClass().getSimpleName());
            }
        }
        assertThat(comments).hasSize(3);
        final byte[] bytes = Files.readAllBytes(out);
        final String text = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
        assertThat(text).contains("jvs: transmit:0").contains("jvs: drop:truncated");
        try (PcapReader reader = PcapReader.open(out))
        {
            int records = 0;
            long previous = Long.MIN_VALUE;
            while (reader.next())
            {
                records++;
                assertThat(reader.linkType()).isEqualTo(LinkType.ETHERNET);
                if (records == 2)
                {
                    assertThat(reader.timestampNs()).as("the capture's own timestamp, out of order").isLessThan(previous);
                }
                previous = reader.timestampNs();
            }
            assertThat(records).isEqualTo(3);
        }
    }

    @Test
    void shouldGiveIdenticalOutputForTheSameInputWithOneOrSeveralWorkers() throws Exception
    {
        final Path rules = rules("-A -t 10.0.0.100:80 -s wlc", "-a -t 10.0.0.100:80 -r 192.168.10.1:80 -m -w 2",
            "-a -t 10.0.0.100:80 -r 192.168.10.2:80 -m -w 1", "-a -t 10.0.0.100:80 -r 192.168.10.3:80 -m -w 1");
        final Path in = dir.resolve("in.pcap");
        try (TestTrace trace = new TestTrace(in, TimestampPrecision.MICROSECONDS, LinkType.ETHERNET))
        {
            for (int i = 0; i < 3000; i++)
            {
                final String client = "100.64." + (i % 7) + "." + (i % 211 + 1);
                trace.tcp(T0 + i * 1_000_000L, client, 1024 + i % 5000, "10.0.0.100", 80,
                    i % 3 == 0 ? TestTrace.SYN : i % 3 == 1 ? TestTrace.ACK : TestTrace.FIN | TestTrace.ACK);
            }
        }
        for (final int workers : new int[] {1, 3})
        {
            final byte[][] outputs = new byte[2][];
            final byte[][] decisions = new byte[2][];
            for (int run = 0; run < 2; run++)
            {
                final Path out = dir.resolve("out-" + workers + "-" + run + ".pcap");
                final Path log = dir.resolve("decisions-" + workers + "-" + run + ".csv");
                final ReplayReport report = replay(options(rules, in, out, log, workers));
                assertThat(report.framesIn()).isEqualTo(3000);
                assertThat(report.connections()).isPositive();
                outputs[run] = Files.readAllBytes(out);
                decisions[run] = Files.readAllBytes(log);
            }
            assertThat(outputs[1]).as("output of run 2 with %d workers", workers).isEqualTo(outputs[0]);
            assertThat(decisions[1]).isEqualTo(decisions[0]);
            assertThat(outputs[0].length).isGreaterThan(24 + 16 + 54);
            assertThat(readMagic(dir.resolve("out-" + workers + "-0.pcap"))).as("microseconds in, microseconds out")
                .isEqualTo(0xA1B2C3D4);
        }
    }

    @ParameterizedTest(name = "{0} workers")
    @ValueSource(ints = {1, 2, 5})
    void shouldSendNatRepliesBackAsFromTheVirtualServiceWhateverTheWorkerCount(final int workers) throws Exception
    {
        final Path rules = rules("-A -t 10.0.0.100:80 -s rr", "-a -t 10.0.0.100:80 -r 192.168.10.1:8080 -m");
        final Path in = dir.resolve("in.pcap");
        try (TestTrace trace = new TestTrace(in))
        {
            for (int client = 1; client <= 20; client++)
            {
                trace.tcp(T0 + client * 1000L, "100.64.0." + client, 5000 + client, "10.0.0.100", 80, TestTrace.SYN);
            }
            for (int client = 1; client <= 20; client++)
            {
                // The server's SYN-ACK, from its own address and port: jvs must make it come from the VIP.
                trace.tcp(T0 + SECOND + client * 1000L, "192.168.10.1", 8080, "100.64.0." + client, 5000 + client,
                    TestTrace.SYN | TestTrace.ACK);
            }
        }
        final Path out = dir.resolve("out.pcap");
        final ReplayReport report = replay(options(rules, in, out, null, workers));
        assertThat(report.forwarded()).as("20 SYNs and 20 replies").isEqualTo(40);
        final List<Packet> packets = readWithPcap4j(out);
        for (final Packet packet : packets.subList(20, 40))
        {
            final IpV4Packet ip = packet.get(IpV4Packet.class);
            assertThat(ip.getHeader().getSrcAddr().getHostAddress()).isEqualTo("10.0.0.100");
            assertThat(packet.get(TcpPacket.class).getHeader().getSrcPort().valueAsInt()).isEqualTo(80);
            assertThat(packet.get(TcpPacket.class).hasValidChecksum(ip.getHeader().getSrcAddr(),
                ip.getHeader().getDstAddr(), false)).isTrue();
        }
    }

    @Test
    void shouldReplayOnlyWhatTheFilterMatches() throws Exception
    {
        final Path rules = rules("-A -u 10.0.0.100:53 -s rr", "-a -u 10.0.0.100:53 -r 192.168.10.1:53 -m");
        final Path in = dir.resolve("in.pcap");
        try (TestTrace trace = new TestTrace(in))
        {
            trace.udp(T0, "100.64.0.1", 1000, "10.0.0.100", 53);
            trace.tcp(T0 + 1, "100.64.0.1", 1000, "10.0.0.100", 80, TestTrace.SYN);
            trace.udp(T0 + 2, "100.64.0.2", 1000, "10.0.0.100", 53);
        }
        final ReplayReport report = replay(new ReplayOptions(rules, null, in, "udp and dst port 53", null, false, null,
            1, 4096, 0));
        assertThat(report.records()).isEqualTo(3);
        assertThat(report.filteredOut()).isEqualTo(1);
        assertThat(report.framesIn()).isEqualTo(2);
        assertThat(report.forwarded()).isEqualTo(2);
    }

    private static int readMagic(final Path file) throws Exception
    {
        final byte[] bytes = Files.readAllBytes(file);
        return (bytes[3] & 0xFF) << 24 | (bytes[2] & 0xFF) << 16 | (bytes[1] & 0xFF) << 8 | (bytes[0] & 0xFF);
    }

    static List<Packet> readWithPcap4j(final Path file) throws Exception
    {
        final List<Packet> packets = new ArrayList<>();
        try (PcapHandle handle = Pcaps.openOffline(file.toString(), PcapHandle.TimestampPrecision.NANO))
        {
            for (Packet packet = handle.getNextPacket(); packet != null; packet = handle.getNextPacket())
            {
                packets.add(packet);
            }
        }
        return packets;
    }
}
