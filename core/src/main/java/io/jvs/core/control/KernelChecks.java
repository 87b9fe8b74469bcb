package io.jvs.core.control;

import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.net.IpAddress;
import io.jvs.core.rules.RuleCommand;
import io.jvs.core.sched.SchedulerKind;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceSettings;
import io.jvs.core.service.ServiceTable;
import io.jvs.core.service.VirtualService;

/**
 * The checks the kernel makes of a change before it applies it, in its order, with the error ipvsadm then prints:
 * jvs makes them itself for every client (ctl, ipvsadm or keepalived through the netlink endpoint), since a client
 * other than ipvsadm skips ipvsadm's own checks. Run {@link #check} against the running configuration and apply the
 * command only when it returns null; then the command meets no refusal and nothing is half done.
 * <p>
 * The order is {@code ip_vs_genl_set_cmd}'s: a missing service (ESRCH) first, then for a destination a family
 * other than the service's without tunnelling (EINVAL), then the operation's own checks: {@code ip_vs_add_service}
 * and {@code ip_vs_edit_service} (scheduler, persistence engine, IPv6 prefix), {@code ip_vs_add_dest} and
 * {@code ip_vs_edit_dest} (weight, thresholds, existing destination), {@code ip_vs_new_dest} (a destination address
 * that is not unicast), {@code ip_vs_set_timeout} (a timeout above INT_MAX / HZ). Where jvs is narrower than the
 * kernel it refuses with the kernel's nearest error: a scheduler jvs lacks (including the kernel's "none") ENOENT,
 * and a table that is full ENOMEM.
 */
public final class KernelChecks
{
    /**
     * What the checks need to know of the running configuration.
     */
    public interface Lookup
    {
        /**
         * @param key a service.
         * @return true when it exists.
         */
        boolean hasService(ServiceKey key);

        /**
         * @param key     an existing service.
         * @param address a server address.
         * @param port    its port.
         * @return true when the service has that server.
         */
        boolean hasDestination(ServiceKey key, IpAddress address, int port);

        /**
         * @return how many services there are.
         */
        int serviceCount();

        /**
         * @param key an existing service.
         * @return how many servers it has.
         */
        int destinationCount(ServiceKey key);
    }

    /**
     * How much jvs's tables hold; a change that would need more is refused with ENOMEM ("Memory allocation
     * problem").
     *
     * @param maxServices             services at most.
     * @param maxDestinationsPerService servers of one service at most.
     */
    public record Limits(int maxServices, int maxDestinationsPerService)
    {
        /** No limit but the int range. */
        public static final Limits NONE = new Limits(Integer.MAX_VALUE, Integer.MAX_VALUE);
    }

    private KernelChecks()
    {
    }

    /**
     * @param command a parsed change.
     * @param state   the configuration it would change.
     * @return null when the kernel would accept it, else its error.
     */
    public static KernelError check(final RuleCommand command, final Lookup state)
    {
        return check(command, state, Limits.NONE);
    }

    /**
     * @param command a parsed change.
     * @param state   the configuration it would change.
     * @param limits  jvs's table sizes.
     * @return null when the kernel would accept it, else its error.
     */
    public static KernelError check(final RuleCommand command, final Lookup state, final Limits limits)
    {
        return switch (command)
        {
            case RuleCommand.Clear clear -> null;
            case RuleCommand.SetTimeouts set -> checkTimeouts(set);
            case RuleCommand.Zero zero -> zero.key() == null || state.hasService(zero.key()) ? null :
                KernelError.NO_SUCH_SERVICE;
            case RuleCommand.AddService add ->
            {
                if (state.hasService(add.key()))
                {
                    yield KernelError.SERVICE_EXISTS;
                }
                final KernelError settings = checkSettings(add.key(), add.settings(), add.persistenceEngine());
                if (settings != null)
                {
                    yield settings;
                }
                yield state.serviceCount() >= limits.maxServices() ? KernelError.NO_MEMORY : null;
            }
            case RuleCommand.EditService edit -> state.hasService(edit.key()) ?
                checkSettings(edit.key(), edit.settings(), edit.persistenceEngine()) : KernelError.NO_SUCH_SERVICE;
            case RuleCommand.DeleteService delete -> state.hasService(delete.key()) ? null :
                KernelError.NO_SUCH_SERVICE;
            case RuleCommand.PutServer put -> checkPut(put, state, limits);
            case RuleCommand.DeleteServer delete ->
            {
                if (!state.hasService(delete.key()))
                {
                    yield KernelError.SERVICE_NOT_DEFINED;
                }
                yield state.hasDestination(delete.key(), delete.address(), delete.port()) ? null :
                    KernelError.NO_SUCH_DESTINATION;
            }
        };
    }

    /**
     * @param table a running configuration.
     * @return its lookup.
     */
    public static Lookup lookup(final ServiceTable table)
    {
        return new Lookup()
        {
            @Override
            public boolean hasService(final ServiceKey key)
            {
                return table.find(key) != null;
            }

            @Override
            public boolean hasDestination(final ServiceKey key, final IpAddress address, final int port)
            {
                final VirtualService service = table.find(key);
                return service != null && service.find(address, port) != null;
            }

            @Override
            public int serviceCount()
            {
                return table.services().size();
            }

            @Override
            public int destinationCount(final ServiceKey key)
            {
                final VirtualService service = table.find(key);
                return service == null ? 0 : service.servers().length;
            }
        };
    }

    /**
     * @param view a listing view.
     * @return its lookup.
     */
    public static Lookup lookup(final IpvsView view)
    {
        return new Lookup()
        {
            @Override
            public boolean hasService(final ServiceKey key)
            {
                return view.service(key) != null;
            }

            @Override
            public boolean hasDestination(final ServiceKey key, final IpAddress address, final int port)
            {
                final ServiceView service = view.service(key);
                return service != null && service.destination(address, port) != null;
            }

            @Override
            public int serviceCount()
            {
                return view.services().size();
            }

            @Override
            public int destinationCount(final ServiceKey key)
            {
                final ServiceView service = view.service(key);
                return service == null ? 0 : service.destinations().size();
            }
        };
    }

    private static KernelError checkTimeouts(final RuleCommand.SetTimeouts set)
    {
        for (final int seconds : new int[] {set.tcpSeconds(), set.tcpFinSeconds(), set.udpSeconds()})
        {
            if (seconds < 0 || seconds > ConnectionTimeouts.MAX_SECONDS)
            {
                return KernelError.INVALID;
            }
        }
        return null;
    }

    private static KernelError checkSettings(
        final ServiceKey key, final ServiceSettings settings, final String persistenceEngine)
    {
        final SchedulerKind kind = SchedulerKind.byName(settings.scheduler());
        // ip_vs_scheduler_get compares names exactly.
        if (kind == null || !kind.schedulerName().equals(settings.scheduler()))
        {
            return KernelError.NO_SCHEDULER;
        }
        if (persistenceEngine != null && !persistenceEngine.isEmpty())
        {
            return KernelError.NO_SCHEDULER;
        }
        if (key.v6() && (settings.netmaskPrefix() < 1 || settings.netmaskPrefix() > 128))
        {
            return KernelError.INVALID;
        }
        return null;
    }

    private static KernelError checkPut(final RuleCommand.PutServer put, final Lookup state, final Limits limits)
    {
        if (!state.hasService(put.key()))
        {
            return KernelError.SERVICE_NOT_DEFINED;
        }
        if (put.address().isV6() != put.key().v6() && put.forwardMethod() != ForwardMethod.TUN)
        {
            return KernelError.INVALID;
        }
        if (put.weight() < 0 || put.weight() > RealServer.MAX_WEIGHT)
        {
            return KernelError.OUT_OF_RANGE;
        }
        if (Integer.compareUnsigned(put.lowerThreshold(), put.upperThreshold()) > 0)
        {
            return KernelError.OUT_OF_RANGE;
        }
        final boolean exists = state.hasDestination(put.key(), put.address(), put.port());
        if (put.edit())
        {
            return exists ? null : KernelError.NO_SUCH_DESTINATION;
        }
        if (exists)
        {
            return KernelError.DESTINATION_EXISTS;
        }
        if (!isUnicast(put.address()))
        {
            return KernelError.INVALID;
        }
        return state.destinationCount(put.key()) >= limits.maxDestinationsPerService() ? KernelError.NO_MEMORY : null;
    }

    /**
     * ip_vs_new_dest: an IPv4 destination must be RTN_UNICAST or RTN_LOCAL (not 0.0.0.0/8, multicast or the
     * limited broadcast, which inet_addr_type calls broadcast or multicast); an IPv6 one must be unicast and not
     * link-local (jvs cannot tell whether such an address is local to the host, so it refuses it like a remote one).
     */
    static boolean isUnicast(final IpAddress address)
    {
        if (!address.isV6())
        {
            final int top = address.v4() >>> 24;
            return top != 0 && (top & 0xF0) != 0xE0 && address.v4() != -1;
        }
        final int top16 = (int)(address.high() >>> 48);
        if (address.high() == 0 && address.low() == 0)
        {
            return false;
        }
        return (top16 & 0xFF00) != 0xFF00 && (top16 & 0xFFC0) != 0xFE80;
    }
}
