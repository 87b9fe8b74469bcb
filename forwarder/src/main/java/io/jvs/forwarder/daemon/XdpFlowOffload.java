package io.jvs.forwarder.daemon;

import io.jvs.core.conn.ConnectionTable;
import io.jvs.core.pipeline.ConnectionOffload;
import io.jvs.core.pipeline.OffloadedConnection;
import io.jvs.core.pipeline.Pipeline;
import io.jvs.nativebindings.bpf.BpfMap;
import io.jvs.nativebindings.bpf.XdpFlowTable;
import org.agrona.UnsafeApi;

import java.util.Arrays;

/**
 * One worker's established connections forwarded by the AF_XDP ports' XDP program ({@link XdpFlowTable}), as its
 * pipeline offers and withdraws them: a NAT connection is two flows (the client's frames and the server's replies),
 * a DR connection one. Each connection the worker offloads takes a pair of the table's stats slots, from the block
 * the worker was given; the counts there are taken in every {@link #FOLD_PERIOD_NS} ({@link #fold}) and at the
 * withdrawal, and told to the pipeline ({@link Pipeline#offloadedTraffic}), which counts them as its own and keeps the
 * connection alive by them. Everything runs on the worker's thread; the map calls (two or four a connection, from
 * native buffers allocated once) come after a burst, never per frame.
 * <p>
 * A frame the program is forwarding on another CPU while its flow is deleted may be counted after the last taking
 * in: at most a few frames of a connection's last instant, which are then not counted.
 */
final class XdpFlowOffload implements ConnectionOffload
{
    /** How often the forwarded frames' counts are taken in: well within the shortest timeout (the kernel's 10 s). */
    static final long FOLD_PERIOD_NS = 500_000_000L;
    private static final int ETHERNET_HEADER = 14;
    private static final int NO_PAIR = -1;

    private final Pipeline pipeline;
    private final BpfMap.Elements flows;
    /** The mapped stats slots: this worker's pair p is at slots first + 2p (inbound) and first + 2p + 1 (outbound). */
    private final long stats;
    private final int firstSlot;
    private final DaemonCounters counters;
    private final int worker;
    /** The connection table slot each pair serves, or {@link #NO_PAIR}. */
    private final int[] slotOfPair;
    /** The pair each IPv4 table slot holds, or {@link #NO_PAIR}. */
    private final int[] pairOfSlot;
    private final int[] freePairs;
    private int freeCount;
    // The flows' keys, by pair: what to delete when the connection is withdrawn, whatever the snapshot says then.
    private final int[] protocol;
    private final int[] client;
    private final int[] clientPort;
    private final int[] virtual;
    private final int[] virtualPort;
    private final int[] server;
    private final int[] serverPort;
    private final boolean[] nat;
    // What the flows' values said last, by pair: a connection offered again under a new snapshot that describes it
    // as before (the usual case: most snapshots change other things) costs no call.
    private final long[] serverMac;
    private final long[] serverSourceMac;
    private final long[] clientMac;
    private final long[] clientSourceMac;
    private final int[] egresses;
    private final int[] mtus;
    /** The counts of each stats slot already told to the pipeline. */
    private final long[] foldedPackets;
    private final long[] foldedBytes;
    private long lastFoldNs;
    /** Whether every port takes redirected frames now (OffloadEgress): new connections are offered only then. */
    private final java.util.function.BooleanSupplier egressTakesFrames;

    /**
     * @param stats     the mapped stats slots ({@link XdpFlowTable#mapStats}).
     * @param firstSlot the first of this worker's stats slots.
     * @param pairs     how many connections this worker may offload (2 * pairs slots from {@code firstSlot}).
     * @param slots     the slots of the pipeline's IPv4 connection table.
     */
    XdpFlowOffload(final Pipeline pipeline, final BpfMap.Elements flows, final XdpFlowTable.FlowStats stats,
        final int firstSlot, final int pairs, final int slots, final DaemonCounters counters, final int worker,
        final java.util.function.BooleanSupplier egressTakesFrames)
    {
        this.egressTakesFrames = egressTakesFrames;
        if ((long)firstSlot + 2L * pairs > stats.slots())
        {
            throw new IllegalArgumentException("stats slots " + firstSlot + " + 2 * " + pairs + " past the table's " +
                stats.slots());
        }
        this.pipeline = pipeline;
        this.flows = flows;
        this.stats = stats.address();
        this.firstSlot = firstSlot;
        this.counters = counters;
        this.worker = worker;
        this.slotOfPair = new int[pairs];
        Arrays.fill(slotOfPair, NO_PAIR);
        this.pairOfSlot = new int[slots];
        Arrays.fill(pairOfSlot, NO_PAIR);
        this.freePairs = new int[pairs];
        for (int p = 0; p < pairs; p++)
        {
            freePairs[p] = pairs - 1 - p;
        }
        this.freeCount = pairs;
        this.protocol = new int[pairs];
        this.client = new int[pairs];
        this.clientPort = new int[pairs];
        this.virtual = new int[pairs];
        this.virtualPort = new int[pairs];
        this.server = new int[pairs];
        this.serverPort = new int[pairs];
        this.nat = new boolean[pairs];
        this.serverMac = new long[pairs];
        this.serverSourceMac = new long[pairs];
        this.clientMac = new long[pairs];
        this.clientSourceMac = new long[pairs];
        this.egresses = new int[pairs];
        this.mtus = new int[pairs];
        this.foldedPackets = new long[2 * pairs];
        this.foldedBytes = new long[2 * pairs];
    }

    @Override
    public boolean offering()
    {
        return egressTakesFrames.getAsBoolean();
    }

    @Override
    public boolean offer(final ConnectionTable table, final int slot, final OffloadedConnection c)
    {
        int pair = pairOfSlot[slot];
        final boolean fresh = pair == NO_PAIR;
        if (fresh)
        {
            if (freeCount == 0)
            {
                counters.add(worker, DaemonCounters.OFFLOAD_REFUSED, 1);
                return false;
            }
            pair = freePairs[--freeCount];
            for (int direction = 0; direction < 2; direction++)
            {
                final int index = 2 * pair + direction;
                foldedPackets[index] = packets(index);
                foldedBytes[index] = bytes(index);
            }
        }
        else if (!sameKeys(pair, c))
        {
            deleteFlows(pair);
        }
        else if (sameValues(pair, c))
        {
            return true;
        }
        protocol[pair] = c.protocol();
        client[pair] = c.client();
        clientPort[pair] = c.clientPort();
        virtual[pair] = c.virtual();
        virtualPort[pair] = c.virtualPort();
        server[pair] = c.server();
        serverPort[pair] = c.serverPort();
        nat[pair] = c.nat();
        serverMac[pair] = c.serverMac();
        serverSourceMac[pair] = c.serverSourceMac();
        clientMac[pair] = c.clientMac();
        clientSourceMac[pair] = c.clientSourceMac();
        egresses[pair] = c.serverEgress() | c.clientEgress() << 16;
        mtus[pair] = c.serverMtu() | c.clientMtu() << 16;
        final int statsSlot = firstSlot + 2 * pair;
        XdpFlowTable.writeKey(flows.key(), c.protocol(), c.client(), c.clientPort(), c.virtual(), c.virtualPort());
        XdpFlowTable.writeValue(flows.value(), c.nat() ? XdpFlowTable.REWRITE_DESTINATION :
            XdpFlowTable.REWRITE_MACS_ONLY, c.virtual(), c.virtualPort(), c.server(), c.serverPort(), c.serverMac(),
            c.serverSourceMac(), c.serverEgress(), c.serverMtu(), statsSlot);
        boolean put = flows.update() == 0;
        if (put && c.nat())
        {
            XdpFlowTable.writeKey(flows.key(), c.protocol(), c.server(), c.serverPort(), c.client(), c.clientPort());
            XdpFlowTable.writeValue(flows.value(), XdpFlowTable.REWRITE_SOURCE, c.server(), c.serverPort(),
                c.virtual(), c.virtualPort(), c.clientMac(), c.clientSourceMac(), c.clientEgress(), c.clientMtu(),
                statsSlot + 1);
            put = flows.update() == 0;
        }
        if (!put)
        {
            // The table is full (E2BIG) or the kernel refused: whatever went in comes out, the frames keep coming.
            deleteFlows(pair);
            if (!fresh)
            {
                fold(table, pair);
            }
            release(slot, pair);
            counters.add(worker, DaemonCounters.OFFLOAD_REFUSED, 1);
            return false;
        }
        if (fresh)
        {
            slotOfPair[pair] = slot;
            pairOfSlot[slot] = pair;
            counters.add(worker, DaemonCounters.OFFLOADED, 1);
        }
        return true;
    }

    @Override
    public void withdraw(final ConnectionTable table, final int slot)
    {
        final int pair = pairOfSlot[slot];
        if (pair == NO_PAIR)
        {
            return;
        }
        deleteFlows(pair);
        fold(table, pair);
        release(slot, pair);
        counters.add(worker, DaemonCounters.OFFLOAD_WITHDRAWN, 1);
    }

    /**
     * Takes in what the program forwarded for every offloaded connection, at most every {@link #FOLD_PERIOD_NS}
     * (the worker's thread, between bursts).
     *
     * @return whether it did.
     */
    boolean fold(final long nowNs)
    {
        if (nowNs - lastFoldNs < FOLD_PERIOD_NS)
        {
            return false;
        }
        lastFoldNs = nowNs;
        final ConnectionTable table = pipeline.connectionsV4();
        for (int pair = 0; pair < slotOfPair.length; pair++)
        {
            if (slotOfPair[pair] != NO_PAIR)
            {
                fold(table, pair);
            }
        }
        return true;
    }

    /** @return how many connections are offloaded now. */
    int offloaded()
    {
        return slotOfPair.length - freeCount;
    }

    private void fold(final ConnectionTable table, final int pair)
    {
        final int slot = slotOfPair[pair];
        for (int direction = 0; direction < (nat[pair] ? 2 : 1); direction++)
        {
            final int index = 2 * pair + direction;
            final long packets = packets(index);
            final long delta = packets - foldedPackets[index];
            if (delta > 0)
            {
                final long bytes = bytes(index) - foldedBytes[index];
                foldedPackets[index] = packets;
                foldedBytes[index] += bytes;
                pipeline.offloadedTraffic(table, slot, direction == 0, delta, bytes, bytes + ETHERNET_HEADER * delta,
                    UnsafeApi.getLongVolatile(null, slotAddress(index) + XdpFlowTable.STATS_LAST_SEEN));
                counters.add(worker, DaemonCounters.OFFLOADED_FRAMES, delta);
            }
        }
    }

    private boolean sameKeys(final int pair, final OffloadedConnection c)
    {
        return protocol[pair] == c.protocol() && client[pair] == c.client() && clientPort[pair] == c.clientPort() &&
            virtual[pair] == c.virtual() && virtualPort[pair] == c.virtualPort() && server[pair] == c.server() &&
            serverPort[pair] == c.serverPort() && nat[pair] == c.nat();
    }

    private boolean sameValues(final int pair, final OffloadedConnection c)
    {
        return serverMac[pair] == c.serverMac() && serverSourceMac[pair] == c.serverSourceMac() &&
            egresses[pair] == (c.serverEgress() | c.clientEgress() << 16) &&
            mtus[pair] == (c.serverMtu() | c.clientMtu() << 16) &&
            (!c.nat() || clientMac[pair] == c.clientMac() && clientSourceMac[pair] == c.clientSourceMac());
    }

    private void deleteFlows(final int pair)
    {
        XdpFlowTable.writeKey(flows.key(), protocol[pair], client[pair], clientPort[pair], virtual[pair],
            virtualPort[pair]);
        flows.delete();
        if (nat[pair])
        {
            XdpFlowTable.writeKey(flows.key(), protocol[pair], server[pair], serverPort[pair], client[pair],
                clientPort[pair]);
            flows.delete();
        }
    }

    private void release(final int slot, final int pair)
    {
        if (pairOfSlot[slot] == pair)
        {
            pairOfSlot[slot] = NO_PAIR;
        }
        slotOfPair[pair] = NO_PAIR;
        freePairs[freeCount++] = pair;
    }

    private long slotAddress(final int index)
    {
        return stats + (long)(firstSlot + index) * XdpFlowTable.STATS_BYTES;
    }

    private long packets(final int index)
    {
        return UnsafeApi.getLongVolatile(null, slotAddress(index) + XdpFlowTable.STATS_PACKETS);
    }

    private long bytes(final int index)
    {
        return UnsafeApi.getLongVolatile(null, slotAddress(index) + XdpFlowTable.STATS_BYTES_COUNTED);
    }
}
