package io.jvs.nativebindings.bpf;

import java.net.InetAddress;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.jvs.nativebindings.Syscalls;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static io.jvs.nativebindings.bpf.BpfRegister.R0;
import static io.jvs.nativebindings.bpf.BpfRegister.R1;
import static io.jvs.nativebindings.bpf.BpfRegister.R2;
import static io.jvs.nativebindings.bpf.BpfRegister.R3;
import static io.jvs.nativebindings.bpf.BpfRegister.R5;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Programs in the kernel: the verifier accepts jvs's two programs, refuses a broken one with its log in
 * the exception, and the kernel running program 2 on a frame (BPF_PROG_TEST_RUN) decides as the test
 * interpreter does. Needs root (CAP_BPF, CAP_NET_ADMIN), as CI has.
 */
class BpfProgramTest
{
    private static final int EACCES = 13;
    private static final Pattern PROCESSED = Pattern.compile("processed (\\d+) insns");

    private final Syscalls syscalls = Syscalls.create();

    @Test
    void shouldLoadProgramOneAndReportWhatTheVerifierProcessed()
    {
        try (BpfMap xsks = BpfMap.createXskMap(syscalls, "jvs_test_xsks", 2);
             BpfProgram program = BpfProgram.loadXdpWithLog(syscalls, "jvs_all",
                 XdpPrograms.redirectAll(XdpAction.PASS).link(Map.of(XdpPrograms.XSKS, xsks.fd())),
                 BpfProgram.LOG_LEVEL_VERBOSE))
        {
            assertThat(processedInstructions(program)).isEqualTo(5);
            assertThat(program.id()).isPositive();
            assertThat(program.testRun(new TestFrame().etherType(TestFrame.ETH_P_ARP, 28))).isEqualTo(XdpAction.PASS);
        }
    }

    @Test
    void shouldLoadProgramTwoQuietlyAndWithALog()
    {
        try (BpfMap xsks = BpfMap.createXskMap(syscalls, "jvs_test_xsks", 2);
             XdpVipFilter filter = XdpVipFilter.create(syscalls, 16);
             BpfProgram quiet = filter.loadProgram(syscalls, "jvs_vips", xsks);
             BpfProgram logged = BpfProgram.loadXdpWithLog(syscalls, "jvs_vips_log",
                 XdpPrograms.redirectJvsTraffic(XdpAction.PASS).link(filter.mapFds(xsks)),
                 BpfProgram.LOG_LEVEL_VERBOSE))
        {
            assertThat(quiet.verifierLog()).isEmpty();
            assertThat(quiet.id()).isNotEqualTo(logged.id());
            // Every path is walked separately (0 to 2 VLAN tags, two families): far more than the program's slots.
            assertThat(processedInstructions(logged)).isGreaterThan(logged.slotCount());
        }
    }

    @Test
    void shouldRefuseAProgramWithoutItsBoundsCheckAndShowTheVerifierLog()
    {
        // Program 2 of the notes without "if r4 > r3 goto pass": the packet read at +12 is unchecked.
        final BpfBytecode unchecked = new BpfAssembler()
            .load(BpfSize.WORD, R2, R1, XdpMetadata.DATA)
            .load(BpfSize.WORD, R3, R1, XdpMetadata.DATA_END)
            .load(BpfSize.HALF, R5, R2, 12)
            .mov64(R0, XdpAction.PASS)
            .exit()
            .build();

        assertThatThrownBy(() -> BpfProgram.loadXdp(syscalls, "jvs_broken", unchecked))
            .isInstanceOfSatisfying(BpfVerifierException.class, ex ->
            {
                assertThat(ex.errno()).isEqualTo(EACCES);
                assertThat(ex.verifierLog()).contains("invalid access to packet");
            })
            .hasMessageContaining("jvs_broken").hasMessageContaining("EACCES")
            .hasMessageContaining("verifier log:").hasMessageContaining("invalid access to packet")
            .hasMessageContaining("r5 = *(u16 *)(r2 +12)");
    }

    @Test
    void shouldRefuseAProgramThatReturnsNothing()
    {
        final BpfBytecode noResult = new BpfAssembler().exit().build();

        assertThatThrownBy(() -> BpfProgram.loadXdp(syscalls, "jvs_no_r0", noResult))
            .isInstanceOf(BpfVerifierException.class).hasMessageContaining("R0 !read_ok");
    }

    @Test
    void shouldRefuseAnUnlinkedProgramOrABadNameBeforeAskingTheKernel()
    {
        assertThatThrownBy(() -> BpfProgram.loadXdp(syscalls, "jvs_all", XdpPrograms.redirectAll(XdpAction.PASS)))
            .hasMessageContaining("[xsks]");
        assertThatThrownBy(() -> BpfProgram.loadXdp(syscalls, "a-name-far-too-long", new BpfAssembler()
            .mov64(R0, 2).exit().build())).isInstanceOf(IllegalArgumentException.class);
    }

    static java.util.stream.Stream<Arguments> namedFrames()
    {
        return BpfXdpProgramsTest.namedFrames();
    }

    /**
     * With XDP_TX as the fallback and no socket in the XSKMAP, a frame the program would redirect comes back
     * as XDP_TX from the kernel, so the kernel's decision is visible without an AF_XDP socket.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("namedFrames")
    void shouldDecideInTheKernelAsTheInterpreterDoes(
        final String description, final byte[] frame, final boolean isJvsTraffic) throws Exception
    {
        try (KernelAndInterpreter both = new KernelAndInterpreter())
        {
            assertThat(both.kernel(frame)).isEqualTo(isJvsTraffic ? XdpAction.TX : XdpAction.PASS);
            assertThat(both.interpreter(frame)).isEqualTo(both.kernel(frame));
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("io.jvs.nativebindings.bpf.BpfXdpProgramsTest#seeds")
    void shouldDecideInTheKernelAsTheInterpreterDoesOnRandomFrames(final long seed) throws Exception
    {
        final Random random = new Random(seed);
        try (KernelAndInterpreter both = new KernelAndInterpreter())
        {
            int redirected = 0;
            for (int i = 0; i < 300; i++)
            {
                byte[] frame = BpfXdpProgramsTest.randomFrame(random);
                // BPF_PROG_TEST_RUN takes no XDP input shorter than an Ethernet header.
                frame = frame.length < 14 ? Arrays.copyOf(frame, 14) : frame;
                final int kernel = both.kernel(frame);
                assertThat(both.interpreter(frame)).as("frame %s", Arrays.toString(frame)).isEqualTo(kernel);
                redirected += kernel == XdpAction.TX ? 1 : 0;
            }
            assertThat(redirected).isBetween(30, 270);
            assertThat(both.filter.unplacedFrames()).as("each one counted, the XSKMAP being empty")
                .isEqualTo(redirected);
        }
    }

    @Test
    void shouldSeeMapUpdatesOnTheNextPacket() throws Exception
    {
        try (KernelAndInterpreter both = new KernelAndInterpreter())
        {
            final InetAddress newVip = InetAddress.getByName("192.0.2.9");
            final byte[] frame = new TestFrame().tag(TestFrame.TPID_8021Q).ipv4("198.51.100.7", "192.0.2.9", 10);

            assertThat(both.kernel(frame)).isEqualTo(XdpAction.PASS);
            both.filter.addVip(newVip);
            assertThat(both.kernel(frame)).isEqualTo(XdpAction.TX);
            assertThat(both.filter.removeVip(newVip)).isTrue();
            assertThat(both.kernel(frame)).isEqualTo(XdpAction.PASS);
        }
    }

    /**
     * A socket filter copying 4 bytes of the packet into its stack, byte-swapping them two ways, adding one into an
     * array counter atomically, and returning a mix, or 0xdead when the copy fails: run by the kernel and by the
     * interpreter on the same frames, with the same results and the same count.
     */
    @Test
    void shouldCopySwapAndAddInTheKernelAsTheInterpreterDoes()
    {
        final BpfBytecode code = new BpfAssembler()
            .mov64(BpfRegister.R6, R1)
            .mov64(R1, BpfRegister.R6)
            .mov64(R2, 2)
            .mov64(R3, BpfRegister.R10)
            .add64(R3, -8)
            .mov64(BpfRegister.R4, 4)
            .call(BpfHelper.SKB_LOAD_BYTES)
            .jumpIf(R0, BpfCondition.NOT_EQUAL, 0, "failed")
            .load(BpfSize.WORD, BpfRegister.R7, BpfRegister.R10, -8)
            .toBigEndian(BpfRegister.R7, 32)
            .load(BpfSize.HALF, BpfRegister.R8, BpfRegister.R10, -8)
            .toBigEndian(BpfRegister.R8, 16)
            .storeImmediate(BpfSize.WORD, BpfRegister.R10, -12, 0)
            .loadMap(R1, "counter")
            .mov64(R2, BpfRegister.R10)
            .add64(R2, -12)
            .call(BpfHelper.MAP_LOOKUP_ELEM)
            .jumpIf(R0, BpfCondition.EQUAL, 0, "failed")
            .atomicAdd(BpfSize.DOUBLE, R0, 0, BpfRegister.R8)
            .mov64(R0, BpfRegister.R7)
            .alu64(BpfOpcode.ALU_XOR, R0, BpfRegister.R8)
            .exit()
            .label("failed")
            .mov64(R0, 0xdead)
            .exit()
            .build();
        try (BpfMap counter = BpfMap.createArray(syscalls, "jvs_test_count", Long.BYTES, 1);
             BpfProgram program = BpfProgram.load(syscalls, BpfProgram.TYPE_SOCKET_FILTER, 0, "jvs_test_swap",
                 code.link(Map.of("counter", counter.fd())), 0))
        {
            final BpfInterpreter.MapModel model = BpfInterpreter.MapModel.array(8, 1);
            final BpfInterpreter interpreter = new BpfInterpreter(code.link(Map.of("counter", 3)), Map.of(3, model));
            final byte[][] frames = {new TestFrame().ipv4("10.1.2.3", "10.4.5.6", 300),
                new TestFrame().ipv6Udp("2001:db8::1", "2001:db8::2", 0), new TestFrame().etherType(0x0806, 5),
                new TestFrame().etherType(0x0806, 6)};
            for (final byte[] frame : frames)
            {
                final BpfInterpreter.Skb skb = new BpfInterpreter.Skb(Arrays.copyOfRange(frame, 14, frame.length),
                    (frame[12] & 0xff) << 8 | frame[13] & 0xff, false);
                assertThat(program.testRun(frame)).as("%s", Arrays.toString(frame))
                    .isEqualTo(interpreter.run(BpfInterpreter.ProgramType.SOCKET_FILTER, skb).action());
            }
            assertThat(program.testRun(frames[0])).as("total length 328, identification 1")
                .isEqualTo(0x0148_0001 ^ 0x0148);
            assertThat(program.testRun(frames[2])).as("5 bytes: no 4 from offset 2").isEqualTo(0xdead);
            assertThat(model.counter(0)).isEqualTo(0x0148);
            assertThat(littleEndianLong(counter.lookup(0).orElseThrow())).as("one more IPv4 run in the kernel")
                .isEqualTo(2 * 0x0148);
        }
    }

    private static long littleEndianLong(final byte[] bytes)
    {
        return java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /** Program 2 loaded with the test's addresses, and the interpreter over the same (XSKMAP empty). */
    private final class KernelAndInterpreter implements AutoCloseable
    {
        private final BpfMap xsks = BpfMap.createXskMap(syscalls, "jvs_test_xsks", 2);
        private final XdpVipFilter filter = XdpVipFilter.create(syscalls, 16);
        private final BpfProgram program;
        private final BpfInterpreter interpreter;

        KernelAndInterpreter() throws Exception
        {
            filter.addVip(InetAddress.getByName(BpfXdpProgramsTest.VIP_V4));
            filter.addVip(InetAddress.getByName(BpfXdpProgramsTest.VIP_V6));
            filter.addRealServer(InetAddress.getByName(BpfXdpProgramsTest.REAL_V4));
            filter.addRealServer(InetAddress.getByName(BpfXdpProgramsTest.REAL_V6));
            filter.addLocalAddress(InetAddress.getByName(BpfXdpProgramsTest.BOX_V4));
            filter.addLocalAddress(InetAddress.getByName(BpfXdpProgramsTest.BOX_V6));
            TcProgramsTest.addPrefixes(filter);
            program = filter.loadProgram(syscalls, "jvs_vips_tx", xsks, XdpAction.TX);
            final BpfBytecode code = XdpPrograms.redirectJvsTraffic(XdpAction.TX);
            interpreter = new BpfInterpreter(code.link(BpfXdpProgramsTest.FAKE_FDS), BpfXdpProgramsTest.addressMaps(
                BpfInterpreter.MapModel.xskMap(), BpfInterpreter.MapModel.array(8, 1)));
        }

        int kernel(final byte[] frame)
        {
            return program.testRun(frame);
        }

        int interpreter(final byte[] frame)
        {
            return interpreter.run(frame, 0).action();
        }

        @Override
        public void close()
        {
            program.close();
            filter.close();
            xsks.close();
        }
    }

    private static int processedInstructions(final BpfProgram program)
    {
        final Matcher matcher = PROCESSED.matcher(program.verifierLog());
        assertThat(matcher.find()).as("verifier log: %s", program.verifierLog()).isTrue();
        return Integer.parseInt(matcher.group(1));
    }
}
