package io.jvs.forwarder.port.packet;

/**
 * What a receiving AF_PACKET port takes from the kernel. An AF_PACKET socket gets a copy of each frame and the
 * kernel still processes the original; a program at the device's tcx ingress, which runs after the packet taps
 * (the socket has its copy by then), can drop originals so the kernel never sees them.
 */
public enum AfPacketSteal
{
    /** The kernel processes every frame as well. */
    NONE,
    /**
     * Every frame the device receives is dropped after the copy: ARP, SSH and routing protocols on the device are
     * then jvs's problem. For the L2 benchmark on a dedicated device ({@code bench l2fwd --steal}).
     */
    ALL,
    /**
     * Only the frames jvs forwards are dropped: those the AF_XDP port's program would redirect (to a VIP, or NAT
     * replies from a real server), over the same maps ({@link io.jvs.nativebindings.bpf.XdpVipFilter}). ARP,
     * neighbour discovery, ping to a VIP and everything for the box itself still reach the kernel. Without it the
     * kernel, holding the VIPs on {@code lo}, answers a client's SYN with a reset before jvs's rewritten SYN
     * reaches the server. The daemon's mode; the port needs the maps ({@link AfPacketPrograms}).
     */
    JVS_TRAFFIC
}
