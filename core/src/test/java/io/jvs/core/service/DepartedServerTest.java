package io.jvs.core.service;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.rules.RuleParser;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.sched.SchedulingContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The kernel's destination trash: a server removed while something counts on it is taken back, the same object
 * with its connections and the new settings, when its service gets the same address and port again; one nothing
 * counts on is forgotten and a new server is made.
 */
class DepartedServerTest
{
    private static final ServiceKey WEB = ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.100"), 80);
    private static final ServiceKey OTHER = ServiceKey.of(Protocol.TCP, IpAddress.parse("10.0.0.101"), 80);
    private static final IpAddress ADDRESS = IpAddress.parse("192.168.1.2");

    private static ServiceTable table()
    {
        final ServiceTable table = new ServiceTable(new SchedulerSettings(SchedulerFlags.NONE, 1,
            SchedulerSettings.DEFAULT_EXPIRATION_NS, SchedulerSettings.DEFAULT_EXPIRATION_NS));
        RuleParser.parse("-A -t 10.0.0.100:80 -s rr").applyTo(table);
        RuleParser.parse("-A -t 10.0.0.101:80 -s rr").applyTo(table);
        return table;
    }

    private static RealServer add(final ServiceTable table, final ServiceKey key, final int port, final int weight)
    {
        return table.addServer(key, ADDRESS, port, ForwardMethod.NAT, weight, 0, 0);
    }

    @Test
    void shouldTakeBackTheSameServerWithItsConnectionsAndTheNewSettings()
    {
        final ServiceTable table = table();
        final RealServer server = add(table, WEB, 80, 1);
        server.thresholds(5, 0);
        server.bindConnection(false);
        server.bindConnection(true);
        server.bindTemplate();
        table.deleteServer(WEB, ADDRESS, 80);
        assertThat(table.find(WEB).servers()).isEmpty();
        assertThat(server.isAvailable()).isFalse();
        assertThat(table.find(WEB).departed()).containsExactly(server);

        final RealServer back = table.addServer(WEB, ADDRESS, 80, ForwardMethod.DR, 7, 20, 10);

        assertThat(back).isSameAs(server);
        assertThat(table.find(WEB).servers()).containsExactly(server);
        assertThat(table.find(WEB).departed()).isEmpty();
        assertThat(server.isAvailable()).isTrue();
        assertThat(server.activeConnections()).isEqualTo(1);
        assertThat(server.inactiveConnections()).isEqualTo(1);
        assertThat(server.persistentConnections()).isEqualTo(1);
        assertThat(server.weight()).isEqualTo(7);
        assertThat(server.lastWeight()).isEqualTo(7);
        assertThat(server.forwardMethod()).isEqualTo(ForwardMethod.DR);
        assertThat(server.upperThreshold()).isEqualTo(20);
        assertThat(server.lowerThreshold()).isEqualTo(10);
        // The scheduler knows it again.
        final FlowTuple flow = new FlowTuple().setV4(Protocol.TCP, IpAddress.parse("198.51.100.7").v4(), 40000,
            IpAddress.parse("10.0.0.100").v4(), 80);
        assertThat(table.find(WEB).schedule(flow, new SchedulingContext(0, 42L))).isSameAs(server);
        // Its connections end on the server they were counted on.
        server.unbindConnection(false);
        assertThat(server.totalConnections()).isEqualTo(1);
    }

    @Test
    void shouldTakeBackAServerOnlyItsTemplatesOrDataPlaneSlotCountOn()
    {
        final ServiceTable table = table();
        final RealServer templated = add(table, WEB, 80, 1);
        templated.bindTemplate();
        table.deleteServer(WEB, ADDRESS, 80);
        assertThat(add(table, WEB, 80, 2)).isSameAs(templated);

        final RealServer slotted = add(table, WEB, 81, 1);
        slotted.forwardingSlot(9);
        table.deleteServer(WEB, ADDRESS, 81);
        assertThat(add(table, WEB, 81, 2)).as("a worker may still bind it while it holds its slot")
            .isSameAs(slotted);
    }

    @Test
    void shouldAddANewServerWhenTheRemovedOneIsIdle()
    {
        final ServiceTable table = table();
        final RealServer idle = add(table, WEB, 80, 1);
        table.deleteServer(WEB, ADDRESS, 80);
        assertThat(table.find(WEB).departed()).as("nothing counts on it: not kept").isEmpty();
        final RealServer fresh = add(table, WEB, 80, 3);
        assertThat(fresh).isNotSameAs(idle);
        assertThat(fresh.weight()).isEqualTo(3);
        assertThat(idle.isAvailable()).isFalse();
    }

    @Test
    void shouldForgetADepartedServerOnceItsLastConnectionEnds()
    {
        final ServiceTable table = table();
        final RealServer server = add(table, WEB, 80, 1);
        server.bindConnection(false);
        server.forwardingSlot(3);
        table.deleteServer(WEB, ADDRESS, 80);
        server.unbindConnection(false);
        // The data plane releases the slot of an idle departed server.
        server.forwardingSlot(0);
        final RealServer fresh = add(table, WEB, 80, 1);
        assertThat(fresh).isNotSameAs(server);
        assertThat(fresh.totalConnections()).isZero();
        assertThat(table.find(WEB).departed()).isEmpty();
    }

    @Test
    void shouldNotGiveADepartedServerToAnotherPortOrService()
    {
        final ServiceTable table = table();
        final RealServer server = add(table, WEB, 80, 1);
        server.bindConnection(false);
        table.deleteServer(WEB, ADDRESS, 80);

        final RealServer otherPort = add(table, WEB, 8080, 1);
        final RealServer otherService = add(table, OTHER, 80, 1);
        final RealServer otherAddress = table.addServer(WEB, IpAddress.parse("192.168.1.3"), 80, ForwardMethod.NAT,
            1, 0, 0);

        assertThat(otherPort).isNotSameAs(server);
        assertThat(otherService).isNotSameAs(server);
        assertThat(otherAddress).isNotSameAs(server);
        assertThat(List.of(otherPort, otherService, otherAddress))
            .allSatisfy(added -> assertThat(added.totalConnections()).isZero());
        assertThat(table.find(WEB).departed()).containsExactly(server);
        assertThat(table.find(OTHER).departed()).isEmpty();
        assertThat(add(table, WEB, 80, 1)).as("still there for its own service and port").isSameAs(server);
    }

    @Test
    void shouldGiveADeletedServicesServersBackToAServiceCreatedAgainUnderItsKey()
    {
        // The kernel's __ip_vs_del_service puts its destinations in the trash, and ip_vs_trash_get_dest gives them
        // to a service of the same key: `ipvsadm -D` then `-A`, or `-C` then `-R`, lets connections resume.
        final ServiceTable table = table();
        final RealServer departed = add(table, WEB, 80, 1);
        departed.bindConnection(false);
        table.deleteServer(WEB, ADDRESS, 80);
        final RealServer listed = add(table, WEB, 81, 1);
        listed.bindConnection(false);
        final RealServer idle = add(table, WEB, 82, 1);
        RuleParser.parse("-D -t 10.0.0.100:80").applyTo(table);

        assertThat(add(table, OTHER, 80, 1)).as("another key").isNotSameAs(departed);
        RuleParser.parse("-A -t 10.0.0.100:80 -s rr").applyTo(table);
        assertThat(table.find(WEB).departed()).containsExactlyInAnyOrder(departed, listed);
        assertThat(add(table, WEB, 80, 2)).isSameAs(departed);
        assertThat(add(table, WEB, 81, 3)).isSameAs(listed);
        assertThat(add(table, WEB, 82, 1)).as("nothing counted on it").isNotSameAs(idle);
        assertThat(listed.weight()).isEqualTo(3);
        assertThat(listed.totalConnections()).isEqualTo(1);

        table.clear();
        RuleParser.parse("-A -t 10.0.0.100:80 -s rr").applyTo(table);
        assertThat(add(table, WEB, 80, 1)).as("after -C").isSameAs(departed);
    }

    @Test
    void shouldBindAServerToTheServiceObjectThatTookItBackAsDestSvc()
    {
        // __ip_vs_update_dest zeroes a destination's stats when old_svc != svc: the traffic figures follow
        // RealServer.service(), which changes for a service created again, not for the server's own.
        final ServiceTable table = table();
        final RealServer server = add(table, WEB, 80, 1);
        final VirtualService first = table.find(WEB);
        assertThat(server.service()).isSameAs(first);
        server.bindConnection(false);

        table.deleteServer(WEB, ADDRESS, 80);
        assertThat(server.service()).as("departed: still its service's").isSameAs(first);
        assertThat(add(table, WEB, 80, 1)).isSameAs(server);
        assertThat(server.service()).as("-d then -a: the same service object").isSameAs(first);

        RuleParser.parse("-D -t 10.0.0.100:80").applyTo(table);
        RuleParser.parse("-A -t 10.0.0.100:80 -s rr").applyTo(table);
        final VirtualService second = table.find(WEB);
        assertThat(server.service()).as("adopted but not added yet").isSameAs(first);
        assertThatIllegalArgumentException()
            .isThrownBy(() -> table.addServer(WEB, ADDRESS, 80, ForwardMethod.NAT, -1, 0, 0));
        assertThat(server.service()).as("a refused add binds nothing").isSameAs(first);
        assertThat(add(table, WEB, 80, 1)).isSameAs(server);
        assertThat(server.service()).as("-D, -A, -a: the new object").isSameAs(second).isNotSameAs(first);

        table.clear();
        RuleParser.parse("-A -t 10.0.0.100:80 -s rr").applyTo(table);
        assertThat(add(table, WEB, 80, 1)).isSameAs(server);
        assertThat(server.service()).as("-C then -R").isSameAs(table.find(WEB)).isNotSameAs(second);
    }

    @Test
    void shouldForgetADeletedServicesServersOnceNothingCountsOnThem()
    {
        final ServiceTable table = table();
        final RealServer server = add(table, WEB, 80, 1);
        server.bindConnection(false);
        RuleParser.parse("-D -t 10.0.0.100:80").applyTo(table);
        server.unbindConnection(false);
        RuleParser.parse("-D -t 10.0.0.101:80").applyTo(table);
        RuleParser.parse("-A -t 10.0.0.100:80 -s rr").applyTo(table);
        assertThat(table.find(WEB).departed()).isEmpty();
        assertThat(add(table, WEB, 80, 1)).isNotSameAs(server);
    }

    @Test
    void shouldLeaveADepartedServerAsItWasWhenTheAddIsRefused()
    {
        final ServiceTable table = table();
        final RealServer server = add(table, WEB, 80, 4);
        server.bindConnection(false);
        table.deleteServer(WEB, ADDRESS, 80);

        assertThatIllegalArgumentException()
            .isThrownBy(() -> table.addServer(WEB, ADDRESS, 80, ForwardMethod.DR, -1, 0, 0))
            .withMessage("weight out of range 0..2147483647: -1");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> table.addServer(WEB, ADDRESS, 80, ForwardMethod.DR, 9, -1, 0))
            .withMessage("thresholds must not be negative");

        assertThat(table.find(WEB).servers()).isEmpty();
        assertThat(table.find(WEB).departed()).containsExactly(server);
        assertThat(server.weight()).isEqualTo(4);
        assertThat(server.forwardMethod()).isEqualTo(ForwardMethod.NAT);
        assertThat(server.isAvailable()).isFalse();
        assertThat(add(table, WEB, 80, 2)).isSameAs(server);
    }

    @Test
    void shouldStillRefuseAnAddressAndPortThatIsInTheService()
    {
        final ServiceTable table = table();
        final RealServer server = add(table, WEB, 80, 1);
        server.bindConnection(false);
        table.deleteServer(WEB, ADDRESS, 80);
        add(table, WEB, 80, 1);
        assertThatIllegalArgumentException().isThrownBy(() -> add(table, WEB, 80, 1))
            .withMessage("Destination already exists");
        assertThat(table.find(WEB).servers()).containsExactly(server);
    }

    static LongStream seeds()
    {
        return LongStream.rangeClosed(1, 8);
    }

    /**
     * Random adds, removals, and connections opened and closed on two services and three ports: every add of an
     * address and port takes back the server last removed there exactly when something still counts on it.
     */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldTakeBackExactlyTheRemovedServersSomethingCountsOn(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final ServiceTable table = table();
        final ServiceKey[] keys = {WEB, OTHER};
        final int[] ports = {80, 81, 82};
        final Map<String, RealServer> lastRemoved = new HashMap<>();
        final List<RealServer> everyServer = new ArrayList<>();
        int takenBack = 0;
        int made = 0;
        for (int step = 0; step < 2_000; step++)
        {
            final ServiceKey key = keys[random.nextInt(keys.length)];
            final int port = ports[random.nextInt(ports.length)];
            final String where = key + " " + port;
            final RealServer current = table.find(key).find(ADDRESS, port);
            switch (random.nextInt(4))
            {
                case 0 ->
                {
                    if (current == null)
                    {
                        final RealServer removed = lastRemoved.get(where);
                        final boolean counted = removed != null && removed.totalConnections() != 0;
                        final RealServer added = add(table, key, port, 1 + random.nextInt(5));
                        if (counted)
                        {
                            assertThat(added).as(where).isSameAs(removed);
                            takenBack++;
                        }
                        else
                        {
                            assertThat(added).as(where).isNotSameAs(removed);
                            assertThat(added.totalConnections()).isZero();
                            everyServer.add(added);
                            made++;
                        }
                    }
                }
                case 1 ->
                {
                    if (current != null)
                    {
                        table.deleteServer(key, ADDRESS, port);
                        lastRemoved.put(where, current);
                    }
                }
                case 2 ->
                {
                    if (current != null)
                    {
                        current.bindConnection(false);
                    }
                }
                default ->
                {
                    final RealServer any = everyServer.isEmpty() ? null :
                        everyServer.get(random.nextInt(everyServer.size()));
                    if (any != null && any.totalConnections() > 0)
                    {
                        any.unbindConnection(false);
                    }
                }
            }
            for (final ServiceKey each : keys)
            {
                assertThat(table.find(each).departed())
                    .allSatisfy(departed -> assertThat(departed.isAvailable()).isFalse());
            }
        }
        assertThat(takenBack).isPositive();
        assertThat(made).isPositive();
    }
}
