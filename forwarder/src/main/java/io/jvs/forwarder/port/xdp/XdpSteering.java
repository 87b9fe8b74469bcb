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
     * {@link io.jvs.nativebindings.bpf.XdpVipFilter}; ARP, neighbour discovery and the rest stay the kernel's.
     */
    VIP_FILTER
}
