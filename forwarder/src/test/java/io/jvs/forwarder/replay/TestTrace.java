package io.jvs.forwarder.replay;

import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.Checksums;
import io.jvs.core.packet.Frames;
import io.jvs.core.pcap.LinkType;
import io.jvs.core.pcap.PcapWriter;
import io.jvs.core.pcap.TimestampPrecision;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * Writes small hand-made captures for the replay tests: IPv4 TCP and UDP frames from the router to the
 * balancer (the default configuration's MACs), with valid checksums, at the times given.
 */
final class TestTrace implements AutoCloseable
{
    static final int SYN = 0x02;
    static final int ACK = 0x10;
    static final int FIN = 0x01;
    static final int RST = 0x04;

    private final PcapWriter writer;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(4096);
    private final long frame = Frames.addressOf(buffer);

    TestTrace(final Path file) throws IOException
    {
        this(file, TimestampPrecision.NANOSECONDS, LinkType.ETHERNET);
    }

    TestTrace(final Path file, final TimestampPrecision precision, final int linkType) throws IOException
    {
        writer = PcapWriter.open(file, precision, linkType, PcapWriter.DEFAULT_SNAP_LENGTH);
    }

    /** A TCP segment without payload. */
    void tcp(final long timeNs, final String source, final int sourcePort, final String destination,
        final int destinationPort, final int flags) throws IOException
    {
        final int length = ipv4(source, destination, 6, 20);
        final long tcp = frame + 34;
        Frames.putU16(tcp, sourcePort);
        Frames.putU16(tcp + 2, destinationPort);
        Frames.putI32(tcp + 4, 1000);
        Frames.putI32(tcp + 8, (flags & ACK) != 0 ? 2000 : 0);
        Frames.putU8(tcp + 12, 0x50);
        Frames.putU8(tcp + 13, flags);
        Frames.putU16(tcp + 14, 65535);
        Frames.putU16(tcp + 16, 0);
        Frames.putU16(tcp + 18, 0);
        Frames.putU16(tcp + 16, Checksums.transportChecksumV4(frame + 26, 6, tcp, 20));
        writer.write(timeNs, frame, length);
    }

    /** A UDP datagram with an 8-byte payload. */
    void udp(final long timeNs, final String source, final int sourcePort, final String destination,
        final int destinationPort) throws IOException
    {
        final int length = ipv4(source, destination, 17, 16);
        final long udp = frame + 34;
        Frames.putU16(udp, sourcePort);
        Frames.putU16(udp + 2, destinationPort);
        Frames.putU16(udp + 4, 16);
        Frames.putU16(udp + 6, 0);
        Frames.putI64(udp + 8, 0x6A76_7300_0000_0001L);
        Frames.putU16(udp + 6, Checksums.transportChecksumV4(frame + 26, 17, udp, 16));
        writer.write(timeNs, frame, length);
    }

    /** Raw bytes as a record. */
    void raw(final long timeNs, final byte[] bytes, final long originalLength) throws IOException
    {
        Frames.write(bytes, frame);
        writer.write(timeNs, frame, bytes.length, originalLength);
    }

    private int ipv4(final String source, final String destination, final int protocol, final int l4Length)
    {
        final long eth = frame;
        Frames.putU16(eth, 0x0200);
        Frames.putI32(eth + 2, 0x0000_0010);
        Frames.putU16(eth + 6, 0x0200);
        Frames.putI32(eth + 8, 0x0000_00FE);
        Frames.putU16(eth + 12, 0x0800);
        final long ip = frame + 14;
        Frames.putU8(ip, 0x45);
        Frames.putU8(ip + 1, 0);
        Frames.putU16(ip + 2, 20 + l4Length);
        Frames.putU16(ip + 4, 1);
        Frames.putU16(ip + 6, 0x4000);
        Frames.putU8(ip + 8, 64);
        Frames.putU8(ip + 9, protocol);
        Frames.putU16(ip + 10, 0);
        Frames.putI32(ip + 12, IpAddress.parse(source).v4());
        Frames.putI32(ip + 16, IpAddress.parse(destination).v4());
        Frames.putU16(ip + 10, Checksums.ipv4HeaderChecksum(ip));
        return 14 + 20 + l4Length;
    }

    @Override
    public void close() throws IOException
    {
        writer.close();
    }
}
