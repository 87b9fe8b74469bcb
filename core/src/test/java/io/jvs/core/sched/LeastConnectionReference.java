package io.jvs.core.sched;

import io.jvs.core.net.IpAddress;
import io.jvs.core.service.ConnectionCountersDescriptor;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.RealServer;
import org.agrona.concurrent.UnsafeBuffer;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/**
 * What the weighted least-connection tests check a pass against, and the servers they build by hand.
 */
final class LeastConnectionReference
{
    private LeastConnectionReference()
    {
    }

    /** The usable server of least overhead / weight as exact fractions, the earlier one on a tie; null if none. */
    static RealServer least(final RealServer[] servers)
    {
        RealServer best = null;
        for (final RealServer server : servers)
        {
            if (server.weight() == 0 || server.isOverloaded())
            {
                continue;
            }
            if (best == null || BigInteger.valueOf(server.overhead()).multiply(BigInteger.valueOf(best.weight()))
                .compareTo(BigInteger.valueOf(best.overhead()).multiply(BigInteger.valueOf(server.weight()))) < 0)
            {
                best = server;
            }
        }
        return best;
    }

    /**
     * Gives each server of the fixture's service a few active connections and now and then many inactive ones, and
     * about one in five of those with a connection the OVERLOAD flag (an upper threshold of 1): small counts, so that
     * ties are common.
     */
    static void loadRandomly(final ServiceFixture fixture, final SplittableRandom random)
    {
        for (final RealServer server : fixture.service.servers())
        {
            final int active = random.nextInt(0, 4);
            final int inactive = random.nextInt(0, 3) == 0 ? random.nextInt(0, 300) : 0;
            for (int i = 0; i < active; i++)
            {
                server.bindConnection(false);
            }
            for (int i = 0; i < inactive; i++)
            {
                server.bindConnection(true);
            }
            if (random.nextInt(0, 5) == 0 && server.totalConnections() > 0)
            {
                // An upper threshold of 1 with a connection open sets OVERLOAD at the next bind.
                fixture.service.setThresholds(server, 1, 0);
                server.bindConnection(true);
                server.unbindConnection(true);
                server.bindConnection(true);
            }
        }
    }

    /**
     * A server of {@code weight} counted by {@code workers} workers, each with {@code activePerWorker} active
     * connections: overheads no service of real servers reaches by binding one connection at a time.
     */
    static RealServer serverWithActive(final int workers, final int activePerWorker, final int weight,
        final int lastOctet)
    {
        final UnsafeBuffer counters = new UnsafeBuffer(
            ByteBuffer.allocateDirect(ConnectionCountersDescriptor.slotLength(workers)));
        for (int worker = 0; worker < workers; worker++)
        {
            counters.putInt(ConnectionCountersDescriptor.workerLineOffset(worker) +
                ConnectionCountersDescriptor.ACTIVE_OFFSET, activePerWorker);
        }
        return new RealServer(IpAddress.parse("192.168.1." + lastOctet), 80, ForwardMethod.NAT, weight, counters, 0,
            workers);
    }
}
