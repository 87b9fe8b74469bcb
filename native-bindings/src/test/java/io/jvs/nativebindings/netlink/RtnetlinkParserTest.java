package io.jvs.nativebindings.netlink;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import io.jvs.nativebindings.Sockets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED;
import static java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

/**
 * The rtnetlink decoding over messages built by hand, byte by byte as the uapi headers lay them out: what each
 * field becomes, that unknown attributes are skipped, and that truncated or lying messages (lengths past the end,
 * fixed-size attributes of the wrong size) end in a {@link NetlinkFormatException} naming the fault, never in a
 * read past the message. No root needed.
 */
class RtnetlinkParserTest
{
    private static final int AF_BRIDGE = 7;
    private static final int UNKNOWN_ATTRIBUTE = 999;

    @Test
    void shouldLayOutTheStructuresAsTheUapiHeaders()
    {
        // sizeof and offsetof as gcc reports them for linux/netlink.h, rtnetlink.h, neighbour.h, if_addr.h.
        assertThat(new int[] {NlMsgHdr.SIZE, SockaddrNl.SIZE, RtMsg.SIZE, IfInfoMsg.SIZE, IfAddrMsg.SIZE, NdMsg.SIZE,
            RtNextHop.SIZE}).containsExactly(16, 12, 12, 16, 8, 12, 8);
        assertThat(new int[] {NlMsgHdr.LEN_OFFSET, NlMsgHdr.TYPE_OFFSET, NlMsgHdr.FLAGS_OFFSET, NlMsgHdr.SEQ_OFFSET,
            NlMsgHdr.PID_OFFSET}).containsExactly(0, 4, 6, 8, 12);
        assertThat(new int[] {SockaddrNl.FAMILY_OFFSET, SockaddrNl.PID_OFFSET, SockaddrNl.GROUPS_OFFSET})
            .containsExactly(0, 4, 8);
        assertThat(new int[] {RtMsg.FAMILY_OFFSET, RtMsg.DST_LEN_OFFSET, RtMsg.SRC_LEN_OFFSET, RtMsg.TOS_OFFSET,
            RtMsg.TABLE_OFFSET, RtMsg.PROTOCOL_OFFSET, RtMsg.SCOPE_OFFSET, RtMsg.TYPE_OFFSET, RtMsg.FLAGS_OFFSET})
            .containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8);
        assertThat(new int[] {IfInfoMsg.FAMILY_OFFSET, IfInfoMsg.TYPE_OFFSET, IfInfoMsg.INDEX_OFFSET,
            IfInfoMsg.FLAGS_OFFSET, IfInfoMsg.CHANGE_OFFSET}).containsExactly(0, 2, 4, 8, 12);
        assertThat(new int[] {IfAddrMsg.FAMILY_OFFSET, IfAddrMsg.PREFIXLEN_OFFSET, IfAddrMsg.FLAGS_OFFSET,
            IfAddrMsg.SCOPE_OFFSET, IfAddrMsg.INDEX_OFFSET}).containsExactly(0, 1, 2, 3, 4);
        assertThat(new int[] {NdMsg.FAMILY_OFFSET, NdMsg.IFINDEX_OFFSET, NdMsg.STATE_OFFSET, NdMsg.FLAGS_OFFSET,
            NdMsg.TYPE_OFFSET}).containsExactly(0, 4, 8, 10, 11);
        assertThat(new int[] {RtNextHop.LEN_OFFSET, RtNextHop.FLAGS_OFFSET, RtNextHop.HOPS_OFFSET,
            RtNextHop.IFINDEX_OFFSET}).containsExactly(0, 2, 3, 4);
        assertThat(Rtnetlink.NLA_TYPE_MASK).isEqualTo(0x3FFF);
    }

    @Test
    void shouldDecodeALinkAndSkipWhatItDoesNotKnow()
    {
        final byte[] message = linkMessage(Rtnetlink.RTM_NEWLINK, 0);
        final Link link = RtnetlinkParser.link(segment(message), 0, message.length);
        assertThat(link).isEqualTo(new Link(7, "eth1", 1, Rtnetlink.IFF_UP | Rtnetlink.IFF_RUNNING,
            0x02_11_22_33_44_55L, 9000, "veth"));
        assertThat(link.up()).isTrue();
        assertThat(link.running()).isTrue();
        assertThat(link.lowerUp()).isFalse();
        assertThat(link.hasMac()).isTrue();

        assertThat(RtnetlinkParser.event(segment(message), 0, message.length))
            .isEqualTo(new NetlinkEvent.LinkChanged(link));
        final byte[] removed = linkMessage(Rtnetlink.RTM_DELLINK, 0);
        assertThat(RtnetlinkParser.event(segment(removed), 0, removed.length))
            .isEqualTo(new NetlinkEvent.LinkRemoved(link));
        // The bridge's messages about its ports come to the same group as AF_BRIDGE.
        final byte[] bridge = linkMessage(Rtnetlink.RTM_NEWLINK, AF_BRIDGE);
        assertThat(RtnetlinkParser.event(segment(bridge), 0, bridge.length)).isNull();
    }

    @Test
    void shouldTakeOnlyASixByteLinkAddressForAMac()
    {
        final byte[] message = message(Rtnetlink.RTM_NEWLINK, 0, new Bytes()
            .u8(0).u8(0).u16(768).u32(3).u32(Rtnetlink.IFF_UP).u32(0)
            .attribute(Rtnetlink.IFLA_IFNAME, "ipip0\0".getBytes(StandardCharsets.US_ASCII))
            .attribute(Rtnetlink.IFLA_ADDRESS, new byte[] {10, 0, 0, 1}));
        final Link link = RtnetlinkParser.link(segment(message), 0, message.length);
        assertThat(link.mac()).isEqualTo(Link.NO_MAC);
        assertThat(link.hasMac()).isFalse();
        assertThat(link.kind()).isNull();
        assertThat(link.mtu()).isZero();
    }

    @Test
    void shouldDecodeAMultipathRouteWithTableMetricAndMtu()
    {
        final byte[] message = multipathRouteMessage();
        final Route route = RtnetlinkParser.route(segment(message), 0, message.length);
        assertThat(route.family()).isEqualTo(Sockets.AF_INET);
        assertThat(route.destination()).isEqualTo(address("10.80.0.0"));
        assertThat(route.prefixLength()).isEqualTo(16);
        assertThat(route.table()).as("RTA_TABLE over rtm_table").isEqualTo(1000);
        assertThat(route.priority()).isEqualTo(20);
        assertThat(route.mtu()).isEqualTo(1300);
        assertThat(route.protocol()).isEqualTo(Rtnetlink.RTPROT_STATIC);
        assertThat(route.type()).isEqualTo(Rtnetlink.RTN_UNICAST);
        assertThat(route.gateway()).isNull();
        assertThat(route.outputIndex()).isZero();
        assertThat(route.multipath()).isTrue();
        assertThat(route.paths()).containsExactly(
            new NextHop(address("10.1.0.2"), 2, 1, 0),
            new NextHop(address("fe80::1"), 3, 3, Rtnetlink.RTNH_F_LINKDOWN));
        assertThat(route.paths().get(1).down()).isTrue();
        assertThat(route.paths().get(1).gateway()).as("RTA_VIA of the other family").isInstanceOf(Inet6Address.class);
    }

    @Test
    void shouldGiveARouteWithoutDestinationTheAnyAddress()
    {
        final byte[] message = message(Rtnetlink.RTM_NEWROUTE, Rtnetlink.NLM_F_REPLACE, new Bytes()
            .u8(Sockets.AF_INET6).u8(0).u8(0).u8(0).u8(Rtnetlink.RT_TABLE_MAIN).u8(Rtnetlink.RTPROT_BOOT)
            .u8(Rtnetlink.RT_SCOPE_UNIVERSE).u8(Rtnetlink.RTN_UNICAST).u32(0)
            .attribute(Rtnetlink.RTA_GATEWAY, address("fd00:1::2").getAddress())
            .attributeU32(Rtnetlink.RTA_OIF, 4)
            .attribute(Rtnetlink.RTA_PREFSRC, address("fd00:1::1").getAddress()));
        final NetlinkEvent event = RtnetlinkParser.event(segment(message), 0, message.length);
        assertThat(event).isInstanceOf(NetlinkEvent.RouteAdded.class);
        final NetlinkEvent.RouteAdded added = (NetlinkEvent.RouteAdded)event;
        assertThat(added.replaced()).isTrue();
        assertThat(added.route().isDefault()).isTrue();
        assertThat(added.route().destination()).isEqualTo(address("::"));
        assertThat(added.route().paths()).containsExactly(new NextHop(address("fd00:1::2"), 4, 1, 0));
        assertThat(added.route().preferredSource()).isEqualTo(address("fd00:1::1"));
        assertThat(added.route().table()).isEqualTo(Rtnetlink.RT_TABLE_MAIN);
    }

    @Test
    void shouldKeepAnIpv4MappedAddressIpv6()
    {
        final byte[] mapped = new byte[16];
        mapped[10] = (byte)0xFF;
        mapped[11] = (byte)0xFF;
        mapped[12] = 10;
        mapped[15] = 1;
        final byte[] message = message(Rtnetlink.RTM_NEWNEIGH, 0, neighbourHeader(Sockets.AF_INET6, 5,
            Rtnetlink.NUD_REACHABLE).attribute(Rtnetlink.NDA_DST, mapped));
        final Neighbour neighbour = RtnetlinkParser.neighbour(segment(message), 0, message.length);
        assertThat(neighbour.address()).isInstanceOf(Inet6Address.class);
        assertThat(neighbour.address().getAddress()).isEqualTo(mapped);
    }

    @Test
    void shouldDecodeNeighboursWithAndWithoutAMac()
    {
        final byte[] reachable = message(Rtnetlink.RTM_NEWNEIGH, 0, neighbourHeader(Sockets.AF_INET, 5,
            Rtnetlink.NUD_REACHABLE)
            .attribute(Rtnetlink.NDA_DST, address("10.1.0.2").getAddress())
            .attribute(Rtnetlink.NDA_LLADDR, mac(0x02_bb_00_00_00_02L))
            .attributeU32(Rtnetlink.NDA_PROBES, 0)
            .attribute(UNKNOWN_ATTRIBUTE, new byte[] {1, 2, 3}));
        final Neighbour neighbour = RtnetlinkParser.neighbour(segment(reachable), 0, reachable.length);
        assertThat(neighbour).isEqualTo(new Neighbour(Sockets.AF_INET, 5, address("10.1.0.2"), 0x02_bb_00_00_00_02L,
            Rtnetlink.NUD_REACHABLE, 0, Rtnetlink.RTN_UNICAST));
        assertThat(neighbour.usable()).isTrue();

        final byte[] failed = message(Rtnetlink.RTM_DELNEIGH, 0, neighbourHeader(Sockets.AF_INET, 5,
            Rtnetlink.NUD_FAILED).attribute(Rtnetlink.NDA_DST, address("10.1.0.3").getAddress()));
        final NetlinkEvent event = RtnetlinkParser.event(segment(failed), 0, failed.length);
        assertThat(event).isInstanceOf(NetlinkEvent.NeighbourRemoved.class);
        final Neighbour gone = ((NetlinkEvent.NeighbourRemoved)event).neighbour();
        assertThat(gone.mac()).isEqualTo(Link.NO_MAC);
        assertThat(gone.usable()).isFalse();

        // The bridge's forwarding database comes to the same group as AF_BRIDGE.
        final byte[] fdb = message(Rtnetlink.RTM_NEWNEIGH, 0, neighbourHeader(AF_BRIDGE, 5, Rtnetlink.NUD_NOARP)
            .attribute(Rtnetlink.NDA_LLADDR, mac(0x02_00_00_00_00_01L)));
        assertThat(RtnetlinkParser.event(segment(fdb), 0, fdb.length)).isNull();
    }

    @Test
    void shouldCallUsableExactlyTheStatesWithAMacTheKernelVouchesFor()
    {
        final int usable = Rtnetlink.NUD_REACHABLE | Rtnetlink.NUD_STALE | Rtnetlink.NUD_DELAY | Rtnetlink.NUD_PROBE |
            Rtnetlink.NUD_PERMANENT | Rtnetlink.NUD_NOARP;
        for (int bit = 0; bit < 8; bit++)
        {
            final int state = 1 << bit;
            final Neighbour neighbour = new Neighbour(Sockets.AF_INET, 1, address("10.0.0.1"), 1L, state, 0, 1);
            assertThat(neighbour.usable()).as(Rtnetlink.nudName(state)).isEqualTo((usable & state) != 0);
        }
        assertThat(new Neighbour(Sockets.AF_INET, 1, address("10.0.0.1"), 1L, Rtnetlink.NUD_NONE, 0, 1).usable())
            .isFalse();
        assertThat(new Neighbour(Sockets.AF_INET, 1, address("10.0.0.1"), Link.NO_MAC, Rtnetlink.NUD_STALE, 0, 1)
            .usable()).as("no MAC, nothing to send to").isFalse();
        assertThat(Rtnetlink.NUD_VALID).isEqualTo(usable);
    }

    @Test
    void shouldPreferTheLocalAddressAndTheLongFlags()
    {
        final byte[] message = message(Rtnetlink.RTM_NEWADDR, 0, new Bytes()
            .u8(Sockets.AF_INET).u8(32).u8(Rtnetlink.IFA_F_PERMANENT).u8(Rtnetlink.RT_SCOPE_UNIVERSE).u32(9)
            .attribute(Rtnetlink.IFA_ADDRESS, address("192.0.2.2").getAddress())
            .attribute(Rtnetlink.IFA_LOCAL, address("192.0.2.1").getAddress())
            .attribute(Rtnetlink.IFA_LABEL, "ppp0\0".getBytes(StandardCharsets.US_ASCII))
            .attributeU32(Rtnetlink.IFA_FLAGS, Rtnetlink.IFA_F_PERMANENT | 0x100));
        final NetlinkEvent event = RtnetlinkParser.event(segment(message), 0, message.length);
        assertThat(event).isEqualTo(new NetlinkEvent.AddressAdded(new Address(9, Sockets.AF_INET,
            address("192.0.2.1"), 32, Rtnetlink.RT_SCOPE_UNIVERSE, Rtnetlink.IFA_F_PERMANENT | 0x100)));
        assertThat(((NetlinkEvent.AddressAdded)event).address().tentative()).isFalse();

        final byte[] tentative = message(Rtnetlink.RTM_DELADDR, 0, new Bytes()
            .u8(Sockets.AF_INET6).u8(64).u8(Rtnetlink.IFA_F_TENTATIVE).u8(Rtnetlink.RT_SCOPE_LINK).u32(9)
            .attribute(Rtnetlink.IFA_ADDRESS, address("fe80::1").getAddress()));
        final NetlinkEvent removed = RtnetlinkParser.event(segment(tentative), 0, tentative.length);
        assertThat(removed).isInstanceOf(NetlinkEvent.AddressRemoved.class);
        assertThat(((NetlinkEvent.AddressRemoved)removed).address().tentative()).isTrue();
    }

    @Test
    void shouldReadTheErrorAndTheKernelsExplanation()
    {
        // NETLINK_CAP_ACK: the request's header alone is echoed; NETLINK_EXT_ACK: the text follows.
        final byte[] request = message(Rtnetlink.RTM_NEWNEIGH, Rtnetlink.NLM_F_REQUEST, new Bytes().u32(0).u32(0)
            .u32(0));
        final byte[] error = message(Rtnetlink.NLMSG_ERROR, Rtnetlink.NLM_F_CAPPED | Rtnetlink.NLM_F_ACK_TLVS,
            new Bytes().u32(-19).bytes(Arrays.copyOf(request, NlMsgHdr.SIZE))
                .attribute(Rtnetlink.NLMSGERR_ATTR_MSG, "No such device\0".getBytes(StandardCharsets.US_ASCII))
                .attributeU32(Rtnetlink.NLMSGERR_ATTR_OFFS, 20));
        assertThat(RtnetlinkParser.error(segment(error), 0, error.length)).isEqualTo(-19);
        assertThat(RtnetlinkParser.errorText(segment(error), 0, error.length)).isEqualTo("No such device");

        // Without NETLINK_CAP_ACK the whole request is echoed before the attributes.
        final byte[] uncapped = message(Rtnetlink.NLMSG_ERROR, Rtnetlink.NLM_F_ACK_TLVS, new Bytes().u32(-22)
            .bytes(request).attribute(Rtnetlink.NLMSGERR_ATTR_MSG, "bad\0".getBytes(StandardCharsets.US_ASCII)));
        assertThat(RtnetlinkParser.errorText(segment(uncapped), 0, uncapped.length)).isEqualTo("bad");

        final byte[] acknowledgement = message(Rtnetlink.NLMSG_ERROR, Rtnetlink.NLM_F_CAPPED, new Bytes().u32(0)
            .bytes(Arrays.copyOf(request, NlMsgHdr.SIZE)));
        assertThat(RtnetlinkParser.error(segment(acknowledgement), 0, acknowledgement.length)).isZero();
        assertThat(RtnetlinkParser.errorText(segment(acknowledgement), 0, acknowledgement.length)).isNull();

        final byte[] tooShort = message(Rtnetlink.NLMSG_ERROR, 0, new Bytes().u16(0));
        assertThatThrownBy(() -> RtnetlinkParser.error(segment(tooShort), 0, tooShort.length))
            .isInstanceOf(NetlinkFormatException.class).hasMessageContaining("too few for its error code");
    }

    @Test
    void shouldRefuseAMessageLongerThanWhatRemainsOfTheDatagram()
    {
        final byte[] message = linkMessage(Rtnetlink.RTM_NEWLINK, 0);
        final byte[] cut = Arrays.copyOf(message, message.length - 8);
        assertThatThrownBy(() -> RtnetlinkParser.messageLength(segment(cut), 0, cut.length))
            .isInstanceOf(NetlinkFormatException.class)
            .hasMessageContaining("RTM_NEWLINK at offset 0 has length " + message.length)
            .hasMessageContaining("truncated");
        assertThatThrownBy(() -> RtnetlinkParser.messageLength(segment(cut), 0, 10))
            .isInstanceOf(NetlinkFormatException.class).hasMessageContaining("less than a message header");
        final byte[] lying = message.clone();
        ByteBuffer.wrap(lying).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 8);
        assertThatThrownBy(() -> RtnetlinkParser.messageLength(segment(lying), 0, lying.length))
            .isInstanceOf(NetlinkFormatException.class).hasMessageContaining("has length 8");
        assertThat(RtnetlinkParser.messageLength(segment(message), 0, message.length)).isEqualTo(message.length);
    }

    @Test
    void shouldRefuseAttributesThatRunPastTheirMessageOrAreOfTheWrongSize()
    {
        final Bytes header = new Bytes().u8(Sockets.AF_INET).u8(16).u8(0).u8(0).u8(Rtnetlink.RT_TABLE_MAIN)
            .u8(Rtnetlink.RTPROT_BOOT).u8(0).u8(Rtnetlink.RTN_UNICAST).u32(0);

        final byte[] pastTheEnd = message(Rtnetlink.RTM_NEWROUTE, 0, header.copy().u16(40).u16(Rtnetlink.RTA_DST)
            .u32(0));
        assertThatThrownBy(() -> RtnetlinkParser.route(segment(pastTheEnd), 0, pastTheEnd.length))
            .isInstanceOf(NetlinkFormatException.class)
            .hasMessageContaining("RTM_NEWROUTE: the attribute at offset 28 has length 40 but 8 bytes remain");

        final byte[] shorterThanItsHeader = message(Rtnetlink.RTM_NEWROUTE, 0, header.copy().u16(2).u16(1).u32(0));
        assertThatThrownBy(() -> RtnetlinkParser.route(segment(shorterThanItsHeader), 0, shorterThanItsHeader.length))
            .isInstanceOf(NetlinkFormatException.class).hasMessageContaining("has length 2");

        final byte[] shortU32 = message(Rtnetlink.RTM_NEWROUTE, 0, header.copy()
            .attribute(Rtnetlink.RTA_OIF, new byte[] {1, 0}));
        assertThatThrownBy(() -> RtnetlinkParser.route(segment(shortU32), 0, shortU32.length))
            .isInstanceOf(NetlinkFormatException.class)
            .hasMessageContaining("attribute " + Rtnetlink.RTA_OIF + " at offset 28 has 2 bytes, needs 4");

        final byte[] shortAddress = message(Rtnetlink.RTM_NEWROUTE, 0, header.copy()
            .attribute(Rtnetlink.RTA_DST, new byte[] {10, 0, 0}));
        assertThatThrownBy(() -> RtnetlinkParser.route(segment(shortAddress), 0, shortAddress.length))
            .isInstanceOf(NetlinkFormatException.class).hasMessageContaining("3 bytes is not an address of family 2");

        final byte[] longPrefix = message(Rtnetlink.RTM_NEWROUTE, 0, new Bytes().u8(Sockets.AF_INET).u8(33)
            .u8(0).u8(0).u8(0).u8(0).u8(0).u8(0).u32(0));
        assertThatThrownBy(() -> RtnetlinkParser.route(segment(longPrefix), 0, longPrefix.length))
            .isInstanceOf(NetlinkFormatException.class).hasMessageContaining("prefix length 33 is more than 32");

        final byte[] noHeader = message(Rtnetlink.RTM_NEWROUTE, 0, new Bytes().u32(0));
        assertThatThrownBy(() -> RtnetlinkParser.route(segment(noHeader), 0, noHeader.length))
            .isInstanceOf(NetlinkFormatException.class).hasMessageContaining("too few for its 12-byte header");

        final byte[] noDestination = message(Rtnetlink.RTM_NEWNEIGH, 0, neighbourHeader(Sockets.AF_INET, 1,
            Rtnetlink.NUD_STALE).attribute(Rtnetlink.NDA_LLADDR, mac(1L)));
        assertThatThrownBy(() -> RtnetlinkParser.neighbour(segment(noDestination), 0, noDestination.length))
            .isInstanceOf(NetlinkFormatException.class).hasMessageContaining("has no NDA_DST");

        final Bytes hop = new Bytes().u16(30).u8(0).u8(0).u32(2);
        final byte[] longHop = message(Rtnetlink.RTM_NEWROUTE, 0, header.copy()
            .attribute(Rtnetlink.RTA_MULTIPATH, hop.toArray()));
        assertThatThrownBy(() -> RtnetlinkParser.route(segment(longHop), 0, longHop.length))
            .isInstanceOf(NetlinkFormatException.class).hasMessageContaining("of RTA_MULTIPATH has length 30");
    }

    @Test
    void shouldEndTheWalkAtLeftoversShorterThanAnAttributeHeader()
    {
        // The kernel's nla_parse ignores such leftovers too.
        final byte[] message = message(Rtnetlink.RTM_NEWNEIGH, 0, neighbourHeader(Sockets.AF_INET, 5,
            Rtnetlink.NUD_STALE).attribute(Rtnetlink.NDA_DST, address("10.1.0.2").getAddress()).u16(0));
        assertThat(RtnetlinkParser.neighbour(segment(message), 0, message.length).address())
            .isEqualTo(address("10.1.0.2"));
    }

    @Test
    void shouldPadAttributesOfTheRequestsItWrites()
    {
        try (Arena arena = Arena.ofConfined())
        {
            final RequestWriter writer = new RequestWriter(arena.allocate(64));
            final long header = writer.begin(Rtnetlink.RTM_GETROUTE, Rtnetlink.NLM_F_REQUEST, 77, RtMsg.SIZE);
            assertThat(header).isEqualTo(NlMsgHdr.SIZE);
            writer.attribute(UNKNOWN_ATTRIBUTE, new byte[] {1, 2, 3});
            writer.attributeU32(Rtnetlink.RTA_MARK, 7);
            final int length = writer.finish();
            assertThat(length).isEqualTo(16 + 12 + 8 + 8);
            final MemorySegment buffer = writer.buffer();
            assertThat(buffer.get(JAVA_INT_UNALIGNED, 0)).isEqualTo(length);
            assertThat(buffer.get(JAVA_SHORT_UNALIGNED, 4)).isEqualTo((short)Rtnetlink.RTM_GETROUTE);
            assertThat(buffer.get(JAVA_INT_UNALIGNED, 8)).isEqualTo(77);
            assertThat(buffer.get(JAVA_SHORT_UNALIGNED, 28)).as("length counts the header, not the padding")
                .isEqualTo((short)7);
            assertThat(buffer.get(JAVA_BYTE, 35)).as("padding is zero").isZero();
            assertThat(buffer.get(JAVA_SHORT_UNALIGNED, 38)).isEqualTo((short)Rtnetlink.RTA_MARK);
            assertThat(buffer.get(JAVA_INT_UNALIGNED, 40)).isEqualTo(7);
            assertThatThrownBy(() -> writer.attribute(1, new byte[40])).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("does not fit the 64-byte request buffer");
        }
    }

    /**
     * Truncates and corrupts valid messages at random: decoding either succeeds or throws a
     * {@link NetlinkFormatException}, never anything else (an out-of-bounds read, an arithmetic surprise).
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
    void shouldNeverFailOtherThanWithAFormatExceptionOnDamagedMessages(final long seed)
    {
        final Random random = new Random(seed);
        final List<byte[]> valid = List.of(linkMessage(Rtnetlink.RTM_NEWLINK, 0), multipathRouteMessage(),
            message(Rtnetlink.RTM_NEWNEIGH, 0, neighbourHeader(Sockets.AF_INET6, 5, Rtnetlink.NUD_STALE)
                .attribute(Rtnetlink.NDA_DST, address("fd00::2").getAddress())
                .attribute(Rtnetlink.NDA_LLADDR, mac(2L))),
            message(Rtnetlink.RTM_NEWADDR, 0, new Bytes().u8(Sockets.AF_INET).u8(24).u8(0).u8(0).u32(2)
                .attribute(Rtnetlink.IFA_LOCAL, address("10.0.0.1").getAddress())),
            message(Rtnetlink.NLMSG_ERROR, Rtnetlink.NLM_F_ACK_TLVS, new Bytes().u32(-22).bytes(new byte[16])
                .attribute(Rtnetlink.NLMSGERR_ATTR_MSG, "x\0".getBytes(StandardCharsets.US_ASCII))));
        int refused = 0;
        for (int round = 0; round < 5_000; round++)
        {
            final byte[] damaged = valid.get(random.nextInt(valid.size())).clone();
            final int flips = 1 + random.nextInt(4);
            for (int i = 0; i < flips; i++)
            {
                damaged[random.nextInt(damaged.length)] = (byte)random.nextInt(256);
            }
            final int length = random.nextBoolean() ? damaged.length : random.nextInt(damaged.length + 1);
            if (random.nextBoolean() && length >= 4)
            {
                // A length field that agrees with the cut, so that the attributes are what is short.
                ByteBuffer.wrap(damaged).order(ByteOrder.LITTLE_ENDIAN).putInt(0, length);
            }
            try
            {
                decodeDatagram(segment(Arrays.copyOf(damaged, length)), length);
            }
            catch (final NetlinkFormatException expected)
            {
                refused++;
            }
            catch (final RuntimeException | Error ex)
            {
                fail("seed " + seed + " round " + round + ": " + ex + " for " + Arrays.toString(damaged), ex);
            }
        }
        assertThat(refused).as("the damage was noticed some of the time").isPositive();
    }

    private static void decodeDatagram(final MemorySegment segment, final int length)
    {
        long position = 0;
        while (position < length)
        {
            final int messageLength = RtnetlinkParser.messageLength(segment, position, length);
            if (RtnetlinkParser.type(segment, position) == Rtnetlink.NLMSG_ERROR)
            {
                RtnetlinkParser.error(segment, position, messageLength);
                RtnetlinkParser.errorText(segment, position, messageLength);
            }
            else
            {
                RtnetlinkParser.event(segment, position, messageLength);
            }
            position += Rtnetlink.align(messageLength);
        }
    }

    private static byte[] linkMessage(final int type, final int family)
    {
        return message(type, 0, new Bytes()
            .u8(family).u8(0).u16(1).u32(7).u32(Rtnetlink.IFF_UP | Rtnetlink.IFF_RUNNING).u32(0xFFFF_FFFF)
            .attribute(Rtnetlink.IFLA_IFNAME, "eth1\0".getBytes(StandardCharsets.US_ASCII))
            .attributeU32(Rtnetlink.IFLA_MTU, 9000)
            .attribute(UNKNOWN_ATTRIBUTE, new byte[] {9, 9, 9, 9, 9})
            .attribute(Rtnetlink.IFLA_ADDRESS, mac(0x02_11_22_33_44_55L))
            .attribute(Rtnetlink.IFLA_LINKINFO | Rtnetlink.NLA_F_NESTED, new Bytes()
                .attribute(Rtnetlink.IFLA_INFO_KIND, "veth\0".getBytes(StandardCharsets.US_ASCII))
                .attribute(UNKNOWN_ATTRIBUTE, new byte[8]).toArray()));
    }

    private static byte[] multipathRouteMessage()
    {
        final byte[] first = new Bytes().u16(16).u8(0).u8(0).u32(2)
            .attribute(Rtnetlink.RTA_GATEWAY, address("10.1.0.2").getAddress()).toArray();
        final byte[] via = new Bytes().u16(Sockets.AF_INET6).bytes(address("fe80::1").getAddress()).toArray();
        final byte[] second = new Bytes().u16(8 + 4 + via.length).u8(Rtnetlink.RTNH_F_LINKDOWN).u8(2).u32(3)
            .attribute(Rtnetlink.RTA_VIA, via).toArray();
        return message(Rtnetlink.RTM_NEWROUTE, 0, new Bytes()
            .u8(Sockets.AF_INET).u8(16).u8(0).u8(0).u8(Rtnetlink.RT_TABLE_COMPAT).u8(Rtnetlink.RTPROT_STATIC)
            .u8(Rtnetlink.RT_SCOPE_UNIVERSE).u8(Rtnetlink.RTN_UNICAST).u32(0)
            .attributeU32(Rtnetlink.RTA_TABLE, 1000)
            .attribute(Rtnetlink.RTA_DST, address("10.80.0.0").getAddress())
            .attributeU32(Rtnetlink.RTA_PRIORITY, 20)
            .attribute(Rtnetlink.RTA_METRICS | Rtnetlink.NLA_F_NESTED, new Bytes()
                .attributeU32(Rtnetlink.RTAX_MTU, 1300).toArray())
            .attribute(Rtnetlink.RTA_MULTIPATH, new Bytes().bytes(first).bytes(second).toArray()));
    }

    private static Bytes neighbourHeader(final int family, final int index, final int state)
    {
        return new Bytes().u8(family).u8(0).u16(0).u32(index).u16(state).u8(0).u8(Rtnetlink.RTN_UNICAST);
    }

    /**
     * @return the message: a 16-byte header (length, type, flags, sequence 1, port 0) and the body.
     */
    private static byte[] message(final int type, final int flags, final Bytes body)
    {
        final byte[] payload = body.toArray();
        return new Bytes().u32(NlMsgHdr.SIZE + payload.length).u16(type).u16(flags).u32(1).u32(0).bytes(payload)
            .toArray();
    }

    private static byte[] mac(final long mac)
    {
        final byte[] bytes = new byte[6];
        for (int i = 0; i < 6; i++)
        {
            bytes[i] = (byte)(mac >>> (40 - 8 * i));
        }
        return bytes;
    }

    private static MemorySegment segment(final byte[] bytes)
    {
        return MemorySegment.ofArray(bytes);
    }

    private static InetAddress address(final String text)
    {
        try
        {
            return InetAddress.getByName(text);
        }
        catch (final UnknownHostException ex)
        {
            throw new IllegalArgumentException(text, ex);
        }
    }

    /** Bytes in host (little-endian) order, with netlink attributes padded to 4 bytes. */
    private static final class Bytes
    {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Bytes u8(final int value)
        {
            out.write(value);
            return this;
        }

        Bytes u16(final int value)
        {
            return u8(value).u8(value >>> 8);
        }

        Bytes u32(final int value)
        {
            return u16(value).u16(value >>> 16);
        }

        Bytes bytes(final byte[] value)
        {
            out.writeBytes(value);
            return this;
        }

        Bytes attribute(final int type, final byte[] payload)
        {
            u16(4 + payload.length).u16(type).bytes(payload);
            for (int i = payload.length; i % 4 != 0; i++)
            {
                u8(0);
            }
            return this;
        }

        Bytes attributeU32(final int type, final int value)
        {
            return attribute(type, new Bytes().u32(value).toArray());
        }

        Bytes copy()
        {
            return new Bytes().bytes(toArray());
        }

        byte[] toArray()
        {
            return out.toByteArray();
        }
    }
}
