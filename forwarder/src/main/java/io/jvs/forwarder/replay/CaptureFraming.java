package io.jvs.forwarder.replay;

import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;
import io.jvs.core.pcap.LinkType;

/**
 * Turns a capture record into the Ethernet frame a port would have received, copied into a buffer the
 * pipeline may rewrite (the reader's mapping is read-only).
 * <p>
 * Ethernet records are copied as they are. Records of the link layers a load balancer's captures come in
 * (Linux cooked captures from {@code tcpdump -i any}, raw IP, BSD loopback) get an Ethernet header in
 * place of theirs: to the balancer's MAC, from the sender's MAC where the cooked header holds one, else
 * from the default gateway's. Any other link layer (802.11, PPP, ...) has no Ethernet form: the record
 * is refused and counted, not guessed at.
 */
final class CaptureFraming
{
    /** {@link #frame} result: the record is not a frame jvs could have received. */
    static final int UNSUPPORTED = -1;
    /** {@link #frame} result: the capturing host sent this record itself (a cooked capture says so). */
    static final int OUTGOING = -2;

    private static final int SLL_LENGTH = 16;
    private static final int SLL2_LENGTH = 20;
    private static final int NULL_LENGTH = 4;
    private static final int SLL_OUTGOING = 4;
    private static final int ARPHRD_ETHER = 1;

    private final long receiverMac;
    private final long defaultSenderMac;

    /**
     * @param receiverMac      the destination of synthesised Ethernet headers (the balancer's port).
     * @param defaultSenderMac their source when the record does not name one.
     */
    CaptureFraming(final long receiverMac, final long defaultSenderMac)
    {
        this.receiverMac = receiverMac;
        this.defaultSenderMac = defaultSenderMac;
    }

    /**
     * @return whether records of this link type can be replayed.
     */
    static boolean supports(final int linkType)
    {
        return switch (linkType)
        {
            case LinkType.ETHERNET, LinkType.RAW, LinkType.IPV4, LinkType.IPV6, LinkType.NULL, LinkType.LOOP,
                LinkType.LINUX_SLL, LinkType.LINUX_SLL2 -> true;
            default -> false;
        };
    }

    /**
     * Copies a record into {@code frame} as an Ethernet frame.
     *
     * @param record   the record's first byte.
     * @param captured its captured length.
     * @param linkType its link type.
     * @param frame    where the frame goes: room for {@code captured + 14} bytes.
     * @return the frame's length, or {@link #UNSUPPORTED} or {@link #OUTGOING}.
     */
    int frame(final long record, final int captured, final int linkType, final long frame)
    {
        switch (linkType)
        {
            case LinkType.ETHERNET ->
            {
                Frames.copy(record, frame, captured);
                return captured;
            }
            case LinkType.RAW ->
            {
                return withEthernet(record, captured, 0, etherTypeOfVersion(record, captured, 0), defaultSenderMac,
                    frame);
            }
            case LinkType.IPV4 ->
            {
                return withEthernet(record, captured, 0, EthernetHeader.TYPE_IPV4, defaultSenderMac, frame);
            }
            case LinkType.IPV6 ->
            {
                return withEthernet(record, captured, 0, EthernetHeader.TYPE_IPV6, defaultSenderMac, frame);
            }
            case LinkType.NULL, LinkType.LOOP ->
            {
                return withEthernet(record, captured, NULL_LENGTH, etherTypeOfVersion(record, captured, NULL_LENGTH),
                    defaultSenderMac, frame);
            }
            case LinkType.LINUX_SLL ->
            {
                if (captured >= SLL_LENGTH && Frames.u16(record) == SLL_OUTGOING)
                {
                    return OUTGOING;
                }
                final int etherType = captured >= SLL_LENGTH ? Frames.u16(record + 14) : 0;
                final boolean hasMac = captured >= SLL_LENGTH && Frames.u16(record + 2) == ARPHRD_ETHER &&
                    Frames.u16(record + 4) == 6;
                return withEthernet(record, captured, SLL_LENGTH, etherType,
                    hasMac ? mac(record + 6) : defaultSenderMac, frame);
            }
            case LinkType.LINUX_SLL2 ->
            {
                if (captured >= SLL2_LENGTH && Frames.u8(record + 10) == SLL_OUTGOING)
                {
                    return OUTGOING;
                }
                final int etherType = captured >= 2 ? Frames.u16(record) : 0;
                final boolean hasMac = captured >= SLL2_LENGTH && Frames.u16(record + 8) == ARPHRD_ETHER &&
                    Frames.u8(record + 11) == 6;
                return withEthernet(record, captured, SLL2_LENGTH, etherType,
                    hasMac ? mac(record + 12) : defaultSenderMac, frame);
            }
            default ->
            {
                return UNSUPPORTED;
            }
        }
    }

    private int withEthernet(
        final long record, final int captured, final int linkHeader, final int etherType, final long senderMac,
        final long frame)
    {
        final int header = Math.min(linkHeader, captured);
        EthernetHeader.destination(frame, receiverMac);
        EthernetHeader.source(frame, senderMac);
        Frames.putU16(frame + EthernetHeader.TYPE_OFFSET, etherType);
        Frames.copy(record + header, frame + EthernetHeader.LENGTH, captured - header);
        return EthernetHeader.LENGTH + captured - header;
    }

    /** Raw IP and loopback records say their family only in the IP version nibble (or a BSD AF value). */
    private static int etherTypeOfVersion(final long record, final int captured, final int offset)
    {
        if (captured <= offset)
        {
            return 0;
        }
        return switch (Frames.u8(record + offset) >>> 4)
        {
            case 4 -> EthernetHeader.TYPE_IPV4;
            case 6 -> EthernetHeader.TYPE_IPV6;
            default -> 0;
        };
    }

    private static long mac(final long address)
    {
        return (long)Frames.u16(address) << 32 | (Frames.i32(address + 2) & 0xFFFF_FFFFL);
    }
}
