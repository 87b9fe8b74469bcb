package io.jvs.forwarder.daemon;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.IpPrefix;
import io.jvs.core.packet.Frames;
import io.jvs.core.pipeline.ClientDispatch;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.bpf.BpfMap;
import io.jvs.nativebindings.bpf.BpfProgram;
import io.jvs.nativebindings.bpf.FanoutPrograms;
import io.jvs.nativebindings.bpf.TcPrograms;
import io.jvs.nativebindings.bpf.XdpAction;
import io.jvs.nativebindings.bpf.XdpVipFilter;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Java twins of the programs decide as the programs do, in the kernel (BPF_PROG_TEST_RUN), on the same frames
 * over the same addresses and prefixes: {@link StolenFrames} as the tcx steal program and the XDP program (which
 * frames are jvs's), and core's {@link ClientDispatch} over the conductor's VIPs and destination prefixes (the
 * daemon's {@link FrameOwner}) as the fanout program (which worker owns the client). The maps are filled and
 * emptied through {@link DataPlaneMaps}, as the conductor does. Random VIPs, real servers, box addresses (some
 * inside a destination prefix) and prefixes of random lengths; frames between them and random addresses, UDP,
 * ICMP echo and errors (some about IP in IP), neighbour discovery, tagged or not. Needs root, as CI has.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SteeringTwinsTest
{
    private static final int FRAMES = 1_500;
    private static final int WORKERS = 5;

    private final ByteBuffer buffer = ByteBuffer.allocateDirect(2048);
    private final long address = Frames.addressOf(buffer);

    static LongStream seeds()
    {
        return LongStream.rangeClosed(1, 6);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldDecideAsTheProgramsInTheKernel(final long seed)
    {
        final Random random = new Random(seed);
        final Set<IpPrefix> destinations = new LinkedHashSet<>();
        final Set<IpPrefix> sources = new LinkedHashSet<>();
        final Set<IpAddress> vips = new LinkedHashSet<>();
        final Set<IpAddress> servers = new LinkedHashSet<>();
        final Set<IpAddress> locals = new LinkedHashSet<>();
        final List<IpAddress> pool = new ArrayList<>();
        for (final boolean v6 : new boolean[] {false, true})
        {
            final IpPrefix destination = randomPrefix(random, v6);
            destinations.add(destination);
            destinations.add(randomPrefix(random, v6));
            sources.add(randomPrefix(random, v6));
            vips.add(randomAddress(random, v6));
            vips.add(inside(random, destination));
            servers.add(randomAddress(random, v6));
            locals.add(randomAddress(random, v6));
            locals.add(inside(random, destination));
        }
        pool.addAll(vips);
        pool.addAll(servers);
        pool.addAll(locals);
        for (int i = 0; i < 30; i++)
        {
            final List<IpPrefix> side = new ArrayList<>(random.nextBoolean() ? destinations : sources);
            pool.add(inside(random, side.get(random.nextInt(side.size()))));
            pool.add(randomAddress(random, random.nextBoolean()));
        }

        final Syscalls syscalls = Syscalls.create();
        try (XdpVipFilter filter = XdpVipFilter.create(syscalls, 64);
             BpfMap xsks = BpfMap.createXskMap(syscalls, "jvs_test_xsks", 1))
        {
            final DataPlaneMaps maps = new DataPlaneMaps(filter);
            maps.update(vips, servers, locals, destinations, sources, true);
            final StolenFrames stolen = new StolenFrames();
            stolen.update(maps.vips(), locals, maps.sources(), maps.destinationPrefixes(), maps.sourcePrefixes());
            final ClientDispatch dispatch = new ClientDispatch(WORKERS, maps.vips(), maps.destinationPrefixes());
            final FrameOwner owner = dispatch::workerOf;
            try (BpfProgram xdp = filter.loadProgram(syscalls, "jvs_twins_tx", xsks, XdpAction.TX);
                 BpfProgram steal = TcPrograms.loadStealJvsTraffic(syscalls, filter);
                 BpfProgram fanout = FanoutPrograms.load(syscalls, WORKERS, filter))
            {
                int jvs = 0;
                int viaPrefix = 0;
                final int[] perWorker = new int[WORKERS];
                final List<byte[]> taken = new ArrayList<>();
                for (int i = 0; i < FRAMES; i++)
                {
                    final byte[] frame = frame(random, pool);
                    Frames.write(frame, address);
                    final boolean expected = stolen.hostMissed(address, frame.length);
                    final int worker = owner.workerOf(address, frame.length);
                    final String what = Arrays.toString(frame);
                    assertThat(steal.testRun(frame)).as("tcx: %s", what)
                        .isEqualTo(expected ? TcPrograms.DROP : TcPrograms.NEXT);
                    assertThat(xdp.testRun(frame)).as("XDP: %s", what)
                        .isEqualTo(expected ? XdpAction.TX : XdpAction.PASS);
                    assertThat(fanout.testRun(frame)).as("fanout: %s", what).isEqualTo(worker);
                    jvs += expected ? 1 : 0;
                    perWorker[worker]++;
                    if (expected)
                    {
                        taken.add(frame);
                        final StolenFrames hostsOnly = new StolenFrames();
                        hostsOnly.update(vips, locals, servers);
                        viaPrefix += hostsOnly.hostMissed(address, frame.length) ? 0 : 1;
                    }
                }
                assertThat(jvs).as("frames for jvs").isBetween(FRAMES / 10, FRAMES * 9 / 10);
                assertThat(viaPrefix).as("frames only a prefix takes").isGreaterThan(FRAMES / 20);
                assertThat(Arrays.stream(perWorker).min().orElseThrow()).isGreaterThan(FRAMES / WORKERS / 3);

                // The conductor's removal after a snapshot without marks: the prefixes' frames are the kernel's.
                maps.update(vips, servers, locals, Set.of(), Set.of(), false);
                assertThat(maps.destinationPrefixes()).isEmpty();
                stolen.update(maps.vips(), locals, maps.sources(), maps.destinationPrefixes(), maps.sourcePrefixes());
                for (final byte[] frame : taken)
                {
                    Frames.write(frame, address);
                    assertThat(steal.testRun(frame)).as("after removal: %s", Arrays.toString(frame))
                        .isEqualTo(stolen.hostMissed(address, frame.length) ? TcPrograms.DROP : TcPrograms.NEXT);
                }
            }
        }
    }

    private static IpPrefix randomPrefix(final Random random, final boolean v6)
    {
        return new IpPrefix(randomAddress(random, v6), v6 ? 8 + random.nextInt(121) : 4 + random.nextInt(29));
    }

    /** An IPv6 address kept out of ::/3, where IPv4-mapped and other special forms live. */
    private static IpAddress randomAddress(final Random random, final boolean v6)
    {
        return v6 ? IpAddress.ofV6(random.nextLong() | 0x2000_0000_0000_0000L, random.nextLong()) :
            IpAddress.ofV4(random.nextInt());
    }

    private static IpAddress inside(final Random random, final IpPrefix prefix)
    {
        final IpAddress network = prefix.network();
        final IpAddress any = randomAddress(random, network.isV6());
        final IpAddress mask = network.isV6() ? IpAddress.ofV6(-1L, -1L).mask(prefix.length()) :
            IpAddress.ofV4(-1).mask(prefix.length());
        return network.isV6() ? IpAddress.ofV6(network.high() | any.high() & ~mask.high(),
            network.low() | any.low() & ~mask.low()) : IpAddress.ofV4((int)(network.low() | any.low() & ~mask.low()));
    }

    /** Between two pool addresses of one family: UDP, ICMP echo request or reply, an ICMP error, ND, fragments. */
    private static byte[] frame(final Random random, final List<IpAddress> pool)
    {
        final boolean v6 = random.nextBoolean();
        final IpAddress source = pick(random, pool, v6);
        final IpAddress destination = pick(random, pool, v6);
        final byte[] packet = switch (random.nextInt(6))
        {
            // IPv6: a fragment of ICMPv6 (an echo request's or reply's first, or a later one) or of UDP.
            case 5 -> v6 ? ip(source, destination, 44, ByteBuffer.allocate(8 + 16)
                .put((byte)(random.nextInt(3) == 0 ? 17 : 58)).put((byte)0)
                .putShort((short)(random.nextBoolean() ? 1 : 0x05a9)).putInt(7)
                .put(icmp(random.nextBoolean() ? 128 : 129, new byte[8])).array())
                : ip(source, destination, 17, new byte[8]);
            case 0, 1 -> ip(source, destination, 17, new byte[8 + random.nextInt(20)]);
            case 2 -> ip(source, destination, v6 ? 58 : 1, icmp(v6 ? (random.nextBoolean() ? 128 : 129) :
                (random.nextBoolean() ? 8 : 0), new byte[8]));
            // About UDP, or (IPv4) about IP in IP: a router's error about a tunnelled packet, jvs's even to the box.
            case 3 -> ip(source, destination, v6 ? 58 : 1, icmp(v6 ? 1 : 3,
                ip(pick(random, pool, v6), pick(random, pool, v6), !v6 && random.nextBoolean() ? 4 : 17,
                    new byte[8])));
            default -> ip(source, destination, v6 ? 58 : 1, icmp(v6 ? 135 : 11, new byte[8]));
        };
        final int tags = random.nextInt(4) == 0 ? 1 : 0;
        final ByteBuffer frame = ByteBuffer.allocate(14 + 4 * tags + packet.length);
        frame.put(new byte[] {2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2});
        if (tags == 1)
        {
            frame.putShort((short)0x8100).putShort((short)7);
        }
        frame.putShort((short)(v6 ? 0x86DD : 0x0800)).put(packet);
        return frame.array();
    }

    private static IpAddress pick(final Random random, final List<IpAddress> pool, final boolean v6)
    {
        while (true)
        {
            final IpAddress address = pool.get(random.nextInt(pool.size()));
            if (address.isV6() == v6)
            {
                return address;
            }
        }
    }

    private static byte[] icmp(final int type, final byte[] body)
    {
        return ByteBuffer.allocate(8 + body.length).put((byte)type).put(new byte[7]).put(body).array();
    }

    /** An IPv4 (20-byte header) or IPv6 packet; checksums left zero, which no program reads. */
    private static byte[] ip(final IpAddress source, final IpAddress destination, final int protocol,
        final byte[] payload)
    {
        if (source.isV6())
        {
            return ByteBuffer.allocate(40 + payload.length).putInt(6 << 28).putShort((short)payload.length)
                .put((byte)protocol).put((byte)64).putLong(source.high()).putLong(source.low())
                .putLong(destination.high()).putLong(destination.low()).put(payload).array();
        }
        return ByteBuffer.allocate(20 + payload.length).put((byte)0x45).put((byte)0)
            .putShort((short)(20 + payload.length)).putInt(0).put((byte)64).put((byte)protocol).putShort((short)0)
            .putInt(source.v4()).putInt(destination.v4()).put(payload).array();
    }
}
