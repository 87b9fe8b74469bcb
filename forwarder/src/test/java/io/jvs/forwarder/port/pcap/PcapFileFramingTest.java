package io.jvs.forwarder.port.pcap;

import io.jvs.core.packet.Frames;
import io.jvs.core.pcap.LinkType;
import io.jvs.core.pcap.PcapWriter;
import io.jvs.core.pcap.TimestampPrecision;
import io.jvs.forwarder.port.pcap.Captures.Frame;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Captures whose link layer is not Ethernet: refused by default, or given a synthesized Ethernet header in
 * place of their own.
 */
class PcapFileFramingTest
{
    private static final long DESTINATION = 0x02_00_00_00_00_0DL;
    private static final long SOURCE = 0x02_00_00_00_00_05L;
    private static final EthernetFraming SYNTHESIZED = EthernetFraming.synthesized(DESTINATION, SOURCE);
    private static final byte[] HEADER = {2, 0, 0, 0, 0, 0x0D, 2, 0, 0, 0, 0, 5};

    @TempDir
    Path dir;

    @Test
    void shouldRefuseACaptureThatIsNotEthernetUnlessToldToFrameIt()
    {
        final Path raw = Captures.corpus("babel_rtt.pcap");

        assertThatThrownBy(() -> PcapFilePort.open(0, raw))
            .isInstanceOf(PcapPortException.class)
            .hasMessageContaining(raw.toString())
            .hasMessageContaining("link type RAW (12)")
            .hasMessageContaining("EthernetFraming.synthesized");
    }

    @Test
    void shouldRefuseALinkTypeWithNoEthernetFormEvenWhenFraming()
    {
        final Path radio = Captures.corpus("ieee802.11_exthdr.pcap");

        assertThatThrownBy(() -> PcapFilePort.open(0, radio, PcapFileSettings.DEFAULT.withFraming(SYNTHESIZED)))
            .isInstanceOf(PcapPortException.class)
            .hasMessageContaining(radio.toString())
            .hasMessageContaining("IEEE802_11_RADIO (127)")
            .hasMessageContaining("no Ethernet form");
    }

    @ParameterizedTest
    @CsvSource({
        "babel_rtt.pcap, 0",
        "gquic.pcap, 0",
        "LINKTYPE_IPV4.pcap, 0",
        "hoobr_rt6_print.pcap, 0",
        "ikev2four.pcap, 4",
        "babel.pcap, 16"})
    void shouldPutAnEthernetHeaderInPlaceOfTheLinkHeader(final String name, final int linkHeaderLength)
    {
        final Path file = Captures.corpus(name);
        final List<Frame> all = Captures.readWithCore(file);
        // A cooked capture's packets of type 4 (PACKET_OUTGOING) the capturing host sent itself: skipped, as replay
        // skips them.
        final List<Frame> records = linkHeaderLength == 16 ?
            all.stream().filter(record -> !isOutgoing(record.bytes())).toList() : all;
        if (linkHeaderLength == 16)
        {
            assertThat(records).as("the cooked capture has packets the host sent").hasSizeLessThan(all.size());
        }

        try (PcapFilePort port = PcapFilePort.open(0, file, PcapFileSettings.DEFAULT.withFraming(SYNTHESIZED)))
        {
            final List<Frame> frames = Captures.readWithPort(port);

            assertThat(frames).hasSameSizeAs(records).isNotEmpty();
            assertThat(port.counters().rxOutgoing()).isEqualTo(all.size() - records.size());
            for (int i = 0; i < frames.size(); i++)
            {
                final byte[] record = records.get(i).bytes();
                final byte[] frame = frames.get(i).bytes();
                assertThat(frame).as("frame %d", i).startsWith(HEADER);
                assertThat(ByteBuffer.wrap(frame).getShort(12) & 0xFFFF).isEqualTo(etherType(record, linkHeaderLength));
                assertThat(ByteBuffer.wrap(frame, 14, frame.length - 14))
                    .isEqualTo(ByteBuffer.wrap(record, linkHeaderLength, record.length - linkHeaderLength));
                assertThat(frames.get(i).timestampNs()).isEqualTo(records.get(i).timestampNs());
            }
        }
    }

    private static boolean isOutgoing(final byte[] cooked)
    {
        return cooked[0] == 0 && cooked[1] == 4;
    }

    private static int etherType(final byte[] record, final int linkHeaderLength)
    {
        if (linkHeaderLength == 16)
        {
            return (record[14] & 0xFF) << 8 | record[15] & 0xFF;
        }
        final int version = (record[linkHeaderLength] & 0xFF) >> 4;
        return version == 4 ? 0x0800 : 0x86DD;
    }

    @Test
    void shouldSkipAndCountRawPacketsThatAreNeitherIpv4NorIpv6() throws IOException
    {
        final Path file = write(LinkType.RAW, packet(0x45, 40), packet(0x60, 48), packet(0x00, 30), packet(0x50, 20));

        try (PcapFilePort port = PcapFilePort.open(0, file, PcapFileSettings.DEFAULT.withFraming(SYNTHESIZED)))
        {
            final List<Frame> frames = Captures.readWithPort(port);

            assertThat(frames).extracting(frame -> frame.bytes().length).containsExactly(14 + 40, 14 + 48);
            assertThat(port.counters().rxNotEthernet()).isEqualTo(2);
        }
    }

    @Test
    void shouldReadTheBsdLoopbackFamilyInEitherByteOrder() throws IOException
    {
        final Path file = write(LinkType.NULL, family(2, false, 0x45), family(2, true, 0x45), family(30, false, 0x60),
            family(24, true, 0x60), family(10, false, 0x60), family(7, false, 0x45));

        try (PcapFilePort port = PcapFilePort.open(0, file, PcapFileSettings.DEFAULT.withFraming(SYNTHESIZED)))
        {
            final List<Frame> frames = Captures.readWithPort(port);

            assertThat(frames).extracting(frame -> ByteBuffer.wrap(frame.bytes()).getShort(12) & 0xFFFF)
                .containsExactly(0x0800, 0x0800, 0x86DD, 0x86DD, 0x86DD);
            assertThat(port.counters().rxNotEthernet()).isEqualTo(1);
        }
    }

    @Test
    void shouldReadTheOpenBsdLoopbackFamilyInNetworkOrderOnly() throws IOException
    {
        final Path file = write(LinkType.LOOP, family(2, true, 0x45), family(24, true, 0x60), family(2, false, 0x45));

        try (PcapFilePort port = PcapFilePort.open(0, file, PcapFileSettings.DEFAULT.withFraming(SYNTHESIZED)))
        {
            final List<Frame> frames = Captures.readWithPort(port);

            assertThat(frames).extracting(frame -> ByteBuffer.wrap(frame.bytes()).getShort(12) & 0xFFFF)
                .containsExactly(0x0800, 0x86DD);
            assertThat(frames.getFirst().bytes()).hasSize(14 + 20);
            assertThat(port.counters().rxNotEthernet()).isEqualTo(1);
        }
    }

    @Test
    void shouldTakeTheProtocolOfASecondVersionCookedHeader() throws IOException
    {
        final byte[] ipv6 = new byte[20 + 40];
        ipv6[0] = (byte)0x86;
        ipv6[1] = (byte)0xDD;
        ipv6[20] = 0x60;
        ipv6[59] = 0x77;

        final Path file = write(LinkType.LINUX_SLL2, ipv6);
        try (PcapFilePort port = PcapFilePort.open(0, file, PcapFileSettings.DEFAULT.withFraming(SYNTHESIZED)))
        {
            final byte[] frame = Captures.readWithPort(port).getFirst().bytes();

            assertThat(frame).hasSize(14 + 40).startsWith(HEADER);
            assertThat(ByteBuffer.wrap(frame).getShort(12)).isEqualTo((short)0x86DD);
            assertThat(frame[14]).isEqualTo((byte)0x60);
            assertThat(frame[14 + 39]).isEqualTo((byte)0x77);
        }
    }

    @Test
    void shouldSkipCookedPacketsWhoseProtocolIsNotAnEtherType() throws IOException
    {
        final byte[] arp = new byte[16 + 28];
        arp[14] = 0x08;
        arp[15] = 0x06;
        final byte[] llc = new byte[16 + 20];
        llc[15] = 0x04;

        final Path file = write(LinkType.LINUX_SLL, arp, llc);
        try (PcapFilePort port = PcapFilePort.open(0, file, PcapFileSettings.DEFAULT.withFraming(SYNTHESIZED)))
        {
            final List<Frame> frames = Captures.readWithPort(port);

            assertThat(frames).hasSize(1);
            assertThat(ByteBuffer.wrap(frames.getFirst().bytes()).getShort(12)).isEqualTo((short)0x0806);
            assertThat(frames.getFirst().bytes()).hasSize(14 + 28);
            assertThat(port.counters().rxNotEthernet()).isEqualTo(1);
        }
    }

    private static byte[] packet(final int first, final int length)
    {
        final byte[] bytes = new byte[length];
        bytes[0] = (byte)first;
        return bytes;
    }

    private static byte[] family(final int family, final boolean bigEndian, final int first)
    {
        final ByteBuffer bytes = ByteBuffer.allocate(24)
            .order(bigEndian ? java.nio.ByteOrder.BIG_ENDIAN : java.nio.ByteOrder.LITTLE_ENDIAN);
        bytes.putInt(family).put((byte)first);
        return bytes.array();
    }

    private Path write(final int linkType, final byte[]... packets) throws IOException
    {
        final Path file = dir.resolve("crafted-" + linkType + ".pcap");
        try (Arena arena = Arena.ofConfined();
            PcapWriter writer = PcapWriter.open(file, TimestampPrecision.NANOSECONDS, linkType, 65535))
        {
            final MemorySegment buffer = arena.allocate(2048);
            long timestampNs = 1_700_000_000_123_456_789L;
            for (final byte[] packet : packets)
            {
                Frames.write(packet, buffer.address());
                writer.write(timestampNs++, buffer.address(), packet.length);
            }
        }
        return file;
    }
}
