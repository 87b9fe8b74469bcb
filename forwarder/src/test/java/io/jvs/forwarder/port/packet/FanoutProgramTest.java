package io.jvs.forwarder.port.packet;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.IpPrefix;
import io.jvs.core.packet.Frames;
import io.jvs.core.pipeline.ClientDispatch;
import io.jvs.core.pipeline.FrameBurst;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.BpfInterpreter;
import io.jvs.nativebindings.bpf.BpfProgram;
import io.jvs.nativebindings.bpf.FanoutFrames;
import io.jvs.nativebindings.bpf.FanoutPrograms;
import io.jvs.nativebindings.bpf.XdpPrograms;
import io.jvs.nativebindings.bpf.XdpVipFilter;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.testing.RawPacketSocket;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fanout program places every frame where core's {@link ClientDispatch} says its client belongs: in the
 * interpreter on the skb as the kernel hands it to the program (outer tag offloaded), in the kernel on the skb a
 * test run builds (tags in the data), and on a veth, where two ports of one PACKET_FANOUT_EBPF group receive frames
 * of many clients (requests, NAT replies, ICMP errors about either, to and from a virtual prefix too, IPv4 and
 * IPv6, behind up to four VLAN tags) and each frame arrives at the port of its client's worker. The kernel parts
 * need root, as CI has.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FanoutProgramTest
{
    private static final List<IpAddress> VIPS = FanoutFrames.VIPS.stream().map(IpAddress::parse).toList();
    private static final List<IpPrefix> PREFIXES = FanoutFrames.PREFIXES.stream().map(IpPrefix::parse).toList();
    private static final int VIPS_V4_FD = 12;
    private static final int VIPS_V6_FD = 13;
    private static final int PREFIXES_V4_FD = 14;
    private static final int PREFIXES_V6_FD = 15;
    private static final int CHUNK = 50;

    private final ByteBuffer buffer = ByteBuffer.allocateDirect(2048);
    private final long address = Frames.addressOf(buffer);

    private int expected(final ClientDispatch dispatch, final byte[] wire)
    {
        Frames.write(wire, address);
        return dispatch.workerOf(address, wire.length);
    }

    private static BpfInterpreter interpreter(final int workers)
    {
        return new BpfInterpreter(FanoutPrograms.clientDispatch(workers).link(
            Map.of(XdpPrograms.VIPS_V4, VIPS_V4_FD, XdpPrograms.VIPS_V6, VIPS_V6_FD,
                XdpPrograms.DESTINATION_PREFIXES_V4, PREFIXES_V4_FD, XdpPrograms.DESTINATION_PREFIXES_V6,
                PREFIXES_V6_FD)), Map.of(
            VIPS_V4_FD, BpfInterpreter.MapModel.hash(4, 4).put(FanoutFrames.address(FanoutFrames.VIP_V4), new byte[4]),
            VIPS_V6_FD, BpfInterpreter.MapModel.hash(16, 4).put(FanoutFrames.address(FanoutFrames.VIP_V6),
                new byte[4]), PREFIXES_V4_FD, trie(false), PREFIXES_V6_FD, trie(true)));
    }

    /** The LPM trie of {@link #PREFIXES} of one family: keys of the length (little-endian) and the network. */
    private static BpfInterpreter.MapModel trie(final boolean v6)
    {
        final BpfInterpreter.MapModel trie = BpfInterpreter.MapModel.lpmTrie(v6 ? 16 : 4, 4);
        for (final IpPrefix prefix : PREFIXES)
        {
            if (prefix.isV6() == v6)
            {
                final byte[] network = prefix.network().toInetAddress().getAddress();
                trie.put(ByteBuffer.allocate(4 + network.length).order(java.nio.ByteOrder.LITTLE_ENDIAN)
                    .putInt(prefix.length()).put(network).array(), new byte[4]);
            }
        }
        return trie;
    }

    static LongStream seeds()
    {
        return LongStream.rangeClosed(1, 8);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldPlaceEveryFrameAsClientDispatchDoesInTheInterpreter(final long seed)
    {
        final Random random = new Random(seed);
        final int workers = 2 + (int)(seed % 4);
        final ClientDispatch dispatch = new ClientDispatch(workers, VIPS, PREFIXES);
        final BpfInterpreter program = interpreter(workers);
        final int[] perWorker = new int[workers];
        for (int i = 0; i < 3_000; i++)
        {
            final byte[] frame = FanoutFrames.random(random);
            if (!BpfInterpreter.Skb.reachesPrograms(frame))
            {
                continue;
            }
            final int worker = expected(dispatch, frame);
            assertThat(program.run(BpfInterpreter.ProgramType.SOCKET_FILTER, BpfInterpreter.Skb.atFanout(frame))
                .action()).as("%s", Arrays.toString(frame)).isEqualTo(worker);
            perWorker[worker]++;
        }
        assertThat(Arrays.stream(perWorker).min().orElseThrow()).as(Arrays.toString(perWorker)).isGreaterThan(100);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldPlaceEveryFrameAsClientDispatchDoesInTheKernel(final long seed) throws Exception
    {
        final Syscalls syscalls = Syscalls.create();
        final int workers = 2 + (int)(seed % 4);
        final ClientDispatch dispatch = new ClientDispatch(workers, VIPS, PREFIXES);
        try (XdpVipFilter filter = vipFilter(syscalls);
             BpfProgram program = FanoutPrograms.load(syscalls, workers, filter))
        {
            final Random random = new Random(seed);
            int run = 0;
            for (int i = 0; i < 1_000; i++)
            {
                final byte[] frame = FanoutFrames.random(random);
                if (FanoutFrames.testRunTakes(frame))
                {
                    assertThat(program.testRun(frame)).as("%s", Arrays.toString(frame))
                        .isEqualTo(expected(dispatch, frame));
                    run++;
                }
            }
            assertThat(run).isGreaterThan(500);
        }
    }

    /**
     * Each frame carries its number in the last four bytes of its source MAC, and leaves g0 whole; the ports put
     * an offloaded tag back, so the frame is found again by its number.
     */
    @Test
    void shouldDeliverEachFrameToThePortOfItsClientsWorker() throws Exception
    {
        final int workers = 2;
        final int frames = 600;
        final ClientDispatch dispatch = new ClientDispatch(workers, VIPS, PREFIXES);
        final AfPacketSettings settings = AfPacketForwardingTest.SMALL.withFanout(4244, AfPacket.PACKET_FANOUT_EBPF);
        final Syscalls syscalls = Syscalls.create();
        try (ForwardingNetwork net = new ForwardingNetwork("afpfanp");
             XdpVipFilter filter = vipFilter(syscalls);
             BpfProgram program = FanoutPrograms.load(syscalls, workers, filter);
             RawPacketSocket generator = RawPacketSocket.openIncoming(net.gen, "g0", 0))
        {
            final AfPacketPrograms programs = AfPacketPrograms.NONE.withFanout(program);
            final AfPacketPort[] ports = new AfPacketPort[workers];
            try
            {
                for (int worker = 0; worker < workers; worker++)
                {
                    final int index = worker;
                    ports[worker] = TestNetwork.callIn(net.fwd, () -> AfPacketPort.open(Syscalls.create(), index,
                        "fA", settings, AfPacketPort.Direction.RECEIVE, programs));
                }
                assertThat(ports[0].describe()).contains("fanout group 4244 mode/flags 0x7 (by program)");
                final Random random = new Random(11);
                final Map<Integer, Integer> workerOfFrame = new HashMap<>();
                final Map<Integer, List<Integer>> arrivals = new HashMap<>();
                // In chunks, so that blocks the retire timeout hands over half empty do not fill the rings.
                for (int chunk = 0; chunk < frames; chunk += CHUNK)
                {
                    for (int i = chunk; i < chunk + CHUNK; i++)
                    {
                        final byte[] frame = FanoutFrames.whole(random);
                        ByteBuffer.wrap(frame).putInt(8, i);
                        workerOfFrame.put(i, expected(dispatch, frame));
                        generator.send(frame);
                    }
                    receive(ports, chunk + CHUNK, arrivals);
                }

                assertThat(arrivals).hasSize(frames);
                arrivals.forEach((frame, at) -> assertThat(at).as("frame %d", frame)
                    .containsExactly(workerOfFrame.get(frame)));
                assertThat(workerOfFrame.values()).contains(0, 1);
            }
            finally
            {
                for (final AfPacketPort port : ports)
                {
                    if (port != null)
                    {
                        port.close();
                    }
                }
            }
        }
    }

    /** Receives from every port until {@code frames} have arrived in all, or 5 s have passed. */
    private static void receive(
        final AfPacketPort[] ports, final int frames, final Map<Integer, List<Integer>> arrivals)
    {
        final FrameBurst burst = new FrameBurst();
        int received = arrivals.values().stream().mapToInt(List::size).sum();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (received < frames && System.nanoTime() - deadline < 0)
        {
            for (final AfPacketPort port : ports)
            {
                burst.clear();
                final int count = port.receive(burst, System.nanoTime());
                for (int i = 0; i < count; i++)
                {
                    arrivals.computeIfAbsent(Frames.i32(burst.address(i) + 8), f -> new ArrayList<>())
                        .add(port.index());
                }
                port.release(burst);
                received += count;
            }
        }
    }

    @Test
    void shouldRefuseAnEbpfGroupWithoutItsProgramAndAProgramWithoutAnEbpfGroup()
    {
        try (ForwardingNetwork net = new ForwardingNetwork("afpfanr"))
        {
            final AfPacketSettings ebpf = AfPacketForwardingTest.SMALL.withFanout(4245, AfPacket.PACKET_FANOUT_EBPF);
            assertThatThrownBy(() -> TestNetwork.callIn(net.fwd, () -> AfPacketPort.open(Syscalls.create(), 0, "fA",
                ebpf, AfPacketPort.Direction.RECEIVE)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs the group's program");
            final Syscalls syscalls = Syscalls.create();
            try (XdpVipFilter filter = XdpVipFilter.create(syscalls, 4);
                 BpfProgram program = FanoutPrograms.load(syscalls, 2, filter))
            {
                assertThatThrownBy(() -> TestNetwork.callIn(net.fwd, () -> AfPacketPort.open(Syscalls.create(), 0,
                    "fA", AfPacketForwardingTest.SMALL.withFanout(4245, AfPacket.PACKET_FANOUT_HASH),
                    AfPacketPort.Direction.RECEIVE, AfPacketPrograms.NONE.withFanout(program))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not PACKET_FANOUT_EBPF");
            }
        }
    }

    private static XdpVipFilter vipFilter(final Syscalls syscalls) throws Exception
    {
        final XdpVipFilter filter = XdpVipFilter.create(syscalls, 16);
        for (final String vip : FanoutFrames.VIPS)
        {
            filter.addVip(InetAddress.getByName(vip));
        }
        for (final IpPrefix prefix : PREFIXES)
        {
            filter.addDestinationPrefix(prefix.network().toInetAddress(), prefix.length());
        }
        return filter;
    }
}
