package io.jvs.core.sched;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceSettings;
import io.jvs.core.service.VirtualService;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * A service whose servers are named by letters (A = 192.168.1.1, B = .2, ...), built in an explicit
 * list order, and helpers that schedule and keep each pick's connection open.
 */
final class ServiceFixture
{
    static final IpAddress VIP = IpAddress.parse("10.0.0.100");

    final VirtualService service;
    final SchedulingContext context;
    /** How many workers count each server's connections: each server has a line of counts for each. */
    private final int workers;
    private final FlowTuple flow = new FlowTuple();
    private int clientPort = 1024;

    private ServiceFixture(final VirtualService service, final SchedulingContext context, final int workers)
    {
        this.service = service;
        this.context = context;
        this.workers = workers;
    }

    /**
     * @param scheduler the scheduler name.
     * @param flags     its flags.
     * @param listSpec  servers in list order, e.g. "A4 B3 C2" (letter then weight).
     * @return the fixture.
     */
    static ServiceFixture of(final String scheduler, final SchedulerFlags flags, final String listSpec)
    {
        return of(scheduler, flags, listSpec, new SchedulingContext(0, 42L));
    }

    static ServiceFixture of(final String scheduler, final String listSpec)
    {
        return of(scheduler, SchedulerFlags.NONE, listSpec);
    }

    static ServiceFixture of(
        final String scheduler, final SchedulerFlags flags, final String listSpec, final SchedulingContext context)
    {
        return of(scheduler, flags, listSpec, context, 1);
    }

    static ServiceFixture of(
        final String scheduler,
        final SchedulerFlags flags,
        final String listSpec,
        final SchedulingContext context,
        final int workers)
    {
        final ServiceSettings settings = new ServiceSettings(scheduler, flags, false, 0, 32, false);
        final SchedulerSettings shared = new SchedulerSettings(
            flags, workers, SchedulerSettings.DEFAULT_EXPIRATION_NS, SchedulerSettings.DEFAULT_EXPIRATION_NS);
        final VirtualService service = new VirtualService(ServiceKey.of(Protocol.TCP, VIP, 80), settings, shared);
        final ServiceFixture fixture = new ServiceFixture(service, context, workers);
        final String[] specs = listSpec.isBlank() ? new String[0] : listSpec.trim().split("\\s+");
        // The service prepends, so adding in reverse gives the list order written.
        for (int i = specs.length - 1; i >= 0; i--)
        {
            fixture.add(specs[i]);
        }
        return fixture;
    }

    /**
     * Adds a server at the head of the list, e.g. "D1".
     */
    RealServer add(final String spec)
    {
        final RealServer server = new RealServer(
            address(spec.charAt(0)), 80, ForwardMethod.NAT, Integer.parseInt(spec.substring(1)), workers);
        service.addServer(server);
        return server;
    }

    static IpAddress address(final char letter)
    {
        return IpAddress.parse("192.168.1." + (letter - 'A' + 1));
    }

    RealServer server(final char letter)
    {
        return service.find(address(letter), 80);
    }

    static String name(final RealServer server)
    {
        if (server == null)
        {
            return "-";
        }
        return String.valueOf((char)('A' + (server.address().v4() & 0xFF) - 1));
    }

    /**
     * Schedules from a fresh client each time, without binding a connection.
     */
    RealServer pick()
    {
        flow.set(Protocol.TCP, IpAddress.parse("172.16.0.1"), clientPort++, VIP, 80);
        return service.schedule(flow, context);
    }

    /**
     * Schedules for a given client address, keeping nothing open.
     */
    RealServer pickFor(final String client, final int port)
    {
        flow.set(Protocol.TCP, IpAddress.parse(client), port, VIP, 80);
        return service.schedule(flow, context);
    }

    /**
     * Schedules towards a given destination address (lblc, lblcr, dh).
     */
    RealServer pickTo(final String destination)
    {
        final IpAddress address = IpAddress.parse(destination);
        flow.set(Protocol.TCP, address.isV6() ? IpAddress.parse("2001:db8::1") : IpAddress.parse("172.16.0.1"),
            clientPort++, address, 80);
        return service.schedule(flow, context);
    }

    /**
     * @param count picks.
     * @return the picks as letters separated by spaces, "-" for none.
     */
    String picks(final int count)
    {
        final StringJoiner joiner = new StringJoiner(" ");
        for (int i = 0; i < count; i++)
        {
            joiner.add(name(pick()));
        }
        return joiner.toString();
    }

    /**
     * Picks and keeps each connection open as an active one.
     */
    String picksActive(final int count)
    {
        final StringJoiner joiner = new StringJoiner(" ");
        for (int i = 0; i < count; i++)
        {
            final RealServer server = pick();
            if (server != null)
            {
                server.bindConnection(false);
            }
            joiner.add(name(server));
        }
        return joiner.toString();
    }

    List<RealServer> servers()
    {
        return new ArrayList<>(List.of(service.servers()));
    }

    static String names(final RealServer[] servers)
    {
        final StringJoiner joiner = new StringJoiner(" ");
        for (final RealServer server : servers)
        {
            joiner.add(name(server));
        }
        return joiner.toString();
    }
}
