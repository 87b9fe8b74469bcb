package io.jvs.core.pipeline;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;

import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A burst of frames handed from a port to the pipeline and back: where each frame is, how much room it
 * has, when it arrived, and (after processing) its verdict. One record of {@link #RECORD_LENGTH} bytes a frame, off
 * the heap, as {@link io.jvs.core.packet.ParsedBurst} keeps the parse: a port filling the burst and the pipeline
 * reading it hold one address a frame instead of an array base per field, and a frame's descriptor is one cache
 * line. Reused for every burst.
 * <p>
 * A frame may grow in place: {@code headroom} bytes before its address and {@code capacity} bytes from
 * its address are the port's to lend (encapsulation prepends a header; an ICMP answer is built in the
 * frame it answers). The pipeline updates {@code address} and {@code length} when it does. An index outside
 * {@link #MAX_FRAMES} throws, as an array would.
 */
public final class FrameBurst
{
    /** The largest burst. */
    public static final int MAX_FRAMES = 256;
    /** What {@link #commonReceiveTimeNs} gives when the frames arrived at different times, or there are none. */
    public static final long MIXED_RECEIVE_TIMES = Long.MIN_VALUE;

    /** Bytes of one frame's record: one cache line. */
    public static final int RECORD_LENGTH = 64;
    private static final int RECORD_SHIFT = 6;

    private static final int ADDRESS = 0;
    private static final int HANDLE = 8;
    private static final int RECEIVE_TIME = 16;
    private static final int LENGTH = 24;
    private static final int CAPACITY = 28;
    private static final int HEADROOM = 32;
    private static final int FIREWALL_MARK = 36;
    private static final int VERDICT = 40;
    private static final int TAKEN = 44;

    /** Holds the records' memory for as long as this burst lives. */
    private final ByteBuffer memory = BufferUtil.allocateDirectAligned(MAX_FRAMES * RECORD_LENGTH, RECORD_LENGTH);
    private final long base = BufferUtil.address(memory);

    /** The port the burst came from (answers to the sender go back out of it). */
    public int ingressPort;
    public int count;
    /**
     * The receive time all of the burst's frames share, or {@link #MIXED_RECEIVE_TIMES}: kept as frames are added and
     * their times set, so that recording the latency of a burst whose frames one poll found (every burst of the
     * daemon's and of the benchmark) takes one histogram update instead of a pass over the frames' records.
     */
    private long commonReceiveNs = MIXED_RECEIVE_TIMES;

    private long record(final int i)
    {
        return base + ((long)Objects.checkIndex(i, MAX_FRAMES) << RECORD_SHIFT);
    }

    /**
     * Empties the burst for reuse.
     */
    public void clear()
    {
        count = 0;
        commonReceiveNs = MIXED_RECEIVE_TIMES;
    }

    /**
     * Appends a frame.
     *
     * @param frameAddress  the frame's first byte.
     * @param frameLength   its length.
     * @param frameCapacity bytes usable from its first byte (at least its length).
     * @param frameHeadroom bytes usable before its first byte.
     * @param receivedNs    when it arrived, on the pipeline's clock.
     * @return its index in the burst.
     */
    public int add(
        final long frameAddress, final int frameLength, final int frameCapacity, final int frameHeadroom,
        final long receivedNs)
    {
        return add(frameAddress, frameLength, frameCapacity, frameHeadroom, receivedNs, 0);
    }

    /**
     * Appends a frame a port will want back.
     *
     * @param frameHandle the port's reference to the frame's buffer.
     * @return its index in the burst.
     * @see #add(long, int, int, int, long)
     */
    public int add(
        final long frameAddress, final int frameLength, final int frameCapacity, final int frameHeadroom,
        final long receivedNs, final long frameHandle)
    {
        final int i = count;
        if (i == MAX_FRAMES)
        {
            throw new IllegalStateException("burst is full");
        }
        final long record = base + ((long)i << RECORD_SHIFT);
        UnsafeApi.putLong(record + ADDRESS, frameAddress);
        UnsafeApi.putLong(record + HANDLE, frameHandle);
        UnsafeApi.putLong(record + RECEIVE_TIME, receivedNs);
        UnsafeApi.putInt(record + LENGTH, frameLength);
        UnsafeApi.putInt(record + CAPACITY, Math.max(frameCapacity, frameLength));
        UnsafeApi.putInt(record + HEADROOM, frameHeadroom);
        UnsafeApi.putInt(record + FIREWALL_MARK, 0);
        UnsafeApi.putInt(record + VERDICT, 0);
        UnsafeApi.putByte(record + TAKEN, (byte)0);
        if (i == 0)
        {
            commonReceiveNs = receivedNs;
        }
        else if (receivedNs != commonReceiveNs)
        {
            commonReceiveNs = MIXED_RECEIVE_TIMES;
        }
        count = i + 1;
        return i;
    }

    /** The frame's first byte. */
    public long address(final int i)
    {
        return UnsafeApi.getLong(record(i) + ADDRESS);
    }

    public void address(final int i, final long address)
    {
        UnsafeApi.putLong(record(i) + ADDRESS, address);
    }

    public int length(final int i)
    {
        return UnsafeApi.getInt(record(i) + LENGTH);
    }

    public void length(final int i, final int length)
    {
        UnsafeApi.putInt(record(i) + LENGTH, length);
    }

    /** Bytes usable from the frame's first byte. */
    public int capacity(final int i)
    {
        return UnsafeApi.getInt(record(i) + CAPACITY);
    }

    public void capacity(final int i, final int capacity)
    {
        UnsafeApi.putInt(record(i) + CAPACITY, capacity);
    }

    /** Bytes usable before the frame's first byte. */
    public int headroom(final int i)
    {
        return UnsafeApi.getInt(record(i) + HEADROOM);
    }

    public void headroom(final int i, final int headroom)
    {
        UnsafeApi.putInt(record(i) + HEADROOM, headroom);
    }

    /** When the frame arrived, on the pipeline's clock. */
    public long receiveTimeNs(final int i)
    {
        return UnsafeApi.getLong(record(i) + RECEIVE_TIME);
    }

    public void receiveTimeNs(final int i, final long receivedNs)
    {
        UnsafeApi.putLong(record(i) + RECEIVE_TIME, receivedNs);
        if (receivedNs != commonReceiveNs)
        {
            // Whether the other frames have the new time too is not known without looking at them: mixed, which only
            // costs the latency recording its pass over the frames.
            commonReceiveNs = i == 0 && count == 1 ? receivedNs : MIXED_RECEIVE_TIMES;
        }
    }

    /**
     * Gives every frame of the burst one receive time (the frames a port's poll found).
     */
    public void receiveTimeNsOfAll(final long receivedNs)
    {
        for (int i = 0; i < count; i++)
        {
            UnsafeApi.putLong(record(i) + RECEIVE_TIME, receivedNs);
        }
        commonReceiveNs = count == 0 ? MIXED_RECEIVE_TIMES : receivedNs;
    }

    /**
     * @return the receive time every frame of the burst has, or {@link #MIXED_RECEIVE_TIMES} when the burst is empty
     *         or its frames' times differ (or may: once {@link #receiveTimeNs(int, long)} has changed one frame's
     *         time, until the burst is emptied or its times are set all at once).
     */
    public long commonReceiveTimeNs()
    {
        return commonReceiveNs;
    }

    /** A firewall mark set by whoever classified the frame before the pipeline, 0 for none. */
    public int firewallMark(final int i)
    {
        return UnsafeApi.getInt(record(i) + FIREWALL_MARK);
    }

    public void firewallMark(final int i, final int mark)
    {
        UnsafeApi.putInt(record(i) + FIREWALL_MARK, mark);
    }

    /** Set by the pipeline: see {@link io.jvs.core.packet.Verdict}. */
    public int verdict(final int i)
    {
        return UnsafeApi.getInt(record(i) + VERDICT);
    }

    public void verdict(final int i, final int verdict)
    {
        UnsafeApi.putInt(record(i) + VERDICT, verdict);
    }

    /** The receiving port's own reference to the frame's buffer (a UMEM offset, a ring slot), opaque to others. */
    public long handle(final int i)
    {
        return UnsafeApi.getLong(record(i) + HANDLE);
    }

    public void handle(final int i, final long handle)
    {
        UnsafeApi.putLong(record(i) + HANDLE, handle);
    }

    /**
     * Set by a transmitting port that kept the frame's buffer itself (zero-copy, e.g. a shared UMEM): the
     * receiving port must then not take it back when the burst is released.
     */
    public boolean taken(final int i)
    {
        return UnsafeApi.getByte(record(i) + TAKEN) != 0;
    }

    public void taken(final int i, final boolean taken)
    {
        UnsafeApi.putByte(record(i) + TAKEN, (byte)(taken ? 1 : 0));
    }
}
