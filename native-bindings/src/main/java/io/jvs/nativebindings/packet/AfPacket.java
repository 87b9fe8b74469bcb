package io.jvs.nativebindings.packet;

/**
 * Constants of AF_PACKET sockets and their rings (linux/if_packet.h, linux/if_ether.h).
 */
public final class AfPacket
{
    public static final int AF_PACKET = 17;
    public static final int SOL_PACKET = 263;

    /** Every protocol: the socket's protocol and {@code sll_protocol}, in network byte order (htons). */
    public static final int ETH_P_ALL = 0x0003;
    public static final int ETH_P_IP = 0x0800;
    public static final int ETH_P_ARP = 0x0806;
    public static final int ETH_P_IPV6 = 0x86DD;

    public static final int PACKET_RX_RING = 5;
    /** getsockopt: a {@link TpacketStats} (V1, V2) or a {@link TpacketStatsV3}, counters reset by each read. */
    public static final int PACKET_STATISTICS = 6;
    public static final int PACKET_AUXDATA = 8;
    public static final int PACKET_VERSION = 10;
    /** getsockopt with a TPACKET version in the value: the size of that version's frame header (sizeof). */
    public static final int PACKET_HDRLEN = 11;
    public static final int PACKET_RESERVE = 12;
    public static final int PACKET_TX_RING = 13;
    /** TX ring: skip frames of wrong format instead of stopping at them. */
    public static final int PACKET_LOSS = 14;
    /**
     * Frames carry a struct virtio_net_hdr ({@link #VIRTIO_NET_HDR_SIZE} bytes) in front. On a TX ring its
     * {@code hdr_len} tells the kernel how many bytes to copy into the skb's linear area; without it only the
     * Ethernet header is copied and the rest is attached as fragments of the ring's pages.
     */
    public static final int PACKET_VNET_HDR = 15;
    public static final int PACKET_FANOUT = 18;
    /** TX straight to the driver: faster, but taps (tcpdump) no longer see our frames. */
    public static final int PACKET_QDISC_BYPASS = 20;
    /** RX does not see the frames this host transmits. */
    public static final int PACKET_IGNORE_OUTGOING = 23;

    /** sizeof(struct virtio_net_hdr): flags, gso_type (u8), hdr_len, gso_size, csum_start, csum_offset (u16). */
    public static final int VIRTIO_NET_HDR_SIZE = 10;
    /** Offset of {@code hdr_len} in struct virtio_net_hdr (little endian). */
    public static final int VIRTIO_NET_HDR_LEN_OFFSET = 2;

    public static final int TPACKET_V1 = 0;
    public static final int TPACKET_V2 = 1;
    public static final int TPACKET_V3 = 2;

    /** Frames and headers in a ring start on this alignment. */
    public static final int TPACKET_ALIGNMENT = 16;

    /** RX status bits, in {@code tp_status} of a frame and {@code block_status} of a V3 block. */
    public static final int TP_STATUS_KERNEL = 0;
    public static final int TP_STATUS_USER = 1;
    public static final int TP_STATUS_COPY = 1 << 1;
    public static final int TP_STATUS_LOSING = 1 << 2;
    /** The frame's transport checksum is partial (a local sender offloaded it): fix it before forwarding. */
    public static final int TP_STATUS_CSUMNOTREADY = 1 << 3;
    public static final int TP_STATUS_VLAN_VALID = 1 << 4;
    /** The block was handed over by the retire timeout, not because it was full. */
    public static final int TP_STATUS_BLK_TMO = 1 << 5;
    public static final int TP_STATUS_VLAN_TPID_VALID = 1 << 6;
    public static final int TP_STATUS_CSUM_VALID = 1 << 7;

    /** TX status, in {@code tp_status} of a TX ring frame. */
    public static final int TP_STATUS_AVAILABLE = 0;
    public static final int TP_STATUS_SEND_REQUEST = 1;
    public static final int TP_STATUS_SENDING = 1 << 1;
    public static final int TP_STATUS_WRONG_FORMAT = 1 << 2;

    /** {@code sll_pkttype}: what the frame was to this host. */
    public static final int PACKET_HOST = 0;
    public static final int PACKET_BROADCAST = 1;
    public static final int PACKET_MULTICAST = 2;
    public static final int PACKET_OTHERHOST = 3;
    public static final int PACKET_OUTGOING = 4;

    /** Fanout modes: how a group's sockets share the frames. HASH keeps a flow on one socket. */
    public static final int PACKET_FANOUT_HASH = 0;
    public static final int PACKET_FANOUT_LB = 1;
    public static final int PACKET_FANOUT_CPU = 2;
    public static final int PACKET_FANOUT_ROLLOVER = 3;
    public static final int PACKET_FANOUT_RND = 4;
    public static final int PACKET_FANOUT_QM = 5;
    public static final int PACKET_FANOUT_CBPF = 6;
    public static final int PACKET_FANOUT_EBPF = 7;
    public static final int PACKET_FANOUT_FLAG_ROLLOVER = 0x1000;
    public static final int PACKET_FANOUT_FLAG_UNIQUEID = 0x2000;
    public static final int PACKET_FANOUT_FLAG_IGNORE_OUTGOING = 0x4000;
    public static final int PACKET_FANOUT_FLAG_DEFRAG = 0x8000;

    private AfPacket()
    {
    }

    /**
     * @return {@code length} rounded up to {@link #TPACKET_ALIGNMENT} (TPACKET_ALIGN).
     */
    public static int tpacketAlign(final int length)
    {
        return (length + TPACKET_ALIGNMENT - 1) & -TPACKET_ALIGNMENT;
    }

    /**
     * The 4-byte form of the PACKET_FANOUT argument; {@link FanoutArgs} is the 8-byte form that also sets
     * the group's size.
     *
     * @param groupId   the group, 0..65535; sockets with the same id (and mode) share the frames.
     * @param modeFlags a PACKET_FANOUT_* mode or'ed with PACKET_FANOUT_FLAG_* flags.
     * @return the value to set.
     */
    public static int fanoutArgument(final int groupId, final int modeFlags)
    {
        return (groupId & 0xFFFF) | (modeFlags << 16);
    }
}
