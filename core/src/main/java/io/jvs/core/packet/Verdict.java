package io.jvs.core.packet;

/**
 * A packet's fate, packed in one int, one field of a frame's record in the burst:
 * {@code kind | egress port << 8 | drop reason << 16}, a transmit's bit 16 saying it leaves in fragments and its bits
 * 17 to 31 the MTU the fragments must fit, in units of 2 bytes.
 */
public final class Verdict
{
    /** Send the (rewritten) frame out of a port. */
    public static final int TRANSMIT = 1;
    /** Hand the frame to the host's own network stack unchanged. */
    public static final int PASS = 2;
    /** Discard the frame; the reason is counted. */
    public static final int DROP = 3;

    private static final int KIND_MASK = 0xFF;
    /** A transmit verdict's bit (where a drop keeps its reason): the frame leaves in fragments. */
    private static final int IN_FRAGMENTS = 1 << 16;
    private static final int FRAGMENT_MTU_SHIFT = 17;

    private Verdict()
    {
    }

    /**
     * @param port the egress port index, 0..255.
     * @return the verdict.
     */
    public static int transmit(final int port)
    {
        return TRANSMIT | (port << 8);
    }

    /**
     * A transmit verdict for a packet longer than the egress port's MTU that may be fragmented: IPv4 with DF clear,
     * or a tunnel's IPv6 outer packet around an IPv4 one without DF. The worker sends it in fragments ({@link
     * IpFragmenter}), as the kernel's IP output fragments a packet IPVS forwards (ip_vs_nat_xmit and its kin check
     * only DF packets against the MTU, then ip_finish_output fragments; ip_vs_tunnel_xmit_v6 sets ignore_df, so
     * ip6_fragment splits the outer packet).
     *
     * @param port the egress port index, 0..255.
     * @param mtu  the path's MTU, which the fragments must fit: the egress port's, or less when the route to the
     *             destination has an MTU of its own (68..65535).
     * @return the verdict.
     */
    public static int transmitInFragments(final int port, final int mtu)
    {
        // Halved to fit 15 bits: the fragments' payloads are multiples of 8 bytes after a header of a multiple of 4,
        // so an odd MTU splits a packet exactly as the even one below it (RFC 791's fragmentation procedure).
        return transmit(port) | IN_FRAGMENTS | (mtu >>> 1) << FRAGMENT_MTU_SHIFT;
    }

    /**
     * @return the MTU a {@link #transmitInFragments} verdict's fragments must fit (rounded down to an even number,
     *     which splits a packet as the MTU itself does).
     */
    public static int fragmentMtu(final int verdict)
    {
        return (verdict >>> FRAGMENT_MTU_SHIFT) << 1;
    }

    /**
     * @return whether a transmit verdict asks for fragments ({@link #transmitInFragments}).
     */
    public static boolean inFragments(final int verdict)
    {
        return (verdict & IN_FRAGMENTS) != 0 && kind(verdict) == TRANSMIT;
    }

    public static int pass()
    {
        return PASS;
    }

    public static int drop(final DropReason reason)
    {
        return DROP | (reason.id() << 16);
    }

    public static int kind(final int verdict)
    {
        return verdict & KIND_MASK;
    }

    public static int port(final int verdict)
    {
        return (verdict >>> 8) & 0xFF;
    }

    /**
     * @return the drop reason's {@link DropReason#id} (meaningful for DROP only).
     */
    public static int reason(final int verdict)
    {
        return verdict >>> 16;
    }

    /**
     * @return the verdict as text, e.g. "transmit:1", "pass", "drop:truncated".
     */
    public static String toString(final int verdict)
    {
        return switch (kind(verdict))
        {
            case TRANSMIT -> "transmit:" + port(verdict) + (inFragments(verdict) ? ":fragments" : "");
            case PASS -> "pass";
            case DROP -> "drop:" + DropReason.of(reason(verdict)).label();
            default -> "unknown:" + verdict;
        };
    }
}
