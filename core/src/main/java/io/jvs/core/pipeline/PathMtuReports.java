package io.jvs.core.pipeline;

/**
 * Path MTUs one worker learnt towards real servers, from the fragmentation-needed errors routers beyond jvs sent
 * about its tunnelled packets: the worker drains them after each burst and passes them to the conductor, which keeps
 * each for a while and lowers the server's MTU in the snapshots it builds, as the kernel's IPVS keeps what such an
 * error tells in a route exception (ip_vs_in_icmp calls ipv4_update_pmtu; the exception lasts
 * net.ipv4.route.mtu_expires, ten minutes). Later packets to that server are then held to it by jvs itself, as they
 * are by the kernel's ensure_mtu_is_adequate, rather than each client's first large packet being lost beyond jvs.
 * <p>
 * A fixed ring of IPv4 addresses (IP-in-IP tunnels run over IPv4), written and drained by its worker only: no locks,
 * no allocation. When the ring is full a report is dropped: the router's next error reports it again.
 */
public final class PathMtuReports
{
    /** Told each report by {@link #drain}. */
    @FunctionalInterface
    public interface Sink
    {
        /**
         * @param server the real server's IPv4 address.
         * @param mtu    the path MTU towards it, IP header included.
         */
        void learnt(int server, int mtu);
    }

    /** How many reports wait for a drain at most. */
    static final int CAPACITY = 16;
    private static final int MASK = CAPACITY - 1;

    private final int[] servers = new int[CAPACITY];
    private final int[] mtus = new int[CAPACITY];
    private long head;
    private long tail;

    /**
     * Records a path MTU, dropped when the ring is full.
     *
     * @param server the real server's IPv4 address.
     * @param mtu    the path MTU towards it.
     */
    void record(final int server, final int mtu)
    {
        if (tail - head > MASK)
        {
            return;
        }
        final int index = (int)tail & MASK;
        servers[index] = server;
        mtus[index] = mtu;
        tail++;
    }

    /**
     * Hands every waiting report to the sink, oldest first, and empties the ring.
     *
     * @return how many were handed over.
     */
    public int drain(final Sink sink)
    {
        int drained = 0;
        while (head != tail)
        {
            final int index = (int)head & MASK;
            head++;
            drained++;
            sink.learnt(servers[index], mtus[index]);
        }
        return drained;
    }

    /**
     * @return how many reports wait for a drain.
     */
    public int pending()
    {
        return (int)(tail - head);
    }
}
