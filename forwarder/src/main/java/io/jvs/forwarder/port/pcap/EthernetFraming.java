package io.jvs.forwarder.port.pcap;

import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;
import io.jvs.core.pcap.EthernetForm;
import io.jvs.core.pcap.LinkType;

/**
 * What a pcap port does with packets whose link layer is not Ethernet: the pipeline parses Ethernet frames
 * only. Either the port {@linkplain #refuse() refuses} such a capture when it opens it (the default), or it
 * {@linkplain #synthesized synthesizes} an Ethernet header for each packet: the link-layer header is
 * removed, and a 14-byte header with the given MAC addresses and the packet's EtherType is put in its place.
 * <p>
 * Which link types have an Ethernet form, and what each packet's is, {@link EthernetForm} decides, for replay as
 * well; libpcap reports its DLT_ values, which {@link LinkType#ofDlt} turns into the file's LINKTYPE_ values first. A
 * packet with no Ethernet form is skipped and counted in {@link PcapCounters#rxNotEthernet}, and a cooked-capture
 * packet the capturing host sent itself in {@link PcapCounters#rxOutgoing}. Any other link type is refused even
 * when synthesizing.
 */
public final class EthernetFraming
{
    /** libpcap's number for Ethernet; the other link types' numbers are {@link LinkType}'s. */
    public static final int DLT_EN10MB = 1;

    private static final EthernetFraming REFUSE = new EthernetFraming(false, 0, 0);

    private final boolean synthesizes;
    private final long destinationMac;
    private final long sourceMac;

    private EthernetFraming(final boolean synthesizes, final long destinationMac, final long sourceMac)
    {
        this.synthesizes = synthesizes;
        this.destinationMac = destinationMac;
        this.sourceMac = sourceMac;
    }

    /**
     * @return the default: a capture that is not Ethernet is refused at open.
     */
    public static EthernetFraming refuse()
    {
        return REFUSE;
    }

    /**
     * @param destinationMac the destination MAC address of every synthesized header (48 bits).
     * @param sourceMac      its source MAC address.
     * @return framing that gives packets of the supported link types an Ethernet header.
     */
    public static EthernetFraming synthesized(final long destinationMac, final long sourceMac)
    {
        return new EthernetFraming(true, destinationMac, sourceMac);
    }

    public boolean synthesizes()
    {
        return synthesizes;
    }

    /**
     * @param dlt a link type as libpcap reports it.
     * @return true if packets of the link type have an Ethernet form.
     */
    public static boolean hasEthernetForm(final int dlt)
    {
        return EthernetForm.exists(LinkType.ofDlt(dlt));
    }

    /**
     * Writes the synthesized Ethernet header.
     *
     * @param frame     where the frame starts.
     * @param etherType its EtherType.
     */
    void writeHeader(final long frame, final int etherType)
    {
        EthernetHeader.destination(frame, destinationMac);
        EthernetHeader.source(frame, sourceMac);
        Frames.putU16(frame + EthernetHeader.TYPE_OFFSET, etherType);
    }
}
