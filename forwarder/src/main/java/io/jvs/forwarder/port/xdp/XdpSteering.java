package io.jvs.forwarder.port.xdp;

/**
 * Which frames the XDP program on a receiving device hands to the AF_XDP sockets; the rest go to the kernel.
 */
public enum XdpSteering
{
    /** Every frame of a queue with a socket (the L2 benchmark). */
    ALL,
    /**
     * Only jvs's traffic: to a VIP or from a real server, listed in the maps of
     * {@link io.jvs.nativebindings.bpf.XdpVipFilter}; ARP, neighbour discovery, ping to a VIP and the rest stay the
     * kernel's. Frames of a queue without a socket go to the kernel too, counted
     * ({@link io.jvs.nativebindings.bpf.XdpVipFilter#unplacedFrames}).
     */
    VIP_FILTER
}
