package io.jvs.forwarder.daemon;

import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.conn.TcpStates;
import io.jvs.core.control.ConnectionView;
import io.jvs.core.control.Counters;
import io.jvs.core.control.Ipvsadm;
import io.jvs.core.control.IpvsView;
import io.jvs.core.control.KernelChecks;
import io.jvs.core.control.KernelError;
import io.jvs.core.control.TableViews;
import io.jvs.core.pipeline.DataPlaneBuilder;
import io.jvs.core.rules.RuleCommand;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceTable;
import io.jvs.core.service.VirtualService;
import io.jvs.core.stats.TrafficLedger;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static io.jvs.core.stats.TrafficStatsDescriptor.CONNECTIONS;
import static io.jvs.core.stats.TrafficStatsDescriptor.IN_BYTES;
import static io.jvs.core.stats.TrafficStatsDescriptor.IN_PACKETS;
import static io.jvs.core.stats.TrafficStatsDescriptor.OUT_BYTES;
import static io.jvs.core.stats.TrafficStatsDescriptor.OUT_PACKETS;

/**
 * The running daemon behind ipvsadm's command line ({@code tools/jvs ctl}, and the netlink endpoint later): each
 * change is checked as the kernel checks it and applied by the conductor as one new snapshot; a server added to a
 * running service joins at weight 0 and gets its weight once every worker uses a snapshot that names it (as a
 * reload adds servers, see {@link ServiceDiff.Pending}), so no scheduler shared with the workers picks a server
 * they cannot send to yet. Listings are the conductor's table with the {@link TrafficLedger}'s figures; the
 * connection entries come from the workers, a page at a time, then the persistence templates from the table the
 * workers share, on the caller's thread.
 * <p>
 * A service created here is control's ({@link Conductor#createdByControl}): a reload leaves it alone unless its file
 * starts declaring it. A change here to a service the file declares lasts until the next reload, which puts the
 * file's definition back, as re-running an ipvsadm script would.
 */
final class IpvsBackend implements Ipvsadm.Backend
{
    /** How long a change may wait for the conductor (a two-step add waits for the workers too). */
    static final long CONDUCTOR_WAIT_S = 10;
    /** How long a two-step add waits for the workers to take the snapshot naming the server. */
    static final long WORKERS_WAIT_NS = TimeUnit.SECONDS.toNanos(2);

    private final Daemon daemon;
    private final KernelChecks.Limits limits;
    private final int connectionTableSize;

    /**
     * @param limits              jvs's table sizes, which refuse as ENOMEM beyond them.
     * @param connectionTableSize the size the listing's header shows (per worker and family, as the config gives).
     */
    IpvsBackend(final Daemon daemon, final KernelChecks.Limits limits, final int connectionTableSize)
    {
        this.daemon = daemon;
        this.limits = limits;
        this.connectionTableSize = connectionTableSize;
    }

    @Override
    public KernelError apply(final RuleCommand command)
    {
        return onConductor(conductor -> change(conductor, command));
    }

    /** Applies {@code command} on the conductor's thread (tests call it there directly). */
    KernelError change(final Conductor conductor, final RuleCommand command)
    {
        final ServiceTable table = conductor.table();
        final KernelError refused = KernelChecks.check(command, KernelChecks.lookup(table), limits);
        if (refused != null)
        {
            return refused;
        }
        if (!fits(conductor.builder(), table, command))
        {
            conductor.releaseSlotsTheWorkersHavePassed(WORKERS_WAIT_NS);
            if (!fits(conductor.builder(), table, command))
            {
                return KernelError.NO_MEMORY;
            }
        }
        final TrafficLedger ledger = conductor.ledger();
        switch (command)
        {
            case RuleCommand.Zero zero ->
            {
                if (ledger != null)
                {
                    if (zero.key() == null)
                    {
                        ledger.zeroAll();
                        daemon.zeroLatency();
                    }
                    else
                    {
                        ledger.zero(table.find(zero.key()));
                    }
                }
                return null;
            }
            case RuleCommand.PutServer put when !put.edit() && put.weight() != 0 ->
            {
                final KernelError quiet = TableViews.apply(new RuleCommand.PutServer(false, put.key(), put.address(),
                    put.port(), put.forwardMethod(), 0, put.upperThreshold(), put.lowerThreshold()), table, limits);
                if (quiet != null)
                {
                    return quiet;
                }
                conductor.publish(System.nanoTime());
                if (!conductor.awaitWorkersOnCurrent(WORKERS_WAIT_NS))
                {
                    DaemonLog.warning("ipvsadm -a: a worker did not take the new snapshot within " +
                        TimeUnit.NANOSECONDS.toMillis(WORKERS_WAIT_NS) + " ms; the server gets its weight anyway");
                }
                table.editServer(put.key(), put.address(), put.port(), put.forwardMethod(), put.weight(),
                    put.upperThreshold(), put.lowerThreshold());
                conductor.publish(System.nanoTime());
                return null;
            }
            case RuleCommand.SetTimeouts set ->
            {
                final KernelError error = TableViews.apply(command, table, limits);
                if (error == null)
                {
                    conductor.timeouts().set(set.tcpSeconds(), set.tcpFinSeconds(), set.udpSeconds());
                    conductor.publish(System.nanoTime());
                }
                return error;
            }
            default ->
            {
                final KernelError error = TableViews.apply(command, table, limits);
                if (error == null)
                {
                    if (command instanceof RuleCommand.AddService add)
                    {
                        conductor.createdByControl(add.key());
                    }
                    conductor.publish(System.nanoTime());
                }
                return error;
            }
        }
    }

    /**
     * Whether the snapshot after {@code command} (one the kernel checks accepted) fits the data plane's slots: the
     * checks count one service's servers and the services, but the servers of all the services share the slots,
     * and a removed service or server keeps its slot while connections count on it or a worker may still use a
     * snapshot that named it ({@link DataPlaneBuilder#serverSlotsHeldApartFrom}). The kernel answers a table it
     * cannot grow with ENOMEM; without this check the command would change the table and then fail to publish.
     */
    static boolean fits(final DataPlaneBuilder builder, final ServiceTable table, final RuleCommand command)
    {
        switch (command)
        {
            case RuleCommand.AddService add ->
            {
                return (long)table.services().size() + 1 +
                    builder.serviceSlotsHeldApartFrom(service -> table.find(service.key()) == service) <=
                    builder.maxServices();
            }
            case RuleCommand.PutServer put when !put.edit() ->
            {
                final RealServer back = table.find(put.key()).departedToTakeBack(put.address(), put.port());
                if (back != null && back.forwardingSlot() != 0)
                {
                    // Taken back, it keeps the slot it holds.
                    return true;
                }
                final Set<RealServer> live = Collections.newSetFromMap(new IdentityHashMap<>());
                live.addAll(table.allServers());
                return (long)live.size() + 1 + builder.serverSlotsHeldApartFrom(live::contains) <=
                    builder.maxServers() - 1;
            }
            default ->
            {
                return true;
            }
        }
    }

    @Override
    public IpvsView view(final boolean withConnections)
    {
        final IpvsView view = onConductor(conductor ->
        {
            final TrafficLedger ledger = conductor.ledger();
            final TableViews.Statistics statistics = ledger == null ? TableViews.Statistics.NONE :
                new TableViews.Statistics()
                {
                    @Override
                    public Counters service(final VirtualService service)
                    {
                        return counters(ledger.of(service));
                    }

                    @Override
                    public Counters server(final VirtualService service, final RealServer server)
                    {
                        return counters(ledger.of(server));
                    }
                };
            final ConnectionTimeouts.Current timeouts = conductor.timeouts().current();
            return TableViews.of(conductor.table(), statistics, IpvsView.VERSION_1_2_1, connectionTableSize,
                List.of()).withTimeouts(timeouts);
        });
        if (view == null)
        {
            throw new IllegalStateException("the conductor did not answer within " + CONDUCTOR_WAIT_S + " s");
        }
        return withConnections ? view.withConnections(connections()) : view;
    }

    /**
     * The workers' connection entries, then the templates, read as they are iterated ({@link Daemon#connections}): a
     * listing holds a page of entries at a time, not the table's worth.
     */
    private Iterable<ConnectionView> connections()
    {
        return () -> new java.util.Iterator<>()
        {
            private final java.util.Iterator<ListedConnection> entries = daemon.connections();
            private java.util.Iterator<ConnectionView> templates;

            @Override
            public boolean hasNext()
            {
                if (entries.hasNext())
                {
                    return true;
                }
                // IPVS keeps its templates in the one hash table with the connections and lists both as it walks
                // it, in no order of their kind; jvs keeps them apart and lists the connections, then the templates.
                if (templates == null)
                {
                    templates = daemon.templates().iterator();
                }
                return templates.hasNext();
            }

            @Override
            public ConnectionView next()
            {
                if (!hasNext())
                {
                    throw new java.util.NoSuchElementException();
                }
                return templates == null ? view(entries.next()) : templates.next();
            }
        };
    }

    private static ConnectionView view(final ListedConnection entry)
    {
        final String protocol = switch (entry.protocol())
        {
            case 6 -> "TCP";
            case 17 -> "UDP";
            case 132 -> "SCTP";
            default -> "IP";
        };
        // The kernel names a UDP entry's one state "UDP" (udp_state_name_table); TCP's are its own names.
        final String state = entry.protocol() == 6 ? TcpStates.name(entry.state()) : protocol;
        return new ConnectionView(protocol, entry.client(), entry.clientPort(), entry.virtual(), entry.virtualPort(),
            entry.server(), entry.serverPort(), state, entry.expiresMs());
    }

    private static Counters counters(final TrafficLedger.Figures figures)
    {
        if (figures == null)
        {
            return Counters.ZERO;
        }
        return new Counters(figures.count(CONNECTIONS), figures.count(IN_PACKETS), figures.count(OUT_PACKETS),
            figures.count(IN_BYTES), figures.count(OUT_BYTES), figures.rate(CONNECTIONS), figures.rate(IN_PACKETS),
            figures.rate(OUT_PACKETS), figures.rate(IN_BYTES), figures.rate(OUT_BYTES));
    }

    private <T> T onConductor(final java.util.function.Function<Conductor, T> work)
    {
        try
        {
            return daemon.conductor().call(work).get(CONDUCTOR_WAIT_S, TimeUnit.SECONDS);
        }
        catch (final ExecutionException ex)
        {
            throw new IllegalStateException(ex.getCause().getMessage(), ex.getCause());
        }
        catch (final TimeoutException ex)
        {
            throw new IllegalStateException("the conductor did not answer within " + CONDUCTOR_WAIT_S + " s", ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", ex);
        }
    }
}
