package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ports jvs sends from and the next hops it knows: what the forwarder fills in (statically, or as
 * it learns from ARP and neighbour discovery) and the pipeline reads to address frames.
 *
 * @param ports      the ports, by index.
 * @param neighbours directly reachable hosts: their port and MAC.
 * @param gatewayV4  where IPv4 traffic for other hosts goes (clients behind a router), or null.
 * @param gatewayV6  the same for IPv6, or null.
 */
public record Topology(List<Port> ports, Map<IpAddress, Neighbour> neighbours, Neighbour gatewayV4, Neighbour gatewayV6)
{
    /**
     * A port of the forwarder.
     *
     * @param index   its index in verdicts.
     * @param mac     its MAC address (the source MAC of frames it sends).
     * @param mtu     the largest IP packet it sends.
     * @param ipv4    its IPv4 address (the source of tunnels and ICMP errors), or null.
     * @param ipv6    its IPv6 address, or null.
     */
    public record Port(int index, long mac, int mtu, IpAddress ipv4, IpAddress ipv6)
    {
    }

    /**
     * Where a next hop is.
     *
     * @param port the port it is reached through.
     * @param mac  its MAC address.
     */
    public record Neighbour(int port, long mac)
    {
    }

    public Topology
    {
        ports = List.copyOf(ports);
        neighbours = Map.copyOf(neighbours);
        for (int i = 0; i < ports.size(); i++)
        {
            if (ports.get(i).index() != i)
            {
                throw new IllegalArgumentException("port " + i + " has index " + ports.get(i).index());
            }
        }
    }

    /**
     * @return a topology with one port and no neighbours (useful for tests).
     */
    public static Topology singlePort(final long mac, final int mtu, final IpAddress ipv4)
    {
        return new Topology(List.of(new Port(0, mac, mtu, ipv4, null)), Map.of(), null, null);
    }

    /**
     * @param address a host.
     * @return how to reach it: as a neighbour, else through the gateway of its family, else null.
     */
    public Neighbour resolve(final IpAddress address)
    {
        final Neighbour direct = neighbours.get(address);
        if (direct != null)
        {
            return direct;
        }
        return address.isV6() ? gatewayV6 : gatewayV4;
    }

    /**
     * @return a builder starting from this topology.
     */
    public Builder toBuilder()
    {
        final Builder builder = new Builder();
        builder.ports.putAll(java.util.stream.IntStream.range(0, ports.size()).boxed()
            .collect(java.util.stream.Collectors.toMap(i -> i, ports::get)));
        builder.neighbours.putAll(neighbours);
        builder.gatewayV4 = gatewayV4;
        builder.gatewayV6 = gatewayV6;
        return builder;
    }

    /**
     * Assembles a topology.
     */
    public static final class Builder
    {
        private final Map<Integer, Port> ports = new LinkedHashMap<>();
        private final Map<IpAddress, Neighbour> neighbours = new LinkedHashMap<>();
        private Neighbour gatewayV4;
        private Neighbour gatewayV6;

        public Builder port(final int index, final long mac, final int mtu, final IpAddress ipv4, final IpAddress ipv6)
        {
            ports.put(index, new Port(index, mac, mtu, ipv4, ipv6));
            return this;
        }

        public Builder neighbour(final IpAddress address, final int port, final long mac)
        {
            neighbours.put(address, new Neighbour(port, mac));
            return this;
        }

        public Builder gatewayV4(final int port, final long mac)
        {
            gatewayV4 = new Neighbour(port, mac);
            return this;
        }

        public Builder gatewayV6(final int port, final long mac)
        {
            gatewayV6 = new Neighbour(port, mac);
            return this;
        }

        public Topology build()
        {
            final Port[] ordered = new Port[ports.size()];
            for (final Port port : ports.values())
            {
                if (port.index() < 0 || port.index() >= ordered.length)
                {
                    throw new IllegalArgumentException("ports must be numbered 0.." + (ordered.length - 1));
                }
                ordered[port.index()] = port;
            }
            return new Topology(List.of(ordered), neighbours, gatewayV4, gatewayV6);
        }
    }
}
