package io.jvs.forwarder.port;

import io.jvs.core.pipeline.FrameBurst;

/**
 * Where a worker's frames come from and go to: an AF_XDP socket, an AF_PACKET ring, a pcap file or live
 * interface, or synthetic memory. A port is polled by one worker thread and is not thread-safe.
 * <p>
 * A burst's life: {@link #receive} appends frames, each with the port's {@linkplain FrameBurst#handle handle}
 * on its buffer; the pipeline processes them; the worker hands the frames to transmit to their egress
 * port's {@link #transmit}, which either keeps the buffer itself (zero-copy: it sets
 * {@linkplain FrameBurst#taken taken}) or copies the frame into its own; finally the receiving port's
 * {@link #release} takes back every buffer of the burst not taken. {@link #flush} pushes queued
 * transmissions to the kernel and reaps completed ones.
 * <p>
 * The per-burst methods make at most one system call each and allocate nothing.
 */
public interface Port extends AutoCloseable
{
    /**
     * @return this port's number, the one a {@link io.jvs.core.packet.Verdict#transmit(int)} verdict names.
     */
    int index();

    /**
     * @return what the port is, for logs and reports, e.g. "afxdp:veth0/0".
     */
    String name();

    /**
     * Appends received frames to the burst, as many as have arrived and fit.
     *
     * @param burst where to append; its {@link FrameBurst#ingressPort} is left to the caller.
     * @param nowNs the receive time to give the frames, from the caller's clock.
     * @return how many frames were appended.
     */
    int receive(FrameBurst burst, long nowNs);

    /**
     * Queues frames of a burst for transmission on this port.
     *
     * @param burst   the burst, after processing.
     * @param indices which of its frames to send.
     * @param count   how many entries of {@code indices} to use.
     * @return how many were queued; the others were dropped (ring full) and counted.
     */
    int transmit(FrameBurst burst, int[] indices, int count);

    /**
     * Takes back the buffers of every frame of the burst that this port received and no port took.
     *
     * @param burst a burst this port's {@link #receive} filled.
     */
    void release(FrameBurst burst);

    /**
     * Pushes queued transmissions to the kernel and recycles the buffers of completed ones.
     */
    void flush();

    /**
     * @return whether frames queued for transmission are still waiting for the kernel to take them (a kick it
     *         refused, or one that took only some): the worker flushes again soon rather than sleep on them.
     */
    default boolean transmitPending()
    {
        return false;
    }

    /**
     * @return the port's counters, kernel statistics refreshed by {@link PortCounters#refresh}.
     */
    PortCounters counters();

    /**
     * Releases the port's kernel resources (rings, sockets, programs). Safe to call twice.
     */
    @Override
    void close();
}
