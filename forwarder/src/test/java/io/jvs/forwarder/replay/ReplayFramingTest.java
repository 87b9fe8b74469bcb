package io.jvs.forwarder.replay;

import io.jvs.core.packet.Frames;
import io.jvs.core.pcap.LinkType;
import io.jvs.core.pcap.PcapReader;
import io.jvs.core.pcap.PcapWriter;
import io.jvs.core.pcap.TimestampPrecision;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.pcap4j.packet.EthernetPacket;
import org.pcap4j.packet.IpV4Packet;
import org.pcap4j.packet.Packet;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Captures of other link layers replay as the Ethernet frames jvs would have received.
 */
class ReplayFramingTest
{
    private static final long T0 = 1_767_225_600_000_000_000L;

    @TempDir
    Path dir;

    @Test
    void shouldReplayLinuxCookedAndRawIpCapturesAndSkipWhatTheHostSent() throws Exception
    {
        final Path rules = Files.write(dir.resolve("r.rules"), List.of("-A -t 10.0.0.100:80 -s rr",
            "-a -t 10.0.0.100:80 -r 192.168.10.1:80 -m"));
        final Path ethernet = dir.resolve("ethernet.pcap");
        try (TestTrace trace = new TestTrace(ethernet))
        {
            for (int i = 0; i < 4; i++)
            {
                trace.tcp(T0 + i, "100.64.0." + (i + 1), 1000, "10.0.0.100", 80, TestTrace.SYN);
            }
        }
        final Path cooked = dir.resolve("cooked.pcap");
        final Path raw = dir.resolve("raw.pcap");
        final ByteBuffer buffer = ByteBuffer.allocateDirect(2048);
        final long record = Frames.addressOf(buffer);
        try (PcapReader reader = PcapReader.open(ethernet);
            PcapWriter sll = PcapWriter.open(cooked, TimestampPrecision.NANOSECONDS, LinkType.LINUX_SLL, 65535);
            PcapWriter ip = PcapWriter.open(raw, TimestampPrecision.NANOSECONDS, LinkType.RAW, 65535))
        {
            int i = 0;
            while (reader.next())
            {
                final int payload = reader.capturedLength() - 14;
                // packet type: the last record was sent by the capturing host (4), the others to it (0)
                Frames.putU16(record, i == 3 ? 4 : 0);
                Frames.putU16(record + 2, 1);
                Frames.putU16(record + 4, 6);
                Frames.putI64(record + 6, 0x0200_0000_0A0B_0000L);
                Frames.putU16(record + 14, 0x0800);
                Frames.copy(reader.address() + 14, record + 16, payload);
                sll.write(reader.timestampNs(), record, 16 + payload);
                ip.write(reader.timestampNs(), reader.address() + 14, payload);
                i++;
            }
        }
        final Path cookedOut = dir.resolve("cooked-out.pcap");
        final ReplayReport cookedReport = new Replay(ReplayOptions.of(rules, cooked, cookedOut)).run();
        assertThat(cookedReport.outgoingSkipped).isEqualTo(1);
        assertThat(cookedReport.framesIn()).isEqualTo(3);
        assertThat(cookedReport.forwarded()).isEqualTo(3);
        assertThat(cookedReport.linkTypes()).containsEntry("LINUX_SLL", 4L);

        final Path rawOut = dir.resolve("raw-out.pcap");
        final ReplayReport rawReport = new Replay(ReplayOptions.of(rules, raw, rawOut)).run();
        assertThat(rawReport.framesIn()).isEqualTo(4);
        assertThat(rawReport.forwarded()).isEqualTo(4);

        final List<Packet> packets = ReplayTest.readWithPcap4j(rawOut);
        for (final Packet packet : packets)
        {
            assertThat(packet.get(EthernetPacket.class).getHeader().getSrcAddr().toString())
                .isEqualTo("02:00:00:00:00:10");
            assertThat(packet.get(IpV4Packet.class).getHeader().getDstAddr().getHostAddress())
                .isEqualTo("192.168.10.1");
        }
    }

    @Test
    void shouldDropRecordsOfLinkLayersWithNoEthernetFormUnderTheirOwnReason() throws Exception
    {
        final Path rules = Files.write(dir.resolve("r.rules"), List.of("-A -t 10.0.0.100:80 -s rr"));
        final Path wifi = dir.resolve("wifi.pcap");
        final ByteBuffer buffer = ByteBuffer.allocateDirect(64);
        try (PcapWriter writer = PcapWriter.open(wifi, TimestampPrecision.MICROSECONDS, 105, 65535))
        {
            writer.write(T0, Frames.addressOf(buffer), 40);
            writer.write(T0 + 1000, Frames.addressOf(buffer), 24);
        }
        final ReplayReport report = new Replay(ReplayOptions.of(rules, wifi, null)).run();
        assertThat(report.framesIn()).isEqualTo(2);
        assertThat(report.dropped()).isEqualTo(2);
        assertThat(report.dropsByReason()).containsExactly(java.util.Map.entry(ReplayReport.UNSUPPORTED_LINK_TYPE, 2L));
    }

    @Test
    void shouldDropRecordsWhoseOwnHeaderNamesNothingAnEthernetFrameCarries() throws Exception
    {
        final Path rules = Files.write(dir.resolve("r.rules"), List.of("-A -t 10.0.0.100:80 -s rr"));
        final Path raw = dir.resolve("raw.pcap");
        final ByteBuffer buffer = ByteBuffer.allocateDirect(64);
        try (PcapWriter writer = PcapWriter.open(raw, TimestampPrecision.MICROSECONDS, LinkType.RAW, 65535))
        {
            // An IP version nibble of 5 and one of 0: raw IP with no Ethernet form; then an empty record.
            buffer.put(0, (byte)0x50);
            writer.write(T0, Frames.addressOf(buffer), 40);
            buffer.put(0, (byte)0x00);
            writer.write(T0 + 1000, Frames.addressOf(buffer), 40);
            writer.write(T0 + 2000, Frames.addressOf(buffer), 0);
        }
        final ReplayReport report = new Replay(ReplayOptions.of(rules, raw, null)).run();
        assertThat(report.framesIn()).isEqualTo(3);
        assertThat(report.dropped()).isEqualTo(3);
        assertThat(report.forwarded() + report.passed()).isZero();
        assertThat(report.dropsByReason()).containsExactly(java.util.Map.entry(ReplayReport.NO_ETHERNET_FORM, 3L));
    }
}
