package io.jvs.forwarder.synth;

/**
 * The flows open at one moment of the trace, one slot each, held in primitive arrays: the synthesizer picks
 * a slot at random for every packet, so flows interleave the way a busy link interleaves them.
 * <p>
 * Each flow knows from its start how many frames it will send; the table keeps the sum still owed, so the
 * synthesizer can stop opening flows in time for every one to finish inside the trace.
 */
final class FlowTable
{
    static final int FREE = 0;
    static final int TCP = 1;
    static final int UDP = 2;

    final int[] kind;
    final int[] client;
    final int[] service;
    final int[] port;
    /** Frames sent so far. */
    final int[] sent;
    /** Frames the flow sends in all. */
    final int[] length;
    /** TCP: data segments; UDP: datagrams. */
    final int[] units;
    /** TCP: the client's next sequence number; UDP: datagrams sent. */
    final int[] sequence;
    /** TCP: the client's acknowledgement number, the service's next sequence number. */
    final int[] acknowledgement;
    /** TCP: ends with RST; UDP: bit i set when datagram i is large. */
    final int[] variant;
    private final int capacity;
    private long owed;
    private int open;

    FlowTable(final int capacity)
    {
        this.capacity = capacity;
        kind = new int[capacity];
        client = new int[capacity];
        service = new int[capacity];
        port = new int[capacity];
        sent = new int[capacity];
        length = new int[capacity];
        units = new int[capacity];
        sequence = new int[capacity];
        acknowledgement = new int[capacity];
        variant = new int[capacity];
    }

    int capacity()
    {
        return capacity;
    }

    /**
     * @return frames the open flows have still to send.
     */
    long owed()
    {
        return owed;
    }

    int open()
    {
        return open;
    }

    boolean isFree(final int slot)
    {
        return kind[slot] == FREE;
    }

    void open(final int slot, final int flowKind, final int flowClient, final int flowService, final int flowPort,
        final int frames)
    {
        kind[slot] = flowKind;
        client[slot] = flowClient;
        service[slot] = flowService;
        port[slot] = flowPort;
        sent[slot] = 0;
        length[slot] = frames;
        owed += frames;
        open++;
    }

    /**
     * Counts frames sent; the flow's slot is freed with its last one.
     *
     * @return true when that was the flow's last frame.
     */
    boolean sent(final int slot, final int frames)
    {
        sent[slot] += frames;
        owed -= frames;
        if (sent[slot] < length[slot])
        {
            return false;
        }
        kind[slot] = FREE;
        open--;
        return true;
    }

    /**
     * @return the first open slot from the given one on, wrapping; -1 when none is open.
     */
    int nextOpen(final int from)
    {
        if (open == 0)
        {
            return -1;
        }
        int slot = from;
        while (kind[slot] == FREE)
        {
            slot = slot + 1 == capacity ? 0 : slot + 1;
        }
        return slot;
    }
}
