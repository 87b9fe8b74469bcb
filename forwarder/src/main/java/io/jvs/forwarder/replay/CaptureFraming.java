package io.jvs.forwarder.replay;

import io.jvs.core.packet.Frames;
import io.jvs.core.pcap.EthernetForm;
import io.jvs.core.pcap.LinkType;

/**
 * Turns a capture record into the Ethernet frame a port would have received, copied into a buffer the
 * pipeline may rewrite (the reader's mapping is read-only).
 * <p>
 * Ethernet records are copied as they are. Records of the other link layers a load balancer's captures come in
 * (Linux cooked captures from {@code tcpdump -i any}, raw IP, BSD loopback) get an Ethernet header in place of
 * theirs, as {@link EthernetForm} decodes them: to the balancer's MAC, from the sender's MAC where the cooked header
 * holds one, else from the default gateway's. A record of a link layer with no Ethernet form (802.11, PPP, ...), or
 * one whose header names no IPv4, IPv6 or EtherType, is refused and counted, not guessed at.
 */
final class CaptureFraming
{
    /** {@link #frame} result: the record's link type has no Ethernet form. */
    static final int UNSUPPORTED = -1;
    /** {@link #frame} result: the capturing host sent this record itself (a cooked capture says so). */
    static final int OUTGOING = -2;
    /** {@link #frame} result: the record's link-layer header names nothing an Ethernet frame could carry. */
    static final int NO_ETHERNET_FORM = -3;

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
     * Copies a record into {@code frame} as an Ethernet frame.
     *
     * @param record   the record's first byte.
     * @param captured its captured length.
     * @param linkType its link type.
     * @param frame    where the frame goes: room for {@code captured + 14} bytes.
     * @return the frame's length, or {@link #UNSUPPORTED}, {@link #OUTGOING} or {@link #NO_ETHERNET_FORM}.
     */
    int frame(final long record, final int captured, final int linkType, final long frame)
    {
        if (linkType == LinkType.ETHERNET)
        {
            Frames.copy(record, frame, captured);
            return captured;
        }
        if (!EthernetForm.exists(linkType))
        {
            return UNSUPPORTED;
        }
        final long decoded = EthernetForm.decode(linkType, record, captured);
        if (decoded == EthernetForm.OUTGOING)
        {
            return OUTGOING;
        }
        if (decoded == EthernetForm.NONE)
        {
            return NO_ETHERNET_FORM;
        }
        final long sender = EthernetForm.senderMac(linkType, record, captured);
        return EthernetForm.write(record, captured, decoded, receiverMac,
            sender == EthernetForm.NO_MAC ? defaultSenderMac : sender, frame);
    }
}
