package io.jvs.core.control;

import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.rules.RuleCommand;

import java.util.ArrayList;
import java.util.List;

/**
 * An IPVS configuration in memory, changed as the kernel changes its own: each change is checked by
 * {@link KernelChecks} and applied whole or not at all, and the result is a new immutable {@link IpvsView}.
 * The daemon's conductor keeps the running table in step with it; tests and the in-memory {@link Ipvsadm.Backend}
 * use it alone.
 * <p>
 * The kernel's orders are kept: services in the order they were added (the kernel's own order depends on hash
 * buckets salted with a kernel address, so no tool can reproduce it; {@code --nosort} shows this one), and each
 * service's servers newest first ({@code list_add_rcu} at the head in {@code __ip_vs_update_dest}); an edited
 * server keeps its place, its connections and its counters.
 * <p>
 * Not thread-safe: one owner (the conductor) changes it.
 */
public final class IpvsModel
{
    private final KernelChecks.Limits limits;
    private IpvsView view;

    /**
     * An empty configuration with the kernel's defaults and no table limits.
     */
    public IpvsModel()
    {
        this(IpvsView.empty(), KernelChecks.Limits.NONE);
    }

    /**
     * @param view   the starting configuration.
     * @param limits jvs's table sizes.
     */
    public IpvsModel(final IpvsView view, final KernelChecks.Limits limits)
    {
        this.view = view;
        this.limits = limits;
    }

    /**
     * @return the current configuration.
     */
    public IpvsView view()
    {
        return view;
    }

    /**
     * Replaces the picture, e.g. with fresh counters and connection entries from the workers; the configuration
     * part should be the one this model holds.
     *
     * @param newView the new picture.
     */
    public void view(final IpvsView newView)
    {
        view = newView;
    }

    /**
     * Applies one change as the kernel would.
     *
     * @param command the change.
     * @return null when applied, else the kernel's refusal (and nothing changed).
     */
    public KernelError apply(final RuleCommand command)
    {
        final KernelError error = KernelChecks.check(command, KernelChecks.lookup(view), limits);
        if (error != null)
        {
            return error;
        }
        view = applied(view, command);
        return null;
    }

    /**
     * @param view    a configuration.
     * @param command a change {@link KernelChecks} accepted for it.
     * @return the configuration after the change.
     */
    static IpvsView applied(final IpvsView view, final RuleCommand command)
    {
        final List<ServiceView> services = new ArrayList<>(view.services());
        switch (command)
        {
            case RuleCommand.Clear clear -> services.clear();
            case RuleCommand.SetTimeouts set ->
            {
                final ConnectionTimeouts.Current old = view.timeouts();
                // ip_vs_set_timeout: 0 keeps the current value.
                return view.withTimeouts(new ConnectionTimeouts.Current(
                    set.tcpSeconds() != 0 ? set.tcpSeconds() : old.tcpSeconds(),
                    set.tcpFinSeconds() != 0 ? set.tcpFinSeconds() : old.tcpFinSeconds(),
                    set.udpSeconds() != 0 ? set.udpSeconds() : old.udpSeconds()));
            }
            case RuleCommand.Zero zero ->
            {
                for (int i = 0; i < services.size(); i++)
                {
                    final ServiceView service = services.get(i);
                    if (zero.key() == null || service.key().equals(zero.key()))
                    {
                        final List<DestinationView> zeroed = new ArrayList<>();
                        for (final DestinationView destination : service.destinations())
                        {
                            zeroed.add(destination.withCounters(Counters.ZERO));
                        }
                        services.set(i, service.withCounters(Counters.ZERO).withDestinations(zeroed));
                    }
                }
            }
            case RuleCommand.AddService add -> services.add(ServiceView.of(add.key(), add.settings()));
            case RuleCommand.EditService edit ->
            {
                final int index = indexOf(services, edit);
                final ServiceView old = services.get(index);
                services.set(index, new ServiceView(old.key(), edit.settings(), old.counters(), old.destinations()));
            }
            case RuleCommand.DeleteService delete -> services.remove(view.service(delete.key()));
            case RuleCommand.PutServer put ->
            {
                final int index = indexOf(services, put);
                final ServiceView service = services.get(index);
                final List<DestinationView> destinations = new ArrayList<>(service.destinations());
                if (put.edit())
                {
                    final DestinationView old = service.destination(put.address(), put.port());
                    destinations.set(destinations.indexOf(old), new DestinationView(old.address(), old.port(),
                        put.forwardMethod(), put.weight(), put.upperThreshold(), put.lowerThreshold(),
                        old.activeConnections(), old.inactiveConnections(), old.persistentConnections(),
                        old.counters()));
                }
                else
                {
                    destinations.addFirst(new DestinationView(put.address(), put.port(), put.forwardMethod(),
                        put.weight(), put.upperThreshold(), put.lowerThreshold(), 0, 0, 0, Counters.ZERO));
                }
                services.set(index, service.withDestinations(destinations));
            }
            case RuleCommand.DeleteServer delete ->
            {
                final int index = indexOf(services, delete);
                final ServiceView service = services.get(index);
                final List<DestinationView> destinations = new ArrayList<>(service.destinations());
                destinations.remove(service.destination(delete.address(), delete.port()));
                services.set(index, service.withDestinations(destinations));
            }
        }
        return view.withServices(services);
    }

    private static int indexOf(final List<ServiceView> services, final RuleCommand command)
    {
        final io.jvs.core.service.ServiceKey key = switch (command)
        {
            case RuleCommand.EditService edit -> edit.key();
            case RuleCommand.PutServer put -> put.key();
            case RuleCommand.DeleteServer delete -> delete.key();
            default -> throw new IllegalStateException("no service in " + command);
        };
        for (int i = 0; i < services.size(); i++)
        {
            if (services.get(i).key().equals(key))
            {
                return i;
            }
        }
        throw new IllegalStateException("checked service is missing: " + key);
    }
}
