package io.jvs.core.sched;

import io.jvs.core.service.RealServer;

/**
 * Compact 16-bit identifiers for a service's servers, so lblc and lblcr can keep servers in their
 * off-heap tables.
 * <p>
 * Identifiers are handed out in increasing order and a removed server keeps its mapping, so a stale
 * table entry still resolves to the removed server, which is no longer AVAILABLE: exactly how the
 * kernel's entries behave while they hold a reference to a removed destination. Only after 65535
 * additions are identifiers of departed servers reused. Written by the control plane; read by workers.
 * <p>
 * The array is republished with a volatile store after every change, and a server learns its
 * identifier only after that, so a worker that read an identifier from a server or a table also sees
 * the array entry; lookups are then a plain array read.
 */
final class ServerSlots
{
    /** No server: table entries and identifiers are never 0. */
    static final int NONE = 0;
    /** The largest identifier (the lblcr member word holds four 16-bit identifiers). */
    static final int MAX_SLOT = 0xFFFF;

    private volatile RealServer[] slots = new RealServer[64];
    private int nextSlot = 1;

    /**
     * Gives a server an identifier (control plane).
     *
     * @param server  the server.
     * @param members the servers currently in the service, whose identifiers must not be reused.
     * @throws IllegalStateException when all 65535 identifiers are held by current members.
     */
    void assign(final RealServer server, final RealServer[] members)
    {
        int slot = nextSlot;
        if (slot > MAX_SLOT)
        {
            slot = firstFree(members);
        }
        else
        {
            nextSlot = slot + 1;
        }
        RealServer[] current = slots;
        if (slot >= current.length)
        {
            current = java.util.Arrays.copyOf(current, Math.min(MAX_SLOT + 1, current.length * 2));
        }
        current[slot] = server;
        slots = current;
        server.schedulerSlot(slot);
    }

    private static int firstFree(final RealServer[] members)
    {
        final boolean[] used = new boolean[MAX_SLOT + 1];
        for (final RealServer member : members)
        {
            used[member.schedulerSlot()] = true;
        }
        for (int slot = 1; slot <= MAX_SLOT; slot++)
        {
            if (!used[slot])
            {
                return slot;
            }
        }
        throw new IllegalStateException("more than 65535 servers in one lblc/lblcr service");
    }

    /**
     * @param slot an identifier read from a table.
     * @return its server, or null.
     */
    RealServer get(final int slot)
    {
        final RealServer[] current = slots;
        return slot > 0 && slot < current.length ? current[slot] : null;
    }
}
