package io.jvs.forwarder.synth;

import io.jvs.core.packet.DropReason;

/**
 * The defects of the malformed frames in a synthetic trace, each the kind of damage a balancer must drop
 * without being confused by it, with the reason core's parser gives for it.
 */
public enum MalformedKind
{
    /** Shorter than an Ethernet header: 1 to 13 bytes. */
    RUNT_FRAME("runt-frame", DropReason.TRUNCATED),
    /** The frame ends inside the IPv4 or IPv6 header. */
    CUT_IP_HEADER("cut-ip-header", DropReason.TRUNCATED),
    /** IPv4 with a header length field of 0 to 4 words. */
    IHL_BELOW_FIVE("ihl-below-5", DropReason.BAD_IHL),
    /** The IPv4 total length, or IPv6 payload length, claims more bytes than the frame has. */
    LENGTH_BEYOND_FRAME("length-beyond-frame", DropReason.TRUNCATED),
    /** An IP version other than the EtherType's. */
    BAD_IP_VERSION("bad-ip-version", DropReason.BAD_IP_VERSION),
    /** TCP with a data offset of 0 to 4 words. */
    TCP_DATA_OFFSET_BELOW_FIVE("tcp-data-offset-below-5", DropReason.BAD_L4_HEADER),
    /** UDP whose length field is below 8 or beyond the IP payload. */
    UDP_LENGTH_WRONG("udp-length-wrong", DropReason.BAD_L4_HEADER);

    private static final MalformedKind[] VALUES = values();

    private final String label;
    private final DropReason dropReason;

    MalformedKind(final String label, final DropReason dropReason)
    {
        this.label = label;
        this.dropReason = dropReason;
    }

    public String label()
    {
        return label;
    }

    /**
     * @return the verdict core's PacketParser gives such a frame.
     */
    public DropReason dropReason()
    {
        return dropReason;
    }

    static MalformedKind of(final int ordinal)
    {
        return VALUES[ordinal];
    }
}
