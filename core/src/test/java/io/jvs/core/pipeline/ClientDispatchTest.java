package io.jvs.core.pipeline;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;

import io.jvs.core.net.IpAddress;
import io.jvs.core.net.IpPrefix;
import io.jvs.core.packet.Frames;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The worker that owns a client: both directions of a connection, and ICMP errors about it, on one worker;
 * the hash pinned to values (the fanout BPF program computes the same), even over sequential clients.
 */
class ClientDispatchTest
{
    private static final IpAddress VIP = IpAddress.parse("10.77.2.2");
    private static final IpAddress REAL = IpAddress.parse("10.77.3.3");
    private static final IpAddress ROUTER = IpAddress.parse("192.0.2.254");
    private static final IpAddress VIP6 = IpAddress.parse("2001:db8::2");
    private static final IpAddress REAL6 = IpAddress.parse("2001:db8:3::3");
    private static final IpAddress ROUTER6 = IpAddress.parse("2001:db8:ff::1");
    private static final List<IpAddress> VIPS = List.of(VIP, VIP6);
    private static final int ICMP_DESTINATION_UNREACHABLE = 3;
    private static final int ICMPV6_PACKET_TOO_BIG = 2;

    private final ByteBuffer buffer = ByteBuffer.allocateDirect(2048);
    private final long address = Frames.addressOf(buffer);

    private int workerOf(final ClientDispatch dispatch, final byte[] frame)
    {
        Frames.write(frame, address);
        return dispatch.workerOf(address, frame.length);
    }

    private static byte[] udp(final IpAddress source, final IpAddress destination)
    {
        return TestFrames.frame(TestFrames.JVS_MAC, TestFrames.CLIENT_MAC, source, destination, 64,
            TestFrames.Segment.udp(40_000, 53, 8));
    }

    @Test
    void shouldPinTheHashTheFanoutProgramComputesToo()
    {
        // (a * 0x9E3779B1 mod 2^32) >>> 16, then mod the worker count.
        assertThat(ClientDispatch.workerOf(0, 7)).isZero();
        assertThat(ClientDispatch.workerOf(1, 65_536)).isEqualTo(0x9E37);
        assertThat(ClientDispatch.workerOf(0x0A00_0001, 65_536)).isEqualTo(0x8837);
        assertThat(ClientDispatch.workerOf(0x0A00_0001, 3)).isEqualTo(2);
        assertThat(ClientDispatch.workerOf(-1, 65_536)).isEqualTo(0x61C8);
        assertThat(ClientDispatch.workerOf(IpAddress.parse("10.0.0.1"), 65_536)).isEqualTo(0x8837);
    }

    @ParameterizedTest(name = "{0} workers")
    @ValueSource(ints = {2, 3})
    void shouldSpreadSequentialClientsEvenly(final int workers)
    {
        final int clients = 60_000;
        final int[] perWorker = new int[workers];
        final int base = IpAddress.parse("198.18.0.0").v4();
        for (int i = 0; i < clients; i++)
        {
            perWorker[ClientDispatch.workerOf(base + i, workers)]++;
        }
        final int even = clients / workers;
        assertThat(Arrays.stream(perWorker).boxed().toList()).as(Arrays.toString(perWorker)).allSatisfy(count ->
            assertThat(count).isBetween(even * 97 / 100, even * 103 / 100));
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void shouldFoldIpv6AsIpvsDoesSoAddressesWithOneFoldShareAWorker(final long seed)
    {
        final Random random = new Random(seed);
        for (int i = 0; i < 1_000; i++)
        {
            final long high = random.nextLong();
            final long low = random.nextLong();
            final int fold = (int)(high >>> 32) ^ (int)high ^ (int)(low >>> 32) ^ (int)low;
            // Swapping the two halves leaves the XOR of the four words alone.
            final IpAddress address = IpAddress.ofV6(high, low);
            final IpAddress swapped = IpAddress.ofV6(low, high);
            assertThat(ClientDispatch.workerOf(address, 5)).isEqualTo(ClientDispatch.workerOf(fold, 5))
                .isEqualTo(ClientDispatch.workerOf(swapped, 5));
        }
    }

    @ParameterizedTest(name = "{0} workers")
    @ValueSource(ints = {2, 3, 8})
    void shouldPutBothDirectionsOfAConnectionOnTheClientsWorker(final int workers)
    {
        final ClientDispatch dispatch = new ClientDispatch(workers, VIPS);
        for (int i = 0; i < 200; i++)
        {
            final IpAddress client = IpAddress.ofV4(0xC633_6400 + i * 7919);
            final int expected = ClientDispatch.workerOf(client, workers);
            assertThat(workerOf(dispatch, udp(client, VIP))).as("request of %s", client).isEqualTo(expected);
            assertThat(workerOf(dispatch, udp(REAL, client))).as("NAT reply to %s", client).isEqualTo(expected);
            assertThat(workerOf(dispatch, udp(VIP, client))).as("reply from the VIP").isEqualTo(expected);

            final IpAddress client6 = IpAddress.ofV6(0x2001_0db8_0099_0000L + i, 0x7000L * i + 1);
            final int expected6 = ClientDispatch.workerOf(client6, workers);
            assertThat(workerOf(dispatch, udp(client6, VIP6))).isEqualTo(expected6);
            assertThat(workerOf(dispatch, udp(REAL6, client6))).isEqualTo(expected6);
        }
    }

    @Test
    void shouldPutIcmpErrorsOnTheWorkerOfTheClientOfTheQuotedPacket()
    {
        final ClientDispatch dispatch = new ClientDispatch(16, VIPS);
        for (int i = 0; i < 100; i++)
        {
            final IpAddress client = IpAddress.ofV4(0xCB00_7100 + i * 131);
            final int expected = ClientDispatch.workerOf(client, 16);
            // A client-side router about a reply (VIP to client), sent to the VIP.
            final byte[] aboutReply = TestFrames.icmpErrorV4(TestFrames.JVS_MAC, TestFrames.ROUTER_MAC, ROUTER, VIP,
                ICMP_DESTINATION_UNREACHABLE, 4, udp(VIP, client));
            // A real server about a request jvs sent it (client to real server), sent to the client.
            final byte[] aboutRequest = TestFrames.icmpErrorV4(TestFrames.JVS_MAC, TestFrames.ROUTER_MAC, REAL, client,
                ICMP_DESTINATION_UNREACHABLE, 3, udp(client, REAL));
            assertThat(workerOf(dispatch, aboutReply)).isEqualTo(expected);
            assertThat(workerOf(dispatch, aboutRequest)).isEqualTo(expected);

            final IpAddress client6 = IpAddress.ofV6(0x2001_0db8_0099_0000L, 0x100L + i * 977);
            final int expected6 = ClientDispatch.workerOf(client6, 16);
            assertThat(workerOf(dispatch, icmpv6Error(ROUTER6, VIP6, udp(VIP6, client6)))).isEqualTo(expected6);
            assertThat(workerOf(dispatch, icmpv6Error(REAL6, client6, udp(client6, REAL6)))).isEqualTo(expected6);
        }
    }

    @Test
    void shouldPutARoutersErrorAboutATunnelledPacketOnTheWorkerOfTheClientInside()
    {
        final ClientDispatch dispatch = new ClientDispatch(16, VIPS);
        final IpAddress box = IpAddress.parse("10.77.1.254");
        int elsewhere = 0;
        for (int i = 0; i < 100; i++)
        {
            final IpAddress client = IpAddress.ofV4(0xCB00_7100 + i * 131);
            final byte[] request = udp(client, VIP);
            // The tunnelled packet: an outer header from the box to the real server around the client's request.
            final ByteBuffer tunnelled = ByteBuffer.allocate(request.length + 20);
            tunnelled.put(request, 0, 14).put(new byte[] {0x45, 0, 0, (byte)(request.length + 6), 0, 1, 0x40, 0, 64,
                4, 0, 0}).putInt(box.v4()).putInt(REAL.v4()).put(request, 14, request.length - 14);
            final byte[] frame = tunnelled.array();
            // A router between the box and the server about it, to the box, quoting the outer header and 28 bytes.
            final int quoted = 20 + 28;
            final ByteBuffer icmp = ByteBuffer.allocate(8 + quoted).put((byte)ICMP_DESTINATION_UNREACHABLE)
                .put((byte)4).putShort((short)0).putInt(1400).put(frame, 14, quoted);
            final byte[] error = TestFrames.rawIpv4(TestFrames.JVS_MAC, TestFrames.ROUTER_MAC, ROUTER, box, 64, 1, 0,
                7, icmp.array());
            assertThat(workerOf(dispatch, error)).as("client %s", client)
                .isEqualTo(ClientDispatch.workerOf(client, 16));
            elsewhere += ClientDispatch.workerOf(client, 16) != ClientDispatch.workerOf(box, 16) ? 1 : 0;

            // Cut before the inner header is whole: by the outer quote, as any error (the box's worker).
            final byte[] cut = Arrays.copyOf(error, error.length - 28 + 19);
            assertThat(workerOf(dispatch, cut)).isEqualTo(ClientDispatch.workerOf(box, 16));
        }
        assertThat(elsewhere).as("clients the box's own worker would not have held").isGreaterThan(50);
    }

    @Test
    void shouldTakeAnIcmpMessageThatIsNoErrorOrIsTooShortAsAnyOtherPacket()
    {
        final ClientDispatch dispatch = new ClientDispatch(16, VIPS);
        final IpAddress client = IpAddress.parse("203.0.113.9");
        final byte[] echoToVip = TestFrames.rawIpv4(TestFrames.JVS_MAC, TestFrames.CLIENT_MAC, client, VIP, 64, 1, 0,
            1, new byte[] {8, 0, 0, 0, 0, 1, 0, 1});
        final byte[] shortError = TestFrames.rawIpv4(TestFrames.JVS_MAC, TestFrames.ROUTER_MAC, ROUTER, VIP, 64, 1, 0,
            1, new byte[] {3, 4, 0, 0, 0, 0, 0, 0, 0x45, 0});
        assertThat(workerOf(dispatch, echoToVip)).isEqualTo(ClientDispatch.workerOf(client, 16));
        assertThat(workerOf(dispatch, shortError)).as("too short to quote: from the router to a VIP")
            .isEqualTo(ClientDispatch.workerOf(ROUTER, 16));
    }

    @Test
    void shouldSkipUpToThreeVlanTagsAndGiveWorkerZeroToWhatItCannotParse()
    {
        final ClientDispatch dispatch = new ClientDispatch(65_536, VIPS);
        final IpAddress client = IpAddress.parse("198.51.100.77");
        final int expected = ClientDispatch.workerOf(client, 65_536);
        assertThat(expected).isNotZero();
        final byte[] frame = udp(client, VIP);
        assertThat(workerOf(dispatch, tagged(frame, 0x8100))).isEqualTo(expected);
        assertThat(workerOf(dispatch, tagged(frame, 0x88A8, 0x8100))).isEqualTo(expected);
        assertThat(workerOf(dispatch, tagged(frame, 0x9100, 0x88A8, 0x8100))).isEqualTo(expected);
        assertThat(workerOf(dispatch, tagged(frame, 0x8100, 0x8100, 0x8100, 0x8100))).as("four tags").isZero();
        assertThat(workerOf(dispatch, tagged(new byte[60], 0x8100))).as("not IP").isZero();
        for (int length = 0; length < 14 + 20; length++)
        {
            assertThat(workerOf(dispatch, Arrays.copyOf(frame, length))).as("%d bytes", length).isZero();
        }
        assertThat(workerOf(dispatch, Arrays.copyOf(frame, 34))).isEqualTo(expected);
        final byte[] frame6 = udp(IpAddress.parse("2001:db8:99::7"), VIP6);
        assertThat(workerOf(dispatch, Arrays.copyOf(frame6, 53))).isZero();
        assertThat(workerOf(dispatch, Arrays.copyOf(frame6, 54)))
            .isEqualTo(ClientDispatch.workerOf(IpAddress.parse("2001:db8:99::7"), 65_536));
    }

    @Test
    void shouldGiveEverythingToWorkerZeroOfOneAndRefuseImpossibleCounts()
    {
        final ClientDispatch one = new ClientDispatch(1, VIPS);
        assertThat(IntStream.range(0, 100).map(i -> workerOf(one, udp(IpAddress.ofV4(i * 65_537), VIP))))
            .containsOnly(0);
        assertThat(one.isVirtual(VIP6)).isTrue();
        assertThat(one.isVirtual(IpAddress.parse("::a4d:202"))).as("an IPv4 VIP's digits in IPv6").isFalse();
        assertThatThrownBy(() -> new ClientDispatch(0, VIPS)).hasMessageContaining("worker count 0");
        assertThatThrownBy(() -> new ClientDispatch(65_537, VIPS)).hasMessageContaining("1..65536");
    }

    @Test
    void shouldFindEachOfManyVirtualAddresses()
    {
        final List<IpAddress> many = IntStream.range(0, 5_000)
            .mapToObj(i -> i % 2 == 0 ? IpAddress.ofV4(0x0A00_0000 + i * 3) : IpAddress.ofV6(0x2001_0db8L << 32, i))
            .toList();
        final ClientDispatch dispatch = new ClientDispatch(4, many);
        assertThat(many).allSatisfy(vip -> assertThat(dispatch.isVirtual(vip)).isTrue());
        assertThat(dispatch.isVirtual(IpAddress.ofV4(0x0A00_0001))).isFalse();
        assertThat(dispatch.isVirtual(IpAddress.ofV6(0x2001_0db8L << 32, 5_001))).isFalse();
    }

    @ParameterizedTest(name = "{0} workers")
    @ValueSource(ints = {2, 3, 8})
    void shouldTakeTheAddressesOfAVirtualPrefixAsVirtualAddresses(final int workers)
    {
        final ClientDispatch dispatch = new ClientDispatch(workers, VIPS, List.of(IpPrefix.parse("203.0.113.0/24"),
            IpPrefix.parse("2001:db8:cafe::/48")));
        for (int i = 0; i < 200; i++)
        {
            final IpAddress client = IpAddress.ofV4(0xC633_6400 + i * 7919);
            final IpAddress marked = IpAddress.ofV4(0xCB00_7100 + i % 256);
            final int expected = ClientDispatch.workerOf(client, workers);
            assertThat(workerOf(dispatch, udp(client, marked))).as("request of %s", client).isEqualTo(expected);
            assertThat(workerOf(dispatch, udp(marked, client))).as("reply to %s", client).isEqualTo(expected);
            assertThat(workerOf(dispatch, TestFrames.icmpErrorV4(TestFrames.JVS_MAC, TestFrames.ROUTER_MAC, ROUTER,
                marked, ICMP_DESTINATION_UNREACHABLE, 4, udp(marked, client)))).as("error about a reply")
                .isEqualTo(expected);

            final IpAddress client6 = IpAddress.ofV6(0x2001_0db8_0099_0000L + i, 0x7000L * i + 1);
            final IpAddress marked6 = IpAddress.ofV6(0x2001_0db8_cafe_0000L + i, i);
            final int expected6 = ClientDispatch.workerOf(client6, workers);
            assertThat(workerOf(dispatch, udp(client6, marked6))).isEqualTo(expected6);
            assertThat(workerOf(dispatch, udp(marked6, client6))).isEqualTo(expected6);
        }
        assertThat(dispatch.isVirtual(IpAddress.parse("203.0.113.255"))).isTrue();
        assertThat(dispatch.isVirtual(IpAddress.parse("203.0.114.0"))).isFalse();
        assertThat(dispatch.isVirtual(IpAddress.parse("10.77.2.2"))).isTrue();
        final IpAddress outside = IpAddress.parse("203.0.114.9");
        assertThat(workerOf(dispatch, udp(REAL, outside))).as("to an address outside: its own worker")
            .isEqualTo(ClientDispatch.workerOf(outside, workers));
    }

    /** An ICMPv6 error quoting the IP packet of another frame (its IPv6 header and 8 bytes). */
    private static byte[] icmpv6Error(final IpAddress source, final IpAddress destination, final byte[] quotedFrame)
    {
        final ByteBuffer icmp = ByteBuffer.allocate(8 + 48);
        icmp.put((byte)ICMPV6_PACKET_TOO_BIG).put((byte)0).putShort((short)0).putInt(1280);
        icmp.put(quotedFrame, 14, 48);
        final ByteBuffer frame = ByteBuffer.allocate(14 + 40 + icmp.capacity());
        frame.put(quotedFrame, 0, 12).putShort((short)0x86DD);
        frame.putInt(6 << 28).putShort((short)icmp.capacity()).put((byte)58).put((byte)64)
            .putLong(source.high()).putLong(source.low()).putLong(destination.high()).putLong(destination.low());
        frame.put(icmp.array());
        return frame.array();
    }

    /** The frame with VLAN tags (outermost first) inserted after the MAC addresses. */
    private static byte[] tagged(final byte[] frame, final int... tpids)
    {
        final ByteBuffer tagged = ByteBuffer.allocate(frame.length + 4 * tpids.length);
        tagged.put(frame, 0, 12);
        for (final int tpid : tpids)
        {
            tagged.putShort((short)tpid).putShort((short)100);
        }
        tagged.put(frame, 12, frame.length - 12);
        return tagged.array();
    }
}
