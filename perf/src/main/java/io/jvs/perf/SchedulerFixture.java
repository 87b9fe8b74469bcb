package io.jvs.perf;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerKind;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceSettings;
import io.jvs.core.service.VirtualService;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Builds the fixed, seeded world the scheduler benchmarks measure: one TCP service, its servers with
 * their weights and pre-bound connections, and the flows. Everything here runs in JMH setup, never in a
 * measured method.
 * <p>
 * The load model, chosen so that every scheduler takes the path it takes in a busy service:
 * <ul>
 *   <li>weights 1..10, uniform, from a seeded generator (so wrr/sh/mh/twos see unequal weights and wlc's
 *       cross-multiplications matter);</li>
 *   <li>each server has {@code 1..weight} active connections and {@code 0..63} inactive ones, bound with
 *       {@link RealServer#bindConnection}. Every server is busy (at least one active), so nq never takes
 *       its "first idle server" exit and does its full pass; no server has more active connections than
 *       its weight, so an lblc/lblcr cached server is never locality-overloaded and a table hit is
 *       O(1) (the overload scan is skipped), and every server is eligible for ovf;</li>
 *   <li>no thresholds, so no server is OVERLOAD.</li>
 * </ul>
 */
final class SchedulerFixture
{
    /** Seed of every generator here, so every run and every fork sees the same world. */
    static final long SEED = 0x6A76_7300_0002L;
    /** The virtual IP. 192.0.2.0/24 is TEST-NET-1. */
    static final int VIP = 0xC000_0201;
    static final int PORT = 80;
    /** Real servers live in 10.0.0.0/8, numbered from 10.1.0.1. */
    static final int FIRST_SERVER = 0x0A01_0001;

    private SchedulerFixture()
    {
    }

    /**
     * @param kind    the scheduler.
     * @param servers how many real servers.
     * @return a service with that scheduler, its servers added and their connections bound.
     */
    static VirtualService service(final SchedulerKind kind, final int servers)
    {
        final IpAddress vip = IpAddress.ofV4(VIP);
        final SchedulerFlags flags = SchedulerFlags.NONE;
        final VirtualService service = new VirtualService(
            ServiceKey.of(Protocol.TCP, vip, PORT),
            new ServiceSettings(kind.schedulerName(), flags, false, 0, 32, false),
            SchedulerSettings.of(flags));
        final SplittableRandom random = new SplittableRandom(SEED);
        for (int i = 0; i < servers; i++)
        {
            final int weight = 1 + random.nextInt(10);
            final RealServer server =
                new RealServer(IpAddress.ofV4(FIRST_SERVER + i), PORT, ForwardMethod.NAT, weight);
            service.addServer(server);
            final int active = 1 + random.nextInt(weight);
            final int inactive = random.nextInt(64);
            for (int c = 0; c < active; c++)
            {
                server.bindConnection(false);
            }
            for (int c = 0; c < inactive; c++)
            {
                server.bindConnection(true);
            }
        }
        return service;
    }

    /**
     * @param count  how many distinct addresses.
     * @param random the generator.
     * @return distinct IPv4 addresses, host order, none 0.
     */
    static int[] distinctAddresses(final int count, final SplittableRandom random)
    {
        final Set<Integer> seen = new HashSet<>();
        final int[] addresses = new int[count];
        int n = 0;
        while (n < count)
        {
            final int address = random.nextInt();
            if (address != 0 && seen.add(address))
            {
                addresses[n++] = address;
            }
        }
        return addresses;
    }

    /**
     * The flows of the main benchmark: {@code count} tuples, each with its own client address and source
     * port, whose destinations cycle through a working set of {@code destinations} distinct addresses
     * (the cache servers' origin addresses that lblc/lblcr and dh key on).
     *
     * @param count        how many tuples (distinct client addresses).
     * @param destinations the size of the destination working set; divides count.
     * @return the tuples.
     */
    static FlowTuple[] flows(final int count, final int destinations)
    {
        final SplittableRandom random = new SplittableRandom(SEED ^ 0x5EED);
        final int[] sources = distinctAddresses(count, random);
        final int[] destinationSet = distinctAddresses(destinations, random);
        final FlowTuple[] flows = new FlowTuple[count];
        for (int i = 0; i < count; i++)
        {
            flows[i] = new FlowTuple().setV4(
                Protocol.TCP, sources[i], 1024 + random.nextInt(64512), destinationSet[i % destinations], PORT);
        }
        return flows;
    }
}
