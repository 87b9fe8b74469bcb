package io.jvs.forwarder.daemon.it;

import io.jvs.core.net.IpAddress;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Configuration text for the daemon's system tests: the director's devices over AF_XDP or AF_PACKET, the
 * workers, and services in ipvsadm's language; and the set-up every such test needs before traffic.
 */
final class DaemonConfigs
{
    private DaemonConfigs()
    {
    }

    /** @return the two interface statements (client side, server side) over AF_XDP and {@code workers 1}. */
    static String twoArm()
    {
        return twoArm("afxdp xdp-mode drv");
    }

    /**
     * @param port the interface statements' port options, e.g. {@code afpacket}.
     * @return the two interface statements (client side, server side) and {@code workers 1}.
     */
    static String twoArm(final String port)
    {
        return twoArm(port, "1");
    }

    /**
     * @param port    the interface statements' port options, e.g. {@code afpacket}.
     * @param workers the {@code workers} statement's words, e.g. {@code 2} or {@code 1 cpus 1}.
     * @return the two interface statements of an {@link LbTopology}'s director and the {@code workers} one.
     */
    static String twoArm(final String port, final String workers)
    {
        return interfaces(port, LbTopology.DIRECTOR_CLIENT_DEVICE, LbTopology.DIRECTOR_SERVER_DEVICE) +
            "workers " + workers + "\n";
    }

    /** @return an {@code interface} statement per device, each with the port options {@code port}. */
    static String interfaces(final String port, final String... devices)
    {
        final StringBuilder text = new StringBuilder();
        for (final String device : devices)
        {
            text.append("interface ").append(device).append(" port ").append(port).append('\n');
        }
        return text.toString();
    }

    /**
     * @return {@code ADDR:PORT}, an IPv6 address in brackets and shortened as inet_ntop does (RFC 5952), as
     *         ipvsadm writes it and the daemon's status names servers; not Java's {@code 0:0:0:0} form.
     */
    static String endpoint(final InetAddress address, final int port)
    {
        final String host = IpAddress.of(address).toString();
        return (address instanceof Inet6Address ? "[" + host + "]" : host) + ":" + port;
    }

    /**
     * @param protocol  {@code t} or {@code u}.
     * @param scheduler the {@code -s} word.
     * @param forward   {@code m}, {@code g} or {@code i}.
     * @param servers   the real servers' addresses, each on {@code port}.
     * @param weights   one per server.
     * @return an {@code -A} line and one {@code -a} line per server.
     */
    static String service(final char protocol, final InetAddress vip, final int port, final String scheduler,
        final char forward, final List<? extends InetAddress> servers, final int... weights)
    {
        return virtualService("-" + protocol + " " + endpoint(vip, port), port, scheduler, forward, servers,
            weights);
    }

    /**
     * @param mark the firewall mark the service takes ({@code -f}).
     * @return an {@code -A -f} line and one {@code -a -f} line per server (port 0: the packets' own).
     * @see #service
     */
    static String fwmarkService(final int mark, final String scheduler, final char forward,
        final List<? extends InetAddress> servers, final int... weights)
    {
        return virtualService("-f " + mark, 0, scheduler, forward, servers, weights);
    }

    private static String virtualService(final String virtual, final int port, final String scheduler,
        final char forward, final List<? extends InetAddress> servers, final int... weights)
    {
        if (weights.length != servers.size())
        {
            throw new IllegalArgumentException(servers.size() + " servers but " + weights.length + " weights");
        }
        final StringBuilder text = new StringBuilder()
            .append("-A ").append(virtual).append(" -s ").append(scheduler).append('\n');
        for (int i = 0; i < servers.size(); i++)
        {
            text.append("-a ").append(virtual).append(" -r ").append(endpoint(servers.get(i), port)).append(" -")
                .append(forward).append(" -w ").append(weights[i]).append('\n');
        }
        return text.toString();
    }

    /** @return the servers' IPv4 addresses, the first (rs1, in1) first. */
    static List<InetAddress> serversV4(final Topology topology)
    {
        return topology.servers().stream().map(server -> (InetAddress)server.ipv4()).toList();
    }

    /** @return the servers' IPv6 addresses, the first (rs1, in1) first. */
    static List<InetAddress> serversV6(final Topology topology)
    {
        return topology.servers().stream().map(server -> (InetAddress)server.ipv6()).toList();
    }

    /** @return {@code count} ones. */
    static int[] ones(final int count)
    {
        final int[] weights = new int[count];
        Arrays.fill(weights, 1);
        return weights;
    }

    /**
     * A veth hands AF_XDP its sender's partial checksums (offload) with no sign of it: the client and the
     * servers compute them.
     */
    static void sendersComputeChecksums(final Topology topology)
    {
        checksumsOff(topology, topology.client());
        for (final Host server : topology.servers())
        {
            checksumsOff(topology, server.nic());
        }
    }

    private static void checksumsOff(final Topology topology, final NetInterface device)
    {
        topology.inNamespace(device.namespace(), "ethtool", "-K", device.name(), "tx", "off");
    }

    /** @return per server identity ({@code rs1}...), how many of the connections it answered. */
    static Map<String, Integer> byServer(final List<TcpDigestClient.Connection> connections)
    {
        final Map<String, Integer> byServer = new TreeMap<>();
        connections.forEach(connection -> byServer.merge(connection.serverIdentity(), 1, Integer::sum));
        return byServer;
    }

    /** @return the names of the {@code drop.*} counters that are not zero, with their values. */
    static Map<String, Long> drops(final Map<String, Long> status)
    {
        final Map<String, Long> drops = new TreeMap<>();
        status.forEach((name, value) ->
        {
            if (name.startsWith("drop.") && value != 0)
            {
                drops.put(name, value);
            }
        });
        return drops;
    }

    /** A NAT service of TCP on the topology's IPv4 VIP and {@code port}, rr over every real server at weight 1. */
    static String natService(final LbTopology topology, final int port)
    {
        return service('t', topology.vip4(), port, "rr", 'm', serversV4(topology), ones(topology.realServers().size()));
    }

    /** Carries {@code count} connections of 64 KiB byte-exact through the daemon to the VIP's {@code port}. */
    static void assertForwards(final LbTopology topology, final DaemonProcess daemon, final int port, final int count)
    {
        final java.util.List<TcpDigestClient.Connection> connections = TcpDigestClient.run(topology.clientNamespace(),
            TcpDigestClient.Load.of(new java.net.InetSocketAddress(topology.vip4(), port), count, 64 << 10)
                .parallel(2));
        org.assertj.core.api.Assertions.assertThat(TcpDigestClient.failures(connections))
            .as(() -> String.join("\n", daemon.log()) + "\n" + daemon.status()).isEmpty();
    }
}
