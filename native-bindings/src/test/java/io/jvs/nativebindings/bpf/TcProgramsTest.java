package io.jvs.nativebindings.bpf;

import java.net.InetAddress;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.testing.RawPacketSocket;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static io.jvs.nativebindings.bpf.BpfRegister.R0;
import static io.jvs.nativebindings.bpf.BpfRegister.R1;
import static io.jvs.nativebindings.bpf.BpfRegister.R10;
import static io.jvs.nativebindings.bpf.BpfRegister.R2;
import static io.jvs.nativebindings.bpf.BpfRegister.R3;
import static io.jvs.nativebindings.bpf.BpfRegister.R4;
import static io.jvs.nativebindings.bpf.BpfRegister.R5;
import static io.jvs.nativebindings.bpf.BpfSize.BYTE;
import static io.jvs.nativebindings.bpf.BpfSize.DOUBLE;
import static io.jvs.nativebindings.bpf.BpfSize.WORD;
import static io.jvs.nativebindings.bpf.TestFrame.TPID_8021AD;
import static io.jvs.nativebindings.bpf.TestFrame.TPID_8021Q;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tc programs: the drop-all program is {@code r0 = TCX_DROP; exit}; the selective one drops exactly what the
 * XDP program redirects, on the frame as tcx ingress sees it (from the MAC header, an outer tag offloaded): in the
 * interpreter for every truncation of the XDP tests' frames and for random frames, in the kernel
 * (BPF_PROG_TEST_RUN, tags in the data), and on a veth, where a second tcx program counts what the first lets
 * through. The kernel parts need root, as CI has.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TcProgramsTest
{
    private static final BpfInterpreter XDP = BpfXdpProgramsTest.interpreter(
        XdpPrograms.redirectJvsTraffic(XdpAction.PASS), BpfInterpreter.MapModel.array(8, 1));
    private static final BpfInterpreter STEAL = new BpfInterpreter(
        TcPrograms.stealJvsTraffic().link(BpfXdpProgramsTest.FAKE_FDS),
        BpfXdpProgramsTest.addressMaps(BpfInterpreter.MapModel.xskMap(), BpfInterpreter.MapModel.array(8, 1)));

    @Test
    void shouldDropEveryFrame()
    {
        final BpfBytecode program = TcPrograms.dropAll();

        assertThat(program.slotCount()).isEqualTo(2);
        assertThat(program.slot(0)).isEqualTo(BpfInstruction.encode(0xb7, 0, 0, 0, TcPrograms.DROP));
        assertThat(program.slot(1)).isEqualTo(BpfInstruction.encode(0x95, 0, 0, 0, 0));
        assertThat(program.mapNames()).isEmpty();
        assertThat(program.isLinked()).isTrue();
    }

    @Test
    void shouldNameTheAddressMapsOnly()
    {
        final BpfBytecode program = TcPrograms.stealJvsTraffic();

        assertThat(program.mapNames()).containsExactlyInAnyOrder(XdpPrograms.VIPS_V4, XdpPrograms.VIPS_V6,
            XdpPrograms.REAL_SERVERS_V4, XdpPrograms.REAL_SERVERS_V6, XdpPrograms.LOCALS_V4, XdpPrograms.LOCALS_V6,
            XdpPrograms.DESTINATION_PREFIXES_V4, XdpPrograms.DESTINATION_PREFIXES_V6, XdpPrograms.SOURCE_PREFIXES_V4,
            XdpPrograms.SOURCE_PREFIXES_V6);
        BpfXdpProgramsTest.assertWellFormed(program);
    }

    static java.util.stream.Stream<Arguments> namedFrames()
    {
        return BpfXdpProgramsTest.namedFrames();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("namedFrames")
    void shouldDropWhatTheXdpProgramRedirectsInEveryTruncation(
        final String description, final byte[] frame, final boolean isJvsTraffic)
    {
        assertThat(steal(frame)).isEqualTo(isJvsTraffic ? TcPrograms.DROP : TcPrograms.NEXT);
        for (int length = 0; length <= frame.length; length++)
        {
            final byte[] truncated = Arrays.copyOf(frame, length);
            if (BpfInterpreter.Skb.reachesPrograms(truncated))
            {
                assertThat(steal(truncated)).as("%d of %d bytes", length, frame.length).isEqualTo(xdp(truncated));
            }
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("io.jvs.nativebindings.bpf.BpfXdpProgramsTest#seeds")
    void shouldDropWhatTheXdpProgramRedirectsOnRandomFrames(final long seed)
    {
        final Random random = new Random(seed);
        int dropped = 0;
        for (int i = 0; i < 2_000; i++)
        {
            final byte[] frame = BpfXdpProgramsTest.randomFrame(random);
            if (BpfInterpreter.Skb.reachesPrograms(frame))
            {
                final int verdict = steal(frame);
                assertThat(verdict).as("frame %s", Arrays.toString(frame)).isEqualTo(xdp(frame));
                dropped += verdict == TcPrograms.DROP ? 1 : 0;
            }
        }
        assertThat(dropped).isBetween(200, 1_800);
    }

    /** The tcx verdict on the frame as received; the XDP verdict as the tcx verdict it must equal. */
    private static int steal(final byte[] wire)
    {
        return STEAL.run(BpfInterpreter.ProgramType.SCHED_CLS, BpfInterpreter.Skb.atTcIngress(wire)).action();
    }

    private static int xdp(final byte[] wire)
    {
        return XDP.run(wire, 0).action() == XdpAction.REDIRECT ? TcPrograms.DROP : TcPrograms.NEXT;
    }

    @Test
    void shouldDecideInTheKernelAsTheXdpProgramDoes() throws Exception
    {
        final Syscalls syscalls = Syscalls.create();
        try (XdpVipFilter filter = testFilter(syscalls);
             BpfMap xsks = BpfMap.createXskMap(syscalls, "jvs_test_xsks", 1);
             BpfProgram steal = TcPrograms.loadStealJvsTraffic(syscalls, filter);
             BpfProgram xdp = filter.loadProgram(syscalls, "jvs_vips_tx", xsks, XdpAction.TX))
        {
            final Random random = new Random(42);
            int dropped = 0;
            for (int i = 0; i < 1_000; i++)
            {
                final byte[] frame = BpfXdpProgramsTest.randomFrame(random);
                if (!FanoutFrames.testRunTakes(frame))
                {
                    continue;
                }
                final int verdict = steal.testRun(frame);
                assertThat(verdict).as("frame %s", Arrays.toString(frame))
                    .isEqualTo(xdp.testRun(frame) == XdpAction.TX ? TcPrograms.DROP : TcPrograms.NEXT);
                dropped += verdict == TcPrograms.DROP ? 1 : 0;
            }
            assertThat(dropped).isBetween(100, 900);
        }
    }

    /**
     * Frames put on g0 reach fA's tcx ingress, where the steal program runs first and a counter second: the
     * counter sees what the steal program lets through, by the last byte of the frame's source MAC. An outer tag
     * is offloaded by then, and the program still counts it as one of the two it looks behind.
     */
    @Test
    void shouldStealOnlyJvsTrafficFromAVethWithTagsOffloaded() throws Exception
    {
        final Map<String, byte[]> stolen = new LinkedHashMap<>();
        stolen.put("IPv4 to a VIP", new TestFrame().ipv4(BpfXdpProgramsTest.CLIENT_V4, BpfXdpProgramsTest.VIP_V4, 8));
        stolen.put("802.1Q IPv4 to a VIP",
            new TestFrame().tag(TPID_8021Q).ipv4(BpfXdpProgramsTest.CLIENT_V4, BpfXdpProgramsTest.VIP_V4, 8));
        stolen.put("QinQ IPv6 to a VIP", new TestFrame().tag(TPID_8021AD).tag(TPID_8021Q)
            .ipv6Udp(BpfXdpProgramsTest.CLIENT_V6, BpfXdpProgramsTest.VIP_V6, 8));
        stolen.put("NAT reply", new TestFrame().ipv4(BpfXdpProgramsTest.REAL_V4, BpfXdpProgramsTest.CLIENT_V4, 8));
        final Map<String, byte[]> kept = new LinkedHashMap<>();
        kept.put("IPv4 to the box", new TestFrame().ipv4(BpfXdpProgramsTest.CLIENT_V4, BpfXdpProgramsTest.BOX_V4, 8));
        kept.put("802.1Q IPv4 elsewhere",
            new TestFrame().tag(TPID_8021Q).ipv4(BpfXdpProgramsTest.CLIENT_V4, "192.0.2.1", 8));
        kept.put("three tags to a VIP", new TestFrame().tag(TPID_8021AD).tag(TPID_8021Q).tag(TPID_8021Q)
            .ipv4(BpfXdpProgramsTest.CLIENT_V4, BpfXdpProgramsTest.VIP_V4, 8));
        kept.put("echo request to a VIP",
            new TestFrame().icmpv4(BpfXdpProgramsTest.CLIENT_V4, BpfXdpProgramsTest.VIP_V4, 8, 0, 0));
        kept.put("802.1Q neighbour solicitation to a VIP",
            new TestFrame().tag(TPID_8021Q).icmpv6(BpfXdpProgramsTest.CLIENT_V6, BpfXdpProgramsTest.VIP_V6, 135));
        kept.put("ARP", new TestFrame().etherType(TestFrame.ETH_P_ARP, 28));
        final int copies = 5;
        try (TestNetwork network = TestNetwork.create("tcsteal"))
        {
            final String generator = network.namespace("g");
            final String box = network.namespace("f");
            // No neighbour discovery or MLD from the veths: their source MACs could look like a marker.
            for (final String namespace : network.namespaces())
            {
                network.inNamespace(namespace, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1");
                network.inNamespace(namespace, "sysctl", "-q", "-w", "net.ipv6.conf.default.disable_ipv6=1");
            }
            network.veth(generator, "g0", box, "fa");
            TestNetwork.callIn(box, () ->
            {
                final Syscalls syscalls = Syscalls.create();
                try (XdpVipFilter filter = testFilter(syscalls);
                     BpfMap counts = BpfMap.createArray(syscalls, "jvs_test_seen", Long.BYTES, 256);
                     BpfProgram steal = TcPrograms.loadStealJvsTraffic(syscalls, filter);
                     BpfProgram counter = BpfProgram.load(syscalls, BpfProgram.TYPE_SCHED_CLS,
                         TcxDirection.INGRESS.attachType(), "jvs_test_count",
                         countBySourceMac().link(Map.of("counts", counts.fd())), 0);
                     TcxLink first = TcxLink.attach(syscalls, steal, "fa", TcxDirection.INGRESS);
                     TcxLink second = TcxLink.attach(syscalls, counter, "fa", TcxDirection.INGRESS);
                     RawPacketSocket sender = RawPacketSocket.open(generator, "g0", 0))
                {
                    assertThat(TcxLink.attachedProgramIds(syscalls, "fa", TcxDirection.INGRESS))
                        .containsExactly(steal.id(), counter.id());
                    int marker = 1;
                    for (final byte[] frame : stolen.values())
                    {
                        frame[11] = (byte)marker++;
                    }
                    for (final byte[] frame : kept.values())
                    {
                        frame[11] = (byte)marker++;
                    }
                    for (int copy = 0; copy < copies; copy++)
                    {
                        stolen.values().forEach(sender::send);
                        kept.values().forEach(sender::send);
                    }
                    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                    while (kept.values().stream().anyMatch(frame -> seen(counts, frame) < copies) &&
                        System.nanoTime() - deadline < 0)
                    {
                        Thread.sleep(10);
                    }
                    kept.forEach((name, frame) -> assertThat(seen(counts, frame)).as(name).isEqualTo(copies));
                    stolen.forEach((name, frame) -> assertThat(seen(counts, frame)).as(name).isZero());
                }
                return null;
            });
        }
    }

    private static long seen(final BpfMap counts, final byte[] frame)
    {
        return java.nio.ByteBuffer.wrap(counts.lookup(frame[11] & 0xff).orElseThrow())
            .order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /** {@code counts[source MAC's last byte]++; return TCX_NEXT} for every frame it gets. */
    private static BpfBytecode countBySourceMac()
    {
        return new BpfAssembler()
            .load(WORD, R2, R1, SkbContext.DATA)
            .load(WORD, R3, R1, SkbContext.DATA_END)
            .mov64(R4, R2)
            .add64(R4, 12)
            .jumpIf(R4, BpfCondition.GREATER, R3, "out")
            .load(BYTE, R5, R2, 11)
            .store(WORD, R10, -4, R5)
            .loadMap(R1, "counts")
            .mov64(R2, R10)
            .add64(R2, -4)
            .call(BpfHelper.MAP_LOOKUP_ELEM)
            .jumpIf(R0, BpfCondition.EQUAL, 0, "out")
            .mov64(R1, 1)
            .atomicAdd(DOUBLE, R0, 0, R1)
            .label("out")
            .mov64(R0, TcPrograms.NEXT)
            .exit()
            .build();
    }

    /** A filter holding the XDP tests' VIPs, real servers and box addresses. */
    static XdpVipFilter testFilter(final Syscalls syscalls) throws Exception
    {
        final XdpVipFilter filter = XdpVipFilter.create(syscalls, 16);
        filter.addVip(InetAddress.getByName(BpfXdpProgramsTest.VIP_V4));
        filter.addVip(InetAddress.getByName(BpfXdpProgramsTest.VIP_V6));
        filter.addRealServer(InetAddress.getByName(BpfXdpProgramsTest.REAL_V4));
        filter.addRealServer(InetAddress.getByName(BpfXdpProgramsTest.REAL_V6));
        filter.addLocalAddress(InetAddress.getByName(BpfXdpProgramsTest.BOX_V4));
        filter.addLocalAddress(InetAddress.getByName(BpfXdpProgramsTest.BOX_V6));
        addPrefixes(filter);
        return filter;
    }

    /** The XDP tests' destination and source prefixes, into the filter's tries. */
    static void addPrefixes(final XdpVipFilter filter) throws Exception
    {
        for (final String text : BpfXdpProgramsTest.DESTINATION_PREFIXES)
        {
            final String[] parts = text.split("/");
            filter.addDestinationPrefix(InetAddress.getByName(parts[0]), Integer.parseInt(parts[1]));
        }
        for (final String text : BpfXdpProgramsTest.SOURCE_PREFIXES)
        {
            final String[] parts = text.split("/");
            filter.addSourcePrefix(InetAddress.getByName(parts[0]), Integer.parseInt(parts[1]));
        }
    }
}
