package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;

import java.util.Arrays;
import java.util.Map;

/**
 * The next hop towards a client, for replies and ICMP answers: a neighbour entry if the client is on a
 * directly attached segment, else the gateway of its family. Open addressing over primitives.
 */
final class NeighbourIndex
{
    private static final int EMPTY = -1;

    private final long[] high;
    private final long[] low;
    private final int[] port;
    private final long[] mac;
    private final int mask;
    private final int gatewayV4Port;
    private final long gatewayV4Mac;
    private final int gatewayV6Port;
    private final long gatewayV6Mac;

    NeighbourIndex(final Topology topology)
    {
        int size = 16;
        while (size < topology.neighbours().size() * 2)
        {
            size <<= 1;
        }
        high = new long[size];
        low = new long[size];
        port = new int[size];
        mac = new long[size];
        Arrays.fill(port, EMPTY);
        mask = size - 1;
        for (final Map.Entry<IpAddress, Topology.Neighbour> entry : topology.neighbours().entrySet())
        {
            final IpAddress address = entry.getKey();
            int slot = hash(address.high(), address.low()) & mask;
            while (port[slot] != EMPTY)
            {
                slot = (slot + 1) & mask;
            }
            high[slot] = address.isV6() ? address.high() : ~0L;
            low[slot] = address.low();
            port[slot] = entry.getValue().port();
            mac[slot] = entry.getValue().mac();
        }
        gatewayV4Port = topology.gatewayV4() == null ? DataPlane.NO_PORT : topology.gatewayV4().port();
        gatewayV4Mac = topology.gatewayV4() == null ? 0 : topology.gatewayV4().mac();
        gatewayV6Port = topology.gatewayV6() == null ? DataPlane.NO_PORT : topology.gatewayV6().port();
        gatewayV6Mac = topology.gatewayV6() == null ? 0 : topology.gatewayV6().mac();
    }

    private static int hash(final long high, final long low)
    {
        final long h = (low ^ Long.rotateLeft(high, 23)) * 0x9E37_79B9_7F4A_7C15L;
        return (int)(h ^ (h >>> 32));
    }

    /**
     * @return the egress port towards the address, or {@link DataPlane#NO_PORT} when it is unknown.
     */
    int port(final boolean v6, final long addressHigh, final long addressLow)
    {
        final long keyHigh = v6 ? addressHigh : ~0L;
        int slot = hash(v6 ? addressHigh : 0, addressLow) & mask;
        while (port[slot] != EMPTY)
        {
            if (low[slot] == addressLow && high[slot] == keyHigh)
            {
                return port[slot];
            }
            slot = (slot + 1) & mask;
        }
        return v6 ? gatewayV6Port : gatewayV4Port;
    }

    /**
     * @return the next hop's MAC for the same address (call after {@link #port} returned a port).
     */
    long mac(final boolean v6, final long addressHigh, final long addressLow)
    {
        final long keyHigh = v6 ? addressHigh : ~0L;
        int slot = hash(v6 ? addressHigh : 0, addressLow) & mask;
        while (port[slot] != EMPTY)
        {
            if (low[slot] == addressLow && high[slot] == keyHigh)
            {
                return mac[slot];
            }
            slot = (slot + 1) & mask;
        }
        return v6 ? gatewayV6Mac : gatewayV4Mac;
    }
}
