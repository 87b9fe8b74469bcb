package io.jvs.forwarder.port;

import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Arrays;

import static io.jvs.forwarder.port.PortCountersDescriptor.KERNEL_FILL_EMPTY;
import static io.jvs.forwarder.port.PortCountersDescriptor.KERNEL_INVALID;
import static io.jvs.forwarder.port.PortCountersDescriptor.KERNEL_RX_DROPPED;
import static io.jvs.forwarder.port.PortCountersDescriptor.RX_BYTES;
import static io.jvs.forwarder.port.PortCountersDescriptor.RX_FRAMES;
import static io.jvs.forwarder.port.PortCountersDescriptor.TX_BYTES;
import static io.jvs.forwarder.port.PortCountersDescriptor.TX_COPIED;
import static io.jvs.forwarder.port.PortCountersDescriptor.TX_FRAMES;
import static io.jvs.forwarder.port.PortCountersDescriptor.TX_RING_FULL;
import static io.jvs.forwarder.port.PortCountersDescriptor.WAKEUPS;
import static io.jvs.forwarder.port.PortCountersDescriptor.offset;

/**
 * What a port counts, in a buffer laid out by {@link PortCountersDescriptor}: its own traffic, and the kernel's drop
 * statistics for it, which {@link #refresh} reads on demand (a control-path system call, not per burst).
 * <p>
 * Ordering: the polling thread is the one writer of the port's own counts and adds with a plain load and store
 * ({@link #add}); {@link #refresh} is the one writer of the kernel's and stores them with release stores
 * ({@link #setKernel}). Any thread reads with a volatile load ({@link #get}) and may see a count a burst old; an
 * aligned 8-byte access does not tear.
 */
public class PortCounters
{
    /** The counts every port keeps, as {@link #toString} shows them (frames, not bytes). */
    private static final int[] SHOWN = {
        RX_FRAMES, TX_FRAMES, TX_RING_FULL, TX_COPIED, WAKEUPS, KERNEL_RX_DROPPED, KERNEL_FILL_EMPTY, KERNEL_INVALID};

    private final AtomicBuffer buffer;

    /** Counters in a buffer of their own. */
    public PortCounters()
    {
        this(new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            PortCountersDescriptor.LENGTH, PortCountersDescriptor.LINE_LENGTH)));
    }

    /**
     * Counters in a given buffer, such as a port's part of a memory-mapped counters file.
     *
     * @param buffer at least {@link PortCountersDescriptor#LENGTH} bytes; the counts in it are taken as they are.
     */
    public PortCounters(final AtomicBuffer buffer)
    {
        if (buffer.capacity() < PortCountersDescriptor.LENGTH)
        {
            throw new IllegalArgumentException("a port's counters need " + PortCountersDescriptor.LENGTH +
                " bytes, not " + buffer.capacity());
        }
        this.buffer = buffer;
    }

    /** @return the buffer the counts are in, for a reader that maps ids itself. */
    public final AtomicBuffer buffer()
    {
        return buffer;
    }

    /**
     * The polling thread's count: a plain load and store.
     *
     * @param id    a {@link PortCountersDescriptor} id of the port's own counts.
     * @param delta what to add.
     */
    public final void add(final int id, final long delta)
    {
        final int at = offset(id);
        buffer.putLong(at, buffer.getLong(at) + delta);
    }

    /**
     * The kernel's count, as {@link #refresh} read it: a release store (the refresh's thread only).
     *
     * @param id    one of the kernel ids ({@link PortCountersDescriptor#KERNEL_RX_DROPPED}, …).
     * @param value the kernel's figure.
     */
    public final void setKernel(final int id, final long value)
    {
        buffer.putLongOrdered(offset(id), value);
    }

    /**
     * Adds to a kernel count, for statistics the kernel resets on each read: a release store (the refresh's thread
     * only).
     */
    public final void addKernel(final int id, final long delta)
    {
        final int at = offset(id);
        buffer.putLongOrdered(at, buffer.getLong(at) + delta);
    }

    /**
     * @param id a {@link PortCountersDescriptor} id.
     * @return its count (any thread).
     */
    public final long get(final int id)
    {
        return buffer.getLongVolatile(offset(id));
    }

    public final long rxFrames()
    {
        return get(RX_FRAMES);
    }

    public final long rxBytes()
    {
        return get(RX_BYTES);
    }

    public final long txFrames()
    {
        return get(TX_FRAMES);
    }

    public final long txBytes()
    {
        return get(TX_BYTES);
    }

    /** @return frames that could not be queued for transmission: the TX ring was full. */
    public final long txRingFull()
    {
        return get(TX_RING_FULL);
    }

    /** @return frames copied between memories on transmit (zero when every transmit is zero-copy). */
    public final long txCopied()
    {
        return get(TX_COPIED);
    }

    /** @return wake-up system calls made (TX kicks, fill-ring wake-ups, polls). */
    public final long wakeups()
    {
        return get(WAKEUPS);
    }

    /** @return kernel: frames dropped before this port saw them, as of the last {@link #refresh}. */
    public final long kernelRxDropped()
    {
        return get(KERNEL_RX_DROPPED);
    }

    /** @return kernel: receive attempts that found no free buffer, as of the last {@link #refresh}. */
    public final long kernelFillEmpty()
    {
        return get(KERNEL_FILL_EMPTY);
    }

    /** @return kernel: descriptors it rejected as invalid, as of the last {@link #refresh}. */
    public final long kernelInvalid()
    {
        return get(KERNEL_INVALID);
    }

    /**
     * Reads the kernel's statistics into the kernel counts. Ports without kernel statistics do nothing.
     */
    public void refresh()
    {
    }

    /**
     * @return the ids of the counts {@link #toString} shows, in its order: those every port keeps, then a port's own.
     */
    protected int[] shownIds()
    {
        return SHOWN;
    }

    /**
     * Appends a port's own counts to those every port keeps, for {@link #shownIds}.
     */
    protected static int[] shownWith(final int... own)
    {
        final int[] ids = Arrays.copyOf(SHOWN, SHOWN.length + own.length);
        System.arraycopy(own, 0, ids, SHOWN.length, own.length);
        return ids;
    }

    /**
     * @return "name=value" for each count of {@link #shownIds}, under the names of {@link PortCountersDescriptor}
     *         (those of the daemon's status lines).
     */
    @Override
    public String toString()
    {
        final StringBuilder line = new StringBuilder();
        for (final int id : shownIds())
        {
            if (!line.isEmpty())
            {
                line.append(' ');
            }
            line.append(PortCountersDescriptor.name(id)).append('=').append(get(id));
        }
        return line.toString();
    }
}
