package io.jvs.core.stats;

import org.agrona.BufferUtil;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Objects;

import static io.jvs.core.stats.TrafficStatsDescriptor.CONNECTIONS;
import static io.jvs.core.stats.TrafficStatsDescriptor.FRAMES;
import static io.jvs.core.stats.TrafficStatsDescriptor.FRAME_BYTES;
import static io.jvs.core.stats.TrafficStatsDescriptor.IN_BYTES;
import static io.jvs.core.stats.TrafficStatsDescriptor.IN_PACKETS;
import static io.jvs.core.stats.TrafficStatsDescriptor.OUT_BYTES;
import static io.jvs.core.stats.TrafficStatsDescriptor.OUT_PACKETS;
import static io.jvs.core.stats.TrafficStatsDescriptor.SLOT_LENGTH;

/**
 * One worker's IPVS-style traffic counters per service slot and per real-server slot, laid out by
 * {@link TrafficStatsDescriptor} in two buffers.
 * <p>
 * Ordering: one writer, the worker, which adds with plain reads and stores and calls {@link #publish} after each
 * burst: a release fence, so that everything the burst counted is ordered before whatever the worker writes next
 * (a release store per packet would cost a compiler barrier on every packet, forcing the pipeline to reload what
 * it had in registers). Any other thread reads with a volatile load and may see a value a burst old. An aligned
 * 8-byte access does not tear on a 64-bit JVM, so a reader never sees half an update. Nothing is ever reset: a reader that wants zeroed
 * counters keeps a baseline and subtracts it, as the kernel's {@code ip_vs_zero_stats} does with its
 * {@code kstats0}, because the writer's read-add-store would undo a reset made by another thread.
 */
public final class TrafficStats
{
    private final UnsafeBuffer services;
    private final UnsafeBuffer servers;
    private final int serviceSlots;
    private final int serverSlots;
    /** The buffers' first bytes: the writer adds at an address checked once per call against the slot counts. */
    private final long servicesAddress;
    private final long serversAddress;

    /**
     * @param serviceSlots how many service slots the pipeline has.
     * @param serverSlots  how many real-server slots.
     */
    public TrafficStats(final int serviceSlots, final int serverSlots)
    {
        this.serviceSlots = serviceSlots;
        this.serverSlots = serverSlots;
        this.services = new UnsafeBuffer(BufferUtil.allocateDirectAligned(serviceSlots * SLOT_LENGTH, SLOT_LENGTH));
        this.servers = new UnsafeBuffer(BufferUtil.allocateDirectAligned(serverSlots * SLOT_LENGTH, SLOT_LENGTH));
        this.servicesAddress = services.addressOffset();
        this.serversAddress = servers.addressOffset();
    }

    /** A new connection to {@code server} of {@code service} (the writer only). */
    public void connection(final int service, final int server)
    {
        add(serviceLine(service) + CONNECTIONS * Long.BYTES, 1);
        add(serverLine(server) + CONNECTIONS * Long.BYTES, 1);
    }

    /**
     * A client's frame sent on to {@code server}: jvs's frame counts of both slots, without IPVS's, which {@link #in}
     * counts when the packet is bound to its connection, whether or not its frame leaves (the writer only).
     *
     * @param frameBytes its Ethernet frame's length.
     */
    public void framesForwarded(final int service, final int server, final int frameBytes)
    {
        count(serviceLine(service), FRAMES, FRAME_BYTES, frameBytes);
        count(serverLine(server), FRAMES, FRAME_BYTES, frameBytes);
    }

    /**
     * A client's frame forwarded to {@code server}: {@link #in}'s and {@link #framesForwarded}'s counts of the
     * server's slot alone (the writer only), for a caller that counts the service's with {@link #serviceForwarded}
     * once for a run of frames.
     */
    public void serverForwarded(final int server, final int bytes, final int frameBytes)
    {
        final long serverLine = serverLine(server);
        count(serverLine, IN_PACKETS, IN_BYTES, bytes);
        count(serverLine, FRAMES, FRAME_BYTES, frameBytes);
    }

    /**
     * {@code packets} client frames forwarded for {@code service}: {@link #in}'s and {@link #framesForwarded}'s counts
     * of the service's slot for all of them at once (the writer only). Nothing when {@code packets} is 0, whatever
     * the slot.
     *
     * @param bytes      their IP datagrams' length.
     * @param frameBytes their Ethernet frames' length.
     */
    public void serviceForwarded(final int service, final int packets, final long bytes, final long frameBytes)
    {
        if (packets != 0)
        {
            final long serviceLine = serviceLine(service);
            add(serviceLine + IN_PACKETS * Long.BYTES, packets);
            add(serviceLine + IN_BYTES * Long.BYTES, bytes);
            add(serviceLine + FRAMES * Long.BYTES, packets);
            add(serviceLine + FRAME_BYTES * Long.BYTES, frameBytes);
        }
    }

    /**
     * A packet from a client to {@code server}, IPVS's counts only (the writer only): counted when it is bound to its
     * connection, as ip_vs_in_stats counts it before the transmit, which may yet drop it.
     *
     * @param bytes its IP datagram's length.
     */
    public void in(final int service, final int server, final int bytes)
    {
        packet(service, server, IN_PACKETS, IN_BYTES, bytes);
    }

    /** A frame of one of {@code server}'s connections, in jvs's frame counts of the server alone (the writer only). */
    public void serverFrame(final int server, final int frameBytes)
    {
        count(serverLine(server), FRAMES, FRAME_BYTES, frameBytes);
    }

    /**
     * Frames of one of {@code server}'s connections forwarded outside the pipeline (an offloaded connection), counted
     * as the pipeline's fast loop counts those it forwards itself (the writer only): a client's in both slots' IPVS
     * and frame counts, a server's reply in both slots' IPVS counts and the server's frame counts.
     *
     * @param towardsServer the client's frames, not the server's replies.
     * @param bytes         their IP datagrams' length.
     * @param frameBytes    their Ethernet frames' length.
     */
    public void offloaded(final int service, final int server, final boolean towardsServer, final long packets,
        final long bytes, final long frameBytes)
    {
        final long serviceLine = serviceLine(service);
        final long serverLine = serverLine(server);
        final int packetField = towardsServer ? IN_PACKETS : OUT_PACKETS;
        final int byteField = towardsServer ? IN_BYTES : OUT_BYTES;
        add(serviceLine + packetField * Long.BYTES, packets);
        add(serviceLine + byteField * Long.BYTES, bytes);
        add(serverLine + packetField * Long.BYTES, packets);
        add(serverLine + byteField * Long.BYTES, bytes);
        add(serverLine + FRAMES * Long.BYTES, packets);
        add(serverLine + FRAME_BYTES * Long.BYTES, frameBytes);
        if (towardsServer)
        {
            add(serviceLine + FRAMES * Long.BYTES, packets);
            add(serviceLine + FRAME_BYTES * Long.BYTES, frameBytes);
        }
    }

    /**
     * A reply from {@code server} sent on to its client: {@link #out}'s counts and {@link #serverFrame}'s, the server's
     * slot found once (the writer only).
     *
     * @param bytes      its IP datagram's length.
     * @param frameBytes its Ethernet frame's length.
     */
    public void serverReplied(final int service, final int server, final int bytes, final int frameBytes)
    {
        final long serverLine = serverLine(server);
        count(serviceLine(service), OUT_PACKETS, OUT_BYTES, bytes);
        count(serverLine, OUT_PACKETS, OUT_BYTES, bytes);
        count(serverLine, FRAMES, FRAME_BYTES, frameBytes);
    }

    /** A packet from {@code server} back to a client (the writer only). */
    public void out(final int service, final int server, final int bytes)
    {
        packet(service, server, OUT_PACKETS, OUT_BYTES, bytes);
    }

    private void packet(final int service, final int server, final int packets, final int octets, final int bytes)
    {
        final long serviceLine = serviceLine(service);
        final long serverLine = serverLine(server);
        count(serviceLine, packets, octets, bytes);
        count(serverLine, packets, octets, bytes);
    }

    /** One packet of {@code bytes} in a slot's line: its count field and its byte field. */
    private static void count(final long line, final int packets, final int octets, final long bytes)
    {
        add(line + packets * Long.BYTES, 1);
        add(line + octets * Long.BYTES, bytes);
    }

    /** One check per slot instead of one per field read and written (the buffers' own checks). */
    private long serviceLine(final int service)
    {
        return servicesAddress + (long)Objects.checkIndex(service, serviceSlots) * SLOT_LENGTH;
    }

    private long serverLine(final int server)
    {
        return serversAddress + (long)Objects.checkIndex(server, serverSlots) * SLOT_LENGTH;
    }

    /**
     * Orders every count made so far before the writer's later stores (the writer, after each burst).
     */
    public void publish()
    {
        VarHandle.releaseFence();
    }

    private static void add(final long address, final long delta)
    {
        UnsafeApi.putLong(address, UnsafeApi.getLong(address) + delta);
    }

    /**
     * @param slot  a service slot.
     * @param field a {@link TrafficStatsDescriptor} field id.
     * @return the count since the worker started (any thread).
     */
    public long service(final int slot, final int field)
    {
        return services.getLongVolatile(slot * SLOT_LENGTH + field * Long.BYTES);
    }

    /**
     * @param slot  a real-server slot.
     * @param field a {@link TrafficStatsDescriptor} field id.
     * @return the count since the worker started (any thread).
     */
    public long server(final int slot, final int field)
    {
        return servers.getLongVolatile(slot * SLOT_LENGTH + field * Long.BYTES);
    }

    /** @return how many service slots there are. */
    public int serviceSlots()
    {
        return serviceSlots;
    }

    /** @return how many real-server slots there are. */
    public int serverSlots()
    {
        return serverSlots;
    }

    /**
     * Sums one service's counters over workers into {@code into} (indexed by field id).
     */
    public static void sumService(final TrafficStats[] workers, final int slot, final long[] into)
    {
        Arrays.fill(into, 0, TrafficStatsDescriptor.FIELDS, 0L);
        for (final TrafficStats stats : workers)
        {
            for (int field = 0; field < TrafficStatsDescriptor.FIELDS; field++)
            {
                into[field] += stats.service(slot, field);
            }
        }
    }

    /**
     * Sums one real server's counters over workers into {@code into} (indexed by field id).
     */
    public static void sumServer(final TrafficStats[] workers, final int slot, final long[] into)
    {
        Arrays.fill(into, 0, TrafficStatsDescriptor.FIELDS, 0L);
        for (final TrafficStats stats : workers)
        {
            for (int field = 0; field < TrafficStatsDescriptor.FIELDS; field++)
            {
                into[field] += stats.server(slot, field);
            }
        }
    }
}
