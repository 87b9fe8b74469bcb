package io.jvs.nativebindings.bpf;

/**
 * Where an XDP program runs on a device: the {@code XDP_FLAGS_*_MODE} flag of the attach.
 */
public enum XdpMode
{
    /** Generic XDP: after the driver built an skb; works on every device, slowest. {@code ip link}: xdpgeneric. */
    SKB(2, "xdpgeneric"),
    /** Native XDP in the driver, before any skb exists; the driver must support it. {@code ip link}: xdp. */
    DRV(4, "xdp");

    private final int flag;
    private final String ipLinkName;

    XdpMode(final int flag, final String ipLinkName)
    {
        this.flag = flag;
        this.ipLinkName = ipLinkName;
    }

    /**
     * @return the attach flag ({@code XDP_FLAGS_SKB_MODE} or {@code XDP_FLAGS_DRV_MODE}).
     */
    public int flag()
    {
        return flag;
    }

    /**
     * @return the word {@code ip link} shows for a program attached in this mode.
     */
    public String ipLinkName()
    {
        return ipLinkName;
    }
}
