package io.jvs.forwarder.daemon;

import io.jvs.core.conn.ConnectionTable;
import io.jvs.core.packet.Frames;
import io.jvs.core.packet.Verdict;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.core.pipeline.Pipeline;
import io.jvs.core.stats.TrafficStatsDescriptor;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.BpfMap;
import io.jvs.nativebindings.bpf.BpfProgram;
import io.jvs.nativebindings.bpf.XdpAction;
import io.jvs.nativebindings.bpf.XdpFlowTable;
import io.jvs.nativebindings.bpf.XdpVipFilter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The XDP program forwards an offloaded connection's frames exactly as the pipeline does: connections made through
 * a pipeline (the worker farm's NAT service), offered to an {@link XdpFlowOffload} over a real flow table, then
 * random frames of theirs in both directions (payloads, TTLs, flags, whatever checksums they carry) run through the
 * kernel's program (BPF_PROG_TEST_RUN) and through the pipeline, byte for byte alike; the program's counts taken in
 * as the pipeline's; a FIN takes the connection back, after which the program leaves its frames alone. Root only.
 */
class XdpFlowOffloadTest
{
    private static final int CONNECTIONS = 8;
    private static final int FRAMES = 40;
    private static final int FRAME_SPACE = 2048;
    private static final int HEADROOM = 256;
    private static final long ALLOCATION_DEADLINE_NS = 60_000_000_000L;

    private final Syscalls syscalls = Syscalls.create();
    private WorkerFarm farm;
    private XdpVipFilter filter;
    private XdpFlowTable table;
    private XdpFlowTable.FlowStats stats;
    private BpfMap xsks;
    private BpfMap.Elements elements;
    private BpfProgram program;
    private Pipeline pipeline;
    private XdpFlowOffload offload;
    private final ByteBuffer memory = ByteBuffer.allocateDirect(FRAME_SPACE + HEADROOM);
    private final FrameBurst burst = new FrameBurst();
    private long now = 1_000_000_000L;

    @BeforeEach
    void setUp() throws Exception
    {
        farm = new WorkerFarm(1, 0);
        filter = XdpVipFilter.create(syscalls, 16);
        table = XdpFlowTable.create(syscalls, 256);
        table.egress(0, 1);
        table.egress(1, 1);
        stats = table.mapStats(syscalls);
        filter.forwardFlows(table);
        xsks = BpfMap.createXskMap(syscalls, "jvs_test_xsks", 1);
        program = filter.loadProgram(syscalls, "jvs_offl_test", xsks);
        elements = table.flows().elements();
        pipeline = new Pipeline(farm.publisher, 0, 1 << 12, 1 << 10, 4, 8, 0);
        offload = new XdpFlowOffload(pipeline, elements, stats, 0, 64, pipeline.connectionsV4().slots(),
            farm.counters, 0, () -> true);
        pipeline.offloadTo(offload);
    }

    @AfterEach
    void tearDown() throws Exception
    {
        for (final AutoCloseable resource : new AutoCloseable[] {program, elements, xsks, stats, table, filter, farm})
        {
            if (resource != null)
            {
                resource.close();
            }
        }
    }

    static Object[][] seeds()
    {
        final Object[][] seeds = new Object[40][];
        for (int i = 0; i < seeds.length; i++)
        {
            seeds[i] = new Object[] {0x0FF_10ADL + i};
        }
        return seeds;
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldForwardOffloadedFramesByteForByteAsThePipelineDoes(final long seed)
    {
        final Random random = new Random(seed);
        final List<int[]> connections = new ArrayList<>();
        for (int n = 0; n < CONNECTIONS; n++)
        {
            final int client = WorkerFarm.CLIENT_BASE + random.nextInt(1 << 16);
            final int clientPort = 1024 + random.nextInt(60_000);
            final byte[] syn = frame(WorkerFarm.PORT0_MAC, WorkerFarm.ROUTER_MAC, client, clientPort,
                WorkerFarm.VIP, 80, 0x02, 64, 0, random);
            final ByteBuffer forwarded = ByteBuffer.wrap(pipelined(syn));
            final int server = forwarded.getInt(14 + 16);
            final long serverMac = WorkerFarm.SERVER_MAC_BASE + (server & 0xFF);
            pipelined(frame(WorkerFarm.PORT1_MAC, serverMac, server, WorkerFarm.SERVER_PORT, client, clientPort,
                0x12, 64, 0, random));
            pipelined(frame(WorkerFarm.PORT0_MAC, WorkerFarm.ROUTER_MAC, client, clientPort, WorkerFarm.VIP, 80,
                0x10, 64, 0, random));
            connections.add(new int[] {client, clientPort, server});
        }
        assertThat(offload.offloaded()).as("established, not yet seen by the fast loop").isZero();

        long toServers = 0;
        long toClients = 0;
        final boolean[] seenByTheFastLoop = new boolean[CONNECTIONS];
        for (int f = 0; f < FRAMES; f++)
        {
            final int which = random.nextInt(CONNECTIONS);
            final int[] c = connections.get(which);
            final boolean inbound = random.nextBoolean();
            final int flags = 0x10 | (random.nextBoolean() ? 0x08 : 0);
            final int ttl = 2 + random.nextInt(254);
            final int payload = random.nextInt(1400);
            final byte[] frame = inbound ?
                frame(WorkerFarm.PORT0_MAC, WorkerFarm.ROUTER_MAC, c[0], c[1], WorkerFarm.VIP, 80, flags, ttl,
                    payload, random) :
                frame(WorkerFarm.PORT1_MAC, WorkerFarm.SERVER_MAC_BASE + (c[2] & 0xFF), c[2], WorkerFarm.SERVER_PORT,
                    c[0], c[1], flags, ttl, payload, random);
            final BpfProgram.TestRunResult xdp = program.testRunWithOutput(frame);
            final byte[] expected = pipelined(frame);
            final boolean offloaded = seenByTheFastLoop[which];
            seenByTheFastLoop[which] = true;
            assertThat(xdp.action()).as("frame %d: forwarded in XDP once the fast loop offered its connection", f)
                .isEqualTo(offloaded ? XdpAction.REDIRECT : XdpAction.PASS);
            if (offloaded)
            {
                assertThat(xdp.frame()).as("frame %d, %s", f, inbound ? "to the server" : "to the client")
                    .isEqualTo(expected);
                toServers += inbound ? 1 : 0;
                toClients += inbound ? 0 : 1;
            }
            else
            {
                assertThat(xdp.frame()).as("untouched").isEqualTo(frame);
            }
        }
        assertThat(toServers + toClients).as("most frames of offloaded connections").isPositive();

        // The program's counts, taken in: the pipeline counted the same frames once itself, here, so twice.
        final ConnectionTable connectionsV4 = pipeline.connectionsV4();
        final int service = farm.publisher.current().serviceOfServer(connectionsV4.server(0 + firstUsed()));
        final long inBefore = pipeline.traffic().service(service, TrafficStatsDescriptor.IN_PACKETS);
        final long outBefore = pipeline.traffic().service(service, TrafficStatsDescriptor.OUT_PACKETS);
        now += XdpFlowOffload.FOLD_PERIOD_NS;
        assertThat(offload.fold(now)).isTrue();
        assertThat(pipeline.traffic().service(service, TrafficStatsDescriptor.IN_PACKETS) - inBefore)
            .isEqualTo(toServers);
        assertThat(pipeline.traffic().service(service, TrafficStatsDescriptor.OUT_PACKETS) - outBefore)
            .isEqualTo(toClients);
        assertThat(farm.counters.get(0, DaemonCounters.OFFLOADED_FRAMES)).isEqualTo(toServers + toClients);

        // A FIN: the pipeline takes the connection back, and the program leaves its frames to the rules.
        final int[] c = connections.get(0);
        final int before = offload.offloaded();
        pipelined(frame(WorkerFarm.PORT0_MAC, WorkerFarm.ROUTER_MAC, c[0], c[1], WorkerFarm.VIP, 80, 0x11, 64, 0,
            random));
        assertThat(offload.offloaded()).isEqualTo(before - 1);
        assertThat(program.testRunWithOutput(frame(WorkerFarm.PORT0_MAC, WorkerFarm.ROUTER_MAC, c[0], c[1],
            WorkerFarm.VIP, 80, 0x10, 64, 10, random)).action()).isEqualTo(XdpAction.PASS);
        assertThat(connectionsV4.size()).isEqualTo(connections.stream().map(k -> k[0] + ":" + k[1]).distinct().count());
    }

    @org.junit.jupiter.api.Test
    void shouldFollowANewSnapshotsDescriptionOfAnOffloadedConnection()
    {
        final Random random = new Random(7);
        final int client = WorkerFarm.CLIENT_BASE + 9;
        final ByteBuffer forwarded = ByteBuffer.wrap(pipelined(frame(WorkerFarm.PORT0_MAC, WorkerFarm.ROUTER_MAC,
            client, 40_000, WorkerFarm.VIP, 80, 0x02, 64, 0, random)));
        final int server = forwarded.getInt(14 + 16);
        pipelined(frame(WorkerFarm.PORT1_MAC, WorkerFarm.SERVER_MAC_BASE + (server & 0xFF), server,
            WorkerFarm.SERVER_PORT, client, 40_000, 0x12, 64, 0, random));
        pipelined(frame(WorkerFarm.PORT0_MAC, WorkerFarm.ROUTER_MAC, client, 40_000, WorkerFarm.VIP, 80, 0x10, 64,
            0, random));
        pipelined(frame(WorkerFarm.PORT0_MAC, WorkerFarm.ROUTER_MAC, client, 40_000, WorkerFarm.VIP, 80, 0x10, 64,
            0, random));
        final byte[] big = frame(WorkerFarm.PORT0_MAC, WorkerFarm.ROUTER_MAC, client, 40_000, WorkerFarm.VIP, 80,
            0x10, 64, 1400, random);
        assertThat(program.testRunWithOutput(big).action()).as("offloaded").isEqualTo(XdpAction.REDIRECT);

        // The same description under a new snapshot: still forwarded. A narrower server port: too big for it now.
        farm.serverNeighbours(true);
        pipelined(frame(WorkerFarm.PORT0_MAC, WorkerFarm.ROUTER_MAC, client, 40_000, WorkerFarm.VIP, 80, 0x10, 64,
            0, random));
        assertThat(program.testRunWithOutput(big).action()).isEqualTo(XdpAction.REDIRECT);
        farm.serverPortMtu(1400);
        pipelined(frame(WorkerFarm.PORT0_MAC, WorkerFarm.ROUTER_MAC, client, 40_000, WorkerFarm.VIP, 80, 0x10, 64,
            0, random));
        final BpfProgram.TestRunResult tooBig = program.testRunWithOutput(big);
        assertThat(tooBig.action()).as("the pipeline's to answer or fragment").isEqualTo(XdpAction.PASS);
        assertThat(tooBig.frame()).isEqualTo(big);
        assertThat(offload.offloaded()).isOne();
    }

    @org.junit.jupiter.api.Test
    void shouldOfferFoldAndWithdrawWithoutAllocating() throws Exception
    {
        // In a JVM of its own, as the daemon's: in this one, hundreds of other tests have compiled the code it shares
        // (the downcalls' stubs among it) into shapes the daemon never sees, where the JIT may not remove what the
        // daemon's does.
        final String launcher = java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final Process child = new ProcessBuilder(launcher, "--enable-native-access=ALL-UNNAMED", "--add-exports",
            "java.base/jdk.internal.misc=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
            OffloadAllocationChild.class.getName()).redirectErrorStream(true).start();
        final String output = new String(child.getInputStream().readAllBytes(),
            java.nio.charset.StandardCharsets.UTF_8);
        assertThat(child.waitFor()).as(output).isZero();
        assertThat(output).as("bytes a round of 64 connections allocates once compiled").contains(
            "least allocated by a round: 0 B");
    }

    /**
     * Rounds of 64 connections (a SYN, two ACKs whose second offers it, a FIN that takes it back), a fold and a sweep
     * each, on this thread, until one allocates nothing or {@link #ALLOCATION_DEADLINE_NS} passed: the first rounds
     * run before the JIT has compiled the path (interpreted and C1 code, the downcalls' stubs among it, allocate what
     * C2's escape analysis removes), and a busy machine compiles it late.
     *
     * @return the least a round allocated on this thread.
     */
    long leastAllocatedRound()
    {
        final Random random = new Random(11);
        final byte[][] syns = new byte[64][];
        final byte[][] acks = new byte[64][];
        final byte[][] fins = new byte[64][];
        for (int n = 0; n < syns.length; n++)
        {
            final int client = WorkerFarm.CLIENT_BASE + n;
            syns[n] = frame(WorkerFarm.PORT0_MAC, WorkerFarm.ROUTER_MAC, client, 30_000, WorkerFarm.VIP, 80, 0x02, 64,
                0, random);
            acks[n] = frame(WorkerFarm.PORT0_MAC, WorkerFarm.ROUTER_MAC, client, 30_000, WorkerFarm.VIP, 80, 0x10, 64,
                0, random);
            fins[n] = frame(WorkerFarm.PORT0_MAC, WorkerFarm.ROUTER_MAC, client, 30_000, WorkerFarm.VIP, 80, 0x11, 64,
                0, random);
        }
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory.getThreadMXBean();
        final long deadline = System.nanoTime() + ALLOCATION_DEADLINE_NS;
        long allocated = Long.MAX_VALUE;
        long rounds = 0;
        while (allocated > 0 && System.nanoTime() - deadline < 0)
        {
            final long before = threads.getCurrentThreadAllocatedBytes();
            for (int n = 0; n < syns.length; n++)
            {
                process(syns[n]);
                process(acks[n]);
                process(acks[n]);
                process(fins[n]);
            }
            now += XdpFlowOffload.FOLD_PERIOD_NS;
            offload.fold(now);
            now += 200_000_000_000L;
            pipeline.sweep(now, pipeline.connectionsV4().slots());
            allocated = Math.min(allocated, threads.getCurrentThreadAllocatedBytes() - before);
            rounds++;
        }
        assertThat(farm.counters.get(0, DaemonCounters.OFFLOADED)).as("offered and taken").isEqualTo(rounds * 64);
        assertThat(farm.counters.get(0, DaemonCounters.OFFLOAD_WITHDRAWN)).isEqualTo(rounds * 64);
        return allocated;
    }

    /** Runs one frame through the pipeline, whatever its verdict, without allocating. */
    private void process(final byte[] frame)
    {
        now += 1_000L;
        final long address = Frames.addressOf(memory) + HEADROOM;
        for (int i = 0; i < frame.length; i++)
        {
            org.agrona.UnsafeApi.putByte(address + i, frame[i]);
        }
        burst.clear();
        burst.ingressPort = 0;
        burst.add(address, frame.length, FRAME_SPACE, HEADROOM, now);
        pipeline.process(burst, now);
    }

    private int firstUsed()
    {
        final ConnectionTable connections = pipeline.connectionsV4();
        for (int slot = 0; slot < connections.slots(); slot++)
        {
            if (connections.isUsed(slot))
            {
                return slot;
            }
        }
        throw new AssertionError("no connection");
    }

    /** @return the frame as the pipeline leaves it, which must transmit it. */
    private byte[] pipelined(final byte[] frame)
    {
        now += 1_000_000L;
        final long address = Frames.addressOf(memory) + HEADROOM;
        Frames.write(frame, address);
        burst.clear();
        burst.ingressPort = ByteBuffer.wrap(frame).getLong(0) >>> 16 == WorkerFarm.PORT0_MAC ? 0 : 1;
        burst.add(address, frame.length, FRAME_SPACE, HEADROOM, now);
        pipeline.process(burst, now);
        assertThat(Verdict.toString(burst.verdict(0))).as("transmitted").startsWith("transmit");
        return Frames.read(burst.address(0), burst.length(0));
    }

    /** A TCP frame, its checksums whatever the random source says (the rewrite updates, it does not verify). */
    private static byte[] frame(final long destinationMac, final long sourceMac, final int source,
        final int sourcePort, final int destination, final int destinationPort, final int flags, final int ttl,
        final int payload, final Random random)
    {
        final ByteBuffer f = ByteBuffer.allocate(14 + 20 + 20 + payload);
        f.putShort(0, (short)(destinationMac >>> 32)).putInt(2, (int)destinationMac)
            .putShort(6, (short)(sourceMac >>> 32)).putInt(8, (int)sourceMac).putShort(12, (short)0x0800);
        f.put(14, (byte)0x45).putShort(16, (short)(40 + payload)).putShort(18, (short)random.nextInt())
            .putShort(20, (short)0x4000).put(22, (byte)ttl).put(23, (byte)6).putShort(24, (short)random.nextInt())
            .putInt(26, source).putInt(30, destination);
        f.putShort(34, (short)sourcePort).putShort(36, (short)destinationPort).putInt(38, random.nextInt())
            .putInt(42, random.nextInt()).put(46, (byte)0x50).put(47, (byte)flags).putShort(48, (short)502)
            .putShort(50, (short)random.nextInt());
        for (int i = 0; i < payload; i++)
        {
            f.put(54 + i, (byte)random.nextInt());
        }
        return f.array();
    }
}
