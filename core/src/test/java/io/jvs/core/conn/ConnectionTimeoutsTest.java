package io.jvs.core.conn;

import java.lang.management.ManagementFactory;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The default idle timeouts per TCP state and for UDP, the kernel's {@code tcp_timeouts} and
 * {@code udp_timeouts} ({@code ip_vs_proto_tcp.c}, {@code ip_vs_proto_udp.c}), and how
 * {@code ipvsadm --set tcp tcpfin udp} changes them ({@code ip_vs_set_timeout} in {@code ip_vs_ctl.c}).
 */
class ConnectionTimeoutsTest
{
    /** The kernel's {@code tcp_timeouts}, state by state in its order, in seconds. */
    private static final int[] SPEC_TCP_SECONDS = {2, 900, 120, 60, 120, 120, 10, 60, 30, 120, 120};

    @Test
    void shouldUseTheSpecsTcpTimeoutsWhenNothingWasSet()
    {
        final ConnectionTimeouts timeouts = new ConnectionTimeouts();

        for (int state = 0; state < TcpStates.COUNT; state++)
        {
            assertThat(timeouts.tcpMs(state)).as(TcpStates.name(state)).isEqualTo(SPEC_TCP_SECONDS[state] * 1000);
        }
    }

    @Test
    void shouldUseFiveMinutesForUdpWhenNothingWasSet()
    {
        assertThat(new ConnectionTimeouts().udpMs()).isEqualTo(300_000);
    }

    @Test
    void shouldShowIpvsadmsDefaultsWhenListedBeforeAnySet()
    {
        final ConnectionTimeouts.Current current = new ConnectionTimeouts().current();

        assertThat(current).isEqualTo(new ConnectionTimeouts.Current(900, 120, 300));
        assertThat(current.format()).isEqualTo("Timeout (tcp tcpfin udp): 900 120 300");
    }

    @Test
    void shouldEditEstablishedFinWaitAndUdpWhenAllThreeAreSet()
    {
        final ConnectionTimeouts timeouts = new ConnectionTimeouts();

        timeouts.set(3600, 30, 45);

        assertThat(timeouts.tcpMs(TcpStates.ESTABLISHED)).isEqualTo(3_600_000);
        assertThat(timeouts.tcpMs(TcpStates.FIN_WAIT)).isEqualTo(30_000);
        assertThat(timeouts.udpMs()).isEqualTo(45_000);
        assertThat(timeouts.current().format()).isEqualTo("Timeout (tcp tcpfin udp): 3600 30 45");
    }

    @Test
    void shouldLeaveEveryOtherTcpStateAloneWhenTimeoutsAreSet()
    {
        final ConnectionTimeouts timeouts = new ConnectionTimeouts();

        timeouts.set(1, 2, 3);

        for (int state = 0; state < TcpStates.COUNT; state++)
        {
            if (state != TcpStates.ESTABLISHED && state != TcpStates.FIN_WAIT)
            {
                assertThat(timeouts.tcpMs(state)).as(TcpStates.name(state)).isEqualTo(SPEC_TCP_SECONDS[state] * 1000);
            }
        }
    }

    @Test
    void shouldKeepTheCurrentValueWhenAnArgumentIsZero()
    {
        final ConnectionTimeouts timeouts = new ConnectionTimeouts();
        timeouts.set(1000, 100, 200);

        timeouts.set(0, 50, 0);
        assertThat(timeouts.current()).isEqualTo(new ConnectionTimeouts.Current(1000, 50, 200));

        timeouts.set(0, 0, 0);
        assertThat(timeouts.current()).isEqualTo(new ConnectionTimeouts.Current(1000, 50, 200));

        timeouts.set(7, 0, 0);
        assertThat(timeouts.current()).isEqualTo(new ConnectionTimeouts.Current(7, 50, 200));

        timeouts.set(0, 0, 9);
        assertThat(timeouts.current()).isEqualTo(new ConnectionTimeouts.Current(7, 50, 9));
    }

    @Test
    void shouldChangeNothingWhenAnyValueIsOutOfRange()
    {
        final ConnectionTimeouts timeouts = new ConnectionTimeouts();

        assertThatThrownBy(() -> timeouts.set(100, 100, -1)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("udp");
        assertThatThrownBy(() -> timeouts.set(-5, 100, 100)).isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("tcp");
        assertThatThrownBy(() -> timeouts.set(100, ConnectionTimeouts.MAX_SECONDS + 1, 100))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tcpfin");

        assertThat(timeouts.current()).isEqualTo(new ConnectionTimeouts.Current(900, 120, 300));
    }

    @Test
    void shouldAcceptTheLargestValueWhenItStillFitsInMilliseconds()
    {
        final ConnectionTimeouts timeouts = new ConnectionTimeouts();

        timeouts.set(ConnectionTimeouts.MAX_SECONDS, 0, 0);

        assertThat(timeouts.tcpMs(TcpStates.ESTABLISHED)).isEqualTo(ConnectionTimeouts.MAX_SECONDS * 1000).isPositive();
        assertThat(timeouts.current().tcpSeconds()).isEqualTo(ConnectionTimeouts.MAX_SECONDS);
    }

    @Test
    void shouldKeepInstancesIndependentWhenOneIsSet()
    {
        final ConnectionTimeouts edited = new ConnectionTimeouts();
        final ConnectionTimeouts untouched = new ConnectionTimeouts();

        edited.set(1, 1, 1);

        assertThat(untouched.current()).isEqualTo(new ConnectionTimeouts.Current(900, 120, 300));
    }

    @Test
    void shouldRejectANonTcpStateWhenAskedForATcpTimeout()
    {
        final ConnectionTimeouts timeouts = new ConnectionTimeouts();

        // State COUNT is the UDP slot inside; it must not leak out as a TCP timeout.
        assertThatThrownBy(() -> timeouts.tcpMs(TcpStates.COUNT)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> timeouts.tcpMs(-1)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    @Test
    void shouldNotAllocateWhenWorkersReadTimeouts()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assertThat(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled())
            .as("this JVM measures allocation per thread").isTrue();
        final ConnectionTimeouts timeouts = new ConnectionTimeouts();
        long sink = read(timeouts, 10_000);

        final long before = threads.getCurrentThreadAllocatedBytes();
        sink += read(timeouts, 1_000_000);
        final long allocated = threads.getCurrentThreadAllocatedBytes() - before;

        assertThat(sink).isPositive();
        // A copy of the table per read would come to tens of megabytes here.
        assertThat(allocated).isLessThan(64 * 1024);
    }

    @Test
    void shouldSeeAllThreeValuesOfOneSetTogetherWhenReadConcurrently() throws InterruptedException
    {
        final ConnectionTimeouts timeouts = new ConnectionTimeouts();
        timeouts.set(1, 1, 1);
        final int rounds = 20_000;
        final Thread writer = Thread.ofPlatform().start(() ->
        {
            for (int i = 2; i <= rounds; i++)
            {
                timeouts.set(i, i, i);
            }
        });

        int last = 1;
        while (last < rounds)
        {
            final ConnectionTimeouts.Current current = timeouts.current();
            assertThat(current.tcpFinSeconds()).isEqualTo(current.tcpSeconds());
            assertThat(current.udpSeconds()).isEqualTo(current.tcpSeconds());
            assertThat(current.tcpSeconds()).isGreaterThanOrEqualTo(last);
            last = current.tcpSeconds();
        }
        writer.join();
    }

    @Test
    void shouldSetOneTcpStateAndLeaveTheOthers()
    {
        final ConnectionTimeouts timeouts = new ConnectionTimeouts();
        timeouts.setTcpState(TcpStates.SYN_RECV, 5);

        assertThat(timeouts.tcpMs(TcpStates.SYN_RECV)).isEqualTo(5_000);
        assertThat(timeouts.tcpMs(TcpStates.ESTABLISHED)).isEqualTo(900_000);
        assertThat(timeouts.udpMs()).isEqualTo(300_000);
    }

    @Test
    void shouldRefuseABadStateTimeoutAndKeepTheTable()
    {
        final ConnectionTimeouts timeouts = new ConnectionTimeouts();
        final int[] before = timeouts.publishedMs();

        assertThatThrownBy(() -> timeouts.setTcpState(TcpStates.SYN_RECV, 0))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SYN_RECV");
        assertThatThrownBy(() -> timeouts.setTcpState(TcpStates.COUNT, 5))
            .isInstanceOf(IllegalArgumentException.class);
        assertThat(timeouts.publishedMs()).isSameAs(before);
    }

    @Test
    void shouldPublishEveryTimeoutInTicksWithEveryChange()
    {
        final ConnectionTimeouts timeouts = new ConnectionTimeouts();
        final long tickMs = ConnectionTable.TICK_NS / 1_000_000L;
        final int[] before = timeouts.publishedTicks();

        timeouts.set(100, 0, 7);
        timeouts.setTcpState(TcpStates.SYN_RECV, 5);

        final int[] ticks = timeouts.publishedTicks();
        assertThat(ticks).isNotSameAs(before).hasSize(TcpStates.COUNT + 1);
        for (int state = 0; state < TcpStates.COUNT; state++)
        {
            assertThat(ticks[state]).as(TcpStates.name(state)).isEqualTo(timeouts.tcpMs(state) / tickMs);
        }
        assertThat(ticks[TcpStates.ESTABLISHED]).isEqualTo(100_000 / tickMs);
        assertThat(ticks[TcpStates.SYN_RECV]).isEqualTo(5_000 / tickMs);
        assertThat(ticks[TcpStates.COUNT]).isEqualTo(7_000 / tickMs);
        assertThat(before[TcpStates.ESTABLISHED]).as("a published table never changes").isEqualTo(900_000 / tickMs);
    }

    private static long read(final ConnectionTimeouts timeouts, final int rounds)
    {
        long sum = 0;
        for (int i = 0; i < rounds; i++)
        {
            sum += timeouts.tcpMs(i % TcpStates.COUNT) + timeouts.udpMs();
        }
        return sum;
    }
}
