package io.jvs.forwarder.daemon;

import io.jvs.core.io.IoMessages;
import io.jvs.core.net.IpAddress;
import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.rules.RuleException;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.ServiceTable;
import io.jvs.forwarder.config.JvsConfig;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A reload (SIGHUP, or the control socket's {@code reload}): the file is read and checked in full first, by
 * building a fresh service table from it, and refused whole with {@code file:line: reason} when anything is
 * wrong, so the running state stays as it was; then its difference from what runs is applied
 * ({@link ServiceDiff}) and published as one snapshot. What only a restart can change (interfaces, workers,
 * CPUs, connection tables, idle mode, the control socket) is refused with a message saying so. Runs on the
 * conductor's thread; the XDP programs stay attached throughout.
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
     * @param running the configuration the daemon started with.
     * @return a one-line summary of what changed.
     * @throws IllegalArgumentException when the file is refused (its message is the reason, file:line first).
     */
    static String apply(final Conductor conductor, final Path file, final JvsConfig running)
    {
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
        final String restart = restartNeeded(running, next);
        if (restart != null)
        {
            throw new IllegalArgumentException(file + ": " + restart + " changed: that needs a restart " +
                "(nothing was changed)");
        }
        final ServiceTable live = conductor.table();
        final ServiceTable desired;
        try
        {
            desired = next.serviceTable(new SchedulerSettings(SchedulerFlags.NONE,
                live.schedulerSettings().workers(), SchedulerSettings.DEFAULT_EXPIRATION_NS,
                SchedulerSettings.DEFAULT_EXPIRATION_NS));
        }
        catch (final RuleException ex)
        {
            throw new IllegalArgumentException(ex.getMessage(), ex);
        }
        final Set<IpAddress> added = Conductor.serverAddressesOf(desired);
        added.removeAll(Conductor.serverAddressesOf(live));
        final List<ServiceDiff.Pending> quiesced = new ArrayList<>();
        final List<String> changes = new ArrayList<>(ServiceDiff.apply(live, desired, quiesced));
        if (!added.isEmpty())
        {
            Conductor.awaitNextHops(conductor.topologySource(), added, Conductor.serverAddressesOf(desired),
                NEXT_HOP_WAIT_NS);
        }
        if (!next.settings().equals(conductor.settings()))
        {
            conductor.settings(next.settings());
            changes.add("settings");
        }
        conductor.marks(next.markRules());
        // The file says what the timeouts are: one it no longer gives goes back to the kernel's default.
        final ConnectionTimeouts defaults = new ConnectionTimeouts();
        final JvsConfig.Timeouts given = next.timeouts();
        conductor.timeouts().set(
            given.tcpSeconds() != 0 ? given.tcpSeconds() : defaults.current().tcpSeconds(),
            given.tcpFinSeconds() != 0 ? given.tcpFinSeconds() : defaults.current().tcpFinSeconds(),
            given.udpSeconds() != 0 ? given.udpSeconds() : defaults.current().udpSeconds());
        if (!running.neighbours().equals(next.neighbours()) || !Objects.equals(running.gatewayV4(), next.gatewayV4()) ||
            !Objects.equals(running.gatewayV6(), next.gatewayV6()))
        {
            changes.add("neighbour and gateway statements");
        }
        conductor.topologySource().reconfigure(next);
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
        return changes.isEmpty() ? "no change to services" : changes.size() + " changes: " + String.join("; ", changes);
    }

    private static String restartNeeded(final JvsConfig running, final JvsConfig next)
    {
        if (!running.interfaces().stream().map(face -> List.of(face.name(), face.port(), face.queues(),
            face.xdpMode(), face.zeroCopy())).toList().equals(next.interfaces().stream().map(face -> List.of(
            face.name(), face.port(), face.queues(), face.xdpMode(), face.zeroCopy())).toList()))
        {
            return "the interfaces";
        }
        if (running.workers() != next.workers() || !running.cpus().equals(next.cpus()))
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
        return null;
    }
}
