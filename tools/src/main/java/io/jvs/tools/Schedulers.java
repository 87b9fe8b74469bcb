package io.jvs.tools;

import io.jvs.core.sched.SchedulerKind;

import java.util.ArrayList;
import java.util.List;

/**
 * The scheduler names a {@code --scheduler} option accepts, for its refusal.
 */
public final class Schedulers
{
    private Schedulers()
    {
    }

    /**
     * @return "rr, wrr, lc, ..." in ipvsadm's names, every scheduler jvs has.
     */
    public static String names()
    {
        final List<String> names = new ArrayList<>();
        for (final SchedulerKind kind : SchedulerKind.values())
        {
            names.add(kind.schedulerName());
        }
        return String.join(", ", names);
    }
}
