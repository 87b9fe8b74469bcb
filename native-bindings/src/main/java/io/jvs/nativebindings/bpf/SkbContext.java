package io.jvs.nativebindings.bpf;

/**
 * {@code struct __sk_buff}, the context socket filters and tc programs get in r1: the fields jvs's programs
 * read, each with a 32-bit load that the kernel rewrites into a read of the {@code sk_buff}. Only tc programs
 * may read {@code data} and {@code data_end} (direct packet access); a socket filter reads the packet through
 * {@link BpfHelper#SKB_LOAD_BYTES}.
 * <p>
 * Where the data starts depends on the hook, as {@code FanoutProgramsTest} and {@code TcProgramsTest} check on a
 * veth: at tcx ingress at the MAC header ({@code tcx_run} pushes it back), for a PACKET_FANOUT program at the
 * network header ({@code packet_rcv_fanout} runs the program on the skb as {@code eth_type_trans} left it).
 * Either way {@code __netif_receive_skb_core} has already moved an outer 802.1Q or 802.1ad tag into the skb's
 * metadata ({@code skb_vlan_untag}, or the NIC did): {@link #VLAN_PRESENT} says so, {@link #PROTOCOL} is then the
 * EtherType behind it, and further tags are still in the data.
 */
public final class SkbContext
{
    /** Bytes from {@code skb->data} to the end of the packet. */
    public static final int LEN = 0;
    /** {@code skb->protocol}: the EtherType after the MAC header and any offloaded tag, in network byte order. */
    public static final int PROTOCOL = 16;
    /** Non-zero when a VLAN tag was taken off the frame into the skb's metadata. */
    public static final int VLAN_PRESENT = 20;
    public static final int VLAN_TCI = 24;
    public static final int DATA = 76;
    public static final int DATA_END = 80;

    private SkbContext()
    {
    }
}
