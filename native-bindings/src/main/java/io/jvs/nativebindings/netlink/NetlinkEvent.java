package io.jvs.nativebindings.netlink;

/**
 * A change the kernel announced on the rtnetlink multicast groups, as {@link NetlinkSubscription#poll} delivers
 * it. Each carries the object's whole new state (or its last state, for a removal), so applying them in order
 * after a dump converges on the kernel's tables; {@link Resync} says some were lost and the tables must be
 * dumped again.
 */
public sealed interface NetlinkEvent
{
    /**
     * RTM_NEWLINK: an interface appeared or changed (flags, MTU, MAC, name...). When it loses IFF_UP the kernel
     * deletes its IPv4 routes without an RTM_DELROUTE (its IPv6 routes and neighbours are announced): treat that as
     * their removal, or dump the routes again.
     */
    record LinkChanged(Link link) implements NetlinkEvent
    {
    }

    /** RTM_DELLINK: an interface was removed (or left the namespace). */
    record LinkRemoved(Link link) implements NetlinkEvent
    {
    }

    /** RTM_NEWADDR: an address was added, or its flags changed (an IPv6 address finished DAD). */
    record AddressAdded(Address address) implements NetlinkEvent
    {
    }

    /** RTM_DELADDR. */
    record AddressRemoved(Address address) implements NetlinkEvent
    {
    }

    /**
     * RTM_NEWROUTE.
     *
     * @param replaced true when it replaced a route of the same key (NLM_F_REPLACE, as {@code ip route replace}
     *                 or {@code change}); the old route gets no RTM_DELROUTE then.
     */
    record RouteAdded(Route route, boolean replaced) implements NetlinkEvent
    {
    }

    /** RTM_DELROUTE. */
    record RouteRemoved(Route route) implements NetlinkEvent
    {
    }

    /** RTM_NEWNEIGH: an entry was created or changed state or MAC. */
    record NeighbourChanged(Neighbour neighbour) implements NetlinkEvent
    {
    }

    /** RTM_DELNEIGH: an entry was removed (deleted, garbage-collected, or flushed with its interface). */
    record NeighbourRemoved(Neighbour neighbour) implements NetlinkEvent
    {
    }

    /**
     * Notifications were lost (the socket's receive queue overflowed: ENOBUFS, or one did not fit the buffer):
     * dump the tables again. The events queued before the loss were dropped with it, since applying them after
     * the new dump could bring back what the lost ones had changed.
     *
     * @param reason what happened, for the log.
     */
    record Resync(String reason) implements NetlinkEvent
    {
    }
}
