package io.jvs.nativebindings.bpf;

import java.net.InetAddress;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;

import io.jvs.nativebindings.Syscalls;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fanout program in the interpreter and in the kernel: a client's request and the NAT reply to it go to the
 * client's socket (the hash written out here as a pin; forwarder's {@code FanoutProgramTest} checks it against
 * ClientDispatch itself), every truncation of every frame runs without a fault and to a socket in range, the VIP
 * set is read live, and the kernel (BPF_PROG_TEST_RUN, which hands the program the skb from the network header
 * with tags in the data) decides as the interpreter does. The kernel parts need root, as CI has.
 */
class FanoutProgramsTest
{
    private static final int VIPS_V4_FD = 12;
    private static final int VIPS_V6_FD = 13;
    private static final int PREFIXES_V4_FD = 14;
    private static final int PREFIXES_V6_FD = 15;
    private static final Map<String, Integer> FDS = Map.of(XdpPrograms.VIPS_V4, VIPS_V4_FD, XdpPrograms.VIPS_V6,
        VIPS_V6_FD, XdpPrograms.DESTINATION_PREFIXES_V4, PREFIXES_V4_FD, XdpPrograms.DESTINATION_PREFIXES_V6,
        PREFIXES_V6_FD);

    private static BpfInterpreter interpreter(final int workers, final BpfInterpreter.MapModel vipsV4)
    {
        return interpreter(workers, vipsV4, BpfXdpProgramsTest.tries(FanoutFrames.PREFIXES, 4));
    }

    private static BpfInterpreter interpreter(final int workers, final BpfInterpreter.MapModel vipsV4,
        final BpfInterpreter.MapModel prefixesV4)
    {
        return new BpfInterpreter(FanoutPrograms.clientDispatch(workers).link(FDS), Map.of(VIPS_V4_FD, vipsV4,
            VIPS_V6_FD, BpfInterpreter.MapModel.hash(16, 4).put(FanoutFrames.address(FanoutFrames.VIP_V6),
                new byte[4]), PREFIXES_V4_FD, prefixesV4, PREFIXES_V6_FD,
            BpfXdpProgramsTest.tries(FanoutFrames.PREFIXES, 16)));
    }

    /** Adds {@link FanoutFrames#PREFIXES} to the filter's destination tries. */
    static void addPrefixes(final XdpVipFilter filter) throws Exception
    {
        for (final String text : FanoutFrames.PREFIXES)
        {
            final String[] parts = text.split("/");
            filter.addDestinationPrefix(InetAddress.getByName(parts[0]), Integer.parseInt(parts[1]));
        }
    }

    private static BpfInterpreter.MapModel vipsV4()
    {
        return BpfInterpreter.MapModel.hash(4, 4).put(FanoutFrames.address(FanoutFrames.VIP_V4), new byte[4]);
    }

    private static int socket(final BpfInterpreter program, final byte[] wire)
    {
        return program.run(BpfInterpreter.ProgramType.SOCKET_FILTER, BpfInterpreter.Skb.atFanout(wire)).action();
    }

    /** ClientDispatch's hash, written out: (address * 2654435761 mod 2^32) >>> 16, mod the workers. */
    private static int expected(final String client, final int workers)
    {
        final byte[] bytes = FanoutFrames.address(client);
        int fold = 0;
        for (int i = 0; i < bytes.length; i += 4)
        {
            fold ^= (bytes[i] & 0xff) << 24 | (bytes[i + 1] & 0xff) << 16 | (bytes[i + 2] & 0xff) << 8 |
                bytes[i + 3] & 0xff;
        }
        return ((fold * 0x9E37_79B1) >>> 16) % workers;
    }

    @Test
    void shouldRefuseWorkerCountsClientDispatchRefusesAndNameOnlyTheVirtualMaps()
    {
        assertThatThrownBy(() -> FanoutPrograms.clientDispatch(0)).hasMessageContaining("worker count 0");
        assertThatThrownBy(() -> FanoutPrograms.clientDispatch(65_537)).hasMessageContaining("1..65536");
        final BpfBytecode program = FanoutPrograms.clientDispatch(65_536);
        assertThat(program.mapNames()).containsExactlyInAnyOrder(XdpPrograms.VIPS_V4, XdpPrograms.VIPS_V6,
            XdpPrograms.DESTINATION_PREFIXES_V4, XdpPrograms.DESTINATION_PREFIXES_V6);
        BpfXdpProgramsTest.assertWellFormed(program);
    }

    @ParameterizedTest(name = "{0} workers")
    @ValueSource(ints = {2, 3, 65_536})
    void shouldSendARequestAndTheNatReplyToItToTheClientsSocket(final int workers)
    {
        final BpfInterpreter program = interpreter(workers, vipsV4());
        final Random random = new Random(workers);
        for (int i = 0; i < 200; i++)
        {
            final String client = FanoutFrames.clientV4(random);
            final String client6 = FanoutFrames.clientV6(random);
            assertThat(socket(program, new TestFrame().ipv4(client, FanoutFrames.VIP_V4, 8)))
                .isEqualTo(expected(client, workers));
            assertThat(socket(program, new TestFrame().tag(TestFrame.TPID_8021Q).ipv4(FanoutFrames.REAL_V4, client,
                8))).isEqualTo(expected(client, workers));
            assertThat(socket(program, new TestFrame().ipv6Udp(client6, FanoutFrames.VIP_V6, 8)))
                .isEqualTo(expected(client6, workers));
            assertThat(socket(program, new TestFrame().tag(TestFrame.TPID_8021AD).tag(TestFrame.TPID_8021Q)
                .ipv6Udp(FanoutFrames.REAL_V6, client6, 8))).isEqualTo(expected(client6, workers));
            final String marked = "203.0.113." + random.nextInt(256);
            assertThat(socket(program, new TestFrame().ipv4(client, marked, 8))).as("to a virtual prefix")
                .isEqualTo(expected(client, workers));
            assertThat(socket(program, new TestFrame().ipv4(marked, client, 8))).isEqualTo(expected(client, workers));
            assertThat(socket(program, new TestFrame().ipv6Udp(client6, "2001:db8:cafe::" + i, 8)))
                .isEqualTo(expected(client6, workers));
            assertThat(socket(program, new TestFrame().ipv4(client, "203.0.114.1", 8))).as("just past the prefix")
                .isEqualTo(expected("203.0.114.1", workers));
        }
        assertThat(socket(program, new TestFrame().etherType(TestFrame.ETH_P_ARP, 28))).isZero();
    }

    @Test
    void shouldReadTheVipSetLive()
    {
        final BpfInterpreter.MapModel vips = vipsV4();
        final BpfInterpreter program = interpreter(65_536, vips);
        final byte[] toNewVip = new TestFrame().ipv4("198.18.0.1", "10.77.2.9", 8);

        assertThat(socket(program, toNewVip)).isEqualTo(expected("10.77.2.9", 65_536));
        vips.put(FanoutFrames.address("10.77.2.9"), new byte[4]);
        assertThat(socket(program, toNewVip)).isEqualTo(expected("198.18.0.1", 65_536));
        vips.remove(FanoutFrames.address("10.77.2.9"));
        assertThat(socket(program, toNewVip)).isEqualTo(expected("10.77.2.9", 65_536));
    }

    @Test
    void shouldReadThePrefixSetLive()
    {
        final BpfInterpreter.MapModel prefixes = BpfInterpreter.MapModel.lpmTrie(4, 4);
        final BpfInterpreter program = interpreter(65_536, vipsV4(), prefixes);
        final byte[] toMarked = new TestFrame().ipv4("198.18.0.1", "192.0.2.77", 8);
        final byte[] key = BpfXdpProgramsTest.trieKey(FanoutFrames.address("192.0.2.0"), 24);

        assertThat(socket(program, toMarked)).isEqualTo(expected("192.0.2.77", 65_536));
        prefixes.put(key, new byte[4]);
        assertThat(socket(program, toMarked)).isEqualTo(expected("198.18.0.1", 65_536));
        prefixes.remove(key);
        assertThat(socket(program, toMarked)).isEqualTo(expected("192.0.2.77", 65_536));
    }

    static LongStream seeds()
    {
        return LongStream.rangeClosed(1, 6);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldRunEveryTruncationWithoutAFaultToASocketInRange(final long seed)
    {
        final BpfInterpreter program = interpreter(3, vipsV4());
        final Random random = new Random(seed);
        final int[] perSocket = new int[3];
        for (int i = 0; i < 100; i++)
        {
            final byte[] frame = FanoutFrames.random(random);
            for (int length = 0; length <= frame.length; length++)
            {
                final byte[] truncated = Arrays.copyOf(frame, length);
                if (BpfInterpreter.Skb.reachesPrograms(truncated))
                {
                    final int socket = socket(program, truncated);
                    assertThat(socket).as("%s", Arrays.toString(truncated)).isBetween(0, 2);
                    perSocket[socket]++;
                }
            }
        }
        assertThat(perSocket[1]).isPositive();
        assertThat(perSocket[2]).isPositive();
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldPlaceInTheKernelAsInTheInterpreter(final long seed) throws Exception
    {
        final Syscalls syscalls = Syscalls.create();
        try (XdpVipFilter filter = XdpVipFilter.create(syscalls, 16);
             BpfProgram kernel = FanoutPrograms.load(syscalls, 7, filter))
        {
            filter.addVip(InetAddress.getByName(FanoutFrames.VIP_V4));
            filter.addVip(InetAddress.getByName(FanoutFrames.VIP_V6));
            addPrefixes(filter);
            final BpfInterpreter interpreter = interpreter(7, vipsV4());
            final Random random = new Random(seed);
            int placed = 0;
            for (int i = 0; i < 500; i++)
            {
                final byte[] frame = FanoutFrames.random(random);
                if (!FanoutFrames.testRunTakes(frame))
                {
                    continue;
                }
                // The test run leaves every tag in the data, skb->protocol the outer EtherType.
                final BpfInterpreter.Skb skb = new BpfInterpreter.Skb(Arrays.copyOfRange(frame, 14, frame.length),
                    (frame[12] & 0xff) << 8 | frame[13] & 0xff, false);
                final int socket = kernel.testRun(frame);
                assertThat(socket).as("%s", Arrays.toString(frame))
                    .isEqualTo(interpreter.run(BpfInterpreter.ProgramType.SOCKET_FILTER, skb).action());
                placed += socket != 0 ? 1 : 0;
            }
            assertThat(placed).isGreaterThan(100);
        }
    }
}
