package io.jvs.forwarder.daemon;

import io.jvs.core.packet.Frames;
import io.jvs.core.pipeline.FrameBurst;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Frames one worker hands to another: an AF_XDP frame can only arrive on the socket of the queue the NIC put it
 * on, but every frame of a connection must be processed by the worker whose tables hold it
 * ({@link io.jvs.core.pipeline.ClientDispatch}). The receiving worker copies such a frame into a slot here; the
 * owner processes it in the slot, in place (a slot has headroom for an encapsulation), transmits it (its port
 * copies it into its own frame memory) and frees the slot.
 * <p>
 * Single producer, single consumer, fixed-size slots. Ordering as in the AF_XDP rings ({@code XdpRing}): the
 * producer writes slots and their metadata, then publishes its index with a release store, once per burst; the
 * consumer reads the index with an acquire load before reading slots, and hands slots back with a release store
 * of its own index, which the producer reads with acquire before reusing them. The two indexes live on cache
 * lines of their own. Nothing allocates after construction.
 */
final class HandoffRing implements AutoCloseable
{
    static final int SLOT_SIZE = 2048;
    static final int HEADROOM = 256;
    /** The longest frame a slot holds. */
    static final int MAX_FRAME = SLOT_SIZE - HEADROOM;

    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    /** Producer index at [8], consumer index at [24]: 128 bytes apart, clear of each other's cache lines. */
    private static final int PRODUCER = 8;
    private static final int CONSUMER = 24;

    private final Arena arena = Arena.ofShared();
    private final long base;
    private final int mask;
    private final int[] length;
    private final int[] port;
    private final int[] mark;
    private final long[] receivedNs;
    private final long[] indexes = new long[40];

    /** Producer's own view. */
    private long produced;
    private long consumerSeen;
    /** Consumer's own view. */
    private long consumed;
    private long producerSeen;
    private long lent;

    /**
     * @param slots a power of two.
     */
    HandoffRing(final int slots)
    {
        if (slots < 2 || Integer.bitCount(slots) != 1)
        {
            throw new IllegalArgumentException("hand-off ring of " + slots + " slots: not a power of two");
        }
        final MemorySegment region = arena.allocate((long)slots * SLOT_SIZE, 4096);
        this.base = region.address();
        this.mask = slots - 1;
        this.length = new int[slots];
        this.port = new int[slots];
        this.mark = new int[slots];
        this.receivedNs = new long[slots];
    }

    /**
     * Producer: copies a frame into the next free slot (published by {@link #publish}).
     *
     * @return false when the ring is full or the frame too long (the caller counts it as dropped).
     */
    boolean offer(final long address, final int frameLength, final int ingressPort, final int firewallMark,
        final long receiveTimeNs)
    {
        if (frameLength > MAX_FRAME)
        {
            return false;
        }
        if (produced - consumerSeen > mask)
        {
            consumerSeen = (long)LONGS.getAcquire(indexes, CONSUMER);
            if (produced - consumerSeen > mask)
            {
                return false;
            }
        }
        final int slot = (int)produced & mask;
        Frames.copy(address, base + (long)slot * SLOT_SIZE + HEADROOM, frameLength);
        length[slot] = frameLength;
        port[slot] = ingressPort;
        mark[slot] = firewallMark;
        receivedNs[slot] = receiveTimeNs;
        produced++;
        return true;
    }

    /** Producer: makes the frames offered so far visible to the consumer. */
    void publish()
    {
        LONGS.setRelease(indexes, PRODUCER, produced);
    }

    /** Consumer: @return how many frames are published and not yet received. */
    int waiting()
    {
        return (int)((long)LONGS.getAcquire(indexes, PRODUCER) - consumed - lent);
    }

    /** @return whether frames wait (either side may ask; the consumer before it sleeps). */
    boolean hasFrames()
    {
        return (long)LONGS.getAcquire(indexes, PRODUCER) != consumed + lent;
    }

    /**
     * Consumer: appends waiting frames that came in by one port (the first waiting frame's) to the burst, with
     * their slot as handle. They stay lent until {@link #release}.
     *
     * @return how many were appended (all of one ingress port, which the burst is then set to).
     */
    int receive(final FrameBurst burst, final int limit)
    {
        final long next = consumed + lent;
        if (next == producerSeen)
        {
            producerSeen = (long)LONGS.getAcquire(indexes, PRODUCER);
            if (next == producerSeen)
            {
                return 0;
            }
        }
        final int ingress = port[(int)next & mask];
        burst.ingressPort = ingress;
        int taken = 0;
        for (long index = next; index != producerSeen && burst.count < limit; index++)
        {
            final int slot = (int)index & mask;
            if (port[slot] != ingress)
            {
                break;
            }
            final int i = burst.add(base + (long)slot * SLOT_SIZE + HEADROOM, length[slot], MAX_FRAME, HEADROOM,
                receivedNs[slot], slot);
            burst.firewallMark(i, mark[slot]);
            taken++;
        }
        lent += taken;
        return taken;
    }

    /** Consumer: every frame lent by {@link #receive} is done with; their slots go back to the producer. */
    void release()
    {
        consumed += lent;
        lent = 0;
        LONGS.setRelease(indexes, CONSUMER, consumed);
    }

    @Override
    public void close()
    {
        arena.close();
    }
}
