package io.jvs.nativebindings.bpf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;

import io.jvs.nativebindings.Sockets;
import io.jvs.nativebindings.Syscalls;
import io.jvs.nativebindings.packet.AfPacket;
import io.jvs.nativebindings.packet.SockaddrLl;
import io.jvs.nativebindings.testing.RawPacketSocket;
import io.jvs.nativebindings.testing.TestNetwork;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The neighbour solicitation filter in the interpreter (as {@code packet_rcv} runs it: data from the MAC header)
 * and on a real AF_PACKET socket in a namespace, where the kernel decides what the socket queues: only
 * solicitations pass, whole; other ICMPv6, other IPv6, a solicitation behind an extension header or cut short do
 * not. The kernel part needs root, as CI has.
 */
class NeighbourSolicitationFilterTest
{
    private static final int SO_ATTACH_BPF = 50;
    private static final String SOURCE = "2001:db8:77::1";
    private static final String TARGET = "2001:db8:77::2";
    private static final String SOLICITED_NODE = "ff02::1:ff00:2";
    private static final int HOP_BY_HOP = 0;

    private static final BpfInterpreter PROGRAM = new BpfInterpreter(NeighbourSolicitationFilter.program(),
        java.util.Map.of());

    private static int kept(final byte[] frame)
    {
        return PROGRAM.run(BpfInterpreter.ProgramType.SOCKET_FILTER, BpfInterpreter.Skb.atTcIngress(frame)).action();
    }

    private static byte[] solicitation()
    {
        return new TestFrame().icmpv6(SOURCE, SOLICITED_NODE, 135);
    }

    /** The frames that must not pass, each different from a solicitation in one way. */
    private static List<byte[]> others()
    {
        final byte[] code1 = solicitation();
        code1[14 + 40 + 1] = 1;
        final byte[] version4 = solicitation();
        version4[14] = 0x40;
        final byte[] behindHopByHop = new TestFrame().ipv6(SOURCE, SOLICITED_NODE, HOP_BY_HOP,
            concat(new byte[] {58, 0, 5, 2, 0, 0, 1, 0}, Arrays.copyOfRange(solicitation(), 54, 78)));
        return List.of(
            new TestFrame().icmpv6(SOURCE, SOLICITED_NODE, 136),
            new TestFrame().icmpv6(SOURCE, TARGET, 128),
            new TestFrame().icmpv6(SOURCE, TARGET, 133),
            new TestFrame().ipv6Udp(SOURCE, TARGET, 32),
            new TestFrame().ipv4("10.0.0.1", "10.0.0.2", 32),
            new TestFrame().etherType(TestFrame.ETH_P_ARP, 28),
            code1,
            version4,
            behindHopByHop,
            Arrays.copyOf(solicitation(), NeighbourSolicitationFilter.MINIMUM_FRAME - 1));
    }

    private static byte[] concat(final byte[] first, final byte[] second)
    {
        final byte[] both = Arrays.copyOf(first, first.length + second.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }

    @Test
    void shouldKeepASolicitationWholeAndDropEverythingElse()
    {
        BpfXdpProgramsTest.assertWellFormed(NeighbourSolicitationFilter.program());
        assertThat(NeighbourSolicitationFilter.program().mapNames()).isEmpty();
        final byte[] solicitation = solicitation();
        assertThat(kept(solicitation)).isEqualTo(solicitation.length);
        final byte[] withOption = new TestFrame().ipv6(SOURCE, SOLICITED_NODE, 58,
            concat(Arrays.copyOfRange(solicitation, 54, 78), new byte[] {1, 1, 2, 0, 0, 0, 0, 9}));
        assertThat(kept(withOption)).isEqualTo(withOption.length);
        for (final byte[] other : others())
        {
            assertThat(kept(other)).as("%s", Arrays.toString(other)).isZero();
        }
        // A tag the receive path left in the metadata: the answer would need it, so the frame is not kept.
        assertThat(kept(new TestFrame().tag(TestFrame.TPID_8021Q).icmpv6(SOURCE, SOLICITED_NODE, 135))).isZero();
    }

    static LongStream seeds()
    {
        return LongStream.rangeClosed(1, 4);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldRunEveryTruncationOfAnyFrameWithoutAFault(final long seed)
    {
        final Random random = new Random(seed);
        for (int i = 0; i < 50; i++)
        {
            final byte[] frame = random.nextBoolean() ? solicitation() : FanoutFrames.random(random);
            for (int length = 0; length <= frame.length; length++)
            {
                final byte[] truncated = Arrays.copyOf(frame, length);
                if (BpfInterpreter.Skb.reachesPrograms(truncated))
                {
                    final int kept = kept(truncated);
                    assertThat(kept).isIn(0, truncated.length);
                }
            }
        }
    }

    @Test
    void shouldLetARealPacketSocketQueueOnlyTheSolicitationsTheKernelHandsIt() throws Exception
    {
        final Syscalls syscalls = Syscalls.create();
        try (TestNetwork network = TestNetwork.create("nsfilter");
             BpfProgram program = NeighbourSolicitationFilter.load(syscalls);
             Arena arena = Arena.ofShared())
        {
            final String here = network.namespace("a");
            final String peer = network.namespace("b");
            network.veth(here, "nsf0", peer, "nsf1");
            final int fd = TestNetwork.callIn(here, () -> filteredSocket(syscalls, arena, program.fd(), "nsf0"));
            try (RawPacketSocket sender = RawPacketSocket.open(peer, "nsf1", 0))
            {
                final List<byte[]> expected = new ArrayList<>();
                for (final byte[] other : others())
                {
                    sender.send(other);
                }
                final byte[] solicitation = solicitation();
                sender.send(solicitation);
                expected.add(solicitation);
                final byte[] padded = Arrays.copyOf(solicitation, solicitation.length + 8);
                padded[14 + 5] = 32;
                sender.send(padded);
                expected.add(padded);
                // Give the veth's backlog time to deliver all of them.
                Thread.sleep(200);
                final List<byte[]> queued = drain(syscalls, arena, fd, SOURCE);
                assertThat(queued).hasSize(expected.size());
                for (int i = 0; i < expected.size(); i++)
                {
                    assertThat(queued.get(i)).isEqualTo(expected.get(i));
                }
            }
            finally
            {
                syscalls.close(fd);
            }
        }
    }

    private static int filteredSocket(final Syscalls syscalls, final Arena arena, final int programFd,
        final String device)
    {
        final int fd = syscalls.socket(AfPacket.AF_PACKET, Sockets.SOCK_RAW | Sockets.SOCK_CLOEXEC,
            Sockets.htons(AfPacket.ETH_P_IPV6));
        assertThat(fd).as("AF_PACKET socket").isPositive();
        final MemorySegment value = arena.allocate(JAVA_INT);
        value.set(JAVA_INT, 0, programFd);
        assertThat(syscalls.setsockopt(fd, Sockets.SOL_SOCKET, SO_ATTACH_BPF, value.address(), Integer.BYTES))
            .as("SO_ATTACH_BPF").isZero();
        final MemorySegment address = arena.allocate(SockaddrLl.LAYOUT);
        address.set(JAVA_SHORT, SockaddrLl.FAMILY_OFFSET, (short)AfPacket.AF_PACKET);
        address.set(JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN), SockaddrLl.PROTOCOL_OFFSET,
            (short)AfPacket.ETH_P_IPV6);
        address.set(JAVA_INT, SockaddrLl.IFINDEX_OFFSET, syscalls.ifNameToIndex(device));
        assertThat(syscalls.bind(fd, address.address(), SockaddrLl.SIZE)).as("bind").isZero();
        return fd;
    }

    /** @return the queued frames from {@code source} (the kernel's own neighbour discovery is left out). */
    private static List<byte[]> drain(final Syscalls syscalls, final Arena arena, final int fd, final String source)
    {
        final MemorySegment buffer = arena.allocate(2048);
        final byte[] marker = TestFrame.address(source);
        final List<byte[]> frames = new ArrayList<>();
        while (true)
        {
            final long length = syscalls.recvfrom(fd, buffer.address(), buffer.byteSize(), Sockets.MSG_DONTWAIT, 0,
                0);
            if (length < 0)
            {
                return frames;
            }
            final byte[] frame = buffer.asSlice(0, length).toArray(JAVA_BYTE);
            if (frame.length >= 38 && Arrays.equals(frame, 22, 38, marker, 0, 16))
            {
                frames.add(frame);
            }
        }
    }
}
