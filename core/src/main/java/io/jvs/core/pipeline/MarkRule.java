package io.jvs.core.pipeline;

import io.jvs.core.net.IpPrefix;

/**
 * One {@code mark} statement of the configuration: frames that match get a firewall mark before the
 * services are looked up, as an iptables {@code MARK} rule in the mangle table's PREROUTING chain gives
 * IPVS's {@code -f} services theirs (frames jvs takes never reach iptables). Rules are tried in order and
 * the first that matches wins; a frame that already carries a mark keeps it.
 *
 * @param mark            the mark, 1..4294967295 as an unsigned 32-bit value (as ipvsadm's {@code -f}).
 * @param inPort          the port (interface) the frame must arrive on, or {@link #ANY_PORT}.
 * @param source          the source prefix, or null for any.
 * @param destination     the destination prefix, or null for any.
 * @param protocol        the IP protocol number (6, 17, 132), or 0 for any.
 * @param destinationPort the destination port, or 0 for any (only with a protocol that has ports).
 */
public record MarkRule(int mark, int inPort, IpPrefix source, IpPrefix destination, int protocol, int destinationPort)
{
    /** {@link #inPort} of a rule for frames from any port. */
    public static final int ANY_PORT = -1;

    public MarkRule
    {
        if (mark == 0)
        {
            throw new IllegalArgumentException("a mark is a number from 1 up, not " + Integer.toUnsignedString(mark));
        }
        if (protocol < 0 || protocol > 255)
        {
            throw new IllegalArgumentException("protocol " + protocol + " is not in 0..255");
        }
        if (destinationPort < 0 || destinationPort > 65535)
        {
            throw new IllegalArgumentException("port " + destinationPort + " is not in 0..65535");
        }
        if (source != null && destination != null && source.isV6() != destination.isV6())
        {
            throw new IllegalArgumentException("source " + source + " and destination " + destination +
                " are of different families");
        }
    }
}
