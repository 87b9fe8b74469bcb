package io.jvs.forwarder.daemon;

import io.jvs.core.io.IoMessages;
import io.jvs.core.net.IpAddress;
import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.pipeline.DataPlaneBuilder;
import io.jvs.core.pipeline.DataPlaneSettings;
import io.jvs.core.pipeline.MarkRule;
import io.jvs.core.pipeline.Topology;
import io.jvs.core.rules.RuleException;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceTable;
import io.jvs.core.service.VirtualService;
import io.jvs.forwarder.config.JvsConfig;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A reload (SIGHUP, or the control socket's {@code reload}): the file is read and checked in full first, by
 * building a fresh service table from it, and refused whole with {@code file:line: reason} when anything is
 * wrong, so the running state stays as it was; then its difference from what runs is applied
 * ({@link ServiceDiff}) and published as one snapshot, and the log names each change that took effect, so that an
 * operator reading it can tell a reload that changed nothing from one that did.
 * <p>
 * The file manages what it declares, as IPVS's own configuration around the service table (iptables MARK rules,
 * the {@code net.ipv4.vs} sysctls) never touches what keepalived or ipvsadm put in it: the services the file
 * declares are put back to its definition, those the previous file declared and this one does not are deleted,
 * and those control made (ctl, ipvsadm, keepalived through the control socket) are left alone unless the file
 * starts declaring them, which takes them over. A timeout changes only when the file's value for it changed, so
 * one set through control outlasts a reload that did not touch it; the {@code set}, {@code mark},
 * {@code neighbour} and {@code gateway} statements have no control command and apply as the file gives them. The
 * log's {@code left to control:} says how many services and which timeouts the reload left to control. What only
 * a restart can change
 * (interfaces, workers, CPUs, connection tables, idle mode, the control socket) is refused with a message saying
 * so. Runs on the conductor's thread; the XDP programs stay attached throughout.
 */
final class Reload
{
    /** How long a reload waits for the workers to take the snapshot that names the servers it added. */
    static final long WORKERS_WAIT_NS = 500_000_000L;

    /** The longest a reload waits for the next hops of the servers it adds (the conductor waits with it). */
    static final long NEXT_HOP_WAIT_NS = 200_000_000L;

    private Reload()
    {
    }

    /**
     * Reads the file again and applies what differs from the configuration in effect
     * ({@link Conductor#configuration()}), which it then becomes.
     *
     * @return a one-line summary of what changed: the services' operations, then the rest that took effect
     *         (timeouts, {@code set} switches, mark rules, neighbour and gateway overrides), or "no change"; then
     *         {@code ; left to control: } and how many services the file does not declare, and the timeouts in
     *         effect that are not the file's, when there are any.
     * @throws IllegalArgumentException when the file is refused (its message is the reason, file:line first).
     */
    static String apply(final Conductor conductor, final Path file)
    {
        final JvsConfig running = conductor.configuration();
        final JvsConfig next;
        try
        {
            next = JvsConfig.load(file);
        }
        catch (final RuleException ex)
        {
            throw new IllegalArgumentException(ex.getMessage(), ex);
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException(IoMessages.describe(file, ex), ex);
        }
        final ServiceTable live = conductor.table();
        final String restart = restartNeeded(running, live.schedulerSettings().workers(), next,
            Daemon.workerCount(next));
        if (restart != null)
        {
            throw new IllegalArgumentException(file + ": " + restart + " changed: that needs a restart " +
                "(nothing was changed)");
        }
        final ServiceTable desired;
        try
        {
            desired = next.serviceTable(next.schedulerSettings(live.schedulerSettings().workers()));
        }
        catch (final RuleException ex)
        {
            throw new IllegalArgumentException(ex.getMessage(), ex);
        }
        String full = capacityRefusal(conductor.builder(), live, desired, conductor.fileServices());
        if (full != null)
        {
            conductor.releaseSlotsTheWorkersHavePassed(WORKERS_WAIT_NS);
            full = capacityRefusal(conductor.builder(), live, desired, conductor.fileServices());
        }
        if (full != null)
        {
            throw new IllegalArgumentException(file + ": " + full + " (nothing was changed)");
        }
        // The expirations first, so that a service the reload adds is made with the new ones.
        final List<String> expirationChanges = expirationChanges(live.schedulerSettings(), desired.schedulerSettings());
        live.schedulerSettings(desired.schedulerSettings());
        final Set<IpAddress> added = Conductor.serverAddressesOf(desired);
        added.removeAll(Conductor.serverAddressesOf(live));
        final List<ServiceDiff.Pending> quiesced = new ArrayList<>();
        final List<String> changes = new ArrayList<>(ServiceDiff.apply(live, desired, conductor.fileServices(),
            quiesced));
        conductor.fileServices(ServiceDiff.keys(desired));
        if (!added.isEmpty())
        {
            Conductor.awaitNextHops(conductor.topologySource(), added, Conductor.serverAddressesOf(desired),
                NEXT_HOP_WAIT_NS);
        }
        changes.addAll(expirationChanges);
        changes.addAll(switchChanges(conductor.settings(), next.settings()));
        conductor.settings(next.settings());
        changes.addAll(markChanges(conductor.marks(), next.markRules()));
        conductor.marks(next.markRules());
        // Only the values the file changed: one set through control (ipvsadm --set) since stays otherwise.
        final ConnectionTimeouts.Current inEffect = conductor.timeouts().current();
        final ConnectionTimeouts.Current timeouts = timeoutsAfter(running.timeouts(), next.timeouts(), inEffect);
        if (!timeouts.equals(inEffect))
        {
            changes.add("timeouts tcp " + timeouts.tcpSeconds() + " tcpfin " + timeouts.tcpFinSeconds() + " udp " +
                timeouts.udpSeconds());
        }
        conductor.timeouts().set(timeouts.tcpSeconds(), timeouts.tcpFinSeconds(), timeouts.udpSeconds());
        changes.addAll(neighbourChanges(running, next));
        conductor.topologySource().reconfigure(next);
        conductor.configuration(next);
        final String leftToControl = leftToControl(live, conductor.fileServices(), timeouts,
            timeoutsOf(next.timeouts()));
        conductor.publish(System.nanoTime());
        if (!quiesced.isEmpty())
        {
            // Once every worker uses a snapshot that holds their slots, the schedulers may give them connections.
            if (!conductor.awaitWorkersOnCurrent(WORKERS_WAIT_NS))
            {
                DaemonLog.warning("reload: a worker did not take the new snapshot within " +
                    WORKERS_WAIT_NS / 1_000_000 + " ms; the added servers get their weights anyway");
            }
            ServiceDiff.release(live, quiesced);
            conductor.publish(System.nanoTime());
        }
        return summary(changes) + leftToControl;
    }

    /**
     * Counts what the table would hold after {@link ServiceDiff#apply} (the file's services and those left to
     * control, and their servers) against the data plane's slots, before anything is changed: a snapshot that does
     * not fit fails only once the table has been changed, so that is checked here. The slots the builder still holds
     * for services and servers the table no longer names (connections still count on them, or a worker may still
     * use a snapshot that named them) are counted as taken, and so are those of what this reload removes.
     *
     * @param owned the services the file manages until now.
     * @return why it does not fit (the count, what it is made of, and the limit), or null when it fits.
     */
    static String capacityRefusal(final DataPlaneBuilder builder, final ServiceTable live,
        final ServiceTable desired, final Set<ServiceKey> owned)
    {
        final Set<VirtualService> keptServices = Collections.newSetFromMap(new IdentityHashMap<>());
        final Set<RealServer> keptServers = Collections.newSetFromMap(new IdentityHashMap<>());
        int leftServices = 0;
        int leftServers = 0;
        for (final VirtualService service : live.services())
        {
            if (desired.find(service.key()) != null)
            {
                keptServices.add(service);
            }
            else if (!owned.contains(service.key()))
            {
                keptServices.add(service);
                leftServices++;
                leftServers += service.servers().length;
                Collections.addAll(keptServers, service.servers());
            }
        }
        int fileServers = 0;
        for (final VirtualService wanted : desired.services())
        {
            fileServers += wanted.servers().length;
            final VirtualService running = live.find(wanted.key());
            if (running == null)
            {
                // A service created again may take back its predecessor's servers: counted as new, which is more.
                continue;
            }
            for (final RealServer server : wanted.servers())
            {
                RealServer same = running.find(server.address(), server.port());
                if (same == null)
                {
                    same = running.departedToTakeBack(server.address(), server.port());
                }
                if (same != null)
                {
                    keptServers.add(same);
                }
            }
        }
        final int fileServices = desired.services().size();
        final String services = limit(fileServices + leftServices, "virtual services", "", fileServices,
            leftServices, builder.serviceSlotsHeldApartFrom(keptServices::contains), builder.maxServices());
        if (services != null)
        {
            return services;
        }
        return limit(fileServers + leftServers, "real servers", "of services ", fileServers, leftServers,
            builder.serverSlotsHeldApartFrom(keptServers::contains), builder.maxServers() - 1);
    }

    /**
     * @return e.g. {@code 1030 virtual services after this reload (the file's 1000 and 30 left to control): jvs
     *         holds 1024}, with {@code , and 3 slots still held for removed ones} when those make it too many; or
     *         null when {@code after} and {@code held} fit in {@code max}.
     */
    private static String limit(final int after, final String what, final String of, final int file, final int left,
        final int held, final int max)
    {
        if ((long)after + held <= max)
        {
            return null;
        }
        final String count = after + " " + what + " after this reload (the file's " + file + " and " + left + " " +
            of + "left to control)";
        if (after > max)
        {
            return count + ": jvs holds " + max;
        }
        return count + ", and " + held + (held == 1 ? " slot" : " slots") + " still held for removed ones (their " +
            "connections, or workers on an older snapshot): jvs holds " + max;
    }

    /** @return "no change", or how many changes and each one, separated by semicolons. */
    private static String summary(final List<String> changes)
    {
        if (changes.isEmpty())
        {
            return "no change";
        }
        return changes.size() + (changes.size() == 1 ? " change: " : " changes: ") + String.join("; ", changes);
    }

    /**
     * @param fileServices the services the file manages, from this reload on.
     * @param timeouts     the timeouts in effect after the reload.
     * @param file         the timeouts the file gives (the defaults for those it does not).
     * @return {@code "; left to control: "} and how many running services the file does not declare, then the
     *         timeouts in effect that are not the file's (set through control, on a line the reload left unchanged);
     *         empty when there are none of either.
     */
    private static String leftToControl(final ServiceTable live, final Set<ServiceKey> fileServices,
        final ConnectionTimeouts.Current timeouts, final ConnectionTimeouts.Current file)
    {
        final List<String> left = new ArrayList<>();
        int services = 0;
        for (final VirtualService service : live.services())
        {
            if (!fileServices.contains(service.key()))
            {
                services++;
            }
        }
        if (services > 0)
        {
            left.add(services + (services == 1 ? " service" : " services"));
        }
        final StringBuilder set = new StringBuilder();
        timeout(set, "tcp", timeouts.tcpSeconds(), file.tcpSeconds());
        timeout(set, "tcpfin", timeouts.tcpFinSeconds(), file.tcpFinSeconds());
        timeout(set, "udp", timeouts.udpSeconds(), file.udpSeconds());
        if (!set.isEmpty())
        {
            left.add("timeouts" + set);
        }
        return left.isEmpty() ? "" : "; left to control: " + String.join(", ", left);
    }

    private static void timeout(final StringBuilder set, final String name, final int seconds, final int file)
    {
        if (seconds != file)
        {
            set.append(' ').append(name).append(' ').append(seconds);
        }
    }

    /**
     * The timeouts after a reload: each one the file's {@code timeout} statement gives differently from the previous
     * file's (given, changed, or no longer given) becomes the new file's value, or the kernel's default when it
     * does not give it; each other stays as it is in effect, so a value set through control ({@code ipvsadm --set},
     * keepalived's {@code lvs_timeouts}) outlasts a reload that did not touch it.
     *
     * @param before   the previous file's statement.
     * @param after    the new file's statement.
     * @param inEffect the timeouts in effect.
     */
    private static ConnectionTimeouts.Current timeoutsAfter(final JvsConfig.Timeouts before,
        final JvsConfig.Timeouts after, final ConnectionTimeouts.Current inEffect)
    {
        final ConnectionTimeouts.Current file = timeoutsOf(after);
        return new ConnectionTimeouts.Current(
            before.tcpSeconds() != after.tcpSeconds() ? file.tcpSeconds() : inEffect.tcpSeconds(),
            before.tcpFinSeconds() != after.tcpFinSeconds() ? file.tcpFinSeconds() : inEffect.tcpFinSeconds(),
            before.udpSeconds() != after.udpSeconds() ? file.udpSeconds() : inEffect.udpSeconds());
    }

    /** @return the timeouts the file asks for: the kernel's default for one it does not give. */
    private static ConnectionTimeouts.Current timeoutsOf(final JvsConfig.Timeouts given)
    {
        final ConnectionTimeouts.Current defaults = new ConnectionTimeouts().current();
        return new ConnectionTimeouts.Current(
            given.tcpSeconds() != 0 ? given.tcpSeconds() : defaults.tcpSeconds(),
            given.tcpFinSeconds() != 0 ? given.tcpFinSeconds() : defaults.tcpFinSeconds(),
            given.udpSeconds() != 0 ? given.udpSeconds() : defaults.udpSeconds());
    }

    /** @return {@code set NAME VALUE} for each switch whose value differs, in the statement's order. */
    private static List<String> expirationChanges(final SchedulerSettings before, final SchedulerSettings after)
    {
        final List<String> changes = new ArrayList<>();
        if (before.lblcExpirationNs() != after.lblcExpirationNs())
        {
            changes.add("set lblc_expiration " + after.lblcExpirationNs() / 1_000_000_000L);
        }
        if (before.lblcrExpirationNs() != after.lblcrExpirationNs())
        {
            changes.add("set lblcr_expiration " + after.lblcrExpirationNs() / 1_000_000_000L);
        }
        return changes;
    }

    private static List<String> switchChanges(final DataPlaneSettings before, final DataPlaneSettings after)
    {
        final Map<String, Integer> was = JvsConfig.switches(before);
        final List<String> changes = new ArrayList<>();
        JvsConfig.switches(after).forEach((name, value) ->
        {
            if (!value.equals(was.get(name)))
            {
                changes.add("set " + name + " " + value);
            }
        });
        return changes;
    }

    /**
     * @return how many mark rules came and went, or that the same rules were reordered (the first that matches
     *         wins, so their order is a change too); empty when they are the same.
     */
    private static List<String> markChanges(final List<MarkRule> before, final List<MarkRule> after)
    {
        if (before.equals(after))
        {
            return List.of();
        }
        final List<MarkRule> gone = new ArrayList<>(before);
        final List<MarkRule> come = new ArrayList<>();
        for (final MarkRule rule : after)
        {
            if (!gone.remove(rule))
            {
                come.add(rule);
            }
        }
        return List.of(come.isEmpty() && gone.isEmpty() ? "mark rules: reordered" :
            "mark rules: " + counts(come.size(), gone.size(), 0));
    }

    /**
     * @return how many {@code neighbour} overrides came, went or changed their MAC or port, and each
     *         {@code gateway} that came, went or changed; empty when they are the same.
     */
    private static List<String> neighbourChanges(final JvsConfig before, final JvsConfig after)
    {
        final List<String> changes = new ArrayList<>();
        int added = 0;
        int changed = 0;
        for (final Map.Entry<IpAddress, Topology.Neighbour> neighbour : after.neighbours().entrySet())
        {
            final Topology.Neighbour was = before.neighbours().get(neighbour.getKey());
            if (was == null)
            {
                added++;
            }
            else if (!was.equals(neighbour.getValue()))
            {
                changed++;
            }
        }
        int removed = 0;
        for (final IpAddress address : before.neighbours().keySet())
        {
            if (!after.neighbours().containsKey(address))
            {
                removed++;
            }
        }
        if (added + removed + changed > 0)
        {
            changes.add("neighbour overrides: " + counts(added, removed, changed));
        }
        gatewayChange("ipv4", before.gatewayV4(), after.gatewayV4(), changes);
        gatewayChange("ipv6", before.gatewayV6(), after.gatewayV6(), changes);
        return changes;
    }

    private static void gatewayChange(final String family, final Topology.Neighbour before,
        final Topology.Neighbour after, final List<String> changes)
    {
        if (!Objects.equals(before, after))
        {
            changes.add("gateway " + family + (before == null ? " added" : after == null ? " removed" : " changed"));
        }
    }

    /** @return e.g. "2 added, 1 removed": the counts that are not 0. */
    private static String counts(final int added, final int removed, final int changed)
    {
        final List<String> counts = new ArrayList<>();
        if (added > 0)
        {
            counts.add(added + " added");
        }
        if (removed > 0)
        {
            counts.add(removed + " removed");
        }
        if (changed > 0)
        {
            counts.add(changed + " changed");
        }
        return String.join(", ", counts);
    }

    /**
     * @param runningWorkers how many workers run.
     * @param nextWorkers    how many the daemon would run with {@code next} ({@link Daemon#workerCount}): the
     *                       workers are compared by that count rather than by the statement, so a file that leaves
     *                       out a {@code workers} statement giving the default changes nothing.
     * @return what differs that only a restart can change, or null.
     */
    private static String restartNeeded(final JvsConfig running, final int runningWorkers, final JvsConfig next,
        final int nextWorkers)
    {
        if (!running.interfaces().stream().map(face -> List.of(face.name(), face.port(), face.queues(),
            face.xdpMode(), face.zeroCopy())).toList().equals(next.interfaces().stream().map(face -> List.of(
            face.name(), face.port(), face.queues(), face.xdpMode(), face.zeroCopy())).toList()))
        {
            return "the interfaces";
        }
        if (runningWorkers != nextWorkers || !running.cpus().equals(next.cpus()))
        {
            return "workers or cpus";
        }
        if (running.connections() != next.connections())
        {
            return "connections";
        }
        if (running.idle() != next.idle())
        {
            return "idle";
        }
        if (!Objects.equals(running.control(), next.control()) ||
            !Objects.equals(running.controlGroup(), next.controlGroup()))
        {
            return "control";
        }
        if (running.vipArp() != next.vipArp())
        {
            return "vip-arp";
        }
        if (running.offload() != next.offload())
        {
            return "offload";
        }
        return null;
    }
}
