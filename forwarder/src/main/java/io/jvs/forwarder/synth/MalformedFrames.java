package io.jvs.forwarder.synth;

import io.jvs.core.packet.Checksums;
import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.Ipv4Header;
import io.jvs.core.packet.Ipv6Header;
import io.jvs.core.packet.L4Headers;

/**
 * Damages a well-formed frame into one of the {@link MalformedKind}s: a frame is built for the endpoint as
 * usual, then exactly one thing is broken, and every checksum the damage touches is set right again, so the
 * defect is the named one and nothing else.
 */
final class MalformedFrames
{
    private static final int SMALLEST_TCP_PAYLOAD = 40;
    private static final int LARGEST_TCP_PAYLOAD = 400;

    private MalformedFrames()
    {
    }

    /**
     * @param factory its endpoint set (the client's), with any port: a TCP or UDP frame is built for it.
     * @return the damaged frame's length.
     */
    static int write(final FrameFactory factory, final long frame, final MalformedKind kind,
        final SplitMix64 random, final int clientPort)
    {
        final boolean v6 = factory.isV6();
        if (kind == MalformedKind.UDP_LENGTH_WRONG)
        {
            final int length = factory.udp(frame, clientPort, random.between(20, 120));
            final long ip = frame + factory.l3Offset();
            final long udp = frame + factory.l4Offset();
            final int segmentLength = length - factory.l4Offset();
            final int claimed = random.chance(0.5) ? random.nextInt(L4Headers.UDP_LENGTH) :
                segmentLength + random.between(1, 100);
            Frames.putU16(udp + L4Headers.UDP_LENGTH_OFFSET, claimed);
            HeaderWriter.transportChecksum(ip, v6, Ipv4Header.PROTOCOL_UDP, udp, segmentLength);
            return length;
        }
        final int length = factory.tcp(frame, clientPort, (int)random.nextLong(), (int)random.nextLong(),
            L4Headers.TCP_ACK | HeaderWriter.TCP_PUSH, random.between(SMALLEST_TCP_PAYLOAD, LARGEST_TCP_PAYLOAD));
        final long ip = frame + factory.l3Offset();
        final long tcp = frame + factory.l4Offset();
        return switch (kind)
        {
            case RUNT_FRAME -> random.between(1, EthernetHeader.LENGTH - 1);
            case CUT_IP_HEADER ->
                factory.l3Offset() + random.between(1, (v6 ? Ipv6Header.LENGTH : Ipv4Header.MIN_LENGTH) - 1);
            case IHL_BELOW_FIVE ->
            {
                Frames.putU8(ip, 0x40 | random.nextInt(5));
                yield length;
            }
            case LENGTH_BEYOND_FRAME ->
            {
                final int excess = random.between(1, 200);
                if (v6)
                {
                    Ipv6Header.payloadLength(ip, Ipv6Header.payloadLength(ip) + excess);
                }
                else
                {
                    Ipv4Header.totalLength(ip, Ipv4Header.totalLength(ip) + excess);
                    Ipv4Header.checksum(ip, Checksums.ipv4HeaderChecksum(ip));
                }
                yield length;
            }
            case BAD_IP_VERSION ->
            {
                // 0..15 but for 4 and 6: 14 values.
                final int draw = random.nextInt(14);
                final int version = draw < 4 ? draw : draw == 4 ? 5 : draw + 2;
                Frames.putU8(ip, version << 4 | (Frames.u8(ip) & 0x0F));
                if (!v6)
                {
                    Ipv4Header.checksum(ip, Checksums.ipv4HeaderChecksum(ip));
                }
                yield length;
            }
            case TCP_DATA_OFFSET_BELOW_FIVE ->
            {
                Frames.putU8(tcp + L4Headers.TCP_DATA_OFFSET_OFFSET, random.nextInt(5) << 4);
                HeaderWriter.transportChecksum(ip, v6, Ipv4Header.PROTOCOL_TCP, tcp, length - factory.l4Offset());
                yield length;
            }
            default -> throw new IllegalStateException("not a TCP defect: " + kind);
        };
    }
}
