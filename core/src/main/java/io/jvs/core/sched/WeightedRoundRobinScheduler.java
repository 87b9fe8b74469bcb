package io.jvs.core.sched;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.VirtualService;

/**
 * wrr: weighted round-robin (ip_vs_wrr.c, current version).
 * <p>
 * Passes over the list run with a falling weight threshold {@code cw}: {@code mw, mw - di, ..., 1},
 * where {@code di} is the gcd of the positive weights and {@code mw = maxWeight - (di - 1)}, so the last
 * pass runs with {@code cw = 1} and still catches a weight lowered below {@code di} meanwhile. Each pass
 * returns, in list order, the servers with {@code weight >= cw} that are not overloaded; one full cycle
 * therefore returns every server {@code weight / di} times, interleaved.
 * <p>
 * The control plane computes {@code di} and {@code mw} into an immutable plan whenever the servers
 * change. Each worker keeps its own cursor and {@code cw}, so that workers share no lock and each one's sequence
 * is the kernel's, with the weights exact over every full cycle; when it first sees a new plan it applies
 * the kernel's dest_changed rule itself: back to the head, {@code cw} kept if still valid. A worker
 * that has never scheduled starts from {@code cw = mw}, as init_service does with the servers present.
 */
final class WeightedRoundRobinScheduler implements Scheduler
{
    /** What the control plane derives from the list; published whole. */
    private record Plan(RealServer[] list, int step, int startWeight)
    {
    }

    private final WorkerCursor[] cursors;
    private VirtualService service;
    private volatile Plan plan;

    WeightedRoundRobinScheduler(final SchedulerSettings settings)
    {
        this.cursors = WorkerCursor.forWorkers(settings.workers());
    }

    @Override
    public void init(final VirtualService service)
    {
        this.service = service;
        replan();
    }

    @Override
    public void onServerAdded(final RealServer server)
    {
        replan();
    }

    @Override
    public void onServerRemoved(final RealServer server)
    {
        replan();
    }

    @Override
    public void onServerUpdated(final RealServer server)
    {
        replan();
    }

    private void replan()
    {
        final RealServer[] list = service.servers();
        int gcd = 0;
        int max = 0;
        for (final RealServer server : list)
        {
            final int weight = server.weight();
            if (weight > 0)
            {
                gcd = gcd == 0 ? weight : Weights.gcd(weight, gcd);
            }
            max = Math.max(max, weight);
        }
        final int step = gcd == 0 ? 1 : gcd;
        plan = new Plan(list, step, max - (step - 1));
    }

    @Override
    public boolean readsFlow()
    {
        return false;
    }

    @Override
    public RealServer schedule(final FlowTuple flow, final SchedulingContext context)
    {
        final Plan current = plan;
        final RealServer[] list = current.list;
        final int step = current.step;
        final int startWeight = current.startWeight;
        final WorkerCursor mark = cursors[context.workerIndex()];
        if (mark.plan != current)
        {
            // A weight change keeps the list but replaces the plan, so the plan is what is compared.
            final boolean fresh = mark.plan == null;
            mark.plan = current;
            mark.rewind();
            final int cw = mark.currentWeight;
            if (fresh || cw > startWeight || cw == 0)
            {
                mark.currentWeight = startWeight;
            }
            else if (step > 1)
            {
                mark.currentWeight = (cw / step) * step + 1;
            }
        }
        if (startWeight == 0)
        {
            return null;
        }

        final int last = mark.index();
        int stop = Integer.MIN_VALUE;
        boolean lastPass = false;
        boolean restarted = false;
        int from = last;
        while (true)
        {
            final int cw = mark.currentWeight;
            // The heaviest server the pass saw that is not overloaded (read only for weights below cw that beat it).
            int heaviest = 0;
            for (int i = from + 1; i < list.length; i++)
            {
                final RealServer server = list[i];
                final int weight = server.weight();
                if (weight >= cw)
                {
                    if (!server.isOverloaded())
                    {
                        mark.index(i);
                        return server;
                    }
                }
                else if (weight > heaviest && !server.isOverloaded())
                {
                    heaviest = weight;
                }
                if (i == stop)
                {
                    mark.index(i);
                    return null;
                }
            }
            if (from == WorkerCursor.HEAD)
            {
                mark.currentWeight = cw - step * skippablePasses(cw, step, heaviest);
            }
            from = WorkerCursor.HEAD;
            mark.currentWeight -= step;
            if (mark.currentWeight <= 0)
            {
                mark.currentWeight = startWeight;
                if (lastPass || last == WorkerCursor.HEAD)
                {
                    mark.rewind();
                    return null;
                }
                restarted = true;
            }
            lastPass = mark.currentWeight <= step;
            if (lastPass && restarted && last != WorkerCursor.HEAD)
            {
                stop = last;
            }
        }
    }

    /**
     * How many of the passes after a whole pass at {@code cw} that found nothing can be left out: those whose
     * threshold is still above both the heaviest server that is not overloaded (so they find nothing either) and
     * {@code step} (so none of them is the last pass, which may set where the search stops). Each would only lower
     * {@code cw} by {@code step}; the kernel runs them one by one, which with a heavy server overloaded
     * is up to {@code maxWeight / step} passes over the list for one connection.
     */
    static int skippablePasses(final int cw, final int step, final int heaviest)
    {
        final int floor = Math.max(heaviest, step);
        return cw - step > floor ? (cw - floor - 1) / step : 0;
    }
}
