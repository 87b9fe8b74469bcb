package io.jvs.nativebindings.bpf;

/**
 * {@code struct xdp_md}, the context an XDP program gets in r1. Programs read it with 32-bit loads; the
 * kernel rewrites {@code data} and {@code data_end} loads into packet pointers.
 */
public final class XdpMetadata
{
    public static final int DATA = 0;
    public static final int DATA_END = 4;
    public static final int DATA_META = 8;
    public static final int INGRESS_IFINDEX = 12;
    public static final int RX_QUEUE_INDEX = 16;
    public static final int EGRESS_IFINDEX = 20;
    public static final int SIZE_BYTES = 24;

    private XdpMetadata()
    {
    }
}
