package io.jvs.core.pipeline;

/**
 * A burst of frames handed from a port to the pipeline and back: where each frame is, how much room it
 * has, when it arrived, and (after processing) its verdict. Struct of arrays, reused for every burst.
 * <p>
 * A frame may grow in place: {@code headroom} bytes before its address and {@code capacity} bytes from
 * its address are the port's to lend (encapsulation prepends a header; an ICMP answer is built in the
 * frame it answers). The pipeline updates {@code address} and {@code length} when it does.
 */
public final class FrameBurst
{
    /** The largest burst. */
    public static final int MAX_FRAMES = 256;

    public final long[] address = new long[MAX_FRAMES];
    public final int[] length = new int[MAX_FRAMES];
    public final int[] capacity = new int[MAX_FRAMES];
    public final int[] headroom = new int[MAX_FRAMES];
    public final long[] receiveTimeNs = new long[MAX_FRAMES];
    /** A firewall mark set by whoever classified the frame before the pipeline, 0 for none. */
    public final int[] firewallMark = new int[MAX_FRAMES];
    /** Set by the pipeline: see {@link io.jvs.core.packet.Verdict}. */
    public final int[] verdict = new int[MAX_FRAMES];
    /** The receiving port's own reference to the frame's buffer (a UMEM offset, a ring slot), opaque to others. */
    public final long[] handle = new long[MAX_FRAMES];
    /**
     * Set by a transmitting port that kept the frame's buffer itself (zero-copy, e.g. a shared UMEM): the
     * receiving port must then not take it back when the burst is released.
     */
    public final boolean[] taken = new boolean[MAX_FRAMES];
    /** The port the burst came from (answers to the sender go back out of it). */
    public int ingressPort;
    public int count;

    /**
     * Empties the burst for reuse.
     */
    public void clear()
    {
        count = 0;
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
        address[i] = frameAddress;
        length[i] = frameLength;
        capacity[i] = Math.max(frameCapacity, frameLength);
        headroom[i] = frameHeadroom;
        receiveTimeNs[i] = receivedNs;
        firewallMark[i] = 0;
        verdict[i] = 0;
        handle[i] = frameHandle;
        taken[i] = false;
        count = i + 1;
        return i;
    }
}
