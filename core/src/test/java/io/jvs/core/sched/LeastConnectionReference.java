package io.jvs.core.sched;

import io.jvs.core.net.IpAddress;
import io.jvs.core.service.ConnectionCountersDescriptor;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.RealServer;
import org.agrona.concurrent.UnsafeBuffer;

import java.math.BigInteger;
import java.nio.ByteBuffer;

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
