package io.jvs.core.feedback;

import io.jvs.core.service.RealServer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The dynamic-feedback weight controller: a monitor on the director that turns each real server's measured
 * load into a new scheduler weight, so that a server that is busier than its weight says gets fewer new
 * connections from wrr or wlc, and one with room to spare gets more.
 * <p>
 * It follows the LVS project's "Dynamic Feedback Load Balancing Scheduling" by Wensong Zhang (the LVS
 * Knowledge Base, kb.linuxvirtualserver.org, and the dynamic-feedback part of his Chinese article on LVS
 * load scheduling, linuxvirtualserver.org/zh/lvs4.html): a Monitor Daemon collects each server's load,
 * mixes it into one aggregate, derives a new weight from it, and changes the weight in IPVS only when the
 * change passes a threshold. The cube-root step is the one Wensong Zhang gave on the lvs-users list
 * ("Re: Userspace scheduler?", 6 December 2001), {@code weight + A·(1 − aggregate_load)^(1/3)}. jvs's
 * inputs, target and constants ({@link FeedbackSettings}) were written down from memory of the Knowledge
 * Base description, not checked against its text; they are defaults to check before relying on any one.
 * <p>
 * Each period the caller hands in one {@link LoadReport} per server and pushes the returned changes
 * into the scheduler. For each server that answered, the controller computes
 * {@code AGG_i = Σ R_k·input_k} and moves its weight by {@code A·∛(target − AGG_i)}, a real cube root,
 * so higher load lowers the weight and lower load raises it. The weight stays within
 * {@code [minW, SCALE·DEFAULT_WEIGHT]}, where minW is one of two readings of the description
 * ({@link LowerClamp}), and is rounded half up, jvs's own choice since the scheduler takes whole weights; a
 * change reaches the scheduler only when it exceeds the push threshold of the weight the scheduler holds.
 * <p>
 * Rules at the edges:
 * <ul>
 *   <li>A server configured with DEFAULT_WEIGHT 0 is quiesced by its administrator and never touched, so
 *       that quiescing keeps working while the loop runs.</li>
 *   <li>A server that does not answer goes to weight 0 and is marked unreachable. When it answers
 *       again it restarts from DEFAULT_WEIGHT, which is pushed at once, and that period's load is not
 *       applied: its measurements were taken while it carried no traffic. Restarting from DEFAULT_WEIGHT
 *       rather than from 0 is jvs's choice: from 0 the cube-root steps would take many periods to bring
 *       a healthy server back.</li>
 *   <li>INPUT_i's mean is over the servers being adjusted this period only. Quiesced, silent and
 *       restarting servers received no connections by design, and counting them would make every
 *       other server look busier than it is.</li>
 * </ul>
 * No threads and no clock: the caller passes the time, and one thread must own the controller.
 *
 * @param <K> the type the caller identifies servers by.
 */
public final class FeedbackController<K>
{
    private final FeedbackSettings settings;
    private final Map<K, ServerFeedback> servers = new LinkedHashMap<>();
    private boolean adjustedBefore;
    private long lastAdjustmentNs;

    /**
     * @param settings the loop's constants.
     */
    public FeedbackController(final FeedbackSettings settings)
    {
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    /**
     * @return the loop's constants.
     */
    public FeedbackSettings settings()
    {
        return settings;
    }

    /**
     * Adds a server, or resets one whose administrator weight changed. The controller assumes the
     * scheduler now holds {@code defaultWeight} for it and forgets any earlier adjustment.
     *
     * @param server        the server's identity.
     * @param defaultWeight its administrator weight, 0..2147483647; 0 keeps the loop off it.
     */
    public void configure(final K server, final int defaultWeight)
    {
        Objects.requireNonNull(server, "server");
        if (defaultWeight < 0 || defaultWeight > RealServer.MAX_WEIGHT)
        {
            throw new IllegalArgumentException("weight out of range 0.." + RealServer.MAX_WEIGHT + ": " + defaultWeight);
        }
        servers.put(server, new ServerFeedback(defaultWeight));
    }

    /**
     * @param server the server's identity; nothing happens if it is unknown.
     */
    public void remove(final K server)
    {
        servers.remove(server);
    }

    /**
     * @param server a configured server.
     * @return the weight the scheduler holds for it, as far as the controller has pushed.
     */
    public int weight(final K server)
    {
        return state(server).pushedWeight;
    }

    /**
     * @param server a configured server.
     * @return the unrounded weight the loop is steering towards, which may not have been pushed yet.
     */
    public double targetWeight(final K server)
    {
        return state(server).targetWeight;
    }

    /**
     * @param server a configured server.
     * @return true when it missed its last report and sits at weight 0 until it answers again.
     */
    public boolean isUnreachable(final K server)
    {
        return state(server).unreachable;
    }

    /**
     * @param nowNs the caller's clock.
     * @return true when no adjustment has run yet or a whole period has passed since the last.
     */
    public boolean isDue(final long nowNs)
    {
        return !adjustedBefore || nowNs - lastAdjustmentNs >= settings.periodNs();
    }

    /**
     * The sign, in the LVS dynamic-feedback description, that the cluster needs more servers: every
     * adjustable, reachable server holds a weight below its DEFAULT_WEIGHT. It cannot become true under
     * {@link LowerClamp#DEFAULT_WEIGHT}.
     * Silent servers are left out, so that a cluster that is simply down does not read as overloaded.
     *
     * @return true when the pushed weights say the cluster is overloaded.
     */
    public boolean isClusterOverloaded()
    {
        boolean anyCounted = false;
        for (final ServerFeedback state : servers.values())
        {
            if (!state.isAdjustable() || state.unreachable)
            {
                continue;
            }
            if (state.pushedWeight >= state.defaultWeight)
            {
                return false;
            }
            anyCounted = true;
        }
        return anyCounted;
    }

    /**
     * Runs one period of the loop.
     *
     * @param nowNs   the caller's clock, remembered for {@link #isDue(long)}.
     * @param reports one report per configured server; a server with no report counts as silent.
     * @return the weights to push, in the order the servers were configured; empty when none changed enough.
     */
    public List<WeightChange<K>> adjust(final long nowNs, final Map<K, LoadReport> reports)
    {
        for (final K server : reports.keySet())
        {
            if (!servers.containsKey(server))
            {
                throw new IllegalArgumentException("report for an unknown server: " + server);
            }
        }
        long totalConnections = 0;
        int adjustedServers = 0;
        for (final Map.Entry<K, ServerFeedback> entry : servers.entrySet())
        {
            final LoadReport report = reports.get(entry.getKey());
            if (isAdjustedThisPeriod(entry.getValue(), report))
            {
                totalConnections += report.newConnections();
                adjustedServers++;
            }
        }
        final List<WeightChange<K>> changes = new ArrayList<>();
        for (final Map.Entry<K, ServerFeedback> entry : servers.entrySet())
        {
            final K server = entry.getKey();
            final ServerFeedback state = entry.getValue();
            final LoadReport report = reports.get(server);
            if (!state.isAdjustable())
            {
                continue;
            }
            if (report == null || !report.answered())
            {
                if (!state.unreachable)
                {
                    changes.add(new WeightChange<>(server, state.pushedWeight, 0));
                    state.unreachable = true;
                    state.pushedWeight = 0;
                }
            }
            else if (state.unreachable)
            {
                state.restartFromDefault();
                changes.add(new WeightChange<>(server, 0, state.pushedWeight));
            }
            else
            {
                final double input = ConnectionInput.of(report.newConnections(), totalConnections, adjustedServers);
                final WeightChange<K> change = step(server, state, settings.coefficients().aggregate(input, report));
                if (change != null)
                {
                    changes.add(change);
                }
            }
        }
        adjustedBefore = true;
        lastAdjustmentNs = nowNs;
        return changes;
    }

    private static boolean isAdjustedThisPeriod(final ServerFeedback state, final LoadReport report)
    {
        return state.isAdjustable() && !state.unreachable && report != null && report.answered();
    }

    private WeightChange<K> step(final K server, final ServerFeedback state, final double aggregate)
    {
        final double moved = state.targetWeight + settings.gain() * Math.cbrt(settings.targetLoad() - aggregate);
        // Clamping the real value, not only the pushed one, stops it winding up far past a bound
        // and then taking many periods to come back once the load turns.
        state.targetWeight = Math.clamp(
            moved, settings.lowestWeight(state.defaultWeight), settings.highestWeight(state.defaultWeight));
        final int rounded = (int)Math.floor(state.targetWeight + 0.5);
        final int previous = state.pushedWeight;
        if (Math.abs(rounded - previous) <= settings.pushThreshold(previous))
        {
            return null;
        }
        state.pushedWeight = rounded;
        return new WeightChange<>(server, previous, rounded);
    }

    private ServerFeedback state(final K server)
    {
        final ServerFeedback state = servers.get(server);
        if (state == null)
        {
            throw new IllegalArgumentException("unknown server: " + server);
        }
        return state;
    }
}
