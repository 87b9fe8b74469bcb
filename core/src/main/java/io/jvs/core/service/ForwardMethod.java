package io.jvs.core.service;

/**
 * How a packet reaches its real server (the kernel's ip_vs_nat_xmit, ip_vs_dr_xmit and ip_vs_tunnel_xmit).
 */
public enum ForwardMethod
{
    /** Masquerading: destination address and port rewritten; replies come back through jvs. */
    NAT("-m", "Masq"),
    /** Direct routing ("gatewaying"): only the MAC changes; the real server answers the client itself. */
    DR("-g", "Route"),
    /** IP-in-IP tunnelling; the real server decapsulates and answers the client itself. */
    TUN("-i", "Tunnel");

    private final String ipvsadmOption;
    private final String listingName;

    ForwardMethod(final String ipvsadmOption, final String listingName)
    {
        this.ipvsadmOption = ipvsadmOption;
        this.listingName = listingName;
    }

    /**
     * @return the ipvsadm option that selects this method: -m, -g or -i.
     */
    public String ipvsadmOption()
    {
        return ipvsadmOption;
    }

    /**
     * @return the word {@code ipvsadm -L} prints in its Forward column.
     */
    public String listingName()
    {
        return listingName;
    }

    /**
     * @return true when replies bypass jvs, so a connection only ever sees its inbound direction
     *         (the kernel's NOOUTPUT connection flag).
     */
    public boolean isInboundOnly()
    {
        return this != NAT;
    }
}
