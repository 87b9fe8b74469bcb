package io.jvs.core.pipeline;

import io.jvs.core.conn.ConnectionTable;

/**
 * Where a worker's established connections may be forwarded outside the pipeline, frame by frame, without the
 * frames reaching it: the kernel's XDP program in the daemon (an XdpFlowTable), nowhere offline. The pipeline
 * offers an IPv4 NAT or DR connection of a service without persistence once it is established (TCP) or has a
 * connection (UDP) and one of its frames took the established fast path; it withdraws the connection as soon as
 * one of its frames reaches the general path (a SYN, FIN or RST, a frame too big or with a TTL of 1: something only
 * the pipeline does), when the entry leaves the table, and when a snapshot no longer describes it as it did. Between
 * the two, the offload's owner tells the pipeline what the frames it forwarded did
 * ({@link Pipeline#offloadedTraffic}), so that the connection's timer and the servers' and services' counters are
 * those of the frames' passing through it. Called on the worker's thread only, after a burst, never per frame.
 */
public interface ConnectionOffload
{
    /** No offload: every frame goes through the pipeline. */
    ConnectionOffload NONE = new ConnectionOffload()
    {
        @Override
        public boolean offer(final ConnectionTable table, final int slot, final OffloadedConnection connection)
        {
            return false;
        }

        @Override
        public void withdraw(final ConnectionTable table, final int slot)
        {
        }
    };

    /**
     * @return whether connections may be offered now (asked once a burst): an offload whose frames could not leave
     *         (no egress takes them now) says no, and the pipeline spares each frame the offer.
     */
    default boolean offering()
    {
        return true;
    }

    /**
     * Forwards the connection's frames from now on, as {@code connection} describes them; again, with a description
     * that may differ, after a new snapshot.
     *
     * @param table      the worker's IPv4 table.
     * @param slot       the connection's entry.
     * @param connection what its frames become, in each direction; read during the call only.
     * @return whether they are forwarded (false: the table is full, a call was refused; frames keep coming).
     */
    boolean offer(ConnectionTable table, int slot, OffloadedConnection connection);

    /**
     * Forwards no more of the connection's frames: they come to the pipeline again. What the offload forwarded
     * until now is told ({@link Pipeline#offloadedTraffic}) before this returns.
     */
    void withdraw(ConnectionTable table, int slot);
}
