package io.jvs.core.pipeline;

import io.jvs.core.concurrent.SharedKeyTable;
import io.jvs.core.service.RealServer;

/**
 * Persistence templates (spec 15.4) shared by every worker: the server a client network was given by a
 * persistent service, found again for that network's next connections without asking the scheduler.
 * <p>
 * The key is (service slot, client address masked by the service's netmask): a service slot stands for
 * protocol, virtual address and port, or the firewall mark, and a port-0 or FTP service shares one
 * template across ports as the kernel's does. The payload packs the server slot (low 32 bits) and the
 * number of open connections the template placed (bits 32..61), both changed by compare-and-set. The
 * entry's time is its deadline: re-armed to the persistence timeout whenever it places a connection.
 * A template is valid while its deadline is ahead or it still controls connections (the kernel re-arms
 * such a template 60 s at a time; here it simply lives until they end and its deadline passes). A
 * template whose server left the service, or is quiesced while expire_quiescent_template is on, is given
 * a new server rather than re-keyed, keeping the count of connections it still controls.
 */
public final class TemplateTable
{
    /** Returned when no usable template exists. */
    public static final int NOT_FOUND = SharedKeyTable.NOT_FOUND;

    private static final long SERVER_MASK = 0xFFFF_FFFFL;
    private static final long CONTROLLED_ONE = 1L << 32;
    private static final long CONTROLLED_MASK = 0x3FFF_FFFFL << 32;
    /** Marks a template just created, until its creator has counted it on its server. */
    private static final long FRESH = 1L << 62;

    private final SharedKeyTable table;
    private final int bucketMask;
    private int sweepBucket;
    /** The server of the template last found by {@link #find}. */
    private int foundServer;

    /**
     * @param buckets a power of two; the table holds up to 16 templates per bucket.
     */
    public TemplateTable(final int buckets)
    {
        this.table = new SharedKeyTable(buckets);
        this.bucketMask = buckets - 1;
    }

    private static long fingerprint(final int service, final long networkHigh, final long networkLow)
    {
        return SharedKeyTable.fingerprint(service, networkHigh, networkLow);
    }

    private int bucket(final long fingerprint)
    {
        return (int)((fingerprint * 0x9E37_79B9_7F4A_7C15L) >>> 40) & bucketMask;
    }

    /**
     * @return how many templates exist.
     */
    public int size()
    {
        return table.entries();
    }

    /**
     * Finds a client network's template.
     *
     * @return the template's way, with its server in {@link #foundServer()}, or {@link #NOT_FOUND} when
     *         there is none or it has expired; a way with {@code foundServer() == 0} has a server that may
     *         no longer be used, and {@link #place} gives it a new one.
     */
    int find(final int service, final long networkHigh, final long networkLow, final DataPlane plane,
        final long nowNs)
    {
        final long fingerprint = fingerprint(service, networkHigh, networkLow);
        final int way = table.lookup(fingerprint, bucket(fingerprint));
        if (way == NOT_FOUND)
        {
            return NOT_FOUND;
        }
        final long payload = table.payload(way);
        if ((payload & SharedKeyTable.DYING) != 0 ||
            ((payload & CONTROLLED_MASK) == 0 && nowNs - table.lastUse(way) >= 0))
        {
            return NOT_FOUND;
        }
        final int server = (int)(payload & SERVER_MASK);
        final boolean usable = server > 0 && server < plane.serverAvailable.length && plane.serverAvailable[server] &&
            !(plane.settings.expireQuiescentTemplate() && plane.servers[server].weight() == 0);
        foundServer = usable ? server : 0;
        return way;
    }

    int foundServer()
    {
        return foundServer;
    }

    /**
     * Makes a network's template point at a server: a new template, or an existing one (expired, or with
     * an unusable server) taken over, its controlled count kept.
     *
     * @return the template's way, or {@link #NOT_FOUND} when the table is full (the connection then goes
     *         without persistence).
     */
    int place(final int service, final long networkHigh, final long networkLow, final int serverSlot,
        final DataPlane plane, final long nowNs, final long timeoutNs)
    {
        final long fingerprint = fingerprint(service, networkHigh, networkLow);
        final int way = table.acquire(fingerprint, bucket(fingerprint), nowNs, serverSlot | FRESH);
        if (way == NOT_FOUND)
        {
            return NOT_FOUND;
        }
        while (true)
        {
            final long payload = table.payload(way);
            if ((payload & SharedKeyTable.DYING) != 0)
            {
                return NOT_FOUND;
            }
            if ((payload & FRESH) != 0)
            {
                if (table.compareAndSetPayload(way, payload, payload & ~FRESH))
                {
                    plane.servers[(int)(payload & SERVER_MASK)].bindTemplate();
                    if ((int)(payload & SERVER_MASK) == serverSlot)
                    {
                        break;
                    }
                }
                continue;
            }
            final int previous = (int)(payload & SERVER_MASK);
            if (previous == serverSlot)
            {
                break;
            }
            if (table.compareAndSetPayload(way, payload, (payload & CONTROLLED_MASK) | serverSlot))
            {
                plane.servers[serverSlot].bindTemplate();
                unbind(plane, previous);
                break;
            }
        }
        table.lastUse(way, nowNs + timeoutNs);
        return way;
    }

    /**
     * Counts a connection the template placed and re-arms its deadline.
     *
     * @return false when the template is being retired (the connection then goes without it).
     */
    boolean attach(final int way, final long nowNs, final long timeoutNs)
    {
        long payload;
        do
        {
            payload = table.payload(way);
            if ((payload & SharedKeyTable.DYING) != 0)
            {
                return false;
            }
        }
        while (!table.compareAndSetPayload(way, payload, payload + CONTROLLED_ONE));
        table.lastUse(way, Math.max(table.lastUse(way), nowNs + timeoutNs));
        return true;
    }

    /**
     * A connection the template placed has ended.
     */
    void detach(final int way)
    {
        long payload;
        do
        {
            payload = table.payload(way);
        }
        while (!table.compareAndSetPayload(way, payload, payload - CONTROLLED_ONE));
    }

    /**
     * Retires expired templates without connections in the next {@code buckets} buckets.
     */
    void sweep(final long nowNs, final int buckets, final DataPlane plane)
    {
        for (int i = 0; i < buckets; i++)
        {
            sweepBucket = (sweepBucket + 1) & bucketMask;
            table.expireBucket(sweepBucket, nowNs, 0, CONTROLLED_MASK, payload -> unbind(plane, (int)(payload & SERVER_MASK)));
        }
    }

    int buckets()
    {
        return bucketMask + 1;
    }

    private static void unbind(final DataPlane plane, final int serverSlot)
    {
        final RealServer server = serverSlot > 0 && serverSlot < plane.servers.length ? plane.servers[serverSlot] : null;
        if (server != null)
        {
            server.unbindTemplate();
        }
    }
}
