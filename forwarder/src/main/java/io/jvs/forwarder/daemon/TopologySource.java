package io.jvs.forwarder.daemon;

import io.jvs.core.net.IpAddress;
import io.jvs.core.pipeline.Topology;

import java.util.Collection;
import java.util.Set;

/**
 * Where the conductor learns the box's ports and next hops: the kernel (routes, neighbours, addresses over
 * rtnetlink), with the config's {@code neighbour} and {@code gateway} statements over it. Used by the conductor
 * thread only.
 */
interface TopologySource extends AutoCloseable
{
    /**
     * @param servers the real servers' addresses, whose next hops the snapshot must hold.
     * @return the topology as now known.
     */
    Topology topology(Collection<IpAddress> servers);

    /**
     * Takes in what changed since the last call (kernel notifications) without blocking.
     *
     * @return whether the topology may have changed.
     */
    boolean poll(long nowNs);

    /** A worker found no MAC for this next hop: have it resolved (rate-limited by the source). */
    void resolve(IpAddress address, long nowNs);

    /**
     * A worker learnt a smaller path MTU towards a real server (a router beyond jvs said so about a tunnelled
     * packet): keep it for the server's next hop for a while, as the kernel keeps a route exception.
     *
     * @return whether the topology changed (none by default: the source keeps no path MTUs).
     */
    default boolean learnPathMtu(final IpAddress server, final int mtu, final long nowNs)
    {
        return false;
    }

    /**
     * A snapshot made from {@link #topology} is in the workers' hands: what the source reports of it (a path MTU
     * learnt or forgotten, an interface's new MTU or MAC) is now in effect.
     */
    default void published()
    {
    }

    /**
     * Takes a reloaded configuration's {@code neighbour} and {@code gateway} statements (its interfaces are the
     * running ones: a reload that changes them is refused before this).
     */
    void reconfigure(io.jvs.forwarder.config.JvsConfig config);

    /** @return descriptors that become readable when {@link #poll} has something to take in (none by default). */
    default int[] descriptors()
    {
        return new int[0];
    }

    /** @return the box's own addresses (the XDP program passes traffic to them to the kernel). */
    Set<IpAddress> localAddresses();

    @Override
    void close();
}
