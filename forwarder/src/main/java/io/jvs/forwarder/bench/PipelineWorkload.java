package io.jvs.forwarder.bench;

import io.jvs.core.conn.ConnectionTimeouts;
import io.jvs.core.conn.TcpStates;
import io.jvs.core.net.IpAddress;
import io.jvs.core.packet.EthernetHeader;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.DataPlaneBuilder;
import io.jvs.core.pipeline.DataPlanePublisher;
import io.jvs.core.pipeline.DataPlaneSettings;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.core.pipeline.Pipeline;
import io.jvs.core.pipeline.Topology;
import io.jvs.core.rules.RuleParser;
import io.jvs.core.sched.SchedulerFlags;
import io.jvs.forwarder.memory.HugePageAllocator;
import io.jvs.core.sched.SchedulerSettings;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceTable;
import io.jvs.forwarder.memory.NativeCachePrefetch;
import org.agrona.BufferUtil;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A synthetic load for the pipeline: bursts of 64-byte TCP frames from many clients to one virtual
 * service of 16 real servers (of weight 1, or the weights given), written into off-heap frame buffers the way a NIC
 * would, then processed.
 * <p>
 * Two shapes: established flows (the clients' connections are opened first, through the pipeline
 * itself, among ACKs of the flows already open: {@link #setUp}; each burst then carries ACKs of randomly chosen
 * flows), and new connections (every frame is a SYN from a client never seen before). For new connections
 * SYN_RECV lasts 1 s and the virtual clock steps 2 s / capacity per connection, so entries expire and are swept
 * at the rate they are made; as an entry lives its 1 s plus up to one sweep period, the table settles near 83% of
 * its capacity (42% of its slots). At a capacity of 4M that step is 500 ns, close to real time at the rates a core
 * opens connections: a faster virtual clock would make the once-a-second sweep look dearer per connection
 * than it is on a wire. Shared by the JMH benchmarks and {@code tools/jvs bench pipeline}.
 */
public final class PipelineWorkload
{
    /** How the service forwards. */
    public enum Mode
    {
        NAT("-m"),
        DR("-g");

        final String option;

        Mode(final String option)
        {
            this.option = option;
        }
    }

    /** Bytes of a minimum Ethernet frame without its FCS. */
    public static final int FRAME_LENGTH = 60;
    public static final int SERVERS = 16;
    /** The servers' weights when none are given: ipvsadm's default. */
    private static final int[] WEIGHT_ONE = {1};
    private static final int FRAME_STRIDE = 2048;
    private static final int PAGE = 4096;
    private static final int HEADROOM = 128;
    private static final long ROUTER_MAC = 0x02_00_00_00_00_FEL;
    private static final long JVS_MAC = 0x02_00_00_00_00_10L;
    private static final int VIP = IpAddress.parse("10.0.0.100").v4();
    private static final int CLIENT_BASE = IpAddress.parse("100.64.0.0").v4();
    /** Client ports per client address: flow n is address n >> 15, port 1024 + (n & 0x7FFF). */
    private static final int PORT_BITS = 15;
    private static final int TCP_ACK = 0x10;
    private static final int TCP_SYN = 0x02;
    /** Set-up bursts that mix two handshake frames with ACKs of open flows; later ones are filled with handshakes. */
    static final int SET_UP_BURSTS = 1 << 20;

    private final Mode mode;
    private final String scheduler;
    private final int flows;
    private final boolean newFlows;
    private final boolean replies;
    /** The servers' weights, in order, repeated over the {@link #SERVERS}. */
    private final int[] weights;
    /**
     * Per reply slot of a burst: the flow of the client frame before it in this burst, and for the next burst's reply
     * the flow answered and its server's address and port.
     */
    private final long[] clientFlow;
    private final long[] replyFlow;
    private final int[] replyServerAddress;
    private final int[] replyServerPort;
    private int repliesReady;
    private final int burstSize;
    private final Pipeline pipeline;
    private final FrameBurst burst = new FrameBurst();
    private final ByteBuffer memory;
    private final long base;
    private final long template;
    private final long clockStepNs;
    private long nowNs = 1_000_000_000L;
    private long random = 0x9E37_79B9_7F4A_7C15L;
    private long nextNewClient;
    private final long mixedSetUpBursts;

    /**
     * @param mode      NAT or DR.
     * @param scheduler the service's scheduler, e.g. "rr".
     * @param flows     established flows (or, for new connections, the connection table's capacity).
     * @param newFlows  every frame opens a new connection.
     * @param burstSize frames per burst, 1..256.
     */
    public PipelineWorkload(final Mode mode, final String scheduler, final int flows, final boolean newFlows,
        final int burstSize)
    {
        this(mode, scheduler, flows, newFlows, burstSize, WEIGHT_ONE);
    }

    /**
     * The same load to servers of the weights given: server n (from 0) gets {@code weights[n % weights.length]}.
     *
     * @param weights 1 to {@link #SERVERS} weights, each 0 to {@link RealServer#MAX_WEIGHT}, one at least above 0
     *                ({@link #weightsProblem}).
     * @see #PipelineWorkload(Mode, String, int, boolean, int)
     */
    public PipelineWorkload(final Mode mode, final String scheduler, final int flows, final boolean newFlows,
        final int burstSize, final int[] weights)
    {
        this(mode, scheduler, flows, newFlows, burstSize, false, SET_UP_BURSTS, weights);
    }

    /**
     * @return what is wrong with these servers' weights for this load, or null when nothing is.
     */
    public static String weightsProblem(final int[] weights)
    {
        if (weights.length == 0 || weights.length > SERVERS)
        {
            return "1 to " + SERVERS + " weights (one a server, repeated over the " + SERVERS + "), not " +
                weights.length;
        }
        boolean anyServes = false;
        for (final int weight : weights)
        {
            if (weight < 0)
            {
                return "a weight is 0 to " + RealServer.MAX_WEIGHT + ", not " + weight;
            }
            anyServes |= weight > 0;
        }
        // Weight 0 quiesces a server: with every one quiesced no frame would be forwarded.
        return anyServes ? null : "one weight at least must be above 0, or no server takes a connection";
    }

    /**
     * An established-flows load in which the real servers answer: every other frame of a burst is a server's
     * acknowledgement, through jvs back to its client, of a frame jvs forwarded to it in the burst before (NAT only,
     * as direct-routing servers answer their clients themselves).
     *
     * @see #PipelineWorkload(Mode, String, int, boolean, int)
     */
    public static PipelineWorkload withReplies(final String scheduler, final int flows, final int burstSize)
    {
        return withReplies(scheduler, flows, burstSize, WEIGHT_ONE);
    }

    /**
     * The load with replies, to servers of the weights given.
     *
     * @see #withReplies(String, int, int)
     * @see #PipelineWorkload(Mode, String, int, boolean, int, int[])
     */
    public static PipelineWorkload withReplies(final String scheduler, final int flows, final int burstSize,
        final int[] weights)
    {
        return new PipelineWorkload(Mode.NAT, scheduler, flows, false, burstSize, true, SET_UP_BURSTS, weights);
    }

    /**
     * As the public constructor, with replies or not and the number of mixed set-up bursts (tests shorten it).
     */
    PipelineWorkload(final Mode mode, final String scheduler, final int flows, final boolean newFlows,
        final int burstSize, final boolean replies, final long mixedSetUpBursts)
    {
        this(mode, scheduler, flows, newFlows, burstSize, replies, mixedSetUpBursts, WEIGHT_ONE);
    }

    private PipelineWorkload(final Mode mode, final String scheduler, final int flows, final boolean newFlows,
        final int burstSize, final boolean replies, final long mixedSetUpBursts, final int[] weights)
    {
        final String weightsProblem = weightsProblem(weights);
        if (weightsProblem != null)
        {
            throw new IllegalArgumentException(weightsProblem);
        }
        this.weights = weights.clone();
        if (burstSize < 1 || burstSize > FrameBurst.MAX_FRAMES)
        {
            throw new IllegalArgumentException("burst size must be 1.." + FrameBurst.MAX_FRAMES);
        }
        if (replies && (mode != Mode.NAT || newFlows || burstSize < 2))
        {
            throw new IllegalArgumentException("replies need NAT, established flows and bursts of 2 or more");
        }
        this.replies = replies;
        this.clientFlow = new long[burstSize / 2];
        this.replyFlow = new long[burstSize / 2];
        this.replyServerAddress = new int[burstSize / 2];
        this.replyServerPort = new int[burstSize / 2];
        this.mixedSetUpBursts = mixedSetUpBursts;
        this.mode = mode;
        this.scheduler = scheduler;
        this.flows = flows;
        this.newFlows = newFlows;
        this.burstSize = burstSize;
        final ServiceTable table = new ServiceTable(SchedulerSettings.of(SchedulerFlags.NONE));
        RuleParser.parse("-A -t 10.0.0.100:80 -s " + scheduler).applyTo(table);
        final Topology.Builder topology = new Topology.Builder()
            .port(0, JVS_MAC, 1500, IpAddress.parse("10.0.0.1"), null)
            .gatewayV4(0, ROUTER_MAC);
        for (int server = 1; server <= SERVERS; server++)
        {
            RuleParser.parse("-a -t 10.0.0.100:80 -r 192.168.1." + server + ":80 " + mode.option + " -w " +
                weights[(server - 1) % weights.length]).applyTo(table);
            topology.neighbour(IpAddress.parse("192.168.1." + server), 0, 0x02_00_00_00_01_00L + server);
        }
        final DataPlaneSettings settings = new DataPlaneSettings(true, true, true, false, false, false, true, false, 0,
            false, 128, false);
        final ConnectionTimeouts timeouts = new ConnectionTimeouts();
        if (newFlows)
        {
            timeouts.setTcpState(TcpStates.SYN_RECV, 1);
        }
        final DataPlanePublisher publisher = new DataPlanePublisher(
            new DataPlaneBuilder(4, SERVERS + 1).build(table, topology.build(), timeouts, settings));
        final int capacity = Math.max(1024, flows);
        this.pipeline = new Pipeline(publisher, 0, capacity, 1024, 4, SERVERS + 1, 0, HugePageAllocator.INSTANCE,
            new io.jvs.core.pipeline.TemplateTable(1024), null, NativeCachePrefetch.best());
        // Page-aligned, as the C peer's frames (aligned_alloc) and a port's buffers are: a plain direct buffer starts
        // where malloc put it, 16 bytes into a line, and every 60-byte frame then spans two cache lines.
        this.memory = BufferUtil.allocateDirectAligned(FrameBurst.MAX_FRAMES * FRAME_STRIDE + FRAME_STRIDE, PAGE);
        this.base = Frames.addressOf(memory);
        this.template = base + (long)FrameBurst.MAX_FRAMES * FRAME_STRIDE;
        writeTemplate(template);
        // New connections live 1 s: one lives for capacity / 2 connections, plus the wait for the sweep.
        this.clockStepNs = newFlows ? 2_000_000_000L * burstSize / capacity : 1_000;
    }

    private static void writeTemplate(final long frame)
    {
        for (int i = 0; i < FRAME_LENGTH; i++)
        {
            Frames.putU8(frame + i, 0);
        }
        EthernetHeader.destination(frame, JVS_MAC);
        EthernetHeader.source(frame, ROUTER_MAC);
        Frames.putU16(frame + 12, EthernetHeader.TYPE_IPV4);
        final long ip = frame + 14;
        Frames.putU8(ip, 0x45);
        Frames.putU16(ip + 2, 40);
        Frames.putU16(ip + 6, 0x4000);
        Frames.putU8(ip + 8, 64);
        Frames.putU8(ip + 9, 6);
        Frames.putI32(ip + 16, VIP);
        final long tcp = ip + 20;
        Frames.putU16(tcp + 2, 80);
        Frames.putU8(tcp + 12, 0x50);
        Frames.putU16(tcp + 14, 65535);
    }

    /**
     * Opens the established flows through the pipeline: each flow's SYN, then in a later burst the ACK that
     * establishes it. For the first {@link #SET_UP_BURSTS} bursts (by default) a burst carries only two of these
     * handshake frames and fills the rest with ACKs of flows already open, so that the set-up traffic is mostly the
     * measured load while the JIT compiles the pipeline, from the branch and call counts it has gathered so far;
     * bursts of handshakes alone would have it compile the fast loop for frames that mostly leave it (a missed
     * lookup, a state that changes), and how far the set-up had got by then would decide how fast the measured load
     * runs. The flows left after those bursts (tables beyond a million flows) are opened in bursts filled with
     * handshakes, with code that is compiled by then. The clock steps as in {@link #runBurst}, so the sweep runs during
     * the set-up as it does after it. Nothing to do for new connections.
     *
     * @return this workload.
     */
    public PipelineWorkload setUp()
    {
        if (newFlows)
        {
            return this;
        }
        int synSent = 0;
        int established = 0;
        long state = random;
        for (long bursts = 0; established < flows; bursts++)
        {
            final int handshakes = bursts < mixedSetUpBursts ? Math.min(2, burstSize) : burstSize;
            burst.clear();
            nowNs += clockStepNs;
            final int openBefore = established;
            final int synSentBefore = synSent;
            int count = 0;
            // The ACKs of SYNs sent in earlier bursts, then new SYNs (half the handshakes, rounded up, so that a
            // steady set-up sends as many of each), then ACKs of the flows open before this burst.
            while (count < handshakes && established < synSentBefore)
            {
                addFrame(count++, established++, TCP_ACK);
            }
            final int syns = Math.min(handshakes - count, (handshakes + 1) / 2);
            for (int n = 0; n < syns && synSent < flows; n++)
            {
                addFrame(count++, synSent++, TCP_SYN);
            }
            while (openBefore > 0 && count < burstSize)
            {
                state ^= state << 13;
                state ^= state >>> 7;
                state ^= state << 17;
                addFrame(count++, ((state >>> 32) * openBefore) >>> 32, TCP_ACK);
            }
            pipeline.process(burst, nowNs);
            for (int i = 0; i < count; i++)
            {
                if (Verdict.kind(burst.verdict(i)) != Verdict.TRANSMIT)
                {
                    throw new IllegalStateException("frame " + i + " of a set-up burst was not forwarded: " +
                        Verdict.toString(burst.verdict(i)));
                }
            }
        }
        random = state;
        return this;
    }

    private void addFrame(final int i, final long flow, final int tcpFlags)
    {
        final long frame = base + HEADROOM + (long)i * FRAME_STRIDE;
        Frames.copy(template, frame, FRAME_LENGTH);
        Frames.putI32(frame + 26, CLIENT_BASE + (int)(flow >>> PORT_BITS));
        Frames.putU16(frame + 34, 1024 + (int)(flow & ((1 << PORT_BITS) - 1)));
        Frames.putU8(frame + 47, tcpFlags);
        burst.add(frame, FRAME_LENGTH, FRAME_STRIDE - HEADROOM, HEADROOM, nowNs);
    }

    /**
     * Writes one burst of frames and processes it.
     *
     * @return the number of frames transmitted.
     */
    public int runBurst()
    {
        burst.clear();
        if (newFlows)
        {
            nowNs += clockStepNs;
            for (int i = 0; i < burstSize; i++)
            {
                addFrame(i, nextNewClient++, TCP_SYN);
            }
        }
        else
        {
            nowNs += clockStepNs;
            long state = random;
            for (int i = 0; i < burstSize; i++)
            {
                if (replies && (i & 1) == 1 && i >> 1 < repliesReady)
                {
                    addReply(i, i >> 1);
                    continue;
                }
                state ^= state << 13;
                state ^= state >>> 7;
                state ^= state << 17;
                // Lemire's multiply-shift: a uniform flow index without a division.
                final long flow = ((state >>> 32) * flows) >>> 32;
                addFrame(i, flow, TCP_ACK);
                if (replies && (i & 1) == 0 && i >> 1 < clientFlow.length)
                {
                    clientFlow[i >> 1] = flow;
                }
            }
            random = state;
        }
        // The pipeline counts what it transmits, as the C peer counts its packets: no second pass over the verdicts.
        final long transmittedBefore = pipeline.counters().transmitted();
        pipeline.process(burst, nowNs);
        if (replies)
        {
            rememberServers();
        }
        // The frames leave as the burst ends, as the daemon's worker records them once transmitted.
        pipeline.recordLatency(burst, nowNs);
        return (int)(pipeline.counters().transmitted() - transmittedBefore);
    }

    /**
     * The server's answer to the acknowledgement of reply slot {@code r}'s flow: from the address and port jvs sent
     * that frame to, to the client.
     */
    private void addReply(final int i, final int r)
    {
        final long flow = replyFlow[r];
        final long frame = base + HEADROOM + (long)i * FRAME_STRIDE;
        Frames.copy(template, frame, FRAME_LENGTH);
        Frames.putI32(frame + 26, replyServerAddress[r]);
        Frames.putI32(frame + 30, CLIENT_BASE + (int)(flow >>> PORT_BITS));
        Frames.putU16(frame + 34, replyServerPort[r]);
        Frames.putU16(frame + 36, 1024 + (int)(flow & ((1 << PORT_BITS) - 1)));
        Frames.putU8(frame + 47, TCP_ACK);
        burst.add(frame, FRAME_LENGTH, FRAME_STRIDE - HEADROOM, HEADROOM, nowNs);
    }

    /** Reads where jvs sent each client frame of the burst just processed, for the next burst's replies. */
    private void rememberServers()
    {
        int ready = 0;
        for (int r = 0; r < replyFlow.length; r++)
        {
            final int i = 2 * r;
            if (Verdict.kind(burst.verdict(i)) != Verdict.TRANSMIT)
            {
                break;
            }
            final long frame = burst.address(i);
            replyFlow[r] = clientFlow[r];
            replyServerAddress[r] = Frames.i32(frame + 30);
            replyServerPort[r] = Frames.u16(frame + 36);
            ready++;
        }
        repliesReady = ready;
    }

    public Pipeline pipeline()
    {
        return pipeline;
    }

    /**
     * @return the burst the last {@link #runBurst} or set-up burst wrote and processed (for tests).
     */
    FrameBurst burst()
    {
        return burst;
    }

    public int burstSize()
    {
        return burstSize;
    }

    /**
     * @return bytes of connection-table memory per connection the table can hold.
     */
    public double bytesPerConnection()
    {
        return pipeline.connectionsV4().bytesPerConnection();
    }

    @Override
    public String toString()
    {
        return "mode=" + mode.name().toLowerCase() + " scheduler=" + scheduler + " flows=" + flows +
            (newFlows ? " new-flows" : "") + (replies ? " replies" : "") + weightsShown();
    }

    /** @return " weights=..." as given, or nothing for the default of weight 1. */
    public String weightsShown()
    {
        if (Arrays.equals(weights, WEIGHT_ONE))
        {
            return "";
        }
        final StringBuilder shown = new StringBuilder(" weights=");
        for (int i = 0; i < weights.length; i++)
        {
            shown.append(i == 0 ? "" : ",").append(weights[i]);
        }
        return shown.toString();
    }
}
