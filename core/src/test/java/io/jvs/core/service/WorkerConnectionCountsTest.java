package io.jvs.core.service;

import io.jvs.core.net.IpAddress;
import io.jvs.core.rules.RuleParser;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A server's connections counted per worker (ConnectionCountersDescriptor): each worker's counts in its own line,
 * every reader seeing the sum, and nothing written outside the slot.
 */
class WorkerConnectionCountsTest
{
    private static final IpAddress ADDRESS = IpAddress.parse("192.168.1.1");

    @Test
    void shouldSumTheWorkersCountsForEveryReader()
    {
        final RealServer server = new RealServer(ADDRESS, 80, ForwardMethod.NAT, 1, 3);
        server.bindConnection(0, false);
        server.bindConnection(1, true);
        server.bindConnection(2, false);
        server.bindConnection(2, true);
        server.connectionActivated(1);

        assertThat(server.workers()).isEqualTo(3);
        assertThat(server.activeConnections()).isEqualTo(3);
        assertThat(server.inactiveConnections()).isEqualTo(1);
        assertThat(server.totalConnections()).isEqualTo(4);
        assertThat(server.overhead()).isEqualTo(3 * 256 + 1);

        server.connectionDeactivated(0);
        server.unbindConnection(2, false);
        assertThat(server.activeConnections()).isEqualTo(1);
        assertThat(server.inactiveConnections()).isEqualTo(2);
        assertThat(server.overhead()).isEqualTo(256 + 2);
    }

    @Test
    void shouldKeepEachWorkersCountsInALineOfItsOwnInsideTheSlot()
    {
        final int workers = 2;
        final int slot = ConnectionCountersDescriptor.slotLength(workers);
        // Guard lines either side of the slot: nothing may be written there.
        final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(slot + 128, 64));
        final RealServer server = new RealServer(ADDRESS, 80, ForwardMethod.NAT, 1, buffer, 64, workers);
        server.bindConnection(0, false);
        server.bindConnection(1, true);
        server.bindConnection(1, true);

        assertThat(buffer.getInt(64 + ConnectionCountersDescriptor.workerLineOffset(0) +
            ConnectionCountersDescriptor.ACTIVE_OFFSET)).isEqualTo(1);
        assertThat(buffer.getInt(64 + ConnectionCountersDescriptor.workerLineOffset(1) +
            ConnectionCountersDescriptor.INACTIVE_OFFSET)).isEqualTo(2);
        assertThat(ConnectionCountersDescriptor.workerLineOffset(1) - ConnectionCountersDescriptor.workerLineOffset(0))
            .isEqualTo(ConnectionCountersDescriptor.LINE_LENGTH);
        for (int i = 0; i < 64; i++)
        {
            assertThat(buffer.getByte(i)).isZero();
            assertThat(buffer.getByte(64 + slot + i)).isZero();
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, 2, 5})
    void shouldRefuseAWorkerTheSlotHasNoLineFor(final int worker)
    {
        final RealServer server = new RealServer(ADDRESS, 80, ForwardMethod.NAT, 1, 2);
        assertThatIllegalArgumentException().isThrownBy(() -> server.bindConnection(worker, false))
            .withMessageContaining("worker " + worker + " of 2");
        assertThat(server.totalConnections()).isZero();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, RealServer.MAX_WORKERS + 1})
    void shouldRefuseAnImpossibleWorkerCount(final int workers)
    {
        assertThatIllegalArgumentException().isThrownBy(() -> new RealServer(ADDRESS, 80, ForwardMethod.NAT, 1, workers))
            .withMessageContaining("workers out of range");
    }

    @Test
    void shouldRefuseCountersOnTheHeap()
    {
        final UnsafeBuffer onTheHeap = new UnsafeBuffer(new byte[ConnectionCountersDescriptor.slotLength(1)]);
        assertThatIllegalArgumentException()
            .isThrownBy(() -> new RealServer(ADDRESS, 80, ForwardMethod.NAT, 1, onTheHeap, 0, 1))
            .withMessageContaining("off the heap");
    }

    @Test
    void shouldGiveTheServersOfATableALineForEachOfItsWorkers()
    {
        final ServiceTable table = new ServiceTable(new SchedulerSettings(SchedulerFlags.NONE, 4,
            SchedulerSettings.DEFAULT_EXPIRATION_NS, SchedulerSettings.DEFAULT_EXPIRATION_NS));
        RuleParser.parse("-A -t 10.0.0.1:80 -s wlc").applyTo(table);
        RuleParser.parse("-a -t 10.0.0.1:80 -r 192.168.1.1:80 -m").applyTo(table);
        final RealServer server = table.allServers().getFirst();
        assertThat(server.workers()).isEqualTo(4);
        server.bindConnection(3, false);
        assertThat(server.activeConnections()).isOne();
    }

    /** The thresholds see every worker's connections: OVERLOAD at the upper one, cleared below the lower. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void shouldApplyTheThresholdsToTheSumOverWorkers(final long seed)
    {
        final Random random = new Random(seed);
        final RealServer server = new RealServer(ADDRESS, 80, ForwardMethod.NAT, 1, 3);
        server.thresholds(10, 5);
        final int[] held = new int[3];
        for (int i = 0; i < 10; i++)
        {
            final int worker = random.nextInt(3);
            server.bindConnection(worker, false);
            held[worker]++;
            assertThat(server.isOverloaded()).isEqualTo(i == 9);
        }
        for (int total = 10; total > 0; total--)
        {
            int worker = random.nextInt(3);
            while (held[worker] == 0)
            {
                worker = (worker + 1) % 3;
            }
            server.unbindConnection(worker, false);
            held[worker]--;
            assertThat(server.isOverloaded()).isEqualTo(total - 1 >= 5);
        }
    }
}
