package io.jvs.forwarder.config;

import io.jvs.forwarder.port.xdp.XdpBindMode;
import io.jvs.nativebindings.bpf.XdpMode;

/**
 * One {@code interface} statement: a network device the daemon takes frames from and sends them out of. The
 * statements' order numbers the ports: the first interface is port 0, the one {@code port}, {@code gateway},
 * {@code neighbour} and {@code mark ... in} statements refer to by index or name.
 *
 * @param name     the device name, as {@code ip link} shows it (case matters).
 * @param port     AF_XDP or AF_PACKET.
 * @param queues   how many receive queues from queue 0 on are taken, 1 and up, or {@link #DEVICE_QUEUES} when
 *                 the statement leaves it out (see {@link #queues(int)}).
 * @param xdpMode  where the XDP program runs (AF_XDP only; {@link XdpMode#DRV} unless the file says skb).
 * @param zeroCopy how the AF_XDP sockets bind: {@link XdpBindMode#AUTO} (auto), {@link XdpBindMode#ZEROCOPY}
 *                 (on) or {@link XdpBindMode#COPY} (off); AF_XDP only.
 * @param line     the statement's line in the configuration file, for the daemon's own messages.
 */
public record InterfaceConfig(String name, PortKind port, int queues, XdpMode xdpMode, XdpBindMode zeroCopy, int line)
{
    /** {@code queues} when the statement leaves it out: every receive queue the device has. */
    public static final int DEVICE_QUEUES = 0;

    public InterfaceConfig
    {
        if (name == null || port == null || xdpMode == null || zeroCopy == null)
        {
            throw new IllegalArgumentException("an interface needs a name, a port kind, an XDP mode and a bind mode");
        }
        if (queues < DEVICE_QUEUES)
        {
            throw new IllegalArgumentException("interface " + name + ": queues must be 1 or more, not " + queues);
        }
    }

    /** @return whether the statement gives {@code queues}. */
    public boolean queuesGiven()
    {
        return queues != DEVICE_QUEUES;
    }

    /**
     * @param deviceQueues the receive queues the device has.
     * @return the queues the interface takes: those the statement gives, or when it gives none every one the
     *         device has with port afxdp (each is served by its own socket, and a queue without one would pass
     *         its frames to the kernel) and one with port afpacket (its workers share the device by fanout).
     */
    public int queues(final int deviceQueues)
    {
        if (queuesGiven())
        {
            return queues;
        }
        return port == PortKind.AFXDP ? Math.max(1, deviceQueues) : 1;
    }
}
