package io.jvs.core.sched;

import java.util.ArrayList;
import java.util.List;

/**
 * Per-service scheduler flags: ipvsadm's {@code -b} list plus jvs's own flags, which switch a service from a
 * default jvs chose to the other behaviour it also implements.
 * <ul>
 *   <li>{@code sh-fallback} / {@code mh-fallback} (flag-1): when the hashed server is unusable, probe on.</li>
 *   <li>{@code sh-port} / {@code mh-port} (flag-2): hash the source port as well as the address.</li>
 *   <li>{@code flag-3}: accepted and kept, as ipvsadm does; no scheduler reads it.</li>
 *   <li>{@code kernel-hash}: dh, sh, lblc and lblcr hash with the current kernel's {@code hash_32}
 *       instead of the default {@code ip * 2654435761 & mask} of older kernels ({@link AddressHash}).</li>
 *   <li>{@code seed-overload}: dh and sh also refuse a server whose connections exceed twice its weight, the
 *       overload rule of the LVS Knowledge Base's destination and source hashing pseudo-code (named for the
 *       LVS documents jvs started from); the kernel refuses only a server with the OVERLOAD flag.</li>
 *   <li>{@code table-size=N}: dh/sh buckets or lblc/lblcr hash buckets (a power of two), or the mh table
 *       size (a prime).</li>
 * </ul>
 *
 * @param fallback     flag-1.
 * @param port         flag-2.
 * @param flag3        flag-3.
 * @param kernelHash   use hash_32.
 * @param seedOverload apply the LVS documents' twice-the-weight overload rule.
 * @param tableSize    0 for the scheduler's default.
 */
public record SchedulerFlags(
    boolean fallback, boolean port, boolean flag3, boolean kernelHash, boolean seedOverload, int tableSize)
{
    /** No flags. */
    public static final SchedulerFlags NONE = new SchedulerFlags(false, false, false, false, false, 0);

    /**
     * Parses a comma-separated {@code -b} list, checking each flag against the scheduler it is for.
     *
     * @param list      e.g. {@code sh-fallback,sh-port}.
     * @param scheduler the scheduler name given on the same line.
     * @return the flags.
     * @throws IllegalArgumentException with ipvsadm's wording for an unknown or incompatible flag.
     */
    public static SchedulerFlags parse(final String list, final String scheduler)
    {
        boolean fallback = false;
        boolean port = false;
        boolean flag3 = false;
        boolean kernelHash = false;
        boolean seedOverload = false;
        int tableSize = 0;
        for (final String flag : list.split(",", -1))
        {
            switch (flag)
            {
                case "flag-1" -> fallback = true;
                case "flag-2" -> port = true;
                case "flag-3" -> flag3 = true;
                case "sh-fallback", "sh-port", "mh-fallback", "mh-port" ->
                {
                    if (!flag.startsWith(scheduler + "-"))
                    {
                        throw new IllegalArgumentException("incompatible scheduler flag `" + flag + "'");
                    }
                    if (flag.endsWith("-fallback"))
                    {
                        fallback = true;
                    }
                    else
                    {
                        port = true;
                    }
                }
                case "kernel-hash" ->
                {
                    requireOneOf(flag, scheduler, "dh", "sh", "lblc", "lblcr");
                    kernelHash = true;
                }
                case "seed-overload" ->
                {
                    requireOneOf(flag, scheduler, "dh", "sh");
                    seedOverload = true;
                }
                default ->
                {
                    if (!flag.startsWith("table-size="))
                    {
                        throw new IllegalArgumentException("invalid scheduler flag `" + flag + "'");
                    }
                    requireOneOf(flag, scheduler, "dh", "sh", "lblc", "lblcr", "mh");
                    tableSize = parseTableSize(flag, scheduler);
                }
            }
        }
        return new SchedulerFlags(fallback, port, flag3, kernelHash, seedOverload, tableSize);
    }

    private static void requireOneOf(final String flag, final String scheduler, final String... schedulers)
    {
        for (final String allowed : schedulers)
        {
            if (allowed.equals(scheduler))
            {
                return;
            }
        }
        throw new IllegalArgumentException("incompatible scheduler flag `" + flag + "'");
    }

    private static int parseTableSize(final String flag, final String scheduler)
    {
        final String value = flag.substring("table-size=".length());
        final int size;
        try
        {
            size = Integer.parseInt(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("invalid table size `" + value + "'");
        }
        if ("mh".equals(scheduler))
        {
            if (size < 7 || size > MaglevScheduler.MAX_TABLE_SIZE || !isPrime(size))
            {
                throw new IllegalArgumentException(
                    "mh table size must be a prime between 7 and " + MaglevScheduler.MAX_TABLE_SIZE + ": " + value);
            }
        }
        else if (size < 2 || size > (1 << 20) || Integer.bitCount(size) != 1)
        {
            throw new IllegalArgumentException("table size must be a power of two between 2 and 1048576: " + value);
        }
        return size;
    }

    static boolean isPrime(final int n)
    {
        if (n < 2)
        {
            return false;
        }
        for (int d = 2; (long)d * d <= n; d++)
        {
            if (n % d == 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @return true when any flag is set.
     */
    public boolean any()
    {
        return fallback || port || flag3 || kernelHash || seedOverload || tableSize != 0;
    }

    /**
     * Formats the flags as ipvsadm prints them after {@code -b}: named after the scheduler for sh and
     * mh, {@code flag-N} otherwise, then jvs's own flags.
     *
     * @param scheduler the service's scheduler.
     * @return the comma-joined list, empty when no flag is set.
     */
    public String toListString(final String scheduler)
    {
        final List<String> names = new ArrayList<>();
        final boolean named = "sh".equals(scheduler) || "mh".equals(scheduler);
        if (fallback)
        {
            names.add(named ? scheduler + "-fallback" : "flag-1");
        }
        if (port)
        {
            names.add(named ? scheduler + "-port" : "flag-2");
        }
        if (flag3 && !named)
        {
            names.add("flag-3");
        }
        if (kernelHash)
        {
            names.add("kernel-hash");
        }
        if (seedOverload)
        {
            names.add("seed-overload");
        }
        if (tableSize != 0)
        {
            names.add("table-size=" + tableSize);
        }
        return String.join(",", names);
    }
}
