package io.jvs.core.conn;

import java.util.Arrays;
import java.util.Objects;

/**
 * Idle timeouts of connection entries, per TCP state and for UDP (the kernel's {@code tcp_timeouts}
 * and {@code udp_timeouts}), editable as {@code ipvsadm --set tcp tcpfin udp} edits them.
 * <p>
 * <b>Threads.</b> Data-path workers read a timeout on every packet; the control plane writes rarely. The values
 * live in one {@code int[]} that is never changed once published through a {@code volatile} field: a write copies
 * the array, edits the copy and publishes it (copy-on-write). A read is therefore one volatile load and one plain
 * array load, takes no lock and allocates nothing, and {@link #current()} always sees the three values of a single
 * {@link #set} together. Writers are serialised by the instance lock so that two concurrent {@code set} calls
 * cannot lose each other's edits.
 * <p>
 * <b>Protocols covered.</b> TCP (one timeout per state) and UDP (one state, {@code "UDP"}, as in
 * {@code ip_vs_proto_udp.c}). There is no ICMP entry: IPVS has no ICMP protocol handler; ICMP errors are matched
 * to the TCP/UDP entry they quote and, with {@code schedule_icmp}, create an entry of that inner protocol. SCTP
 * (its own state machine and timeout table in {@code ip_vs_proto_sctp.c}) is not modelled yet; a single
 * placeholder value would be wrong for all but one of its states, so it is left out rather than faked.
 */
public final class ConnectionTimeouts
{
    /** Index of the UDP timeout in the table, after the TCP states. */
    private static final int UDP = TcpStates.COUNT;

    /**
     * The largest value {@link #set} accepts, in seconds: timeouts are kept in milliseconds in an {@code int}.
     * This equals the kernel's own limit {@code INT_MAX / HZ} for HZ = 1000.
     */
    public static final int MAX_SECONDS = Integer.MAX_VALUE / 1000;

    /**
     * Timeout of an entry between its creation and its first state transition ({@code ip_vs_conn_new}: 3 s).
     * The first packet normally moves it on at once.
     */
    public static final int NEW_ENTRY_MS = 3_000;

    /**
     * Re-arm interval of an entry whose timer fires while it still controls others, e.g. a persistence
     * template with live connections (ip_vs_conn_expire re-arms it for 60 s).
     */
    public static final int CONTROLLER_REARM_MS = 60_000;

    /** Defaults in seconds, indexed by TCP state, then UDP (the kernel's tcp_timeouts and udp_timeouts). */
    private static final int[] DEFAULT_SECONDS = {
        2,      // NONE
        900,    // ESTABLISHED  (ipvsadm "tcp")
        120,    // SYN_SENT
        60,     // SYN_RECV
        120,    // FIN_WAIT     (ipvsadm "tcpfin")
        120,    // TIME_WAIT
        10,     // CLOSE
        60,     // CLOSE_WAIT
        30,     // LAST_ACK
        120,    // LISTEN
        120,    // SYNACK
        300,    // UDP          (ipvsadm "udp")
    };

    /** Milliseconds, indexed as {@link #DEFAULT_SECONDS}; replaced whole, never written in place. */
    private volatile int[] tableMs;
    /** The same in the connection table's ticks, published after {@link #tableMs}: what the data path reads. */
    private volatile int[] tableTicks;

    /** Timeouts at the kernel's defaults. */
    public ConnectionTimeouts()
    {
        final int[] ms = new int[DEFAULT_SECONDS.length];
        for (int i = 0; i < ms.length; i++)
        {
            ms[i] = DEFAULT_SECONDS[i] * 1000;
        }
        publish(ms);
    }

    /**
     * The idle timeout of a TCP entry in a state. Allocation-free; safe from any thread.
     *
     * @param state a TCP state from {@link TcpStates}.
     * @return milliseconds.
     * @throws IndexOutOfBoundsException if {@code state} is not a TCP state.
     */
    public int tcpMs(final int state)
    {
        // Checked against the TCP states, not the array: state COUNT would otherwise read the UDP slot.
        return tableMs[Objects.checkIndex(state, TcpStates.COUNT)];
    }

    /**
     * The idle timeout of a UDP entry. Allocation-free; safe from any thread.
     *
     * @return milliseconds.
     */
    public int udpMs()
    {
        return tableMs[UDP];
    }

    private void publish(final int[] ms)
    {
        final int[] ticks = new int[ms.length];
        for (int i = 0; i < ms.length; i++)
        {
            ticks[i] = (int)(ms[i] / (ConnectionTable.TICK_NS / 1_000_000L));
        }
        tableMs = ms;
        tableTicks = ticks;
    }

    /**
     * The published timeouts in {@linkplain ConnectionTable#tick ticks} of the connection table, indexed as
     * {@link #publishedMs()}: a data path reads it once a burst and uses it as it is, with no test for a change (a
     * test that never fires in a warm-up would be compiled as a trap, and the first real burst would deoptimise).
     *
     * @return the current table; do not modify it.
     */
    public int[] publishedTicks()
    {
        return tableTicks;
    }

    /**
     * The published timeouts in milliseconds, TCP states first and UDP at index {@link TcpStates#COUNT}.
     * The array is never changed after publication (a data path reads {@link #publishedTicks()} instead).
     *
     * @return the current table; do not modify it.
     */
    public int[] publishedMs()
    {
        return tableMs;
    }

    /**
     * {@code ipvsadm --set tcp tcpfin udp}: sets the ESTABLISHED, FIN_WAIT and UDP timeouts. A value of 0 keeps
     * the current one, as in the kernel's {@code ip_vs_set_timeout}. The values are checked before anything
     * changes, so a rejected call changes nothing (the kernel answers EINVAL the same way).
     * <p>
     * Existing entries keep the timer they were last armed with; the new values apply from their next packet.
     *
     * @param tcpSeconds    ESTABLISHED timeout, or 0.
     * @param tcpFinSeconds FIN_WAIT timeout, or 0.
     * @param udpSeconds    UDP timeout, or 0.
     * @throws IllegalArgumentException if a value is negative or above {@link #MAX_SECONDS}.
     */
    public synchronized void set(final int tcpSeconds, final int tcpFinSeconds, final int udpSeconds)
    {
        check("tcp", tcpSeconds);
        check("tcpfin", tcpFinSeconds);
        check("udp", udpSeconds);
        final int[] ms = tableMs.clone();
        if (tcpSeconds != 0)
        {
            ms[TcpStates.ESTABLISHED] = tcpSeconds * 1000;
        }
        if (tcpFinSeconds != 0)
        {
            ms[TcpStates.FIN_WAIT] = tcpFinSeconds * 1000;
        }
        if (udpSeconds != 0)
        {
            ms[UDP] = udpSeconds * 1000;
        }
        publish(ms);
    }

    /**
     * Sets the timeout of one TCP state: a jvs extension, since {@code ipvsadm --set} reaches only ESTABLISHED
     * and FIN_WAIT. Operators shorten SYN_RECV under a SYN flood this way, as the kernel's per-state
     * timeout tables allowed before they stopped being exported.
     *
     * @param state   a TCP state from {@link TcpStates}.
     * @param seconds the new timeout, 1..{@link #MAX_SECONDS}.
     * @throws IllegalArgumentException if the state or the value is out of range; nothing changes then.
     */
    public synchronized void setTcpState(final int state, final int seconds)
    {
        if (state < 0 || state >= TcpStates.COUNT)
        {
            throw new IllegalArgumentException("no TCP state " + state);
        }
        if (seconds < 1 || seconds > MAX_SECONDS)
        {
            throw new IllegalArgumentException(
                "timeout for " + TcpStates.name(state) + " must be 1.." + MAX_SECONDS + " seconds: " + seconds);
        }
        final int[] ms = tableMs.clone();
        ms[state] = seconds * 1000;
        publish(ms);
    }

    /**
     * The three values {@code ipvsadm -L --timeout} shows, read from one consistent table.
     *
     * @return ESTABLISHED, FIN_WAIT and UDP timeouts in seconds.
     */
    public Current current()
    {
        final int[] ms = tableMs;
        return new Current(ms[TcpStates.ESTABLISHED] / 1000, ms[TcpStates.FIN_WAIT] / 1000, ms[UDP] / 1000);
    }

    @Override
    public String toString()
    {
        return "ConnectionTimeouts" + Arrays.toString(tableMs);
    }

    private static void check(final String name, final int seconds)
    {
        if (seconds < 0 || seconds > MAX_SECONDS)
        {
            throw new IllegalArgumentException(
                name + " timeout " + seconds + " s is out of range 0.." + MAX_SECONDS + " (0 keeps the current value)");
        }
    }

    /**
     * The timeouts {@code ipvsadm --set} edits, in seconds.
     *
     * @param tcpSeconds    ESTABLISHED.
     * @param tcpFinSeconds FIN_WAIT.
     * @param udpSeconds    UDP.
     */
    public record Current(int tcpSeconds, int tcpFinSeconds, int udpSeconds)
    {
        /**
         * The line as ipvsadm prints it.
         *
         * @return e.g. {@code "Timeout (tcp tcpfin udp): 900 120 300"}.
         */
        public String format()
        {
            return "Timeout (tcp tcpfin udp): " + tcpSeconds + " " + tcpFinSeconds + " " + udpSeconds;
        }
    }
}
