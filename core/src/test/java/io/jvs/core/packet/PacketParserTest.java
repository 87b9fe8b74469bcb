package io.jvs.core.packet;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

import static io.jvs.core.packet.ParsedBurst.FRAGMENT_FIRST;
import static io.jvs.core.packet.ParsedBurst.FRAGMENT_LATER;
import static io.jvs.core.packet.ParsedBurst.FRAGMENT_NONE;
import static io.jvs.core.packet.ParsedBurst.KIND_ARP;
import static io.jvs.core.packet.ParsedBurst.KIND_IPV4;
import static io.jvs.core.packet.ParsedBurst.KIND_IPV6;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The parser header by header, from hand-built frames: every layer it understands, and every named
 * reason it drops for.
 */
class PacketParserTest
{
    private static final int SOURCE_PORT = 40000;
    private static final int DESTINATION_PORT = 80;
    /** Not slot 0: the parser must write where it is told. */
    private static final int SLOT = 2;

    private final ParsedBurst parsed = new ParsedBurst(4);
    private final ByteBuffer memory = ByteBuffer.allocateDirect(4096);
    private final PacketParser lenient = new PacketParser(true, true);
    private final PacketParser strict = new PacketParser(false, false);

    @Test
    void shouldReadAnIpv4TcpSegment()
    {
        assertThat(parse(lenient, ethernet(0x0800, ipv4(5, 0, 6, tcp(0x12, 5))))).isZero();

        assertThat(parsed.kind(SLOT)).isEqualTo(KIND_IPV4);
        assertThat(parsed.l3Offset(SLOT)).isEqualTo(14);
        assertThat(parsed.l4Offset(SLOT)).isEqualTo(34);
        assertThat(parsed.l4Length(SLOT)).isEqualTo(20);
        assertThat(parsed.ipEnd(SLOT)).isEqualTo(54);
        assertThat(parsed.protocol(SLOT)).isEqualTo(6);
        assertThat(parsed.sourceV4(SLOT)).isEqualTo(0x0A000001);
        assertThat(parsed.destinationV4(SLOT)).isEqualTo(0x0A000064);
        assertThat(parsed.sourcePort(SLOT)).isEqualTo(SOURCE_PORT);
        assertThat(parsed.destinationPort(SLOT)).isEqualTo(DESTINATION_PORT);
        assertThat(parsed.tcpFlags(SLOT)).isEqualTo(0x12);
        assertThat(parsed.ttl(SLOT)).isEqualTo(64);
        assertThat(parsed.hasPorts(SLOT)).isTrue();
        assertThat(parsed.fragment(SLOT)).isEqualTo(FRAGMENT_NONE);
    }

    @Test
    void shouldEndThePacketAtItsTotalLengthNotAtTheEthernetPadding()
    {
        final byte[] frame = ethernet(0x0800, ipv4(5, 0, 17, udp(8)));
        final byte[] padded = java.util.Arrays.copyOf(frame, 60);

        assertThat(parse(lenient, padded)).isZero();
        assertThat(parsed.ipEnd(SLOT)).isEqualTo(frame.length);
        assertThat(parsed.l4Length(SLOT)).isEqualTo(16);
    }

    @Test
    void shouldSkipVlanTagsAndGiveUpAfterThree()
    {
        final byte[] ip = ipv4(5, 0, 6, tcp(0x10, 5));
        assertThat(parse(lenient, ethernet(new int[] {0x8100}, 0x0800, ip))).isZero();
        assertThat(parsed.l3Offset(SLOT)).isEqualTo(18);
        assertThat(parse(lenient, ethernet(new int[] {0x88A8, 0x8100}, 0x0800, ip))).isZero();
        assertThat(parsed.l3Offset(SLOT)).isEqualTo(22);
        assertThat(parsed.destinationPort(SLOT)).isEqualTo(DESTINATION_PORT);
        assertThat(parse(lenient, ethernet(new int[] {0x9100, 0x88A8, 0x8100}, 0x0800, ip))).isZero();
        assertThat(parsed.l3Offset(SLOT)).isEqualTo(26);

        assertThat(parse(lenient, ethernet(new int[] {0x8100, 0x8100, 0x8100, 0x8100}, 0x0800, ip)))
            .isEqualTo(Verdict.pass());
        assertThat(parse(lenient, java.util.Arrays.copyOf(ethernet(new int[] {0x8100}, 0x0800, ip), 16)))
            .isEqualTo(Verdict.drop(DropReason.TRUNCATED));
    }

    @Test
    void shouldPassArpAndFramesOfOtherTypesToTheHost()
    {
        assertThat(parse(lenient, ethernet(0x0806, new byte[28]))).isEqualTo(Verdict.pass());
        assertThat(parsed.kind(SLOT)).isEqualTo(KIND_ARP);
        assertThat(parse(lenient, ethernet(0x0806, new byte[20]))).isEqualTo(Verdict.drop(DropReason.TRUNCATED));
        assertThat(parse(lenient, ethernet(0x88CC, new byte[30]))).isEqualTo(Verdict.pass());
    }

    @Test
    void shouldDropMalformedIpv4HeadersUnderTheirReason()
    {
        assertThat(parse(lenient, new byte[13])).isEqualTo(Verdict.drop(DropReason.TRUNCATED));
        assertThat(parse(lenient, ethernet(0x0800, new byte[19]))).isEqualTo(Verdict.drop(DropReason.TRUNCATED));

        final byte[] badIhl = ipv4(5, 0, 6, tcp(0x10, 5));
        badIhl[0] = 0x44;
        assertThat(parse(lenient, ethernet(0x0800, badIhl))).isEqualTo(Verdict.drop(DropReason.BAD_IHL));

        final byte[] version6 = ipv4(5, 0, 6, tcp(0x10, 5));
        version6[0] = 0x65;
        assertThat(parse(lenient, ethernet(0x0800, version6))).isEqualTo(Verdict.drop(DropReason.BAD_IP_VERSION));

        final byte[] shortTotal = ipv4(5, 0, 6, tcp(0x10, 5));
        shortTotal[2] = 0;
        shortTotal[3] = 12;
        assertThat(parse(lenient, ethernet(0x0800, shortTotal))).isEqualTo(Verdict.drop(DropReason.BAD_IP_LEN));

        final byte[] optionsPastTotal = ipv4(8, 0, 6, tcp(0x10, 5));
        optionsPastTotal[2] = 0;
        optionsPastTotal[3] = 24;
        assertThat(parse(lenient, ethernet(0x0800, optionsPastTotal))).isEqualTo(Verdict.drop(DropReason.BAD_IHL));

        final byte[] longTotal = ipv4(5, 0, 6, tcp(0x10, 5));
        longTotal[3] += 1;
        assertThat(parse(lenient, ethernet(0x0800, longTotal))).isEqualTo(Verdict.drop(DropReason.TRUNCATED));
    }

    @Test
    void shouldReadPastIpv4OptionsOrRefuseThem()
    {
        final byte[] frame = ethernet(0x0800, ipv4(6, 0, 6, tcp(0x02, 5)));

        assertThat(parse(lenient, frame)).isZero();
        assertThat(parsed.l4Offset(SLOT)).isEqualTo(38);
        assertThat(parsed.destinationPort(SLOT)).isEqualTo(DESTINATION_PORT);
        assertThat(parse(strict, frame)).isEqualTo(Verdict.drop(DropReason.IP_OPTIONS));
    }

    @Test
    void shouldFlagIpv4FragmentsOrRefuseThem()
    {
        final byte[] first = ethernet(0x0800, ipv4(5, 0x2000, 17, udp(32)));
        assertThat(parse(lenient, first)).isZero();
        assertThat(parsed.fragment(SLOT)).isEqualTo(FRAGMENT_FIRST);
        assertThat(parsed.fragmentId(SLOT)).isEqualTo(0x1234);
        assertThat(parsed.hasPorts(SLOT)).isTrue();

        final byte[] later = ethernet(0x0800, ipv4(5, 5, 17, new byte[24]));
        assertThat(parse(lenient, later)).isZero();
        assertThat(parsed.fragment(SLOT)).isEqualTo(FRAGMENT_LATER);
        assertThat(parsed.hasPorts(SLOT)).as("a later fragment carries no ports").isFalse();

        assertThat(parse(strict, first)).isEqualTo(Verdict.drop(DropReason.FRAGMENT));
        assertThat(parse(strict, later)).isEqualTo(Verdict.drop(DropReason.FRAGMENT));

        // A first fragment of 8 bytes holds the TCP ports but not the flags a connection needs.
        final byte[] tiny = ethernet(0x0800, ipv4(5, 0x2000, 6, java.util.Arrays.copyOf(tcp(0x02, 5), 8)));
        assertThat(parse(lenient, tiny)).isEqualTo(Verdict.drop(DropReason.FRAGMENT));
    }

    @Test
    void shouldDropMalformedTransportHeaders()
    {
        assertThat(parse(lenient, ethernet(0x0800, ipv4(5, 0, 6, tcp(0x10, 4)))))
            .isEqualTo(Verdict.drop(DropReason.BAD_L4_HEADER));
        assertThat(parse(lenient, ethernet(0x0800, ipv4(5, 0, 6, tcp(0x10, 6)))))
            .as("data offset past the segment").isEqualTo(Verdict.drop(DropReason.BAD_L4_HEADER));
        assertThat(parse(lenient, ethernet(0x0800, ipv4(5, 0, 6, new byte[12]))))
            .isEqualTo(Verdict.drop(DropReason.TRUNCATED));

        final byte[] udp = udp(8);
        udp[5] = 40;
        assertThat(parse(lenient, ethernet(0x0800, ipv4(5, 0, 17, udp))))
            .isEqualTo(Verdict.drop(DropReason.BAD_L4_HEADER));
    }

    @Test
    void shouldReadIcmpTypeAndCode()
    {
        assertThat(parse(lenient, ethernet(0x0800, ipv4(5, 0, 1, new byte[] {3, 4, 0, 0, 0, 0, 0, 0})))).isZero();
        assertThat(parsed.sourcePort(SLOT)).as("type").isEqualTo(3);
        assertThat(parsed.destinationPort(SLOT)).as("code").isEqualTo(4);
        assertThat(parsed.hasPorts(SLOT)).isFalse();

        assertThat(parse(lenient, ethernet(0x86DD, ipv6(58, new byte[] {(byte)128, 0, 0, 0, 0, 0, 0, 0}))))
            .isZero();
        assertThat(parsed.sourcePort(SLOT)).isEqualTo(128);
        assertThat(parse(lenient, ethernet(0x86DD, ipv6(58, new byte[] {1, 0})))).isEqualTo(
            Verdict.drop(DropReason.TRUNCATED));
    }

    @Test
    void shouldSkipIpv6ExtensionHeadersToTheTransportHeader()
    {
        final byte[] payload = concat(
            extension(43, 0),       // hop-by-hop, 8 bytes, then routing
            extension(60, 2),       // routing, 24 bytes, then destination options
            extension(6, 0),        // destination options, 8 bytes, then TCP
            tcp(0x02, 5));
        assertThat(parse(lenient, ethernet(0x86DD, ipv6(0, payload)))).isZero();

        assertThat(parsed.kind(SLOT)).isEqualTo(KIND_IPV6);
        assertThat(parsed.protocol(SLOT)).isEqualTo(6);
        assertThat(parsed.l4Offset(SLOT)).isEqualTo(14 + 40 + 8 + 24 + 8);
        assertThat(parsed.destinationPort(SLOT)).isEqualTo(DESTINATION_PORT);
        assertThat(parsed.tcpFlags(SLOT)).isEqualTo(0x02);
        assertThat(parsed.ttl(SLOT)).isEqualTo(64);
        assertThat(parsed.destinationLow(SLOT)).isEqualTo(0x64);
    }

    @Test
    void shouldDropIpv6ExtensionChainsThatAreTooLongOrRunPastThePacket()
    {
        final ByteArrayOutputStream chain = new ByteArrayOutputStream();
        for (int i = 0; i < PacketParser.MAX_EXTENSION_HEADERS + 1; i++)
        {
            chain.writeBytes(extension(60, 0));
        }
        assertThat(parse(lenient, ethernet(0x86DD, ipv6(60, chain.toByteArray()))))
            .isEqualTo(Verdict.drop(DropReason.BAD_EXTENSION_HEADER));

        final byte[] overlong = extension(6, 0);
        overlong[1] = 5;
        assertThat(parse(lenient, ethernet(0x86DD, ipv6(60, concat(overlong, tcp(0x02, 5))))))
            .as("48 bytes claimed, 28 there").isEqualTo(Verdict.drop(DropReason.BAD_EXTENSION_HEADER));

        final byte[] zeroPayload = ipv6(6, tcp(0x02, 5));
        zeroPayload[4] = 0;
        zeroPayload[5] = 0;
        assertThat(parse(lenient, ethernet(0x86DD, zeroPayload))).isEqualTo(Verdict.drop(DropReason.BAD_IP_LEN));

        final byte[] version4 = ipv6(6, tcp(0x02, 5));
        version4[0] = 0x40;
        assertThat(parse(lenient, ethernet(0x86DD, version4))).isEqualTo(Verdict.drop(DropReason.BAD_IP_VERSION));
    }

    @Test
    void shouldFlagIpv6FragmentsAndTreatAnAtomicFragmentAsWhole()
    {
        assertThat(parse(lenient, ethernet(0x86DD, ipv6(44, concat(fragmentHeader(17, 0, true), udp(16))))))
            .isZero();
        assertThat(parsed.fragment(SLOT)).isEqualTo(FRAGMENT_FIRST);
        assertThat(parsed.fragmentId(SLOT)).isEqualTo(0x0BADCAFE);
        assertThat(parsed.hasPorts(SLOT)).isTrue();

        assertThat(parse(lenient, ethernet(0x86DD, ipv6(44, concat(fragmentHeader(17, 3, false), new byte[16])))))
            .isZero();
        assertThat(parsed.fragment(SLOT)).isEqualTo(FRAGMENT_LATER);
        assertThat(parsed.protocol(SLOT)).isEqualTo(17);
        assertThat(parsed.hasPorts(SLOT)).isFalse();

        final byte[] atomic = ethernet(0x86DD, ipv6(44, concat(fragmentHeader(17, 0, false), udp(16))));
        assertThat(parse(strict, atomic)).isZero();
        assertThat(parsed.fragment(SLOT)).isEqualTo(FRAGMENT_NONE);
        assertThat(parsed.destinationPort(SLOT)).isEqualTo(DESTINATION_PORT);

        assertThat(parse(strict, ethernet(0x86DD, ipv6(44, concat(fragmentHeader(17, 0, true), udp(16))))))
            .isEqualTo(Verdict.drop(DropReason.FRAGMENT));
    }

    @Test
    void shouldAcceptEachHeaderEndingExactlyAtTheFrameEndAndRefuseItOneByteShort()
    {
        // Ethernet alone (14 bytes, an EtherType jvs does not handle): passed; 13 bytes: truncated.
        assertThat(parse(lenient, ethernet(0x88B5, new byte[0]))).isEqualTo(Verdict.pass());
        assertThat(parse(lenient, java.util.Arrays.copyOf(ethernet(0x88B5, new byte[0]), 13)))
            .isEqualTo(Verdict.drop(DropReason.TRUNCATED));
        // A VLAN tag whose inner EtherType ends the frame (18 bytes), and one byte short of it.
        assertThat(parse(lenient, ethernet(new int[] {0x8100}, 0x88B5, new byte[0]))).isEqualTo(Verdict.pass());
        assertThat(parse(lenient, java.util.Arrays.copyOf(ethernet(new int[] {0x8100}, 0x88B5, new byte[0]), 17)))
            .isEqualTo(Verdict.drop(DropReason.TRUNCATED));
        // An IPv4 header with nothing after it (protocol 59, no next header).
        assertThat(parse(lenient, ethernet(0x0800, ipv4(5, 0, 59, new byte[0])))).isZero();
        assertThat(parsed.l4Length(SLOT)).isZero();
        assertThat(parsed.isIpv6(SLOT)).isFalse();
        assertThat(parse(lenient, java.util.Arrays.copyOf(ethernet(0x0800, ipv4(5, 0, 59, new byte[0])), 33)))
            .isEqualTo(Verdict.drop(DropReason.TRUNCATED));
        // An IPv6 header one byte short, and one whose payload runs past the frame.
        assertThat(parse(lenient, java.util.Arrays.copyOf(ethernet(0x86DD, ipv6(59, new byte[8])), 53)))
            .isEqualTo(Verdict.drop(DropReason.TRUNCATED));
        assertThat(parse(lenient, java.util.Arrays.copyOf(ethernet(0x86DD, ipv6(59, new byte[8])), 61)))
            .isEqualTo(Verdict.drop(DropReason.TRUNCATED));
        assertThat(parse(lenient, ethernet(0x86DD, ipv6(59, new byte[8])))).isZero();
        assertThat(parsed.isIpv6(SLOT)).isTrue();
        assertThat(parsed.l4Offset(SLOT)).isEqualTo(54);
        assertThat(parsed.l4Length(SLOT)).isEqualTo(8);
    }

    @Test
    void shouldTellABadHeaderLengthFromABadTotalLength()
    {
        // The total length covers less than the header: with options and a total of at least 20, the
        // header length is the wrong field; otherwise the total length is.
        final byte[] options = ipv4(6, 0, 59, new byte[0]);
        options[3] = 20;
        assertThat(parse(lenient, ethernet(0x0800, options))).isEqualTo(Verdict.drop(DropReason.BAD_IHL));
        options[3] = 19;
        assertThat(parse(lenient, ethernet(0x0800, options))).isEqualTo(Verdict.drop(DropReason.BAD_IP_LEN));
        final byte[] plain = ipv4(5, 0, 59, new byte[4]);
        plain[3] = 19;
        assertThat(parse(lenient, ethernet(0x0800, plain))).isEqualTo(Verdict.drop(DropReason.BAD_IP_LEN));
        plain[3] = 20;
        assertThat(parse(lenient, ethernet(0x0800, plain))).isZero();
        assertThat(parsed.ipEnd(SLOT)).isEqualTo(34);
    }

    @Test
    void shouldCountEveryIpv6ExtensionHeaderAgainstTheLimit()
    {
        for (final int headers : new int[] {PacketParser.MAX_EXTENSION_HEADERS, PacketParser.MAX_EXTENSION_HEADERS + 1})
        {
            final ByteArrayOutputStream chain = new ByteArrayOutputStream();
            for (int i = 0; i < headers; i++)
            {
                chain.writeBytes(extension(i == headers - 1 ? 6 : 60, 0));
            }
            chain.writeBytes(tcp(0x02, 5));
            final int verdict = parse(lenient, ethernet(0x86DD, ipv6(60, chain.toByteArray())));
            assertThat(verdict).as("%d headers", headers).isEqualTo(
                headers > PacketParser.MAX_EXTENSION_HEADERS ? Verdict.drop(DropReason.BAD_EXTENSION_HEADER) : 0);
        }
        final ByteArrayOutputStream fragments = new ByteArrayOutputStream();
        for (int i = 0; i < PacketParser.MAX_EXTENSION_HEADERS + 1; i++)
        {
            fragments.writeBytes(fragmentHeader(i == PacketParser.MAX_EXTENSION_HEADERS ? 6 : 44, 0, false));
        }
        fragments.writeBytes(tcp(0x02, 5));
        assertThat(parse(lenient, ethernet(0x86DD, ipv6(44, fragments.toByteArray()))))
            .isEqualTo(Verdict.drop(DropReason.BAD_EXTENSION_HEADER));
    }

    @Test
    void shouldAcceptIpv6ExtensionHeadersEndingExactlyAtThePacketEnd()
    {
        assertThat(parse(lenient, ethernet(0x86DD, ipv6(60, extension(59, 0))))).isZero();
        assertThat(parsed.protocol(SLOT)).isEqualTo(59);
        assertThat(parsed.l4Offset(SLOT)).isEqualTo(62);
        assertThat(parsed.l4Length(SLOT)).isZero();
        assertThat(parse(lenient, ethernet(0x86DD, ipv6(60, extension(59, 2))))).isZero();
        assertThat(parsed.l4Offset(SLOT)).isEqualTo(78);
        // A 16-byte header with 12 bytes there, and a header of which only 4 bytes are there.
        assertThat(parse(lenient, ethernet(0x86DD, ipv6(60, java.util.Arrays.copyOf(extension(59, 1), 12)))))
            .isEqualTo(Verdict.drop(DropReason.BAD_EXTENSION_HEADER));
        assertThat(parse(lenient, ethernet(0x86DD, ipv6(60, new byte[] {59, 0, 0, 0}))))
            .isEqualTo(Verdict.drop(DropReason.BAD_EXTENSION_HEADER));
        // A later fragment whose fragment header ends the packet, and a fragment header cut short.
        assertThat(parse(lenient, ethernet(0x86DD, ipv6(44, fragmentHeader(17, 3, false))))).isZero();
        assertThat(parsed.fragment(SLOT)).isEqualTo(FRAGMENT_LATER);
        assertThat(parsed.l4Offset(SLOT)).isEqualTo(62);
        assertThat(parsed.l4Length(SLOT)).isZero();
        assertThat(parse(lenient, ethernet(0x86DD, ipv6(44, concat(fragmentHeader(17, 3, false), new byte[16])))))
            .isZero();
        assertThat(parsed.l4Length(SLOT)).isEqualTo(16);
        assertThat(parse(lenient, ethernet(0x86DD, ipv6(44, java.util.Arrays.copyOf(fragmentHeader(17, 3, false), 4)))))
            .isEqualTo(Verdict.drop(DropReason.BAD_EXTENSION_HEADER));
    }

    @Test
    void shouldNeedOnlyTheFlagsOfAFirstFragmentButAWholeTcpHeaderOtherwise()
    {
        final byte[] fourteen = java.util.Arrays.copyOf(tcp(0x02, 5), 14);
        assertThat(parse(lenient, ethernet(0x0800, ipv4(5, 0x2000, 6, fourteen)))).isZero();
        assertThat(parsed.fragment(SLOT)).isEqualTo(FRAGMENT_FIRST);
        assertThat(parsed.tcpFlags(SLOT)).isEqualTo(0x02);
        assertThat(parsed.destinationPort(SLOT)).isEqualTo(DESTINATION_PORT);
        assertThat(parse(lenient, ethernet(0x0800, ipv4(5, 0x2000, 6, java.util.Arrays.copyOf(fourteen, 13)))))
            .isEqualTo(Verdict.drop(DropReason.FRAGMENT));
        assertThat(parse(lenient, ethernet(0x0800, ipv4(5, 0, 6, fourteen))))
            .isEqualTo(Verdict.drop(DropReason.TRUNCATED));
        assertThat(parse(lenient, ethernet(0x0800, ipv4(5, 0, 6, java.util.Arrays.copyOf(tcp(0x02, 5), 19)))))
            .isEqualTo(Verdict.drop(DropReason.TRUNCATED));
    }

    @Test
    void shouldCheckUdpAndSctpLengthsAtTheirEdges()
    {
        assertThat(parse(lenient, ethernet(0x0800, ipv4(5, 0, 17, udp(0))))).isZero();
        assertThat(parsed.hasPorts(SLOT)).isTrue();
        assertThat(parsed.sourcePort(SLOT)).isEqualTo(SOURCE_PORT);
        assertThat(parse(lenient, ethernet(0x0800, ipv4(5, 0, 17, java.util.Arrays.copyOf(udp(0), 7)))))
            .isEqualTo(Verdict.drop(DropReason.TRUNCATED));
        assertThat(parse(lenient, ethernet(0x0800, ipv4(5, 0x2000, 17, java.util.Arrays.copyOf(udp(0), 7)))))
            .isEqualTo(Verdict.drop(DropReason.FRAGMENT));
        // The UDP length field: 8 .. the bytes there.
        final byte[] udp = udp(4);
        udp[5] = 7;
        assertThat(parse(lenient, ethernet(0x0800, ipv4(5, 0, 17, udp))))
            .isEqualTo(Verdict.drop(DropReason.BAD_L4_HEADER));
        udp[5] = 12;
        assertThat(parse(lenient, ethernet(0x0800, ipv4(5, 0, 17, udp)))).isZero();
        udp[5] = 13;
        assertThat(parse(lenient, ethernet(0x0800, ipv4(5, 0, 17, udp))))
            .isEqualTo(Verdict.drop(DropReason.BAD_L4_HEADER));
        // A first fragment's UDP length covers the whole datagram, not the fragment.
        assertThat(parse(lenient, ethernet(0x0800, ipv4(5, 0x2000, 17, udp)))).isZero();

        final byte[] sctp = java.util.Arrays.copyOf(udp(0), 12);
        assertThat(parse(lenient, ethernet(0x0800, ipv4(5, 0, 132, sctp)))).isZero();
        assertThat(parsed.destinationPort(SLOT)).isEqualTo(DESTINATION_PORT);
        assertThat(parsed.hasPorts(SLOT)).isTrue();
        assertThat(parse(lenient, ethernet(0x0800, ipv4(5, 0, 132, java.util.Arrays.copyOf(sctp, 11)))))
            .isEqualTo(Verdict.drop(DropReason.TRUNCATED));
        assertThat(parse(lenient, ethernet(0x0800, ipv4(5, 0x2000, 132, java.util.Arrays.copyOf(sctp, 11)))))
            .isEqualTo(Verdict.drop(DropReason.FRAGMENT));
    }

    @Test
    void shouldCallAnIpv6HeaderCutBeforeItsPayloadLengthTruncated()
    {
        // The first parse of a fresh buffer: past the 16 bytes given there are only zeros, which must not be
        // read as a payload length of 0.
        assertThat(parse(lenient, java.util.Arrays.copyOf(ethernet(0x86DD, ipv6(59, new byte[8])), 16)))
            .isEqualTo(Verdict.drop(DropReason.TRUNCATED));
        // A whole IPv6 header and nothing after it: a payload length of 0 (a jumbogram or garbage).
        assertThat(parse(lenient, ethernet(0x86DD, ipv6(59, new byte[0]))))
            .isEqualTo(Verdict.drop(DropReason.BAD_IP_LEN));
    }

    // -------------------------------------------------------------------------------------------------

    private int parse(final PacketParser parser, final byte[] frame)
    {
        memory.clear();
        memory.put(frame);
        return parser.parse(Frames.addressOf(memory), frame.length, parsed, SLOT);
    }

    private static byte[] ethernet(final int type, final byte[] payload)
    {
        return ethernet(new int[0], type, payload);
    }

    private static byte[] ethernet(final int[] tags, final int type, final byte[] payload)
    {
        final ByteBuffer frame = ByteBuffer.allocate(14 + 4 * tags.length + payload.length);
        frame.putLong(0x0200_0000_0010_0200L).putInt(0x0000_00FE);
        for (final int tag : tags)
        {
            frame.putShort((short)tag).putShort((short)7);
        }
        frame.putShort((short)type).put(payload);
        return frame.array();
    }

    /** An IPv4 packet from 10.0.0.1 to 10.0.0.100, identification 0x1234, TTL 64; options are NOPs. */
    private static byte[] ipv4(final int ihl, final int flagsAndOffset, final int protocol, final byte[] payload)
    {
        final int headerLength = ihl * 4;
        final ByteBuffer packet = ByteBuffer.allocate(Math.max(20, headerLength) + payload.length);
        packet.put((byte)(0x40 | ihl)).put((byte)0).putShort((short)packet.capacity())
            .putShort((short)0x1234).putShort((short)flagsAndOffset)
            .put((byte)64).put((byte)protocol).putShort((short)0)
            .putInt(0x0A000001).putInt(0x0A000064);
        while (packet.position() < headerLength)
        {
            packet.put((byte)1);
        }
        return packet.put(payload).array();
    }

    /** An IPv6 packet from 2001:db8::1 to 2001:db8::64, hop limit 64. */
    private static byte[] ipv6(final int nextHeader, final byte[] payload)
    {
        return ByteBuffer.allocate(40 + payload.length)
            .putInt(0x6000_0000).putShort((short)payload.length).put((byte)nextHeader).put((byte)64)
            .putLong(0x2001_0db8_0000_0000L).putLong(1)
            .putLong(0x2001_0db8_0000_0000L).putLong(0x64)
            .put(payload).array();
    }

    private static byte[] tcp(final int flags, final int dataOffsetWords)
    {
        return ByteBuffer.allocate(20)
            .putShort((short)SOURCE_PORT).putShort((short)DESTINATION_PORT).putInt(1).putInt(0)
            .put((byte)(dataOffsetWords << 4)).put((byte)flags).putShort((short)65535).putInt(0)
            .array();
    }

    private static byte[] udp(final int payloadLength)
    {
        return ByteBuffer.allocate(8 + payloadLength)
            .putShort((short)SOURCE_PORT).putShort((short)DESTINATION_PORT).putShort((short)(8 + payloadLength))
            .array();
    }

    /** A generic extension header of (lengthUnits + 1) * 8 bytes. */
    private static byte[] extension(final int nextHeader, final int lengthUnits)
    {
        final byte[] header = new byte[(lengthUnits + 1) * 8];
        header[0] = (byte)nextHeader;
        header[1] = (byte)lengthUnits;
        return header;
    }

    private static byte[] fragmentHeader(final int nextHeader, final int offsetUnits, final boolean more)
    {
        return ByteBuffer.allocate(8).put((byte)nextHeader).put((byte)0)
            .putShort((short)(offsetUnits << 3 | (more ? 1 : 0))).putInt(0x0BADCAFE).array();
    }

    private static byte[] concat(final byte[]... parts)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (final byte[] part : parts)
        {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }
}
