package io.jvs.nativebindings.bpf;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;

import io.jvs.nativebindings.Syscalls;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link XdpFlowTable}'s fast path, run by the kernel (BPF_PROG_TEST_RUN, the maps real): a frame of a flow leaves
 * redirected, rewritten as the flow says, its checksums those of RFC 1624's update of the fields that changed (a
 * reference written here, in network byte order, against the program's little-endian one), counted in its stats
 * slot; every frame the pipeline must see (SYN, FIN, RST, fragments, TTL 1, options, a VLAN tag, a bad length, too
 * big for the flow, no flow, an egress port that takes no redirects) goes on to the rules untouched. Root only.
 */
class XdpFlowTableTest
{
    private static final int TCP = 6;
    private static final int UDP = 17;
    private static final byte[] VIP = {(byte)198, 51, 100, 10};
    private static final byte[] SERVER = {10, 1, 0, 11};
    private static final byte[] CLIENT = {(byte)203, 0, 113, 7};
    private static final long SERVER_MAC = 0x02_00_00_00_01_0BL;
    private static final long CLIENT_GATEWAY_MAC = 0x02_00_00_00_00_FEL;
    private static final long PORT0_MAC = 0x02_00_00_00_00_01L;
    private static final long PORT1_MAC = 0x02_00_00_00_01_01L;
    private static final int MTU = 1500;

    private final Syscalls syscalls = Syscalls.create();
    private XdpVipFilter filter;
    private XdpFlowTable table;
    private BpfMap xsks;
    private BpfProgram program;

    @BeforeEach
    void load()
    {
        filter = XdpVipFilter.create(syscalls, 16);
        table = XdpFlowTable.create(syscalls, 1024);
        xsks = BpfMap.createXskMap(syscalls, "jvs_test_xsks", 1);
        final Map<String, Integer> fds = new HashMap<>(filter.mapFds(xsks));
        fds.putAll(table.mapFds());
        program = BpfProgram.loadXdp(syscalls, "jvs_flows_test",
            XdpPrograms.forwardFlowsThenRedirectJvsTraffic(XdpAction.PASS).link(fds));
        // The loopback device stands in for the ports: a test run does not send.
        table.egress(0, 1);
        table.egress(1, 1);
    }

    @AfterEach
    void close()
    {
        if (program != null)
        {
            program.close();
        }
        xsks.close();
        table.close();
        filter.close();
    }

    @Test
    void shouldRewriteBothDirectionsOfANatConnectionAndCountThem()
    {
        final int clientPort = 40_000;
        putNat(TCP, clientPort, 80, 8080, 7, 8);
        final byte[] toVip = frame(TCP, CLIENT, clientPort, VIP, 80, 0x10, 64, 100, f -> { });
        final long before = System.nanoTime();

        final BpfProgram.TestRunResult in = program.testRunWithOutput(toVip);

        assertThat(in.action()).isEqualTo(XdpAction.REDIRECT);
        assertThat(in.frame()).isEqualTo(expected(toVip, SERVER, 8080, true, SERVER_MAC, PORT1_MAC));
        assertThat(checksumsValid(in.frame())).isTrue();

        final byte[] back = frame(TCP, SERVER, 8080, CLIENT, clientPort, 0x18, 64, 1000, f -> { });
        final BpfProgram.TestRunResult out = program.testRunWithOutput(back);
        assertThat(out.action()).isEqualTo(XdpAction.REDIRECT);
        assertThat(out.frame()).isEqualTo(expected(back, VIP, 80, false, CLIENT_GATEWAY_MAC, PORT0_MAC));
        assertThat(checksumsValid(out.frame())).isTrue();
        program.testRunWithOutput(toVip);

        final long after = System.nanoTime();
        final ByteBuffer inbound = stats(7);
        assertThat(inbound.getLong(XdpFlowTable.STATS_PACKETS)).isEqualTo(2);
        assertThat(inbound.getLong(XdpFlowTable.STATS_BYTES_COUNTED)).as("IP lengths").isEqualTo(2 * (20 + 20 + 100));
        assertThat(inbound.getLong(XdpFlowTable.STATS_LAST_SEEN)).isBetween(before, after);
        assertThat(stats(8).getLong(XdpFlowTable.STATS_PACKETS)).isOne();
        assertThat(stats(8).getLong(XdpFlowTable.STATS_BYTES_COUNTED)).isEqualTo(20 + 20 + 1000);
        try (XdpFlowTable.FlowStats mapped = table.mapStats(syscalls))
        {
            final java.lang.foreign.MemorySegment slots =
                java.lang.foreign.MemorySegment.ofAddress(mapped.address()).reinterpret(mapped.bytes());
            assertThat(mapped.slots()).isEqualTo(1024);
            assertThat(slots.get(java.lang.foreign.ValueLayout.JAVA_LONG, 7L * XdpFlowTable.STATS_BYTES)).as("mapped")
                .isEqualTo(2);
            assertThat(slots.get(java.lang.foreign.ValueLayout.JAVA_LONG, 8L * XdpFlowTable.STATS_BYTES +
                XdpFlowTable.STATS_BYTES_COUNTED)).isEqualTo(20 + 20 + 1000);
        }
    }

    @Test
    void shouldLeaveAFlowsFramesToTheWorkersWhileItsEgressTakesNoRedirects()
    {
        putNat(TCP, 40_000, 80, 8080, 1, 2);
        final byte[] ack = frame(TCP, CLIENT, 40_000, VIP, 80, 0x10, 64, 100, f -> { });
        table.noEgress(1);
        final BpfProgram.TestRunResult passed = program.testRunWithOutput(ack);
        assertThat(passed.action()).isEqualTo(XdpAction.PASS);
        assertThat(passed.frame()).as("untouched").isEqualTo(ack);
        assertThat(stats(1).getLong(XdpFlowTable.STATS_PACKETS)).as("not counted").isZero();

        table.egress(1, 1);
        assertThat(program.testRunWithOutput(ack).action()).isEqualTo(XdpAction.REDIRECT);
    }

    @Test
    void shouldSkipTheFlowTableWhileNoPortTakesRedirects()
    {
        putNat(TCP, 40_000, 80, 8080, 1, 2);
        final byte[] ack = frame(TCP, CLIENT, 40_000, VIP, 80, 0x10, 64, 100, f -> { });
        table.noEgress(0);
        assertThat(switchValue()).as("port 1 still takes them").isOne();
        table.noEgress(1);
        assertThat(switchValue()).as("no port takes them").isZero();
        table.egress(0, 1);
        assertThat(switchValue()).isOne();

        // With the flow's egress mapped but the switch off, the program does not look: the frame goes on untouched.
        table.egress(1, 1);
        table.onSwitch().put(0, 0);
        final BpfProgram.TestRunResult passed = program.testRunWithOutput(ack);
        assertThat(passed.action()).isEqualTo(XdpAction.PASS);
        assertThat(passed.frame()).isEqualTo(ack);
        assertThat(stats(1).getLong(XdpFlowTable.STATS_PACKETS)).isZero();
        table.onSwitch().put(0, 1);
        assertThat(program.testRunWithOutput(ack).action()).isEqualTo(XdpAction.REDIRECT);
    }

    private int switchValue()
    {
        return ByteBuffer.wrap(table.onSwitch().lookup(0).orElseThrow()).order(ByteOrder.nativeOrder()).getInt();
    }

    @Test
    void shouldPutAndRemoveFlowsThroughReusedNativeBuffers()
    {
        try (BpfMap.Elements elements = table.flows().elements())
        {
            XdpFlowTable.writeKey(elements.key(), UDP, 0xCB007107, 5000, 0xC633640A, 53);
            XdpFlowTable.writeValue(elements.value(), XdpFlowTable.REWRITE_DESTINATION, 0xC633640A, 53, 0x0A01000B,
                5353, SERVER_MAC, PORT1_MAC, 1, MTU, 9);
            assertThat(elements.update()).isZero();
            assertThat(table.flows().lookup(XdpFlowTable.key(UDP, CLIENT, 5000, VIP, 53))).contains(
                XdpFlowTable.value(XdpFlowTable.REWRITE_DESTINATION, VIP, 53, SERVER, 5353, SERVER_MAC, PORT1_MAC, 1,
                    MTU, 9));
            final byte[] query = frame(UDP, CLIENT, 5000, VIP, 53, 0, 64, 10, f -> { });
            assertThat(program.testRunWithOutput(query).action()).isEqualTo(XdpAction.REDIRECT);

            assertThat(elements.delete()).isZero();
            assertThat(elements.delete()).as("gone").isEqualTo(-2);
            assertThat(program.testRunWithOutput(query).action()).isEqualTo(XdpAction.PASS);
        }
    }

    @Test
    void shouldOnlyChangeMacsAndTheTtlForDirectRouting()
    {
        final byte[] key = XdpFlowTable.key(UDP, CLIENT, 5353, VIP, 53);
        table.flows().put(key, XdpFlowTable.value(XdpFlowTable.REWRITE_MACS_ONLY, VIP, 53, VIP, 53, SERVER_MAC,
            PORT0_MAC, 0, MTU, 3));
        final byte[] query = frame(UDP, CLIENT, 5353, VIP, 53, 0, 2, 40, f -> { });

        final BpfProgram.TestRunResult result = program.testRunWithOutput(query);

        assertThat(result.action()).isEqualTo(XdpAction.REDIRECT);
        final byte[] expected = expected(query, null, 0, true, SERVER_MAC, PORT0_MAC);
        assertThat(result.frame()).isEqualTo(expected);
        assertThat(result.frame()[14 + 8]).as("TTL 2 becomes 1: only the one that would leave at 1 stays").isOne();
    }

    @Test
    void shouldLeaveAUdpChecksumOfZeroAloneAndWriteAComputedZeroAsAllOnes()
    {
        putNat(UDP, 5000, 53, 5353, 1, 2);
        final byte[] none = frame(UDP, CLIENT, 5000, VIP, 53, 0, 64, 10, f -> f.putShort(34 + 6, (short)0));
        final BpfProgram.TestRunResult result = program.testRunWithOutput(none);
        assertThat(result.action()).isEqualTo(XdpAction.REDIRECT);
        assertThat(ByteBuffer.wrap(result.frame()).getShort(34 + 6)).isZero();

        // A checksum the update takes to 0: found by trying the field's values.
        for (int checksum = 0; checksum <= 0xFFFF; checksum++)
        {
            final int field = checksum;
            if (field != 0 && rfc1624(field, new int[] {0xC633, 0x640A, 53}, new int[] {0x0A01, 0x000B, 5353}) == 0)
            {
                final byte[] zeroing = frame(UDP, CLIENT, 5000, VIP, 53, 0, 64, 10,
                    f -> f.putShort(34 + 6, (short)field));
                final BpfProgram.TestRunResult written = program.testRunWithOutput(zeroing);
                assertThat(ByteBuffer.wrap(written.frame()).getShort(34 + 6) & 0xFFFF).as("from %04x", field)
                    .isEqualTo(0xFFFF);
                return;
            }
        }
        throw new AssertionError("no checksum updates to 0");
    }

    @Test
    void shouldPassEveryFrameThePipelineMustSeeOnUntouched()
    {
        putNat(TCP, 40_000, 80, 8080, 1, 2);
        final byte[] ack = frame(TCP, CLIENT, 40_000, VIP, 80, 0x10, 64, 100, f -> { });
        assertThat(program.testRunWithOutput(ack).action()).as("the flow's ACK").isEqualTo(XdpAction.REDIRECT);
        final Map<String, byte[]> slow = new HashMap<>();
        slow.put("SYN", frame(TCP, CLIENT, 40_000, VIP, 80, 0x02, 64, 0, f -> { }));
        slow.put("FIN", frame(TCP, CLIENT, 40_000, VIP, 80, 0x11, 64, 0, f -> { }));
        slow.put("RST", frame(TCP, CLIENT, 40_000, VIP, 80, 0x14, 64, 0, f -> { }));
        slow.put("more fragments", frame(TCP, CLIENT, 40_000, VIP, 80, 0x10, 64, 100,
            f -> f.putShort(20, (short)0x2000)));
        slow.put("a later fragment", frame(TCP, CLIENT, 40_000, VIP, 80, 0x10, 64, 100, f -> f.putShort(20, (short)1)));
        slow.put("TTL 1", frame(TCP, CLIENT, 40_000, VIP, 80, 0x10, 1, 100, f -> { }));
        slow.put("options", frame(TCP, CLIENT, 40_000, VIP, 80, 0x10, 64, 100, f -> f.put(14, (byte)0x46)));
        slow.put("no flow", frame(TCP, CLIENT, 40_001, VIP, 80, 0x10, 64, 100, f -> { }));
        slow.put("UDP to the TCP flow", frame(UDP, CLIENT, 40_000, VIP, 80, 0, 64, 100, f -> { }));
        slow.put("too big", frame(TCP, CLIENT, 40_000, VIP, 80, 0x10, 64, MTU - 39, f -> { }));
        slow.put("IP length past the frame", frame(TCP, CLIENT, 40_000, VIP, 80, 0x10, 64, 100,
            f -> f.putShort(16, (short)(f.getShort(16) + 1))));
        slow.put("TCP data offset 4", frame(TCP, CLIENT, 40_000, VIP, 80, 0x10, 64, 100,
            f -> f.put(34 + 12, (byte)0x40)));
        slow.put("TCP data offset past the packet", frame(TCP, CLIENT, 40_000, VIP, 80, 0x10, 64, 20,
            f -> f.put(34 + 12, (byte)0xF0)));
        final byte[] tagged = new byte[ack.length + 4];
        System.arraycopy(ack, 0, tagged, 0, 12);
        ByteBuffer.wrap(tagged).putShort(12, (short)0x8100).putShort(14, (short)5);
        System.arraycopy(ack, 12, tagged, 16, ack.length - 12);
        slow.put("VLAN tag", tagged);
        putNat(UDP, 5000, 53, 5353, 3, 4);
        slow.put("UDP length 7", frame(UDP, CLIENT, 5000, VIP, 53, 0, 64, 10, f -> f.putShort(34 + 4, (short)7)));
        slow.put("UDP length past the packet", frame(UDP, CLIENT, 5000, VIP, 53, 0, 64, 10,
            f -> f.putShort(34 + 4, (short)19)));

        slow.forEach((what, frame) ->
        {
            final BpfProgram.TestRunResult result = program.testRunWithOutput(frame);
            assertThat(result.action()).as(what).isEqualTo(XdpAction.PASS);
            assertThat(result.frame()).as(what).isEqualTo(frame);
        });
        assertThat(stats(1).getLong(XdpFlowTable.STATS_PACKETS)).as("only the ACK counted").isOne();
        assertThat(stats(3).getLong(XdpFlowTable.STATS_PACKETS)).isZero();
        // Padding after the packet is carried, as the pipeline carries it.
        final byte[] padded = Arrays.copyOf(frame(UDP, CLIENT, 5000, VIP, 53, 0, 64, 0, f -> { }), 60);
        assertThat(program.testRunWithOutput(padded).action()).isEqualTo(XdpAction.REDIRECT);
    }

    static Object[][] seeds()
    {
        final Object[][] seeds = new Object[200][];
        for (int i = 0; i < seeds.length; i++)
        {
            seeds[i] = new Object[] {0x5EED_F10L + i};
        }
        return seeds;
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldRewriteRandomFlowsAsRfc1624UpdatesTheirFields(final long seed)
    {
        final Random random = new Random(seed);
        final int protocol = random.nextBoolean() ? TCP : UDP;
        final byte[] client = randomAddress(random);
        final byte[] vip = randomAddress(random);
        final byte[] server = randomAddress(random);
        final int clientPort = random.nextInt(0x10000);
        final int virtualPort = random.nextInt(0x10000);
        final int serverPort = random.nextInt(0x10000);
        final boolean inbound = random.nextBoolean();
        final int payload = random.nextInt(1400);
        final int ttl = 2 + random.nextInt(254);
        // Whatever checksums the frame carries, valid or not: the update is of the fields, not a recomputation.
        final int ipChecksum = random.nextInt(0x10000);
        final int l4Checksum = random.nextInt(8) == 0 ? 0 : random.nextInt(0x10000);
        final int flags = protocol == TCP ? 0x10 | random.nextInt(2) << 3 | random.nextInt(2) << 5 : 0;
        final byte[] frame;
        if (inbound)
        {
            table.flows().put(XdpFlowTable.key(protocol, client, clientPort, vip, virtualPort),
                XdpFlowTable.value(XdpFlowTable.REWRITE_DESTINATION, vip, virtualPort, server, serverPort, SERVER_MAC,
                    PORT1_MAC, 1, MTU, 5));
            frame = frame(protocol, client, clientPort, vip, virtualPort, flags, ttl, payload, f -> { });
        }
        else
        {
            table.flows().put(XdpFlowTable.key(protocol, server, serverPort, client, clientPort),
                XdpFlowTable.value(XdpFlowTable.REWRITE_SOURCE, server, serverPort, vip, virtualPort,
                    CLIENT_GATEWAY_MAC, PORT0_MAC, 0, MTU, 5));
            frame = frame(protocol, server, serverPort, client, clientPort, flags, ttl, payload, f -> { });
        }
        final ByteBuffer written = ByteBuffer.wrap(frame);
        written.putShort(24, (short)ipChecksum);
        final int l4ChecksumOffset = 34 + (protocol == TCP ? 16 : 6);
        written.putShort(l4ChecksumOffset, (short)l4Checksum);

        final BpfProgram.TestRunResult result = program.testRunWithOutput(frame);

        assertThat(result.action()).isEqualTo(XdpAction.REDIRECT);
        final byte[] old = inbound ? vip : server;
        final byte[] now = inbound ? server : vip;
        final int oldPort = inbound ? virtualPort : serverPort;
        final int newPort = inbound ? serverPort : virtualPort;
        final byte[] expected = inbound ? expectedFields(frame, server, serverPort, true, SERVER_MAC, PORT1_MAC) :
            expectedFields(frame, vip, virtualPort, false, CLIENT_GATEWAY_MAC, PORT0_MAC);
        final ByteBuffer wanted = ByteBuffer.wrap(expected);
        wanted.putShort(24, (short)rfc1624(ipChecksum, new int[] {word(old, 0), word(old, 2), ttl << 8 | protocol},
            new int[] {word(now, 0), word(now, 2), (ttl - 1) << 8 | protocol}));
        int l4 = rfc1624(l4Checksum, new int[] {word(old, 0), word(old, 2), oldPort},
            new int[] {word(now, 0), word(now, 2), newPort});
        if (protocol == UDP)
        {
            l4 = l4Checksum == 0 ? 0 : l4 == 0 ? 0xFFFF : l4;
        }
        wanted.putShort(l4ChecksumOffset, (short)l4);
        assertThat(result.frame()).isEqualTo(expected);
    }

    // -----------------------------------------------------------------------------------------------------

    /** The connection client:clientPort -> VIP:virtualPort placed on SERVER:serverPort, both directions. */
    private void putNat(final int protocol, final int clientPort, final int virtualPort, final int serverPort,
        final int inboundSlot, final int outboundSlot)
    {
        table.flows().put(XdpFlowTable.key(protocol, CLIENT, clientPort, VIP, virtualPort),
            XdpFlowTable.value(XdpFlowTable.REWRITE_DESTINATION, VIP, virtualPort, SERVER, serverPort, SERVER_MAC,
                PORT1_MAC, 1, MTU, inboundSlot));
        table.flows().put(XdpFlowTable.key(protocol, SERVER, serverPort, CLIENT, clientPort),
            XdpFlowTable.value(XdpFlowTable.REWRITE_SOURCE, SERVER, serverPort, VIP, virtualPort,
                CLIENT_GATEWAY_MAC, PORT0_MAC, 0, MTU, outboundSlot));
    }

    private ByteBuffer stats(final int slot)
    {
        return ByteBuffer.wrap(table.stats().lookup(slot).orElseThrow()).order(java.nio.ByteOrder.LITTLE_ENDIAN);
    }

    /** An untagged IPv4 frame with valid checksums, then {@code change} applied. */
    private static byte[] frame(final int protocol, final byte[] source, final int sourcePort, final byte[] destination,
        final int destinationPort, final int tcpFlags, final int ttl, final int payload,
        final Consumer<ByteBuffer> change)
    {
        final int l4Header = protocol == TCP ? 20 : 8;
        final int ipLength = 20 + l4Header + payload;
        final ByteBuffer f = ByteBuffer.allocate(14 + ipLength);
        f.putLong(0, 0x0200_0000_00AA_0200L).putInt(8, 0x0000_00BB).putShort(12, (short)0x0800);
        f.put(14, (byte)0x45).putShort(16, (short)ipLength).putShort(18, (short)0x1234).putShort(20, (short)0x4000)
            .put(22, (byte)ttl).put(23, (byte)protocol).put(26, source).put(30, destination);
        f.putShort(24, (short)~fold(sum(f, 14, 20)));
        f.putShort(34, (short)sourcePort).putShort(36, (short)destinationPort);
        for (int i = 0; i < payload; i++)
        {
            f.put(14 + 20 + l4Header + i, (byte)(i * 31 + 7));
        }
        if (protocol == TCP)
        {
            f.putInt(38, 0x1000_0001).putInt(42, 0x2000_0002).put(46, (byte)0x50).put(47, (byte)tcpFlags)
                .putShort(48, (short)502);
        }
        else
        {
            f.putShort(38, (short)(8 + payload));
        }
        final int pseudo = word(source, 0) + word(source, 2) + word(destination, 0) + word(destination, 2) +
            protocol + l4Header + payload;
        final int checksum = ~fold(pseudo + sum(f, 34, l4Header + payload)) & 0xFFFF;
        f.putShort(34 + (protocol == TCP ? 16 : 6), (short)(protocol == UDP && checksum == 0 ? 0xFFFF : checksum));
        change.accept(f);
        return f.array();
    }

    /** The frame with the NAT (or, with a null address, DR) rewrite's fields, checksums as they were. */
    private static byte[] expectedFields(final byte[] frame, final byte[] address, final int port,
        final boolean destination, final long destinationMac, final long sourceMac)
    {
        final ByteBuffer f = ByteBuffer.wrap(frame.clone());
        for (int b = 0; b < 6; b++)
        {
            f.put(b, (byte)(destinationMac >>> (40 - 8 * b)));
            f.put(6 + b, (byte)(sourceMac >>> (40 - 8 * b)));
        }
        f.put(22, (byte)(f.get(22) - 1));
        if (address != null)
        {
            f.put(destination ? 30 : 26, address);
            f.putShort(destination ? 36 : 34, (short)port);
        }
        return f.array();
    }

    /** As {@link #expectedFields}, the checksums recomputed in full (the frame's were valid). */
    private static byte[] expected(final byte[] frame, final byte[] address, final int port,
        final boolean destination, final long destinationMac, final long sourceMac)
    {
        final byte[] expected = expectedFields(frame, address, port, destination, destinationMac, sourceMac);
        final ByteBuffer f = ByteBuffer.wrap(expected);
        final ByteBuffer before = ByteBuffer.wrap(frame);
        f.putShort(24, (short)0).putShort(24, (short)~fold(sum(f, 14, 20)));
        final int protocol = f.get(23);
        final int checksumOffset = 34 + (protocol == TCP ? 16 : 6);
        if (protocol == UDP && before.getShort(checksumOffset) == 0)
        {
            return expected;
        }
        final int ipLength = f.getShort(16) & 0xFFFF;
        f.putShort(checksumOffset, (short)0);
        final byte[] src = Arrays.copyOfRange(expected, 26, 30);
        final byte[] dst = Arrays.copyOfRange(expected, 30, 34);
        final int pseudo = word(src, 0) + word(src, 2) + word(dst, 0) + word(dst, 2) + protocol + ipLength - 20;
        final int checksum = ~fold(pseudo + sum(f, 34, ipLength - 20)) & 0xFFFF;
        f.putShort(checksumOffset, (short)(protocol == UDP && checksum == 0 ? 0xFFFF : checksum));
        return expected;
    }

    private static boolean checksumsValid(final byte[] frame)
    {
        final ByteBuffer f = ByteBuffer.wrap(frame);
        final int ipLength = f.getShort(16) & 0xFFFF;
        final byte[] src = Arrays.copyOfRange(frame, 26, 30);
        final byte[] dst = Arrays.copyOfRange(frame, 30, 34);
        final int pseudo = word(src, 0) + word(src, 2) + word(dst, 0) + word(dst, 2) + f.get(23) + ipLength - 20;
        return fold(sum(f, 14, 20)) == 0xFFFF && fold(pseudo + sum(f, 34, ipLength - 20)) == 0xFFFF;
    }

    /** RFC 1624 eqn. 3 over 16-bit fields in network order: HC' = ~(~HC + sum(~m) + sum(m')). */
    private static int rfc1624(final int checksum, final int[] old, final int[] now)
    {
        int sum = ~checksum & 0xFFFF;
        for (int i = 0; i < old.length; i++)
        {
            sum += (~old[i] & 0xFFFF) + (now[i] & 0xFFFF);
        }
        return ~fold(sum) & 0xFFFF;
    }

    private static int sum(final ByteBuffer f, final int from, final int length)
    {
        int sum = 0;
        for (int i = 0; i + 1 < length; i += 2)
        {
            sum += f.getShort(from + i) & 0xFFFF;
        }
        if ((length & 1) != 0)
        {
            sum += (f.get(from + length - 1) & 0xFF) << 8;
        }
        return sum;
    }

    private static int fold(final int sum)
    {
        int folded = sum;
        while (folded >>> 16 != 0)
        {
            folded = (folded & 0xFFFF) + (folded >>> 16);
        }
        return folded;
    }

    private static int word(final byte[] address, final int at)
    {
        return (address[at] & 0xFF) << 8 | address[at + 1] & 0xFF;
    }

    private static byte[] randomAddress(final Random random)
    {
        final byte[] address = new byte[4];
        random.nextBytes(address);
        return address;
    }
}
