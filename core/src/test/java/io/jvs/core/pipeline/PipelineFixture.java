package io.jvs.core.pipeline;

import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.memory.CachePrefetch;
import io.jvs.core.memory.OffHeapAllocator;
import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.Frames;
import io.jvs.core.rules.RuleParser;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.ServiceTable;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A pipeline over a configuration written in ipvsadm's language, with one port (index 0) whose
 * neighbours are the real servers, and frames sent through it one burst at a time.
 */
final class PipelineFixture
{
    static final int FRAME_SIZE = 2048;
    static final int HEADROOM = 256;

    final ServiceTable table;
    final ConnectionTimeouts timeouts = new ConnectionTimeouts();
    final DataPlaneBuilder builder = new DataPlaneBuilder(64, 256);
    final Topology.Builder topology = new Topology.Builder()
        .port(0, TestFrames.JVS_MAC, 1500, IpAddress.parse("10.0.0.1"), IpAddress.parse("2001:db8::1"))
        .gatewayV4(0, TestFrames.ROUTER_MAC)
        .gatewayV6(0, TestFrames.ROUTER_MAC);
    DataPlaneSettings settings = DataPlaneSettings.defaults();
    /** The mark rules of the snapshots (none by default). */
    final List<MarkRule> marks = new ArrayList<>();
    /** The port bursts arrive on. */
    int ingressPort;
    /** The firewall mark every frame of a burst arrives with. */
    int firewallMark;
    DataPlanePublisher publisher;
    Pipeline pipeline;
    final FrameBurst burst = new FrameBurst();
    private final ByteBuffer memory = ByteBuffer.allocateDirect(FrameBurst.MAX_FRAMES * (FRAME_SIZE + HEADROOM));
    private final long base = Frames.addressOf(memory);
    long nowNs = 1_000_000_000L;
    /** What the pipeline prefetches with: core's portable loads unless a test gives another before {@link #start}. */
    CachePrefetch prefetch = CachePrefetch.LOADS;

    PipelineFixture()
    {
        this(1);
    }

    /**
     * @param workers how many workers the schedulers keep cursors for.
     */
    PipelineFixture(final int workers)
    {
        table = new ServiceTable(new SchedulerSettings(SchedulerFlags.NONE, workers,
            SchedulerSettings.DEFAULT_EXPIRATION_NS, SchedulerSettings.DEFAULT_EXPIRATION_NS));
    }

    PipelineFixture rules(final String... lines)
    {
        for (final String line : lines)
        {
            RuleParser.parse(line).applyTo(table);
        }
        return this;
    }

    /** Each real server as a neighbour with MAC 02:00:00:00:ss:ss from its last octet. */
    PipelineFixture neighbour(final String address, final long mac)
    {
        topology.neighbour(IpAddress.parse(address), 0, mac);
        return this;
    }

    PipelineFixture start()
    {
        publisher = new DataPlanePublisher(plane());
        pipeline = new Pipeline(publisher, 0, 4096, 4096, 64, 256, 1000, OffHeapAllocator.DIRECT, new TemplateTable(1024),
            null, prefetch);
        return this;
    }

    DataPlane plane()
    {
        return builder.build(table, topology.build(), timeouts, settings, marks);
    }

    /** Rebuilds and publishes the snapshot after a configuration change. */
    void republish()
    {
        publisher.publish(plane());
    }

    /**
     * Sends frames as one burst.
     */
    Result[] send(final byte[]... frames)
    {
        return send(false, frames);
    }

    /**
     * Sends frames as one burst through {@link Pipeline#processAgain}, as the daemon's worker sends the frames it held
     * for want of a next hop.
     */
    Result[] sendAgain(final byte[]... frames)
    {
        return send(true, frames);
    }

    private Result[] send(final boolean again, final byte[]... frames)
    {
        burst.clear();
        burst.ingressPort = ingressPort;
        for (int i = 0; i < frames.length; i++)
        {
            final long address = base + (long)i * (FRAME_SIZE + HEADROOM) + HEADROOM;
            Frames.write(frames[i], address);
            burst.add(address, frames[i].length, FRAME_SIZE, HEADROOM, nowNs - 500);
            burst.firewallMark(i, firewallMark);
        }
        if (again)
        {
            pipeline.processAgain(burst, nowNs);
        }
        else
        {
            pipeline.process(burst, nowNs);
        }
        // As the daemon's worker does once the frames are transmitted.
        pipeline.recordLatency(burst, nowNs);
        final Result[] results = new Result[frames.length];
        for (int i = 0; i < frames.length; i++)
        {
            results[i] = new Result(burst.verdict(i), Frames.read(burst.address(i), burst.length(i)));
        }
        return results;
    }

    Result sendOne(final byte[] frame)
    {
        return send(frame)[0];
    }

    Result sendOneAgain(final byte[] frame)
    {
        return sendAgain(frame)[0];
    }

    /** A frame's fate and its bytes after processing. */
    record Result(int verdict, byte[] frame)
    {
    }
}
