package io.jvs.forwarder.port.xdp;

/**
 * How an AF_XDP socket moves frames between the driver and the UMEM.
 */
public enum XdpBindMode
{
    /** The kernel copies each frame (XDP_COPY): works on every device, veth included. */
    COPY,
    /** The driver DMAs into the UMEM (XDP_ZEROCOPY): needs driver support; veth has none (EOPNOTSUPP). */
    ZEROCOPY,
    /** Zero-copy when the driver offers it, otherwise copy, said in {@link AfXdpPort#describe()}. */
    AUTO
}
