package io.jvs.core.net;

/**
 * The addresses, ports, protocol and firewall mark of the packet being scheduled.
 * <p>
 * One instance belongs to one worker and is refilled for every packet, so scheduling allocates
 * nothing. Addresses are held like {@link IpAddress}: IPv4 in the low 32 bits of the low word.
 * Ports are host-order values 0..65535.
 */
public final class FlowTuple
{
    private Protocol protocol = Protocol.TCP;
    private boolean v6;
    private long sourceHigh;
    private long sourceLow;
    private long destinationHigh;
    private long destinationLow;
    private int sourcePort;
    private int destinationPort;
    private int firewallMark;

    /**
     * Fills the tuple for an IPv4 packet.
     *
     * @param protocol        the layer-4 protocol.
     * @param source          source address, host order.
     * @param sourcePort      source port.
     * @param destination     destination address, host order.
     * @param destinationPort destination port.
     * @return this tuple.
     */
    public FlowTuple setV4(
        final Protocol protocol,
        final int source,
        final int sourcePort,
        final int destination,
        final int destinationPort)
    {
        this.protocol = protocol;
        this.v6 = false;
        this.sourceHigh = 0;
        this.sourceLow = source & 0xFFFF_FFFFL;
        this.destinationHigh = 0;
        this.destinationLow = destination & 0xFFFF_FFFFL;
        this.sourcePort = sourcePort;
        this.destinationPort = destinationPort;
        this.firewallMark = 0;
        return this;
    }

    /**
     * Fills the tuple for an IPv6 packet.
     *
     * @param protocol        the layer-4 protocol.
     * @param sourceHigh      first 64 bits of the source address.
     * @param sourceLow       last 64 bits of the source address.
     * @param sourcePort      source port.
     * @param destinationHigh first 64 bits of the destination address.
     * @param destinationLow  last 64 bits of the destination address.
     * @param destinationPort destination port.
     * @return this tuple.
     */
    public FlowTuple setV6(
        final Protocol protocol,
        final long sourceHigh,
        final long sourceLow,
        final int sourcePort,
        final long destinationHigh,
        final long destinationLow,
        final int destinationPort)
    {
        this.protocol = protocol;
        this.v6 = true;
        this.sourceHigh = sourceHigh;
        this.sourceLow = sourceLow;
        this.destinationHigh = destinationHigh;
        this.destinationLow = destinationLow;
        this.sourcePort = sourcePort;
        this.destinationPort = destinationPort;
        this.firewallMark = 0;
        return this;
    }

    /**
     * Fills the tuple from address values (control plane and tools; allocates nothing either).
     *
     * @param protocol        the layer-4 protocol.
     * @param source          source address.
     * @param sourcePort      source port.
     * @param destination     destination address, of the same family.
     * @param destinationPort destination port.
     * @return this tuple.
     */
    public FlowTuple set(
        final Protocol protocol,
        final IpAddress source,
        final int sourcePort,
        final IpAddress destination,
        final int destinationPort)
    {
        if (source.isV6() != destination.isV6())
        {
            throw new IllegalArgumentException("source and destination differ in address family");
        }
        if (source.isV6())
        {
            return setV6(protocol, source.high(), source.low(), sourcePort,
                destination.high(), destination.low(), destinationPort);
        }
        return setV4(protocol, source.v4(), sourcePort, destination.v4(), destinationPort);
    }

    /**
     * @param firewallMark the packet's mark (0 = none), as a firewall rule would have set it.
     * @return this tuple.
     */
    public FlowTuple firewallMark(final int firewallMark)
    {
        this.firewallMark = firewallMark;
        return this;
    }

    public Protocol protocol()
    {
        return protocol;
    }

    public boolean isV6()
    {
        return v6;
    }

    /**
     * @return the source IPv4 address in host order (IPv4 tuples only).
     */
    public int sourceV4()
    {
        return (int)sourceLow;
    }

    /**
     * @return the destination IPv4 address in host order (IPv4 tuples only).
     */
    public int destinationV4()
    {
        return (int)destinationLow;
    }

    public long sourceHigh()
    {
        return sourceHigh;
    }

    public long sourceLow()
    {
        return sourceLow;
    }

    public long destinationHigh()
    {
        return destinationHigh;
    }

    public long destinationLow()
    {
        return destinationLow;
    }

    public int sourcePort()
    {
        return sourcePort;
    }

    public int destinationPort()
    {
        return destinationPort;
    }

    public int firewallMark()
    {
        return firewallMark;
    }

    /**
     * @return the source address folded to 32 bits as IPVS hashes it.
     */
    public int sourceFold()
    {
        return v6 ? AddressFold.fold(sourceHigh, sourceLow) : (int)sourceLow;
    }

    /**
     * @return the destination address folded to 32 bits as IPVS hashes it.
     */
    public int destinationFold()
    {
        return v6 ? AddressFold.fold(destinationHigh, destinationLow) : (int)destinationLow;
    }

    /**
     * @return the source address as a value (allocates; for tools and messages).
     */
    public IpAddress sourceAddress()
    {
        return v6 ? IpAddress.ofV6(sourceHigh, sourceLow) : IpAddress.ofV4((int)sourceLow);
    }

    /**
     * @return the destination address as a value (allocates; for tools and messages).
     */
    public IpAddress destinationAddress()
    {
        return v6 ? IpAddress.ofV6(destinationHigh, destinationLow) : IpAddress.ofV4((int)destinationLow);
    }
}
