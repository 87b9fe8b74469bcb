package io.jvs.core.service;

import io.jvs.core.net.IpAddress;
import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;

import static io.jvs.core.service.ConnectionCountersDescriptor.*;

/**
 * A real server of one virtual service (the kernel's {@code ip_vs_dest}).
 * <p>
 * Its configuration (weight, thresholds, forwarding method) is written only by the control plane and
 * read by workers through volatile fields. Its connection counters live in an atomic buffer slot laid
 * out by {@link ConnectionCountersDescriptor}: each worker counts the connections of its own table in a line of
 * its own with plain stores (the {@code worker} methods), and the least-connection schedulers read the sum of the
 * lines without locks. The methods without a worker count as worker 0: for single-threaded users (the simulator,
 * tests), never beside a pipeline of worker 0.
 * <p>
 * Reads go straight to the slot's address, off the heap and checked once at construction: a least-connection pass
 * reads every server's counters, and going through the buffer object (its fields reloaded and its
 * bounds checked on every read) cost more than the reads themselves (perf/RESULTS.md).
 */
public final class RealServer
{
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    /** The largest weight: the kernel's (an int), which Debian's ipvsadm takes too (upstream's stops at 65535). */
    public static final int MAX_WEIGHT = Integer.MAX_VALUE;
    /** The most workers a server's counters have lines for. */
    public static final int MAX_WORKERS = 1024;

    private final IpAddress address;
    private final int port;
    private final AtomicBuffer counters;
    private final int countersOffset;
    /** The slot's absolute address (the counters live off the heap). */
    private final long countersAddress;
    /** Where worker 0's line, the slot's first, starts; worker w's is {@code LINE_LENGTH * w} after it. */
    private final long workersAddress;
    private final int workers;

    private volatile ForwardMethod forwardMethod;
    private volatile int lastWeight;
    private volatile int upperThreshold;
    private volatile int lowerThreshold;
    private volatile int schedulerSlot;
    private volatile int forwardingSlot;
    /** The service object it was last added to, the kernel's {@code dest->svc}: written by the control plane. */
    private volatile VirtualService service;

    /**
     * Creates a server counted by one worker, whose counters live in memory of their own.
     *
     * @param address       the real server's address.
     * @param port          its port (0 keeps the packet's port).
     * @param forwardMethod NAT, DR or TUN.
     * @param weight        0..2147483647; 0 quiesces the server.
     */
    public RealServer(final IpAddress address, final int port, final ForwardMethod forwardMethod, final int weight)
    {
        this(address, port, forwardMethod, weight, 1);
    }

    /**
     * Creates a server whose counters live in memory of their own, a line for each worker.
     *
     * @param address       the real server's address.
     * @param port          its port (0 keeps the packet's port).
     * @param forwardMethod NAT, DR or TUN.
     * @param weight        0..2147483647; 0 quiesces the server.
     * @param workers       how many workers count its connections, at least 1.
     */
    public RealServer(
        final IpAddress address, final int port, final ForwardMethod forwardMethod, final int weight, final int workers)
    {
        this(address, port, forwardMethod, weight, ownSlot(workers), 0, workers);
    }

    /**
     * Creates a server whose counters live in a slot of a shared buffer, such as a counters file.
     *
     * @param address        the real server's address.
     * @param port           its port.
     * @param forwardMethod  NAT, DR or TUN.
     * @param weight         0..2147483647.
     * @param counters       the buffer holding the slot, off the heap (a direct buffer or a mapped file).
     * @param countersOffset the slot's offset, a multiple of {@link ConnectionCountersDescriptor#LINE_LENGTH}.
     * @param workers        how many workers count its connections: the slot is
     *                       {@link ConnectionCountersDescriptor#slotLength} bytes.
     */
    public RealServer(
        final IpAddress address,
        final int port,
        final ForwardMethod forwardMethod,
        final int weight,
        final AtomicBuffer counters,
        final int countersOffset,
        final int workers)
    {
        if (port < 0 || port > 65535)
        {
            throw new IllegalArgumentException("port out of range 0..65535: " + port);
        }
        checkWeight(weight);
        checkWorkers(workers);
        counters.boundsCheck(countersOffset, ConnectionCountersDescriptor.slotLength(workers));
        if (counters.byteArray() != null)
        {
            // The least-connection scans read every server's counts: at an address alone, each read is one load.
            throw new IllegalArgumentException("server counters must live off the heap (a direct or mapped buffer)");
        }
        this.address = address;
        this.port = port;
        this.forwardMethod = forwardMethod;
        this.lastWeight = weight;
        this.counters = counters;
        this.countersOffset = countersOffset;
        this.countersAddress = counters.addressOffset() + countersOffset;
        this.workersAddress = countersAddress + ConnectionCountersDescriptor.workerLineOffset(0);
        this.workers = workers;
        storeWeight(weight);
    }

    private static UnsafeBuffer ownSlot(final int workers)
    {
        checkWorkers(workers);
        final int length = ConnectionCountersDescriptor.slotLength(workers);
        return new UnsafeBuffer(BufferUtil.allocateDirectAligned(length, LINE_LENGTH));
    }

    private static void checkWorkers(final int workers)
    {
        if (workers < 1 || workers > MAX_WORKERS)
        {
            throw new IllegalArgumentException("workers out of range 1.." + MAX_WORKERS + ": " + workers);
        }
    }

    private static void checkWeight(final int weight)
    {
        if (weight < 0 || weight > MAX_WEIGHT)
        {
            throw new IllegalArgumentException("weight out of range 0.." + MAX_WEIGHT + ": " + weight);
        }
    }

    public IpAddress address()
    {
        return address;
    }

    public int port()
    {
        return port;
    }

    public ForwardMethod forwardMethod()
    {
        return forwardMethod;
    }

    /**
     * @return the current weight; 0 means quiesced: no new connections, existing ones keep working.
     */
    public int weight()
    {
        return UnsafeApi.getIntVolatile(null, countersAddress + WEIGHT_OFFSET);
    }

    private void storeWeight(final int weight)
    {
        UnsafeApi.putIntVolatile(null, countersAddress + WEIGHT_OFFSET, weight);
    }

    /**
     * @return the last weight that was not 0 (the kernel's last_weight, which mh builds its table from).
     */
    public int lastWeight()
    {
        return lastWeight;
    }

    /**
     * @return the upper connection threshold (ipvsadm -x); 0 means no limit.
     */
    public int upperThreshold()
    {
        return upperThreshold;
    }

    /**
     * @return the lower connection threshold (ipvsadm -y); 0 means "3/4 of the upper one".
     */
    public int lowerThreshold()
    {
        return lowerThreshold;
    }

    /**
     * Changes the weight (control plane only). The service must tell its scheduler afterwards.
     *
     * @param weight 0..2147483647.
     */
    void weight(final int weight)
    {
        checkWeight(weight);
        if (weight > 0)
        {
            this.lastWeight = weight;
        }
        storeWeight(weight);
    }

    void forwardMethod(final ForwardMethod forwardMethod)
    {
        this.forwardMethod = forwardMethod;
    }

    /**
     * Sets the connection thresholds as the kernel does on an edit: OVERLOAD is cleared when the new
     * upper threshold is 0 or higher than the old one (ip_vs_edit_dest via __ip_vs_update_dest).
     *
     * @param upper the new upper threshold, 0 for none.
     * @param lower the new lower threshold, 0 for the 3/4 rule.
     */
    void thresholds(final int upper, final int lower)
    {
        if (upper < 0 || lower < 0)
        {
            throw new IllegalArgumentException("thresholds must not be negative");
        }
        if (upper == 0 || upper > upperThreshold)
        {
            clearFlag(FLAG_OVERLOAD);
        }
        this.upperThreshold = upper;
        this.lowerThreshold = lower;
    }

    /**
     * What ipvsadm -a and -e set, with the last weight mh builds from: kept to put back when an add that took a
     * departed server back is refused.
     */
    record Settings(ForwardMethod forwardMethod, int weight, int lastWeight, int upperThreshold, int lowerThreshold)
    {
    }

    /**
     * @return the current settings.
     */
    Settings settings()
    {
        return new Settings(forwardMethod, weight(), lastWeight, upperThreshold, lowerThreshold);
    }

    /**
     * Puts settings back as they were (control plane only). OVERLOAD, which {@link #thresholds} may have cleared,
     * stays clear: a departed server takes no new connection, and the next bind sets it again if it must.
     */
    void settings(final Settings previous)
    {
        this.forwardMethod = previous.forwardMethod();
        this.lastWeight = previous.lastWeight();
        storeWeight(previous.weight());
        this.upperThreshold = previous.upperThreshold();
        this.lowerThreshold = previous.lowerThreshold();
    }

    /**
     * A slot the service's scheduler may use as a compact identifier for this server (lblc and lblcr
     * store it in their shared tables instead of a reference).
     *
     * @return the slot, 0 when unassigned.
     */
    public int schedulerSlot()
    {
        return schedulerSlot;
    }

    /**
     * @param slot the identifier the scheduler gave this server.
     */
    public void schedulerSlot(final int slot)
    {
        this.schedulerSlot = slot;
    }

    /**
     * The slot the data plane knows this server by (connection entries and counters refer to it).
     *
     * @return the slot, 0 when none has been given yet.
     */
    public int forwardingSlot()
    {
        return forwardingSlot;
    }

    /**
     * @param slot the slot the data plane gave this server.
     */
    public void forwardingSlot(final int slot)
    {
        this.forwardingSlot = slot;
    }

    /**
     * The service object this server was last added to, as the kernel's {@code dest->svc}. It changes only when a
     * service created again under the key of a deleted one takes the server back ({@code ipvsadm -D} then
     * {@code -A} and {@code -a}, or {@code -C} then {@code -R}); being added back to its own service leaves it. The
     * traffic figures start again when it changes, as {@code __ip_vs_update_dest} zeroes a destination's stats when
     * {@code old_svc != svc}.
     *
     * @return the service, or null before the server's first add.
     */
    public VirtualService service()
    {
        return service;
    }

    void service(final VirtualService service)
    {
        this.service = service;
    }

    /**
     * For passes over many servers that read each one's counters and nothing else: the slot's address, laid out as
     * {@link ConnectionCountersDescriptor} says (its flags and weight in line 0, worker w's counts in line w). The
     * memory lives as long as the server.
     *
     * @return the address of the slot's first line.
     */
    public long countersAddress()
    {
        return countersAddress;
    }

    /**
     * @return how many workers count this server's connections (its slot has a line for each).
     */
    public int workers()
    {
        return workers;
    }

    /**
     * @return the active connections, all workers' together.
     */
    public int activeConnections()
    {
        int active = 0;
        for (int w = 0; w < workers; w++)
        {
            active += UnsafeApi.getIntOpaque(null, workerLine(w) + ACTIVE_OFFSET);
        }
        return active;
    }

    /**
     * @return the inactive connections, all workers' together.
     */
    public int inactiveConnections()
    {
        int inactive = 0;
        for (int w = 0; w < workers; w++)
        {
            inactive += UnsafeApi.getIntOpaque(null, workerLine(w) + INACTIVE_OFFSET);
        }
        return inactive;
    }

    public int persistentConnections()
    {
        return UnsafeApi.getIntVolatile(null, countersAddress + PERSISTENT_OFFSET);
    }

    /**
     * @return active plus inactive connections, the total the thresholds compare (templates not counted).
     */
    public int totalConnections()
    {
        return activeConnections() + inactiveConnections();
    }

    /**
     * The load the least-connection schedulers compare: {@code 256 * active + inactive}
     * (the kernel's ip_vs_dest_conn_overhead).
     *
     * @return the overhead.
     */
    public long overhead()
    {
        return overheadAt(countersAddress, workers);
    }

    /**
     * {@link #overhead()} of the server whose slot is at {@code countersAddress}, for passes that hold the slots'
     * addresses rather than the servers.
     *
     * @param countersAddress the slot's {@link #countersAddress()}.
     * @param workers         the server's {@link #workers()}.
     * @return the overhead.
     */
    public static long overheadAt(final long countersAddress, final int workers)
    {
        final long firstLine = countersAddress + ConnectionCountersDescriptor.workerLineOffset(0);
        if (workers == 1)
        {
            return overheadOf(UnsafeApi.getLongOpaque(null, firstLine + ACTIVE_OFFSET));
        }
        long overhead = 0;
        for (int w = 0; w < workers; w++)
        {
            // A worker's active and inactive counts share one aligned 8-byte word: one read gives a consistent pair.
            // Opaque, as the kernel's atomic_read: the scan needs each count's latest value, not an order among
            // them, and acquire reads would keep the compiler from overlapping the reads of a least-connection pass.
            overhead += overheadOf(UnsafeApi.getLongOpaque(null, firstLine + (long)w * LINE_LENGTH + ACTIVE_OFFSET));
        }
        return overhead;
    }

    /**
     * {@link #activeConnections()} of the server whose slot is at {@code countersAddress}, summed without wrapping, for
     * passes that hold the slots' addresses rather than the servers.
     *
     * @param countersAddress the slot's {@link #countersAddress()}.
     * @param workers         the server's {@link #workers()}.
     * @return the active connections, all workers' together.
     */
    public static long activeAt(final long countersAddress, final int workers)
    {
        final long firstLine = countersAddress + ConnectionCountersDescriptor.workerLineOffset(0);
        long active = 0;
        for (int w = 0; w < workers; w++)
        {
            // Opaque, as overheadAt reads the counts.
            active += UnsafeApi.getIntOpaque(null, firstLine + (long)w * LINE_LENGTH + ACTIVE_OFFSET) & 0xFFFF_FFFFL;
        }
        return active;
    }

    private static long overheadOf(final long both)
    {
        // Counts are never negative: read as unsigned, each half is one instruction (no sign extension), which a
        // least-connection pass does once a server.
        final long active = LITTLE_ENDIAN ? both & 0xFFFF_FFFFL : both >>> 32;
        final long inactive = LITTLE_ENDIAN ? both >>> 32 : both & 0xFFFF_FFFFL;
        return (active << 8) + inactive;
    }

    private long workerLine(final int worker)
    {
        return workersAddress + (long)worker * LINE_LENGTH;
    }

    private static int activeOf(final long both)
    {
        return LITTLE_ENDIAN ? (int)both : (int)(both >>> 32);
    }

    private static int inactiveOf(final long both)
    {
        return LITTLE_ENDIAN ? (int)(both >>> 32) : (int)both;
    }

    /**
     * @return true while the server belongs to its service.
     */
    public boolean isAvailable()
    {
        return (flags() & FLAG_AVAILABLE) != 0;
    }

    /**
     * @return true while the connection thresholds hold the server back.
     */
    public boolean isOverloaded()
    {
        return (flags() & FLAG_OVERLOAD) != 0;
    }

    /**
     * @return true while the server is in its service and not held back by its thresholds (one read).
     */
    public boolean isAvailableAndNotOverloaded()
    {
        return (flags() & (FLAG_AVAILABLE | FLAG_OVERLOAD)) == FLAG_AVAILABLE;
    }

    /**
     * @return true when a scheduler may give this server a new connection: weight above 0 and not overloaded.
     */
    public boolean isUsable()
    {
        return weight() > 0 && (flags() & FLAG_OVERLOAD) == 0;
    }

    void available(final boolean available)
    {
        if (available)
        {
            setFlag(FLAG_AVAILABLE);
        }
        else
        {
            clearFlag(FLAG_AVAILABLE);
        }
    }

    /**
     * Counts a new connection of worker 0 (single-threaded users, see the class comment).
     *
     * @param inactive true for a connection that starts inactive (UDP, or TCP before it is active).
     */
    public void bindConnection(final boolean inactive)
    {
        bindConnection(0, inactive);
    }

    /**
     * Counts a new connection (the kernel's ip_vs_bind_dest) and sets OVERLOAD when the total
     * reaches the upper threshold.
     *
     * @param worker   the worker whose table holds the connection, 0..{@link #workers()} - 1.
     * @param inactive true for a connection that starts inactive (UDP, or TCP before it is active).
     */
    public void bindConnection(final int worker, final boolean inactive)
    {
        add(worker, inactive ? INACTIVE_OFFSET : ACTIVE_OFFSET, 1);
        final int upper = upperThreshold;
        if (upper != 0 && totalConnections() >= upper)
        {
            setFlag(FLAG_OVERLOAD);
        }
    }

    /**
     * Uncounts a connection of worker 0 (single-threaded users, see the class comment).
     *
     * @param inactive whether the connection was counted as inactive when it ended.
     */
    public void unbindConnection(final boolean inactive)
    {
        unbindConnection(0, inactive);
    }

    /**
     * Uncounts a connection that ended (the kernel's ip_vs_unbind_dest) and clears OVERLOAD with the
     * hysteresis of ip_vs_unbind_dest.
     *
     * @param worker   the worker whose table held the connection.
     * @param inactive whether the connection was counted as inactive when it ended.
     */
    public void unbindConnection(final int worker, final boolean inactive)
    {
        add(worker, inactive ? INACTIVE_OFFSET : ACTIVE_OFFSET, -1);
        if ((flags() & FLAG_OVERLOAD) == 0)
        {
            return;
        }
        final int lower = lowerThreshold;
        final int upper = upperThreshold;
        final long total = totalConnections();
        final boolean clear;
        if (lower != 0)
        {
            clear = total < lower;
        }
        else if (upper != 0)
        {
            clear = total * 4 < (long)upper * 3;
        }
        else
        {
            clear = true;
        }
        if (clear)
        {
            clearFlag(FLAG_OVERLOAD);
        }
    }

    /**
     * Moves one connection of worker 0 from inactive to active (single-threaded users).
     */
    public void connectionActivated()
    {
        connectionActivated(0);
    }

    /**
     * Moves one connection from inactive to active (a TCP connection entering an active state).
     *
     * @param worker the worker whose table holds the connection.
     */
    public void connectionActivated(final int worker)
    {
        add(worker, INACTIVE_OFFSET, -1);
        add(worker, ACTIVE_OFFSET, 1);
    }

    /**
     * Moves one connection of worker 0 from active to inactive (single-threaded users).
     */
    public void connectionDeactivated()
    {
        connectionDeactivated(0);
    }

    /**
     * Moves one connection from active to inactive.
     *
     * @param worker the worker whose table holds the connection.
     */
    public void connectionDeactivated(final int worker)
    {
        add(worker, ACTIVE_OFFSET, -1);
        add(worker, INACTIVE_OFFSET, 1);
    }

    /**
     * Changes one of a worker's counts: only that worker writes its line, so a plain read and an opaque store do
     * (no lock, no fence), and other threads' opaque reads see the new value as the kernel's atomic_read would.
     */
    private void add(final int worker, final int field, final int delta)
    {
        if (worker < 0 || worker >= workers)
        {
            // A worker index the slot has no line for would write into another server's counters.
            throw new IllegalArgumentException("worker " + worker + " of " + workers + " counting " + this);
        }
        final long at = workerLine(worker) + field;
        UnsafeApi.putIntOpaque(null, at, UnsafeApi.getInt(null, at) + delta);
    }

    /**
     * Counts a persistence template pointing at this server.
     */
    public void bindTemplate()
    {
        counters.getAndAddInt(countersOffset + PERSISTENT_OFFSET, 1);
    }

    /**
     * Uncounts a persistence template.
     */
    public void unbindTemplate()
    {
        counters.getAndAddInt(countersOffset + PERSISTENT_OFFSET, -1);
    }

    private int flags()
    {
        // Opaque, as overhead() reads the counts: a scheduler needs the latest flags, not an order with other reads.
        return UnsafeApi.getIntOpaque(null, countersAddress + FLAGS_OFFSET);
    }

    private void setFlag(final int flag)
    {
        final int index = countersOffset + FLAGS_OFFSET;
        int flags;
        do
        {
            flags = counters.getIntVolatile(index);
            if ((flags & flag) != 0)
            {
                return;
            }
        }
        while (!counters.compareAndSetInt(index, flags, flags | flag));
    }

    private void clearFlag(final int flag)
    {
        final int index = countersOffset + FLAGS_OFFSET;
        int flags;
        do
        {
            flags = counters.getIntVolatile(index);
            if ((flags & flag) == 0)
            {
                return;
            }
        }
        while (!counters.compareAndSetInt(index, flags, flags & ~flag));
    }

    /**
     * @return {@code address:port} as ipvsadm writes it, IPv6 in brackets.
     */
    @Override
    public String toString()
    {
        return address.toBracketedString() + ":" + port;
    }
}
