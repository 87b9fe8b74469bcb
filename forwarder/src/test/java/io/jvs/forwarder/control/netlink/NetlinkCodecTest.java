package io.jvs.forwarder.control.netlink;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Netlink's framing: messages and attributes written as the kernel writes them (unaligned lengths, zero padding to
 * 4 bytes, nests flagged and closed with their length) read back the same; every length that does not add up is
 * refused with EINVAL, naming what is wrong, and a tail too short for an attribute is left over as nla_parse does.
 */
class NetlinkCodecTest
{
    @Test
    void shouldRoundTripEveryAttributeKindWithTheKernelsAlignment()
    {
        final byte[] message = new NetlinkWriter(0x20, Netlink.NLM_F_REQUEST | Netlink.NLM_F_ACK, 77, 1234)
            .genl(4, 1).u8(1, 0xAB).u16(2, 0xBEEF).be16(3, 8080).u32(4, -5).be32(5, 0xFFFFFF00).u64(6, 1L << 40)
            .string(7, "wlc").finish();

        assertThat(message.length % 4).isZero();
        final ByteBuffer header = ByteBuffer.wrap(message).order(Netlink.ORDER);
        assertThat(header.getInt(0)).isEqualTo(message.length);
        // The first attribute after the generic header: 5 bytes long, padded to 8.
        assertThat(header.getShort(Netlink.NLMSG_HDRLEN + Netlink.GENL_HDRLEN)).isEqualTo((short)5);
        assertThat(message[Netlink.NLMSG_HDRLEN + Netlink.GENL_HDRLEN + 5]).isZero();
        // A be16 is in network order inside the attribute.
        assertThat(message[Netlink.NLMSG_HDRLEN + Netlink.GENL_HDRLEN + 8 + 8 + 4]).isEqualTo((byte)(8080 >> 8));
    }

    @Test
    void shouldReadBackWhatWasWritten() throws Exception
    {
        final NetlinkWriter writer = new NetlinkWriter(0x20, Netlink.NLM_F_REQUEST, 77, 1234).genl(4, 1)
            .u8(1, 0xAB).u16(2, 0xBEEF).be16(3, 8080).u32(4, -5).be32(5, 0xFFFFFF00).u64(6, 1L << 40)
            .string(7, "wlc");
        final int nest = writer.nest(8);
        writer.u32(1, 42);
        writer.end(nest);
        final NetlinkMessage message = NetlinkMessage.split(writer.finish()).getFirst();
        assertThat(message.type()).isEqualTo(0x20);
        assertThat(message.flags()).isEqualTo(Netlink.NLM_F_REQUEST);
        assertThat(message.sequence()).isEqualTo(77);
        assertThat(message.port()).isEqualTo(1234);

        final NetlinkAttributes attributes = NetlinkAttributes.parse(
            message.payloadBuffer().position(Netlink.GENL_HDRLEN), 8);
        assertThat(attributes.u8(1)).isEqualTo(0xAB);
        assertThat(attributes.u16(2)).isEqualTo(0xBEEF);
        assertThat(attributes.be16(3)).isEqualTo(8080);
        assertThat(attributes.u32(4)).isEqualTo(-5);
        assertThat(attributes.be32(5)).isEqualTo(0xFFFFFF00);
        assertThat(attributes.u64(6)).isEqualTo(1L << 40);
        assertThat(attributes.string(7, 15)).isEqualTo("wlc");
        assertThat(attributes.flaggedNested(8)).isTrue();
        assertThat(attributes.nested(8, 1).u32(1)).isEqualTo(42);
        assertThat(attributes.has(9)).isFalse();
    }

    @Test
    void shouldWalkSeveralMessagesOfADatagramAtTheirAlignedEnds() throws Exception
    {
        final byte[] first = new NetlinkWriter(0x10, Netlink.NLM_F_REQUEST, 1, 9).genl(3, 1).string(2, "IPVS")
            .finish();
        final byte[] second = new NetlinkWriter(0x20, Netlink.NLM_F_REQUEST, 2, 9).genl(15, 1).finish();
        final byte[] datagram = ByteBuffer.allocate(first.length + second.length).put(first).put(second).array();

        final List<NetlinkMessage> messages = NetlinkMessage.split(datagram);

        assertThat(messages).extracting(NetlinkMessage::sequence).containsExactly(1, 2);
        assertThat(messages.get(1).encode()).isEqualTo(second);
    }

    @Test
    void shouldRefuseMessageLengthsThatDoNotAddUp()
    {
        final byte[] message = new NetlinkWriter(0x20, Netlink.NLM_F_REQUEST, 1, 9).genl(15, 1).finish();

        final byte[] longer = message.clone();
        ByteBuffer.wrap(longer).order(Netlink.ORDER).putInt(0, message.length + 4);
        assertThatThrownBy(() -> NetlinkMessage.split(longer)).isInstanceOf(NetlinkException.class)
            .hasMessageContaining("claims " + (message.length + 4) + " bytes; " + message.length + " are left")
            .extracting(ex -> ((NetlinkException)ex).errno()).isEqualTo(Netlink.EINVAL);

        final byte[] shorter = message.clone();
        ByteBuffer.wrap(shorter).order(Netlink.ORDER).putInt(0, 8);
        assertThatThrownBy(() -> NetlinkMessage.split(shorter)).isInstanceOf(NetlinkException.class)
            .hasMessageContaining("claims 8 bytes");

        final byte[] huge = message.clone();
        ByteBuffer.wrap(huge).order(Netlink.ORDER).putInt(0, -1);
        assertThatThrownBy(() -> NetlinkMessage.split(huge)).hasMessageContaining("claims 4294967295 bytes");

        assertThatThrownBy(() -> NetlinkMessage.split(new byte[10])).isInstanceOf(NetlinkException.class)
            .hasMessageContaining("10 bytes are too few for a netlink header");
    }

    @Test
    void shouldRefuseAttributeLengthsThatDoNotAddUpAndIgnoreAShortTail() throws Exception
    {
        final ByteBuffer tooShort = attributes(new byte[] {2, 0, 1, 0});
        assertThatThrownBy(() -> NetlinkAttributes.parse(tooShort, 5)).isInstanceOf(NetlinkException.class)
            .hasMessageContaining("attribute type 1 claims 2 bytes");

        final ByteBuffer pastTheEnd = attributes(new byte[] {12, 0, 1, 0, 1, 2, 3, 4});
        assertThatThrownBy(() -> NetlinkAttributes.parse(pastTheEnd, 5)).hasMessageContaining("claims 12 bytes; 8");

        // An 8-byte u32 attribute, then 3 bytes too few for another header: left over, not an error.
        final NetlinkAttributes tail = NetlinkAttributes.parse(attributes(new byte[] {8, 0, 1, 0, 7, 0, 0, 0, 9, 9,
            9}), 5);
        assertThat(tail.u32(1)).isEqualTo(7);

        // A type above the level's maximum is ignored; of a repeated type the last wins.
        final NetlinkAttributes repeated = NetlinkAttributes.parse(attributes(new byte[] {8, 0, 1, 0, 1, 0, 0, 0,
            8, 0, 9, 0, 2, 0, 0, 0, 8, 0, 1, 0, 3, 0, 0, 0}), 5);
        assertThat(repeated.u32(1)).isEqualTo(3);
        assertThat(repeated.has(9)).isFalse();
    }

    @Test
    void shouldRefuseValuesTooShortForTheirTypeAndBadStrings() throws Exception
    {
        final NetlinkAttributes attributes = NetlinkAttributes.parse(attributes(new byte[] {6, 0, 1, 0, 1, 2, 0, 0,
            7, 0, 2, 0, 'a', 'b', 'c', 0}), 5);
        assertThatThrownBy(() -> attributes.u32(1)).isInstanceOf(NetlinkException.class)
            .hasMessageContaining("has 2 bytes, fewer than 4");
        assertThatThrownBy(() -> attributes.u64(1)).hasMessageContaining("fewer than 8");
        assertThat(attributes.u16(1)).isEqualTo(0x0201);
        assertThatThrownBy(() -> attributes.string(2, 15)).hasMessageContaining("not a NUL-terminated string");
        final NetlinkAttributes longName = NetlinkAttributes.parse(ByteBuffer.wrap(new NetlinkWriter(0, 0, 0, 0)
            .string(1, "a-scheduler-name-too-long").finish()).position(Netlink.NLMSG_HDRLEN), 1);
        assertThatThrownBy(() -> longName.string(1, 15)).hasMessageContaining("longer than 15");
    }

    private static ByteBuffer attributes(final byte[] bytes)
    {
        return ByteBuffer.wrap(bytes).order(Netlink.ORDER);
    }
}
