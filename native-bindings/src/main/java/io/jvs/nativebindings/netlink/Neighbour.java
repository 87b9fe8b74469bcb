package io.jvs.nativebindings.netlink;

import java.net.InetAddress;

/**
 * An entry of the kernel's neighbour table (ARP for IPv4, neighbour discovery for IPv6): the link-layer address
 * of an address on a link, and how far the kernel trusts it (the NUD state).
 *
 * @param family  AF_INET or AF_INET6.
 * @param index   the interface's index.
 * @param address the neighbour's IP address.
 * @param mac     its MAC in the low 48 bits, or {@link Link#NO_MAC} when the entry has none (INCOMPLETE,
 *                FAILED) or the kernel left it out.
 * @param state   the NUD_* state bit ({@link Rtnetlink#NUD_REACHABLE}...).
 * @param flags   the NTF_* flags ({@link Rtnetlink#NTF_ROUTER} for an IPv6 router...).
 * @param type    the route type of the address (RTN_UNICAST, RTN_MULTICAST...).
 */
public record Neighbour(int family, int index, InetAddress address, long mac, int state, int flags, int type)
{
    /** The states whose MAC the kernel vouches for and sends to itself. */
    private static final int USABLE = Rtnetlink.NUD_REACHABLE | Rtnetlink.NUD_STALE | Rtnetlink.NUD_DELAY |
        Rtnetlink.NUD_PROBE | Rtnetlink.NUD_PERMANENT | Rtnetlink.NUD_NOARP;

    /**
     * @return true when the entry has a MAC the kernel vouches for: REACHABLE, STALE, DELAY, PROBE, PERMANENT or
     * NOARP. Never INCOMPLETE (still asking), FAILED (nobody answered) or NONE. A STALE entry is used as the
     * kernel uses it, and should be refreshed with {@link RouteNetlink#resolve} as jvs's traffic never
     * confirms it.
     */
    public boolean usable()
    {
        return (state & USABLE) != 0 && mac != Link.NO_MAC;
    }

    /**
     * @return true for entries the kernel never re-resolves (PERMANENT, NOARP), which {@link RouteNetlink#resolve}
     * leaves alone.
     */
    public boolean fixed()
    {
        return (state & (Rtnetlink.NUD_PERMANENT | Rtnetlink.NUD_NOARP)) != 0;
    }

    @Override
    public String toString()
    {
        return "Neighbour[" + address.getHostAddress() + " dev " + index + " lladdr " + macToString(mac) + " " +
            Rtnetlink.nudName(state) + (flags == 0 ? "" : " flags 0x" + Integer.toHexString(flags)) + "]";
    }

    /**
     * @return the MAC as {@code aa:bb:cc:dd:ee:ff}, or "none" for {@link Link#NO_MAC}.
     */
    static String macToString(final long mac)
    {
        if (mac == Link.NO_MAC)
        {
            return "none";
        }
        final StringBuilder text = new StringBuilder(17);
        for (int shift = 40; shift >= 0; shift -= 8)
        {
            if (text.length() > 0)
            {
                text.append(':');
            }
            final int octet = (int)(mac >>> shift) & 0xFF;
            text.append(Character.forDigit(octet >>> 4, 16)).append(Character.forDigit(octet & 0xF, 16));
        }
        return text.toString();
    }
}
