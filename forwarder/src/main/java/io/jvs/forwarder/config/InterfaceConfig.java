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
 * @param queues   how many receive queues from queue 0 on are taken, 1 and up.
 * @param xdpMode  where the XDP program runs (AF_XDP only; {@link XdpMode#DRV} unless the file says skb).
 * @param zeroCopy how the AF_XDP sockets bind: {@link XdpBindMode#AUTO} (auto), {@link XdpBindMode#ZEROCOPY}
 *                 (on) or {@link XdpBindMode#COPY} (off); AF_XDP only.
 * @param line     the statement's line in the configuration file, for the daemon's own messages.
 */
public record InterfaceConfig(String name, PortKind port, int queues, XdpMode xdpMode, XdpBindMode zeroCopy, int line)
{
    public InterfaceConfig
    {
        if (name == null || port == null || xdpMode == null || zeroCopy == null)
        {
            throw new IllegalArgumentException("an interface needs a name, a port kind, an XDP mode and a bind mode");
        }
        if (queues < 1)
        {
            throw new IllegalArgumentException("interface " + name + ": queues must be 1 or more, not " + queues);
        }
    }
}
