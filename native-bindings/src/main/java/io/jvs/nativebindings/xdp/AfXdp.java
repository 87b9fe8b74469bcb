package io.jvs.nativebindings.xdp;

/**
 * Constants of AF_XDP sockets (linux/if_xdp.h, with the fields added up to Linux 6.18).
 */
public final class AfXdp
{
    public static final int AF_XDP = 44;
    public static final int SOL_XDP = 283;

    /** getsockopt: the offsets of producer, consumer, flags and descriptors in each ring's mapping. */
    public static final int XDP_MMAP_OFFSETS = 1;
    public static final int XDP_RX_RING = 2;
    public static final int XDP_TX_RING = 3;
    public static final int XDP_UMEM_REG = 4;
    public static final int XDP_UMEM_FILL_RING = 5;
    public static final int XDP_UMEM_COMPLETION_RING = 6;
    public static final int XDP_STATISTICS = 7;
    public static final int XDP_OPTIONS = 8;

    /** The mmap offsets that select which ring of the socket a mapping shows. */
    public static final long XDP_PGOFF_RX_RING = 0;
    public static final long XDP_PGOFF_TX_RING = 0x8000_0000L;
    public static final long XDP_UMEM_PGOFF_FILL_RING = 0x1_0000_0000L;
    public static final long XDP_UMEM_PGOFF_COMPLETION_RING = 0x1_8000_0000L;

    /** Bind flags ({@code sockaddr_xdp.sxdp_flags}); a socket sharing another's UMEM passes this one alone. */
    public static final short XDP_SHARED_UMEM = 1;
    public static final short XDP_COPY = 1 << 1;
    public static final short XDP_ZEROCOPY = 1 << 2;
    public static final short XDP_USE_NEED_WAKEUP = 1 << 3;
    public static final short XDP_USE_SG = 1 << 4;

    /** UMEM flags ({@code xdp_umem_reg.flags}). */
    public static final int XDP_UMEM_UNALIGNED_CHUNK_FLAG = 1;
    public static final int XDP_UMEM_TX_SW_CSUM = 1 << 1;
    /** Without it the kernel ignores {@code tx_metadata_len}. */
    public static final int XDP_UMEM_TX_METADATA_LEN = 1 << 2;

    /** In a ring's flags word: the kernel wants a syscall (sendto for TX, poll or recvfrom for fill). */
    public static final int XDP_RING_NEED_WAKEUP = 1;

    /** {@code xdp_desc.options}: the frame continues in the next descriptor (multi-buffer). */
    public static final int XDP_PKT_CONTD = 1;
    public static final int XDP_TX_METADATA = 1 << 1;

    /** {@code xdp_options.flags}: the socket is bound in zero-copy mode. */
    public static final int XDP_OPTIONS_ZEROCOPY = 1;

    /** An entry of the fill and completion rings: the 64-bit address of a frame in the UMEM. */
    public static final int UMEM_RING_ENTRY_SIZE = Long.BYTES;

    /** In unaligned chunk mode an address carries the offset into its chunk in its top 16 bits. */
    public static final int XSK_UNALIGNED_BUF_OFFSET_SHIFT = 48;
    public static final long XSK_UNALIGNED_BUF_ADDR_MASK = (1L << XSK_UNALIGNED_BUF_OFFSET_SHIFT) - 1;

    private AfXdp()
    {
    }
}
