package io.jvs.core.sched;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.VirtualService;

/**
 * Picks the real server for a new connection, shaped like the kernel's {@code struct ip_vs_scheduler}.
 * <p>
 * One instance serves one virtual service and holds that service's scheduling state (the kernel's
 * {@code sched_data}). The hooks run on the control plane, one at a time, after the service's list of
 * servers has changed; they do the expensive work (table fills, permutations) and publish the result
 * with a single volatile store. {@link #schedule} runs on any worker thread, concurrently with other
 * workers and with the hooks; it takes no lock, allocates nothing and throws nothing.
 */
public interface Scheduler
{
    /**
     * Prepares the state for a service whose current servers are already in its list (init_service).
     *
     * @param service the service this instance schedules for.
     */
    void init(VirtualService service);

    /**
     * Releases the state (done_service). No schedule call follows.
     */
    default void done()
    {
    }

    /**
     * The sysctls shared by all services changed (lblc_expiration, lblcr_expiration), as a write to
     * {@code /proc/sys/net/ipv4/vs} takes effect at once (control plane only). Nothing by default.
     *
     * @param settings the new settings (their flags are not this service's: ignore them).
     */
    default void sysctls(final SchedulerSettings settings)
    {
    }

    /**
     * A server was added at the head of the list (add_dest).
     *
     * @param server the new server.
     */
    default void onServerAdded(final RealServer server)
    {
    }

    /**
     * A server was removed from the list (del_dest); it is no longer AVAILABLE.
     *
     * @param server the removed server.
     */
    default void onServerRemoved(final RealServer server)
    {
    }

    /**
     * A server's weight, thresholds or method changed (upd_dest).
     *
     * @param server the edited server.
     */
    default void onServerUpdated(final RealServer server)
    {
    }

    /**
     * Periodic housekeeping on the control plane, such as the lblc/lblcr garbage collection. Called about
     * once a second with the scheduling clock.
     *
     * @param nowNs the time on the scheduling clock.
     */
    default void onTick(final long nowNs)
    {
    }

    /**
     * Whether {@link #schedule} reads its flow: a scheduler that chooses by the servers' weights, counts or turn
     * alone says no, and a caller may then pass a flow it has not filled for this packet (the pipeline skips the
     * flow's stores for every new connection of such a service).
     *
     * @return true unless the choice never depends on the flow's addresses, ports, protocol or mark.
     */
    default boolean readsFlow()
    {
        return true;
    }

    /**
     * Chooses the server for a new connection.
     *
     * @param flow    the packet's addresses, ports and mark.
     * @param context the calling worker's context: its index, the clock, its random source.
     * @return the server, or null when no server can take the connection.
     */
    RealServer schedule(FlowTuple flow, SchedulingContext context);
}
