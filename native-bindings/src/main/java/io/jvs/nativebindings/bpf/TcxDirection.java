package io.jvs.nativebindings.bpf;

/**
 * Which of a device's two tcx hooks a program runs at: the {@code BPF_TCX_*} attach type (Linux 6.6 and later).
 */
public enum TcxDirection
{
    /**
     * Frames the device received, in {@code __netif_receive_skb_core}: after the packet taps (AF_PACKET sockets
     * bound to every protocol, tcpdump) have their copies, before the IP stack, bridges and other protocol handlers.
     */
    INGRESS(46, "ingress"),
    /** Frames the stack sends out of the device, before its qdisc. */
    EGRESS(47, "egress");

    private final int attachType;
    private final String hookName;

    TcxDirection(final int attachType, final String hookName)
    {
        this.attachType = attachType;
        this.hookName = hookName;
    }

    /**
     * @return "ingress" or "egress", for messages.
     */
    public String hookName()
    {
        return hookName;
    }

    /**
     * @return {@code BPF_TCX_INGRESS} or {@code BPF_TCX_EGRESS}.
     */
    public int attachType()
    {
        return attachType;
    }
}
