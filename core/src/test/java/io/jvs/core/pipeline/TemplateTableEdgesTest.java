package io.jvs.core.pipeline;

import io.jvs.core.net.IpAddress;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Persistence templates at their edges: the deadline (a template without controlled connections is gone at
 * exactly its timeout, there 1 ns before), a deadline extended by a connection but never shortened, placing
 * again for the same or another server, the sweep's budget and shares, and copying into a table too small.
 */
class TemplateTableEdgesTest
{
    private static final long SECOND_NS = 1_000_000_000L;
    private static final long TIMEOUT_NS = 300 * SECOND_NS;
    private static final long NETWORK = 0x0A00_0000L;

    private static RealServer[] servers(final int count)
    {
        final RealServer[] servers = new RealServer[count + 1];
        for (int slot = 1; slot <= count; slot++)
        {
            servers[slot] = new RealServer(IpAddress.ofV4(0xC0A8_0100 + slot), 80, ForwardMethod.NAT, 1);
        }
        return servers;
    }

    @Test
    void shouldExpireATemplateWithoutConnectionsExactlyAtItsDeadline()
    {
        final TemplateTable templates = new TemplateTable(16);
        final RealServer[] servers = servers(2);
        final long start = 5 * SECOND_NS;
        final int way = templates.place(7, 0, NETWORK, 1, servers, start, TIMEOUT_NS);
        assertThat(way).isNotEqualTo(TemplateTable.NOT_FOUND);
        assertThat(templates.wayOf(7, 0, NETWORK)).isEqualTo(way);
        assertThat(templates.size()).isEqualTo(1);
        final long found = templates.find(7, 0, NETWORK, start + TIMEOUT_NS - 1);
        assertThat(TemplateTable.way(found)).isEqualTo(way);
        assertThat(TemplateTable.server(found)).isEqualTo(1);
        assertThat(templates.find(7, 0, NETWORK, start + TIMEOUT_NS)).isEqualTo(TemplateTable.NOT_FOUND);
        // The sweep agrees: nothing to retire 1 ns before, the template at the deadline.
        assertThat(templates.sweepAll(start + TIMEOUT_NS - 1, servers)).isZero();
        assertThat(servers[1].persistentConnections()).isEqualTo(1);
        assertThat(templates.sweepAll(start + TIMEOUT_NS, servers)).isEqualTo(1);
        assertThat(servers[1].persistentConnections()).isZero();
        assertThat(templates.size()).isZero();
    }

    @Test
    void shouldKeepATemplateWhileItControlsConnectionsAndExtendButNeverShortenItsDeadline()
    {
        final TemplateTable templates = new TemplateTable(16);
        final RealServer[] servers = servers(1);
        final int way = templates.place(0, 0, NETWORK, 1, servers, 0, TIMEOUT_NS);
        assertThat(templates.attach(way, 0, TIMEOUT_NS)).isTrue();
        assertThat(templates.attach(way, SECOND_NS, TIMEOUT_NS)).isTrue();
        assertThat(templates.controlled(way)).isEqualTo(2);
        // Controlled: found and kept however late.
        assertThat(TemplateTable.server(templates.find(0, 0, NETWORK, 10 * TIMEOUT_NS))).isEqualTo(1);
        assertThat(templates.sweepAll(10 * TIMEOUT_NS, servers)).isZero();
        templates.detach(way);
        assertThat(templates.controlled(way)).isEqualTo(1);
        templates.detach(way);
        assertThat(templates.controlled(way)).isZero();
        // The later attach moved the deadline to 1 s + timeout.
        assertThat(templates.find(0, 0, NETWORK, SECOND_NS + TIMEOUT_NS - 1)).isNotEqualTo(TemplateTable.NOT_FOUND);
        assertThat(templates.find(0, 0, NETWORK, SECOND_NS + TIMEOUT_NS)).isEqualTo(TemplateTable.NOT_FOUND);

        // An attach with a shorter timeout does not bring the deadline forward.
        final int other = templates.place(1, 0, NETWORK, 1, servers, 0, TIMEOUT_NS);
        assertThat(templates.attach(other, 0, SECOND_NS)).isTrue();
        templates.detach(other);
        assertThat(templates.find(1, 0, NETWORK, TIMEOUT_NS - 1)).isNotEqualTo(TemplateTable.NOT_FOUND);
    }

    @Test
    void shouldCountATemplateOnceOnItsServerWhenPlacedAgain()
    {
        final TemplateTable templates = new TemplateTable(16);
        final RealServer[] servers = servers(2);
        final int way = templates.place(0, 0, NETWORK, 1, servers, 0, TIMEOUT_NS);
        assertThat(templates.place(0, 0, NETWORK, 1, servers, SECOND_NS, TIMEOUT_NS)).isEqualTo(way);
        assertThat(servers[1].persistentConnections()).isEqualTo(1);
        // Placing again moves the deadline to now + timeout.
        assertThat(templates.find(0, 0, NETWORK, SECOND_NS + TIMEOUT_NS - 1)).isNotEqualTo(TemplateTable.NOT_FOUND);
        assertThat(templates.place(0, 0, NETWORK, 2, servers, 2 * SECOND_NS, TIMEOUT_NS)).isEqualTo(way);
        assertThat(servers[1].persistentConnections()).isZero();
        assertThat(servers[2].persistentConnections()).isEqualTo(1);
        assertThat(TemplateTable.server(templates.find(0, 0, NETWORK, 2 * SECOND_NS))).isEqualTo(2);
        // Another network, another service, another half of an IPv6 network: other templates.
        assertThat(templates.find(0, 0, NETWORK + 1, 0)).isEqualTo(TemplateTable.NOT_FOUND);
        assertThat(templates.find(0, 1, NETWORK, 0)).isEqualTo(TemplateTable.NOT_FOUND);
        assertThat(templates.find(3, 0, NETWORK, 0)).isEqualTo(TemplateTable.NOT_FOUND);
    }

    @Test
    void shouldSweepAtMostItsBudgetOfBucketsARoundAndComeBackToTheStart()
    {
        final TemplateTable templates = new TemplateTable(4);
        final RealServer[] servers = servers(1);
        for (int network = 0; network < 40; network++)
        {
            templates.place(0, 0, NETWORK + network, 1, servers, 0, SECOND_NS);
        }
        assertThat(templates.size()).isEqualTo(40);
        final TemplateTable.Sweeper sweeper = templates.sweeper(0, 1);
        assertThat(sweeper.buckets()).isEqualTo(4);
        int retired = 0;
        for (int round = 0; round < 4; round++)
        {
            final int now = sweeper.sweep(2 * SECOND_NS, 1, servers);
            assertThat(now).as("round %d", round).isPositive();
            retired += now;
        }
        assertThat(retired).isEqualTo(40);
        assertThat(templates.size()).isZero();
        assertThat(servers[1].persistentConnections()).isZero();
        assertThat(sweeper.sweep(3 * SECOND_NS, 100, servers)).isZero();
    }

    @Test
    void shouldShareTheBucketsOutBetweenWorkersAndRefuseAWorkerOutsideTheRange()
    {
        final TemplateTable templates = new TemplateTable(16);
        assertThat(templates.sweeper(0, 3).buckets()).isEqualTo(5);
        assertThat(templates.sweeper(1, 3).buckets()).isEqualTo(5);
        assertThat(templates.sweeper(2, 3).buckets()).isEqualTo(6);
        assertThat(templates.sweeper(0, 1).buckets()).isEqualTo(16);
        // More workers than buckets: some sweep nothing.
        final TemplateTable small = new TemplateTable(2);
        assertThat(small.sweeper(0, 3).buckets()).isZero();
        assertThat(small.sweeper(0, 3).sweep(0, 10, servers(1))).isZero();
        for (final int[] bad : new int[][] {{0, 0}, {-1, 2}, {2, 2}, {3, 2}})
        {
            assertThatIllegalArgumentException().isThrownBy(() -> templates.sweeper(bad[0], bad[1]))
                .withMessage("worker " + bad[0] + " of " + bad[1]);
        }
    }

    @Test
    void shouldCopyEveryTemplateWithItsDeadlineAndServer()
    {
        final TemplateTable templates = new TemplateTable(16);
        final RealServer[] servers = servers(2);
        final int kept = templates.place(0, 0, NETWORK, 2, servers, 0, TIMEOUT_NS);
        templates.place(0, 0, NETWORK + 1, 1, servers, 0, SECOND_NS);
        assertThat(templates.capacity()).isEqualTo(16 * 16);
        final TemplateTable bigger = new TemplateTable(64);
        final int[] moved = templates.copyInto(bigger);
        assertThat(moved).hasSize(16 * 32);
        assertThat(moved[kept]).isEqualTo(bigger.wayOf(0, 0, NETWORK));
        assertThat(bigger.size()).isEqualTo(2);
        assertThat(TemplateTable.server(bigger.find(0, 0, NETWORK, TIMEOUT_NS - 1))).isEqualTo(2);
        assertThat(bigger.find(0, 0, NETWORK, TIMEOUT_NS)).isEqualTo(TemplateTable.NOT_FOUND);
        assertThat(bigger.find(0, 0, NETWORK + 1, SECOND_NS)).isEqualTo(TemplateTable.NOT_FOUND);
        int unused = 0;
        for (final int way : moved)
        {
            unused += way == TemplateTable.NOT_FOUND ? 1 : 0;
        }
        assertThat(unused).isEqualTo(moved.length - 2);
    }

    @Test
    void shouldRefuseToCopyIntoATableThatCannotHoldTheTemplates()
    {
        final TemplateTable templates = new TemplateTable(4);
        final RealServer[] servers = servers(1);
        for (int network = 0; network < 60; network++)
        {
            templates.place(0, 0, NETWORK + network, 1, servers, 0, TIMEOUT_NS);
        }
        assertThatIllegalStateException().isThrownBy(() -> templates.copyInto(new TemplateTable(1)))
            .withMessage("a table of 1 buckets cannot hold the " + templates.size() + " templates of one of 4");
    }
}
