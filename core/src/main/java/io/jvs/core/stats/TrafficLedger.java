package io.jvs.core.stats;

import io.jvs.core.pipeline.DataPlane;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.VirtualService;

import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;

import static io.jvs.core.stats.TrafficStatsDescriptor.FIELDS;

/**
 * What {@code ipvsadm --stats}, {@code --rate} and {@code -Z} see: every service's and real server's counters
 * summed over the workers' {@link TrafficStats}, counted from when it joined (or was last zeroed), and its
 * {@link RateEstimator}.
 * <p>
 * The workers' counters are never reset (see {@link TrafficStats}); a slot's figures are its sum minus a baseline
 * taken when its occupant changed or was zeroed, the way {@code ip_vs_zero_stats} keeps {@code kstats0}. A
 * service or server that a snapshot puts in a slot another held starts from zero, as a new IPVS service or
 * destination does. Services and servers are told apart by identity: the service table keeps the same object for
 * as long as one exists.
 * <p>
 * Not thread-safe: the conductor calls {@link #observe} after each publish and {@link #sample} every
 * {@link RateEstimator#INTERVAL_NS}, and answers readers on its own thread.
 */
public final class TrafficLedger
{
    /** Every field a slot counts: IPVS's five, then jvs's frames and their bytes. */
    private static final int ALL_FIELDS = TrafficStatsDescriptor.FRAME_BYTES + 1;

    private final TrafficStats[] workers;
    private final Ledger services;
    private final Ledger servers;
    /** The service each server slot's occupant was bound to when its figures last started again, by server slot. */
    private final VirtualService[] serverBoundTo;
    private final long[] sum = new long[FIELDS];
    private final long[] all = new long[ALL_FIELDS];
    private DataPlane plane;

    /**
     * @param workers every worker's counters (all with the same slot counts).
     */
    public TrafficLedger(final TrafficStats[] workers)
    {
        this.workers = workers.clone();
        this.services = new Ledger(workers[0].serviceSlots());
        this.servers = new Ledger(workers[0].serverSlots());
        this.serverBoundTo = new VirtualService[workers[0].serverSlots()];
    }

    /**
     * Takes in a newly published snapshot: slots whose occupant changed start from zero, and so does a server bound
     * to another service object than before ({@link RealServer#service()}: a deleted service's server taken back by
     * one created again under its key), as {@code __ip_vs_update_dest} zeroes a destination's stats and estimator
     * when {@code old_svc != svc}; one added back to its own service keeps its figures.
     */
    public void observe(final DataPlane next)
    {
        plane = next;
        for (int slot = 0; slot < Math.min(next.serviceCount(), services.occupant.length); slot++)
        {
            final VirtualService service = next.service(slot);
            if (service == null)
            {
                services.vacate(slot);
            }
            else if (services.occupant[slot] != service)
            {
                TrafficStats.sumService(workers, slot, sum);
                services.start(slot, service, sum);
                services.join(slot, sumAll(false, slot));
            }
        }
        for (int slot = 1; slot < Math.min(next.serverSlots(), servers.occupant.length); slot++)
        {
            final RealServer server = next.server(slot);
            if (server == null)
            {
                servers.vacate(slot);
                serverBoundTo[slot] = null;
            }
            else if (servers.occupant[slot] != server)
            {
                TrafficStats.sumServer(workers, slot, sum);
                servers.start(slot, server, sum);
                servers.join(slot, sumAll(true, slot));
                serverBoundTo[slot] = server.service();
            }
            else if (serverBoundTo[slot] != server.service())
            {
                // Taken back by a service created again under its old one's key: ip_vs_zero_stats, as -Z does.
                TrafficStats.sumServer(workers, slot, sum);
                servers.zero(slot, sum);
                servers.join(slot, sumAll(true, slot));
                serverBoundTo[slot] = server.service();
            }
        }
    }

    /** One estimator interval: every occupied slot's rates move (conductor thread, every two seconds). */
    public void sample()
    {
        for (final Map.Entry<Object, Integer> entry : services.slots.entrySet())
        {
            TrafficStats.sumService(workers, entry.getValue(), sum);
            services.sample(entry.getValue(), sum);
        }
        for (final Map.Entry<Object, Integer> entry : servers.slots.entrySet())
        {
            TrafficStats.sumServer(workers, entry.getValue(), sum);
            servers.sample(entry.getValue(), sum);
        }
    }

    /**
     * @return the service's counters and rates since it joined or was zeroed, or null when no snapshot observed
     *         holds it.
     */
    public Figures of(final VirtualService service)
    {
        final Integer slot = services.slots.get(service);
        if (slot == null)
        {
            return null;
        }
        TrafficStats.sumService(workers, slot, sum);
        return services.figures(slot, sum);
    }

    /**
     * @return the server's counters and rates since it joined or was zeroed, or null when no snapshot observed
     *         holds it.
     */
    public Figures of(final RealServer server)
    {
        final Integer slot = servers.slots.get(server);
        if (slot == null)
        {
            return null;
        }
        TrafficStats.sumServer(workers, slot, sum);
        return servers.figures(slot, sum);
    }

    /**
     * @return the service's counts by {@link TrafficStatsDescriptor} field id, IPVS's five and jvs's frames and
     *         frame bytes, since it took its slot: what the daemon's status shows, which {@code -Z} leaves alone. The
     *         workers' counters of a slot run on from one occupant to the next; null when no snapshot observed holds
     *         the service.
     */
    public long[] sinceJoined(final VirtualService service)
    {
        final Integer slot = services.slots.get(service);
        return slot == null ? null : services.sinceJoined(slot, sumAll(false, slot));
    }

    /**
     * @return the server's counts, as {@link #sinceJoined(VirtualService)}, since it took its slot or was taken back
     *         by a service created again under its old one's key (a new destination for IPVS); null when no snapshot
     *         observed holds it.
     */
    public long[] sinceJoined(final RealServer server)
    {
        final Integer slot = servers.slots.get(server);
        return slot == null ? null : servers.sinceJoined(slot, sumAll(true, slot));
    }

    /** @return every field of a server's or a service's slot, summed over the workers (in a reused array). */
    private long[] sumAll(final boolean server, final int slot)
    {
        Arrays.fill(all, 0L);
        for (final TrafficStats stats : workers)
        {
            for (int field = 0; field < ALL_FIELDS; field++)
            {
                all[field] += server ? stats.server(slot, field) : stats.service(slot, field);
            }
        }
        return all;
    }

    /** {@code ipvsadm -Z -t|-u|-f SERVICE}: the service's counters and rates, and its servers', start again. */
    public void zero(final VirtualService service)
    {
        final Integer slot = services.slots.get(service);
        if (slot == null)
        {
            return;
        }
        TrafficStats.sumService(workers, slot, sum);
        services.zero(slot, sum);
        for (final Map.Entry<Object, Integer> entry : servers.slots.entrySet())
        {
            if (plane != null && plane.serviceOfServer(entry.getValue()) == slot)
            {
                TrafficStats.sumServer(workers, entry.getValue(), sum);
                servers.zero(entry.getValue(), sum);
            }
        }
    }

    /** {@code ipvsadm -Z}: every service and server starts again. */
    public void zeroAll()
    {
        for (final Map.Entry<Object, Integer> entry : services.slots.entrySet())
        {
            TrafficStats.sumService(workers, entry.getValue(), sum);
            services.zero(entry.getValue(), sum);
        }
        for (final Map.Entry<Object, Integer> entry : servers.slots.entrySet())
        {
            TrafficStats.sumServer(workers, entry.getValue(), sum);
            servers.zero(entry.getValue(), sum);
        }
    }

    /**
     * A service's or server's figures, by {@link TrafficStatsDescriptor} field id.
     *
     * @param counts connections, packets and bytes in and out since it joined or was zeroed.
     * @param rates  their per-second rates as {@code ip_vs_read_estimator} gives them.
     */
    public record Figures(long[] counts, long[] rates)
    {
        public Figures
        {
            counts = counts.clone();
            rates = rates.clone();
        }

        public long count(final int field)
        {
            return counts[field];
        }

        public long rate(final int field)
        {
            return rates[field];
        }

        @Override
        public long[] counts()
        {
            return counts.clone();
        }

        @Override
        public long[] rates()
        {
            return rates.clone();
        }
    }

    /** One kind of slot: who holds each, from what baseline, with what estimator. */
    private static final class Ledger
    {
        final Object[] occupant;
        final long[][] baseline;
        /** Every field's sum when the occupant took the slot: {@link #zero} leaves it. */
        final long[][] joined;
        final RateEstimator[] estimators;
        final Map<Object, Integer> slots = new IdentityHashMap<>();
        private final long[] since = new long[FIELDS];

        Ledger(final int slotCount)
        {
            occupant = new Object[slotCount];
            baseline = new long[slotCount][FIELDS];
            joined = new long[slotCount][ALL_FIELDS];
            estimators = new RateEstimator[slotCount];
        }

        void vacate(final int slot)
        {
            if (occupant[slot] != null)
            {
                slots.remove(occupant[slot]);
                occupant[slot] = null;
            }
        }

        void start(final int slot, final Object who, final long[] totals)
        {
            vacate(slot);
            occupant[slot] = who;
            slots.put(who, slot);
            System.arraycopy(totals, 0, baseline[slot], 0, FIELDS);
            estimators[slot] = new RateEstimator();
            estimators[slot].zero(zeroes());
        }

        void join(final int slot, final long[] allTotals)
        {
            System.arraycopy(allTotals, 0, joined[slot], 0, ALL_FIELDS);
        }

        long[] sinceJoined(final int slot, final long[] allTotals)
        {
            final long[] counts = new long[ALL_FIELDS];
            for (int field = 0; field < ALL_FIELDS; field++)
            {
                counts[field] = allTotals[field] - joined[slot][field];
            }
            return counts;
        }

        void sample(final int slot, final long[] totals)
        {
            estimators[slot].sample(since(slot, totals));
        }

        void zero(final int slot, final long[] totals)
        {
            System.arraycopy(totals, 0, baseline[slot], 0, FIELDS);
            estimators[slot].zero(zeroes());
        }

        Figures figures(final int slot, final long[] totals)
        {
            final long[] rates = new long[FIELDS];
            for (int field = 0; field < FIELDS; field++)
            {
                rates[field] = estimators[slot].rate(field);
            }
            return new Figures(since(slot, totals), rates);
        }

        private long[] since(final int slot, final long[] totals)
        {
            for (int field = 0; field < FIELDS; field++)
            {
                since[field] = totals[field] - baseline[slot][field];
            }
            return since;
        }

        private static long[] zeroes()
        {
            return new long[FIELDS];
        }
    }
}
