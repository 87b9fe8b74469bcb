package io.jvs.forwarder.synth;

import io.jvs.core.packet.Checksums;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.Ipv4Header;
import io.jvs.core.packet.PacketParser;
import io.jvs.core.packet.ParsedBurst;
import io.jvs.core.pcap.PcapReader;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A synthetic trace read back with core's PcapReader and parsed with core's PacketParser, frame by frame,
 * for the tests to look at without touching off-heap memory.
 */
final class TraceFrames
{
    /**
     * One frame and what the parser made of it.
     *
     * @param checksumsValid for a well-formed frame: the IPv4 header checksum and, unless it is a fragment, the
     *                       TCP, UDP, ICMP or ICMPv6 checksum are right.
     */
    record Frame(
        long timestampNs,
        byte[] bytes,
        int verdict,
        int kind,
        int l3Offset,
        int l4Offset,
        int l4Length,
        int protocol,
        long sourceHigh,
        long sourceLow,
        long destinationHigh,
        long destinationLow,
        int sourcePort,
        int destinationPort,
        int tcpFlags,
        int fragment,
        int ttl,
        boolean checksumsValid)
    {
        boolean isV6()
        {
            return kind == ParsedBurst.KIND_IPV6;
        }

        int u8(final int offset)
        {
            return bytes[offset] & 0xFF;
        }

        int u16(final int offset)
        {
            return u8(offset) << 8 | u8(offset + 1);
        }

        int i32(final int offset)
        {
            return u16(offset) << 16 | u16(offset + 2);
        }

        long i64(final int offset)
        {
            return (long)i32(offset) << 32 | (i32(offset + 4) & 0xFFFF_FFFFL);
        }

        /** @return the destination and port as text, e.g. 10.0.0.100:80 or the v6 halves. */
        String destination()
        {
            return destinationHigh + "/" + destinationLow + ":" + destinationPort;
        }
    }

    private TraceFrames()
    {
    }

    static List<Frame> read(final Path path) throws IOException
    {
        final List<Frame> frames = new ArrayList<>();
        final PacketParser parser = new PacketParser(true, true);
        final ParsedBurst parsed = new ParsedBurst(1);
        try (PcapReader reader = PcapReader.open(path))
        {
            while (reader.next())
            {
                final long address = reader.address();
                final int length = reader.capturedLength();
                final int verdict = parser.parse(address, length, parsed, 0);
                frames.add(new Frame(reader.timestampNs(), Frames.read(address, length), verdict, parsed.kind(0),
                    parsed.l3Offset(0), parsed.l4Offset(0), parsed.l4Length(0), parsed.protocol(0),
                    parsed.sourceHigh(0), parsed.sourceLow(0), parsed.destinationHigh(0), parsed.destinationLow(0),
                    parsed.sourcePort(0), parsed.destinationPort(0), parsed.tcpFlags(0), parsed.fragment(0),
                    parsed.ttl(0), verdict == 0 && checksumsValid(address, parsed)));
            }
        }
        return frames;
    }

    private static boolean checksumsValid(final long frame, final ParsedBurst parsed)
    {
        final long ip = frame + parsed.l3Offset(0);
        final boolean v6 = parsed.kind(0) == ParsedBurst.KIND_IPV6;
        if (!v6 && !Checksums.isIpv4HeaderChecksumValid(ip))
        {
            return false;
        }
        if (parsed.fragment(0) != ParsedBurst.FRAGMENT_NONE)
        {
            return true;
        }
        final long segment = frame + parsed.l4Offset(0);
        final int length = parsed.l4Length(0);
        return v6 ? Checksums.isTransportChecksumValidV6(ip + 8, parsed.protocol(0), segment, length) :
            parsed.protocol(0) == Ipv4Header.PROTOCOL_ICMP ? Checksums.checksum(segment, length) == 0 :
            Checksums.isTransportChecksumValidV4(ip + 12, parsed.protocol(0), segment, length);
    }
}
