package io.jvs.tools.replay;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.Checksums;
import io.jvs.core.packet.Frames;
import io.jvs.core.pcap.PcapWriter;
import io.jvs.forwarder.config.JvsConfig;
import io.jvs.forwarder.replay.Replay;
import io.jvs.forwarder.replay.ReplayOptions;
import io.jvs.forwarder.replay.ReplayReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration files in {@code tools/examples} (the README's examples): each parses, and the firewall
 * sandwich does what its comments say, a client's requests and the servers' replies crossing one firewall.
 */
class ExampleConfigsTest
{
    private static final Path EXAMPLES = Path.of("examples");
    private static final long T0 = 1_767_225_600_000_000_000L;
    private static final int SYN = 0x02;
    private static final int ACK = 0x10;
    private static final int CLIENTS = 90;

    @TempDir
    Path dir;

    @Test
    void shouldParseEveryExampleConfiguration() throws Exception
    {
        final List<Path> files;
        try (Stream<Path> list = Files.list(EXAMPLES))
        {
            files = list.filter(file -> file.getFileName().toString().endsWith(".conf")).sorted().toList();
        }
        assertThat(files).extracting(file -> file.getFileName().toString()).contains("nat-two-arm.conf",
            "dr-one-arm.conf", "tunnel.conf", "sandwich-outside.conf", "sandwich-inside.conf");
        for (final Path file : files)
        {
            final JvsConfig config = JvsConfig.load(file);
            assertThat(config.interfaces()).as(file.toString()).isNotEmpty();
            assertThat(config.definesServices()).as(file.toString()).isTrue();
            assertThat(config.rules()).as(file.toString()).isNotEmpty();
        }
        assertThat(JvsConfig.load(EXAMPLES.resolve("sandwich-inside.conf")).markRules()).hasSize(1);
        final String readme = Files.readString(Path.of("../README.md"));
        for (final Path file : files)
        {
            assertThat(readme).as("the README shows %s as it is", file).contains("```\n" + Files.readString(file) +
                "```\n");
        }
    }

    @Test
    void shouldSendAClientsRequestsAndTheServersRepliesThroughTheSameFirewall() throws Exception
    {
        // The mark statements are what the daemon classifies by; replay marks every frame (--fwmark), so each
        // direction is replayed with the mark its box's statement gives it.
        final Path requests = dir.resolve("requests.pcap");
        final Path replies = dir.resolve("replies.pcap");
        try (PcapWriter in = PcapWriter.open(requests); PcapWriter back = PcapWriter.open(replies))
        {
            final ByteBuffer buffer = ByteBuffer.allocateDirect(128);
            final long frame = Frames.addressOf(buffer);
            for (int c = 0; c < CLIENTS; c++)
            {
                final String client = client(c);
                in.write(T0 + c * 1000L, frame, tcp(frame, client, 40000 + c, "203.0.113.80", 80, SYN));
                back.write(T0 + c * 1000L, frame, tcp(frame, "203.0.113.80", 80, client, 40000 + c, SYN | ACK));
            }
        }
        final Map<String, String> outside = firewalls("sandwich-outside.conf", requests, 1, 2);
        final Map<String, String> inside = firewalls("sandwich-inside.conf", replies, 2, 3);
        assertThat(outside).hasSize(CLIENTS);
        assertThat(outside.values()).as("every firewall takes some clients")
            .containsOnly("10.10.0.11:0", "10.10.0.12:0", "10.10.0.13:0").contains("10.10.0.11:0", "10.10.0.12:0",
                "10.10.0.13:0");
        for (final Map.Entry<String, String> entry : outside.entrySet())
        {
            assertThat(inside.get(entry.getKey())).as("the reply to %s", entry.getKey())
                .isEqualTo(entry.getValue().replace("10.10.0.", "10.20.0."));
        }
    }

    /** @return each client's firewall, from the replay's decisions (client is field 2 or 3, server field 4). */
    private Map<String, String> firewalls(final String example, final Path trace, final int mark,
        final int clientField) throws Exception
    {
        final Path decisions = dir.resolve(example + ".csv");
        final ReplayReport report = new Replay(new ReplayOptions(null, EXAMPLES.resolve(example), trace, null, null,
            false, decisions, 1, 4096, mark)).run();
        assertThat(report.forwarded()).as(example).isEqualTo(CLIENTS);
        final Map<String, String> result = new HashMap<>();
        for (final String line : Files.readAllLines(decisions).subList(1, CLIENTS + 1))
        {
            final String[] fields = line.split(",", -1);
            result.put(fields[clientField].split(":")[0], fields[4]);
        }
        return result;
    }

    private static String client(final int c)
    {
        return "100.64." + (c * 37 % 251) + "." + (1 + c * 113 % 253);
    }

    /** An Ethernet, IPv4 and TCP header, checksums right, from synth's router MAC to replay's port MAC. */
    private static int tcp(final long frame, final String source, final int sourcePort, final String destination,
        final int destinationPort, final int flags)
    {
        Frames.putU16(frame, 0x0200);
        Frames.putI32(frame + 2, 0x0000_0010);
        Frames.putU16(frame + 6, 0x0200);
        Frames.putI32(frame + 8, 0x0000_00FE);
        Frames.putU16(frame + 12, 0x0800);
        final long ip = frame + 14;
        Frames.putU8(ip, 0x45);
        Frames.putU8(ip + 1, 0);
        Frames.putU16(ip + 2, 40);
        Frames.putU16(ip + 4, 1);
        Frames.putU16(ip + 6, 0x4000);
        Frames.putU8(ip + 8, 64);
        Frames.putU8(ip + 9, 6);
        Frames.putU16(ip + 10, 0);
        Frames.putI32(ip + 12, IpAddress.parse(source).v4());
        Frames.putI32(ip + 16, IpAddress.parse(destination).v4());
        Frames.putU16(ip + 10, Checksums.ipv4HeaderChecksum(ip));
        final long tcp = ip + 20;
        Frames.putU16(tcp, sourcePort);
        Frames.putU16(tcp + 2, destinationPort);
        Frames.putI32(tcp + 4, 1000);
        Frames.putI32(tcp + 8, (flags & ACK) != 0 ? 2000 : 0);
        Frames.putU8(tcp + 12, 0x50);
        Frames.putU8(tcp + 13, flags);
        Frames.putU16(tcp + 14, 65535);
        Frames.putU16(tcp + 16, 0);
        Frames.putU16(tcp + 18, 0);
        Frames.putU16(tcp + 16, Checksums.transportChecksumV4(ip + 12, 6, tcp, 20));
        return 54;
    }
}
