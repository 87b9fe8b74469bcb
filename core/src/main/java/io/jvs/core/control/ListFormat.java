package io.jvs.core.control;

/**
 * The listing options of {@code ipvsadm -L} (its FMT_ flags).
 *
 * @param numeric        -n: addresses and ports as numbers.
 * @param stats          --stats.
 * @param rate           --rate.
 * @param thresholds     --thresholds.
 * @param persistentConn --persistent-conn.
 * @param noSort         --nosort: kernel order.
 * @param exact          --exact: numbers in full.
 * @param tunnelInfo     --tun-info.
 */
public record ListFormat(
    boolean numeric,
    boolean stats,
    boolean rate,
    boolean thresholds,
    boolean persistentConn,
    boolean noSort,
    boolean exact,
    boolean tunnelInfo)
{
    /** {@code ipvsadm} with no arguments, or {@code -L} alone: names looked up, sorted. */
    public static final ListFormat DEFAULT = new ListFormat(false, false, false, false, false, false, false, false);
    /** {@code -L -n}. */
    public static final ListFormat NUMERIC = new ListFormat(true, false, false, false, false, false, false, false);
}
