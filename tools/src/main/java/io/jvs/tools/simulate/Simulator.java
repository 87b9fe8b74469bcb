package io.jvs.tools.simulate;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;
import io.jvs.core.rules.RuleException;
import io.jvs.core.service.PersistenceTemplates;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceTable;
import io.jvs.core.service.VirtualService;
import io.jvs.core.sched.SchedulingContext;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Runs a flows script against a configuration, as one worker thread would, with time standing still.
 * <p>
 * Every scheduled flow stays open on its server as a connection does after its first packet: TCP as
 * active (SYN_RECV counts as active, as in current kernels' {@code tcp_state_active_table}), UDP and SCTP as
 * inactive (a UDP entry never leaves its one state; an SCTP association is not active before it is
 * established). A one-packet (-o) service keeps nothing open. Persistent services go through persistence
 * templates first.
 */
final class Simulator
{
    /** What one service saw. */
    static final class Tally
    {
        final Map<RealServer, Long> flows = new LinkedHashMap<>();
        long unscheduled;

        long total()
        {
            long total = unscheduled;
            for (final long count : flows.values())
            {
                total += count;
            }
            return total;
        }
    }

    private final ServiceTable table;
    private final PrintWriter out;
    private final FlowTuple flow = new FlowTuple();
    private final SchedulingContext context = new SchedulingContext(0, 0x5EED_5EEDL);
    private final PersistenceTemplates templates = new PersistenceTemplates(false);
    private final Map<ServiceKey, Tally> tallies = new LinkedHashMap<>();
    private long unmatched;

    /**
     * @param table the configuration, loaded.
     * @param out   where decisions are printed; null to only run.
     */
    Simulator(final ServiceTable table, final PrintWriter out)
    {
        this.table = table;
        this.out = out;
    }

    /**
     * Runs every step.
     *
     * @param source a label for messages.
     * @param steps  the script.
     * @throws RuleException when a rule change is refused; steps before it have run.
     */
    void run(final String source, final List<FlowScript.Step> steps) throws RuleException
    {
        for (final FlowScript.Step step : steps)
        {
            switch (step)
            {
                case FlowScript.Connect connect -> connect(connect.flow());
                case FlowScript.Random random -> randomFlows(random.count(), random.seed());
                case FlowScript.Change change ->
                {
                    try
                    {
                        change.command().applyTo(table);
                    }
                    catch (final IllegalArgumentException ex)
                    {
                        throw new RuleException(source, change.line(), ex.getMessage());
                    }
                }
            }
        }
    }

    private void connect(final FlowSpec spec)
    {
        flow.set(spec.protocol(), spec.source(), spec.sourcePort(), spec.destination(), spec.destinationPort())
            .firewallMark(spec.firewallMark());
        final VirtualService service = table.lookup(
            spec.firewallMark(), spec.protocol(), spec.destination(), spec.destinationPort());
        RealServer server = null;
        if (service == null)
        {
            unmatched++;
        }
        else
        {
            if (service.settings().persistent())
            {
                final PersistenceTemplates.Template template =
                    templates.open(service, flow, 0, () -> service.schedule(flow, context));
                server = template == null ? null : template.server();
            }
            else
            {
                server = service.schedule(flow, context);
            }
            final Tally tally = tallies.computeIfAbsent(service.key(), key -> new Tally());
            if (server == null)
            {
                tally.unscheduled++;
            }
            else
            {
                tally.flows.merge(server, 1L, Long::sum);
                if (!service.settings().onePacket())
                {
                    server.bindConnection(spec.protocol() != Protocol.TCP);
                }
            }
        }
        if (out != null)
        {
            out.append(endpoint(spec.source(), spec.sourcePort())).append(' ')
                .append(endpoint(spec.destination(), spec.destinationPort())).append(" -> ");
            if (server == null)
            {
                out.append('-');
            }
            else
            {
                out.append(endpoint(server.address(), server.port() != 0 ? server.port() : spec.destinationPort()));
            }
            out.append('\n');
        }
    }

    private void randomFlows(final int count, final long seed)
    {
        final List<VirtualService> services = new ArrayList<>(table.services());
        if (services.isEmpty())
        {
            return;
        }
        final SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < count; i++)
        {
            final ServiceKey key = services.get(random.nextInt(services.size())).key();
            final IpAddress client = key.v6() ?
                IpAddress.ofV6(0x2001_0DB8_0000_0000L | random.nextInt(1 << 16), random.nextLong()) :
                IpAddress.ofV4(unicastV4(random));
            final int clientPort = 1024 + random.nextInt(65536 - 1024);
            if (key.isFirewallMark())
            {
                final IpAddress destination = key.v6() ?
                    IpAddress.ofV6(0x2001_0DB8_FFFF_0000L, random.nextInt(256)) :
                    IpAddress.ofV4(0xC633_6400 + random.nextInt(256));
                connect(new FlowSpec(Protocol.TCP, client, clientPort, destination, 80, key.firewallMark()));
            }
            else
            {
                final int port = key.port() != 0 ? key.port() : 1 + random.nextInt(65535);
                connect(new FlowSpec(key.protocol(), client, clientPort, key.address(), port, 0));
            }
        }
    }

    /** A random unicast IPv4 client outside 0/8 and the loopback 127/8. */
    private static int unicastV4(final SplittableRandom random)
    {
        final int address = (int)random.nextLong(0x0100_0000L, 0xE000_0000L);
        return (address >>> 24) == 127 ? address + 0x0100_0000 : address;
    }

    private static String endpoint(final IpAddress address, final int port)
    {
        return address.toBracketedString() + ":" + port;
    }

    Map<ServiceKey, Tally> tallies()
    {
        return tallies;
    }

    long unmatched()
    {
        return unmatched;
    }

    ServiceTable table()
    {
        return table;
    }
}
