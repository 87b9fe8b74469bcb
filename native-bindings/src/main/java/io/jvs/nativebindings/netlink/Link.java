package io.jvs.nativebindings.netlink;

/**
 * A network interface as the kernel reports it in RTM_NEWLINK: what jvs needs to send on it.
 *
 * @param index the interface index (ifindex), the key every other table refers to.
 * @param name  its name (IFLA_IFNAME), e.g. "eth0"; empty if the message carried none.
 * @param type  the ARPHRD_* hardware type: 1 for Ethernet, 772 for loopback.
 * @param flags the IFF_* flags ({@link Rtnetlink#IFF_UP}, {@link Rtnetlink#IFF_RUNNING}...).
 * @param mac   its Ethernet address in the low 48 bits, or {@link #NO_MAC} when its link-layer address is absent
 *              or not 6 bytes long.
 * @param mtu   its MTU, 0 if not reported.
 * @param kind  the driver kind of a virtual link (IFLA_INFO_KIND: "veth", "vlan", "bond"...), or null.
 */
public record Link(int index, String name, int type, int flags, long mac, int mtu, String kind)
{
    /** No link-layer address (or one that is not an Ethernet MAC). */
    public static final long NO_MAC = -1L;

    /**
     * @return true when it is administratively up (IFF_UP).
     */
    public boolean up()
    {
        return (flags & Rtnetlink.IFF_UP) != 0;
    }

    /**
     * @return true when it is up and its operational state lets it carry traffic (IFF_RUNNING).
     */
    public boolean running()
    {
        return (flags & Rtnetlink.IFF_RUNNING) != 0;
    }

    /**
     * @return true when the driver reports carrier (IFF_LOWER_UP).
     */
    public boolean lowerUp()
    {
        return (flags & Rtnetlink.IFF_LOWER_UP) != 0;
    }

    /**
     * @return true when it has an Ethernet MAC.
     */
    public boolean hasMac()
    {
        return mac != NO_MAC;
    }

    @Override
    public String toString()
    {
        return "Link[" + index + " " + name + (kind == null ? "" : " " + kind) + " type " + type + " flags 0x" +
            Integer.toHexString(flags) + " mac " + Neighbour.macToString(mac) + " mtu " + mtu + "]";
    }
}
