package io.jvs.forwarder.daemon.it;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Configuration text for the daemon's system tests: the director's two devices over AF_XDP, one worker, and
 * services in ipvsadm's language; and the set-up every such test needs before traffic.
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
        return "interface " + LbTopology.DIRECTOR_CLIENT_DEVICE + " port " + port + "\n" +
            "interface " + LbTopology.DIRECTOR_SERVER_DEVICE + " port " + port + "\n" +
            "workers 1\n";
    }

    /** @return {@code ADDR:PORT}, an IPv6 address in brackets, as ipvsadm writes it. */
    static String endpoint(final InetAddress address, final int port)
    {
        final String host = address.getHostAddress();
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
        if (weights.length != servers.size())
        {
            throw new IllegalArgumentException(servers.size() + " servers but " + weights.length + " weights");
        }
        final StringBuilder text = new StringBuilder()
            .append("-A -").append(protocol).append(' ').append(endpoint(vip, port)).append(" -s ").append(scheduler)
            .append('\n');
        for (int i = 0; i < servers.size(); i++)
        {
            text.append("-a -").append(protocol).append(' ').append(endpoint(vip, port)).append(" -r ")
                .append(endpoint(servers.get(i), port)).append(" -").append(forward).append(" -w ").append(weights[i])
                .append('\n');
        }
        return text.toString();
    }

    /** @return the real servers' IPv4 addresses, rs1 first. */
    static List<InetAddress> serversV4(final LbTopology topology)
    {
        return topology.realServers().stream().map(server -> (InetAddress)server.ipv4()).toList();
    }

    /** @return the real servers' IPv6 addresses, rs1 first. */
    static List<InetAddress> serversV6(final LbTopology topology)
    {
        return topology.realServers().stream().map(server -> (InetAddress)server.ipv6()).toList();
    }

    /** @return {@code count} ones. */
    static int[] ones(final int count)
    {
        final int[] weights = new int[count];
        Arrays.fill(weights, 1);
        return weights;
    }

    /**
     * A veth hands AF_XDP its sender's partial checksums (offload) with no sign of it: the client and the real
     * servers compute them.
     */
    static void sendersComputeChecksums(final LbTopology topology)
    {
        topology.inNamespace(topology.clientNamespace(), "ethtool", "-K", LbTopology.CLIENT_DEVICE, "tx", "off");
        for (final Host server : topology.realServers())
        {
            topology.inNamespace(server.namespace(), "ethtool", "-K", LbTopology.REAL_SERVER_DEVICE, "tx", "off");
        }
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

}
