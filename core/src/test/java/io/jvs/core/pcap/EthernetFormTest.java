package io.jvs.core.pcap;

import io.jvs.core.packet.Frames;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one decoder of link-layer headers that replay and the pcap port share: what each link type's packets become,
 * and which packets have no Ethernet form.
 */
class EthernetFormTest
{
    private final ByteBuffer memory = BufferUtil.allocateDirectAligned(256, 64);
    private final long packet = BufferUtil.address(memory);
    private final long frame = packet + 128;

    private long decode(final int linkType, final byte[] bytes)
    {
        Frames.write(bytes, packet);
        return EthernetForm.decode(linkType, packet, bytes.length);
    }

    private static byte[] family(final int family, final ByteOrder order, final int first, final int length)
    {
        final ByteBuffer bytes = ByteBuffer.allocate(length).order(order);
        bytes.putInt(family).put((byte)first);
        return bytes.array();
    }

    private static long form(final int etherType, final int linkHeader)
    {
        return (long)etherType << 32 | linkHeader;
    }

    @Test
    void shouldReadTheBsdLoopbackFamilyEitherWayRoundAndTheOpenBsdOneInNetworkOrderOnly()
    {
        for (final ByteOrder order : new ByteOrder[] {ByteOrder.BIG_ENDIAN, ByteOrder.LITTLE_ENDIAN})
        {
            assertThat(decode(LinkType.NULL, family(2, order, 0x45, 24))).isEqualTo(form(0x0800, 4));
            for (final int inet6 : new int[] {10, 24, 28, 30})
            {
                assertThat(decode(LinkType.NULL, family(inet6, order, 0x60, 44))).as("AF_INET6 %d", inet6)
                    .isEqualTo(form(0x86DD, 4));
            }
            assertThat(decode(LinkType.NULL, family(7, order, 0x45, 24))).isEqualTo(EthernetForm.NONE);
        }
        assertThat(decode(LinkType.LOOP, family(2, ByteOrder.BIG_ENDIAN, 0x45, 24))).isEqualTo(form(0x0800, 4));
        assertThat(decode(LinkType.LOOP, family(24, ByteOrder.BIG_ENDIAN, 0x60, 44))).isEqualTo(form(0x86DD, 4));
        assertThat(decode(LinkType.LOOP, family(2, ByteOrder.LITTLE_ENDIAN, 0x45, 24))).isEqualTo(EthernetForm.NONE);
        assertThat(decode(LinkType.NULL, new byte[] {2, 0, 0})).as("shorter than its header")
            .isEqualTo(EthernetForm.NONE);
    }

    @Test
    void shouldTellRawIpByItsVersionNibbleAndTakeTheOneProtocolTypesAsTheySay()
    {
        assertThat(decode(LinkType.RAW, new byte[] {0x45, 0})).isEqualTo(form(0x0800, 0));
        assertThat(decode(LinkType.RAW, new byte[] {0x60, 0})).isEqualTo(form(0x86DD, 0));
        assertThat(decode(LinkType.RAW, new byte[] {0x50, 0})).isEqualTo(EthernetForm.NONE);
        assertThat(decode(LinkType.RAW, new byte[] {0x05, 0})).isEqualTo(EthernetForm.NONE);
        assertThat(decode(LinkType.RAW, new byte[0])).isEqualTo(EthernetForm.NONE);
        assertThat(decode(LinkType.IPV4, new byte[] {0x60})).isEqualTo(form(0x0800, 0));
        assertThat(decode(LinkType.IPV6, new byte[] {0x45})).isEqualTo(form(0x86DD, 0));
    }

    private static byte[] sll(final int packetType, final int hardwareType, final int addressLength,
        final int protocol)
    {
        final ByteBuffer bytes = ByteBuffer.allocate(16 + 20);
        bytes.putShort((short)packetType).putShort((short)hardwareType).putShort((short)addressLength)
            .put(new byte[] {2, 0, 0, 0, 0, 7, 0, 0}).putShort((short)protocol).put((byte)0x45);
        return bytes.array();
    }

    private static byte[] sll2(final int packetType, final int hardwareType, final int addressLength,
        final int protocol)
    {
        final ByteBuffer bytes = ByteBuffer.allocate(20 + 20);
        bytes.putShort((short)protocol).putShort((short)0).putInt(3).putShort((short)hardwareType)
            .put((byte)packetType).put((byte)addressLength).put(new byte[] {2, 0, 0, 0, 0, 9, 0, 0}).put((byte)0x45);
        return bytes.array();
    }

    @Test
    void shouldTakeACookedHeadersProtocolSenderAndDirection()
    {
        final byte[] incoming = sll(0, 1, 6, 0x0800);
        assertThat(decode(LinkType.LINUX_SLL, incoming)).isEqualTo(form(0x0800, 16));
        assertThat(EthernetForm.senderMac(LinkType.LINUX_SLL, packet, incoming.length)).isEqualTo(0x02_00_00_00_00_07L);
        assertThat(decode(LinkType.LINUX_SLL, sll(4, 1, 6, 0x0800))).isEqualTo(EthernetForm.OUTGOING);
        assertThat(decode(LinkType.LINUX_SLL, sll(0, 1, 6, 0x0004))).as("802.2 LLC is no EtherType")
            .isEqualTo(EthernetForm.NONE);
        decode(LinkType.LINUX_SLL, sll(0, 772, 6, 0x0800));
        assertThat(EthernetForm.senderMac(LinkType.LINUX_SLL, packet, 36)).as("loopback's hardware type")
            .isEqualTo(EthernetForm.NO_MAC);
        decode(LinkType.LINUX_SLL, sll(0, 1, 0, 0x0800));
        assertThat(EthernetForm.senderMac(LinkType.LINUX_SLL, packet, 36)).isEqualTo(EthernetForm.NO_MAC);
        assertThat(decode(LinkType.LINUX_SLL, Arrays.copyOf(incoming, 15))).isEqualTo(EthernetForm.NONE);

        final byte[] second = sll2(0, 1, 6, 0x86DD);
        assertThat(decode(LinkType.LINUX_SLL2, second)).isEqualTo(form(0x86DD, 20));
        assertThat(EthernetForm.senderMac(LinkType.LINUX_SLL2, packet, second.length)).isEqualTo(0x02_00_00_00_00_09L);
        assertThat(decode(LinkType.LINUX_SLL2, sll2(4, 1, 6, 0x0800))).isEqualTo(EthernetForm.OUTGOING);
        assertThat(decode(LinkType.LINUX_SLL2, sll2(0, 1, 6, 0x05FF))).isEqualTo(EthernetForm.NONE);
        assertThat(decode(LinkType.LINUX_SLL2, Arrays.copyOf(second, 19))).isEqualTo(EthernetForm.NONE);
        assertThat(EthernetForm.senderMac(LinkType.RAW, packet, second.length)).isEqualTo(EthernetForm.NO_MAC);
    }

    @Test
    void shouldKnowWhichLinkTypesHaveAnEthernetForm()
    {
        for (final int type : new int[] {LinkType.ETHERNET, LinkType.NULL, LinkType.LOOP, LinkType.RAW,
            LinkType.IPV4, LinkType.IPV6, LinkType.LINUX_SLL, LinkType.LINUX_SLL2})
        {
            assertThat(EthernetForm.exists(type)).as(LinkType.name(type)).isTrue();
        }
        // 802.11 with radiotap, PPP, and DLT_RAW's own number, which only a capture file's LINKTYPE_RAW stands for.
        for (final int type : new int[] {127, 9, 12})
        {
            assertThat(EthernetForm.exists(type)).as("%d", type).isFalse();
            assertThat(decode(type, new byte[] {0x45, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}))
                .isEqualTo(EthernetForm.NONE);
        }
    }

    @Test
    void shouldWriteTheHeaderInPlaceOfTheLinkLayersAndCopyTheRest()
    {
        final byte[] record = sll(0, 1, 6, 0x0800);
        record[35] = 0x77;
        final long decoded = decode(LinkType.LINUX_SLL, record);
        final int length = EthernetForm.write(packet, record.length, decoded, 0x02_00_00_00_00_0DL,
            0x02_00_00_00_00_05L, frame);

        assertThat(length).isEqualTo(14 + 20);
        final byte[] written = Frames.read(frame, length);
        assertThat(written).startsWith(2, 0, 0, 0, 0, 0x0D, 2, 0, 0, 0, 0, 5, 0x08, 0x00, 0x45);
        assertThat(Arrays.copyOfRange(written, 14, length)).isEqualTo(Arrays.copyOfRange(record, 16, record.length));
        assertThat(written[length - 1]).isEqualTo((byte)0x77);
    }

    @Test
    void shouldNumberRawIpAsLibpcapAndCaptureFilesEachDoAndEveryOtherTypeAlike()
    {
        assertThat(LinkType.ofDlt(12)).isEqualTo(LinkType.RAW);
        assertThat(LinkType.ofDlt(14)).as("OpenBSD's DLT_RAW").isEqualTo(LinkType.RAW);
        assertThat(LinkType.toDlt(LinkType.RAW)).isEqualTo(12);
        for (final int type : new int[] {LinkType.NULL, LinkType.ETHERNET, LinkType.LOOP, LinkType.LINUX_SLL,
            LinkType.IPV4, LinkType.IPV6, LinkType.LINUX_SLL2, 127})
        {
            assertThat(LinkType.ofDlt(type)).isEqualTo(type);
            assertThat(LinkType.toDlt(type)).isEqualTo(type);
        }
    }
}
