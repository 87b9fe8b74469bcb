package io.jvs.forwarder.daemon.it;

import java.util.List;

/**
 * The pieces the test topologies are built of, as {@code ip -batch} commands and sysctls: a namespace's
 * base settings, a switch (a bridge in a namespace of its own) and its ports.
 */
final class Wiring
{
    /** The bridge of every switch namespace. */
    static final String BRIDGE = "br0";

    private Wiring()
    {
    }

    /**
     * Reverse-path filtering off, and IPv6 either without duplicate address detection (addresses usable at
     * once) or disabled. Set before the veths arrive: a device takes the namespace's "default" values when it
     * is registered there.
     */
    static void baseSysctls(final String namespace, final boolean ipv6)
    {
        Netns.sysctl(namespace,
            "net.ipv4.conf.all.rp_filter", "0",
            "net.ipv4.conf.default.rp_filter", "0");
        if (ipv6)
        {
            Netns.sysctl(namespace,
                "net.ipv6.conf.all.accept_dad", "0",
                "net.ipv6.conf.default.accept_dad", "0");
        }
        else
        {
            Netns.sysctl(namespace,
                "net.ipv6.conf.all.disable_ipv6", "1",
                "net.ipv6.conf.default.disable_ipv6", "1");
        }
    }

    /** A bridge that floods multicast like a plain switch (no snooping), up. */
    static List<String> bridge()
    {
        return List.of("link add name " + BRIDGE + " type bridge mcast_snooping 0", "link set dev " + BRIDGE + " up");
    }

    /**
     * A veth whose end {@code portName} is a port of the bridge and whose other end, {@code peerName}, is
     * created in {@code peerNamespace} (left down: its namespace configures it).
     */
    static List<String> port(final String portName, final String peerNamespace, final String peerName,
        final int mtu)
    {
        return port(portName, peerNamespace, peerName, mtu, 1);
    }

    /**
     * {@link #port(String, String, String, int)} with {@code queues} receive and transmit queues on both ends
     * (a veth made without them has one): the bridge spreads flows over the port's transmit queues, and each
     * lands on the peer's receive queue of the same number.
     */
    static List<String> port(final String portName, final String peerNamespace, final String peerName,
        final int mtu, final int queues)
    {
        final String q = " numtxqueues " + queues + " numrxqueues " + queues;
        return List.of(
            "link add name " + portName + " mtu " + mtu + q + " type veth peer name " + peerName + " mtu " + mtu + q +
                " netns " + peerNamespace,
            "link set dev " + portName + " master " + BRIDGE,
            "link set dev " + portName + " up");
    }

    /** A veth between two namespaces, created from the first; both ends left down. */
    static String veth(final String name, final String peerNamespace, final String peerName)
    {
        return "link add name " + name + " type veth peer name " + peerName + " netns " + peerNamespace;
    }

    /**
     * @param ipv4 e.g. "10.0.0.1/24".
     * @param ipv6 e.g. "fd00:10::1/64", or null.
     * @return the commands that give {@code device} these addresses (IPv6 without DAD) and bring it up.
     */
    static List<String> addresses(final String device, final String ipv4, final String ipv6)
    {
        return ipv6 == null ?
            List.of("addr add " + ipv4 + " dev " + device, "link set dev " + device + " up") :
            List.of("addr add " + ipv4 + " dev " + device, "addr add " + ipv6 + " dev " + device + " nodad",
                "link set dev " + device + " up");
    }
}
