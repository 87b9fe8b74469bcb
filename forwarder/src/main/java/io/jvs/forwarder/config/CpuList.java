package io.jvs.forwarder.config;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * CPU lists as taskset and the kernel's cpulist format write them ({@code 0,2-3}): a {@code workers} statement's
 * {@code cpus}, and the {@code Cpus_allowed_list} of /proc/PID/status.
 */
public final class CpuList
{
    /** The highest CPU number a list takes: the kernel's largest NR_CPUS (MAXSMP) less one. */
    public static final int MAX_CPU = 8191;

    private CpuList()
    {
    }

    /**
     * @param text a list such as {@code 0,2-3}.
     * @return its CPUs in the order written.
     * @throws IllegalArgumentException saying what is wrong, beginning "cpus".
     */
    public static List<Integer> parse(final String text)
    {
        final List<Integer> list = new ArrayList<>();
        final Set<Integer> seen = new HashSet<>();
        for (final String item : text.split(",", -1))
        {
            if (item.isEmpty())
            {
                throw new IllegalArgumentException("cpus \"" + text + "\" has an empty item (write the list as 0,2-3)");
            }
            final int dash = item.indexOf('-');
            final int low = cpu(text, dash < 0 ? item : item.substring(0, dash));
            final int high = dash < 0 ? low : cpu(text, item.substring(dash + 1));
            if (high < low)
            {
                throw new IllegalArgumentException("cpus: the range " + item + " runs backwards");
            }
            for (int cpu = low; cpu <= high; cpu++)
            {
                if (!seen.add(cpu))
                {
                    throw new IllegalArgumentException("cpus: CPU " + cpu + " is listed twice");
                }
                list.add(cpu);
            }
        }
        return list;
    }

    /**
     * @param text a list such as {@code 0,2-3}.
     * @return its CPUs as a set.
     * @throws IllegalArgumentException as {@link #parse} does.
     */
    public static BitSet parseSet(final String text)
    {
        final BitSet set = new BitSet();
        for (final int cpu : parse(text))
        {
            set.set(cpu);
        }
        return set;
    }

    /**
     * @param cpus a set of CPUs.
     * @return it in the kernel's format, runs of two or more as ranges ({@code 0-1,3}).
     */
    public static String format(final BitSet cpus)
    {
        final StringBuilder text = new StringBuilder();
        for (int low = cpus.nextSetBit(0); low >= 0; )
        {
            final int high = cpus.nextClearBit(low) - 1;
            text.append(text.isEmpty() ? "" : ",").append(low);
            if (high > low)
            {
                text.append('-').append(high);
            }
            low = cpus.nextSetBit(high + 1);
        }
        return text.toString();
    }

    private static int cpu(final String list, final String text)
    {
        try
        {
            final int cpu = Integer.parseInt(text);
            if (cpu >= 0 && cpu <= MAX_CPU)
            {
                return cpu;
            }
        }
        catch (final NumberFormatException ex)
        {
            // refused below
        }
        throw new IllegalArgumentException("cpus \"" + list + "\": \"" + text + "\" is not a CPU number (0.." +
            MAX_CPU + ")");
    }
}
