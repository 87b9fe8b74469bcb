package io.jvs.core.sched;

import io.jvs.core.concurrent.SharedKeyTable;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.VirtualService;

/**
 * What lblc and lblcr share: the destination-keyed table (1024 buckets by default, the destination address
 * bucketed by the service's {@link AddressHash}), the server identifiers it stores, and its 60 s garbage
 * collection.
 */
abstract class AbstractLocalityScheduler implements Scheduler
{
    static final int DEFAULT_BUCKETS = 1024;

    protected final SharedKeyTable table;
    protected final ServerSlots slots = new ServerSlots();
    private final LocalityCollector collector;
    private final AddressHash hash;
    private final int bits;
    protected VirtualService service;
    private volatile boolean dead;
    /** wlc's choice, which the kernel's lblc and lblcr make for a destination their table does not place. */
    private final WeightedLeastConnectionScheduler leastConnection = new WeightedLeastConnectionScheduler();

    AbstractLocalityScheduler(final SchedulerSettings settings, final long expirationNs)
    {
        final int buckets = settings.flags().tableSize() != 0 ? settings.flags().tableSize() : DEFAULT_BUCKETS;
        this.table = new SharedKeyTable(buckets);
        this.bits = Integer.numberOfTrailingZeros(buckets);
        this.hash = AddressHash.of(settings.flags());
        this.collector = new LocalityCollector(table, expirationNs);
    }

    @Override
    public void init(final VirtualService service)
    {
        this.service = service;
        final RealServer[] servers = service.servers();
        for (int i = servers.length - 1; i >= 0; i--)
        {
            slots.assign(servers[i], servers);
        }
        leastConnection.init(service);
    }

    @Override
    public void onServerAdded(final RealServer server)
    {
        slots.assign(server, service.servers());
        leastConnection.onServerAdded(server);
    }

    @Override
    public void onServerRemoved(final RealServer server)
    {
        leastConnection.onServerRemoved(server);
    }

    @Override
    public void onServerUpdated(final RealServer server)
    {
        leastConnection.onServerUpdated(server);
    }

    /**
     * @param servers the service's servers.
     * @return the weighted least-connection choice among them (the kernel's __ip_vs_lblc_schedule), or null.
     */
    protected final RealServer leastConnection(final RealServer[] servers)
    {
        return leastConnection.choose(servers);
    }

    @Override
    public void onTick(final long nowNs)
    {
        collector.onTick(nowNs);
    }

    @Override
    public void done()
    {
        dead = true;
        table.flush();
    }

    /**
     * @return false once the scheduler is done: decisions are then no longer cached.
     */
    protected boolean isAlive()
    {
        return !dead;
    }

    protected final int bucketOf(final FlowTuple flow)
    {
        return hash.bucket(flow.destinationFold(), bits);
    }

    protected static long fingerprintOf(final FlowTuple flow)
    {
        return SharedKeyTable.fingerprint(flow.isV6(), flow.destinationHigh(), flow.destinationLow());
    }

    SharedKeyTable table()
    {
        return table;
    }

    /**
     * @param expirationNs the expiration sysctl's new value for this scheduler's collector.
     */
    final void collectorExpirationNs(final long expirationNs)
    {
        collector.expirationNs(expirationNs);
    }

    LocalityCollector collector()
    {
        return collector;
    }
}
